/* gpu_holders.h - which processes of a procfs hold which GPUs' device files
 * open (/proc/<pid>/fd/N -> /dev/nvidiaM), for matching the driver's host
 * PIDs to ours inside a PID namespace (gpu_pidmap.h). */
#ifndef GT_GPU_HOLDERS_H
#define GT_GPU_HOLDERS_H

#include <stddef.h>

#include "read/gpu_pidmap.h"
#include "sample.h"

/* Every process under proc_root that holds a device file /dev/nvidiaM open
 * where M is minors[d] for a device d < ndevices (minors[d] < 0: unknown),
 * with bit d set, into *holders (grown as needed; capacity *cap), its role
 * from roles (0 when not in the tree). Processes that vanish or whose fds
 * cannot be read are passed over. The number found, or -1 when out of
 * memory or proc_root cannot be listed. */
long gpu_holders_scan(const char *proc_root, const int *minors, int ndevices,
                      const struct pid_roles *roles, struct gpu_holder **holders, size_t *cap);

#endif
