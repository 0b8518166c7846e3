/* subtrack_results.h - gpu_tracker's text layout of sub-tracking results
 * and comparisons (its _dict_to_str), from the JSON documents
 * gt_subtrack_analyze and gt_subtrack_compare build. */
#ifndef GT_SUBTRACK_RESULTS_H
#define GT_SUBTRACK_RESULTS_H

#include <json-c/json.h>

/* The text of analysis results r ({overall, static_data,
 * code_block_results}), malloc'd; NULL when memory runs out. */
char *subtrack_results_text(json_object *r);

/* The text of comparison results c ({overall_resource_usage,
 * code_block_resource_usage, code_block_compute_time}), malloc'd. */
char *subtrack_comparison_text(json_object *c);

#endif
