/* report_who.c - the report's parts that say who held the run's resources
 * (report_who.h). */
#include "report/report_who.h"

#include <stdio.h>
#include <string.h>

#include "common/gpu_advice.h"
#include "common/toolkit.h"

static void cell_bytes(struct buf *b, double v)
{
    char t[32];
    if (v < 0) {
        buf_puts(b, "<td>&ndash;</td>");
        return;
    }
    human_bytes(t, sizeof t, v);
    buf_printf(b, "<td>%s</td>", t);
}

void report_peak_figure(struct buf *b, const gt_snapshot *s, int kind)
{
    const gt_peak_breakdown *p = &s->at_peak[kind];
    if (!p->struct_size || !p->available || p->nprocesses <= 0)
        return;
    int memory = kind == GT_PEAK_MEMORY;
    char total[32], when[32];
    human_bytes(total, sizeof total, p->total_bytes);
    snprintf(when, sizeof when, "%.1f s", p->at_seconds);
    buf_printf(b, "<figure class=\"chart peak\" id=\"%s\"><figcaption>Who held the %s peak: "
               "%s, %s into the run</figcaption>\n<table class=\"peak\"><tr><th>process</th>"
               "<th class=\"pid\">PID</th><th>%s</th>%s<th class=\"n\">threads</th></tr>\n",
               memory ? "at-peak-memory" : "at-peak-gpu", memory ? "memory" : "GPU memory",
               total, when, memory ? "RSS" : "GPU memory",
               memory ? "<th title=\"own (private)\">own</th><th>PSS</th>" : "");
    if (memory && p->unseen_holder >= GT_RSS_PEAK_MAIN && p->unseen_holder <= GT_RSS_PEAK_EITHER) {
        /* the true peak came from a kernel record, above this sample */
        static const char *const whose[] = {
            [GT_RSS_PEAK_MAIN] = "the main process's",
            [GT_RSS_PEAK_DESCENDANT] = "a descendant's",
            [GT_RSS_PEAK_EITHER] = "the main process's or a child's (not told apart)"};
        char peak[32];
        human_bytes(peak, sizeof peak, p->unseen_bytes);
        buf_printf(b, "<tr><td colspan=\"6\" class=\"unseen\">The job's peak, %s, was %s, "
                   "between two samples (the kernel's record of it); the rows below are the "
                   "largest sample's.</td></tr>\n", peak, whose[p->unseen_holder]);
    }
    int n = p->nprocesses < GT_AT_PEAK_MAX ? p->nprocesses : GT_AT_PEAK_MAX;
    for (int i = 0; i < n; i++) {
        const gt_peak_process *e = &p->processes[i];
        buf_puts(b, "<tr><td class=\"cmd\" title=\"");
        report_text(b, e->cmdline);
        buf_puts(b, "\">");
        report_text(b, e->cmdline[0] ? e->cmdline : e->command[0] ? e->command : "?");
        if (e->role == 1)
            buf_puts(b, " <i>(main)</i>");
        buf_printf(b, "</td><td>%d</td>", e->pid);
        cell_bytes(b, e->bytes);
        if (memory) {
            cell_bytes(b, e->private_bytes);
            cell_bytes(b, e->pss_bytes);
        }
        buf_printf(b, "<td>%ld</td></tr>\n", e->threads);
    }
    if (p->others > 0) {
        buf_printf(b, "<tr><td>%ld other%s</td><td></td>", p->others, p->others == 1 ? "" : "s");
        cell_bytes(b, p->others_bytes);
        if (memory) {
            cell_bytes(b, p->others_private_bytes);
            buf_puts(b, "<td></td>");
        }
        buf_puts(b, "<td></td></tr>\n");
    }
    if (memory && p->shared_bytes > 0) {
        buf_puts(b, "<tr><td title=\"pages they share (counted once)\">pages they share "
                    "(counted once)</td><td></td><td></td>");
        cell_bytes(b, p->shared_bytes);
        buf_puts(b, "<td></td><td></td></tr>\n");
    }
    buf_puts(b, "</table>\n");
    if (memory)
        buf_puts(b, "<div class=\"legend\">Own memory and the shared pages add up to the peak; "
                    "hover over the memory chart to see who was largest at each moment.</div>");
    buf_puts(b, "</figure>\n");
}

void report_idle_note(struct buf *b, const gt_snapshot *s)
{
    char advice[640];
    if (!gpu_advice(&s->gpu_idle, advice, sizeof advice))
        return;
    buf_puts(b, "<p class=\"note starved\" id=\"gpu-idle\"><b>GPUs to give back:</b> ");
    for (int i = 0; i < s->gpu_idle.ndevices && i < 64; i++) {
        const gt_gpu_idle_device *d = &s->gpu_idle.devices[i];
        if (!d->idle)
            continue;
        char held[32];
        human_bytes(held, sizeof held, d->held_bytes);
        buf_printf(b, "GPU %d: %s held, idle %.0f %% of the time it was held. ", d->index, held,
                   d->idle_percent);
    }
    report_text(b, advice);
    buf_puts(b, ".</p>\n");
}

void report_gpu_advice(const gt_snapshot *s, char *out, size_t cap)
{
    char advice[512];
    out[0] = '\0';
    if (gpu_advice(&s->gpu_idle, advice, sizeof advice))
        snprintf(out, cap, "; %s", advice);
}

void report_who_section(struct buf *b, const gt_snapshot *s)
{
    const gt_command_groups *g = &s->processes;
    int have_gpu_peak = s->at_peak[GT_PEAK_GPU_MEMORY].struct_size &&
                        s->at_peak[GT_PEAK_GPU_MEMORY].available;
    if (!(g->struct_size && g->available) && !have_gpu_peak)
        return;
    buf_puts(b, "<h2 id=\"who\">Who held it</h2>\n");
    if (have_gpu_peak) {
        buf_puts(b, "<div class=\"charts\">\n");
        report_peak_figure(b, s, GT_PEAK_GPU_MEMORY);
        buf_puts(b, "</div>\n");
    }
    if (!(g->struct_size && g->available))
        return;
    buf_printf(b, "<p class=\"note\">%ld process%s in %ld command%s, grouped by command; CPU "
               "time as the samples saw it", g->processes, g->processes == 1 ? "" : "es",
               g->commands, g->commands == 1 ? "" : "s");
    if (g->unseen_cpu_seconds >= 0.05)
        buf_printf(b, " (%.1f s more was used where no sample saw it: after processes' last "
                   "samples, or by processes that lived between two)",
                   g->unseen_cpu_seconds);
    if (g->folded > 0)
        buf_printf(b, "; %ld processes past the 1024th command counted under (others)",
                   g->folded);
    buf_puts(b, ".</p>\n<table class=\"processes\" id=\"processes\"><tr><th>command</th>"
                "<th>processes</th><th>at once (most)</th><th>CPU time</th>"
                "<th>peak memory (PSS, together)</th></tr>\n");
    for (int i = 0; i < g->ngroups && i < GT_COMMAND_GROUPS_MAX; i++) {
        const gt_command_group *e = &g->groups[i];
        buf_puts(b, "<tr><td class=\"cmd\">");
        report_text(b, e->command[0] ? e->command : "?");
        buf_printf(b, "</td><td>%ld</td><td>%ld</td><td>%.1f s</td>", e->processes,
                   e->peak_concurrent, e->cpu_seconds);
        cell_bytes(b, e->peak_pss_bytes);
        buf_puts(b, "</tr>\n");
    }
    if (g->others > 0)
        buf_printf(b, "<tr><td>%ld other command%s</td><td>%ld</td><td></td><td>%.1f s</td>"
                   "<td></td></tr>\n", g->others, g->others == 1 ? "" : "s",
                   g->others_processes, g->others_cpu_seconds);
    buf_puts(b, "</table>\n");
}

/* The most distinct top processes the hover names; later ones are
 * "another process". */
#define TOP_NAMES 64

void report_top_hover(struct buf *b, const gt_snapshot *s, const double *x, int ncols)
{
    if (!s->top_processes || s->ntop_processes == 0 || ncols <= 0)
        return;
    /* Names are "command (PID n)", each given once (data-tk<i>). */
    int npid = 0;
    int pids[TOP_NAMES];
    const char *names[TOP_NAMES];
    buf_puts(b, " data-t=\"");
    /* A row is stamped with its scheduled time, the walk that saw the
     * change ran a little after: half an interval of slack. */
    double slack = s->interval > 0 && s->interval < 1e6 ? s->interval / 2 : 0;
    size_t at = 0;
    for (int c = 0; c < ncols; c++) {
        while (at + 1 < s->ntop_processes && s->top_processes[at + 1].at <= x[c] + slack)
            at++;
        const gt_top_process *e = &s->top_processes[at];
        int k = -1;
        if (e->at <= x[c] + slack) {
            for (k = 0; k < npid && !(pids[k] == e->pid && strcmp(names[k], e->command) == 0);)
                k++;
            if (k == npid && npid < TOP_NAMES) {
                pids[npid] = e->pid;
                names[npid++] = e->command;
            } else if (k == npid) {
                k = TOP_NAMES; /* past the names kept */
            }
        }
        buf_printf(b, "%s%d", c ? "," : "", k);
    }
    buf_puts(b, "\"");
    for (int k = 0; k < npid; k++) {
        buf_printf(b, " data-tk%d=\"", k);
        report_text(b, names[k][0] ? names[k] : "?");
        buf_printf(b, " (PID %d)\"", pids[k]);
    }
    buf_printf(b, " data-tk%d=\"another process\"", TOP_NAMES);
}
