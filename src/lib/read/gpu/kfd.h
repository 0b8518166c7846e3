/* kfd.h - ROCm compute's GPU memory, per process, from the KFD driver.
 *
 * ROCm (HIP, OpenCL on ROCm) allocates through /dev/kfd, which the DRM
 * fdinfo of /dev/dri files (drm_clients.h) does not show. The kernel keeps
 * each ROCm process's device memory in
 * <sys>/class/kfd/kfd/proc/<pid>/vram_<gpu_id>, the GPU ids being those of
 * <sys>/class/kfd/kfd/topology/nodes/<N>/gpu_id (0 for a CPU node), each
 * node's PCI address in its properties (domain, location_id: bus << 8 |
 * device << 3 | function). Read for the tracked tree where no vendor
 * library gives a per-process figure: the DRM backend, and ROCm SMI when
 * it lists no process. */
#ifndef GT_KFD_H
#define GT_KFD_H

#include "read/gpu/drm_fdinfo.h"
#include "read/gpu/gpu.h"

/* The KFD GPU ids of a vendor's devices. */
struct kfd_gpus {
    int n;
    unsigned long gpu_id[GPU_MAX_DEVICES];
    int device[GPU_MAX_DEVICES]; /* the vendor's device index */
};

/* Matches the KFD GPU nodes under sys_root to the devices whose PCI
 * addresses (drm-pdev's form, "0000:03:00.0") are pdev[0..ndevices). No
 * KFD, or none of ours: k->n 0. */
void kfd_gpus_find(struct kfd_gpus *k, const char *sys_root, const char (*pdev)[DRM_NAME_LEN],
                   int ndevices);

/* Each of v->tree_pids's ROCm device memory on k's GPUs, into v->procs: a
 * process's memory becomes the larger of what the DRM figures gave it and
 * what KFD holds for it (a kernel may count the same buffers in both).
 * 0, or -1 when out of memory. */
int kfd_sample(const struct kfd_gpus *k, struct gpu_vendor *v);

#endif
