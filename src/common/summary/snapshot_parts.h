/* snapshot_parts.h - what the readers and writers of both snapshot
 * formats (snapshot.c: ours, snapshot_rt.c: resource_tracker's) share: the
 * parts they parse and write alike. Neither format's module includes the
 * other's for these. */
#ifndef GT_SNAPSHOT_PARTS_H
#define GT_SNAPSHOT_PARTS_H

#include <json-c/json.h>
#include <stddef.h>

#include "gpu_tracker_internal.h"
#include "common/json_read.h"

/* Adds key: v (a string made valid UTF-8) to o. */
void snapshot_add_text(json_object *o, const char *key, const char *v);


/* c as the cloud_info object both formats write (NULL, a JSON null, when
 * it was not asked). */
json_object *snapshot_cloud_object(const gt_cloud_info *c);



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
