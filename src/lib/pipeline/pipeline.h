/* pipeline.h - the pure middle of sampling: from a sample (sample.h) to the
 * running aggregates and the series' rows.
 *
 * Nothing here reads a file, takes a lock, starts a thread or looks at a
 * clock: the reader (sample_reader.h) did the I/O and stamped the sample's
 * time, the tracker holds the lock around pipeline_step() and hands the
 * rows to the sinks (sink.h). So the whole sample -> aggregates -> rows path
 * is tested on constructed samples (tests/test_pipeline.c). */
#ifndef GT_PIPELINE_H
#define GT_PIPELINE_H

#include "pipeline/allocation.h"
#include "pipeline/cgroup_usage.h"
#include "pipeline/energy_usage.h"
#include "pipeline/gpu_idle.h"
#include "pipeline/gpu_activity.h"
#include "pipeline/gpu_run.h"
#include "pipeline/gpu_wait.h"
#include "sample.h"
#include "pipeline/series.h"
#include "pipeline/usage.h"

/* The tracked tree's share of a GPU sample of ndevices devices: its memory
 * and SM utilization by role (gs), and the series' GPU figures of the tree
 * (proc) and of the system (sys). The tree's usage is its SM utilization
 * where the driver gives it; otherwise the utilization of the GPUs where it
 * holds memory (all GPUs when the driver does not say which). */
void pipeline_attribute_gpu(const struct gpu_sample *s, int ndevices,
                            const struct pid_roles *roles, struct gpu_tree_sample *gs,
                            struct series_gpu *proc, struct series_gpu *sys);

/* Takes the library's own threads (lib) out of a sample of the calling
 * process's tree: their ticks out of main's CPU, their run time out of the
 * series' nanoseconds (their ticks of tick_ns each when the run time is not
 * known), and main's thread count
 * replaced by the threads that are not the library's (when known). Their
 * ticks stay in the process's total after they end, so every sample, the
 * baseline included, gets this. Counters never go below zero. */
void pipeline_exclude_library(struct tree_sample *ts, const struct library_threads *lib,
                              unsigned long long tick_ns);

/* The exporter's figures of one sample (pipeline_metrics), which
 * output/metrics_text.h renders. */
#define METRICS_MAX_GPUS 64

/* The figures of one sample. The peaks are those of the run so far (what
 * the summary would say); the counters count from the baseline sample. */
struct metrics_point {
    long samples;                  /* taken so far, the baseline included */
    int tree_ok;                   /* the tree was read: the "now" figures hold */
    unsigned long long rss[3];     /* now: main, descendants, combined (shared once) */
    unsigned long long private_bytes[2], shared_bytes[2]; /* now: main, descendants */
    int have_pss;
    unsigned long long pss;        /* the tree's PSS now */
    unsigned long long peak_rss[3], peak_private[3], peak_shared[3];
    double cpu_seconds[2];         /* main, descendants: counters */
    long threads[2];               /* main, descendants */
    long processes;                /* main and its live descendants */
    int have_io;
    unsigned long long read_bytes, write_bytes; /* counters (never go down) */
    int sys_ok;
    unsigned long long system_used, system_total;
    int ngpus;                     /* devices below (at most METRICS_MAX_GPUS) */
    unsigned long long gpu_used[METRICS_MAX_GPUS];
    double gpu_util[METRICS_MAX_GPUS]; /* percent; < 0: not known */
    /* Each GPU's activity counters over the last interval, its throttle
     * reasons now (bit d of gpu_throttle_read), and the tracked processes'
     * SM percent there (bit d of gpu_share_read). */
    struct gpu_activity gpu_activity[METRICS_MAX_GPUS];
    unsigned long long gpu_throttle_read, gpu_share_read;
    unsigned gpu_throttle[METRICS_MAX_GPUS];
    double gpu_job_sm[METRICS_MAX_GPUS];
    int have_gpu_tree;
    unsigned long long gpu_tree_now;   /* the tree's GPU memory now */
    unsigned long long gpu_tree_peak[3]; /* main, descendants, combined */
    int energy_ok;
    double energy_joules;          /* the selected GPUs' since the baseline */
};

/* The rows a sample made (none for the baseline, the final sample at stop,
 * or a series whose previous reading failed). */

struct pipeline_rows {
    int have_process, have_system;
    gt_process_row process;
    gt_system_row system;
    /* The sample as a tracking-file row (usage.h), every sample but the
     * baseline, when the tree was read; wall: its epoch time. */
    int have_timepoint;
    struct usage_timepoint timepoint;
    double timepoint_wall;
    /* The sample's monotonic time, and the exporter's figures when the
     * tracker made them (pipeline_metrics; NULL: none). */
    double now;
    const struct metrics_point *metrics;
};

struct pipeline {
    struct usage_acc acc;     /* the summary's aggregates; the API reads them
                                 (the tracker's lock guards pipeline_step) */
    int series;               /* GT_SERIES_PROCESS | GT_SERIES_SYSTEM */
    double interval;          /* seconds between rows */
    double ticks_per_second;
    pid_t pid;                /* the tracked (main) process, for the rows */
    double epoch_start;       /* wall clock of the baseline sample */
    /* The readings of the previous sample, each series on its own. */
    int have_proc_prev, have_sys_prev;
    double proc_prev_time, sys_prev_time;
    struct process_reading proc_prev;
    struct system_reading sys_prev;
    struct system_series_sample extra_prev; /* the buffers sys_prev.extra uses */
    struct cgroup_acc cg;     /* the job's cgroup figures */
    struct energy_acc energy; /* the CPUs' energy over the run */
    struct gpu_run_acc gpu_run; /* what the GPU driver counted */
    struct gpu_idle_acc gpu_idle; /* GPUs held but idle */
    struct gpu_wait_acc gpu_wait; /* what the GPUs waited for */
    struct gpu_activity_acc gpu_activity; /* what they did meanwhile */
    int gpu_run_lost;         /* out of memory for accounting records */
};

/* An empty pipeline: rows every interval seconds for the series asked
 * (GT_SERIES_* bits) of process pid; sampled_only as gt_options. */
void pipeline_init(struct pipeline *p, double interval, double ticks_per_second, int series,
                   pid_t pid, int sampled_only);
void pipeline_free(struct pipeline *p);

/* What the pipeline of a run needs to know of its machine beyond the
 * options: the reader's first look. */
struct pipeline_facts {
    pid_t pid;                       /* the tracked process */
    int sampled_only;                /* a plain sampler's comparison run */
    int ncpu;                        /* online CPUs */
    double usable_cpus;              /* what the job may use (affinity, quota) */
    unsigned long long gpu_capacity; /* bytes, all GPUs */
    int ngpus, nselected;
};

/* pipeline_init() for a run of options o, and the units its results are
 * given in (*units): o's units, the node's CPUs, and as the expected
 * cores o's or else the CPUs the job may use, rounded up. */
void pipeline_open(struct pipeline *p, const gt_options *o, const struct pipeline_facts *f,
                   struct usage_units *units);

/* Adds sample s (its GPU part attributed, the library's threads taken out
 * when s->self) to the aggregates, and fills *rows with the rows of its
 * slot (slot 0 also fixes epoch_start from s->wall). s->extra's buffers are
 * exchanged with the pipeline's previous ones (no copy): the reader reads
 * the next sample into what the pipeline no longer needs. */
void pipeline_step(struct pipeline *p, struct sample *s, struct pipeline_rows *rows);

/* The exporter's figures (metrics_text.h) after pipeline_step(p, s): the
 * sample's figures now, the run's peaks and counters so far. I/O counters
 * are raised to at least their previous value (prev, NULL: none): a
 * child's bytes leave the tree's sum when it ends unreaped, and a counter
 * must not go down. */
void pipeline_metrics(const struct pipeline *p, const struct sample *s,
                      const struct metrics_point *prev, struct metrics_point *m);

#endif
