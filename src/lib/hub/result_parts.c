/* result_parts.c - a tracker's results one part at a time, as structs
 * (gpu_tracker_internal.h): the job's cgroup, the CPUs' and the job's
 * energy, the GPU driver's figures, the idle GPUs, who held the peaks, the
 * processes by command; and the public JSON document made of them with
 * the summary (gt_tracker_to_json), which the command and the Python
 * module read them back from. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"
#include "pipeline/pipeline.h"
#include "analysis/analysis.h"

/* What gt_tracker_cpu_energy(), gt_tracker_gpu_run() and gt_tracker_energy()
 * share: the checks
 * of the caller's struct and the tracker's state, then fill(t, u, out)
 * under the lock, u the usage of the moment. what names the figures in the
 * state error. */
static gt_status fill_with_usage(gt_tracker *t, const char *fn, const char *type, void *out,
                                 size_t given, size_t expected, const char *what,
                                 void (*fill)(gt_tracker *, const gt_resource_usage *, void *))
{
    gt_status st = tracker_call_begin(t, fn, type, out, given, expected, 0, what);
    if (st != GT_OK)
        return st;
    gt_resource_usage *u = calloc(1, sizeof *u); /* filled in place: zeroed first */
    if (!u)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, t->state == STATE_STOPPED ? t->stop_time : monotonic_now(),
                  t->state == STATE_STOPPED, u);
    fill(t, u, out);
    pthread_mutex_unlock(&t->lock);
    free(u);
    return GT_OK;
}

static void fill_energy(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    results_energy(&t->res, &t->pipe, u, out);
}

gt_status gt_tracker_cpu_energy(gt_tracker *t, gt_cpu_energy *out)
{
    return fill_with_usage(t, "gt_tracker_cpu_energy", "gt_cpu_energy", out,
                           out ? out->struct_size : 0, sizeof(gt_cpu_energy), "energy figures",
                           fill_energy);
}

static void fill_gpu_run(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    /* The caller's per-GPU figures: the tracker's table, until the next call. */
    results_gpu_run(&t->res, &t->pipe, u, out, t->res.gpu_run_list);
}

gt_status gt_tracker_gpu_run(gt_tracker *t, gt_gpu_run *out)
{
    return fill_with_usage(t, "gt_tracker_gpu_run", "gt_gpu_run", out,
                           out ? out->struct_size : 0, sizeof(gt_gpu_run), "GPU figures", fill_gpu_run);
}

gt_status gt_tracker_cgroup(gt_tracker *t, gt_cgroup_usage *out)
{
    /* A caller's struct without incomplete* is given the fields it knows. */
    gt_status st = tracker_call_begin(t, "gt_tracker_cgroup", "gt_cgroup_usage", out,
                                      out ? out->struct_size : 0,
                                      offsetof(gt_cgroup_usage, incomplete), 0, "cgroup figures");
    if (st != GT_OK)
        return st;
    gt_cgroup_usage all = {.struct_size = sizeof all};
    pthread_mutex_lock(&t->lock);
    results_cgroup(&t->res, &t->pipe, &all);
    pthread_mutex_unlock(&t->lock);
    size_t size = out->struct_size < sizeof all ? out->struct_size : sizeof all;
    memcpy(out, &all, size);
    out->struct_size = size;
    return GT_OK;
}

static void fill_job_energy(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    gt_cpu_energy e = {.struct_size = sizeof e};
    results_energy(&t->res, &t->pipe, u, &e);
    energy_job(u, &e, t->cfg.o.carbon_intensity, t->cfg.o.pue, out);
}

gt_status gt_tracker_energy(gt_tracker *t, gt_job_energy *out)
{
    return fill_with_usage(t, "gt_tracker_energy", "gt_job_energy", out,
                           out ? out->struct_size : 0, sizeof(gt_job_energy), "energy figures",
                           fill_job_energy);
}

gt_status gt_tracker_gpu_idle(gt_tracker *t, gt_gpu_idle *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_gpu_idle", gt_gpu_idle, out, 0, "GPU figures");
    if (st != GT_OK)
        return st;
    pthread_mutex_lock(&t->lock);
    tracker_gpu_idle_now(t, out);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

gt_status gt_tracker_at_peak(gt_tracker *t, int kind, gt_peak_breakdown *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_at_peak", gt_peak_breakdown, out, 0,
                                      "peak yet");
    if (st != GT_OK)
        return st;
    if (kind != GT_PEAK_MEMORY && kind != GT_PEAK_GPU_MEMORY)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown peak kind %d; valid: GT_PEAK_MEMORY (0), "
                         "GT_PEAK_GPU_MEMORY (1)", kind);
    pthread_mutex_lock(&t->lock);
    gt_peak_breakdown both[2];
    tracker_at_peak_now(t, both);
    *out = both[kind];
    pthread_mutex_unlock(&t->lock);
    out->struct_size = sizeof *out;
    return GT_OK;
}

gt_status gt_tracker_processes(gt_tracker *t, gt_command_groups *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_processes", gt_command_groups, out, 0,
                                      "processes yet");
    if (st != GT_OK)
        return st;
    tracker_processes_now(t, out);
    return GT_OK;
}

char *gt_tracker_to_json(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    if (!u)
        return NULL;
    /* The parts as the calls above give them: a STOPPED run's do not
     * change between one call and the next. */
    struct document_parts {
        gt_cgroup_usage cgroup;
        gt_cpu_energy cpu_energy;
        gt_gpu_run gpu_run;
        gt_job_energy energy;
        gt_peak_breakdown peaks[2];
        gt_gpu_idle idle;
        gt_command_groups processes;
    } *p = calloc(1, sizeof *p);
    if (!p) {
        error_set(GT_ERR_NO_MEMORY, "out of memory for the summary");
        return NULL;
    }
    p->cgroup.struct_size = sizeof p->cgroup;
    p->cpu_energy.struct_size = sizeof p->cpu_energy;
    p->gpu_run.struct_size = sizeof p->gpu_run;
    p->energy.struct_size = sizeof p->energy;
    p->peaks[0].struct_size = p->peaks[1].struct_size = sizeof p->peaks[0];
    p->idle.struct_size = sizeof p->idle;
    p->processes.struct_size = sizeof p->processes;
    (void)gt_tracker_cgroup(t, &p->cgroup);
    (void)gt_tracker_cpu_energy(t, &p->cpu_energy);
    (void)gt_tracker_gpu_run(t, &p->gpu_run);
    (void)gt_tracker_energy(t, &p->energy);
    (void)gt_tracker_at_peak(t, GT_PEAK_MEMORY, &p->peaks[GT_PEAK_MEMORY]);
    (void)gt_tracker_at_peak(t, GT_PEAK_GPU_MEMORY, &p->peaks[GT_PEAK_GPU_MEMORY]);
    (void)gt_tracker_gpu_idle(t, &p->idle);
    (void)gt_tracker_processes(t, &p->processes);
    char *text = results_document(u, &p->cgroup, &p->cpu_energy, &p->gpu_run, p->peaks, &p->idle,
                                  &p->energy, &p->processes);
    free(p);
    return text;
}
