/* run_parts_json.h - the parts of a run's results that the pipeline fills
 * beyond the summary, as JSON (read back by the tools:
 * snapshot/parts_read.h): what the GPU driver counted ("gpu_run") and the
 * CPUs' energy ("cpu_energy"), for the summary JSON of a tracker and for
 * snapshots' metadata. (The job's cgroup has its own, cgroup_json.h.) */
#ifndef GT_RUN_PARTS_JSON_H
#define GT_RUN_PARTS_JSON_H

#include <json-c/json.h>

#include "gpu_tracker_internal.h"

/* The "gpu_run" object; NULL when out of memory. */
json_object *gpu_run_json_object(const gt_gpu_run *g);


/* The "cpu_energy" object; NULL when out of memory. */
json_object *cpu_energy_json_object(const gt_cpu_energy *e);


#endif
