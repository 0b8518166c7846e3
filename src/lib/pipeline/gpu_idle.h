/* pipeline/gpu_idle.h - GPUs held but idle: for each GPU, in how many
 * samples the tracked tree held memory on it, and in how many of those the
 * GPU's utilization was under GT_GPU_IDLE_PERCENT (docs/metrics.md, "GPUs
 * held but idle"). A GPU the job held for most of the run while it did
 * nothing is a GPU to give back. */
#ifndef GT_GPU_IDLE_H
#define GT_GPU_IDLE_H

#include "gpu_tracker_internal.h"
#include "sample.h"

struct gpu_idle_acc {
    int ndevices;
    long held[GPU_MAX_DEVICES];  /* samples with tree memory on the GPU */
    long idle[GPU_MAX_DEVICES];  /* of those, under GT_GPU_IDLE_PERCENT */
    unsigned long long held_max[GPU_MAX_DEVICES]; /* the most the tree held there */
};

/* One sample's GPUs (s, of ndevices) with the tree as roles says. */
void gpu_idle_step(struct gpu_idle_acc *a, const struct gpu_sample *s, int ndevices,
                   const struct pid_roles *roles);

/* The verdict per GPU into out (struct_size set by the caller); uuids[d]
 * names device d (NULL: none). */
void gpu_idle_report(const struct gpu_idle_acc *a, const char *const *uuids, gt_gpu_idle *out);

#endif
