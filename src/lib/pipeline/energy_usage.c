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
