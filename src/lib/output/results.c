/* results.c - see results.h. */
#define _GNU_SOURCE
#include "output/results.h"
#include "common/summary/who_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/summary/cgroup_json.h"
#include "common/summary/run_parts_json.h"
#include "common/summary/usage_json.h"
#include "common/gpu_advice.h"
#include "common/buf.h"
#include "common/internal.h"
#include "common/json_write.h"
#include "common/toolkit.h"

int results_list_gpus(struct run_results *res, const struct gpu *g)
{
    int n = g->ndevices < GT_MAX_GPUS ? g->ndevices : GT_MAX_GPUS;
    if (n > 0 && (!(res->gpu_list = calloc((size_t)n, sizeof *res->gpu_list)) ||
                  !(res->gpu_run_list = calloc((size_t)n, sizeof *res->gpu_run_list))))
        return -1;
    for (int i = 0; i < n; i++) {
        gt_gpu_device *d = &res->gpu_list[i];
        text_copy(d->uuid, sizeof d->uuid, g->devices[i].uuid);
        text_copy(d->name, sizeof d->name, g->devices[i].name);
        d->memory_total = (double)g->devices[i].memory_total / res->units.gpu_ram_divisor;
        d->selected = g->devices[i].selected;
    }
    for (int i = 0; i < g->ndevices; i++)
        res->mig_instances += g->devices[i].mig;
    res->ngpu_list = n;
    return 0;
}

void results_free(struct run_results *res)
{
    free(res->gpu_list);
    free(res->gpu_run_list);
    res->gpu_list = NULL;
    res->gpu_run_list = NULL;
    res->ngpu_list = 0;
}

void results_take_reasons(struct run_results *res, const struct sample_reader *r)
{
    struct gpu_reasons *w = &res->why;
    text_copy(w->gpu, sizeof w->gpu, r->gpu_reason);
    const char *none = r->gpu_reason[0] ? r->gpu_reason : NULL;
    /* in a namespace, PIDs are translated where the GPUs' device files are
     * known; otherwise nothing of the driver's can be matched */
    const char *ns = r->in_pid_namespace && !r->pid_translation ? PID_NAMESPACE_REASON : NULL;
    text_copy(w->proc_memory, GT_REASON_LEN, none ? none : ns ? ns : r->gpu.proc_memory_reason);
    text_copy(w->proc_util, GT_REASON_LEN, none ? none : ns ? ns : r->gpu.proc_util_reason);
    text_copy(w->energy, GT_REASON_LEN, none ? none : r->gpu.energy_reason);
    text_copy(w->accounting, GT_REASON_LEN, none ? none : ns ? ns : r->gpu.accounting_reason);
    text_copy(w->throttle, GT_REASON_LEN, none ? none : r->gpu.throttle_reason);
    text_copy(w->ecc, GT_REASON_LEN, none ? none : r->gpu.ecc_reason);
    text_copy(w->xid, GT_REASON_LEN, none ? none : r->gpu.xid_reason);
    text_copy(w->mig, GT_REASON_LEN, none ? none : r->gpu.mig_util_reason);
    text_copy(w->activity, GT_REASON_LEN, none ? none : r->gpu.activity_reason);
    w->pids_unmatched = r->in_pid_namespace && !r->pid_translation;
}

/* The driver's per-process high-water marks, where it keeps them, are
 * lower bounds as VmHWM is for RAM: no GPU peak is reported below them. */
static void raise_to_accounting(const struct run_results *res, const struct pipeline *p,
                                gt_resource_usage *out)
{
    if (res->why.accounting[0] || res->sampled_only)
        return;
    unsigned long long main_peak, descendants_peak;
    gpu_run_acc_peaks(&p->gpu_run, &main_peak, &descendants_peak);
    gt_max_gpu_ram *g = &out->max_gpu_ram;
    double main_units = (double)main_peak / res->units.gpu_ram_divisor;
    double desc_units = (double)descendants_peak / res->units.gpu_ram_divisor;
    if (main_units > g->main)
        g->main = main_units;
    if (desc_units > g->descendants)
        g->descendants = desc_units;
    if (g->main > g->combined)
        g->combined = g->main;
    if (g->descendants > g->combined)
        g->combined = g->descendants;
}

void results_usage(const struct run_results *res, const struct pipeline *p,
                   double end_time, int complete, gt_resource_usage *out)
{
    usage_result(&p->acc, &res->units, end_time - res->start_time, out);
    gt_measurement *m = &out->measurement;
    m->complete = complete;
    m->lateness_mean_ms = res->lateness_n ? res->lateness_sum / (double)res->lateness_n * 1e3 : 0;
    m->lateness_max_ms = res->lateness_max * 1e3;
    m->skipped = res->skipped;
    m->sampled_only = res->sampled_only != 0;
    m->gpu_available = res->why.gpu[0] == '\0';
    text_copy(m->gpu_reason, sizeof m->gpu_reason, res->why.gpu);
    gt_gpu_details *d = &out->gpu_details;
    d->ndevices = res->ngpu_list;
    d->devices = res->gpu_list;
    text_copy(d->process_memory_reason, GT_REASON_LEN, res->why.proc_memory);
    text_copy(d->process_utilization_reason, GT_REASON_LEN, res->why.proc_util);
    text_copy(d->energy_reason, GT_REASON_LEN, res->why.energy);
    d->process_memory_available = !d->process_memory_reason[0];
    d->process_utilization_available = !d->process_utilization_reason[0];
    d->energy_available = !d->energy_reason[0];
    raise_to_accounting(res, p, out);
}

void results_cgroup(const struct run_results *res, const struct pipeline *p,
                    gt_cgroup_usage *out)
{
    const struct cgroup_reader *r = res->cg;
    const struct cgroup_own *own = res->own_cg;
    struct cgroup_reasons why = {
        .group = r->reason, .memory = r->memory_reason, .cpu = r->cpu_reason,
        .pressure = r->pressure_reason, .created = own->made,
        .created_reason = res->own_cg_asked && !own->made ? own->reason : NULL,
    };
    /* a group made without its memory controller says why */
    if (own->made && own->memory_reason[0])
        why.memory = own->memory_reason;
    cgroup_acc_fill(&p->cg, &why, out);
}

void results_energy(const struct run_results *res, const struct pipeline *p,
                    const gt_resource_usage *u, gt_cpu_energy *out)
{
    /* The job's share of the machine's CPU time: its cores over all cores
     * busy, both as means over the run. */
    double sys = u->cpu_utilization.system.mean_sum_percent;
    double job = u->cpu_utilization.combined.mean_sum_percent;
    energy_acc_fill(&p->energy, res->rapl->reason, res->rapl->npackages,
                    sys > 0 ? job / sys : 0, out);
}

void results_gpu_run(const struct run_results *res, const struct pipeline *p,
                     const gt_resource_usage *u, gt_gpu_run *out,
                     gt_gpu_run_device *table)
{
    const struct gpu_reasons *w = &res->why;
    struct gpu_run_reasons why = {
        .gpu = w->gpu, .accounting = w->accounting, .throttle = w->throttle, .ecc = w->ecc,
        .xid = w->xid, .energy = w->energy, .proc_util = w->proc_util,
        .pids = w->pids_unmatched && !w->gpu[0]
                    ? PID_NAMESPACE_REASON " and the GPUs' device files are not known to match "
                      "them by"
                    : NULL,
    };
    if (res->sampled_only)
        why.accounting = "not read (a plain sampler's comparison run)";
    else if (p->gpu_run_lost)
        why.accounting = "out of memory for the accounting records";
    gpu_run_acc_fill(&p->gpu_run, &why, res->ngpu_list, u->gpu_details.energy_joules, table, out);
    gpu_activity_fill(&p->gpu_activity, w->gpu[0] ? w->gpu : w->activity,
                      w->gpu[0] ? w->gpu : w->proc_util, res->ngpu_list, table, out);
    out->mig_instances = res->mig_instances;
    out->mig_utilization_available = out->mig_instances > 0 && !w->mig[0];
    text_copy(out->mig_utilization_reason, GT_REASON_LEN, out->mig_instances ? w->mig : "");
}

/* Where the figures beyond gpu_tracker's come from, as "measurement" says
 * for the rest. */
static json_object *sources_object(const gt_resource_usage *u, const gt_cgroup_usage *c,
                                   const gt_cpu_energy *e, const gt_gpu_run *g)
{
    json_object *src = json_object_new_object();
    if (c->memory_available)
        json_object_object_add(src, "cgroup.memory.peak",
                               json_new_text(c->memory_peak_kernel
                                                 ? "kernel group high-water mark" : "sampled"));
    if (c->available) {
        json_object_object_add(src, "cgroup.memory.at_peak_sample", json_new_text("sampled"));
        json_object_object_add(src, "cgroup.memory.oom_kills",
                               json_new_text("exact (kernel counter)"));
        json_object_object_add(src, "cgroup.cpu", json_new_text("exact (kernel counters)"));
        json_object_object_add(src, "cgroup.pressure", json_new_text("exact (kernel counters)"));
    }
    if (g && u->measurement.gpu_available)
        json_object_object_add(
            src, "max_gpu_ram",
            json_new_text(g->accounting_available
                              ? "sampled, and never below the driver's per-process "
                                "high-water marks (NVML accounting): exact lower bounds"
                              : "sampled: a GPU process that lives between two samples "
                                "is missed (see gpu_run.accounting)"));
    if (e->available)
        json_object_object_add(src, "cpu_energy",
                               json_new_text("the whole machine's (RAPL, per socket); "
                                             "job_share an estimate"));
    return src;
}

/* An advice line of the text summary, which is printed as it is: the
 * names in it (a process's command, an environment variable's value) are
 * the job's text, escaped. */
static void advice_line(struct buf *b, const char *advice)
{
    char *safe = text_escape_untrusted(advice);
    if (!safe) {
        b->failed = 1;
        return;
    }
    buf_printf(b, "   Advice: %s\n", safe);
    free(safe);
}

/* What the GPUs waited for, when a verdict: its lines. */
static int gpu_wait_text(const gt_gpu_wait *w, struct buf *b)
{
    char advice[800];
    if (!gpu_wait_advice(w, advice, sizeof advice))
        return 0;
    buf_puts(b, "GPU waiting:\n");
    if (w->verdict & (GT_GPU_WAIT_WORKERS | GT_GPU_WAIT_STORAGE_BOUND))
        buf_printf(b, "   The GPUs were under %.0f%% busy %.0f%% of the time the job used them\n",
                   GT_GPU_WAIT_BUSY_PERCENT, 100 * w->waiting_seconds / w->gpu_seconds);
    if ((w->verdict & GT_GPU_WAIT_THROTTLED) && w->throttle_read_seconds > 0)
        buf_printf(b, "   Their clocks were held down %.0f%% of the time (power %.0f%%, heat "
                   "%.0f%%)\n", 100 * w->throttled_seconds / w->throttle_read_seconds,
                   100 * w->power_seconds / w->throttle_read_seconds,
                   100 * w->thermal_seconds / w->throttle_read_seconds);
    if ((w->verdict & GT_GPU_WAIT_SMS_IDLE) && w->sm_read_seconds > 0)
        buf_printf(b, "   They were %.0f%% busy with %.0f%% of the SMs active %.0f%% of the "
                   "time\n", w->sm_idle_util_percent, w->sm_idle_sm_percent,
                   100 * w->sm_idle_seconds / w->sm_read_seconds);
    if (w->verdict & GT_GPU_WAIT_SHARED)
        buf_printf(b, "   Other processes took %.0f%% of GPU %d's time\n",
                   100 * w->shared_others_share, w->shared_gpu);
    advice_line(b, advice);
    return 1;
}

int gpu_activity_text(const gt_gpu_run *g, struct buf *b)
{
    int others = g->share_available && g->others_sm_share > 0;
    if (!g->activity_available && !others)
        return 0;
    buf_puts(b, "GPU activity:\n");
    char phrase[256];
    if (g->activity_available &&
        gpu_activity_phrase(g->activity_read, g->activity_mean, g->activity_peak, phrase,
                            sizeof phrase))
        buf_printf(b, "   %s of the GPU time the job used\n", phrase);
    if (g->share_available)
        buf_printf(b, "   The job's processes took %.0f%% of the SM time of the GPUs it used, "
                   "others %.0f%%\n", 100 * g->job_sm_share, 100 * g->others_sm_share);
    return 1;
}

int gpu_idle_text(const gt_gpu_idle *g, struct buf *b)
{
    char advice[640];
    int waited = g ? gpu_wait_text(&g->wait, b) : 0;
    if (!g || !gpu_advice(g, advice, sizeof advice))
        return waited;
    buf_puts(b, "GPUs held idle:\n");
    for (int i = 0; i < g->ndevices && i < 64; i++) {
        const gt_gpu_idle_device *d = &g->devices[i];
        char held[32];
        if (d->idle)
            buf_printf(b, "   GPU %d: %s held, idle (under %.0f%%) %.0f%% of the time it was "
                       "held\n", d->index, human_bytes(held, sizeof held, d->held_bytes),
                       g->threshold_percent, d->idle_percent);
    }
    advice_line(b, advice);
    return 1;
}

json_object *job_energy_json_object(const gt_job_energy *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(e->available));
    if (e->available) {
        json_object_object_add(o, "joules", json_object_new_double(e->joules));
        json_object_object_add(o, "joules_low", json_object_new_double(e->joules_low));
        json_object_object_add(o, "joules_high", json_object_new_double(e->joules_high));
    } else {
        json_object_object_add(o, "reason", json_new_text(e->reason));
    }
    json_object *gpu = json_object_new_object();
    json_object_object_add(gpu, "available", json_object_new_boolean(e->gpu_available));
    if (e->gpu_available) {
        json_object_object_add(gpu, "joules", json_object_new_double(e->gpu_joules));
        json_object_object_add(gpu, "uncertainty_percent",
                               json_object_new_double(e->gpu_uncertainty_percent));
        json_object_object_add(gpu, "method", json_new_text(
            "the selected GPUs' energy counters, read at the first and last samples"));
    } else {
        json_object_object_add(gpu, "reason", json_new_text(e->gpu_reason));
    }
    json_object_object_add(o, "gpu", gpu);
    json_object *cpu = json_object_new_object();
    json_object_object_add(cpu, "available", json_object_new_boolean(e->cpu_available));
    if (e->cpu_available) {
        json_object_object_add(cpu, "joules", json_object_new_double(e->cpu_joules));
        json_object_object_add(cpu, "joules_low", json_object_new_double(e->cpu_joules_low));
        json_object_object_add(cpu, "joules_high", json_object_new_double(e->cpu_joules_high));
        json_object_object_add(cpu, "method", json_new_text(
            "RAPL package and DRAM counters times the job's share of the machine's CPU time "
            "(an estimate: up to the sockets' whole energy)"));
    } else {
        json_object_object_add(cpu, "reason", json_new_text(e->cpu_reason));
    }
    json_object_object_add(o, "cpu", cpu);
    if (e->co2e_available) {
        json_object *co2 = json_object_new_object();
        json_object_object_add(co2, "grams", json_object_new_double(e->co2e_grams));
        json_object_object_add(co2, "grams_low", json_object_new_double(e->co2e_grams_low));
        json_object_object_add(co2, "grams_high", json_object_new_double(e->co2e_grams_high));
        json_object_object_add(co2, "carbon_intensity_g_per_kwh",
                               json_object_new_double(e->carbon_intensity));
        json_object_object_add(co2, "pue", json_object_new_double(e->pue));
        json_object_object_add(o, "co2e", co2);
    }
    return o;
}

char *results_document(const gt_resource_usage *u, const gt_cgroup_usage *c,
                       const gt_cpu_energy *e, const gt_gpu_run *g,
                       const gt_peak_breakdown *peaks, const gt_gpu_idle *idle,
                       const gt_job_energy *energy, const gt_command_groups *procs)
{
    json_object *root = usage_json_object(u);
    if (energy)
        json_object_object_add(root, "energy", job_energy_json_object(energy));
    if (idle && (idle->ndevices > 0 || idle->requested > 0))
        json_object_object_add(root, "gpu_idle", gpu_idle_json_object(idle));
    if (peaks && (peaks[0].available || peaks[1].available || peaks[0].unseen_holder))
        json_object_object_add(root, "at_peak", at_peak_json_object(peaks));
    if (procs && procs->available)
        json_object_object_add(root, "processes", processes_json_object(procs));
    json_object_object_add(root, "cgroup", cgroup_json_object(c));
    json_object_object_add(root, "cpu_energy", cpu_energy_json_object(e));
    if (g)
        json_object_object_add(root, "gpu_run", gpu_run_json_object(g));
    json_object *m = NULL;
    if (json_object_object_get_ex(root, "measurement", &m) && m)
        json_object_object_add(m, "sources", sources_object(u, c, e, g));
    return json_pretty_text(root);
}
