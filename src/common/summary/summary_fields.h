/* summary_fields.h - the summary document's objects of doubles only
 * (gpu_tracker's RSSValues and ProcessingUnitPercentages), as (key, place
 * in the struct): one table each, for the library's writer
 * (common/summary/usage_json.c) and the tools' reader (snapshot/usage_read.c)
 * alike, so that the two never disagree on a key. */
#ifndef GT_SUMMARY_FIELDS_H
#define GT_SUMMARY_FIELDS_H

#include <stddef.h>

#include "gpu_tracker_internal.h"

struct summary_double_field {
    const char *key; /* NULL ends a table */
    size_t offset;
};

/* total_rss, private_rss, shared_rss of a gt_rss_values. */
extern const struct summary_double_field summary_rss_fields[];
/* max_sum_percent, max_hardware_percent, mean_sum_percent,
 * mean_hardware_percent of a gt_pu_percentages. */
extern const struct summary_double_field summary_percent_fields[];

/* Whose the combined RSS peak was where no sample saw it, by GT_RSS_PEAK_*
 * (measurement.rss_peak_held_by; at_peak.memory_unseen.holder, which is
 * never "unseen"); NULL for GT_RSS_PEAK_SAMPLED. */
extern const char *const summary_peak_holder_names[GT_RSS_PEAK_UNSEEN + 1];

/* The parts of max_ram, in gt_measurement.rss_parts_unknown's bit order
 * (measurement.private_shared_unknown). */
extern const char *const summary_rss_part_names[3];

#endif
