/* report.c - a self-contained HTML report of a run: no external file, font
 * or script; the charts are inline SVG drawn here, read on hover by one
 * inline script. */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/num.h"
#include "util/buf.h"
#include "util/file_io.h"
#include "util/internal.h"
#include "report/report.h"
#include "util/row_source.h"
#include "util/units.h"
#include "stats/stats.h"
#include "subtrack/subtrack.h"
#include "report/report_who.h"
#include "analysis/analysis.h"

/* ---- text into a growing buffer (util/buf.h) ---------------------------- */

/* ---- numbers for people ----------------------------------------------- */

static void fmt_time(double epoch, char *out, size_t cap)
{
    struct tm tm;
    /* A hand-made snapshot may hold anything: convert only what a clock can. */
    time_t t = epoch > 0 && epoch < 1e11 ? (time_t)epoch : 0;
    if (t <= 0 || !gmtime_r(&t, &tm)) {
        snprintf(out, cap, "unknown");
        return;
    }
    strftime(out, cap, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static void fmt_duration(double s, char *out, size_t cap)
{
    if (!(s >= 0) || s > 1e12) /* a hand-made snapshot: nothing to convert */
        snprintf(out, cap, "unknown");
    else if (s < 60)
        snprintf(out, cap, "%.1f s", s);
    else if (s < 3600)
        snprintf(out, cap, "%d min %02d s", (int)(s / 60), (int)((long long)s % 60));
    else
        snprintf(out, cap, "%.0f h %02d min", floor(s / 3600), (int)((long long)(s / 60) % 60));
}

/* Bytes in one of the summary's RAM units (decimal, as gpu_tracker's). */
static double unit_bytes(const char *unit)
{
    double bytes = units_ram_divisor(unit);
    return bytes > 0 ? bytes : 1;
}

/* The decimal RAM unit a person reads a size of bytes in: gigabytes from
 * 1 GB, else megabytes (the summary's unit names, not bytes with 9 digits). */
static const char *readable_ram_unit(double bytes)
{
    return bytes >= 1e9 ? "gigabytes" : "megabytes";
}

static void rescale_rss(gt_rss_values *v, double f)
{
    v->total_rss *= f;
    v->private_rss *= f;
    v->shared_rss *= f;
}

/* u in units chosen by size for the report's gpu_tracker block: a run made
 * with -f human keeps bytes and seconds (the units it computes in), and
 * "Total RSS: 118280192.0" is not for reading. A copy: its pointers are
 * u's, to be read while u lives, never freed. */
static gt_resource_usage readable_units(const gt_resource_usage *u)
{
    gt_resource_usage r = *u;
    double ram = unit_bytes(u->max_ram.unit);
    /* chosen by the job's peak, the figure read first */
    const char *ram_unit = readable_ram_unit(u->max_ram.combined.total_rss * ram);
    double f = ram / unit_bytes(ram_unit);
    snprintf(r.max_ram.unit, sizeof r.max_ram.unit, "%s", ram_unit);
    r.max_ram.system_capacity *= f;
    r.max_ram.system *= f;
    rescale_rss(&r.max_ram.main, f);
    rescale_rss(&r.max_ram.descendants, f);
    rescale_rss(&r.max_ram.combined, f);
    double gpu = unit_bytes(u->max_gpu_ram.unit);
    const char *gpu_unit = readable_ram_unit(u->max_gpu_ram.combined * gpu);
    f = gpu / unit_bytes(gpu_unit);
    snprintf(r.max_gpu_ram.unit, sizeof r.max_gpu_ram.unit, "%s", gpu_unit);
    r.max_gpu_ram.system_capacity *= f;
    r.max_gpu_ram.system *= f;
    r.max_gpu_ram.main *= f;
    r.max_gpu_ram.descendants *= f;
    r.max_gpu_ram.combined *= f;
    double per = units_time_divisor(u->compute_time.unit);
    double secs = u->compute_time.time * (per > 0 ? per : 1);
    const char *time_unit = secs < 120      ? "seconds"
                            : secs < 7200   ? "minutes"
                            : secs < 172800 ? "hours"
                                            : "days";
    snprintf(r.compute_time.unit, sizeof r.compute_time.unit, "%s", time_unit);
    r.compute_time.time = secs / units_time_divisor(time_unit);
    return r;
}

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
static const char *const shade_colors[MAX_SHADED] = {
    "#8e44ad", "#16a085", "#d35400", "#b03a2e", "#1f618d", "#7d6608", "#117a65", "#6c3483",
};

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

/* ---- the page ------------------------------------------------------------ */

/* Hover: the value of every line at the column under the pointer, in the
 * line below the chart, with a dashed cursor. Inline, so the page still
 * opens offline as one file. Opened with #hover-test, the page moves a
 * pointer over the middle of each chart itself and lists what the charts
 * said in <pre id="hover-test"> (the Chromium test reads it). */
static const char hover_script[] =
    "<script>(function(){\n"
    "function clock(s){s=Math.round(s);var h=Math.floor(s/3600),m=Math.floor(s/60)%60,x=s%60;"
    "return(h?h+':'+(m<10?'0':''):'')+m+':'+(x<10?'0':'')+x;}\n"
    "function setup(svg){var xs=svg.dataset.x.split(',').map(Number),lines=[];\n"
    " for(var i=0;svg.dataset['v'+i]!==undefined;i++)"
    "lines.push({label:svg.dataset['l'+i],v:svg.dataset['v'+i].split(',')});\n"
    " var pl=+svg.dataset.pl,pw=+svg.dataset.pw,pt=+svg.dataset.pt,ph=+svg.dataset.ph,"
    "span=+svg.dataset.span||1;\n"
    " var cur=document.createElementNS(svg.namespaceURI,'line');cur.setAttribute('class','cursor');"
    "cur.setAttribute('y1',pt);cur.setAttribute('y2',pt+ph);cur.style.display='none';"
    "svg.appendChild(cur);\n"
    " var tip=svg.parentNode.querySelector('.tip'),hint=tip.textContent;\n"
    " svg.addEventListener('mousemove',function(e){var r=svg.getBoundingClientRect();"
    "var px=(e.clientX-r.left)/r.width*svg.viewBox.baseVal.width;var t=(px-pl)/pw*span,best=0;\n"
    "  for(var i=1;i<xs.length;i++)if(Math.abs(xs[i]-t)<Math.abs(xs[best]-t))best=i;\n"
    "  var cx=pl+xs[best]/span*pw;cur.setAttribute('x1',cx);cur.setAttribute('x2',cx);"
    "cur.style.display='';\n"
    "  var parts=[clock(xs[best])];lines.forEach(function(l){parts.push(l.label+': '+l.v[best]+' '"
    "+svg.dataset.unit);});\n"
    "  if(svg.dataset.b){var m=+svg.dataset.b.split(',')[best],k=[];"
    "for(var i=0;svg.dataset['k'+i]!==undefined;i++)if(m>>i&1)k.push(svg.dataset['k'+i]);"
    "if(k.length)parts.push('in '+k.join(', '));}\n"
    "  if(svg.dataset.t){var ti=+svg.dataset.t.split(',')[best];"
    "if(ti>=0)parts.push('largest: '+svg.dataset['tk'+ti]);}\n"
    "  tip.textContent=parts.join('  \\u00b7  ');});\n"
    " svg.addEventListener('mouseleave',function(){cur.style.display='none';tip.textContent=hint;});"
    "\n}\n"
    "var svgs=document.querySelectorAll('svg[data-x]');[].forEach.call(svgs,setup);\n"
    "if(location.hash==='#hover-test'){var out=document.createElement('pre');out.id='hover-test';\n"
    " [].forEach.call(svgs,function(svg){var r=svg.getBoundingClientRect();"
    "svg.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+r.width*0.55,"
    "clientY:r.top+r.height/2}));\n"
    "  out.textContent+=svg.getAttribute('aria-label')+' @ '+"
    "svg.parentNode.querySelector('.tip').textContent+'\\n';});document.body.appendChild(out);}\n"
    "})();</script>\n";

static const char style[] =
    "<style>\n"
    ":root{--ink:#1d2433;--muted:#5b6577;--line:#e3e7ee;--bg:#f6f8fb;--card:#fff;"
    "--accent:#2f6fde;--ok:#1b8a4b;--bad:#c0392b}\n"
    "*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);"
    "font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif}\n"
    "header{background:#14213d;color:#fff;padding:22px 32px}header h1{margin:0 0 6px;"
    "font-size:22px;font-weight:600}header .cmd{font:14px/1.4 ui-monospace,'DejaVu Sans Mono',"
    "monospace;background:rgba(255,255,255,.1);padding:6px 10px;border-radius:6px;"
    "display:inline-block;word-break:break-all}\n"
    "header .meta{margin-top:10px;color:#c9d3e6;font-size:13px}header .meta span{margin-right:18px}\n"
    ".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;color:#fff}"
    ".badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}.badge.unk{background:#777}\n"
    "main{max-width:1100px;margin:0 auto;padding:24px 32px 40px}\n"
    "h2{font-size:17px;margin:28px 0 12px;font-weight:600}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:12px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:10px;"
    "padding:12px 14px}.card .k{color:var(--muted);font-size:12px;text-transform:uppercase;"
    "letter-spacing:.04em}.card .v{font-size:22px;font-weight:600;margin-top:2px}"
    ".card .s{color:var(--muted);font-size:12px}\n"
    ".card.rec{border-color:#b9cdf5;background:#f1f6ff}"
    ".card.warn{border-color:#f0c27b;background:#fff8ec}table.tasks{margin-top:12px}table.tasks th{width:auto}\n"
    ".charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:14px}\n"
    "figure.chart{margin:0;background:var(--card);border:1px solid var(--line);"
    "border-radius:10px;padding:10px 12px}figcaption{font-weight:600;margin-bottom:4px}\n"
    "svg{width:100%;height:auto;display:block}svg .grid{stroke:var(--line)}"
    "svg .axis{stroke:#9aa3b2}svg .tick{font-size:13px;fill:var(--muted)}"
    "svg .label{font-size:13px;fill:var(--muted)}\n"
    ".legend{font-size:12px;color:var(--muted)}.legend span{margin-right:14px}"
    ".tip{font-size:12px;min-height:1.4em;color:var(--fg,#222)}"
    "svg .cursor{stroke:#444;stroke-dasharray:3 3}"
    ".legend i{display:inline-block;width:12px;height:3px;margin-right:5px;vertical-align:middle}"
    ".legend i.blk{height:10px;opacity:.35}table.blocks th{width:auto}"
    "table i.blk{display:inline-block;width:10px;height:10px;margin-right:6px;opacity:.45}\n"
    "table{border-collapse:collapse;background:var(--card);border:1px solid var(--line);"
    "border-radius:10px;overflow:hidden;min-width:50%}td,th{padding:6px 12px;"
    "border-bottom:1px solid var(--line);text-align:left;vertical-align:top}"
    "th{color:var(--muted);font-weight:500;width:40%}\n"
    "pre{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px;"
    "font:12px/1.4 ui-monospace,'DejaVu Sans Mono',monospace;overflow:auto}\n"
    "footer{color:var(--muted);font-size:12px;margin-top:30px}\n"
    ".note{color:var(--muted);font-size:14px}\n"
    ".note.starved{border-left:4px solid var(--bad);padding-left:8px}"
    "ul.why{padding-left:28px;margin:0 0 12px}ul.why li{margin:2px 0}\n"
    /* who held a peak: fixed columns within the chart's box (two charts side
     * by side at 1280 px); the command line wraps, read in full (it is also
     * the cell's title) */
    "table.peak,table.processes{font-size:13px}table.peak{width:100%;border:0;"
    "table-layout:fixed;min-width:0}table.processes th{width:auto}"
    "table.peak th{width:74px}table.peak th.pid{width:56px}table.peak th.n{width:66px}"
    "table.peak th:first-child{width:auto}table.peak td,table.peak th{padding:4px 6px;"
    "white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    "td.cmd{font-family:ui-monospace,'DejaVu Sans Mono',monospace}"
    "table.peak td.cmd,table.peak td.unseen{white-space:normal;overflow-wrap:anywhere}\n"
    "details.task{background:var(--card);border:1px solid var(--line);border-radius:8px;"
    "margin:8px 0;padding:6px 12px}details.task summary{cursor:pointer;font-weight:600}\n"
    "</style>\n";

static void card(struct buf *b, const char *cls, const char *key, const char *value,
                 const char *sub)
{
    buf_printf(b, "<div class=\"card%s%s\"><div class=\"k\">", *cls ? " " : "", cls);
    report_text(b, key);
    buf_puts(b, "</div><div class=\"v\">");
    report_text(b, value);
    buf_puts(b, "</div><div class=\"s\">");
    report_text(b, sub);
    buf_puts(b, "</div></div>\n");
}

static void row(struct buf *b, const char *key, const char *value)
{
    buf_puts(b, "<tr><th>");
    report_text(b, key);
    buf_puts(b, "</th><td>");
    report_text(b, value);
    buf_puts(b, "</td></tr>\n");
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
static double finite_or_0(double v)
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

static int chart_data(const gt_snapshot *s, const struct row_source *rows, struct chart_data *d)
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

static void charts(struct buf *b, const gt_snapshot *s, struct chart_data *d)
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
}

/* A job of many tasks: the charts of the flagged tasks always, of the
 * others the first this many (a report of a thousand tasks' charts would
 * weigh tens of megabytes). */
#define MAX_TASK_CHARTS 64

/* Whether task t has its charts in the report (tasks_over_time), the tasks
 * asked in their order: *unflagged counts those not late or idle so far. */
static int task_charted(const gt_task_summary *t, size_t *unflagged)
{
    return t->late || t->idle || (*unflagged)++ < MAX_TASK_CHARTS;
}

/* A merged job: each task's own charts, one collapsible block a task (the
 * stragglers open), so that the task flagged late or idle, or the largest,
 * is a click away rather than absent; the job table links here. d is
 * scratch space for one task's chart data at a time. */
static void tasks_over_time(struct buf *b, const gt_snapshot *s, struct chart_data *d)
{
    gt_job_summary *j = NULL;
    if (gt_job_summarize(s, &j) != GT_OK)
        return;
    buf_puts(b, "<h2 id=\"tasks-over-time\">Each task over time</h2>\n");
    size_t left = 0, unflagged = 0;
    for (size_t i = 0; i < j->ntasks; i++) {
        const gt_snapshot *task = i ? s->other_tasks[i - 1] : s;
        const gt_task_summary *x = &j->tasks[i];
        if (!task_charted(x, &unflagged)) {
            left++;
            continue;
        }
        char dur[64];
        fmt_duration(x->stop_time - x->start_time, dur, sizeof dur);
        buf_printf(b, "<details class=\"task\" id=\"task-%zu\"%s><summary>task ", i,
                  x->late || x->idle ? " open" : "");
        report_text(b, x->job.task_rank[0] ? x->job.task_rank : "?");
        buf_puts(b, " (");
        report_text(b, x->job.node[0] ? x->job.node : x->host);
        buf_printf(b, "): %s, CPU mean %.2f cores%s%s</summary>\n", dur, x->stats.cpu_usage_mean,
                  x->late ? " <span class=\"badge bad\">late</span>" : "",
                  x->idle ? " <span class=\"badge unk\">idle</span>" : "");
        struct row_source rows;
        row_source_from_series(&rows, &task->series);
        if (chart_data(task, &rows, d) == 0)
            charts(b, task, d);
        else
            buf_puts(b, "<p class=\"note\">This task's rows could not be read.</p>\n");
        buf_puts(b, "</details>\n");
    }
    if (left)
        buf_printf(b, "<p class=\"note\">%zu more tasks, none of them late or idle, have no "
                  "charts here (at most %d besides the flagged ones): <code>gpu-tracker "
                  "report</code> of a task's own snapshot draws its charts.</p>\n", left,
                  MAX_TASK_CHARTS);
    gt_job_summary_free(j);
}

/* The recommended server's main fields, when the Keeper answered. */
/* "$0.0123" for a price in USD: cents and their fractions, as clouds bill. */
static void fmt_usd(double usd, char *out, size_t cap)
{
    snprintf(out, cap, "$%.*f", usd < 0.01 ? 6 : usd < 10 ? 4 : 2, usd);
}

static void server_recommendation(struct buf *b, const char *server_json, double duration,
                                  const gt_report_extras *extras, const gt_cloud_info *cloud)
{
    json_object *o = server_json ? json_tokener_parse(server_json) : NULL;
    if (!o || !json_object_is_type(o, json_type_object)) {
        if (o)
            json_object_put(o);
        return;
    }
    json_object *why;
    buf_puts(b, "<h2>Cheapest matching cloud server (Spare Cores Keeper)</h2>\n");
    if (json_object_object_get_ex(o, "unavailable", &why) && json_object_is_type(why, json_type_string)) {
        /* {"unavailable": reason}: asked for and not had, or not asked */
        buf_puts(b, "<p class=\"note\" id=\"server-unavailable\">No server recommendation: ");
        report_text(b, json_object_get_string(why));
        buf_puts(b, ".</p>\n");
        json_object_put(o);
        return;
    }
    buf_puts(b, "<table>\n");
    static const char *const keys[] = {"vendor_id", "api_reference", "display_name", "vcpus",
                                       "memory_amount", "gpu_count", "gpu_model",
                                       "min_price_ondemand"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_object *v;
        if (json_object_object_get_ex(o, keys[i], &v) && v)
            row(b, keys[i], json_object_get_string(v));
    }
    /* What this run would have cost there, and on the instance it ran on
     * (resource_tracker's run costs): the hourly price over the run. */
    json_object *price;
    char v[320], a[48], c[48];
    double hours = duration > 0 && isfinite(duration) ? duration / 3600 : 0;
    double rec_hour = json_object_object_get_ex(o, "min_price_ondemand", &price) &&
                              (json_object_is_type(price, json_type_double) ||
                               json_object_is_type(price, json_type_int))
                          ? json_object_get_double(price) : -1;
    if (rec_hour >= 0 && isfinite(rec_hour)) {
        fmt_usd(rec_hour * hours, a, sizeof a);
        fmt_duration(duration, c, sizeof c);
        snprintf(v, sizeof v, "%s (%s at $%g an hour, on demand)", a, c, rec_hour);
        row(b, "price of this run there", v);
    }
    double cur_hour = extras ? extras->current_price_per_hour : 0;
    if (cur_hour > 0 && isfinite(cur_hour)) {
        fmt_usd(cur_hour * hours, a, sizeof a);
        snprintf(v, sizeof v, "%s (%s %s at $%g an hour)", a, cloud->vendor,
                 cloud->instance_type, cur_hour);
        row(b, "price of this run where it ran", v);
        if (rec_hour >= 0 && isfinite(rec_hour)) {
            fmt_usd((cur_hour - rec_hour) * hours, c, sizeof c);
            snprintf(v, sizeof v, "%s a run (%.1f %%)", c, (cur_hour - rec_hour) / cur_hour * 100);
            row(b, "saving with the recommended server", v);
        }
    }
    buf_puts(b, "</table>\n");
    json_object_put(o);
}

/* A statistics row: this run's mean and max, and the history's beside them. */
static void stat_row(struct buf *b, const char *key, double mean, double max,
                     const gt_report_extras *h, double h_mean, double h_max)
{
    char v[160];
    if (h)
        snprintf(v, sizeof v, "%.2f mean, %.2f max (history: %.2f mean, %.2f max)", mean, max,
                 h_mean, h_max);
    else
        snprintf(v, sizeof v, "%.2f mean, %.2f max", mean, max);
    row(b, key, v);
}


/* ---- code blocks (a sub-tracking file) ------------------------------------ */

/* What the process rows inside a block's calls say. */
struct block_rows {
    size_t rows;
    double cpu_sum, mem_max, vram_max; /* cores, MiB (PSS), MiB */
    double total;                      /* seconds in its calls */
    size_t index;                      /* in the blocks, by name */
};

struct block_fill {
    const struct subtrack_blocks *blocks;
    struct block_rows *per;
};

static void block_add_pair(void *ctx, size_t i, const gt_process_row *pr, const gt_system_row *sr)
{
    (void)i;
    (void)sr;
    const struct block_fill *f = ctx;
    if (!pr || !isfinite(pr->timestamp))
        return;
    for (size_t k = 0; k < f->blocks->n; k++) {
        if (!subtrack_block_holds(&f->blocks->v[k], pr->timestamp))
            continue;
        struct block_rows *r = &f->per[k];
        r->rows++;
        r->cpu_sum += finite_or_0(pr->cpu_usage);
        r->mem_max = max_d(r->mem_max, (double)pr->memory / 1024.0);
        r->vram_max = max_d(r->vram_max, finite_or_0(pr->gpu_vram));
    }
}

static int by_total_time(const void *a, const void *b)
{
    const struct block_rows *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The blocks that took the most time, shaded on d's charts. */
static void shade_blocks(struct shading *sh, const struct subtrack_blocks *blocks,
                         const struct block_rows *ranked, const struct chart_data *d)
{
    memset(sh, 0, sizeof *sh);
    double xright = d->xspan > 0 && d->xspan <= 1e300 ? d->xspan : 1;
    for (size_t r = 0; r < blocks->n && sh->n < MAX_SHADED; r++) {
        const struct subtrack_block *blk = &blocks->v[ranked[r].index];
        int i = sh->n++;
        sh->name[i] = blk->name;
        for (size_t k = 0; k < blk->nmerged; k++) {
            double a = (blk->merged[k].start - d->t0) / xright * PLOT_W;
            double z = (blk->merged[k].stop - d->t0) / xright * PLOT_W;
            if (!(z >= 0) || !(a < PLOT_W))
                continue; /* outside the run */
            int c0 = a > 0 ? (int)a : 0;
            int c1 = z < PLOT_W ? (int)ceil(z) - 1 : PLOT_W - 1;
            for (int c = c0; c <= (c1 > c0 ? c1 : c0); c++)
                sh->on[i][c] = 1;
        }
    }
}

#define MAX_BLOCK_ROWS 100

/* The table of code blocks, the longest first. */
static void blocks_table(struct buf *b, const gt_snapshot *s, const struct subtrack_blocks *blocks,
                         const struct block_rows *ranked, const char *path)
{
    buf_puts(b, "<h2>Code blocks</h2>\n<p class=\"note\">From the sub-tracking file ");
    report_text(b, path);
    buf_puts(b, ": each block's calls (a start and a stop marked by the program), and what the "
               "tracked processes used in the rows taken inside them. The blocks that took the "
               "most time are shaded on the charts above.</p>\n<table class=\"blocks\">\n"
               "<tr><th>code block</th><th>calls</th><th>time in calls</th><th>mean call</th>"
               "<th>share of the run</th><th>rows inside</th><th>mean CPU (cores)</th>"
               "<th>peak memory (PSS)</th>");
    if (s->server.gpu_count > 0)
        buf_puts(b, "<th>peak GPU memory</th>");
    buf_puts(b, "</tr>\n");
    for (size_t r = 0; r < blocks->n && r < MAX_BLOCK_ROWS; r++) {
        const struct block_rows *br = &ranked[r];
        const struct subtrack_block *blk = &blocks->v[br->index];
        char v[64];
        buf_puts(b, "<tr><td>");
        if (r < MAX_SHADED)
            buf_printf(b, "<i class=\"blk\" style=\"background:%s\"></i>", shade_colors[r]);
        report_text(b, blk->name);
        buf_printf(b, "</td><td>%zu</td><td>", blk->ncalls);
        fmt_duration(br->total, v, sizeof v);
        report_text(b, v);
        buf_puts(b, "</td><td>");
        fmt_duration(blk->ncalls ? br->total / (double)blk->ncalls : 0, v, sizeof v);
        report_text(b, v);
        buf_printf(b, "</td><td>%.1f %%</td><td>%zu</td>",
                  s->duration > 0 ? 100.0 * br->total / s->duration : 0.0, br->rows);
        if (br->rows) {
            buf_printf(b, "<td>%.2f</td><td>", br->cpu_sum / (double)br->rows);
            gt_human_bytes(v, sizeof v, br->mem_max * 1048576.0);
            report_text(b, v);
            buf_puts(b, "</td>");
            if (s->server.gpu_count > 0) {
                gt_human_bytes(v, sizeof v, br->vram_max * 1048576.0);
                buf_puts(b, "<td>");
                report_text(b, v);
                buf_puts(b, "</td>");
            }
        } else {
            buf_printf(b, "<td>&ndash;</td><td>&ndash;</td>%s",
                      s->server.gpu_count > 0 ? "<td>&ndash;</td>" : "");
        }
        buf_puts(b, "</tr>\n");
    }
    buf_puts(b, "</table>\n");
    if (blocks->n > MAX_BLOCK_ROWS)
        buf_printf(b, "<p class=\"note\">%zu more blocks, shorter, are not listed "
                  "(<code>gpu-tracker sub-track analyze</code> gives every one).</p>\n",
                  blocks->n - MAX_BLOCK_ROWS);
    if (blocks->n == 0)
        buf_puts(b, "<p class=\"note\">The sub-tracking file has no marks.</p>\n");
}

/* Whether any task of j used a GPU (its rows say so): the job's maxima are
 * the tasks' summed. */
static int job_used_gpu(const gt_job_summary *j)
{
    const gt_stats *t = &j->total;
    return t->gpu_usage_max > 0 || t->gpu_vram_max > 0 || t->gpu_utilized_max > 0;
}

/* A merged job's own section: its tasks side by side, how evenly they
 * worked, the stragglers and the Slurm request; the rest of the report is
 * the first task's run. */
static void job_section(struct buf *b, const gt_snapshot *s)
{
    gt_job_summary *j = NULL;
    if (gt_job_summarize(s, &j) != GT_OK)
        return;
    char v[128], t[64];
    buf_puts(b, "<h2>Job</h2>\n<div class=\"cards\">\n");
    snprintf(v, sizeof v, "%zu on %d node%s", j->ntasks, j->nnodes, j->nnodes == 1 ? "" : "s");
    snprintf(t, sizeof t, "job %s", j->job.array_job_id[0] ? j->job.array_job_id : j->job.job_id);
    card(b, "", "Tasks", v, t);
    fmt_duration(j->stop_time - j->start_time, v, sizeof v);
    card(b, "", "Span", v, "first start to last stop");
    /* A resource no task used is left out, not shown as 0.00. */
    int gpus = job_used_gpu(j);
    if (gpus) {
        snprintf(v, sizeof v, "%.2f / %.2f / %.2f", j->imbalance_cpu, j->imbalance_memory,
                 j->imbalance_gpu);
        card(b, "", "Imbalance", v, "max / mean of CPU, memory, GPU over the tasks (1.00: even)");
    } else {
        snprintf(v, sizeof v, "%.2f / %.2f", j->imbalance_cpu, j->imbalance_memory);
        card(b, "", "Imbalance", v, "max / mean of CPU, memory over the tasks (1.00: even); no "
             "task used a GPU");
    }
    snprintf(v, sizeof v, "%zu late, %zu idle", j->nlate, j->nidle);
    fmt_duration(j->late_margin, t, sizeof t);
    char sub[160];
    snprintf(sub, sizeof sub, "late: stopped over %s after the median task; idle: under half "
             "its mean CPU", t);
    card(b, j->nlate || j->nidle ? "warn" : "", "Stragglers", v, sub);
    buf_puts(b, "</div>\n<table class=\"tasks\">\n<tr><th>task</th><th>node</th><th>start</th>"
               "<th>duration</th><th>exit</th><th>CPU mean / max</th><th>memory peak (PSS / "
               "RSS)</th>");
    if (gpus)
        buf_puts(b, "<th>GPU mean</th>");
    buf_puts(b, "<th>recommended</th><th></th></tr>\n");
    size_t unflagged = 0;
    for (size_t i = 0; i < j->ntasks; i++) {
        const gt_task_summary *x = &j->tasks[i];
        /* Each task's charts are a click away (tasks_over_time). */
        int linked = task_charted(x, &unflagged);
        if (linked)
            buf_printf(b, "<tr><td><a href=\"#task-%zu\">", i);
        else
            buf_puts(b, "<tr><td>");
        report_text(b, x->job.task_rank[0] ? x->job.task_rank : "?");
        if (x->job.array_task_id[0]) {
            buf_puts(b, " (array ");
            report_text(b, x->job.array_task_id);
            buf_puts(b, ")");
        }
        buf_puts(b, linked ? "</a></td><td>" : "</td><td>");
        report_text(b, x->job.node[0] ? x->job.node : x->host);
        fmt_duration(x->start_time - j->start_time, v, sizeof v);
        buf_printf(b, "</td><td>+%s</td>", v);
        fmt_duration(x->stop_time - x->start_time, v, sizeof v);
        buf_printf(b, "<td>%s</td><td>", v);
        if (x->exit_status >= 0)
            buf_printf(b, "%d", x->exit_status);
        else
            buf_puts(b, "?");
        char pss[32], rss[32];
        gt_human_bytes(pss, sizeof pss, x->stats.memory_max * 1024);
        gt_human_bytes(rss, sizeof rss, x->peak_rss_mib * 1048576.0);
        buf_printf(b, "</td><td>%.2f / %.2f</td><td>%s / %s</td>", x->stats.cpu_usage_mean,
                  x->stats.cpu_usage_max, pss, rss);
        if (gpus)
            buf_printf(b, "<td>%.2f</td>", x->stats.gpu_usage_mean);
        buf_printf(b, "<td>%d CPU, %d MiB%s", x->rec.cpu, x->rec.memory_mib,
                  x->rec.gpu ? ", " : "");
        if (x->rec.gpu)
            buf_printf(b, "%d GPU", x->rec.gpu);
        buf_printf(b, "</td><td>%s%s%s</td></tr>\n", x->late ? "<span class=\"badge bad\">late</span>" : "",
                  x->late && x->idle ? " " : "",
                  x->idle ? "<span class=\"badge unk\">idle</span>" : "");
    }
    buf_printf(b, "</table>\n<p class=\"note\">Ask Slurm next time for: <code>--ntasks=%zu "
                 "--cpus-per-task=%d --mem-per-cpu=%dM", j->ntasks, j->cpus_per_task,
              j->mem_per_cpu_mib);
    if (j->gpus_per_task)
        buf_printf(b, " --gpus-per-task=%d", j->gpus_per_task);
    buf_printf(b, "</code> (or per node: <code>--nodes=%d --ntasks-per-node=%d --mem=%dM</code>). "
                 "Each task as large as the largest one needs (its peak memory, PSS or RSS, "
                 "whichever is larger, + 20%%; its mean CPU). The summary, statistics and "
                 "charts that follow are task ",
              j->nnodes, j->max_tasks_per_node, j->mem_per_node_mib);
    report_text(b, j->tasks[0].job.task_rank[0] ? j->tasks[0].job.task_rank : "?");
    buf_puts(b, "'s; every task's charts are under <a href=\"#tasks-over-time\">Each task over "
                "time</a> (a task in the table links to its own).</p>\n");
    gt_job_summary_free(j);
}

/* What the GPU driver counted (gt_gpu_run): the accounting records behind
 * the GPU peaks (or why the peaks are sampled only), why the clocks were
 * lowered, errors, the job's share of the GPUs' energy. Shown when the run
 * had GPU figures; older snapshots have none. */
static void gpu_section(struct buf *b, const gt_snapshot *s)
{
    const gt_gpu_run *g = &s->gpu_run;
    if (!g->struct_size || s->no_summary || !s->usage.measurement.gpu_available)
        return;
    char v[64], sub[400], m[32], d[32];
    buf_puts(b, "<h2>GPUs: what the driver counted</h2>\n<div class=\"cards\">\n");
    if (g->accounting_available) {
        snprintf(v, sizeof v, "%d process%s", g->accounting_processes,
                 g->accounting_processes == 1 ? "" : "es");
        gt_human_bytes(m, sizeof m, g->accounting_main_peak);
        gt_human_bytes(d, sizeof d, g->accounting_descendants_peak);
        snprintf(sub, sizeof sub, "the driver's per-process GPU memory high-water marks: main "
                 "%s, largest descendant %s; %d ended between samples and were seen only "
                 "there%s; the GPU peaks are never below them", m, d, g->accounting_unseen,
                 g->accounting_unattributed ? "; some ended unseen on a GPU others used too "
                                              "and are not counted" : "");
        card(b, "", "GPU accounting", v, sub);
    } else {
        snprintf(sub, sizeof sub, "sampled only: %s", g->accounting_reason);
        card(b, "warn", "GPU accounting", "off", sub);
    }
    if (g->throttle_available) {
        int worst = -1;
        for (int i = 1; i < GT_GPU_THROTTLE_REASONS; i++) /* idle is not a slowdown */
            if (g->throttle_share[i] > 0 && (worst < 0 || g->throttle_share[i] >
                                                             g->throttle_share[worst]))
                worst = i;
        if (worst < 0) {
            card(b, "", "GPU slowed", "no", "the clocks were never lowered for power, heat or "
                 "a setting while tracked");
        } else {
            snprintf(v, sizeof v, "%.0f%%", 100 * g->throttle_share[worst]);
            snprintf(sub, sizeof sub, "of the run the clocks were lowered by %s (the most "
                     "frequent reason)", gt_gpu_throttle_name(worst));
            card(b, g->throttle_share[worst] > 0.1 ? "warn" : "", "GPU slowed", v, sub);
        }
    } else {
        card(b, "", "GPU slowed", "n/a", g->throttle_reason);
    }
    if (g->ecc_available || g->xid_available) {
        int bad = g->ecc_uncorrected > 0 || g->xid_events > 0;
        snprintf(v, sizeof v, "%.0f", g->ecc_uncorrected + (double)g->xid_events);
        if (g->ecc_available && g->xid_available)
            snprintf(sub, sizeof sub, "uncorrected ECC %.0f, corrected %.0f, XID events %ld%s",
                     g->ecc_uncorrected, g->ecc_corrected, g->xid_events,
                     g->xid_events ? " (see the driver's log: dmesg | grep Xid)" : "");
        else if (g->xid_available)
            snprintf(sub, sizeof sub, "XID events %ld; ECC: %s", g->xid_events, g->ecc_reason);
        else
            snprintf(sub, sizeof sub, "uncorrected ECC %.0f, corrected %.0f; XID: %s",
                     g->ecc_uncorrected, g->ecc_corrected, g->xid_reason);
        card(b, bad ? "warn" : "", "GPU errors", v, sub);
    }
    if (g->job_energy_available) {
        char all[32];
        gt_human_energy(v, sizeof v, g->job_energy_joules);
        snprintf(sub, sizeof sub, "the job's share %.0f%% of the selected GPUs' %s, by SM "
                 "utilization: an estimate", 100 * g->job_energy_share,
                 gt_human_energy(all, sizeof all, s->usage.gpu_details.energy_joules));
        card(b, "", "GPU energy (job)", v, sub);
    }
    buf_puts(b, "</div>\n");
}

/* A caveat of the figures (gt_measurement_caveats) as a note above the
 * cards: the sentence is escaped for the terminal, and for HTML here. */
static void caveat_note(const char *sentence, void *out)
{
    struct buf *b = out;
    buf_puts(b, "<p class=\"note\"><b>Caveat:</b> ");
    report_text(b, sentence);
    buf_puts(b, ".</p>\n");
}

/* A share of the run above which something that held the job back is
 * named as a reason it was slow (10 % of the run waiting, throttled, ...). */
#define SLOW_SHARE 0.1

/* One reason the job was slow, as a list item: what and the figure. */
static void slow_reason(struct buf *b, const char *what, const char *text)
{
    buf_printf(b, "<li><b>%s:</b> ", what);
    report_text(b, text);
    buf_puts(b, "</li>\n");
}

/* The verdict of "Why it was slow": each thing that held the job back
 * (starved of CPU, throttled by its quota, waiting for memory or I/O, OOM
 * kills, memory at its limit, the GPU's clocks lowered), or that nothing
 * did, with what was looked at. starved: gt_cpu_contention()'s sentence. */
static void slow_verdict(struct buf *b, const gt_snapshot *s, const char *starved)
{
    const gt_cgroup_usage *c = &s->cgroup;
    const gt_gpu_run *g = &s->gpu_run;
    char t[400], x[32], y[32];
    struct buf list = {0};
    if (starved[0]) /* said in full at the top of the summary: once */
        buf_puts(&list, "<li><b>Starved of CPU:</b> <a href=\"#starved\">see the summary</a>"
                        "</li>\n");
    if (c->available && c->cpu_available && c->throttle_periods > 0 &&
        (double)c->throttled_periods > SLOW_SHARE * (double)c->throttle_periods) {
        snprintf(t, sizeof t, "throttled in %ld of %ld periods by its cgroup's quota of %.2f "
                 "cores; ask for more cores or a larger quota", c->throttled_periods,
                 c->throttle_periods, c->cpu_quota);
        slow_reason(&list, "CPU quota", t);
    }
    if (c->available && c->pressure_available) {
        if (!starved[0] && c->cpu_some > SLOW_SHARE) {
            snprintf(t, sizeof t, "some of its tasks waited for a CPU %.0f%% of the run",
                     100 * c->cpu_some);
            slow_reason(&list, "Waiting for CPU", t);
        }
        if (c->memory_some > SLOW_SHARE) {
            snprintf(t, sizeof t, "some of its tasks waited for memory (reclaim, swap) %.0f%% "
                     "of the run: it ran short of memory", 100 * c->memory_some);
            slow_reason(&list, "Waiting for memory", t);
        }
        if (c->io_some > SLOW_SHARE) {
            snprintf(t, sizeof t, "some of its tasks waited for I/O %.0f%% of the run",
                     100 * c->io_some);
            slow_reason(&list, "Waiting for I/O", t);
        }
    }
    if (c->available && c->memory_available && c->oom_kills > 0) {
        snprintf(t, sizeof t, "%ld process%s killed by the OOM killer at the group's memory "
                 "limit", c->oom_kills, c->oom_kills == 1 ? "" : "es");
        slow_reason(&list, "Out of memory", t);
    } else if (c->available && c->memory_available && c->memory_limit > 0 &&
               c->memory_peak >= 0.9 * c->memory_limit) {
        gt_human_bytes(x, sizeof x, c->memory_peak);
        gt_human_bytes(y, sizeof y, c->memory_limit);
        snprintf(t, sizeof t, "the group peaked at %s, %.0f%% of its limit %s: the kernel "
                 "reclaims memory near it", x, 100 * c->memory_peak / c->memory_limit, y);
        slow_reason(&list, "Memory at its limit", t);
    }
    int gpu = g->struct_size && g->throttle_available && !s->no_summary &&
              s->usage.measurement.gpu_available;
    for (int i = 1; gpu && i < GT_GPU_THROTTLE_REASONS; i++) /* idle is not a slowdown */
        if (g->throttle_share[i] > SLOW_SHARE) {
            snprintf(t, sizeof t, "the clocks were lowered by %s %.0f%% of the run",
                     gt_gpu_throttle_name(i), 100 * g->throttle_share[i]);
            slow_reason(&list, "GPU slowed", t);
        }
    char waited[800];
    if (s->gpu_idle.struct_size && gpu_wait_advice(&s->gpu_idle.wait, waited, sizeof waited))
        slow_reason(&list, "GPU waited for its input", waited);
    if (list.len) {
        buf_puts(b, "<ul class=\"note starved why\" id=\"why-slow\">\n");
        buf_add(b, list.data, list.len);
        buf_puts(b, "</ul>\n");
        buf_free(&list);
        return;
    }
    /* Nothing: say what was looked at, so that "nothing" means something. */
    const char *looked[5];
    int n = 0;
    if (!s->no_summary && s->usage.measurement.cpu_wait_available)
        looked[n++] = "the run queue (time waiting for a CPU)";
    if (c->available)
        looked[n++] = "the job's cgroup (CPU quota, memory and I/O stalls, OOM kills)";
    if (gpu)
        looked[n++] = "the GPUs' clocks";
    if (s->gpu_idle.struct_size && s->gpu_idle.wait.gpu_seconds > 0)
        looked[n++] = "what the GPUs waited for (saturated workers, storage)";
    buf_puts(b, "<p class=\"note\" id=\"why-slow\"><b>Nothing held it back</b>");
    if (n == 0) {
        buf_puts(b, " that the figures can show: none of the run queue, a cgroup of its own "
                    "or the GPUs' clocks could be read.</p>\n");
        return;
    }
    buf_puts(b, ": no wait or slowdown above 10% of the run in ");
    for (int i = 0; i < n; i++) {
        buf_puts(b, i == 0 ? "" : i == n - 1 ? " and " : ", ");
        report_text(b, looked[i]);
    }
    buf_puts(b, ".</p>\n");
}

/* Why it was slow, or killed: the verdict, then the job's cgroup figures
 * (gt_cgroup_usage) as cards and its pressure stalls as bars. Older
 * snapshots have none of it. */
static void slow_section(struct buf *b, const gt_snapshot *s, const char *starved)
{
    const gt_cgroup_usage *c = &s->cgroup;
    if (!c->struct_size)
        return;
    buf_puts(b, "<h2>Why it was slow</h2>\n");
    slow_verdict(b, s, starved);
    if (!c->available) {
        buf_puts(b, "<p class=\"note\">No figures of the job's cgroup: ");
        report_text(b, c->created_reason[0] ? c->created_reason : c->reason);
        buf_puts(b, ". Run it with <code>--cgroup</code>, or in a cgroup of its own (a Slurm "
                   "step, a container), to see its memory high-water mark, OOM kills, CPU "
                   "throttling and pressure stalls.</p>\n");
        return;
    }
    char v[64], sub[256], t[64];
    if (c->incomplete) {
        buf_puts(b, "<p class=\"note\">These figures undercount the job: ");
        report_text(b, c->incomplete_reason);
        buf_puts(b, ".</p>\n");
    }
    buf_puts(b, "<div class=\"cards\">\n");
    if (c->memory_available) {
        gt_human_bytes(v, sizeof v, c->memory_peak);
        int near = c->memory_limit > 0 && c->memory_peak >= 0.9 * c->memory_limit;
        char lim[32] = "";
        if (c->memory_limit > 0)
            gt_human_bytes(lim, sizeof lim, c->memory_limit);
        char cache[128] = "";
        if (gt_cgroup_reclaimable(c) > 0) {
            char rb[32];
            gt_human_bytes(rb, sizeof rb, gt_cgroup_reclaimable(c));
            snprintf(cache, sizeof cache, "; %s of it page cache the kernel could reclaim", rb);
        }
        snprintf(sub, sizeof sub, "%s of the group (page cache included)%s%s%s%s",
                 c->memory_peak_kernel ? "the kernel's high-water mark" : "highest sample",
                 cache, c->memory_limit > 0 ? "; limit " : "", lim, near ? ": close to it" : "");
        card(b, near ? "warn" : "", "Group memory peak", v, sub);
        if (c->oom_kills > 0) {
            snprintf(v, sizeof v, "%ld killed", c->oom_kills);
            fmt_time(c->first_oom_kill_time, t, sizeof t);
            snprintf(sub, sizeof sub, "by the OOM killer at its memory limit; first seen at %s%s",
                     t, s->exit_status == 128 + 9 ? "; the command itself ended by SIGKILL "
                                                    "(exit 137)" : "");
            card(b, "warn", "OOM kills", v, sub);
        } else {
            snprintf(sub, sizeof sub, "no process was killed for memory; the limit was reached "
                     "%ld time%s", c->limit_hits, c->limit_hits == 1 ? "" : "s");
            card(b, "", "OOM kills", "none", sub);
        }
    } else {
        card(b, "", "Group memory peak", "n/a", c->memory_reason);
    }
    if (c->cpu_available) {
        if (c->cpu_quota > 0 && c->throttle_periods > 0) {
            fmt_duration(c->throttled_seconds, v, sizeof v);
            snprintf(sub, sizeof sub, "throttled in %ld of %ld periods by its quota of %.2f "
                     "cores", c->throttled_periods, c->throttle_periods, c->cpu_quota);
            card(b, c->throttled_periods * 20 > c->throttle_periods && c->throttled_periods
                        ? "warn" : "", "CPU throttled", v, sub);
        } else {
            card(b, "", "CPU throttled", "no", c->cpu_quota > 0
                                                   ? "no quota period ran out"
                                                   : "the group has no CPU quota");
        }
    }
    if (c->pressure_available) {
        double worst = c->cpu_some;
        const char *what = "CPU";
        if (c->memory_some > worst) {
            worst = c->memory_some;
            what = "memory";
        }
        if (c->io_some > worst) {
            worst = c->io_some;
            what = "I/O";
        }
        snprintf(v, sizeof v, "%.1f%%", 100 * worst);
        snprintf(sub, sizeof sub, "of the run some of its tasks waited for %s, the most "
                 "waited-for resource (pressure stall information)", what);
        card(b, worst > 0.1 ? "warn" : "", "Stalled", v, sub);
    }
    buf_puts(b, "</div>\n");
    if (!c->pressure_available) {
        buf_puts(b, "<p class=\"note\">No pressure figures: ");
        report_text(b, c->pressure_reason);
        buf_puts(b, ".</p>\n");
        return;
    }
    /* The pressure chart: for each resource, the share of the run in which
     * some of the group's tasks waited (light) and all of them did (dark). */
    static const char *const names[3] = {"CPU", "Memory", "I/O"};
    double some[3] = {c->cpu_some, c->memory_some, c->io_some};
    double full[3] = {c->cpu_full, c->memory_full, c->io_full};
    buf_puts(b, "<figure class=\"chart pressure\"><figcaption>Pressure stalls: share of the run "
               "the job's tasks waited</figcaption>\n<svg role=\"img\" aria-label=\"Pressure\" "
               "viewBox=\"0 0 640 130\">\n");
    for (int i = 0; i < 3; i++) {
        double y = 10 + 38.0 * i;
        buf_printf(b, "<text class=\"label\" x=\"0\" y=\"%.0f\">%s</text>", y + 18, names[i]);
        buf_printf(b, "<rect class=\"grid\" x=\"80\" y=\"%.0f\" width=\"460\" height=\"26\" "
                     "fill=\"none\"/>", y);
        buf_printf(b, "<rect class=\"some\" x=\"80\" y=\"%.0f\" width=\"%.1f\" height=\"26\" "
                     "fill=\"#9dbbf0\"><title>%s: some %.1f%%</title></rect>",
                  y, 460 * some[i], names[i], 100 * some[i]);
        buf_printf(b, "<rect class=\"full\" x=\"80\" y=\"%.0f\" width=\"%.1f\" height=\"26\" "
                     "fill=\"#2f6fde\"><title>%s: full %.1f%%</title></rect>",
                  y, 460 * full[i], names[i], 100 * full[i]);
        buf_printf(b, "<text class=\"tick\" x=\"548\" y=\"%.0f\">%.1f%% / %.1f%%</text>\n",
                  y + 18, 100 * some[i], 100 * full[i]);
    }
    buf_puts(b, "</svg>\n<div class=\"legend\"><span><i style=\"background:#9dbbf0\"></i>some "
               "tasks waited</span><span><i style=\"background:#2f6fde\"></i>all waited "
               "(full)</span></div></figure>\n");
}

char *report_html_rows(const gt_snapshot *s, const struct row_source *rows,
                       const char *server_json, const gt_report_extras *extras,
                       gt_status *status)
{
    *status = GT_OK;
    /* The 0.3 struct ends before sub_tracking_file. */
    if (extras && extras->struct_size < offsetof(gt_report_extras, sub_tracking_file)) {
        *status = gt_fail(GT_ERR_INVALID_ARGUMENT, "invalid gt_report_extras.struct_size %zu: "
                          "set it to sizeof(gt_report_extras)", extras->struct_size);
        return NULL;
    }
    const char *stf = extras && extras->struct_size >= sizeof(gt_report_extras)
                          ? extras->sub_tracking_file : NULL;
    struct subtrack_blocks blocks = {0};
    struct block_rows *ranked = NULL;
    if (stf) {
        *status = subtrack_blocks_read(stf, &blocks);
        ranked = *status == GT_OK ? calloc(blocks.n + 1, sizeof *ranked) : NULL;
        if (*status == GT_OK && !ranked)
            *status = gt_fail(GT_ERR_NO_MEMORY, "out of memory reading '%s'", stf);
        struct block_fill fill = {&blocks, ranked};
        if (*status == GT_OK &&
            row_source_each_pair(rows, rows->count[GT_SERIES_KIND_PROCESS], block_add_pair,
                                 &fill) != 0)
            *status = gt_fail(GT_ERR_IO, "cannot read the run's rows: %s", strerror(errno));
        if (*status != GT_OK) {
            subtrack_blocks_free(&blocks);
            free(ranked);
            return NULL;
        }
        for (size_t k = 0; k < blocks.n; k++) {
            ranked[k].index = k;
            for (size_t c = 0; c < blocks.v[k].ncalls; c++)
                ranked[k].total += blocks.v[k].calls[c].stop - blocks.v[k].calls[c].start;
        }
        qsort(ranked, blocks.n, sizeof *ranked, by_total_time);
    }
    struct buf b;
    buf_init(&b, 65536);
    gt_stats st;
    int have_stats = stats_of_rows(rows, s->series.interval, &st) == GT_OK;
    gt_clear_error();
    gt_recommendation rec = {.struct_size = sizeof rec};
    if (have_stats)
        gt_recommend(&st, &rec);
    /* The job's cgroup is what a memory limit is enforced on: its peak
     * (+20 %), less the page cache the kernel could have reclaimed, is the
     * least to ask for. */
    int rec_by_group = 0;
    if (have_stats && s->cgroup.struct_size && s->cgroup.available &&
        s->cgroup.memory_available) {
        int group_mib = gt_round_memory_mib(gt_cgroup_working_peak(&s->cgroup) * 1.2 / 1048576.0);
        rec_by_group = group_mib > rec.memory_mib;
        if (rec_by_group)
            rec.memory_mib = group_mib;
    }
    char t0[64], t1[64], dur[64], v[128], sub[256];
    fmt_time(s->start_time, t0, sizeof t0);
    fmt_time(s->stop_time, t1, sizeof t1);
    fmt_duration(s->duration, dur, sizeof dur);

    buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>");
    buf_puts(&b, "gpu-tracker report: ");
    report_text(&b, s->command && s->command[0] ? s->command : "tracked run");
    buf_puts(&b, "</title>\n");
    buf_puts(&b, style);
    buf_puts(&b, "</head><body>\n<header><h1>Resource usage report</h1>\n<div class=\"cmd\">");
    report_text(&b, s->command && s->command[0] ? s->command : "(a program tracking itself)");
    buf_puts(&b, "</div>\n<div class=\"meta\"><span>host ");
    report_text(&b, s->host[0] ? s->host : "unknown");
    buf_printf(&b, "</span><span>PID %d</span><span>", s->pid);
    report_text(&b, t0);
    buf_puts(&b, " &rarr; ");
    report_text(&b, t1);
    buf_puts(&b, "</span><span>");
    report_text(&b, dur);
    buf_puts(&b, "</span><span>");
    if (s->exit_status == 0)
        buf_puts(&b, "<span class=\"badge ok\">exit 0</span>");
    else if (s->exit_status > 0)
        buf_printf(&b, "<span class=\"badge bad\">exit %d</span>", s->exit_status);
    else
        buf_puts(&b, "<span class=\"badge unk\">exit status unknown</span>");
    buf_puts(&b, "</span></div></header>\n<main>\n");

    if (s->nother_tasks)
        job_section(&b, s);
    /* Starved of CPU (it waited for one): the CPU figures are a floor, and the
     * recommendation from them says so (a snapshot without a summary,
     * resource_tracker's, cannot say). */
    char starved[512] = "";
    if (!s->no_summary)
        cpu_contention(&s->usage, &s->cgroup, s->duration, starved, sizeof starved);
    buf_puts(&b, "<h2>Summary</h2>\n");
    if (starved[0]) {
        buf_puts(&b, "<p class=\"note starved\" id=\"starved\"><b>CPU starved:</b> ");
        report_text(&b, starved);
        buf_puts(&b, ".</p>\n");
    }
    if (!s->no_summary)
        gt_measurement_caveats(&s->usage, &s->cgroup, caveat_note, &b);
    report_idle_note(&b, s);
    buf_puts(&b, "<div class=\"cards\">\n");
    const gt_resource_usage *u = &s->usage;
    if (have_stats) {
        snprintf(v, sizeof v, "%.2f cores", st.cpu_usage_mean);
        snprintf(sub, sizeof sub, "mean; max %.2f", st.cpu_usage_max);
        card(&b, "", "CPU", v, sub);
        gt_human_bytes(v, sizeof v, st.memory_max * 1024);
        gt_human_bytes(t0, sizeof t0, st.memory_mean * 1024);
        snprintf(sub, sizeof sub, "peak PSS of the rows (shared pages split among their "
                 "users); mean %s", t0);
        card(&b, "", "Memory (PSS)", v, sub);
        if (s->server.gpu_count > 0) {
            snprintf(v, sizeof v, "%.2f GPUs", st.gpu_usage_mean);
            snprintf(sub, sizeof sub, "mean; max %.2f", st.gpu_usage_max);
            card(&b, "", "GPU", v, sub);
            gt_human_bytes(v, sizeof v, st.gpu_vram_max * 1048576.0);
            card(&b, "", "GPU memory", v, "peak of the rows, tracked processes");
        } else {
            card(&b, "", "GPU", "none", "no GPU was found on this machine");
        }
    }
    if (!s->no_summary) { /* a resource_tracker snapshot has no summary */
        gt_human_bytes(v, sizeof v, u->max_ram.combined.total_rss * unit_bytes(u->max_ram.unit));
        card(&b, "", "Peak RSS", v,
             "highest RSS of the tree (shared pages once), between rows too: never below the "
             "kernel's high-water marks; size memory requests on this");
    }
    card(&b, "", "Duration", dur, "wall time");
    if (s->cpu_energy.struct_size && s->cpu_energy.available) {
        const gt_cpu_energy *e = &s->cpu_energy;
        char share[32];
        gt_human_energy(v, sizeof v, e->package_joules);
        snprintf(sub, sizeof sub, "the whole machine's %d CPU package%s (RAPL)%s; the job's share "
                 "by CPU time %.0f%%: ~%s, an estimate", e->packages,
                 e->packages == 1 ? "" : "s", e->dram_available ? ", DRAM apart" : "",
                 100 * e->job_share,
                 gt_human_energy(share, sizeof share, e->job_share * e->package_joules));
        card(&b, "", "CPU energy", v, sub);
    }
    if (have_stats) {
        gt_human_bytes(v, sizeof v, st.net_recv_bytes_sum);
        gt_human_bytes(t0, sizeof t0, st.net_sent_bytes_sum);
        snprintf(sub, sizeof sub, "received; sent %s", t0);
        card(&b, "", "Network", v, sub);
        snprintf(v, sizeof v, "%d vCPU, %d MiB", rec.cpu, rec.memory_mib);
        if (rec.gpu)
            snprintf(sub, sizeof sub, "%d GPU, %d MiB GPU memory", rec.gpu, rec.vram_mib);
        else
            snprintf(sub, sizeof sub, "no GPU");
        report_gpu_advice(s, sub + strlen(sub), sizeof sub - strlen(sub));
        if (rec_by_group)
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     gt_cgroup_reclaimable(&s->cgroup) > 0
                         ? "; memory from the job's cgroup peak less its page cache, + 20%%"
                         : "; memory from the job's cgroup peak + 20%%");
        else if (gt_cgroup_reclaimable(&s->cgroup) > 0)
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     "; the cgroup's page cache is not asked for");
        if (starved[0])
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     "; the CPU may be low: the job was starved of CPU (above)");
        card(&b, starved[0] ? "rec warn" : "rec", "Recommended", v, sub);
    }
    buf_puts(&b, "</div>\n");
    slow_section(&b, s, starved);
    gpu_section(&b, s);

    buf_puts(&b, "<h2>Over time</h2>\n");
    struct chart_data *d = malloc(sizeof *d); /* a few hundred kilobytes: not the stack */
    struct shading *shade = stf ? malloc(sizeof *shade) : NULL;
    if (d && chart_data(s, rows, d) == 0 && (!stf || shade)) {
        if (shade) {
            shade_blocks(shade, &blocks, ranked, d);
            d->shade = shade;
        }
        charts(&b, s, d);
    } else {
        b.failed = ENOMEM;
    }
    if (d && s->nother_tasks)
        tasks_over_time(&b, s, d);
    free(d);
    free(shade);
    if (stf)
        blocks_table(&b, s, &blocks, ranked, stf);
    subtrack_blocks_free(&blocks);
    free(ranked);
    report_who_section(&b, s);

    if (have_stats) {
        buf_puts(&b, "<h2>Statistics</h2>\n");
        const gt_report_extras *h = extras && extras->history_runs ? extras : NULL;
        const gt_stats *hs = h ? &h->history : &st;
        if (h)
            buf_printf(&b, "<p class=\"note\">History: %zu earlier run%s of the same program "
                      "and script, beside each figure (the mean of their means, the largest of "
                      "their maxima).</p>\n",
                      h->history_runs, h->history_runs == 1 ? "" : "s");
        buf_puts(&b, "<table>\n");
        snprintf(v, sizeof v, "%ld", st.samples);
        row(&b, "rows", v);
        stat_row(&b, "CPU usage (cores)", st.cpu_usage_mean, st.cpu_usage_max, h,
                 hs->cpu_usage_mean, hs->cpu_usage_max);
        stat_row(&b, "memory, PSS of the tracked processes at each row (MiB)",
                 st.memory_mean / 1024, st.memory_max / 1024, h, hs->memory_mean / 1024,
                 hs->memory_max / 1024);
        stat_row(&b, "GPU usage (GPUs)", st.gpu_usage_mean, st.gpu_usage_max, h,
                 hs->gpu_usage_mean, hs->gpu_usage_max);
        stat_row(&b, "GPU memory (MiB)", st.gpu_vram_mean, st.gpu_vram_max, h, hs->gpu_vram_mean,
                 hs->gpu_vram_max);
        stat_row(&b, "GPUs in use", st.gpu_utilized_mean, st.gpu_utilized_max, h,
                 hs->gpu_utilized_mean, hs->gpu_utilized_max);

        snprintf(v, sizeof v, "%.2f GiB", st.disk_space_used_max_gb);
        if (s->filesystems && s->filesystems[0]) {
            struct buf key;
            buf_init(&key, 0);
            buf_puts(&key, "disk space used on the machine (max; not the job's own), on ");
            buf_puts(&key, s->filesystems);
            row(&b, key.failed || !key.data ? "disk space used on the machine (max)" : key.data, v);
            buf_free(&key);
        } else {
            row(&b, "disk space used on the machine (max; every local filesystem, not the job's "
                    "own: docs/series.md, \"Filesystems\")", v);
        }
        gt_human_bytes(v, sizeof v, st.net_recv_bytes_sum);
        row(&b, "network received", v);
        gt_human_bytes(v, sizeof v, st.net_sent_bytes_sum);
        row(&b, "network sent", v);
        if (h)
            snprintf(v, sizeof v, "%.3f s (history: %.3f s mean)", st.duration, hs->duration);
        else
            snprintf(v, sizeof v, "%.3f s", st.duration);
        row(&b, "duration (rows)", v);
        buf_puts(&b, "</table>\n<h2>Recommended resources</h2>\n<table>\n");
        snprintf(v, sizeof v, "%d", rec.cpu);
        row(&b, "vCPUs (mean CPU usage, rounded, at least 1)", v);
        snprintf(v, sizeof v, "%d MiB", rec.memory_mib);
        row(&b, "memory (peak PSS + 20 %, rounded up)", v);
        char advice[400], gpus[448];
        report_gpu_advice(s, advice, sizeof advice);
        if (advice[0])
            snprintf(gpus, sizeof gpus, "%d (%s)", rec.gpu, advice + 2); /* past "; " */
        else
            snprintf(gpus, sizeof gpus, "%d", rec.gpu);
        row(&b, "GPUs (peak GPU usage, rounded)", gpus);
        char waited[800];
        if (s->gpu_idle.struct_size && gpu_wait_advice(&s->gpu_idle.wait, waited, sizeof waited))
            row(&b, "what the GPU waited for", waited);
        snprintf(v, sizeof v, "%d MiB", rec.vram_mib);
        row(&b, "GPU memory (peak + 20 %, rounded up)", v);
        buf_puts(&b, "</table>\n");
    }
    server_recommendation(&b, server_json, s->duration, extras, &s->cloud);

    const gt_server_info *si = &s->server;
    buf_puts(&b, "<h2>Server</h2>\n<table>\n");
    row(&b, "hostname", si->hostname);
    row(&b, "operating system", si->os);
    row(&b, "kernel", si->kernel);
    row(&b, "CPU", si->cpu_model);
    snprintf(v, sizeof v, "%d (this job may use %.2f)", si->vcpus, si->vcpus_usable);
    row(&b, "vCPUs", v);
    if (si->memory_limit_mib > 0)
        snprintf(v, sizeof v, "%.0f MiB (cgroup limit %.0f MiB)", si->memory_mib,
                 si->memory_limit_mib);
    else
        snprintf(v, sizeof v, "%.0f MiB", si->memory_mib);
    row(&b, "memory", v);
    snprintf(v, sizeof v, "%d", si->gpu_count);
    row(&b, "GPUs", v);
    for (int i = 0; si->gpu_names && i < si->ngpu_names; i++)
        row(&b, "GPU", si->gpu_names[i]);
    if (si->gpu_count) {
        snprintf(v, sizeof v, "%.0f MiB", si->gpu_memory_mib);
        row(&b, "GPU memory", v);
    }
    row(&b, "allocation", si->allocation);
    if (s->cloud.asked) {
        row(&b, "cloud vendor", s->cloud.vendor);
        row(&b, "instance type", s->cloud.instance_type);
        row(&b, "region", s->cloud.region);
    }
    buf_puts(&b, "</table>\n");

    gt_resource_usage readable = readable_units(u);
    char *summary = gt_usage_to_text(&readable);
    buf_puts(&b, "<h2>gpu_tracker summary</h2>\n<p class=\"note\">As gpu_tracker prints it, in "
                "its decimal units (");
    report_text(&b, readable.max_ram.unit);
    buf_puts(&b, ": powers of 1000); the rest of this page is in binary units (MiB, GiB: "
                "powers of 1024).</p>\n<pre>");
    report_text(&b, summary ? summary : "");
    free(summary);
    buf_puts(&b, "</pre>\n");
    buf_puts(&b, hover_script);
    buf_puts(&b, "<footer>Generated by gpu-tracker ");
    report_text(&b, s->tracker_version);
    buf_puts(&b, ". Every figure is defined in gpu-tracker's docs/series.md and docs/snapshot.md."
                "</footer>\n</main></body></html>\n");
    char *html = buf_take(&b);
    if (!html)
        *status = gt_fail(GT_ERR_NO_MEMORY, "out of memory, or the rows could not be read");
    return html;
}

char *gt_snapshot_report_html_ex(const gt_snapshot *s, const char *server_json,
                                 const gt_report_extras *extras)
{
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    gt_status status;
    return report_html_rows(s, &rows, server_json, extras, &status);
}

char *gt_snapshot_report_html(const gt_snapshot *s, const char *server_json)
{
    return gt_snapshot_report_html_ex(s, server_json, NULL);
}

gt_status report_write_rows(const gt_snapshot *s, const struct row_source *rows,
                            const char *server_json, const gt_report_extras *extras,
                            const char *path)
{
    gt_status status;
    char *html = report_html_rows(s, rows, server_json, extras, &status);
    if (!html)
        return status == GT_ERR_NO_MEMORY
                   ? gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory, or the rows "
                             "could not be read", path)
                   : status; /* its message says what (a sub-tracking file) */
    gt_status st = write_file_atomic(path, html, strlen(html));
    free(html);
    return st;
}

gt_status gt_snapshot_write_report_ex(const gt_snapshot *s, const char *server_json,
                                      const gt_report_extras *extras, const char *path)
{
    gt_clear_error();
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    return report_write_rows(s, &rows, server_json, extras, path);
}

gt_status gt_snapshot_write_report(const gt_snapshot *s, const char *server_json, const char *path)
{
    return gt_snapshot_write_report_ex(s, server_json, NULL, path);
}
