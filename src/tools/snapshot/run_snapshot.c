/* run_snapshot.c - a tracker's run written as a snapshot file, its rows
 * streamed from where the tracker keeps them (gt_tracker_write_snapshot,
 * gpu_tracker_tools.h), through the gate the tools take a live run by. */
#include "snapshot/snapshot.h"

#include "gpu_tracker_internal.h"
#include "common/internal.h"

gt_status gt_tracker_write_snapshot(gt_tracker *t, const char *command, int exit_status,
                                    gt_snapshot_format format, const char *path)
{
    error_clear();
    gt_snapshot s;
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = gt_tracker_snapshot_parts(t, command, exit_status, &s, &rows, &live);
    if (st == GT_OK)
        st = snapshot_write_rows(&s, &rows, format, path);
    gt_tracker_snapshot_parts_release(&s, live);
    return st;
}
