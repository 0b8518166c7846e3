/* report_chart.c - the report's charts: inline SVG line charts drawn
 * here, one column a pixel at most (a band of min..max and the mean when
 * rows outnumber pixels), with the data the page's script shows on hover. */
#define _GNU_SOURCE
#include <math.h>

#include <stdio.h>
#include <string.h>

#include "common/gpu_advice.h"
#include "report/report_chart.h"
#include "report/report_html.h"
#include "report/report_who.h"
#include "common/num.h"

/* The axis of values 0..max: a step of 1, 2 or 5 times a power of ten
 * giving about n ticks, and how many steps reach max (at most 2n). Ticks
 * are drawn by counting steps, never by adding a step until past the top:
 * near DBL_MAX a sum can stall or become infinite. A max outside 1e-12 ..
 * 1e300 (or not a number) gives the axis 0..1. */
struct axis {
    double step, top;
    int nsteps;
};

/* floor(log10(x)) for x > 0 finite: the k with 10^k <= x < 10^(k+1)
 * (log10 may land a hair off at an exact power: checked both ways). */
static int decade_of(double x)
{
    int k = (int)floor(log10(x));
    if (pow(10, k + 1) <= x)
        k++;
    else if (x < pow(10, k))
        k--;
    return k;
}

static struct axis nice_axis(double max, int n)
{
    struct axis a = {0.25, 1, 4};
    if (!(max >= 1e-12 && max <= 1e300)) /* nothing to scale, or past what prints */
        return a;
    double raw = max / n;
    double p = pow(10, decade_of(raw));
    double f = raw / p;
    a.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
    double steps = ceil(max / a.step);
    a.nsteps = steps < 1 ? 1 : steps > 2 * n ? 2 * n : (int)steps;
    a.top = a.step * a.nsteps;
    return a;
}

static void fmt_tick(double v, double step, char *out, size_t cap)
{
    if (v >= 1e15) {
        snprintf(out, cap, "%.3g", v);
        return;
    }
    /* ceil(-log10(step)): the fewest decimals that show a step */
    int decimals = 0;
    while (decimals < 6 && step < pow(10, -decimals))
        decimals++;
    snprintf(out, cap, "%.*f", decimals, v);
}

/* The time axis: seconds for a run under two minutes; beyond, steps a
 * clock reads (15 s ... 30 min, 1 h ... 1 day) labelled m:ss or h:mm, so
 * that a 10-hour run reads 0:00 .. 10:00, not 0 .. 36000. */
struct time_axis {
    struct axis a;
    int clock;       /* 0: seconds; 1: m:ss; 2: h:mm */
    const char *label;
};

static struct time_axis time_axis_for(double span)
{
    struct time_axis t = {nice_axis(span, 6), 0, "seconds since start"};
    if (!(span >= 120 && span <= 1e12))
        return t;
    static const double steps[] = {15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                   21600, 43200, 86400, 172800, 604800, 2592000};
    double step = steps[sizeof steps / sizeof steps[0] - 1];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (span / steps[i] <= 7) {
            step = steps[i];
            break;
        }
    double n = ceil(span / step);
    t.a.step = step;
    t.a.nsteps = n < 1 ? 1 : n > 1000 ? 1000 : (int)n;
    t.a.top = step * t.a.nsteps;
    t.clock = span < 7200 ? 1 : 2;
    t.label = t.clock == 1 ? "time since start (m:ss)" : "time since start (h:mm)";
    return t;
}

static void fmt_time_tick(const struct time_axis *t, double v, char *out, size_t cap)
{
    /* Clock ticks are at most 1000 steps of a month (time_axis_for); the
     * seconds axis takes any value, so it is never converted to an
     * integer. */
    if (t->clock == 0 || !(v >= 0 && v < 1e15)) {
        fmt_tick(v, t->a.step, out, cap);
        return;
    }
    unsigned long long sec = (unsigned long long)(v + 0.5);
    if (t->clock == 1)
        snprintf(out, cap, "%llu:%02llu", sec / 60, sec % 60);
    else
        snprintf(out, cap, "%llu:%02llu", sec / 3600, sec / 60 % 60);
}

const char *const shade_colors[MAX_SHADED] = {
    "#8e44ad", "#16a085", "#d35400", "#b03a2e", "#1f618d", "#7d6608", "#117a65", "#6c3483",
};

static double plot_y(double v, double ytop, double ph)
{
    return PAD_T + ph - (isfinite(v) ? v : 0) / ytop * ph;
}

/* What the page's script shows on hover, as attributes of the chart's
 * <svg>: the plot's place (data-pl, data-pw, data-pt, data-ph), the time
 * span, the unit, each column's time (data-x, seconds since the start)
 * and each line's label and column values (data-l0, data-v0, ...: the
 * row's value, or the column's mean, and its min..max when columns hold
 * many rows). A few tens of kilobytes per chart whatever the rows. */
static void hover_data(struct buf *b, const char *unit, const struct chart_data *d,
                       const struct line *lines, size_t nlines, double xright)
{
    double ph = CHART_H - PAD_T - PAD_B;
    buf_printf(b, " data-pl=\"%d\" data-pw=\"%d\" data-pt=\"%d\" data-ph=\"%.0f\" "
              "data-span=\"%.3f\" data-unit=\"", PAD_L, PLOT_W, PAD_T, ph, xright);
    report_text(b, unit);
    buf_puts(b, "\" data-x=\"");
    for (int c = 0; c < d->ncols; c++)
        buf_printf(b, "%s%.1f", c ? "," : "", d->xspan > 0 ? d->x[c] : xright / 2);
    buf_puts(b, "\"");
    if (d->shade && d->shade->n) {
        /* data-k<i>: shaded block i's name; data-b: per column, a bit per
         * block whose calls cover it. */
        for (int i = 0; i < d->shade->n; i++) {
            buf_printf(b, " data-k%d=\"", i);
            report_text(b, d->shade->name[i]);
            buf_puts(b, "\"");
        }
        buf_puts(b, " data-b=\"");
        for (int c = 0; c < d->ncols; c++) {
            double px = d->xspan > 0 ? d->x[c] / xright * PLOT_W : PLOT_W / 2.0;
            int col = px >= PLOT_W ? PLOT_W - 1 : px > 0 ? (int)px : 0;
            unsigned mask = 0;
            for (int i = 0; i < d->shade->n; i++)
                mask |= (unsigned)d->shade->on[i][col] << i;
            buf_printf(b, "%s%u", c ? "," : "", mask);
        }
        buf_puts(b, "\"");
    }
    if (d->top)
        report_top_hover(b, d->top, d->x, d->ncols);
    for (size_t l = 0; l < nlines; l++) {
        buf_printf(b, " data-l%zu=\"", l);
        report_text(b, lines[l].label);
        buf_printf(b, "\" data-v%zu=\"", l);
        const struct bucket *bk = d->b[lines[l].id];
        for (int c = 0; c < d->ncols; c++) {
            if (c)
                buf_puts(b, ",");
            if (!bk[c].count)
                buf_puts(b, "-");
            else if (d->envelope && bk[c].count > 1)
                buf_printf(b, "%.3g (%.3g..%.3g)", bk[c].sum / (double)bk[c].count, bk[c].min,
                          bk[c].max);
            else
                buf_printf(b, "%.3g", bk[c].sum / (double)bk[c].count);
        }
        buf_puts(b, "\"");
    }
}

/* A line chart of up to 4 lines. */
static void chart(struct buf *b, const char *title, const char *unit, const struct chart_data *d,
                  const struct line *lines, size_t nlines)
{
    double ymax = 0;
    for (size_t l = 0; l < nlines; l++)
        for (int c = 0; c < d->ncols; c++)
            if (d->b[lines[l].id][c].count && isfinite(d->b[lines[l].id][c].max))
                ymax = max_d(ymax, d->b[lines[l].id][c].max);
    struct axis yaxis = nice_axis(ymax, 4);
    struct time_axis taxis = time_axis_for(d->xspan);
    struct axis xaxis = taxis.a;
    double ytop = yaxis.top;
    double xright = d->xspan > 0 && d->xspan <= 1e300 ? d->xspan : 1;
    double pw = PLOT_W, ph = CHART_H - PAD_T - PAD_B;

    buf_puts(b, "<figure class=\"chart\"><figcaption>");
    report_text(b, title);
    buf_puts(b, "</figcaption>");
    buf_printf(b, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", CHART_W, CHART_H);
    report_text(b, title);
    buf_puts(b, "\"");
    hover_data(b, unit, d, lines, nlines, xright);
    buf_puts(b, ">");
    /* grid and y labels */
    for (int i = 0; i <= yaxis.nsteps; i++) {
        double v = yaxis.step * i;
        double y = PAD_T + ph - v / ytop * ph;
        char t[32];
        fmt_tick(v, yaxis.step, t, sizeof t);
        buf_printf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", PAD_L,
                  y, CHART_W - PAD_R, y);
        buf_printf(b, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
                  PAD_L - 6, y + 4, t);
    }
    for (int i = 0; i <= xaxis.nsteps; i++) {
        double v = xaxis.step * i;
        if (v > xright * (1 + 1e-9))
            break;
        double xx = PAD_L + v / xright * pw;
        char t[32];
        fmt_time_tick(&taxis, v, t, sizeof t);
        buf_printf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", xx,
                  PAD_T + ph, xx, PAD_T + ph + 4);
        buf_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
                  xx, PAD_T + ph + 18, t);
    }
    buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\"/>", PAD_L, PAD_T,
              PAD_L, PAD_T + ph);
    buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", PAD_L,
              PAD_T + ph, CHART_W - PAD_R, PAD_T + ph);
    buf_printf(b, "<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
              PAD_L + pw / 2, CHART_H - 6, taxis.label);
    buf_printf(b, "<text class=\"label\" transform=\"translate(14 %.1f) rotate(-90)\" "
              "text-anchor=\"middle\">", PAD_T + ph / 2);
    report_text(b, unit);
    buf_puts(b, "</text>");
    for (int i = 0; d->shade && i < d->shade->n; i++)
        for (int c = 0; c < PLOT_W; c++) {
            if (!d->shade->on[i][c] || (c > 0 && d->shade->on[i][c - 1]))
                continue;
            int end = c;
            while (end + 1 < PLOT_W && d->shade->on[i][end + 1])
                end++;
            buf_printf(b, "<rect class=\"block\" x=\"%d\" y=\"%d\" width=\"%d\" "
                      "height=\"%.0f\" fill=\"%s\" fill-opacity=\"0.16\"><title>",
                      PAD_L + c, PAD_T, end - c + 1, ph, shade_colors[i]);
            report_text(b, d->shade->name[i]);
            buf_puts(b, "</title></rect>");
        }
    for (size_t l = 0; l < nlines; l++) {
        const struct bucket *bk = d->b[lines[l].id];
        if (d->envelope) {
            /* min..max of each column as a band: along the maxima, back
             * along the minima. */
            buf_printf(b, "<polygon class=\"band\" fill=\"%s\" fill-opacity=\"0.25\" points=\"",
                      lines[l].color);
            for (int c = 0; c < d->ncols; c++)
                if (bk[c].count)
                    buf_printf(b, "%.1f,%.1f ", PAD_L + d->x[c] / xright * pw,
                              plot_y(bk[c].max, ytop, ph));
            for (int c = d->ncols - 1; c >= 0; c--)
                if (bk[c].count)
                    buf_printf(b, "%.1f,%.1f ", PAD_L + d->x[c] / xright * pw,
                              plot_y(bk[c].min, ytop, ph));
            buf_puts(b, "\"/>");
        }
        /* The line: each row's value, or each column's mean. */
        buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"",
                  lines[l].color, d->envelope ? "1.2" : "2");
        for (int c = 0; c < d->ncols; c++)
            if (bk[c].count)
                buf_printf(b, "%.1f,%.1f ", PAD_L + (d->xspan > 0 ? d->x[c] / xright * pw : pw / 2),
                          plot_y(bk[c].sum / (double)bk[c].count, ytop, ph));
        buf_puts(b, "\"/>");
        if (!d->envelope && d->n <= 60)
            for (int c = 0; c < d->ncols; c++)
                if (bk[c].count)
                    buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
                              PAD_L + (d->xspan > 0 ? d->x[c] / xright * pw : pw / 2),
                              plot_y(bk[c].sum / (double)bk[c].count, ytop, ph), lines[l].color);
    }
    buf_puts(b, "</svg><div class=\"tip\">Hover over the chart to read its values.</div>"
               "<div class=\"legend\">");
    for (size_t l = 0; l < nlines; l++) {
        buf_printf(b, "<span><i style=\"background:%s\"></i>", lines[l].color);
        report_text(b, lines[l].label);
        buf_puts(b, "</span>");
    }
    for (int i = 0; d->shade && i < d->shade->n; i++) {
        buf_printf(b, "<span><i class=\"blk\" style=\"background:%s\"></i>", shade_colors[i]);
        report_text(b, d->shade->name[i]);
        buf_puts(b, "</span>");
    }
    if (d->envelope)
        buf_printf(b, "<span>%zu rows: each pixel column shows their range (band) and mean "
                  "(line)</span>", d->n);
    buf_puts(b, "</div></figure>\n");
}

static void bucket_add(struct bucket *bk, double v)
{
    if (!isfinite(v))
        return;
    if (!bk->count || v < bk->min)
        bk->min = v;
    if (!bk->count || v > bk->max)
        bk->max = v;
    bk->sum += v;
    bk->count++;
}

/* The time of row i of kind into *t; -1 when it cannot be read. */
static int row_time(const struct row_source *rows, gt_series_kind kind, size_t i, double *t)
{
    gt_process_row p;
    gt_system_row y;
    void *row = kind == GT_SERIES_KIND_PROCESS ? (void *)&p : (void *)&y;
    if (rows->read(rows, kind, i, 1, row) < 0)
        return -1;
    *t = kind == GT_SERIES_KIND_PROCESS ? p.timestamp : y.timestamp;
    return 0;
}

/* A time for the axis: a hand-made row's non-finite time counts as 0. */
double finite_or_0(double v)
{
    return isfinite(v) ? v : 0;
}

/* The charts' columns, in one pass over the rows, a batch at a time. */
/* What chart_add_pair needs besides the pair. */
struct chart_fill {
    struct chart_data *d;
    double t0;   /* epoch seconds of x = 0 */
    double secs; /* the interval: bytes per interval to MiB/s */
};

/* row_pair_fn of chart_data: rows pair i into its column (its own, or the
 * envelope's column its time falls in). */
static void chart_add_pair(void *ctx, size_t i, const gt_process_row *pr, const gt_system_row *sr)
{
    const struct chart_fill *f = ctx;
    struct chart_data *d = f->d;
    double secs = f->secs;
    double x = finite_or_0((pr ? pr->timestamp : sr->timestamp) - f->t0);
    int c;
    if (!d->envelope) {
        c = (int)i;
        d->x[c] = x;
    } else {
        double pos = d->xspan > 0 ? x / d->xspan * PLOT_W : 0;
        c = pos >= PLOT_W ? PLOT_W - 1 : pos > 0 ? (int)pos : 0;
    }
    if (pr) {
        bucket_add(&d->b[L_PCPU][c], pr->cpu_usage);
        bucket_add(&d->b[L_PMEM][c], (double)pr->memory / 1024.0);
        bucket_add(&d->b[L_PGPU][c], pr->gpu_usage);
        bucket_add(&d->b[L_PVRAM][c], pr->gpu_vram);
        bucket_add(&d->b[L_PR][c], (double)pr->read_bytes / secs / 1048576.0);
        bucket_add(&d->b[L_PW][c], (double)pr->write_bytes / secs / 1048576.0);
    }
    if (sr) {
        bucket_add(&d->b[L_SCPU][c], sr->cpu_usage);
        bucket_add(&d->b[L_SMEM][c], (double)sr->memory_used / 1024.0);
        bucket_add(&d->b[L_SGPU][c], sr->gpu_usage);
        bucket_add(&d->b[L_SVRAM][c], sr->gpu_vram);
        bucket_add(&d->b[L_DR][c], (double)sr->disk_read_bytes / secs / 1048576.0);
        bucket_add(&d->b[L_DW][c], (double)sr->disk_write_bytes / secs / 1048576.0);
        bucket_add(&d->b[L_NR][c], (double)sr->net_recv_bytes / secs / 1048576.0);
        bucket_add(&d->b[L_NS][c], (double)sr->net_sent_bytes / secs / 1048576.0);
        if (sr->pressure_ok) {
            d->have_pressure = 1;
            bucket_add(&d->b[L_PSI_CPU][c], 100 * sr->pressure_cpu_some);
            bucket_add(&d->b[L_PSI_MEM][c], 100 * sr->pressure_memory_some);
            bucket_add(&d->b[L_PSI_IO][c], 100 * sr->pressure_io_some);
        }
    }
}

int report_chart_data(const gt_snapshot *s, const struct row_source *rows, struct chart_data *d)
{
    memset(d, 0, sizeof *d);
    size_t np = rows->count[GT_SERIES_KIND_PROCESS], ns = rows->count[GT_SERIES_KIND_SYSTEM];
    size_t n = np > ns ? np : ns;
    d->n = n;
    if (n == 0)
        return 0;
    /* x: seconds since tracking started (the first row is one interval in). */
    gt_series_kind longer = np >= ns ? GT_SERIES_KIND_PROCESS : GT_SERIES_KIND_SYSTEM;
    double first, last;
    if (row_time(rows, longer, 0, &first) < 0 || row_time(rows, longer, n - 1, &last) < 0)
        return -1;
    double t0 = s->start_time > 0 && isfinite(s->start_time) ? s->start_time
                                                              : first - s->series.interval;
    d->xspan = finite_or_0(last - t0);
    d->t0 = t0;
    d->envelope = n > PLOT_W;
    d->ncols = d->envelope ? PLOT_W : (int)n;
    if (d->envelope)
        for (int c = 0; c < PLOT_W; c++)
            d->x[c] = d->xspan * (c + 0.5) / PLOT_W;
    double secs = s->series.interval > 0 ? s->series.interval : 1;

    struct chart_fill f = {d, t0, secs};
    return row_source_each_pair(rows, n, chart_add_pair, &f);
}

#define PROC_COLOR "#2f6fde"
#define SYS_COLOR "#9aa3b2"
#define PROC2_COLOR "#e07b39"
#define SYS2_COLOR "#c9a227"

/* Under the GPU charts, what the GPUs' own counters said while the job used
 * them: utilization counts any kernel running, SM activity the SMs busy. */
static void gpu_activity_note(struct buf *b, const gt_gpu_run *g)
{
    if (!g->struct_size || !g->activity_available)
        return;
    buf_puts(b, "<p class=\"note\">GPU utilization above is the share of time any kernel "
                "ran; the GPUs' own counters while the job used them:");
    const char *sep = " ";
    for (int m = 0; m < GT_GPU_ACTIVITY_METRICS; m++)
        if (g->activity_read >> m & 1) {
            buf_printf(b, "%s%s %.0f%% (peak %.0f%%)", sep, gpu_activity_name(m),
                       g->activity_mean[m], g->activity_peak[m]);
            sep = ", ";
        }
    buf_puts(b, ".</p>\n");
}

void report_charts(struct buf *b, const gt_snapshot *s, struct chart_data *d)
{
    if (d->n == 0) {
        buf_printf(b, "<p>No rows: the run was shorter than one interval (%g s).</p>\n",
                  s->interval);
        return;
    }
    buf_puts(b, "<div class=\"charts\">\n");
    /* Memory first, who held its peak beside it. */
    struct line mem[] = {{"tracked processes (PSS)", PROC_COLOR, L_PMEM},
                         {"whole system (used)", SYS_COLOR, L_SMEM}};
    d->top = s; /* its hover names the largest process */
    chart(b, "Memory", "MiB", d, mem, 2);
    d->top = NULL;
    report_peak_figure(b, s, GT_PEAK_MEMORY);
    /* resource_tracker's report has these two by these names: its users
     * look for them */
    struct line pcpu[] = {{"tracked processes", PROC_COLOR, L_PCPU}};
    chart(b, "Process CPU usage", "cores", d, pcpu, 1);
    struct line scpu[] = {{"whole system", SYS_COLOR, L_SCPU}};
    chart(b, "System CPU usage", "cores", d, scpu, 1);
    /* Without a GPU the GPU charts would be empty frames: said once instead. */
    if (s->server.gpu_count > 0) {
        struct line gpu[] = {{"tracked processes", PROC_COLOR, L_PGPU},
                             {"all GPUs", SYS_COLOR, L_SGPU}};
        chart(b, "GPU utilization", "GPUs", d, gpu, 2);
        struct line vram[] = {{"tracked processes", PROC_COLOR, L_PVRAM},
                              {"all GPUs", SYS_COLOR, L_SVRAM}};
        chart(b, "GPU memory", "MiB", d, vram, 2);
    }
    struct line disk[] = {{"processes read", PROC_COLOR, L_PR},
                          {"processes write", PROC2_COLOR, L_PW},
                          {"disks read", SYS_COLOR, L_DR},
                          {"disks write", SYS2_COLOR, L_DW}};
    chart(b, "Disk I/O", "MiB/s", d, disk, 4);
    struct line net[] = {{"received", PROC_COLOR, L_NR}, {"sent", PROC2_COLOR, L_NS}};
    chart(b, "Network", "MiB/s", d, net, 2);
    if (d->have_pressure) {
        /* the whole machine's stalls; the job's own are in "Why it was slow" */
        struct line psi[] = {{"CPU", PROC_COLOR, L_PSI_CPU},
                             {"memory", PROC2_COLOR, L_PSI_MEM},
                             {"I/O", SYS2_COLOR, L_PSI_IO}};
        chart(b, "Pressure (whole system)", "% stalled", d, psi, 3);
    }
    buf_puts(b, "</div>\n");
    if (s->server.gpu_count == 0)
        buf_puts(b, "<p class=\"note\">No GPU was found on this machine: the GPU charts are left "
                   "out.</p>\n");
    else
        gpu_activity_note(b, &s->gpu_run);
}
