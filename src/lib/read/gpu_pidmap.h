/* gpu_pidmap.h - the driver's process IDs translated to ours, inside a PID
 * namespace (a container). Pure: no I/O.
 *
 * NVML names processes by their host PIDs, which mean nothing (or another
 * process) in a container's /proc; and the container's procfs shows only
 * its own PIDs (NSpid has one level there), so no file maps one to the
 * other. What both sides do show is which GPUs a process uses: the driver
 * lists each process per GPU, and every CUDA process holds that GPU's
 * device file (/dev/nvidiaN) open, which its /proc/<pid>/fd shows. The
 * match is made by elimination: a host PID whose GPUs only one of our
 * processes holds is that process. Where the GPU is shared with processes
 * outside our namespace (more driver processes on a GPU than our processes
 * holding it), nothing on it is matched: those stay untranslated and are
 * never counted as ours. */
#ifndef GT_GPU_PIDMAP_H
#define GT_GPU_PIDMAP_H

#include <stddef.h>
#include <sys/types.h>

/* A process of our namespace and the GPUs whose device files it holds open
 * (bit d: device d); role as pid_roles (0: outside the tree). */
struct gpu_holder {
    pid_t pid;
    unsigned long long devices;
    int role;
};

/* A process as the driver lists it: its (host) PID and its GPUs; ours is
 * filled with our PID for it, 0 when it cannot be told. */
struct gpu_claim {
    pid_t host_pid;
    unsigned long long devices;
    pid_t ours;
};

/* Fills claims[i].ours. Rules, in order: a claim whose PID is one of our
 * processes holding all its GPUs is that process (a driver that already
 * translates, or no translation needed); then, repeatedly, a claim whose
 * GPUs are all "closed" (no more driver processes on them than our
 * processes holding them, so none can be another process's) is matched to the
 * one unmatched holder of all its GPUs, or to any of them when they all
 * have the same role (which of them does not change what is counted).
 * holders[] is reordered. Returns how many claims stay untranslated. */
size_t gpu_pid_match(struct gpu_claim *claims, size_t nclaims, struct gpu_holder *holders,
                     size_t nholders);

#endif
