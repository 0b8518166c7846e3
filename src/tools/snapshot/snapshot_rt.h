/* snapshot_rt.h - resource_tracker's own snapshot format (what its
 * ResourceTracker.snapshot() returns and dump() gzips), read and written so
 * that a user's history moves both ways between the two tools
 * (docs/snapshot.md, "resource_tracker's format").
 *
 * Its 0.4 shape names the memory columns in kB (memory, memory_used, ...)
 * and GPU memory gpu_vram; its 0.5 shape has memory_mib, memory_used_mib,
 * ..., gpu_vram_mib, disk_read_bytes/disk_write_bytes in the process rows,
 * disk space in decimal GB, and memory_mib/gpu_memory_mib in server_info
 * (0.4: memory_mb/gpu_memory_mb). Rows are lists of objects, one per row. */
#ifndef GT_SNAPSHOT_RT_H
#define GT_SNAPSHOT_RT_H

#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"
#include "common/json_span.h"
#include "common/json_stream.h"
#include "common/row_source.h"

/* 1 when the object at root is a resource_tracker snapshot: it has
 * "metadata" and no "summary" (every gpu-tracker snapshot has one). */
int snapshot_rt_detect(const char *text, struct json_span root);

/* Reads the resource_tracker snapshot at root into s (either shape; at
 * most max_rows rows per series, every row's object at most a few KB,
 * every value checked against its column's range). s->no_summary is set.
 * The first problem goes to r. */
void snapshot_rt_read(struct json_reader *r, const char *text, struct json_span root,
                      size_t max_rows, gt_snapshot *s);

/* Writes s with the rows of rows as a resource_tracker snapshot of the
 * given shape (GT_SNAPSHOT_RESOURCE_TRACKER: 0.4, _05: 0.5) into k. */
void snapshot_rt_put(struct json_stream *k, const gt_snapshot *s, const struct row_source *rows,
                     gt_snapshot_format shape);

#endif
