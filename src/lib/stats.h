/* stats.h - statistics and recommendations of a run (the public part is in
 * gpu_tracker.h: gt_snapshot_stats, gt_stats_combine, gt_recommend,
 * gt_round_memory_mib). */
#ifndef GT_STATS_H
#define GT_STATS_H

#include "gpu_tracker.h"

/* resource_tracker's guess whether the server was "dedicated" to the
 * tracked processes or "shared" with others, from the means of both series
 * (its SERVER_ALLOCATION_CHECKS); "unknown" when a series has no rows. The
 * returned string is static. */
const char *stats_allocation(const gt_series *series);

#endif
