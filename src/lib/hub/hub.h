/* hub/hub.h - the face of the hub for the tools above it (src/tools): what
 * they take from a tracker beyond gpu_tracker_tools.h, to write a run's
 * snapshot or report row by row without holding its rows in memory. */
#ifndef GT_HUB_H
#define GT_HUB_H

#include "gpu_tracker_tools.h"
#include "common/row_source.h"

/* Everything of a snapshot of t but its rows (series: counts and interval
 * only, no arrays) into *s, and a source over the rows in *rows: a stopped
 * run, or while STARTED the run so far (the summary as of now, in *live).
 * The cloud discovery's answer is waited for once and kept for the next
 * call. command is copied into s->command. Release with
 * tracker_snapshot_parts_release() whatever it returned. GT_ERR_STATE
 * (NEW, or before a delayed start), GT_ERR_NO_MEMORY. */
gt_status tracker_snapshot_parts(gt_tracker *t, const char *command, int exit_status,
                                 gt_snapshot *s, struct row_source *rows,
                                 gt_resource_usage **live);
void tracker_snapshot_parts_release(gt_snapshot *s, gt_resource_usage *live);

/* A source over the rows t has kept so far (read while the sampler may
 * still append to them) and the run's interval. GT_ERR_STATE while NEW. */
gt_status tracker_rows(gt_tracker *t, struct row_source *rows, double *interval);

#endif
