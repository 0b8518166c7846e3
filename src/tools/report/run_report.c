/* run_report.c - a tracker's run written as the HTML report, its rows
 * streamed from where the tracker keeps them (gt_tracker_write_report,
 * gpu_tracker_tools.h). */
#include "report/report.h"

#include "gpu_tracker_internal.h"
#include "common/internal.h"

gt_status gt_tracker_write_report(gt_tracker *t, const char *command, int exit_status,
                                     const char *server_json, const gt_report_extras *extras,
                                     const char *path)
{
    error_clear();
    gt_snapshot s;
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = gt_tracker_snapshot_parts(t, command, exit_status, &s, &rows, &live);
    if (st == GT_OK)
        st = report_write_rows(&s, &rows, server_json, extras, path);
    gt_tracker_snapshot_parts_release(&s, live);
    return st;
}
