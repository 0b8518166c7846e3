/* results_check.h - a stopped tracker's results read back through the
 * public JSON (gt_run_results_read, the tools) hold what the library's
 * struct getters give: the document they rewrite to is the library's own,
 * the totals are the public figures', and the command's -f human summary
 * made of either is the same text. Each test that makes a rich run (GPUs, the
 * cgroup, the energy, the peak holders) calls it on its tracker. Needs
 * src/cli/human.c linked in. */
#ifndef GT_RESULTS_CHECK_H
#define GT_RESULTS_CHECK_H

#include "check.h"
#include "gpu_tracker_tools.h"
#include "human.h"
#include "output/results.h"

/* The -f human text of parts, as the command makes it. */
static inline char *results_check_human(const gt_resource_usage *u, const gt_totals *totals,
                                        const gt_cgroup_usage *cg, const gt_cpu_energy *e,
                                        const gt_gpu_run *g, const gt_peak_breakdown *peaks,
                                        const gt_gpu_idle *idle, const gt_job_energy *energy,
                                        const gt_command_groups *procs)
{
    struct human_extras x = {
        .cg = cg, .cgroup_asked = 1, .energy = e, .gpu_run = g, .gpu_idle = idle,
        .job_energy = energy, .at_peak = peaks, .processes = procs, .verbose = 1,
    };
    return human_summary(u, totals, &x);
}

static inline void check_results_read_back(gt_tracker *t)
{
    gt_run_results *r = NULL;
    CHECK_MSG(gt_run_results_read(t, &r) == GT_OK, "%s", gt_last_error());
    if (!r)
        return;
    /* The document the parts read back rewrite to is the library's. */
    char *json = gt_tracker_to_json(t);
    char *again = results_document(&r->usage, r->cgroup, r->cpu_energy, r->gpu_run, r->at_peak,
                                   r->gpu_idle, r->job_energy, r->processes);
    CHECK(r->cgroup && r->cpu_energy && r->job_energy);
    CHECK_STR(again, json);
    free(again);
    free(json);
    /* The totals are the public figures. */
    double wall = -1, cpu_main = -1, cpu_descendants = -1, read_bytes = -1;
    CHECK(gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &wall) == GT_OK &&
          r->totals.wall_seconds == wall);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_MAIN_SECONDS, &cpu_main) == GT_OK &&
          r->totals.cpu_main_seconds == cpu_main);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_DESCENDANTS_SECONDS, &cpu_descendants) == GT_OK &&
          r->totals.cpu_descendants_seconds == cpu_descendants);
    CHECK((gt_tracker_figure(t, GT_FIGURE_READ_BYTES, &read_bytes) == GT_OK) ==
          r->totals.io_available && r->totals.read_bytes == read_bytes);
    /* What the command shows of either is the same. */
    gt_cgroup_usage *cg = calloc(1, sizeof *cg);
    gt_cpu_energy *e = calloc(1, sizeof *e);
    gt_gpu_run *g = calloc(1, sizeof *g);
    gt_peak_breakdown *peaks = calloc(2, sizeof *peaks);
    gt_gpu_idle *idle = calloc(1, sizeof *idle);
    gt_job_energy *energy = calloc(1, sizeof *energy);
    gt_command_groups *procs = calloc(1, sizeof *procs);
    CHECK(cg && e && g && peaks && idle && energy && procs);
    if (cg && e && g && peaks && idle && energy && procs) {
        cg->struct_size = sizeof *cg;
        e->struct_size = sizeof *e;
        g->struct_size = sizeof *g;
        peaks[0].struct_size = peaks[1].struct_size = sizeof *peaks;
        idle->struct_size = sizeof *idle;
        energy->struct_size = sizeof *energy;
        procs->struct_size = sizeof *procs;
        const gt_resource_usage *u = gt_tracker_usage(t);
        CHECK(u && gt_tracker_cgroup(t, cg) == GT_OK && gt_tracker_cpu_energy(t, e) == GT_OK &&
              gt_tracker_gpu_run(t, g) == GT_OK &&
              gt_tracker_at_peak(t, GT_PEAK_MEMORY, &peaks[0]) == GT_OK &&
              gt_tracker_at_peak(t, GT_PEAK_GPU_MEMORY, &peaks[1]) == GT_OK &&
              gt_tracker_gpu_idle(t, idle) == GT_OK && gt_tracker_energy(t, energy) == GT_OK &&
              gt_tracker_processes(t, procs) == GT_OK);
        char *direct = u ? results_check_human(u, &r->totals, cg, e, g, peaks, idle, energy,
                                               procs)
                         : NULL;
        char *read = results_check_human(&r->usage, &r->totals, r->cgroup, r->cpu_energy,
                                         r->gpu_run, r->at_peak, r->gpu_idle, r->job_energy,
                                         r->processes);
        CHECK_STR(read, direct);
        free(direct);
        free(read);
    }
    free(procs);
    free(energy);
    free(idle);
    free(peaks);
    free(g);
    free(e);
    free(cg);
    gt_run_results_free(r);
}

#endif
