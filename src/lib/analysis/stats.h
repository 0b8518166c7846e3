/* stats.h - statistics and recommendations of a run (the public part is in
 * gpu_tracker.h: gt_snapshot_stats, gt_stats_combine, gt_recommend,
 * gt_round_memory_mib), over any row source. */
#ifndef GT_STATS_H
#define GT_STATS_H

#include "gpu_tracker_tools.h"
#include "util/row_source.h"

/* resource_tracker's stats() of the rows (gt_snapshot_stats' rules);
 * interval is the run's. GT_ERR_INVALID_ARGUMENT when there is no row pair,
 * GT_ERR_IO when the source cannot be read. */
gt_status stats_of_rows(const struct row_source *rows, double interval, gt_stats *out);

/* resource_tracker's guess whether the server was "dedicated" to the
 * tracked processes or "shared" with others, from the means of both series
 * (its SERVER_ALLOCATION_CHECKS); "unknown" when a series has no rows. The
 * returned string is static. */
const char *stats_allocation_of_rows(const struct row_source *rows);
const char *stats_allocation(const gt_series *series);

/* gt_stats_to_json's document as an object, to put in a larger one (the
 * job view's tasks); json-c's, released by the caller. */
struct json_object;
struct json_object *stats_json_object(const gt_stats *s);

#endif
