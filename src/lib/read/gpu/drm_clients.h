/* drm_clients.h - the tracked tree's GPU clients, read from the kernel's
 * DRM figures (/proc/<pid>/fdinfo of each /dev/dri file it holds open,
 * drm_fdinfo.h): each process's memory and busiest engine on the devices
 * a GPU backend lists. The DRM backend (gpu_drm.c) reads everything from
 * them; ROCm SMI (gpu_rsmi.c) the per-process utilization it lacks. */
#ifndef GT_DRM_CLIENTS_H
#define GT_DRM_CLIENTS_H

#include <stddef.h>

#include "read/gpu/drm_fdinfo.h"
#include "read/gpu/gpu.h"

struct drm_client; /* one open of a GPU's device file, as last read */

/* The devices (their index in the vendor's list: PCI address as drm-pdev
 * writes it, driver) and the clients of the last sample. Zeroed: none. */
struct drm_clients {
    int ndevices;
    char pdev[GPU_MAX_DEVICES][DRM_NAME_LEN];
    char driver[GPU_MAX_DEVICES][DRM_NAME_LEN];
    struct drm_client *prev, *cur;
    size_t nprev, ncur, capprev, capcur;
    char *buf; /* an fdinfo file */
    size_t bufcap;
};

/* Reads the clients of v->tree_pids (under v->proc_root) on c's devices
 * and adds to v->procs each process's busiest engine since the previous
 * call (0 the first time) and, with_memory, its resident GPU memory (device
 * regions on a discrete GPU, the system memory it maps on an integrated
 * one). A client shared by several fds or processes counts once. 0, or -1
 * when out of memory. */
int drm_clients_sample(struct drm_clients *c, struct gpu_vendor *v, int with_memory);

void drm_clients_free(struct drm_clients *c);

#endif
