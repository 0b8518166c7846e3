/* pipeline/gpu_activity.h - what the job's GPUs did while it used them:
 * their own activity counters (SM, tensor, DRAM, ...: sample.h's
 * gpu_activity), their PCIe rates, the job's share of their SM time against
 * other processes', and their energy with the job's part of it; per GPU
 * and for the job, into gt_gpu_run (docs/metrics.md, "What the GPU did").
 * A GPU counts at a sample when the tree held memory on it or ran a kernel
 * there. Pure: it reads only the samples it is given. */
#ifndef GT_GPU_ACTIVITY_H
#define GT_GPU_ACTIVITY_H

#include "gpu_tracker_internal.h"
#include "sample.h"

struct gpu_activity_device {
    int used;                  /* the job used it at some sample */
    double seconds[GPU_ACTIVITY_N], sum[GPU_ACTIVITY_N], peak[GPU_ACTIVITY_N];
    double pcie_seconds, pcie_tx_sum, pcie_rx_sum, pcie_tx_peak, pcie_rx_peak;
    /* Intervals in which the job used it and the processes' utilization was
     * read: their length, and the SM percent-seconds of the tree's
     * processes and of all of them. */
    double share_seconds, job_sm_time, all_sm_time;
    /* The energy counter at its first and latest readings (mJ). */
    int energy_seen;
    unsigned long long energy_first_mj, energy_last_mj;
};

struct gpu_activity_acc {
    int have_prev;
    double prev_now;
    struct gpu_activity_device devices[GPU_MAX_DEVICES];
};

void gpu_activity_init(struct gpu_activity_acc *a);

/* The devices the tree used at a sample: where it held memory (every one
 * when the driver does not say where) or ran a kernel. */
unsigned long long gpu_activity_used_devices(const struct gpu_tree_sample *gs);

/* One sample at monotonic time now: s the GPUs' reading of ndevices
 * devices, gs the tree's share of it (NULL: the tree was not read; only
 * the energy counters count then). */
void gpu_activity_step(struct gpu_activity_acc *a, double now, const struct gpu_sample *s,
                       const struct gpu_tree_sample *gs, int ndevices);

/* The figures into out's activity, PCIe and share parts and into the
 * per-GPU table (room for min(ndevices, GT_MAX_GPUS): gpu_run_acc_fill's,
 * whose throttle figures it keeps; out->devices and out->ngpus grown to
 * it). reason: why the counters are missing (the GPU reader's; "" or NULL:
 * given where the GPU has them); proc_util: why the processes'
 * utilization is. */
void gpu_activity_fill(const struct gpu_activity_acc *a, const char *reason,
                       const char *proc_util, int ndevices, gt_gpu_run_device *table,
                       gt_gpu_run *out);

/* For gpu_wait: the device of the largest share others took of the time
 * the job used it (0 to 1, *share), -1 when no share was read. */
int gpu_activity_most_shared(const struct gpu_activity_acc *a, double *share);

#endif
