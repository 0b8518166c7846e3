/* usage_json.h - the summary as a JSON object, both ways: for the summary
 * writer and reader (write_json.c) and for the snapshot, which embeds it. */
#ifndef GT_USAGE_JSON_H
#define GT_USAGE_JSON_H

#include <json-c/json.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"

/* The object gt_usage_to_json() prints; NULL when out of memory. */
json_object *usage_json_object(const gt_resource_usage *u);

/* Reads a summary object (gt_usage_from_json's checks) into *u; problems go
 * to r, with key paths under prefix ("", or "summary" in a snapshot). */
void usage_json_read(struct json_reader *r, json_object *root, const char *prefix,
                     gt_resource_usage *u);

/* Frees the GPU list usage_json_read() allocated in *u (gt_usage_release;
 * a snapshot's summary at gt_snapshot_free). */
void usage_json_release(gt_resource_usage *u);

#endif
