/* report_who.h - the report's parts that say who held the run's
 * resources (report.c draws the page; these its pieces from a snapshot's
 * at_peak, gpu_idle, processes and top_processes). */
#ifndef GT_REPORT_WHO_H
#define GT_REPORT_WHO_H

#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "report/report_html.h"
#include "common/buf.h"

/* The table of who made up a peak (kind GT_PEAK_MEMORY or
 * GT_PEAK_GPU_MEMORY) as a figure for the charts' grid, beside the chart it
 * explains; nothing when that peak was not recorded. */
void report_peak_figure(struct buf *b, const gt_snapshot *s, int kind);

/* The note under the summary naming the GPUs held but idle and a GPU
 * request never used; nothing when there are none. */
void report_idle_note(struct buf *b, const gt_snapshot *s);

/* "Who held it": the processes by command, and the GPUs held but idle;
 * nothing when neither was recorded. */
void report_who_section(struct buf *b, const gt_snapshot *s);

/* What the recommendation adds about GPUs: ", fewer than the N ..." when
 * GPUs were held idle or given and unused (into out; "" otherwise). */
void report_gpu_advice(const gt_snapshot *s, char *out, size_t cap);

/* The hover data naming the top process at each of ncols chart columns
 * (times x[], seconds since the start): data-tk<i> names, data-t the
 * index per column (-1: none). Nothing without a timeline. */
void report_top_hover(struct buf *b, const gt_snapshot *s, const double *x, int ncols);

#endif
