/* subtrack_results.h - gpu_tracker's text layout of sub-tracking results
 * and comparisons (its _dict_to_str), from the JSON documents
 * gt_subtrack_analyze and gt_subtrack_compare build. What came from the
 * files (block, column and session names, static values) is printed with
 * control characters and bytes that are not UTF-8 as \xNN: the text goes
 * to terminals. */
#ifndef GT_SUBTRACK_RESULTS_H
#define GT_SUBTRACK_RESULTS_H

#include <json-c/json.h>
#include <stdio.h>

/* The text of analysis results r ({overall, static_data,
 * code_block_results}) a block at a time: the head (r with
 * code_block_results empty, which it must end with), then each block of
 * code_block_results in order. 0, or -1 when memory runs out. */
int subtrack_results_text_head(FILE *f, json_object *r);
int subtrack_results_text_block(FILE *f, json_object *block);

/* The text of comparison results c ({overall_resource_usage,
 * code_block_resource_usage, code_block_compute_time}), malloc'd. */
char *subtrack_comparison_text(json_object *c);

#endif
