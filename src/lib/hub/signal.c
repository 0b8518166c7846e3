/* signal.c - gt_tracker_signal(): a signal to every process of the tracked
 * tree, the one thing a host's limits need from the library to end a job
 * (what is breached and when is theirs: src/tools/limits/). The tree is
 * the reader's, walked by whoever samples: the reader lock keeps the two
 * apart, and a sampler stuck in a read longer than stop_timeout makes the
 * call fail rather than wait with it. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

/* The highest signal number Linux has (SIGRTMAX is a function in glibc). */
#define SIGNAL_MAX 64

gt_status gt_tracker_signal(gt_tracker *t, int sig, int *reached)
{
    if (reached)
        *reached = 0;
    gt_status st = tracker_call_begin(t, "gt_tracker_signal", NULL, NULL, 0, 0, -1, NULL);
    if (st != GT_OK)
        return st;
    if (sig < 0 || sig > SIGNAL_MAX)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid signal %d: give 1 to %d, or 0 to "
                         "check whether the tree may be signalled", sig, SIGNAL_MAX);
    st = options_signal_refusal(&t->cfg);
    if (st != GT_OK || sig == 0)
        return st;
    pthread_mutex_lock(&t->lock);
    int started = t->state != STATE_NEW;
    pthread_mutex_unlock(&t->lock);
    if (!started)
        return error_set(GT_ERR_STATE, "no tree to signal: the tracker has not been started");
    struct timespec until;
    double deadline = (double)time(NULL) + ceil(t->cfg.o.stop_timeout);
    until.tv_sec = (time_t)deadline;
    until.tv_nsec = 0;
    int rc = pthread_mutex_timedlock(&t->reader_lock, &until);
    if (rc != 0)
        return error_set(GT_ERR_SYSTEM, "cannot signal the tracked tree: the sampler has been "
                         "reading it for over %g s (stop_timeout): %s", t->cfg.o.stop_timeout,
                         rc == ETIMEDOUT ? "a system call hangs" : "lock failed");
    int n = sample_reader_signal_tree(&t->reader, sig);
    pthread_mutex_unlock(&t->reader_lock);
    if (reached)
        *reached = n;
    return GT_OK;
}
