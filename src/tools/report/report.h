/* report.h - the HTML report over any row source (the public calls are
 * gt_snapshot_report_html and gt_snapshot_write_report in gpu_tracker.h;
 * a tracker writes its report from its row store through these). */
#ifndef GT_REPORT_H
#define GT_REPORT_H

#include "gpu_tracker_tools.h"
#include "common/row_source.h"

/* The report of s's metadata, server, cloud and summary with the rows of
 * rows (s->series.interval is used, its arrays are not), and beside its
 * statistics those of earlier runs when history is not NULL. Memory does not
 * grow with the rows: charts of more rows than pixels are drawn as bands.
 * With extras->sub_tracking_file, its code blocks are shaded on the charts
 * and listed with what the rows inside them say. Caller frees; NULL with
 * *status (and gt_last_error()) when out of memory, the rows cannot be
 * read, or the sub-tracking file is unreadable or malformed. */
char *report_html_rows(const gt_snapshot *s, const struct row_source *rows,
                       const char *server_json, const gt_report_extras *extras,
                       gt_status *status);

/* report_html_rows() written to path (file_io.h rules). */
gt_status report_write_rows(const gt_snapshot *s, const struct row_source *rows,
                            const char *server_json, const gt_report_extras *extras,
                            const char *path);

#endif
