/* snapshot.h - the snapshot reader on bytes in memory (the public calls
 * are in gpu_tracker.h); the fuzzer drives it. */
#ifndef GT_SNAPSHOT_H
#define GT_SNAPSHOT_H

#include <stddef.h>

#include "gpu_tracker.h"

/* gt_snapshot_read() of len bytes (gzip or plain JSON); name stands for the
 * file in messages. */
gt_status snapshot_read_memory(const void *data, size_t len, const char *name, gt_snapshot **out);

#endif
