/* usage_json.h - the summary as a JSON object, for the summary writer
 * (usage_json.c) and the snapshot, which embeds it (read back by the
 * tools: snapshot/usage_read.c). */
#ifndef GT_USAGE_JSON_H
#define GT_USAGE_JSON_H

#include <json-c/json.h>

#include "gpu_tracker_internal.h"

/* The object usage_to_json() prints; NULL when out of memory. */
json_object *usage_json_object(const gt_resource_usage *u);



#endif
