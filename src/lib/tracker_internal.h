/* tracker_internal.h - the tracker's state, shared by tracker.c (options,
 * state machine, sampling thread, schedule) and tracker_results.c (what a
 * stopped tracker gives: its summary, series, snapshot, report, CSV). Not
 * installed; nothing else includes it. */
#ifndef GT_TRACKER_INTERNAL_H
#define GT_TRACKER_INTERNAL_H

#include "util/internal.h"

#include <pthread.h>
#include <unistd.h>

#include "sink/sink.h"
#include "read/read.h"
#include "options.h"
#include "pipeline/pipeline.h"
#include "output/output.h"
#include "util/warn.h"

enum state { STATE_NEW, STATE_STARTED, STATE_STOPPED };

struct gt_tracker {
    struct options_copy cfg; /* the options (cfg.o) and testing hooks, ours */
    struct usage_units units;
    pid_t pid;
    pid_t owner;       /* the process that made the tracker (see fork in api.md) */
    struct warner warner;

    enum state state;  /* changed only by the API calls */
    pthread_t thread;
    int thread_started;
    double start_time;   /* monotonic time of the baseline sample */
    /* options.start_at ahead: the sampling thread takes the baseline at
     * this epoch time (0: gt_tracker_start() took it). */
    double delayed_start;

    /* Owned by whoever samples (see the file comment). */
    struct sample_reader reader;
    struct csv_sink csv;
    struct backup_sink backup;
    struct tracking_file tracking; /* gt_options.tracking_file (fd -1, db NULL: none) */
    /* The exporter (options.metrics_listen / metrics_textfile_dir), when
     * metrics_on; the sampler's newest two points (the counters of one are
     * raised to the other's). */
    int metrics_on;
    struct metrics_sink metrics;
    struct metrics_point mpoints[2];
    int mcur;
    gt_job_info job;   /* options.job, or all empty */
    struct cgroup_own own_cg; /* options.own_cgroup: the group made (made 0: none) */
    struct sink *sinks[4];
    int nsinks;

    struct run_record run;
    struct cloud_discovery *cloud;    /* options.discover_cloud: running, until a snapshot */

    struct wake_word stop_word; /* to the sampling thread: stop (set with
                                   stop_requested, outside the lock) */
    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t done;  /* from the sampling thread: finished */
    int stop_requested, thread_done, orphaned;
    int baseline_taken; /* start_time and run.epoch_start are set */
    int row_waiters;    /* in gt_tracker_wait_rows: store_rows wakes them */
    struct pipeline pipe;
    struct row_store store; /* the rows: the newest in memory, the rest on disk */
    /* gt_tracker_series() copies every row into memory, once, on demand. */
    gt_process_row *all_process;
    gt_system_row *all_system;
    int duration_done; /* sampling reached options.duration and ended */
    double lateness_sum, lateness_max; /* seconds past each periodic sample's deadline */
    long lateness_n;
    long skipped;      /* scheduled samples skipped: the one before overran */
    /* stop() gave up on a stuck sampling thread: the rows are the caller's
     * to read now, and the descriptors may be closed: add and write none. */
    int series_frozen;
    double stop_time;
    /* Why GPU figures are missing, as of the last sample. */
    char gpu_reason[256];
    char gpu_proc_memory_reason[GT_REASON_LEN], gpu_proc_util_reason[GT_REASON_LEN],
        gpu_energy_reason[GT_REASON_LEN];
    char gpu_accounting_reason[GT_REASON_LEN], gpu_throttle_reason[GT_REASON_LEN],
        gpu_ecc_reason[GT_REASON_LEN], gpu_xid_reason[GT_REASON_LEN],
        gpu_mig_reason[GT_REASON_LEN];
    /* The GPUs as the results list them (gpu_details.devices points here),
     * made once the GPUs are open: the same for the whole run. */
    gt_gpu_device *gpu_list;
    int ngpu_list;
    /* gt_tracker_gpu_run()'s per-GPU figures (ngpu_list of them), rewritten
     * by each call. */
    gt_gpu_throttle_device *throttle_list;
    gt_resource_usage usage;        /* the results handed to the caller */
    gt_resource_usage sink_summary; /* the sampler's, for the sinks: filled in
                                       place, not copied (15 KB a look) */
};

/* The job's cgroup figures as of the last sample into *out (its
 * struct_size kept). Caller holds t->lock. */
void tracker_fill_cgroup_locked(gt_tracker *t, gt_cgroup_usage *out);

/* The CPUs' energy so far into *out (its struct_size kept), the job's
 * share of it from u (the summary as of now). Caller holds t->lock. */
void tracker_fill_energy_locked(gt_tracker *t, const gt_resource_usage *u, gt_cpu_energy *out);
/* The GPU driver's figures into *out; u: the usage filled at the same
 * moment (its GPU energy). Caller holds the lock. */
/* The GPU driver's figures into *out, its per-GPU ones into table (room
 * for t->ngpu_list; out->devices points there). */
void tracker_fill_gpu_run_locked(gt_tracker *t, const gt_resource_usage *u, gt_gpu_run *out,
                                 gt_gpu_throttle_device *table);

/* 1 in the process that made t; 0 in a child made by fork() since. */
static inline int tracker_owned_here(const gt_tracker *t)
{
    return t->owner == getpid();
}

/* GT_ERR_STATE for a call on a tracker inherited through fork(). */
static inline gt_status tracker_forked_copy_error(const gt_tracker *t)
{
    return gt_fail(GT_ERR_STATE, "this tracker belongs to process %d: a child made by fork() "
                   "may only gt_tracker_free() its copy", (int)t->owner);
}

/* Fills *out (t->usage, or the sampler's t->sink_summary) from the
 * aggregates as of end_time (monotonic seconds); complete: a finished run
 * (0: a backup written while tracking). Caller holds t->lock. */
/* Makes t->gpu_list from the open GPUs, in the result units. -1 (ENOMEM). */
int tracker_list_gpus(gt_tracker *t);

void tracker_fill_usage_locked(gt_tracker *t, double end_time, int complete,
                               gt_resource_usage *out);

#endif
