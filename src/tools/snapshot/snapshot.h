/* snapshot.h - the snapshot reader on bytes in memory (the public calls
 * are in gpu_tracker.h); the fuzzer drives it. */
#ifndef GT_SNAPSHOT_H
#define GT_SNAPSHOT_H

#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"
#include "common/json_span.h"
#include "common/row_source.h"

/* gt_snapshot_read() of len bytes (gzip or plain JSON); name stands for the
 * file in messages. */
gt_status snapshot_read_memory(const void *data, size_t len, const char *name, gt_snapshot **out);

/* gt_snapshot_write() of s's metadata, server, cloud and summary with the
 * rows of rows (s->series is not used): what a tracker writes from its row
 * store, streamed. */
gt_status snapshot_write_rows(const gt_snapshot *s, const struct row_source *rows,
                              gt_snapshot_format format, const char *path);

#endif
