/* snapshot.h - the snapshot reader on bytes in memory (the public calls
 * are in gpu_tracker.h); the fuzzer drives it. */
#ifndef GT_SNAPSHOT_H
#define GT_SNAPSHOT_H

#include <stddef.h>

#include "gpu_tracker.h"
#include "util/json_read.h"
#include "util/json_span.h"
#include "util/row_source.h"

/* gt_snapshot_read() of len bytes (gzip or plain JSON); name stands for the
 * file in messages. */
gt_status snapshot_read_memory(const void *data, size_t len, const char *name, gt_snapshot **out);

/* gt_snapshot_write_as() of s's metadata, server, cloud and summary with the
 * rows of rows (s->series is not used): what a tracker writes from its row
 * store, streamed. */
gt_status snapshot_write_rows(const gt_snapshot *s, const struct row_source *rows,
                              gt_snapshot_format format, const char *path);

/* The readers and writers of both formats (snapshot.c, snapshot_rt.c)
 * share these. */

/* Parses the part at span (name for messages), which may have at most max
 * bytes; NULL after a failure (recorded in r) and for a JSON null. */
json_object *snapshot_parse_part(struct json_reader *r, const char *text, struct json_span span,
                                 const char *name, size_t max);

/* c as the cloud_info object both formats write (NULL, a JSON null, when
 * it was not asked). */
json_object *snapshot_cloud_object(const gt_cloud_info *c);

/* cloud_info (NULL: not asked) into c. */
void snapshot_read_cloud(struct json_reader *r, json_object *cloud, gt_cloud_info *c);

/* server_info's "gpu_names" (a list of at most GT_MAX_GPUS strings that
 * fit) into si. */
void snapshot_read_gpu_names(struct json_reader *r, json_object *server_info, gt_server_info *si);

#endif
