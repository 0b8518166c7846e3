/* tracker_internal.h - the tracker's state, shared by tracker.c (the hub:
 * options, state machine, sampling thread, schedule) and results.c (the
 * public calls that hand out what output/ assembles). Not installed;
 * nothing else includes it. */
#ifndef GT_TRACKER_INTERNAL_H
#define GT_TRACKER_INTERNAL_H

#include "util/internal.h"

#include <pthread.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "hub/options.h"
#include "output/output.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "sink/sink.h"
#include "util/background.h"
#include "util/warn.h"

enum state { STATE_NEW, STATE_STARTED, STATE_STOPPED };

struct gt_tracker {
    struct options_copy cfg; /* the options (cfg.o) and sources, ours */
    pid_t pid;
    pid_t owner;       /* the process that made the tracker (see fork in api.md) */
    struct warner warner;

    enum state state;  /* changed only by the API calls */
    pthread_t thread;
    int thread_started;
    /* Started without its thread (gt_tracker_start_deferred): the
     * monotonic time by which gt_tracker_start_sampler() is to make it
     * (0: made, or to be made at the start). */
    double sampler_due;
    /* options.start_at ahead: the sampling thread takes the baseline at
     * this epoch time (0: gt_tracker_start() took it). */
    double delayed_start;

    /* Owned by whoever samples (see tracker.c). */
    struct sample_reader reader;
    struct sinks sinks;
    gt_job_info job;   /* options.job, or all empty */
    struct cgroup_own own_cg; /* options.own_cgroup: the group made (made 0: none) */

    struct run_record run;
    struct cloud_discovery *cloud;    /* options.discover_cloud: running, until a snapshot */

    struct wake_word stop_word; /* to the sampling thread: stop (set with
                                   stop_requested, outside the lock) */
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t done;  /* from the sampling thread: finished */
    int stop_requested, thread_done, orphaned;
    int baseline_taken; /* res.start_time and run.epoch_start are set */
    int row_waiters;    /* in gt_tracker_wait_rows: store_rows wakes them */
    struct pipeline pipe;
    struct run_results res; /* what the results are made of besides pipe */
    struct row_store store; /* the rows: the newest in memory, the rest on disk */
    struct limit_state limits; /* options.max_*: what passed them, and when */
    gt_peak_breakdown at_peak[2]; /* who held the peak: GT_PEAK_MEMORY, GT_PEAK_GPU_MEMORY */
    double term_mono;          /* monotonic time the tree was sent SIGTERM */
    /* gt_tracker_series() copies every row into memory, once, on demand. */
    gt_process_row *all_process;
    gt_system_row *all_system;
    int duration_done; /* sampling reached options.duration and ended */
    /* stop() gave up on a stuck sampling thread: the rows are the caller's
     * to read now, and the descriptors may be closed: add and write none. */
    int series_frozen;
    double stop_time;
    gt_resource_usage usage;        /* the results handed to the caller */
    gt_resource_usage sink_summary; /* the sampler's, for the sinks */
};

/* The figures the limits are put on (bytes, seconds), as the summary has
 * them at monotonic time now: the sampler checks them after each sample,
 * gt_tracker_limits() once more when asked. Under t->lock. */
void tracker_limit_figures(const gt_tracker *t, double now, struct limit_figures *f);

/* The limits (under t->lock), checked once more against the figures of
 * now (a peak the stop's reaped processes added counts; at = the stop). */
void tracker_limits_now(gt_tracker *t, gt_limits *out);

static inline int tracker_owned_here(const gt_tracker *t)
{
    return t->owner == getpid();
}

static inline gt_status tracker_forked_copy_error(const gt_tracker *t)
{
    return gt_fail(GT_ERR_STATE, "this tracker belongs to process %d: a child made by fork() "
                   "may only gt_tracker_free() its copy", (int)t->owner);
}

#endif
