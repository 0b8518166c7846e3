/* pipeline/gpu_activity.c - see gpu_activity.h. */
#include "pipeline/gpu_activity.h"

#include <stdio.h>
#include <string.h>

void gpu_activity_init(struct gpu_activity_acc *a)
{
    memset(a, 0, sizeof *a);
}

unsigned long long gpu_activity_used_devices(const struct gpu_tree_sample *gs)
{
    unsigned long long used = gs->memory_devices;
    for (int d = 0; d < GPU_MAX_DEVICES; d++)
        if ((gs->proc_util_read >> d & 1) && gs->device_job_sm[d] > 0)
            used |= 1ULL << d;
    return used;
}

static void raise_max(double *x, double v)
{
    if (v > *x)
        *x = v;
}

static void step_device(struct gpu_activity_device *d, const struct gpu_activity *act,
                        int share_read, double dt, double job_sm, double all_sm)
{
    for (int m = 0; m < GPU_ACTIVITY_N && act->seconds > 0; m++)
        if (act->read >> m & 1) {
            d->seconds[m] += act->seconds;
            d->sum[m] += act->percent[m] * act->seconds;
            raise_max(&d->peak[m], act->percent[m]);
        }
    if (act->pcie_read) {
        /* NVML's own window (no GPM) has no interval: the sample's */
        double w = act->seconds > 0 ? act->seconds : dt;
        d->pcie_seconds += w;
        d->pcie_tx_sum += act->pcie_tx * w;
        d->pcie_rx_sum += act->pcie_rx * w;
        raise_max(&d->pcie_tx_peak, act->pcie_tx);
        raise_max(&d->pcie_rx_peak, act->pcie_rx);
    }
    if (share_read && dt > 0) {
        d->share_seconds += dt;
        d->job_sm_time += job_sm * dt;
        d->all_sm_time += (all_sm > job_sm ? all_sm : job_sm) * dt;
    }
}

void gpu_activity_step(struct gpu_activity_acc *a, double now, const struct gpu_sample *s,
                       const struct gpu_tree_sample *gs, int ndevices)
{
    double dt = a->have_prev ? now - a->prev_now : 0;
    a->have_prev = 1;
    a->prev_now = now;
    if (ndevices > GPU_MAX_DEVICES)
        ndevices = GPU_MAX_DEVICES;
    unsigned long long used = gs ? gpu_activity_used_devices(gs) : 0;
    for (int d = 0; d < ndevices; d++) {
        struct gpu_activity_device *dev = &a->devices[d];
        if (s->device_energy_read >> d & 1) {
            if (!dev->energy_seen)
                dev->energy_first_mj = s->device_energy_mj[d];
            dev->energy_seen = 1;
            dev->energy_last_mj = s->device_energy_mj[d];
        }
        if (!(used >> d & 1))
            continue;
        dev->used = 1;
        step_device(dev, &s->activity[d], (int)(gs->proc_util_read >> d & 1), dt,
                    gs->device_job_sm[d], gs->device_all_sm[d]);
    }
}

static void set_reason(char *out, const char *reason, const char *fallback)
{
    snprintf(out, GT_REASON_LEN, "%s", reason && *reason ? reason : fallback);
}

/* Device d's figures into t; 1 when it has any. */
static int fill_device(const struct gpu_activity_device *d, gt_gpu_run_device *t)
{
    int any = 0;
    double longest = 0;
    for (int m = 0; m < GPU_ACTIVITY_N && m < GT_GPU_ACTIVITY_METRICS; m++) {
        if (!(d->seconds[m] > 0))
            continue;
        t->activity_read |= 1u << m;
        t->activity_mean[m] = d->sum[m] / d->seconds[m];
        t->activity_peak[m] = d->peak[m];
        raise_max(&longest, d->seconds[m]);
        any = 1;
    }
    t->activity_seconds = longest;
    if (d->pcie_seconds > 0) {
        t->pcie_read = any = 1;
        t->pcie_tx_mean = d->pcie_tx_sum / d->pcie_seconds;
        t->pcie_rx_mean = d->pcie_rx_sum / d->pcie_seconds;
        t->pcie_tx_peak = d->pcie_tx_peak;
        t->pcie_rx_peak = d->pcie_rx_peak;
    }
    if (d->share_seconds > 0) {
        double gpu_time = 100.0 * d->share_seconds;
        t->share_read = any = 1;
        t->share_seconds = d->share_seconds;
        t->job_sm_share = d->job_sm_time / gpu_time;
        t->others_sm_share = (d->all_sm_time - d->job_sm_time) / gpu_time;
        if (t->job_sm_share > 1)
            t->job_sm_share = 1;
        if (t->others_sm_share > 1)
            t->others_sm_share = 1;
    }
    if (d->energy_seen && d->used) {
        double joules = (double)(d->energy_last_mj >= d->energy_first_mj
                                     ? d->energy_last_mj - d->energy_first_mj : 0) / 1000.0;
        t->energy_read = any = 1;
        t->energy_joules = joules;
        /* the job's part of the SM work done there; all of it when the
         * processes' utilization was not read or nothing ran */
        t->job_energy_joules = d->share_seconds > 0 && d->all_sm_time > 0
                                   ? joules * d->job_sm_time / d->all_sm_time : joules;
    }
    return any;
}

void gpu_activity_fill(const struct gpu_activity_acc *a, const char *reason,
                       const char *proc_util, int ndevices, gt_gpu_run_device *table,
                       gt_gpu_run *out)
{
    int n = ndevices < GT_MAX_GPUS ? ndevices : GT_MAX_GPUS;
    if (n > GPU_MAX_DEVICES)
        n = GPU_MAX_DEVICES;
    double seconds[GT_GPU_ACTIVITY_METRICS] = {0}, sum[GT_GPU_ACTIVITY_METRICS] = {0};
    double share_time = 0, job_time = 0, others_time = 0;
    for (int d = 0; table && d < n; d++) {
        gt_gpu_run_device *t = &table[d];
        size_t keep = offsetof(gt_gpu_run_device, activity_read);
        memset((char *)t + keep, 0, sizeof *t - keep);
        if (!fill_device(&a->devices[d], t))
            continue;
        if (d + 1 > out->ngpus)
            out->ngpus = d + 1;
        for (int m = 0; m < GT_GPU_ACTIVITY_METRICS; m++) {
            if (!(t->activity_read >> m & 1))
                continue;
            out->activity_read |= 1u << m;
            seconds[m] += a->devices[d].seconds[m];
            sum[m] += a->devices[d].sum[m];
            raise_max(&out->activity_peak[m], t->activity_peak[m]);
        }
        if (t->pcie_read) {
            out->pcie_available = 1;
            out->pcie_tx_mean += t->pcie_tx_mean;
            out->pcie_rx_mean += t->pcie_rx_mean;
            raise_max(&out->pcie_tx_peak, t->pcie_tx_peak);
            raise_max(&out->pcie_rx_peak, t->pcie_rx_peak);
        }
        if (t->share_read) {
            share_time += 100.0 * t->share_seconds;
            job_time += a->devices[d].job_sm_time;
            others_time += a->devices[d].all_sm_time - a->devices[d].job_sm_time;
            out->shared_gpus += t->others_sm_share * 100.0 >= GT_GPU_WAIT_SHARE_PERCENT;
        }
    }
    if (out->ngpus)
        out->devices = table;
    for (int m = 0; m < GT_GPU_ACTIVITY_METRICS; m++)
        if (seconds[m] > 0)
            out->activity_mean[m] = sum[m] / seconds[m];
    out->activity_available = out->activity_read != 0;
    if (!out->activity_available)
        set_reason(out->activity_reason, reason,
                   "the GPUs' activity counters were not read while the job used a GPU");
    out->share_available = share_time > 0;
    if (out->share_available) {
        out->job_sm_share = job_time / share_time;
        out->others_sm_share = others_time / share_time;
    } else {
        set_reason(out->share_reason, proc_util,
                   "the GPUs' processes' utilization was not read while the job used a GPU");
    }
}

int gpu_activity_most_shared(const struct gpu_activity_acc *a, double *share)
{
    int best = -1;
    *share = 0;
    for (int d = 0; d < GPU_MAX_DEVICES; d++) {
        const struct gpu_activity_device *x = &a->devices[d];
        if (!(x->share_seconds > 0))
            continue;
        double others = (x->all_sm_time - x->job_sm_time) / (100.0 * x->share_seconds);
        if (best < 0 || others > *share) {
            best = d;
            *share = others > 1 ? 1 : others;
        }
    }
    return best;
}
