/* summary_fields.c - see summary_fields.h. */
#include "common/summary/summary_fields.h"

#include "gpu_tracker_internal.h"

#define RSS(f) {#f, offsetof(gt_rss_values, f)}
const struct summary_double_field summary_rss_fields[] = {
    RSS(total_rss), RSS(private_rss), RSS(shared_rss), {NULL, 0}};

#define PERCENT(f) {#f, offsetof(gt_pu_percentages, f)}
const struct summary_double_field summary_percent_fields[] = {
    PERCENT(max_sum_percent), PERCENT(max_hardware_percent), PERCENT(mean_sum_percent),
    PERCENT(mean_hardware_percent), {NULL, 0}};

const char *const summary_peak_holder_names[GT_RSS_PEAK_UNSEEN + 1] = {
    [GT_RSS_PEAK_MAIN] = "main", [GT_RSS_PEAK_DESCENDANT] = "descendant",
    [GT_RSS_PEAK_EITHER] = "main or descendant", [GT_RSS_PEAK_UNSEEN] = "unseen"};

const char *const summary_rss_part_names[3] = {"max_ram.main", "max_ram.descendants",
                                               "max_ram.combined"};
