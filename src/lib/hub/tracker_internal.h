/* tracker_internal.h - the tracker's state, shared by the hub's files:
 * tracker.c (the calls of a tracker's life), sampler.c (what whoever
 * samples does), results.c and figures.c (the calls that hand out what
 * output/ assembles). Not installed; nothing else includes it. */
#ifndef GT_TRACKER_INTERNAL_H
#define GT_TRACKER_INTERNAL_H

#include "common/internal.h"

#include <pthread.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "hub/options.h"
#include "output/output.h"
#include "pipeline/pipeline.h"
#include "read/read.h"
#include "sink/sink.h"
#include "common/background.h"
#include "common/warn.h"

enum state { STATE_NEW, STATE_STARTED, STATE_STOPPED };

struct gt_tracker {
    struct options_copy cfg; /* the options (cfg.o) and sources, ours */
    pid_t pid;
    pid_t owner;       /* the process that made the tracker (see fork in api.md) */
    struct warn_channel warn_channel;

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

    /* Owned by whoever samples (see tracker.c), under reader_lock while it
     * reads: gt_tracker_signal() walks its tree from any thread. */
    pthread_mutex_t reader_lock;
    struct sample_reader reader;
    struct sinks sinks;
    gt_job_info job;   /* options.job, or all empty */
    struct cgroup_own own_cg; /* options.own_cgroup: the group made (made 0: none) */

    struct run_record run;
    struct cloud_discovery *cloud;    /* options.discover_cloud: running, until a snapshot */

    struct wakeup stop_word; /* to the sampling thread: stop (set with
                                   stop_requested, outside the lock) */
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t done;  /* from the sampling thread: finished */
    int stop_requested, thread_done, orphaned;
    int baseline_taken; /* res.start_time and run.epoch_start are set */
    int row_waiters;    /* in gt_tracker_wait_rows: store_rows wakes them */
    struct pipeline pipe;
    struct run_results res; /* what the results are made of besides pipe */
    struct row_store store; /* the rows: the newest in memory, the rest on disk */
    gt_peak_breakdown at_peak[2]; /* who held the peak: GT_PEAK_MEMORY, GT_PEAK_GPU_MEMORY */
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

/* sampler.c. The baseline sample (slot 0): the start of the run; epoch,
 * when > 0, is the wall-clock time the schedule names it
 * (options.start_at), which the rows' timestamps count from. The caller
 * owns the reader and the sinks. */
void sampler_take_baseline(gt_tracker *t, double epoch);

/* The stop's own sample (off the schedule), the sinks finished with it;
 * its monotonic time. The caller owns the reader and the sinks. */
double sampler_take_final(gt_tracker *t);

/* The epoch time the sampling thread is to take the baseline at, or 0:
 * now (options.start_at 0, or a time already past). */
double sampler_scheduled_start(const gt_options *o);

/* The sampling thread's work: samples on the schedule until
 * stop_requested or options.duration, then says it is done (thread_done).
 * Returns 1 when gt_tracker_free() gave up waiting and left t to it. */
int sampler_run(gt_tracker *t);

/* rows.c: a row source over the rows kept so far, read while the sampler
 * may still be appending. */
void tracker_live_rows(gt_tracker *t, struct row_source *src);

/* results.c: GPUs held but idle (under t->lock), and the processes by
 * command with the CPU time no sample saw (takes the locks it needs). */
void tracker_gpu_idle_now(gt_tracker *t, gt_gpu_idle *out);
/* Who held the peaks (out[GT_PEAK_MEMORY], out[GT_PEAK_GPU_MEMORY]) as
 * sampled, with the memory peak's holder where a kernel record put the
 * peak above every sample (unseen_*). Caller holds t->lock. */
void tracker_at_peak_now(gt_tracker *t, gt_peak_breakdown out[2]);
void tracker_processes_now(gt_tracker *t, gt_command_groups *out);

/* Closes whatever t opened (its cloud discovery, reader, own cgroup,
 * sinks) and frees it (tracker_make.c): the end of gt_tracker_free(), and
 * of a gt_tracker_new() that failed part-way. */
void tracker_destroy(gt_tracker *t);

/* In a child made by fork(): frees the child's copy of t, releasing its
 * memory and descriptors without locking, waiting or removing anything
 * (the backup file and the thread are the parent's). */
void tracker_free_forked_copy(gt_tracker *t);

/* The prologue of every call that reads a tracker, the checks in one
 * place: clears the error; when type is given, the caller's struct out (of
 * given bytes; at least need), GT_ERR_INVALID_ARGUMENT naming fn and type;
 * that t is this process's (a child's copy after fork: GT_ERR_STATE); and
 * t's state: started (stopped 0) or stopped (stopped 1), else GT_ERR_STATE
 * "no WHAT: the tracker has not been started" or "no WHAT yet: the tracker
 * has not been stopped"; stopped -1: none (a call the sampling thread may
 * make, which looks under the lock). The caller then takes t->lock for
 * what it reads. */
gt_status tracker_call_begin(gt_tracker *t, const char *fn, const char *type, const void *out,
                             size_t given, size_t need, int stopped, const char *what);
/* The same for a call that fills the caller's struct *out, of type T. */
#define TRACKER_FILL_BEGIN(t, fn, T, out, stopped, what)                                 \
    tracker_call_begin((t), (fn), #T, (out), (out) ? (out)->struct_size : 0, sizeof(T), \
                       (stopped), (what))

static inline int tracker_owned_here(const gt_tracker *t)
{
    return t->owner == getpid();
}

static inline gt_status tracker_forked_copy_error(const gt_tracker *t)
{
    return error_set(GT_ERR_STATE, "this tracker belongs to process %d: a child made by fork() "
                     "may only gt_tracker_free() its copy", (int)t->owner);
}

#endif
