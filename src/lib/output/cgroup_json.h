/* cgroup_json.h - the job's cgroup figures (gt_cgroup_usage) as the
 * "cgroup" object of the summary JSON and of snapshots, both ways. */
#ifndef GT_CGROUP_JSON_H
#define GT_CGROUP_JSON_H

#include <json-c/json.h>

#include "gpu_tracker_tools.h"
#include "common/json_read.h"

/* The object (docs/metrics.md, "The job's cgroup"); NULL when out of
 * memory. */
json_object *cgroup_json_object(const gt_cgroup_usage *c);

/* Reads such an object into *c (its struct_size kept), every value
 * checked; problems go to r with key paths under path ("cgroup"). */
void cgroup_json_read(struct json_reader *r, json_object *o, const char *path,
                      gt_cgroup_usage *c);

#endif
