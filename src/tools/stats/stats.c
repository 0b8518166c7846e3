/* stats.c - resource_tracker's statistics and recommendations, from the
 * rows of a run (pure: no I/O but the row source's). The rules are in
 * docs/snapshot.md; each follows resource_tracker's code:
 *  - stats(): both series cut to the shorter one (get_combined_metrics),
 *    means as statistics.mean() gives them (exact, then rounded once),
 *    then round(x, 2); sums exact; the duration max - min + interval,
 *    not rounded;
 *  - aggregate_stats(): combine.c's rule, field by field;
 *  - recommend_resources(): round() of the combined mean, half to even. */
#include "stats/stats.h"
#include "common/num.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_internal.h"
#include "common/exact_sum.h"
#include "common/internal.h"
#include "common/pyfloat.h"

#define KIB_PER_MIB 1024.0

/* The int nearest v, saturated: a recommendation from a hand-made gt_stats
 * of absurd figures is INT_MAX, never undefined behaviour. */
static int saturate_int(double v)
{
    if (!(v == v))
        return 0;
    if (v >= (double)INT_MAX)
        return INT_MAX;
    if (v <= (double)INT_MIN)
        return INT_MIN;
    return (int)v;
}

int gt_round_memory_mib(double mib)
{
    static const int steps[] = {128, 256, 512, 1024, 2048};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (mib <= steps[i])
            return steps[i];
    /* Above 2 GiB: up to whole GiB, the largest that fits an int at most. */
    double gib = ceil(mib / 1024.0);
    if (!(gib < (double)(INT_MAX / 1024)))
        return INT_MAX / 1024 * 1024;
    return (int)gib * 1024;
}

/* Means and maxima of one column over the rows, in one pass. */
struct column_stats {
    struct exact_sum sum;
    double max;
};

static void column_add(struct column_stats *c, double v, size_t i)
{
    exact_sum_add(&c->sum, v);
    if (i == 0 || v > c->max)
        c->max = v;
}

/* What stats_of_rows gathers, pair by pair. */
struct stats_acc {
    struct column_stats cpu, mem, gpu, vram, used;
    double disk_max, first, last;
    unsigned __int128 recv, sent;
};

/* row_pair_fn of stats_of_rows: pairs are cut to the shorter series, so
 * both rows are there. */
static void stats_add_pair(void *ctx, size_t i, const gt_process_row *p, const gt_system_row *y)
{
    struct stats_acc *a = ctx;
    column_add(&a->cpu, p->cpu_usage, i);
    column_add(&a->mem, (double)p->memory, i);
    column_add(&a->gpu, p->gpu_usage, i);
    column_add(&a->vram, p->gpu_vram, i);
    column_add(&a->used, (double)p->gpu_utilized, i);
    if (i == 0 || y->disk_space_used_gb > a->disk_max)
        a->disk_max = y->disk_space_used_gb;
    a->recv += y->net_recv_bytes;
    a->sent += y->net_sent_bytes;
    /* The timestamp column of the combined rows is the system's. */
    if (i == 0 || y->timestamp < a->first)
        a->first = y->timestamp;
    if (i == 0 || y->timestamp > a->last)
        a->last = y->timestamp;
}

gt_status stats_of_rows(const struct row_source *rows, double interval, gt_stats *out)
{
    memset(out, 0, sizeof *out);
    /* Rows of the two series are paired by position, cut to the shorter. */
    size_t np = rows->count[GT_SERIES_KIND_PROCESS], ns = rows->count[GT_SERIES_KIND_SYSTEM];
    size_t n = np < ns ? np : ns;
    if (n == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "no rows to take statistics of: the run was shorter than one interval "
                         "(%g s), or a series was not kept (%zu process rows, %zu system rows)",
                         interval, np, ns);
    struct stats_acc a;
    memset(&a, 0, sizeof a);
    exact_sum_init(&a.cpu.sum);
    exact_sum_init(&a.mem.sum);
    exact_sum_init(&a.gpu.sum);
    exact_sum_init(&a.vram.sum);
    exact_sum_init(&a.used.sum);
    if (row_source_each_pair(rows, n, stats_add_pair, &a) < 0)
        return errno == ENOMEM ? error_set(GT_ERR_NO_MEMORY, "out of memory")
                               : error_set(GT_ERR_IO, "cannot read the rows: %s", strerror(errno));
    uint64_t count = (uint64_t)n;
    out->samples = (long)n;
    out->cpu_usage_mean = pyfloat_round(exact_sum_mean(&a.cpu.sum, count), 2);
    out->cpu_usage_max = pyfloat_round(a.cpu.max, 2);
    double memory_mean = exact_sum_mean(&a.mem.sum, count);
    double utilized_mean = exact_sum_mean(&a.used.sum, count);
    out->memory_mean_whole = memory_mean == floor(memory_mean);
    out->gpu_utilized_mean_whole = utilized_mean == floor(utilized_mean);
    out->memory_mean = pyfloat_round(memory_mean, 2);
    out->memory_max = pyfloat_round(a.mem.max, 2);
    out->gpu_usage_mean = pyfloat_round(exact_sum_mean(&a.gpu.sum, count), 2);
    out->gpu_usage_max = pyfloat_round(a.gpu.max, 2);
    out->gpu_vram_mean = pyfloat_round(exact_sum_mean(&a.vram.sum, count), 2);
    out->gpu_vram_max = pyfloat_round(a.vram.max, 2);
    out->gpu_utilized_mean = pyfloat_round(utilized_mean, 2);
    out->gpu_utilized_max = pyfloat_round(a.used.max, 2);
    out->disk_space_used_max_gb = pyfloat_round(a.disk_max, 2);
    out->net_recv_bytes_sum = (double)a.recv;
    out->net_sent_bytes_sum = (double)a.sent;
    out->duration = a.last - a.first + interval;
    return GT_OK;
}

gt_status gt_tracker_stats(gt_tracker *t, gt_stats *out)
{
    error_clear();
    gt_status st = GT_CHECK_NOT_NULL("gt_tracker_stats", gt_stats, out);
    if (st != GT_OK)
        return st;
    struct row_source rows;
    double interval;
    st = gt_tracker_rows(t, &rows, &interval);
    return st != GT_OK ? st : stats_of_rows(&rows, interval, out);
}

gt_status gt_snapshot_stats(const gt_snapshot *s, gt_stats *out)
{
    error_clear();
    gt_status st = GT_CHECK_NOT_NULL("gt_snapshot_stats", gt_stats, out);
    if (st != GT_OK)
        return st;
    if (!s)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_snapshot_stats: NULL snapshot");
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    return stats_of_rows(&rows, s->series.interval, out);
}

/* Each figure of gt_stats and the aggregation it is (the key of its
 * resource_tracker dictionary), for the one rule of combine.c. */
static const struct {
    size_t offset;
    const char *aggregation;
} stats_fields[] = {
    {offsetof(gt_stats, cpu_usage_mean), "mean"},
    {offsetof(gt_stats, cpu_usage_max), "max"},
    {offsetof(gt_stats, memory_mean), "mean"},
    {offsetof(gt_stats, memory_max), "max"},
    {offsetof(gt_stats, gpu_usage_mean), "mean"},
    {offsetof(gt_stats, gpu_usage_max), "max"},
    {offsetof(gt_stats, gpu_vram_mean), "mean"},
    {offsetof(gt_stats, gpu_vram_max), "max"},
    {offsetof(gt_stats, gpu_utilized_mean), "mean"},
    {offsetof(gt_stats, gpu_utilized_max), "max"},
    {offsetof(gt_stats, disk_space_used_max_gb), "max"},
    {offsetof(gt_stats, net_recv_bytes_sum), "sum"},
    {offsetof(gt_stats, net_sent_bytes_sum), "sum"},
    {offsetof(gt_stats, duration), "duration"},
};

gt_status gt_stats_combine(const gt_stats *runs, size_t n, gt_stats *out)
{
    error_clear();
    gt_status st = GT_CHECK_NOT_NULL("gt_stats_combine", gt_stats, out);
    if (st != GT_OK)
        return st;
    if (n == 0 || !runs)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_stats_combine: no runs (n is 0)");
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out->samples += runs[i].samples;
    for (size_t f = 0; f < sizeof stats_fields / sizeof stats_fields[0]; f++) {
        enum stats_combine rule = stats_combine_rule(stats_fields[f].aggregation);
        struct stats_combined c;
        stats_combined_init(&c);
        for (size_t i = 0; i < n; i++) {
            const char *r = (const char *)&runs[i];
            double v;
            memcpy(&v, r + stats_fields[f].offset, sizeof v);
            stats_combined_add(&c, rule, v);
        }
        double v = stats_combined_value(&c, rule);
        memcpy((char *)out + stats_fields[f].offset, &v, sizeof v);
    }
    return GT_OK;
}

gt_status gt_recommend(const gt_stats *s, gt_recommendation *out)
{
    error_clear();
    gt_status st = GT_CHECK_NOT_NULL("gt_recommend", gt_stats, s);
    if (st == GT_OK)
        st = GT_CHECK_NOT_NULL("gt_recommend", gt_recommendation, out);
    if (st != GT_OK)
        return st;
    memset(out, 0, sizeof *out);
    /* Python's round(): to the nearest, half to even (rint in the default
     * rounding mode). */
    int cpu = saturate_int(rint(s->cpu_usage_mean));
    out->cpu = cpu < 1 ? 1 : cpu;
    out->memory_mib = gt_round_memory_mib(s->memory_max * 1.2 / KIB_PER_MIB);
    if (s->gpu_usage_mean > 0) {
        int gpu = saturate_int(rint(s->gpu_usage_max));
        out->gpu = gpu < 1 ? 1 : gpu;
    }
    if (s->gpu_vram_max > 0)
        out->vram_mib = gt_round_memory_mib(s->gpu_vram_max * 1.2);
    return GT_OK;
}

