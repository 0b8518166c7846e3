/* energy_usage.c - see energy_usage.h. */
#include "pipeline/energy_usage.h"

#include <stdio.h>
#include <string.h>

void energy_acc_init(struct energy_acc *a)
{
    memset(a, 0, sizeof *a);
}

void energy_acc_step(struct energy_acc *a, const struct rapl_sample *s)
{
    if (!s->ok)
        return;
    if (!a->seen)
        a->first = *s;
    a->last = *s;
    a->seen = 1;
}

void energy_acc_fill(const struct energy_acc *a, const char *reason, int packages,
                     double job_share, gt_cpu_energy *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    if (!a->seen) {
        snprintf(out->reason, sizeof out->reason, "%s",
                 reason && *reason ? reason : "the RAPL counters were not read");
        return;
    }
    out->available = 1;
    out->packages = packages;
    /* the reader's totals only grow: wraps are undone there */
    out->package_joules = (double)(a->last.package_uj - a->first.package_uj) / 1e6;
    out->dram_available = a->last.have_dram;
    out->dram_joules = (double)(a->last.dram_uj - a->first.dram_uj) / 1e6;
    out->job_share = job_share < 0 ? 0 : job_share > 1 ? 1 : job_share;
}

void energy_job(const gt_resource_usage *u, const gt_cpu_energy *e, double carbon_intensity,
                double pue, gt_job_energy *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    const gt_gpu_details *d = &u->gpu_details;
    out->gpu_uncertainty_percent = GT_GPU_ENERGY_UNCERTAINTY_PERCENT;
    if (!d->unknown && d->energy_available) {
        out->gpu_available = 1;
        out->gpu_joules = d->energy_joules;
    } else {
        snprintf(out->gpu_reason, sizeof out->gpu_reason, "%s",
                 d->energy_reason[0] ? d->energy_reason
                 : u->measurement.gpu_reason[0] ? u->measurement.gpu_reason : "no GPU");
    }
    if (e->available) {
        double sockets = e->package_joules + (e->dram_available ? e->dram_joules : 0);
        out->cpu_available = 1;
        out->cpu_joules = out->cpu_joules_low = sockets * e->job_share;
        out->cpu_joules_high = sockets;
    } else {
        snprintf(out->cpu_reason, sizeof out->cpu_reason, "%s", e->reason);
    }
    out->available = out->gpu_available || out->cpu_available;
    if (!out->available)
        snprintf(out->reason, sizeof out->reason, "no energy counter (gpu_reason and "
                 "cpu_reason say why for each)");
    double g = out->gpu_joules, gu = GT_GPU_ENERGY_UNCERTAINTY_PERCENT / 100.0;
    out->joules = g + out->cpu_joules;
    out->joules_low = g * (1 - gu) + out->cpu_joules_low;
    out->joules_high = g * (1 + gu) + out->cpu_joules_high;
    out->carbon_intensity = carbon_intensity;
    out->pue = pue > 0 ? pue : 1.0;
    if (out->available && out->carbon_intensity > 0) {
        double per_joule = out->pue * out->carbon_intensity / 3.6e6; /* g per J */
        out->co2e_available = 1;
        out->co2e_grams = out->joules * per_joule;
        out->co2e_grams_low = out->joules_low * per_joule;
        out->co2e_grams_high = out->joules_high * per_joule;
    }
}
