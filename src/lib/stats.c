/* stats.c - resource_tracker's statistics and recommendations, from the
 * rows of a run (pure: no I/O). The rules are in docs/snapshot.md. */
#include "stats.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "pyfloat.h"

#define KIB_PER_MIB 1024.0

/* Python's round(): to the nearest, half to even (rint in the default
 * rounding mode). */
static double round_half_even(double v)
{
    return rint(v);
}

int gt_round_memory_mib(double mib)
{
    static const int steps[] = {128, 256, 512, 1024, 2048};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (mib <= steps[i])
            return steps[i];
    return (int)ceil(mib / 1024.0) * 1024;
}

gt_status gt_snapshot_stats(const gt_snapshot *s, gt_stats *out)
{
    gt_clear_error();
    memset(out, 0, sizeof *out);
    const gt_series *se = &s->series;
    if (se->nprocess == 0 && se->nsystem == 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "no rows in the snapshot: the run was shorter than one interval (%g s), "
                       "or no series was kept",
                       se->interval);
    size_t np = se->nprocess;
    double cpu = 0, mem = 0, gpu = 0, vram = 0, used = 0;
    for (size_t i = 0; i < np; i++) {
        const gt_process_row *r = &se->process[i];
        cpu += r->cpu_usage;
        mem += (double)r->memory;
        gpu += r->gpu_usage;
        vram += r->gpu_vram;
        used += r->gpu_utilized;
        if (i == 0 || r->cpu_usage > out->cpu_usage_max)
            out->cpu_usage_max = r->cpu_usage;
        if (i == 0 || (double)r->memory > out->memory_max)
            out->memory_max = (double)r->memory;
        if (i == 0 || r->gpu_usage > out->gpu_usage_max)
            out->gpu_usage_max = r->gpu_usage;
        if (i == 0 || r->gpu_vram > out->gpu_vram_max)
            out->gpu_vram_max = r->gpu_vram;
        if (i == 0 || r->gpu_utilized > out->gpu_utilized_max)
            out->gpu_utilized_max = r->gpu_utilized;
    }
    if (np) {
        out->cpu_usage_mean = pyfloat_round(cpu / (double)np, 2);
        out->memory_mean = pyfloat_round(mem / (double)np, 2);
        out->gpu_usage_mean = pyfloat_round(gpu / (double)np, 2);
        out->gpu_vram_mean = pyfloat_round(vram / (double)np, 2);
        out->gpu_utilized_mean = pyfloat_round(used / (double)np, 2);
        out->cpu_usage_max = pyfloat_round(out->cpu_usage_max, 2);
        out->memory_max = pyfloat_round(out->memory_max, 2);
        out->gpu_usage_max = pyfloat_round(out->gpu_usage_max, 2);
        out->gpu_vram_max = pyfloat_round(out->gpu_vram_max, 2);
        out->gpu_utilized_max = pyfloat_round(out->gpu_utilized_max, 2);
    }
    for (size_t i = 0; i < se->nsystem; i++) {
        const gt_system_row *r = &se->system[i];
        if (r->disk_space_used_gb > out->disk_space_used_max_gb)
            out->disk_space_used_max_gb = r->disk_space_used_gb;
        out->net_recv_bytes_sum += (double)r->net_recv_bytes;
        out->net_sent_bytes_sum += (double)r->net_sent_bytes;
    }
    out->disk_space_used_max_gb = pyfloat_round(out->disk_space_used_max_gb, 2);
    out->samples = (long)(np > se->nsystem ? np : se->nsystem);
    double first = np ? se->process[0].timestamp : se->system[0].timestamp;
    double last = np ? se->process[np - 1].timestamp : se->system[se->nsystem - 1].timestamp;
    out->duration = pyfloat_round(last - first + se->interval, 3);
    return GT_OK;
}

void gt_stats_combine(const gt_stats *runs, size_t n, gt_stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        const gt_stats *r = &runs[i];
        out->samples += r->samples;
        out->cpu_usage_mean += r->cpu_usage_mean;
        out->memory_mean += r->memory_mean;
        out->gpu_usage_mean += r->gpu_usage_mean;
        out->gpu_vram_mean += r->gpu_vram_mean;
        out->gpu_utilized_mean += r->gpu_utilized_mean;
        out->cpu_usage_max = fmax(out->cpu_usage_max, r->cpu_usage_max);
        out->memory_max = fmax(out->memory_max, r->memory_max);
        out->gpu_usage_max = fmax(out->gpu_usage_max, r->gpu_usage_max);
        out->gpu_vram_max = fmax(out->gpu_vram_max, r->gpu_vram_max);
        out->gpu_utilized_max = fmax(out->gpu_utilized_max, r->gpu_utilized_max);
        out->disk_space_used_max_gb = fmax(out->disk_space_used_max_gb, r->disk_space_used_max_gb);
        out->net_recv_bytes_sum += r->net_recv_bytes_sum;
        out->net_sent_bytes_sum += r->net_sent_bytes_sum;
        out->duration += r->duration;
    }
    double k = (double)n;
    out->cpu_usage_mean = pyfloat_round(out->cpu_usage_mean / k, 2);
    out->memory_mean = pyfloat_round(out->memory_mean / k, 2);
    out->gpu_usage_mean = pyfloat_round(out->gpu_usage_mean / k, 2);
    out->gpu_vram_mean = pyfloat_round(out->gpu_vram_mean / k, 2);
    out->gpu_utilized_mean = pyfloat_round(out->gpu_utilized_mean / k, 2);
    out->duration = pyfloat_round(out->duration, 3);
}

void gt_recommend(const gt_stats *s, gt_recommendation *out)
{
    memset(out, 0, sizeof *out);
    double cpu = round_half_even(s->cpu_usage_mean);
    out->cpu = cpu < 1 ? 1 : (int)cpu;
    out->memory_mib = gt_round_memory_mib(s->memory_max * 1.2 / KIB_PER_MIB);
    if (s->gpu_usage_mean > 0) {
        double gpu = round_half_even(s->gpu_usage_max);
        out->gpu = gpu < 1 ? 1 : (int)gpu;
    }
    if (s->gpu_vram_max > 0)
        out->vram_mib = gt_round_memory_mib(s->gpu_vram_max * 1.2);
}

/* Means of a column of each series. */
struct means {
    double proc_cpu, sys_cpu, proc_mem_mib, sys_mem_mib, proc_gpu, sys_gpu, proc_vram, sys_vram;
};

const char *stats_allocation(const gt_series *se)
{
    if (se->nprocess == 0 || se->nsystem == 0)
        return "unknown";
    struct means m = {0};
    for (size_t i = 0; i < se->nprocess; i++) {
        m.proc_cpu += se->process[i].cpu_usage;
        m.proc_mem_mib += (double)se->process[i].memory / KIB_PER_MIB;
        m.proc_gpu += se->process[i].gpu_usage;
        m.proc_vram += se->process[i].gpu_vram;
    }
    for (size_t i = 0; i < se->nsystem; i++) {
        m.sys_cpu += se->system[i].cpu_usage;
        m.sys_mem_mib += (double)se->system[i].memory_used / KIB_PER_MIB;
        m.sys_gpu += se->system[i].gpu_usage;
        m.sys_vram += se->system[i].gpu_vram;
    }
    double np = (double)se->nprocess, ns = (double)se->nsystem;
    /* resource_tracker's SERVER_ALLOCATION_CHECKS: the system used clearly
     * more than the tracked processes (by a factor or by an amount). */
    const struct {
        double proc, sys, factor, amount;
    } checks[] = {
        {m.proc_cpu / np, m.sys_cpu / ns, 1.25, 0.25},          /* cores */
        {m.proc_mem_mib / np, m.sys_mem_mib / ns, 1.5, 512},     /* MiB */
        {m.proc_gpu / np, m.sys_gpu / ns, 1.25, 0.2},           /* GPUs */
        {m.proc_vram / np, m.sys_vram / ns, 1.25, 512},         /* MiB */
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].sys > checks[i].proc * checks[i].factor ||
            checks[i].sys > checks[i].proc + checks[i].amount)
            return "shared";
    return "dedicated";
}
