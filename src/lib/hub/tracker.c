/* tracker.c - the calls of a tracker's life after it is made
 * (tracker_make.c): start (and its deferred form), stop, add_reaped, wait,
 * free; the sampling itself is sampler.c's, the results results.c's.
 *
 * Threads and ownership. The reader and the sinks belong to whoever
 * samples: the sampling thread while it runs, the caller of stop() once it
 * has finished (gt_tracker_signal() borrows the reader under its lock).
 * The lock guards only what both sides touch and is never held during I/O,
 * so a read that hangs in the kernel cannot block stop() beyond its
 * timeout; a thread still stuck at the free frees the tracker itself. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/background.h"

static void *sampling_thread(void *arg)
{
    gt_tracker *t = arg;
    if (sampler_run(t))
        tracker_destroy(t); /* gt_tracker_free() gave up waiting and left it to us */
    return NULL;
}

/* Starts the sampling thread of a started tracker (once). */
static gt_status start_sampler(gt_tracker *t)
{
    int rc = start_library_thread(&t->thread, "gt:sampler", sampling_thread, t);
    if (rc != 0)
        return error_set(GT_ERR_SYSTEM, "cannot start the sampling thread: %s", strerror(rc));
    t->thread_started = 1;
    t->sampler_due = 0;
    return GT_OK;
}

/* Whether the sampling thread may wait until the first look is near: no
 * scheduled start or duration, which the thread keeps to the moment. */
static int sampler_may_wait(const gt_tracker *t)
{
    return t->delayed_start <= 0 && !(t->cfg.o.duration > 0);
}

/* gt_tracker_start(), the thread made now (deferred 0) or, where
 * sampler_may_wait(), left to gt_tracker_start_sampler() (deferred 1). */
static gt_status tracker_start(gt_tracker *t, int deferred)
{
    error_clear();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_NEW)
        return error_set(GT_ERR_STATE, t->state == STATE_STARTED
                         ? "cannot start a tracker that has already been started"
                         : "cannot start a tracker that has already been stopped");
    /* No GPU is news only where one was expected: a brand asked for, or a
     * vendor's library installed but unable to start. A machine with no GPU
     * library has no GPU to speak of (the summary says "none"). */
    if (t->res.why.gpu[0] && (t->cfg.o.gpu_brand || t->reader.gpu.broken_library))
        warn_always(&t->warn_channel, "%s: GPU RAM and GPU utilization are reported as 0",
                    t->res.why.gpu);
    if (t->reader.gpu.left_out[0])
        warn_always(&t->warn_channel, "%s", t->reader.gpu.left_out);
    if (t->cfg.o.discover_cloud)
        t->cloud = cloud_discovery_start(t->cfg.metadata_url); /* in the background: never delays tracking */
    const struct gpu *g = &t->reader.gpu;
    /* A run with a series will make a snapshot or report of the machine as
     * it ran: described now; others only if asked (run_record.h). */
    run_record_begin(&t->run, t->pid, t->cfg.o.sleep_time, t->cfg.proc_root, t->cfg.sys_root,
                     g->devices, g->nvendors ? g->ndevices : 0, t->cfg.o.series != 0);
    t->run.job = t->job;
    t->delayed_start = sampler_scheduled_start(&t->cfg.o);
    if (t->delayed_start <= 0)
        sampler_take_baseline(t, 0); /* no thread yet: the reader and sinks are ours */
    if (deferred && sampler_may_wait(t)) {
        /* Half an interval ahead of the first look: time enough to make
         * the thread without making that look late. */
        t->sampler_due = t->res.start_time + t->cfg.o.sleep_time / 2;
    } else {
        gt_status st = start_sampler(t);
        if (st != GT_OK) {
            sinks_finish(&t->sinks, NULL);
            return st;
        }
    }
    pthread_mutex_lock(&t->lock); /* the sampler's gt_tracker_figure() reads it */
    t->state = STATE_STARTED;
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

gt_status gt_tracker_start(gt_tracker *t)
{
    return tracker_start(t, 0);
}

gt_status gt_tracker_start_deferred(gt_tracker *t)
{
    return tracker_start(t, 1);
}

double gt_tracker_sampler_due(const gt_tracker *t)
{
    return t->state == STATE_STARTED && !t->thread_started ? t->sampler_due : 0;
}

gt_status gt_tracker_start_sampler(gt_tracker *t)
{
    error_clear();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_STARTED || t->thread_started)
        return GT_OK;
    return start_sampler(t);
}

/* Asks the sampling thread to stop and waits up to timeout seconds for it.
 * Returns 1 when it has finished (and is joined). */
static int stop_sampler(gt_tracker *t, double timeout)
{
    if (!t->thread_started)
        return 1; /* never made (gt_tracker_start_deferred): nothing to wait for */
    pthread_mutex_lock(&t->lock);
    t->stop_requested = 1;
    wakeup_set(&t->stop_word);
    struct timespec deadline = to_timespec(monotonic_now() + timeout);
    int rc = 0;
    while (!t->thread_done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&t->done, &t->lock, &deadline);
    int done = t->thread_done;
    pthread_mutex_unlock(&t->lock);
    if (done && t->thread_started) {
        pthread_join(t->thread, NULL);
        t->thread_started = 0;
    }
    return done;
}

gt_status gt_tracker_stop(gt_tracker *t)
{
    error_clear();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return error_set(GT_ERR_STATE, "cannot stop a tracker that has not been started");
    if (t->state == STATE_STOPPED)
        return error_set(GT_ERR_STATE, "cannot stop a tracker that has already been stopped");
    double stop_time;
    if (stop_sampler(t, t->cfg.o.stop_timeout)) {
        if (!t->baseline_taken)
            sampler_take_baseline(t, 0); /* stopped before its start: a run of no time */
        stop_time = sampler_take_final(t); /* the reader and sinks are ours now */
    } else {
        /* Stuck in a system call: the readers are still in its hands. The
         * results are those of the samples it finished. */
        stop_time = monotonic_now();
        warn_always(&t->warn_channel, "the sampling thread did not stop within %g s; the results are those of the "
             "samples taken before", t->cfg.o.stop_timeout);
        sinks_finish(&t->sinks, NULL); /* a clean stop all the same: no backup needed */
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    t->run.epoch_stop = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
    pthread_mutex_lock(&t->lock);
    t->series_frozen = 1;
    t->stop_time = stop_time;
    if (!t->baseline_taken) /* stuck in the baseline itself: a run of no time */
        t->res.start_time = stop_time;
    t->state = STATE_STOPPED;
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

gt_status gt_tracker_add_reaped(gt_tracker *t, pid_t pid, const struct rusage *ru)
{
    error_clear();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return error_set(GT_ERR_STATE, "cannot add a reaped process before the tracker is started");
    if (!ru)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no resource usage given for PID %d", (int)pid);
    pthread_mutex_lock(&t->lock);
    if (ru->ru_maxrss > 0)
        usage_add_reaped(&t->pipe.acc, pid == t->pid, (unsigned long long)ru->ru_maxrss);
    usage_add_reaped_io(&t->pipe.acc, pid == t->pid,
                        ru->ru_inblock > 0 ? (unsigned long long)ru->ru_inblock : 0,
                        ru->ru_oublock > 0 ? (unsigned long long)ru->ru_oublock : 0);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

int gt_tracker_wait(gt_tracker *t, double timeout)
{
    error_clear();
    if (!tracker_owned_here(t)) {
        tracker_forked_copy_error(t);
        return 0;
    }
    if (t->state != STATE_STARTED || !(t->cfg.o.duration > 0))
        return t->state == STATE_STOPPED && t->duration_done;
    pthread_mutex_lock(&t->lock);
    struct timespec deadline = to_timespec(monotonic_now() + (timeout > 0 ? timeout : 0));
    int rc = 0;
    while (!t->thread_done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&t->done, &t->lock, &deadline);
    int ended = t->thread_done && t->duration_done;
    pthread_mutex_unlock(&t->lock);
    return ended;
}

void gt_tracker_free(gt_tracker *t)
{
    if (!t)
        return;
    if (!tracker_owned_here(t)) {
        tracker_free_forked_copy(t);
        return;
    }
    if (t->thread_started && !stop_sampler(t, t->cfg.o.stop_timeout)) {
        pthread_mutex_lock(&t->lock);
        if (!t->thread_done) {
            /* Still stuck: it will free the tracker when its system call
             * returns. Detached before the lock is let go: from then on the
             * thread may free t at any moment. */
            pthread_detach(t->thread);
            t->orphaned = 1;
            pthread_mutex_unlock(&t->lock);
            return;
        }
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
    }
    tracker_destroy(t);
}
