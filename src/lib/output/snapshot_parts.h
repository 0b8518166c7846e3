/* snapshot_parts.h - what the readers and writers of both snapshot
 * formats (snapshot.c: ours, snapshot_rt.c: resource_tracker's) share: the
 * parts they parse and write alike. Neither format's module includes the
 * other's for these. */
#ifndef GT_SNAPSHOT_PARTS_H
#define GT_SNAPSHOT_PARTS_H

#include <json-c/json.h>
#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"
#include "common/json_span.h"

/* Adds key: v (a string made valid UTF-8) to o. */
void snapshot_add_text(json_object *o, const char *key, const char *v);

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

/* Zeroes *s and sets the struct_size of it and of every struct it embeds
 * (the library's sizes: a snapshot is always the library's make). */
void snapshot_init(gt_snapshot *s);

/* Makes the counted arrays s points at (the summary's GPU list, the
 * server's GPU names, the GPU run's per-GPU figures, the top processes)
 * copies s owns, as a
 * snapshot read from a file owns its own. 0, or -1 (ENOMEM: then s owns
 * none of them, and points at none). */
int snapshot_take_lists(gt_snapshot *s);

/* Frees the arrays a snapshot owns (snapshot_take_lists, or a reader's). */
void snapshot_free_lists(gt_snapshot *s);

#endif
