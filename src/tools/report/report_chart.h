/* report_chart.h - the report's charts: the rows reduced to at most one
 * column a pixel (report_chart_data), and the page's grid of SVG line
 * charts over them (report_charts); the code blocks a sub-tracking file
 * shades on them. Private to the report wing. */
#ifndef GT_REPORT_CHART_H
#define GT_REPORT_CHART_H

#include <stddef.h>

#include "gpu_tracker_tools.h"
#include "common/buf.h"
#include "common/row_source.h"

/* ---- charts ------------------------------------------------------------ */

#define CHART_W 640
#define CHART_H 250
#define PAD_L 70
#define PAD_R 16
#define PAD_T 16
#define PAD_B 44
/* The plot's width in pixels: a series with more rows than this is drawn
 * as one column of min..max (and the mean) per pixel. */
#define PLOT_W (CHART_W - PAD_L - PAD_R)

/* The lines the charts draw, one value per row. */
/* Code blocks of a sub-tracking file, shaded on the charts: the MAX_SHADED
 * that took the most time, each a colour, drawn per pixel column (a week of
 * calls costs no more than a minute's). */
#define MAX_SHADED 8
extern const char *const shade_colors[MAX_SHADED];

struct shading {
    int n;
    const char *name[MAX_SHADED];
    unsigned char on[MAX_SHADED][CHART_W]; /* by plot column */
};

enum line_id {
    L_PCPU, L_SCPU, L_PMEM, L_SMEM, L_PGPU, L_SGPU, L_PVRAM, L_SVRAM,
    L_DR, L_DW, L_PR, L_PW, L_NR, L_NS, L_PSI_CPU, L_PSI_MEM, L_PSI_IO, NLINES
};

/* What one plot column holds of one line. */
struct bucket {
    double min, max, sum;
    unsigned long count;
};

/* Every line of every chart, reduced to at most PLOT_W columns: the report
 * costs the same for a week of rows as for a minute (a few hundred
 * kilobytes here, and a page of at most a few hundred kilobytes). */
struct chart_data {
    size_t n;          /* rows (the longer series) */
    int ncols;         /* columns drawn: n, or PLOT_W when rows outnumber pixels */
    int envelope;      /* columns hold many rows: draw min..max and the mean */
    double x[PLOT_W];  /* each column's time, seconds since the start */
    double xspan;      /* the last row's time */
    struct bucket b[NLINES][PLOT_W];
    const struct shading *shade; /* code blocks shaded on every chart, or NULL */
    double t0;         /* epoch seconds of x = 0 */
    int have_pressure; /* a system row has the system's pressure (PSI) */
    const gt_snapshot *top; /* set while the memory chart is drawn: its hover
                               names the top process (report_top_hover) */
};

struct line {
    const char *label;
    const char *color;
    enum line_id id;
};

/* The charts' columns of s's rows, in one pass over them a batch at a
 * time (d is cleared first; d->shade is left NULL). 0, or -1 when the rows
 * cannot be read. */
int report_chart_data(const gt_snapshot *s, const struct row_source *rows, struct chart_data *d);

/* The grid of charts of d (memory first, who held its peak beside it; the
 * GPU charts only where the machine has a GPU), or a line saying there
 * are no rows. */
void report_charts(struct buf *b, const gt_snapshot *s, struct chart_data *d);

/* v, or 0 for a hand-made row's non-finite time or value. */
double finite_or_0(double v);

#endif
