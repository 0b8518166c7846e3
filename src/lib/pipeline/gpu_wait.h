/* pipeline/gpu_wait.h - what the job's GPUs waited for: at each sample in
 * which the job held memory on a GPU, whether the GPUs it held were busy
 * under GT_GPU_WAIT_BUSY_PERCENT and, if so, whether its CPU side held them
 * back: a saturated group of worker processes (the tree's census,
 * sample.h's worker_load) or a wait on storage (the main process's block
 * I/O delay, the job's cgroup io.pressure). gpu_tracker_tools.h's
 * gt_gpu_wait says the thresholds; docs/metrics.md, "What the GPU waited
 * for", the model. Pure: it reads only the samples it is given. */
#ifndef GT_GPU_WAIT_H
#define GT_GPU_WAIT_H

#include "gpu_tracker_internal.h"
#include "pipeline/gpu_activity.h"
#include "sample.h"

/* The worker groups seen saturated, by command: the first
 * GPU_WAIT_COMMANDS - 1 told apart, the rest counted as "(others)". */
#define GPU_WAIT_COMMANDS 16

struct gpu_wait_command {
    char command[16];
    double seconds;            /* waiting time it was saturated in */
    double processes, cores, runnable; /* integrals over it (x seconds) */
};

struct gpu_wait_acc {
    double cores;              /* the CPUs the job had (its expected cores) */
    double ticks_per_second;
    /* The previous sample's counters (have_prev 0: none yet). */
    int have_prev;
    double prev_now;
    int prev_blkio;            /* sample.tree.blkio then */
    unsigned long long prev_blkio_ticks;
    int prev_io_psi;           /* the cgroup's io.pressure was read then */
    unsigned long long prev_io_some_us;
    /* Whether each storage source was ever read, and why not. */
    int blkio_seen, blkio_off, psi_seen;
    double gpu_seconds, waiting_seconds, worker_seconds;
    double waiting_busy_sum;   /* integral (x seconds) */
    /* Waiting on storage by either source, and by the block I/O delay alone
     * (what is left when the cgroup turns out not to be the job's own). */
    double storage_seconds, storage_wait_sum;
    double blkio_storage_seconds, blkio_storage_wait_sum;
    int ncommands;
    struct gpu_wait_command commands[GPU_WAIT_COMMANDS];
    /* The GPU itself (gt_gpu_wait's figures of the same names; the sums
     * are integrals over the idle SM time). */
    double throttle_read_seconds, throttled_seconds, power_seconds, thermal_seconds;
    double sm_read_seconds, sm_idle_seconds, sm_idle_util_sum, sm_idle_sm_sum;
};

/* An empty accumulator for a job that may use cores CPUs (at least 1). */
void gpu_wait_init(struct gpu_wait_acc *a, double cores, double ticks_per_second);

/* One sample: s its GPU reading of ndevices devices and gs the tree's
 * share of it (pipeline_attribute_gpu; both NULL: none read), tree the
 * walk's figures (NULL: the tree was not read), cg the job's cgroup (NULL:
 * not read), now the sample's monotonic seconds. */
void gpu_wait_step(struct gpu_wait_acc *a, const struct gpu_sample *s,
                   const struct gpu_tree_sample *gs, int ndevices, const struct tree_sample *tree,
                   const struct cgroup_sample *cg, double now);

/* The figures and the verdict into *out (zeroed first). cgroup_own: the
 * cgroup the samples' io.pressure came from held only the job (a shared
 * group's stalls are others' too: then only the block I/O delay counts);
 * activity: the GPUs' shares over the run (NULL: none), for the shared
 * verdict. */
void gpu_wait_report(const struct gpu_wait_acc *a, int cgroup_own,
                     const struct gpu_activity_acc *activity, gt_gpu_wait *out);

#endif
