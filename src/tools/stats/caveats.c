/* stats/caveats.c - where a run's figures are bounds rather than exact, in
 * sentences for people (gt_measurement_caveats, gpu_tracker_tools.h).
 *
 * The measurement carries the corners as data (gt_measurement: a process
 * whose children the kernel reaps, a main process whose peak cannot be
 * told from its children's); the JSON writes that data, and every output
 * for people (the human summary, the command's warnings beside the text
 * format, the report, Python) says it in these words, so that they tell
 * the same story. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_tools.h"
#include "common/units.h"
#include "common/toolkit.h"

/* A part of the peak no process can be given counts from this much: a
 * shell that ran a few commands before its exec (1-4 MiB each) is no
 * news; a launcher's helpers beside the job's own peak are. */
#define SPLIT_MATERIAL_MIB 8.0

/* MiB of a figure of max_ram (in its unit). */
static double ram_mib(const gt_resource_usage *u, double v)
{
    double divisor = units_ram_divisor(u->max_ram.unit);
    return divisor > 0 ? v * divisor / (1024.0 * 1024.0) : 0;
}

/* "3.1 to 409.0 MiB", or "at most 409.0 MiB" where no sample saw it. */
static void caveat_side(char *out, size_t cap, double seen, double at_most)
{
    if (seen > 0)
        snprintf(out, cap, "%.1f to %.1f MiB", seen / 1048576.0, at_most / 1048576.0);
    else
        snprintf(out, cap, "at most %.1f MiB", at_most / 1048576.0);
}

int gt_measurement_caveats(const gt_resource_usage *u, const gt_cgroup_usage *cg,
                           void (*each)(const char *sentence, void *arg), void *arg)
{
    if (!u || u->measurement.unknown)
        return 0;
    const gt_measurement *m = &u->measurement;
    int n = 0;
    char line[1024];
    if (m->unseen_children_pid > 0) {
        char *name = text_escape(m->unseen_children_command);
        int group = cg && cg->struct_size && cg->available && cg->memory_available;
        char exact[256];
        if (group && cg->cpu_available)
            snprintf(exact, sizeof exact,
                     "the job's cgroup counted every one of them: peak %.1f MiB (page cache "
                     "included), CPU %.2f s",
                     cg->memory_peak / (1024.0 * 1024.0), cg->cpu_seconds);
        else if (group)
            snprintf(exact, sizeof exact,
                     "the job's cgroup counted every one of them: peak %.1f MiB (page cache "
                     "included)", cg->memory_peak / (1024.0 * 1024.0));
        else
            snprintf(exact, sizeof exact,
                     "for figures that hold them, run it in a cgroup of its own (--cgroup), "
                     "a Slurm step or a container");
        snprintf(line, sizeof line,
                 "process %d (%s) ignores SIGCHLD, so the kernel reaps its children itself: "
                 "those that lived between two samples are missing from the peak RAM and the "
                 "CPU time; %s",
                 m->unseen_children_pid, name ? name : "?", exact);
        free(name);
        each(line, arg);
        n++;
    }
    if (m->rss_split_unknown &&
        m->rss_unattributed_bytes / (1024.0 * 1024.0) >= SPLIT_MATERIAL_MIB) {
        char main_side[64], desc_side[64];
        caveat_side(main_side, sizeof main_side, m->rss_main_sampled_bytes,
                    m->rss_main_at_most_bytes);
        caveat_side(desc_side, sizeof desc_side, m->rss_descendants_sampled_bytes,
                    m->rss_descendants_at_most_bytes);
        snprintf(line, sizeof line,
                 "the main process ended before a sample saw all of it, having waited for "
                 "children of its own: the kernel's peak of %.1f MiB is its own or one of "
                 "theirs, so main's peak is %s and descendants' %s",
                 ram_mib(u, u->max_ram.combined.total_rss), main_side, desc_side);
        each(line, arg);
        n++;
    }
    /* CPU in clock ticks over a short run: each process's figure is good
     * to a tick, said where that is 5 % of the run or more. */
    double seconds = u->compute_time.time * units_time_divisor(u->compute_time.unit);
    double tick = m->cpu_resolution_seconds;
    if (tick > 1e-6 && seconds > 0 && tick / seconds >= 0.05) {
        snprintf(line, sizeof line,
                 "the CPU time is counted in clock ticks of %.0f ms here (the processes' CPU "
                 "clocks could not be read: a PID namespace not ours): over this run of %.3g s "
                 "each process's CPU is good to about %.0f %% of the run, and no figure is "
                 "taken above what the cores can give",
                 tick * 1e3, seconds, tick / seconds * 100.0);
        each(line, arg);
        n++;
    }
    return n;
}
