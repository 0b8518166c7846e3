/* report_slow.c - the report's "Why it was slow": the verdict (what held
 * the job back, or that nothing did) and the cards and the chart of
 * what was looked at: the job's cgroup (memory, OOM kills, CPU quota,
 * pressure), the CPU contention and the GPUs' clocks and waits. */
#define _GNU_SOURCE
#include <stdio.h>

#include "common/gpu_advice.h"
#include "report/report_html.h"
#include "report/report_slow.h"
#include "stats/stats.h"
#include "common/buf.h"
#include "common/toolkit.h"

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
        human_bytes(x, sizeof x, c->memory_peak);
        human_bytes(y, sizeof y, c->memory_limit);
        snprintf(t, sizeof t, "the group peaked at %s, %.0f%% of its limit %s: the kernel "
                 "reclaims memory near it", x, 100 * c->memory_peak / c->memory_limit, y);
        slow_reason(&list, "Memory at its limit", t);
    }
    int gpu = g->struct_size && g->throttle_available && !s->no_summary &&
              s->usage.measurement.gpu_available;
    for (int i = 1; gpu && i < GT_GPU_THROTTLE_REASONS; i++) /* idle is not a slowdown */
        if (g->throttle_share[i] > SLOW_SHARE) {
            snprintf(t, sizeof t, "the clocks were lowered by %s %.0f%% of the run",
                     gpu_throttle_name(i), 100 * g->throttle_share[i]);
            slow_reason(&list, "GPU slowed", t);
        }
    char waited[800];
    if (s->gpu_idle.struct_size && gpu_wait_advice(&s->gpu_idle.wait, waited, sizeof waited))
        slow_reason(&list, (s->gpu_idle.wait.verdict & (GT_GPU_WAIT_WORKERS |
                                                        GT_GPU_WAIT_STORAGE_BOUND))
                               ? "GPU waited for its input" : "GPU held back", waited);
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
void report_slow_section(struct buf *b, const gt_snapshot *s, const char *starved)
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
        human_bytes(v, sizeof v, c->memory_peak);
        int near = c->memory_limit > 0 && c->memory_peak >= 0.9 * c->memory_limit;
        char lim[32] = "";
        if (c->memory_limit > 0)
            human_bytes(lim, sizeof lim, c->memory_limit);
        char cache[128] = "";
        if (gt_cgroup_reclaimable(c) > 0) {
            char rb[32];
            human_bytes(rb, sizeof rb, gt_cgroup_reclaimable(c));
            snprintf(cache, sizeof cache, "; %s of it page cache the kernel could reclaim", rb);
        }
        snprintf(sub, sizeof sub, "%s of the group (page cache included)%s%s%s%s",
                 c->memory_peak_kernel ? "the kernel's high-water mark" : "highest sample",
                 cache, c->memory_limit > 0 ? "; limit " : "", lim, near ? ": close to it" : "");
        report_card(b, near ? "warn" : "", "Group memory peak", v, sub);
        if (c->oom_kills > 0) {
            snprintf(v, sizeof v, "%ld killed", c->oom_kills);
            report_time_text(c->first_oom_kill_time, t, sizeof t);
            snprintf(sub, sizeof sub, "by the OOM killer at its memory limit; first seen at %s%s",
                     t, s->exit_status == 128 + 9 ? "; the command itself ended by SIGKILL "
                                                    "(exit 137)" : "");
            report_card(b, "warn", "OOM kills", v, sub);
        } else {
            snprintf(sub, sizeof sub, "no process was killed for memory; the limit was reached "
                     "%ld time%s", c->limit_hits, c->limit_hits == 1 ? "" : "s");
            report_card(b, "", "OOM kills", "none", sub);
        }
    } else {
        report_card(b, "", "Group memory peak", "n/a", c->memory_reason);
    }
    if (c->cpu_available) {
        if (c->cpu_quota > 0 && c->throttle_periods > 0) {
            report_duration_text(c->throttled_seconds, v, sizeof v);
            snprintf(sub, sizeof sub, "throttled in %ld of %ld periods by its quota of %.2f "
                     "cores", c->throttled_periods, c->throttle_periods, c->cpu_quota);
            report_card(b, c->throttled_periods * 20 > c->throttle_periods && c->throttled_periods
                        ? "warn" : "", "CPU throttled", v, sub);
        } else {
            report_card(b, "", "CPU throttled", "no", c->cpu_quota > 0
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
        report_card(b, worst > 0.1 ? "warn" : "", "Stalled", v, sub);
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
