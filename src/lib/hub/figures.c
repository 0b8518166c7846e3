/* figures.c - gt_tracker_figure(): a run's figures one at a time, in fixed
 * units (bytes, seconds, percent, joules, grams) whatever the options'
 * units, from the same parts as the JSON summary (output/results.h), so
 * that the two never disagree. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/background.h"

/* What a figure may come from, as of the moment asked (gather fills the
 * part the figure asked for, the rest stays zero). */
struct figure_parts {
    gt_resource_usage usage; /* in the options' units */
    gt_totals totals;
    gt_cgroup_usage cgroup;
    gt_cpu_energy cpu_energy;
    gt_job_energy energy;
    /* The tree's peaks in bytes as the pipeline keeps them (the usage's
     * are in the options' units: a round trip could move them by a bit). */
    double peak_rss_bytes, peak_gpu_bytes;
    double elapsed, start_epoch;
    long samples;
    pid_t unseen_children_pid;
    /* The newest sample's figures (the GPU's only after a GPU sample). */
    int have_cpu_now, have_gpu_now;
    double rss_now_bytes, cpu_now_percent, gpu_ram_now_bytes, gpu_util_now_percent;
};

/* Whether figure which comes from the part whose figures run from first to
 * last in gt_figure's order. */
static int among(gt_figure which, gt_figure first, gt_figure last)
{
    return which >= first && which <= last;
}

/* The parts figure which comes from, under t->lock (the summary always;
 * the totals, the cgroup or the energy only for their own
 * figures: a host may ask at every sample). 0, or -1 before the baseline
 * sample. */
static int gather(gt_tracker *t, gt_figure which, struct figure_parts *f)
{
    pthread_mutex_lock(&t->lock);
    if (!t->baseline_taken) {
        pthread_mutex_unlock(&t->lock);
        return -1;
    }
    int stopped = t->state == STATE_STOPPED;
    double now = stopped ? t->stop_time : monotonic_now();
    /* The whole summary only for a figure that comes from it: the time,
     * the samples, the peak RSS, CPU time, I/O, the cgroup's peak and the newest
     * sample's figures are kept as they are (a limit reads some of them at
     * every sample, a status line the newest). */
    int from_summary = !(which <= GT_FIGURE_SAMPLES || which == GT_FIGURE_PEAK_RSS_BYTES ||
                         among(which, GT_FIGURE_CPU_SECONDS, GT_FIGURE_CPU_DESCENDANTS_SECONDS) ||
                         among(which, GT_FIGURE_READ_BYTES, GT_FIGURE_WRITE_BYTES) ||
                         which >= GT_FIGURE_CGROUP_PEAK_BYTES);
    if (from_summary)
        results_usage(&t->res, &t->pipe, now, stopped, &f->usage);
    if (among(which, GT_FIGURE_CPU_SECONDS, GT_FIGURE_CPU_DESCENDANTS_SECONDS) ||
        among(which, GT_FIGURE_READ_BYTES, GT_FIGURE_WRITE_BYTES)) {
        f->totals.struct_size = sizeof f->totals;
        usage_totals(&t->pipe.acc, &f->totals);
    }
    if (which == GT_FIGURE_CGROUP_PEAK_BYTES) {
        f->cgroup.struct_size = sizeof f->cgroup;
        results_cgroup(&t->res, &t->pipe, &f->cgroup);
    }
    if (among(which, GT_FIGURE_ENERGY_JOULES, GT_FIGURE_CO2E_GRAMS)) {
        f->cpu_energy.struct_size = sizeof f->cpu_energy;
        results_energy(&t->res, &t->pipe, &f->usage, &f->cpu_energy);
        f->energy.struct_size = sizeof f->energy;
        energy_job(&f->usage, &f->cpu_energy, t->cfg.o.carbon_intensity, t->cfg.o.pue,
                   &f->energy);
    }
    f->peak_rss_bytes = (double)usage_combined_peak_kb(&t->pipe.acc) * 1024.0;
    f->peak_gpu_bytes = (double)t->pipe.acc.gpu_comb_max;
    f->unseen_children_pid = t->pipe.acc.sigchld_ignorer;
    const struct usage_acc *acc = &t->pipe.acc;
    f->samples = acc->samples;
    f->have_cpu_now = acc->latest.have_cores;
    f->cpu_now_percent = acc->latest.cores * 100.0;
    f->rss_now_bytes = (double)acc->latest.rss_kb * 1024.0;
    f->have_gpu_now = acc->latest.have_gpu && acc->gpu_count > 0;
    f->gpu_ram_now_bytes = (double)acc->latest.gpu_bytes;
    f->gpu_util_now_percent = acc->latest.gpu_util_percent;
    f->elapsed = now > t->res.start_time ? now - t->res.start_time : 0;
    f->start_epoch = t->run.epoch_start;
    pthread_mutex_unlock(&t->lock);
    return 0;
}

static gt_status unavailable(const char *figure, const char *why)
{
    return error_set(GT_ERR_UNAVAILABLE, "%s was not measured in this run: %s", figure,
                     why && *why ? why : "no source for it");
}

static gt_status unknown_figure(gt_figure which)
{
    return error_set(GT_ERR_INVALID_ARGUMENT, "unknown figure %d; valid: 0 to %d (gt_figure in "
                     "gpu_tracker.h %s)", (int)which, (int)GT_FIGURE_GPU_UTIL_PERCENT,
                     GT_VERSION_STRING);
}

/* The figure from the parts: GT_OK and *v, or GT_ERR_UNAVAILABLE. */
static gt_status pick(const struct figure_parts *f, gt_figure which, double ram_unit,
                      double gpu_unit, double *v)
{
    const gt_resource_usage *u = &f->usage;
    const gt_max_ram *ram = &u->max_ram;
    const gt_max_gpu_ram *gpu = &u->max_gpu_ram;
    const gt_pu_percentages *cpu = &u->cpu_utilization.combined;
    const gt_pu_percentages *gpu_util = &u->gpu_utilization.gpu_percentages;
    const char *no_gpu = u->measurement.gpu_available ? NULL : u->measurement.gpu_reason;
    switch (which) {
    case GT_FIGURE_ELAPSED_SECONDS: *v = f->elapsed; return GT_OK;
    case GT_FIGURE_START_EPOCH: *v = f->start_epoch; return GT_OK;
    case GT_FIGURE_SAMPLES: *v = (double)f->samples; return GT_OK;
    case GT_FIGURE_PEAK_RSS_BYTES: *v = f->peak_rss_bytes; return GT_OK;
    case GT_FIGURE_PEAK_RSS_MAIN_BYTES: *v = ram->main.total_rss * ram_unit; return GT_OK;
    case GT_FIGURE_PEAK_RSS_DESCENDANTS_BYTES:
        *v = ram->descendants.total_rss * ram_unit;
        return GT_OK;
    case GT_FIGURE_PEAK_SYSTEM_RAM_BYTES: *v = ram->system * ram_unit; return GT_OK;
    case GT_FIGURE_SYSTEM_RAM_BYTES: *v = ram->system_capacity * ram_unit; return GT_OK;
    case GT_FIGURE_PEAK_GPU_RAM_BYTES:
    case GT_FIGURE_PEAK_GPU_RAM_MAIN_BYTES:
    case GT_FIGURE_PEAK_GPU_RAM_DESCENDANTS_BYTES:
    case GT_FIGURE_PEAK_SYSTEM_GPU_RAM_BYTES:
    case GT_FIGURE_SYSTEM_GPU_RAM_BYTES:
        if (no_gpu)
            return unavailable("GPU memory", no_gpu);
        if (which == GT_FIGURE_PEAK_GPU_RAM_BYTES) {
            *v = f->peak_gpu_bytes;
            return GT_OK;
        }
        *v = gpu_unit * (which == GT_FIGURE_PEAK_GPU_RAM_MAIN_BYTES ? gpu->main
                         : which == GT_FIGURE_PEAK_GPU_RAM_DESCENDANTS_BYTES ? gpu->descendants
                         : which == GT_FIGURE_PEAK_SYSTEM_GPU_RAM_BYTES ? gpu->system
                                                                       : gpu->system_capacity);
        return GT_OK;
    case GT_FIGURE_CPU_SECONDS:
        *v = f->totals.cpu_main_seconds + f->totals.cpu_descendants_seconds;
        return GT_OK;
    case GT_FIGURE_CPU_MAIN_SECONDS: *v = f->totals.cpu_main_seconds; return GT_OK;
    case GT_FIGURE_CPU_DESCENDANTS_SECONDS: *v = f->totals.cpu_descendants_seconds; return GT_OK;
    case GT_FIGURE_CPU_MEAN_PERCENT: *v = cpu->mean_sum_percent; return GT_OK;
    case GT_FIGURE_CPU_MAX_PERCENT: *v = cpu->max_sum_percent; return GT_OK;
    case GT_FIGURE_THREADS_MAX: *v = u->cpu_utilization.combined_n_threads; return GT_OK;
    case GT_FIGURE_GPU_UTIL_MEAN_PERCENT:
    case GT_FIGURE_GPU_UTIL_MAX_PERCENT:
        if (no_gpu)
            return unavailable("GPU utilization", no_gpu);
        *v = which == GT_FIGURE_GPU_UTIL_MEAN_PERCENT ? gpu_util->mean_sum_percent
                                                      : gpu_util->max_sum_percent;
        return GT_OK;
    case GT_FIGURE_READ_BYTES:
    case GT_FIGURE_WRITE_BYTES:
        if (!f->totals.io_available)
            return unavailable("block I/O", "only the processes a reaper passes to "
                               "gt_tracker_add_reaped() count, the main one among them");
        *v = which == GT_FIGURE_READ_BYTES ? f->totals.read_bytes : f->totals.write_bytes;
        return GT_OK;
    case GT_FIGURE_ENERGY_JOULES:
        if (!f->energy.available)
            return unavailable("energy", f->energy.reason);
        *v = f->energy.joules;
        return GT_OK;
    case GT_FIGURE_GPU_ENERGY_JOULES:
        if (!f->energy.gpu_available)
            return unavailable("GPU energy", f->energy.gpu_reason);
        *v = f->energy.gpu_joules;
        return GT_OK;
    case GT_FIGURE_CPU_ENERGY_JOULES:
        if (!f->energy.cpu_available)
            return unavailable("CPU energy", f->energy.cpu_reason);
        *v = f->energy.cpu_joules;
        return GT_OK;
    case GT_FIGURE_CO2E_GRAMS:
        if (!f->energy.co2e_available)
            return unavailable("CO2e", f->energy.available
                               ? "no carbon intensity given (options.carbon_intensity)"
                               : f->energy.reason);
        *v = f->energy.co2e_grams;
        return GT_OK;
    case GT_FIGURE_CGROUP_PEAK_BYTES:
        if (!f->cgroup.available)
            return unavailable("the job's cgroup memory", f->cgroup.reason);
        if (!f->cgroup.memory_available)
            return unavailable("the job's cgroup memory", f->cgroup.memory_reason);
        *v = f->cgroup.memory_peak;
        return GT_OK;
    case GT_FIGURE_UNSEEN_CHILDREN_PID: *v = (double)f->unseen_children_pid; return GT_OK;
    case GT_FIGURE_RSS_BYTES: *v = f->rss_now_bytes; return GT_OK;
    case GT_FIGURE_CPU_PERCENT:
        if (!f->have_cpu_now)
            return unavailable("the CPU of the newest interval",
                               "no interval of at least half the sleep time sampled yet");
        *v = f->cpu_now_percent;
        return GT_OK;
    case GT_FIGURE_GPU_RAM_BYTES:
    case GT_FIGURE_GPU_UTIL_PERCENT:
        if (!f->have_gpu_now)
            return unavailable(which == GT_FIGURE_GPU_RAM_BYTES ? "GPU memory" : "GPU utilization",
                               "no GPU sampled (none found, or no GPU sample yet)");
        *v = which == GT_FIGURE_GPU_RAM_BYTES ? f->gpu_ram_now_bytes : f->gpu_util_now_percent;
        return GT_OK;
    }
    return unknown_figure(which);
}

gt_status gt_tracker_figure(gt_tracker *t, gt_figure which, double *value)
{
    if (value)
        *value = 0;
    /* The state is looked at under the lock (gather): on_sample calls this
     * from the sampling thread, the baseline's before start() returns. */
    gt_status st = tracker_call_begin(t, "gt_tracker_figure", NULL, NULL, 0, 0, -1, "figures");
    if (st != GT_OK)
        return st;
    if (!value)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_tracker_figure: NULL value");
    if ((unsigned)which > (unsigned)GT_FIGURE_GPU_UTIL_PERCENT) /* the last */
        return unknown_figure(which);
    if (which == GT_FIGURE_START_EPOCH) {
        /* Before a delayed baseline, the schedule (so that a host never
         * computes it); after any baseline, its time. */
        pthread_mutex_lock(&t->lock);
        int begun = t->baseline_taken, started = t->state != STATE_NEW;
        *value = begun ? t->run.epoch_start : t->delayed_start;
        pthread_mutex_unlock(&t->lock);
        if (begun || (started && *value > 0))
            return GT_OK;
        *value = 0;
        return error_set(GT_ERR_STATE, "no figures: the tracker has not been started");
    }
    struct figure_parts *f = calloc(1, sizeof *f);
    if (!f)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    if (gather(t, which, f) < 0)
        st = error_set(GT_ERR_STATE, "no figures: the tracker has not been started");
    else
        st = pick(f, which, t->res.units.ram_divisor, t->res.units.gpu_ram_divisor, value);
    free(f);
    return st;
}
