/* report.c - a self-contained HTML report of a run (no external file,
 * font or script): the page (report_html.c) filled with the summary's
 * cards, the charts (report_chart.c), who held the peaks (report_who.c),
 * why it was slow (report_slow.c), the statistics and recommendation, a
 * job's tasks and a sub-tracking file's code blocks. */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gpu_advice.h"
#include "report/report.h"
#include "report/report_chart.h"
#include "report/report_html.h"
#include "report/report_slow.h"
#include "report/report_who.h"
#include "stats/stats.h"
#include "subtrack/subtrack.h"
#include "common/buf.h"
#include "common/file_io.h"
#include "common/internal.h"
#include "common/num.h"
#include "common/row_source.h"
#include "common/units.h"
#include "common/summary/usage_write.h"

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
        report_duration_text(x->stop_time - x->start_time, dur, sizeof dur);
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
        if (report_chart_data(task, &rows, d) == 0)
            report_charts(b, task, d);
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

/* The recommended server's main fields, when the Keeper answered, and
 * what this run would have cost there and where it ran. */
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
            report_row(b, keys[i], json_object_get_string(v));
    }
    /* What this run would have cost there, and on the instance it ran on
     * (resource_tracker's run costs): the hourly price over the run. */
    json_object *price;
    char v[320], a[48], c[48];
    double rec_hour = json_object_object_get_ex(o, "min_price_ondemand", &price) &&
                              (json_object_is_type(price, json_type_double) ||
                               json_object_is_type(price, json_type_int))
                          ? json_object_get_double(price) : -1;
    struct run_cost cost;
    run_cost_of(rec_hour, extras ? extras->current_price_per_hour : 0, duration, &cost);
    if (cost.have_recommended) {
        usd_text(cost.recommended_run, a, sizeof a);
        report_duration_text(duration, c, sizeof c);
        snprintf(v, sizeof v, "%s (%s at $%g an hour, on demand)", a, c, cost.recommended_per_hour);
        report_row(b, "price of this run there", v);
    }
    if (cost.have_current) {
        usd_text(cost.current_run, a, sizeof a);
        snprintf(v, sizeof v, "%s (%s %s at $%g an hour)", a, cloud->vendor,
                 cloud->instance_type, cost.current_per_hour);
        report_row(b, "price of this run where it ran", v);
        if (cost.have_recommended) {
            usd_text(cost.saving_run, c, sizeof c);
            snprintf(v, sizeof v, "%s a run (%.1f %%)", c, cost.saving_percent);
            report_row(b, "saving with the recommended server", v);
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
    report_row(b, key, v);
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
        report_duration_text(br->total, v, sizeof v);
        report_text(b, v);
        buf_puts(b, "</td><td>");
        report_duration_text(blk->ncalls ? br->total / (double)blk->ncalls : 0, v, sizeof v);
        report_text(b, v);
        buf_printf(b, "</td><td>%.1f %%</td><td>%zu</td>",
                  s->duration > 0 ? 100.0 * br->total / s->duration : 0.0, br->rows);
        if (br->rows) {
            buf_printf(b, "<td>%.2f</td><td>", br->cpu_sum / (double)br->rows);
            human_bytes(v, sizeof v, br->mem_max * 1048576.0);
            report_text(b, v);
            buf_puts(b, "</td>");
            if (s->server.gpu_count > 0) {
                human_bytes(v, sizeof v, br->vram_max * 1048576.0);
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
    report_card(b, "", "Tasks", v, t);
    report_duration_text(j->stop_time - j->start_time, v, sizeof v);
    report_card(b, "", "Span", v, "first start to last stop");
    /* A resource no task used is left out, not shown as 0.00. */
    int gpus = job_used_gpu(j);
    if (gpus) {
        snprintf(v, sizeof v, "%.2f / %.2f / %.2f", j->imbalance_cpu, j->imbalance_memory,
                 j->imbalance_gpu);
        report_card(b, "", "Imbalance", v, "max / mean of CPU, memory, GPU over the tasks (1.00: even)");
    } else {
        snprintf(v, sizeof v, "%.2f / %.2f", j->imbalance_cpu, j->imbalance_memory);
        report_card(b, "", "Imbalance", v, "max / mean of CPU, memory over the tasks (1.00: even); no "
             "task used a GPU");
    }
    snprintf(v, sizeof v, "%zu late, %zu idle", j->nlate, j->nidle);
    report_duration_text(j->late_margin, t, sizeof t);
    char sub[160];
    snprintf(sub, sizeof sub, "late: stopped over %s after the median task; idle: under half "
             "its mean CPU", t);
    report_card(b, j->nlate || j->nidle ? "warn" : "", "Stragglers", v, sub);
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
        report_duration_text(x->start_time - j->start_time, v, sizeof v);
        buf_printf(b, "</td><td>+%s</td>", v);
        report_duration_text(x->stop_time - x->start_time, v, sizeof v);
        buf_printf(b, "<td>%s</td><td>", v);
        if (x->exit_status >= 0)
            buf_printf(b, "%d", x->exit_status);
        else
            buf_puts(b, "?");
        char pss[32], rss[32];
        human_bytes(pss, sizeof pss, x->stats.memory_max * 1024);
        human_bytes(rss, sizeof rss, x->peak_rss_mib * 1048576.0);
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
        human_bytes(m, sizeof m, g->accounting_main_peak);
        human_bytes(d, sizeof d, g->accounting_descendants_peak);
        snprintf(sub, sizeof sub, "the driver's per-process GPU memory high-water marks: main "
                 "%s, largest descendant %s; %d ended between samples and were seen only "
                 "there%s; the GPU peaks are never below them", m, d, g->accounting_unseen,
                 g->accounting_unattributed ? "; some ended unseen on a GPU others used too "
                                              "and are not counted" : "");
        report_card(b, "", "GPU accounting", v, sub);
    } else {
        snprintf(sub, sizeof sub, "sampled only: %s", g->accounting_reason);
        report_card(b, "warn", "GPU accounting", "off", sub);
    }
    if (g->throttle_available) {
        int worst = -1;
        for (int i = 1; i < GT_GPU_THROTTLE_REASONS; i++) /* idle is not a slowdown */
            if (g->throttle_share[i] > 0 && (worst < 0 || g->throttle_share[i] >
                                                             g->throttle_share[worst]))
                worst = i;
        if (worst < 0) {
            report_card(b, "", "GPU slowed", "no", "the clocks were never lowered for power, heat or "
                 "a setting while tracked");
        } else {
            snprintf(v, sizeof v, "%.0f%%", 100 * g->throttle_share[worst]);
            snprintf(sub, sizeof sub, "of the run the clocks were lowered by %s (the most "
                     "frequent reason)", gpu_throttle_name(worst));
            report_card(b, g->throttle_share[worst] > 0.1 ? "warn" : "", "GPU slowed", v, sub);
        }
    } else {
        report_card(b, "", "GPU slowed", "n/a", g->throttle_reason);
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
        report_card(b, bad ? "warn" : "", "GPU errors", v, sub);
    }
    if (g->job_energy_available) {
        char all[32];
        human_energy(v, sizeof v, g->job_energy_joules);
        snprintf(sub, sizeof sub, "the job's share %.0f%% of the selected GPUs' %s, by SM "
                 "utilization: an estimate", 100 * g->job_energy_share,
                 human_energy(all, sizeof all, s->usage.gpu_details.energy_joules));
        report_card(b, "", "GPU energy (job)", v, sub);
    }
    if (g->activity_available) {
        snprintf(v, sizeof v, "%.0f%%", g->activity_mean[0]);
        int n = snprintf(sub, sizeof sub, "the GPUs' own counters while the job used them:");
        for (int k = 0; k < GT_GPU_ACTIVITY_METRICS && n > 0 && (size_t)n < sizeof sub; k++)
            if (g->activity_read >> k & 1)
                n += snprintf(sub + n, sizeof sub - (size_t)n, " %s %.0f%% (peak %.0f%%)",
                              gpu_activity_name(k), g->activity_mean[k], g->activity_peak[k]);
        if (!(g->activity_read & 1u))
            snprintf(v, sizeof v, "n/a");
        report_card(b, g->activity_read & 1u && g->activity_mean[0] < 10 ? "warn" : "",
                    "GPU SM activity", v, sub);
    } else {
        report_card(b, "", "GPU SM activity", "n/a", g->activity_reason);
    }
    if (g->share_available) {
        snprintf(v, sizeof v, "%.0f%%", 100 * g->job_sm_share);
        snprintf(sub, sizeof sub, "the job's processes' SM time of the GPUs it used; other "
                 "processes' %.0f%%%s", 100 * g->others_sm_share,
                 g->shared_gpus ? ": a GPU was shared" : "");
        report_card(b, g->shared_gpus ? "warn" : "", "GPU share (job)", v, sub);
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

/* What the page says of a run beside its rows: its statistics and the
 * resources to ask for, and whether it was starved of CPU. */
struct report_figures {
    int have_stats; /* the rows gave statistics (at least a pair) */
    gt_stats st;
    gt_recommendation rec;
    int rec_by_group; /* memory asked from the job's cgroup peak */
    char starved[512]; /* gt_cpu_contention()'s sentence, "" when not */
};

static void figures_of(const gt_snapshot *s, const struct row_source *rows,
                       struct report_figures *f)
{
    gt_stats st;
    int have_stats = stats_of_rows(rows, s->series.interval, &st) == GT_OK;
    error_clear();
    gt_recommendation rec = {0};
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
    f->have_stats = have_stats;
    f->st = st;
    f->rec = rec;
    f->rec_by_group = rec_by_group;
    /* Starved of CPU (it waited for one): the CPU figures are a floor, and the
     * recommendation from them says so (a snapshot without a summary,
     * resource_tracker's, cannot say). */
    f->starved[0] = 0;
    if (!s->no_summary)
        cpu_contention(&s->usage, &s->cgroup, s->duration, f->starved, sizeof f->starved);
}

/* The code blocks of the sub-tracking file stf with what rows' pairs
 * inside their calls say, ranked by the time in their calls (*ranked, the
 * caller frees it and subtrack_blocks_free()s blocks). GT_OK, or the
 * failure (the file unreadable or malformed, the rows unreadable). */
static gt_status blocks_of(const char *stf, const struct row_source *rows,
                           struct subtrack_blocks *blocks, struct block_rows **ranked_out)
{
    struct block_rows *ranked = NULL;
    gt_status status = subtrack_blocks_read(stf, blocks);
    ranked = status == GT_OK ? calloc(blocks->n + 1, sizeof *ranked) : NULL;
    if (status == GT_OK && !ranked)
        status = error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", stf);
    struct block_fill fill = {blocks, ranked};
    if (status == GT_OK &&
        row_source_each_pair(rows, rows->count[GT_SERIES_KIND_PROCESS], block_add_pair,
                             &fill) != 0)
        status = error_set(GT_ERR_IO, "cannot read the run's rows: %s", strerror(errno));
    if (status != GT_OK) {
        subtrack_blocks_free(blocks);
        free(ranked);
        return status;
    }
    for (size_t k = 0; k < blocks->n; k++) {
        ranked[k].index = k;
        for (size_t c = 0; c < blocks->v[k].ncalls; c++)
            ranked[k].total += blocks->v[k].calls[c].stop - blocks->v[k].calls[c].start;
    }
    qsort(ranked, blocks->n, sizeof *ranked, by_total_time);
    *ranked_out = ranked;
    return GT_OK;
}

/* The page's header: the command, the host, the PID, the times and the
 * exit status. */
static void page_header(struct buf *b, const gt_snapshot *s)
{
    char t0[64], t1[64], dur[64];
    report_time_text(s->start_time, t0, sizeof t0);
    report_time_text(s->stop_time, t1, sizeof t1);
    report_duration_text(s->duration, dur, sizeof dur);
    buf_puts(b, "<div class=\"cmd\">");
    report_text(b, s->command && s->command[0] ? s->command : "(a program tracking itself)");
    buf_puts(b, "</div>\n<div class=\"meta\"><span>host ");
    report_text(b, s->host[0] ? s->host : "unknown");
    buf_printf(b, "</span><span>PID %d</span><span>", s->pid);
    report_text(b, t0);
    buf_puts(b, " &rarr; ");
    report_text(b, t1);
    buf_puts(b, "</span><span>");
    report_text(b, dur);
    buf_puts(b, "</span><span>");
    if (s->exit_status == 0)
        buf_puts(b, "<span class=\"badge ok\">exit 0</span>");
    else if (s->exit_status > 0)
        buf_printf(b, "<span class=\"badge bad\">exit %d</span>", s->exit_status);
    else
        buf_puts(b, "<span class=\"badge unk\">exit status unknown</span>");
    buf_puts(b, "</span></div>");
}

/* "Summary": the starved note, the caveats, the idle GPUs and the cards. */
static void summary_section(struct buf *b, const gt_snapshot *s, const struct report_figures *f)
{
    char t0[64], dur[64], v[128], sub[256];
    report_duration_text(s->duration, dur, sizeof dur);
    buf_puts(b, "<h2>Summary</h2>\n");
    if (f->starved[0]) {
        buf_puts(b, "<p class=\"note starved\" id=\"starved\"><b>CPU starved:</b> ");
        report_text(b, f->starved);
        buf_puts(b, ".</p>\n");
    }
    if (!s->no_summary)
        gt_measurement_caveats(&s->usage, &s->cgroup, caveat_note, b);
    report_idle_note(b, s);
    buf_puts(b, "<div class=\"cards\">\n");
    const gt_resource_usage *u = &s->usage;
    if (f->have_stats) {
        snprintf(v, sizeof v, "%.2f cores", f->st.cpu_usage_mean);
        snprintf(sub, sizeof sub, "mean; max %.2f", f->st.cpu_usage_max);
        report_card(b, "", "CPU", v, sub);
        human_bytes(v, sizeof v, f->st.memory_max * 1024);
        human_bytes(t0, sizeof t0, f->st.memory_mean * 1024);
        snprintf(sub, sizeof sub, "peak PSS of the rows (shared pages split among their "
                 "users); mean %s", t0);
        report_card(b, "", "Memory (PSS)", v, sub);
        if (s->server.gpu_count > 0) {
            snprintf(v, sizeof v, "%.2f GPUs", f->st.gpu_usage_mean);
            snprintf(sub, sizeof sub, "mean; max %.2f", f->st.gpu_usage_max);
            report_card(b, "", "GPU", v, sub);
            human_bytes(v, sizeof v, f->st.gpu_vram_max * 1048576.0);
            report_card(b, "", "GPU memory", v, "peak of the rows, tracked processes");
        } else {
            report_card(b, "", "GPU", "none", "no GPU was found on this machine");
        }
    }
    if (!s->no_summary) { /* a resource_tracker snapshot has no summary */
        human_bytes(v, sizeof v, u->max_ram.combined.total_rss * unit_bytes(u->max_ram.unit));
        report_card(b, "", "Peak RSS", v,
             "highest RSS of the tree (shared pages once), between rows too: never below the "
             "kernel's high-water marks; size memory requests on this");
    }
    report_card(b, "", "Duration", dur, "wall time");
    if (s->cpu_energy.struct_size && s->cpu_energy.available) {
        const gt_cpu_energy *e = &s->cpu_energy;
        char share[32];
        human_energy(v, sizeof v, e->package_joules);
        snprintf(sub, sizeof sub, "the whole machine's %d CPU package%s (RAPL)%s; the job's share "
                 "by CPU time %.0f%%: ~%s, an estimate", e->packages,
                 e->packages == 1 ? "" : "s", e->dram_available ? ", DRAM apart" : "",
                 100 * e->job_share,
                 human_energy(share, sizeof share, e->job_share * e->package_joules));
        report_card(b, "", "CPU energy", v, sub);
    }
    if (f->have_stats) {
        human_bytes(v, sizeof v, f->st.net_recv_bytes_sum);
        human_bytes(t0, sizeof t0, f->st.net_sent_bytes_sum);
        snprintf(sub, sizeof sub, "received; sent %s", t0);
        report_card(b, "", "Network", v, sub);
        snprintf(v, sizeof v, "%d vCPU, %d MiB", f->rec.cpu, f->rec.memory_mib);
        if (f->rec.gpu)
            snprintf(sub, sizeof sub, "%d GPU, %d MiB GPU memory", f->rec.gpu, f->rec.vram_mib);
        else
            snprintf(sub, sizeof sub, "no GPU");
        report_gpu_advice(s, sub + strlen(sub), sizeof sub - strlen(sub));
        if (f->rec_by_group)
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     gt_cgroup_reclaimable(&s->cgroup) > 0
                         ? "; memory from the job's cgroup peak less its page cache, + 20%%"
                         : "; memory from the job's cgroup peak + 20%%");
        else if (gt_cgroup_reclaimable(&s->cgroup) > 0)
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     "; the cgroup's page cache is not asked for");
        if (f->starved[0])
            snprintf(sub + strlen(sub), sizeof sub - strlen(sub),
                     "; the CPU may be low: the job was starved of CPU (above)");
        report_card(b, f->starved[0] ? "rec warn" : "rec", "Recommended", v, sub);
    }
    buf_puts(b, "</div>\n");
}

/* "Over time": the charts (a job's tasks' each), the code blocks shaded
 * on them and their table. */
static void over_time_section(struct buf *b, const gt_snapshot *s, const struct row_source *rows,
                              const char *stf, const struct subtrack_blocks *blocks,
                              const struct block_rows *ranked)
{
    buf_puts(b, "<h2>Over time</h2>\n");
    struct chart_data *d = malloc(sizeof *d); /* a few hundred kilobytes: not the stack */
    struct shading *shade = stf ? malloc(sizeof *shade) : NULL;
    if (d && report_chart_data(s, rows, d) == 0 && (!stf || shade)) {
        if (shade) {
            shade_blocks(shade, blocks, ranked, d);
            d->shade = shade;
        }
        report_charts(b, s, d);
    } else {
        b->failed = ENOMEM;
    }
    if (d && s->nother_tasks)
        tasks_over_time(b, s, d);
    free(d);
    free(shade);
    if (stf)
        blocks_table(b, s, blocks, ranked, stf);
}

/* "Statistics" (beside the history's, when given) and "Recommended
 * resources". */
static void statistics_section(struct buf *b, const gt_snapshot *s, const struct report_figures *f,
                               const gt_report_extras *extras)
{
    char v[128];
    buf_puts(b, "<h2>Statistics</h2>\n");
    const gt_report_extras *h = extras && extras->history_runs ? extras : NULL;
    const gt_stats *hs = h ? &h->history : &f->st;
    if (h)
        buf_printf(b, "<p class=\"note\">History: %zu earlier run%s of the same program "
                  "and script, beside each figure (the mean of their means, the largest of "
                  "their maxima).</p>\n",
                  h->history_runs, h->history_runs == 1 ? "" : "s");
    buf_puts(b, "<table>\n");
    snprintf(v, sizeof v, "%ld", f->st.samples);
    report_row(b, "rows", v);
    stat_row(b, "CPU usage (cores)", f->st.cpu_usage_mean, f->st.cpu_usage_max, h,
             hs->cpu_usage_mean, hs->cpu_usage_max);
    stat_row(b, "memory, PSS of the tracked processes at each row (MiB)",
             f->st.memory_mean / 1024, f->st.memory_max / 1024, h, hs->memory_mean / 1024,
             hs->memory_max / 1024);
    stat_row(b, "GPU usage (GPUs)", f->st.gpu_usage_mean, f->st.gpu_usage_max, h,
             hs->gpu_usage_mean, hs->gpu_usage_max);
    stat_row(b, "GPU memory (MiB)", f->st.gpu_vram_mean, f->st.gpu_vram_max, h, hs->gpu_vram_mean,
             hs->gpu_vram_max);
    stat_row(b, "GPUs in use", f->st.gpu_utilized_mean, f->st.gpu_utilized_max, h,
             hs->gpu_utilized_mean, hs->gpu_utilized_max);

    snprintf(v, sizeof v, "%.2f GiB", f->st.disk_space_used_max_gb);
    if (s->filesystems && s->filesystems[0]) {
        struct buf key;
        buf_init(&key, 0);
        buf_puts(&key, "disk space used on the machine (max; not the job's own), on ");
        buf_puts(&key, s->filesystems);
        report_row(b, key.failed || !key.data ? "disk space used on the machine (max)" : key.data, v);
        buf_free(&key);
    } else {
        report_row(b, "disk space used on the machine (max; every local filesystem, not the job's "
                "own: docs/series.md, \"Filesystems\")", v);
    }
    human_bytes(v, sizeof v, f->st.net_recv_bytes_sum);
    report_row(b, "network received", v);
    human_bytes(v, sizeof v, f->st.net_sent_bytes_sum);
    report_row(b, "network sent", v);
    if (h)
        snprintf(v, sizeof v, "%.3f s (history: %.3f s mean)", f->st.duration, hs->duration);
    else
        snprintf(v, sizeof v, "%.3f s", f->st.duration);
    report_row(b, "duration (rows)", v);
    buf_puts(b, "</table>\n<h2>Recommended resources</h2>\n<table>\n");
    snprintf(v, sizeof v, "%d", f->rec.cpu);
    report_row(b, "vCPUs (mean CPU usage, rounded, at least 1)", v);
    snprintf(v, sizeof v, "%d MiB", f->rec.memory_mib);
    report_row(b, "memory (peak PSS + 20 %, rounded up)", v);
    char advice[400], gpus[448];
    report_gpu_advice(s, advice, sizeof advice);
    if (advice[0])
        snprintf(gpus, sizeof gpus, "%d (%s)", f->rec.gpu, advice + 2); /* past "; " */
    else
        snprintf(gpus, sizeof gpus, "%d", f->rec.gpu);
    report_row(b, "GPUs (peak GPU usage, rounded)", gpus);
    char waited[800];
    if (s->gpu_idle.struct_size && gpu_wait_advice(&s->gpu_idle.wait, waited, sizeof waited))
        report_row(b, "what the GPU waited for", waited);
    snprintf(v, sizeof v, "%d MiB", f->rec.vram_mib);
    report_row(b, "GPU memory (peak + 20 %, rounded up)", v);
    buf_puts(b, "</table>\n");
}

/* "Server": the machine, its GPUs, the allocation and the cloud. */
static void server_section(struct buf *b, const gt_snapshot *s)
{
    char v[128];
    const gt_server_info *si = &s->server;
    buf_puts(b, "<h2>Server</h2>\n<table>\n");
    report_row(b, "hostname", si->hostname);
    report_row(b, "operating system", si->os);
    report_row(b, "kernel", si->kernel);
    report_row(b, "CPU", si->cpu_model);
    snprintf(v, sizeof v, "%d (this job may use %.2f)", si->vcpus, si->vcpus_usable);
    report_row(b, "vCPUs", v);
    if (si->memory_limit_mib > 0)
        snprintf(v, sizeof v, "%.0f MiB (cgroup limit %.0f MiB)", si->memory_mib,
                 si->memory_limit_mib);
    else
        snprintf(v, sizeof v, "%.0f MiB", si->memory_mib);
    report_row(b, "memory", v);
    snprintf(v, sizeof v, "%d", si->gpu_count);
    report_row(b, "GPUs", v);
    for (int i = 0; si->gpu_names && i < si->ngpu_names; i++)
        report_row(b, "GPU", si->gpu_names[i]);
    if (si->gpu_count) {
        snprintf(v, sizeof v, "%.0f MiB", si->gpu_memory_mib);
        report_row(b, "GPU memory", v);
    }
    report_row(b, "allocation", si->allocation);
    if (s->cloud.asked) {
        report_row(b, "cloud vendor", s->cloud.vendor);
        report_row(b, "instance type", s->cloud.instance_type);
        report_row(b, "region", s->cloud.region);
    }
    buf_puts(b, "</table>\n");

}

/* The summary as gpu_tracker prints it, in units chosen for reading. */
static void gpu_tracker_section(struct buf *b, const gt_snapshot *s)
{
    gt_resource_usage readable = readable_units(&s->usage);
    char *summary = usage_to_text(&readable);
    buf_puts(b, "<h2>gpu_tracker summary</h2>\n<p class=\"note\">As gpu_tracker prints it, in "
                "its decimal units (");
    report_text(b, readable.max_ram.unit);
    buf_puts(b, ": powers of 1000); the rest of this page is in binary units (MiB, GiB: "
                "powers of 1024).</p>\n<pre>");
    report_text(b, summary ? summary : "");
    free(summary);
    buf_puts(b, "</pre>\n");
}

char *report_html_rows(const gt_snapshot *s, const struct row_source *rows,
                       const char *server_json, const gt_report_extras *extras,
                       gt_status *status)
{
    *status = GT_OK;
    const char *stf = extras ? extras->sub_tracking_file : NULL;
    struct subtrack_blocks blocks = {0};
    struct block_rows *ranked = NULL;
    if (stf && (*status = blocks_of(stf, rows, &blocks, &ranked)) != GT_OK)
        return NULL;
    struct report_figures *f = malloc(sizeof *f);
    if (!f) {
        subtrack_blocks_free(&blocks);
        free(ranked);
        *status = error_set(GT_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    figures_of(s, rows, f);
    struct buf b;
    buf_init(&b, 65536);
    const char *page = report_page;
    report_page_until(&b, &page, "title");
    report_text(&b, s->command && s->command[0] ? s->command : "tracked run");
    report_page_until(&b, &page, "header");
    page_header(&b, s);
    report_page_until(&b, &page, "main");
    if (s->nother_tasks)
        job_section(&b, s);
    summary_section(&b, s, f);
    report_slow_section(&b, s, f->starved);
    gpu_section(&b, s);
    over_time_section(&b, s, rows, stf, &blocks, ranked);
    subtrack_blocks_free(&blocks);
    free(ranked);
    report_who_section(&b, s);
    if (f->have_stats)
        statistics_section(&b, s, f, extras);
    server_recommendation(&b, server_json, s->duration, extras, &s->cloud);
    server_section(&b, s);
    gpu_tracker_section(&b, s);
    free(f);
    report_page_until(&b, &page, "version");
    report_text(&b, s->tracker_version);
    report_page_until(&b, &page, NULL);
    char *html = buf_take(&b);
    if (!html)
        *status = error_set(GT_ERR_NO_MEMORY, "out of memory, or the rows could not be read");
    return html;
}

char *gt_snapshot_report_html(const gt_snapshot *s, const char *server_json,
                                 const gt_report_extras *extras)
{
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    gt_status status;
    return report_html_rows(s, &rows, server_json, extras, &status);
}

gt_status report_write_rows(const gt_snapshot *s, const struct row_source *rows,
                            const char *server_json, const gt_report_extras *extras,
                            const char *path)
{
    gt_status status;
    char *html = report_html_rows(s, rows, server_json, extras, &status);
    if (!html)
        return status == GT_ERR_NO_MEMORY
                   ? error_set(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory, or the rows "
                               "could not be read", path)
                   : status; /* its message says what (a sub-tracking file) */
    gt_status st = write_file_atomic(path, html, strlen(html));
    free(html);
    return st;
}

gt_status gt_snapshot_write_report(const gt_snapshot *s, const char *server_json,
                                      const gt_report_extras *extras, const char *path)
{
    error_clear();
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    return report_write_rows(s, &rows, server_json, extras, path);
}

