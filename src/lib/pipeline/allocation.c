/* allocation.c - see allocation.h. */
#include "pipeline/allocation.h"

#include "common/exact_sum.h"

/* The rows keep memory in KiB (resource_tracker's columns). */
#define KIB_PER_MIB 1024.0

/* Exact means of a column of each series over the row source. */
struct means {
    double proc_cpu, sys_cpu, proc_mem_mib, sys_mem_mib, proc_gpu, sys_gpu, proc_vram, sys_vram;
};

/* row_pair_fn of series_means: sums[0..3] of the process rows, [4..7]
 * of the system rows. */
static void means_add_pair(void *ctx, size_t i, const gt_process_row *p, const gt_system_row *y)
{
    struct exact_sum *sum = ctx;
    (void)i;
    if (p) {
        exact_sum_add(&sum[0], p->cpu_usage);
        exact_sum_add(&sum[1], (double)p->memory / KIB_PER_MIB);
        exact_sum_add(&sum[2], p->gpu_usage);
        exact_sum_add(&sum[3], p->gpu_vram);
    }
    if (y) {
        exact_sum_add(&sum[4], y->cpu_usage);
        exact_sum_add(&sum[5], (double)y->memory_used / KIB_PER_MIB);
        exact_sum_add(&sum[6], y->gpu_usage);
        exact_sum_add(&sum[7], y->gpu_vram);
    }
}

static int series_means(const struct row_source *rows, struct means *m)
{
    struct exact_sum sum[8];
    for (int i = 0; i < 8; i++)
        exact_sum_init(&sum[i]);
    size_t np = rows->count[GT_SERIES_KIND_PROCESS], ns = rows->count[GT_SERIES_KIND_SYSTEM];
    if (row_source_each_pair(rows, np > ns ? np : ns, means_add_pair, sum) < 0)
        return -1;
    m->proc_cpu = exact_sum_mean(&sum[0], np);
    m->proc_mem_mib = exact_sum_mean(&sum[1], np);
    m->proc_gpu = exact_sum_mean(&sum[2], np);
    m->proc_vram = exact_sum_mean(&sum[3], np);
    m->sys_cpu = exact_sum_mean(&sum[4], ns);
    m->sys_mem_mib = exact_sum_mean(&sum[5], ns);
    m->sys_gpu = exact_sum_mean(&sum[6], ns);
    m->sys_vram = exact_sum_mean(&sum[7], ns);
    return 0;
}

const char *allocation_of_rows(const struct row_source *rows)
{
    struct means m;
    if (rows->count[GT_SERIES_KIND_PROCESS] == 0 || rows->count[GT_SERIES_KIND_SYSTEM] == 0 ||
        series_means(rows, &m) < 0)
        return "unknown";
    /* resource_tracker's SERVER_ALLOCATION_CHECKS: the system used clearly
     * more than the tracked processes (by a factor or by an amount). */
    const struct {
        double proc, sys, factor, amount;
    } checks[] = {
        {m.proc_cpu, m.sys_cpu, 1.25, 0.25},         /* cores */
        {m.proc_mem_mib, m.sys_mem_mib, 1.5, 512},   /* MiB */
        {m.proc_gpu, m.sys_gpu, 1.25, 0.2},          /* GPUs */
        {m.proc_vram, m.sys_vram, 1.25, 512},        /* MiB */
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++)
        if (checks[i].sys > checks[i].proc * checks[i].factor ||
            checks[i].sys > checks[i].proc + checks[i].amount)
            return "shared";
    return "dedicated";
}

