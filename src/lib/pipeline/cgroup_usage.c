/* cgroup_usage.c - see cgroup_usage.h. */
#include "pipeline/cgroup_usage.h"

#include <stdio.h>
#include <string.h>

void cgroup_acc_init(struct cgroup_acc *a)
{
    memset(a, 0, sizeof *a);
}

static int in_tree(const struct pid_roles *roles, pid_t pid)
{
    size_t slot;
    return pid_index_get(roles->index, pid, &slot) && roles->role[slot] != 0;
}

static int in_list(const pid_t *list, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == pid)
            return 1;
    return 0;
}

/* Members outside the tree: a third sighting in a row makes the group
 * shared. */
static void check_members(struct cgroup_acc *a, const struct cgroup_sample *s,
                          const struct pid_roles *roles, int baseline)
{
    pid_t once[CGROUP_PENDING_MAX], twice[CGROUP_PENDING_MAX]; /* 8 KiB of stack */
    size_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < s->nmembers && !a->shared; i++) {
        pid_t pid = s->members[i];
        if (pid == s->self_pid || in_tree(roles, pid))
            continue;
        if (in_list(a->pending[1], a->npending[1], pid)) {
            a->shared = 1;
            a->outsider = pid;
        } else if (baseline || in_list(a->pending[0], a->npending[0], pid)) {
            if (n2 < CGROUP_PENDING_MAX)
                twice[n2++] = pid;
        } else if (n1 < CGROUP_PENDING_MAX) {
            once[n1++] = pid;
        }
    }
    memcpy(a->pending[0], once, n1 * sizeof once[0]);
    memcpy(a->pending[1], twice, n2 * sizeof twice[0]);
    a->npending[0] = n1;
    a->npending[1] = n2;
}

void cgroup_acc_step(struct cgroup_acc *a, const struct cgroup_sample *s,
                     const struct pid_roles *roles, int baseline, double now, double wall)
{
    if (!s->version)
        return;
    if (!a->seen) {
        a->seen = 1;
        a->version = s->version;
        snprintf(a->path, sizeof a->path, "%s", s->path ? s->path : "");
    }
    if (s->members_ok && roles && roles->index && !a->shared)
        check_members(a, s, roles, baseline);
    if (s->root_outside && !a->left) {
        a->left = 1;
        a->left_pid = s->root_pid;
        snprintf(a->left_path, sizeof a->left_path, "%s", s->outside_path ? s->outside_path : "");
    }
    if (s->mem_ok && (!a->mem_seen || s->mem_current > a->peak_sampled)) {
        a->peak_sampled = s->mem_current;
        /* the split is read by the sample that sets a new high */
        a->split_ok = s->split_ok;
        a->anon = s->anon;
        a->file = s->file;
        a->shmem = s->shmem;
    }
    a->mem_seen |= s->mem_ok;
    if (s->peak_ok) {
        if (!a->kernel_peak_seen || s->mem_peak > a->kernel_peak)
            a->kernel_peak = s->mem_peak;
        a->kernel_peak_seen = 1;
    }
    if (s->limit_ok) {
        a->limit_ok = 1;
        a->limit = s->mem_limit;
    }
    if (s->events_ok) {
        if (!a->events_seen)
            a->events_first = *s;
        else if (s->oom_kill > a->events_last.oom_kill && a->first_kill_wall == 0)
            a->first_kill_wall = wall;
        a->events_last = *s;
        a->events_seen = 1;
    }
    if (s->cpu_ok) {
        if (!a->cpu_seen)
            a->cpu_first = *s;
        a->cpu_last = *s;
        a->cpu_seen = 1;
    }
    for (int i = 0; i < CGROUP_PSI_N; i++) {
        if (!s->psi_ok[i])
            continue;
        if (!a->psi_seen[i]) {
            a->psi_first[i] = s->psi[i];
            a->psi_first_time[i] = now;
        }
        a->psi_last[i] = s->psi[i];
        a->psi_last_time[i] = now;
        a->psi_seen[i] = 1;
    }
}

/* later - earlier, 0 when a counter went back (the group was made anew) */
static unsigned long long delta(unsigned long long later, unsigned long long earlier)
{
    return later > earlier ? later - earlier : 0;
}

static void text(char *dst, const char *src)
{
    snprintf(dst, GT_REASON_LEN, "%s", src && *src ? src : "not read");
}

void cgroup_acc_fill(const struct cgroup_acc *a, const struct cgroup_reasons *why,
                     gt_cgroup_usage *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    out->version = a->version;
    snprintf(out->path, sizeof out->path, "%.*s", (int)sizeof out->path - 1, a->path);
    out->created = why->created;
    if (why->created_reason)
        snprintf(out->created_reason, sizeof out->created_reason, "%s", why->created_reason);
    if (!a->seen) {
        text(out->reason, why->group);
    } else if (a->shared) {
        snprintf(out->reason, sizeof out->reason,
                 "the cgroup %.120s is shared with processes outside the tracked tree (PID %d): "
                 "its figures are not the job's", a->path, (int)a->outsider);
    } else {
        out->available = 1;
        if (a->left) {
            out->incomplete = 1;
            snprintf(out->incomplete_reason, sizeof out->incomplete_reason,
                     "the tracked process (PID %d) left the cgroup for %.120s: the group's "
                     "figures leave out what it used from then on", (int)a->left_pid,
                     a->left_path);
        }
    }
    if (!out->available) {
        text(out->memory_reason, out->reason);
        text(out->cpu_reason, out->reason);
        text(out->pressure_reason, out->reason);
        return;
    }

    out->memory_available = a->mem_seen || a->kernel_peak_seen;
    if (!out->memory_available)
        text(out->memory_reason, why->memory);
    unsigned long long peak = a->peak_sampled;
    if (a->kernel_peak_seen && a->kernel_peak >= peak) {
        peak = a->kernel_peak;
        out->memory_peak_kernel = 1;
    }
    out->memory_peak = (double)peak;
    if (a->split_ok) {
        out->peak_anon = (double)a->anon;
        out->peak_file = (double)a->file;
        out->peak_shmem = (double)a->shmem;
    }
    out->memory_limit = a->limit_ok ? (double)a->limit : 0;
    if (a->events_seen) {
        out->oom_events = (long)delta(a->events_last.oom, a->events_first.oom);
        out->oom_kills = (long)delta(a->events_last.oom_kill, a->events_first.oom_kill);
        out->limit_hits = (long)delta(a->events_last.limit_hits, a->events_first.limit_hits);
        out->first_oom_kill_time = out->oom_kills ? a->first_kill_wall : 0;
    }

    out->cpu_available = a->cpu_seen;
    if (!a->cpu_seen) {
        text(out->cpu_reason, why->cpu);
    } else {
        const struct cgroup_sample *f = &a->cpu_first, *l = &a->cpu_last;
        out->cpu_seconds = (double)delta(l->cpu_usage_us, f->cpu_usage_us) / 1e6;
        out->cpu_user_seconds = (double)delta(l->cpu_user_us, f->cpu_user_us) / 1e6;
        out->cpu_system_seconds = (double)delta(l->cpu_system_us, f->cpu_system_us) / 1e6;
        if (l->throttle_ok && f->throttle_ok) {
            out->cpu_quota = l->quota_cores;
            out->throttle_periods = (long)delta(l->nr_periods, f->nr_periods);
            out->throttled_periods = (long)delta(l->nr_throttled, f->nr_throttled);
            out->throttled_seconds = (double)delta(l->throttled_us, f->throttled_us) / 1e6;
        }
    }

    double *some[CGROUP_PSI_N] = {&out->cpu_some, &out->memory_some, &out->io_some};
    double *full[CGROUP_PSI_N] = {&out->cpu_full, &out->memory_full, &out->io_full};
    for (int i = 0; i < CGROUP_PSI_N; i++) {
        double span = a->psi_last_time[i] - a->psi_first_time[i];
        if (!a->psi_seen[i] || span <= 0)
            continue;
        out->pressure_available = 1;
        out->pressure_seconds = span;
        double us = span * 1e6;
        *some[i] = (double)delta(a->psi_last[i].some_us, a->psi_first[i].some_us) / us;
        *full[i] = (double)delta(a->psi_last[i].full_us, a->psi_first[i].full_us) / us;
        if (*some[i] > 1)
            *some[i] = 1;
        if (*full[i] > 1)
            *full[i] = 1;
    }
    if (!out->pressure_available)
        text(out->pressure_reason, why->pressure && *why->pressure
                                       ? why->pressure
                                       : "pressure needs a reading at the start and at the end");
}
