/* cgroup_json.h - the job's cgroup figures (gt_cgroup_usage) as the
 * "cgroup" object of the summary JSON and of snapshots, as written (the
 * tools read it back: snapshot/parts_read.h). */
#ifndef GT_CGROUP_JSON_H
#define GT_CGROUP_JSON_H

#include <json-c/json.h>

#include "gpu_tracker_internal.h"

/* The object (docs/metrics.md, "The job's cgroup"); NULL when out of
 * memory. */
json_object *cgroup_json_object(const gt_cgroup_usage *c);


#endif
