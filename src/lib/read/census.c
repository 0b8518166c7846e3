/* census.c - the tree's processes grouped by command, and the top process
 * over time (census.h). */
#include "read/census.h"

#include "common/buf.h"
#include "common/internal.h"

#include <stdlib.h>
#include <string.h>

void census_init(struct census *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->ready = 1;
    c->tick_ns = 10000000; /* USER_HZ 100; the tree sets the machine's */
}

void census_free(struct census *c)
{
    if (!c->ready)
        return;
    free(c->groups);
    free(c->hash);
    free(c->touched);
    free(c->changes);
    pthread_mutex_destroy(&c->lock);
    memset(c, 0, sizeof *c);
}

/* FNV-1a of a name of at most 15 bytes. */
static size_t name_hash(const char *name)
{
    unsigned h = 2166136261u;
    for (size_t i = 0; i < 16 && name[i]; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    return h;
}

/* Puts group index gi in the hash table (which has room). */
static void hash_put(struct census *c, size_t gi)
{
    size_t mask = c->hashcap - 1;
    for (size_t at = name_hash(c->groups[gi].name) & mask;; at = (at + 1) & mask)
        if (!c->hash[at]) {
            c->hash[at] = (int)gi + 1;
            return;
        }
}

/* The group named name, made when new; -1 when out of memory. Past
 * CENSUS_MAX_GROUPS names, new ones go to CENSUS_OTHER_NAME. */
static long group_of(struct census *c, const char *name)
{
    if (c->hashcap) {
        size_t mask = c->hashcap - 1;
        for (size_t at = name_hash(name) & mask; c->hash[at]; at = (at + 1) & mask) {
            size_t gi = (size_t)c->hash[at] - 1;
            if (strncmp(c->groups[gi].name, name, 16) == 0)
                return (long)gi;
        }
    }
    if (c->ngroups >= CENSUS_MAX_GROUPS - 1 && strncmp(name, CENSUS_OTHER_NAME, 16) != 0) {
        c->folded++; /* the last room is kept for the fold */
        return group_of(c, CENSUS_OTHER_NAME);
    }
    if (c->ngroups == c->capgroups) {
        size_t cap = c->capgroups, tcap = c->captouched;
        if (grow_array(&c->groups, &cap, c->ngroups + 1, sizeof *c->groups, 16) < 0 ||
            grow_array(&c->touched, &tcap, cap, sizeof *c->touched, cap) < 0)
            return -1;
        c->capgroups = cap;
        c->captouched = tcap;
    }
    /* The table stays at most half full. */
    if ((c->ngroups + 1) * 2 > c->hashcap) {
        size_t cap = c->hashcap ? c->hashcap * 2 : 64;
        int *table = calloc(cap, sizeof *table);
        if (!table)
            return -1;
        free(c->hash);
        c->hash = table;
        c->hashcap = cap;
        for (size_t gi = 0; gi < c->ngroups; gi++)
            hash_put(c, gi);
    }
    struct census_group *g = &c->groups[c->ngroups];
    memset(g, 0, sizeof *g);
    strncpy(g->name, name, sizeof g->name - 1);
    hash_put(c, c->ngroups);
    return (long)c->ngroups++;
}

void census_begin(struct census *c)
{
    pthread_mutex_lock(&c->lock);
    c->stamp++;
    c->ntouched = 0;
    c->top_kb = 0;
    c->top_pid = 0;
    c->top_name[0] = '\0';
}

/* census_add() and, for a worker, its share of the walk's load. */
static void add_process(struct census *c, struct census_slot *slot, int pid, const char *comm,
                        unsigned long long own_ticks, unsigned long long pss_kb, int alive,
                        int worker, unsigned long long runnable_ns)
{
    /* The slot stays right while the name does (an exec changes it). */
    if (!slot->group || strncmp(slot->comm, comm, 16) != 0) {
        long gi = group_of(c, comm);
        if (gi < 0) {
            c->failed = 1;
            return;
        }
        if (!slot->group && c->stamp == 1)
            slot->credited = own_ticks; /* used before the run's span began */
        if (slot->group != (int)gi + 1) {
            /* New, or an exec made it another command. A child seen
             * between its fork and its exec (under its parent's name) did
             * nothing there: it moves rather than counting twice. */
            if (slot->group && slot->in_group == 0)
                c->groups[slot->group - 1].processes--;
            c->groups[gi].processes++;
            slot->in_group = 0;
        }
        slot->group = (int)gi + 1;
        strncpy(slot->comm, comm, sizeof slot->comm - 1);
        slot->comm[sizeof slot->comm - 1] = '\0';
    }
    struct census_group *g = &c->groups[slot->group - 1];
    unsigned long long walk_ticks = 0;
    if (own_ticks > slot->credited) {
        walk_ticks = own_ticks - slot->credited;
        g->ticks += walk_ticks;
        slot->in_group += walk_ticks;
        slot->credited = own_ticks;
    }
    if (g->stamp != c->stamp) {
        g->stamp = c->stamp;
        g->live = 0;
        g->pss_kb = 0;
        g->walk_workers = 0;
        g->walk_ticks = g->walk_runnable_ns = 0;
        c->touched[c->ntouched++] = (size_t)(slot->group - 1);
    }
    g->live += alive;
    g->pss_kb += pss_kb;
    if (worker && alive) {
        g->walk_workers++;
        g->walk_ticks += walk_ticks;
        g->walk_runnable_ns += runnable_ns;
    }
    if (pss_kb > c->top_kb) {
        c->top_kb = pss_kb;
        c->top_pid = pid;
        memcpy(c->top_name, g->name, sizeof c->top_name);
    }
}

void census_add(struct census *c, struct census_slot *slot, int pid, const char *comm,
                unsigned long long own_ticks, unsigned long long pss_kb, int alive)
{
    add_process(c, slot, pid, comm, own_ticks, pss_kb, alive, 0, 0);
}

void census_add_worker(struct census *c, struct census_slot *slot, int pid, const char *comm,
                       unsigned long long own_ticks, unsigned long long pss_kb, int alive,
                       unsigned long long runnable_ns)
{
    add_process(c, slot, pid, comm, own_ticks, pss_kb, alive, 1, runnable_ns);
}

/* Thins the changes to half the room: a holder of less than the (doubled)
 * resolution gives way to the next, and neighbours of one process merge. */
static void thin_changes(struct census *c)
{
    while (c->nchanges > CENSUS_MAX_CHANGES / 2) {
        c->resolution = c->resolution > 0 ? c->resolution * 2 : 0.001;
        size_t kept = 0;
        for (size_t i = 0; i < c->nchanges; i++) {
            const struct census_change *e = &c->changes[i];
            if (i + 1 < c->nchanges && c->changes[i + 1].mono - e->mono < c->resolution)
                continue; /* held too briefly to show */
            if (kept && c->changes[kept - 1].pid == e->pid)
                continue;
            c->changes[kept++] = *e;
        }
        c->nchanges = kept;
    }
}

/* The top process at this walk, kept when it changed. */
static void note_top(struct census *c, double mono)
{
    if (!c->top_pid)
        return;
    if (c->nchanges) {
        struct census_change *last = &c->changes[c->nchanges - 1];
        if (last->pid == c->top_pid && strncmp(last->name, c->top_name, 16) == 0)
            return;
        if (c->resolution > 0 && mono - last->mono < c->resolution) {
            /* Finer than the timeline now keeps: the newcomer takes the slot. */
            last->pid = c->top_pid;
            memcpy(last->name, c->top_name, sizeof last->name);
            if (c->nchanges >= 2 && last[-1].pid == last->pid &&
                strncmp(last[-1].name, last->name, 16) == 0)
                c->nchanges--; /* back to the one before: no change at all */
            return;
        }
    }
    if (c->nchanges >= CENSUS_MAX_CHANGES)
        thin_changes(c);
    if (c->nchanges == c->capchanges &&
        grow_array(&c->changes, &c->capchanges, c->nchanges + 1, sizeof *c->changes, 64) < 0) {
        c->failed = 1;
        return;
    }
    struct census_change *e = &c->changes[c->nchanges++];
    e->mono = mono;
    e->pid = c->top_pid;
    memcpy(e->name, c->top_name, sizeof e->name);
}

/* A worker group's load at this walk in nanoseconds: the larger of the
 * CPU its processes used and the time their main threads were runnable
 * (a thread that waits in a run queue wanted the CPU it did not get). */
static unsigned long long walk_load_ns(const struct census *c, const struct census_group *g)
{
    unsigned long long used = g->walk_ticks * c->tick_ns;
    return used > g->walk_runnable_ns ? used : g->walk_runnable_ns;
}

void census_end(struct census *c, double mono)
{
    memset(&c->busiest, 0, sizeof c->busiest);
    const struct census_group *busiest = NULL;
    for (size_t k = 0; k < c->ntouched; k++) {
        struct census_group *g = &c->groups[c->touched[k]];
        if (g->pss_kb > g->peak_pss_kb)
            g->peak_pss_kb = g->pss_kb;
        if (g->live > g->peak_live)
            g->peak_live = g->live;
        if (g->walk_workers > 0 &&
            (!busiest || walk_load_ns(c, g) > walk_load_ns(c, busiest)))
            busiest = g;
    }
    if (busiest) {
        memcpy(c->busiest.command, busiest->name, sizeof c->busiest.command);
        c->busiest.processes = busiest->walk_workers;
        c->busiest.ticks = busiest->walk_ticks;
        c->busiest.runnable_ns = busiest->walk_runnable_ns;
    }
    note_top(c, mono);
    pthread_mutex_unlock(&c->lock);
}

/* 1 when group a goes before group b: more CPU, then a higher peak. */
static int ranks_before(const struct census_group *a, const struct census_group *b)
{
    if (a->ticks != b->ticks)
        return a->ticks > b->ticks;
    return a->peak_pss_kb > b->peak_pss_kb;
}

void census_groups(struct census *c, double ticks_per_second, gt_command_groups *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    double hz = ticks_per_second > 0 ? ticks_per_second : 100;
    pthread_mutex_lock(&c->lock);
    /* The top GT_COMMAND_GROUPS_MAX by insertion: O(groups x the list). */
    size_t top[GT_COMMAND_GROUPS_MAX];
    int n = 0;
    for (size_t gi = 0; gi < c->ngroups; gi++) {
        const struct census_group *g = &c->groups[gi];
        if (g->processes <= 0)
            continue; /* its only process moved on at its exec */
        out->commands++;
        out->processes += g->processes;
        out->cpu_seconds += (double)g->ticks / hz;
        int at = n;
        while (at > 0 && ranks_before(g, &c->groups[top[at - 1]]))
            at--;
        if (at >= GT_COMMAND_GROUPS_MAX)
            continue;
        int last = n < GT_COMMAND_GROUPS_MAX ? n : GT_COMMAND_GROUPS_MAX - 1;
        for (int k = last; k > at; k--)
            top[k] = top[k - 1];
        top[at] = gi;
        if (n < GT_COMMAND_GROUPS_MAX)
            n++;
    }
    out->available = out->commands > 0;
    out->ngroups = n;
    double listed_cpu = 0;
    long listed_procs = 0;
    for (int k = 0; k < n; k++) {
        const struct census_group *g = &c->groups[top[k]];
        gt_command_group *e = &out->groups[k];
        memcpy(e->command, g->name, sizeof e->command);
        e->command[sizeof e->command - 1] = '\0';
        e->processes = g->processes;
        e->peak_concurrent = g->peak_live;
        e->cpu_seconds = (double)g->ticks / hz;
        e->peak_pss_bytes = (double)g->peak_pss_kb * 1024.0;
        listed_cpu += e->cpu_seconds;
        listed_procs += e->processes;
    }
    out->others = out->commands - n;
    out->others_processes = out->processes - listed_procs;
    out->others_cpu_seconds = out->cpu_seconds - listed_cpu;
    if (out->others_cpu_seconds < 0)
        out->others_cpu_seconds = 0;
    out->folded = c->folded;
    out->partial = c->failed;
    pthread_mutex_unlock(&c->lock);
}

gt_top_process *census_top_changes(struct census *c, double mono_start, size_t *n)
{
    *n = 0;
    pthread_mutex_lock(&c->lock);
    gt_top_process *copy = c->nchanges ? calloc(c->nchanges, sizeof *copy) : NULL;
    if (copy) {
        for (size_t i = 0; i < c->nchanges; i++) {
            const struct census_change *e = &c->changes[i];
            copy[i].at = e->mono > mono_start ? e->mono - mono_start : 0;
            copy[i].pid = e->pid;
            memcpy(copy[i].command, e->name, sizeof copy[i].command);
            copy[i].command[sizeof copy[i].command - 1] = '\0';
        }
        *n = c->nchanges;
    }
    pthread_mutex_unlock(&c->lock);
    return copy;
}
