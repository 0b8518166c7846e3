/* backup_sink.c - see backup_sink.h. */
#include "sink/backup_sink.h"
#include "common/num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"
#include "sink/backup_identity.h"
#include "common/summary/usage_write.h"

/* What every "cannot write the backup file" warning ends with: the run
 * goes on, and how to ask for none. */
#define BACKUP_WITHOUT                                                                   \
    "; tracking goes on without it (gpu-tracker --no-backup, or resource_usage_file \"\" " \
    "in the library, keeps none)"

/* The writer thread's side: a mailbox of one summary (the newest wins),
 * guarded by lock, and a sink of its own (own: the file's target and path,
 * moved there from the tracker's sink) that only the thread touches while
 * it runs. A thread that outlives the tracker (stuck in a write when the
 * tracker gave up on it) frees all of it when it ends. */
struct backup_writer {
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    pthread_t thread;
    struct backup_sink *own;
    struct warn_channel *warn_channel;      /* not used once orphaned (it may be gone) */
    int posted;                 /* usage/now hold a summary to write */
    gt_resource_usage usage;
    double now;
    int busy;                   /* writing one now */
    int quit, done, orphaned;
};

/* What a rewrite is decided on, copied out of a summary: every section but
 * the GPU list and the texts, which are compared in place (copying and
 * comparing whole summaries at every look was as much user-space work as
 * a small tree's sample at --st 1). */
struct backup_key {
    gt_max_ram max_ram;
    gt_max_gpu_ram max_gpu_ram;
    gt_cpu_utilization cpu_utilization;
    gt_gpu_utilization gpu_utilization;
    gt_pu_percentages gpu_main, gpu_descendants, gpu_combined;
    int gpu_unknown, ndevices, process_memory_available, process_utilization_available,
        energy_available;
    int measurement_unknown, complete, gpu_available, sampled_only;
    double sleep_time;
};

/* u's key, with the figures that change at every sample even when nothing
 * new happened (the means, the elapsed time, cumulative energy, the counts)
 * left at zero, and with them the machine's RAM in use and CPU
 * percentages: every other program on the machine moves those, so an idle
 * job would rewrite the file at every look for figures that are not the
 * job's. (The GPUs' figures stay: on the GPUs a job is given they are the
 * job's.) What is left changes only when one of the job's peaks, counts or
 * reasons does. Zeroed first, so that padding compares equal. */
static void key_of(const gt_resource_usage *u, struct backup_key *k)
{
    memset(k, 0, sizeof *k);
    k->max_ram = u->max_ram;
    k->max_gpu_ram = u->max_gpu_ram;
    k->cpu_utilization = u->cpu_utilization;
    k->gpu_utilization = u->gpu_utilization;
    const gt_gpu_details *d = &u->gpu_details;
    k->gpu_main = d->main;
    k->gpu_descendants = d->descendants;
    k->gpu_combined = d->combined;
    k->gpu_unknown = d->unknown;
    k->ndevices = d->ndevices;
    k->process_memory_available = d->process_memory_available;
    k->process_utilization_available = d->process_utilization_available;
    k->energy_available = d->energy_available;
    k->measurement_unknown = u->measurement.unknown;
    k->complete = u->measurement.complete;
    k->gpu_available = u->measurement.gpu_available;
    k->sampled_only = u->measurement.sampled_only;
    k->sleep_time = u->measurement.sleep_time;

    gt_pu_percentages *means[] = {&k->cpu_utilization.main, &k->cpu_utilization.descendants,
                                  &k->cpu_utilization.combined,
                                  &k->gpu_utilization.gpu_percentages, &k->gpu_main,
                                  &k->gpu_descendants, &k->gpu_combined};
    for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        means[i]->mean_sum_percent = 0;
        means[i]->mean_hardware_percent = 0;
    }
    memset(&k->cpu_utilization.system, 0, sizeof k->cpu_utilization.system);
    k->max_ram.system = 0;
}

/* Memory peaks that moved by less than BACKUP_MEMORY_STEP of the larger
 * count as unmoved: the shared part of an idle process's RSS creeps by a
 * page now and then (6 KiB of 1.7 MiB seen on a sleeping process), which no
 * reader would act on, and a write costs about two samples of a small
 * tree. Such creep waits for the refresh. (y's figure is set to x's.) */
static void memory_step(const double *x, double *y)
{
    if (fabs(*x - *y) < BACKUP_MEMORY_STEP * max_d(*x, *y))
        *y = *x;
}

static void memory_steps(const struct backup_key *x, struct backup_key *y)
{
    const gt_max_ram *a = &x->max_ram;
    gt_max_ram *b = &y->max_ram;
    const gt_rss_values *ra[] = {&a->main, &a->descendants, &a->combined};
    gt_rss_values *rb[] = {&b->main, &b->descendants, &b->combined};
    for (size_t i = 0; i < sizeof ra / sizeof ra[0]; i++) {
        memory_step(&ra[i]->total_rss, &rb[i]->total_rss);
        memory_step(&ra[i]->private_rss, &rb[i]->private_rss);
        memory_step(&ra[i]->shared_rss, &rb[i]->shared_rss);
    }
    memory_step(&x->max_gpu_ram.system, &y->max_gpu_ram.system);
    memory_step(&x->max_gpu_ram.main, &y->max_gpu_ram.main);
    memory_step(&x->max_gpu_ram.descendants, &y->max_gpu_ram.descendants);
    memory_step(&x->max_gpu_ram.combined, &y->max_gpu_ram.combined);
}

/* A memory peak of u above the file's (b) by BACKUP_MEMORY_STEP or more. */
static int grew(double now, double then)
{
    return now > then && now - then >= BACKUP_MEMORY_STEP * now;
}

int backup_memory_peak_grew(const gt_resource_usage *u, const gt_resource_usage *b)
{
    const gt_max_ram *x = &u->max_ram, *y = &b->max_ram;
    const gt_max_gpu_ram *g = &u->max_gpu_ram, *h = &b->max_gpu_ram;
    return grew(x->main.total_rss, y->main.total_rss) ||
           grew(x->descendants.total_rss, y->descendants.total_rss) ||
           grew(x->combined.total_rss, y->combined.total_rss) || grew(g->main, h->main) ||
           grew(g->descendants, h->descendants) || grew(g->combined, h->combined);
}

int backup_same_figures(const gt_resource_usage *a, const gt_resource_usage *b)
{
    struct backup_key x, y;
    key_of(a, &x);
    key_of(b, &y);
    memory_steps(&x, &y);
    if (memcmp(&x, &y, sizeof x) != 0)
        return 0;
    const gt_gpu_details *da = &a->gpu_details, *db = &b->gpu_details;
    int n = da->ndevices < 0 ? 0 : da->ndevices > GT_MAX_GPUS ? GT_MAX_GPUS : da->ndevices;
    for (int i = 0; i < n; i++) {
        const gt_gpu_device *p = &da->devices[i], *q = &db->devices[i];
        if (strcmp(p->uuid, q->uuid) || strcmp(p->name, q->name) ||
            p->memory_total != q->memory_total || p->selected != q->selected)
            return 0;
    }
    return !strcmp(da->process_memory_reason, db->process_memory_reason) &&
           !strcmp(da->process_utilization_reason, db->process_utilization_reason) &&
           !strcmp(da->energy_reason, db->energy_reason) &&
           !strcmp(a->measurement.gpu_reason, b->measurement.gpu_reason) &&
           !strcmp(a->compute_time.unit, b->compute_time.unit);
}

static int backup_wants(struct sink *s, double now)
{
    struct backup_sink *b = (struct backup_sink *)s;
    /* No file, or one whose directory could not be resolved: the first
     * look warned, later ones would only fill summaries for nothing. */
    if (!b->path || (!b->writer && b->target.dirfd < 0 && b->last_look != 0))
        return 0;
    if (b->last_look == 0) {
        /* The baseline: the file is first written at the first look after
         * it, with figures in it (backup_sink.h); a job that ends sooner
         * pays no file. Only a directory that could not be resolved is said
         * now, before the command runs. */
        if (b->target.dirfd < 0)
            return 1;
        b->last_look = now;
        b->start_epoch = epoch_now(); /* the identity's start: the run's */
        return 0;
    }
    /* Half an interval of slack, so that at an interval >= BACKUP_PERIOD
     * schedule jitter never skips a look. */
    return now - b->last_look >= BACKUP_PERIOD - b->interval / 2;
}

/* Writes u to the file (the caller owns b->target: the sampling thread
 * before the writer starts, the writer after). Returns the failure's
 * message in why ("" when it was written). */
static void backup_write(struct backup_sink *b, const gt_resource_usage *u, double now,
                         char *why, size_t whycap)
{
    why[0] = '\0';
    if (b->target.dirfd < 0) {
        snprintf(why, whycap, "%s", b->error);
        return;
    }
    char *json = usage_to_json(u);
    size_t len = json ? strlen(json) : 0;
    char *text;
    if (json && b->identity) {
        double epoch = epoch_now();
        if (b->start_epoch == 0)
            b->start_epoch = epoch;
        text = backup_identity_attach(json, b->identity, b->start_epoch, epoch);
        free(json);
        json = NULL;
        len = text ? strlen(text) : 0;
    } else {
        text = json ? realloc(json, len + 2) : NULL;
        if (text) {
            json = NULL;
            text[len++] = '\n';
            text[len] = '\0';
        }
    }
    gt_status st = GT_ERR_NO_MEMORY;
    if (text) {
        output_target_refresh(&b->target);
        /* The first write is not synced: a crash of the machine in the
         * run's first BACKUP_FSYNC_PERIOD ends the job with it. */
        if (b->last_fsync == 0)
            b->last_fsync = now;
        int durable = now - b->last_fsync >= BACKUP_FSYNC_PERIOD;
        st = output_target_replace(&b->target, b->path, text, len, durable);
        if (st == GT_OK && durable)
            b->last_fsync = now;
    } else {
        free(json);
        error_set(st, "cannot write '%s': out of memory", b->path);
    }
    free(text);
    if (st != GT_OK)
        snprintf(why, whycap, "%s", gt_last_error());
    /* A finish() that came while we wrote has already removed the file: our
     * rename may have put it back. */
    pthread_mutex_lock(&b->lock);
    if (b->off)
        output_target_remove(&b->target);
    pthread_mutex_unlock(&b->lock);
}

/* Frees w and its sink; locks destroyed too unless in a child of fork(),
 * where another thread may have held them (destroy_locks 0). */
static void writer_free(struct backup_writer *w, int destroy_locks)
{
    output_target_close(&w->own->target);
    free(w->own->path);
    free(w->own->identity);
    if (destroy_locks) {
        pthread_mutex_destroy(&w->own->lock);
        pthread_cond_destroy(&w->wake);
        pthread_cond_destroy(&w->idle);
        pthread_mutex_destroy(&w->lock);
    }
    free(w->own);
    free(w);
}

static void *writer_main(void *arg)
{
    struct backup_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->posted && !w->quit)
            pthread_cond_wait(&w->wake, &w->lock);
        if (!w->posted)
            break; /* quit, with nothing left to write */
        gt_resource_usage *u = malloc(sizeof *u);
        if (u)
            *u = w->usage;
        double now = w->now;
        w->posted = 0;
        w->busy = 1;
        pthread_mutex_unlock(&w->lock);
        char why[512] = "out of memory";
        if (u)
            backup_write(w->own, u, now, why, sizeof why);
        free(u);
        pthread_mutex_lock(&w->lock);
        w->busy = 0;
        /* Warned under the lock: an orphaned writer's tracker, and its
         * warn_channel, may be gone. */
        if (why[0] && !w->orphaned)
            warn_once(w->warn_channel, WARN_BACKUP, "cannot write the backup file: %s" BACKUP_WITHOUT,
                      why);
        pthread_cond_broadcast(&w->idle);
        if (w->orphaned && w->quit)
            break;
    }
    w->done = 1;
    pthread_cond_broadcast(&w->idle);
    int orphaned = w->orphaned;
    pthread_mutex_unlock(&w->lock);
    if (orphaned) {
        /* The tracker let go of us: all of it is ours. A write that ended
         * before writer_stop() set off has not removed the file; a clean
         * stop's file goes now (off was set before orphaned, under w->lock,
         * which we have held since). */
        pthread_mutex_lock(&w->own->lock);
        if (w->own->off)
            output_target_remove(&w->own->target);
        pthread_mutex_unlock(&w->own->lock);
        writer_free(w, 1);
    }
    return NULL;
}

/* Starts the writer thread with b's file moved to a sink of its own; NULL
 * when it cannot (then b keeps its file and the caller writes). */
static struct backup_writer *writer_start(struct backup_sink *b)
{
    struct backup_writer *w = calloc(1, sizeof *w);
    struct backup_sink *own = malloc(sizeof *own);
    char *path = b->path ? strdup(b->path) : NULL;
    char *identity = b->identity ? strdup(b->identity) : NULL;
    if (!w || !own || !path || (b->identity && !identity)) {
        free(w);
        free(own);
        free(path);
        free(identity);
        return NULL;
    }
    memcpy(own, b, sizeof *own);
    pthread_mutex_init(&own->lock, NULL); /* its own, not a copy of b's */
    own->path = path;
    own->identity = identity;
    own->identity_command = NULL; /* b's; the identity is made by now */
    own->identity_wanted = 0;
    own->writer = NULL;
    pthread_mutex_init(&w->lock, NULL);
    cond_init_monotonic(&w->wake);
    cond_init_monotonic(&w->idle); /* timed waits on it use the monotonic clock */
    w->own = own;
    w->warn_channel = b->warn_channel;
    if (start_library_thread(&w->thread, "gt:backup", writer_main, w) != 0) {
        own->target.dirfd = -1; /* still b's: not to be closed */
        own->target.name = NULL;
        writer_free(w, 1);
        return NULL;
    }
    b->target.dirfd = -1; /* the thread's now */
    b->target.name = NULL;
    return w;
}

double backup_refresh_period(double elapsed)
{
    return min_d(max_d(elapsed / 10, BACKUP_REFRESH_MIN), BACKUP_REFRESH_MAX);
}

/* Seconds the file must have been left alone before u is written over it:
 * none for a memory peak that grew; another new figure waits out
 * BACKUP_MIN_GAP; the same figures wait for the refresh. The comparison
 * is with what the file has, so a figure that
 * waited is written once the gap has passed. */
static double wait_before_write(const struct backup_sink *b, const gt_resource_usage *u,
                                double now)
{
    if (backup_memory_peak_grew(u, &b->last))
        return 0;
    if (backup_same_figures(u, &b->last))
        return backup_refresh_period(now - b->first_write);
    return BACKUP_MIN_GAP;
}

/* The identity, made at the first write (backup_sink_set_identity): 0 when
 * it is there or none is wanted, -1 when it could not be made. */
static int identity_ready(struct backup_sink *b)
{
    if (b->identity || !b->identity_wanted)
        return 0;
    b->identity = backup_identity_make(b->identity_pid, b->identity_command);
    return b->identity ? 0 : -1;
}

static void backup_summary(struct sink *s, const gt_resource_usage *u, double now)
{
    struct backup_sink *b = (struct backup_sink *)s;
    pthread_mutex_lock(&b->lock);
    int off = b->off;
    pthread_mutex_unlock(&b->lock);
    if (!b->path || off)
        return;
    b->last_look = now;
    if (b->written && now - b->last_write < wait_before_write(b, u, now))
        return;
    if (identity_ready(b) < 0) {
        /* Not written without it: the file's reader could not tell
         * whether its run is still going. The next look tries again. */
        warn_once(b->warn_channel, WARN_BACKUP,
                  "cannot write the backup file: out of memory" BACKUP_WITHOUT);
        return;
    }
    if (!b->writer && b->target.dirfd >= 0)
        b->writer = writer_start(b);
    if (b->writer) {
        struct backup_writer *w = b->writer;
        pthread_mutex_lock(&w->lock);
        w->usage = *u;
        w->now = now;
        w->posted = 1;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
    } else {
        char why[512];
        backup_write(b, u, now, why, sizeof why);
        if (why[0])
            warn_once(b->warn_channel, WARN_BACKUP, "cannot write the backup file: %s" BACKUP_WITHOUT,
                      why);
    }
    b->last = *u;
    if (!b->written)
        b->first_write = now;
    b->written++;
    b->last_write = now;
}

/* A clean stop, or a failed start: the file is not needed (a stuck
 * sampler's run keeps it: the caller frees the tracker, the writer ends). */
static void backup_finish(struct sink *s, const struct pipeline_rows *final)
{
    (void)final;
    backup_sink_finish((struct backup_sink *)s);
}

static const struct sink_ops backup_ops = {.wants_summary = backup_wants,
                                           .summary = backup_summary, .finish = backup_finish};

gt_status backup_sink_init(struct backup_sink *b, const char *path, double interval,
                           double wait_limit, struct warn_channel *w)
{
    memset(b, 0, sizeof *b);
    b->base.ops = &backup_ops;
    b->target.dirfd = -1;
    b->interval = interval;
    b->wait_limit = wait_limit;
    b->warn_channel = w;
    pthread_mutex_init(&b->lock, NULL);
    if (!path)
        return GT_OK;
    b->path = strdup(path);
    if (!b->path)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    if (output_resolve(b->path, &b->target) != GT_OK)
        snprintf(b->error, sizeof b->error, "%s", gt_last_error());
    /* Our own file, rewritten every interval: whatever is put at its name
     * (a FIFO in a directory others may write to) is replaced, never
     * opened. */
    b->target.replace_only = 1;
    return GT_OK;
}

/* Ends the writer thread: what was posted is written first. Waits up to
 * b->wait_limit for it, then b's file (target, last fsync) is b's again. A
 * thread still writing then (a hung filesystem) is left to end by itself:
 * it removes the file after its write when b is off, and frees its own
 * sink; b's target stays closed. */
static void writer_stop(struct backup_sink *b)
{
    struct backup_writer *w = b->writer;
    if (!w)
        return;
    b->writer = NULL;
    pthread_mutex_lock(&w->lock);
    w->quit = 1;
    pthread_cond_signal(&w->wake);
    struct timespec deadline = to_timespec(monotonic_now() + b->wait_limit);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->idle, &w->lock, &deadline);
    struct backup_sink *own = w->own;
    if (w->done) {
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        b->target = own->target; /* b's again */
        b->last_fsync = own->last_fsync;
        own->target.dirfd = -1;
        own->target.name = NULL;
        writer_free(w, 1);
        return;
    }
    pthread_mutex_lock(&own->lock);
    own->off = b->off;
    pthread_mutex_unlock(&own->lock);
    w->orphaned = 1;
    pthread_detach(w->thread);
    pthread_mutex_unlock(&w->lock);
}

int backup_sink_flush(struct backup_sink *b)
{
    struct backup_writer *w = b->writer;
    if (!w)
        return 1;
    pthread_mutex_lock(&w->lock);
    struct timespec deadline = to_timespec(monotonic_now() + b->wait_limit);
    int rc = 0;
    while ((w->posted || w->busy) && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->idle, &w->lock, &deadline);
    int flushed = !w->posted && !w->busy;
    pthread_mutex_unlock(&w->lock);
    return flushed;
}

void backup_sink_finish(struct backup_sink *b)
{
    pthread_mutex_lock(&b->lock);
    b->off = 1;
    pthread_mutex_unlock(&b->lock);
    writer_stop(b);
    pthread_mutex_lock(&b->lock);
    if (b->path && b->written)
        output_target_remove(&b->target); /* none to remove before the first write */
    pthread_mutex_unlock(&b->lock);
}

void backup_sink_forget(struct backup_sink *b)
{
    /* In a child of fork() the writer does not run: its memory and its
     * sink's descriptor only (its locks may have been held at the fork). */
    if (b->writer) {
        writer_free(b->writer, 0);
        b->writer = NULL;
    }
    output_target_close(&b->target);
    free(b->path);
    b->path = NULL;
    free(b->identity);
    b->identity = NULL;
    free(b->identity_command);
    b->identity_command = NULL;
}

gt_status backup_sink_set_identity(struct backup_sink *b, pid_t pid, const char *command)
{
    char *copy = command ? strdup(command) : NULL;
    if (command && !copy)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    free(b->identity);
    free(b->identity_command);
    b->identity = NULL;
    b->identity_command = copy;
    b->identity_pid = pid;
    b->identity_wanted = 1;
    return GT_OK;
}

void backup_sink_destroy_lock(struct backup_sink *b)
{
    writer_stop(b);
    pthread_mutex_destroy(&b->lock);
}
