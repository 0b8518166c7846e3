/* tracking_file.c - see tracking_file.h. */
#define _GNU_SOURCE
#include "sink/tracking_file.h"

#include <string.h>

const char *const tracking_static_columns[TRACKING_STATIC_COLUMNS] = {
    "ram_unit", "gpu_ram_unit", "time_unit", "ram_system_capacity", "gpu_ram_system_capacity",
    "system_core_count", "n_expected_cores", "system_gpu_count", "n_expected_gpus",
};

const char *const tracking_timepoint_columns[TRACKING_TIMEPOINT_COLUMNS] = {
    "main_ram", "descendants_ram", "combined_ram", "system_ram",
    "main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram", "system_gpu_ram",
    "gpu_sum_utilization_percent", "gpu_hardware_utilization_percent",
    "main_n_threads", "descendants_n_threads", "combined_n_threads",
    "cpu_system_sum_utilization_percent", "cpu_system_hardware_utilization_percent",
    "cpu_main_sum_utilization_percent", "cpu_main_hardware_utilization_percent",
    "cpu_descendants_sum_utilization_percent", "cpu_descendants_hardware_utilization_percent",
    "cpu_combined_sum_utilization_percent", "cpu_combined_hardware_utilization_percent",
    "timestamp",
};

static double per(double x, int n)
{
    return n > 0 ? x / n : 0.0;
}

void tracking_timepoint_values(const struct tracking_static *st, const struct usage_timepoint *tp,
                               double wall, struct table_value v[TRACKING_TIMEPOINT_COLUMNS])
{
    double kb = 1024.0 / st->ram_divisor;
    double gpu = 1.0 / st->gpu_ram_divisor;
    double gpu_sum = tp->gpu_sum_percent;
    double values[TRACKING_TIMEPOINT_COLUMNS] = {
        (double)tp->main_kb * kb, (double)tp->desc_kb * kb, (double)tp->comb_kb * kb,
        (double)tp->system_kb * kb,
        (double)tp->main_gpu * gpu, (double)tp->desc_gpu * gpu,
        (double)(tp->main_gpu + tp->desc_gpu) * gpu, (double)tp->system_gpu * gpu,
        gpu_sum, per(gpu_sum, st->n_expected_gpus),
        (double)tp->main_threads, (double)tp->desc_threads,
        (double)(tp->main_threads + tp->desc_threads),
        tp->cpu_system_percent, per(tp->cpu_system_percent, st->system_core_count),
        tp->cpu_main_percent, per(tp->cpu_main_percent, st->n_expected_cores),
        tp->cpu_desc_percent, per(tp->cpu_desc_percent, st->n_expected_cores),
        tp->cpu_comb_percent, per(tp->cpu_comb_percent, st->n_expected_cores),
        wall,
    };
    for (int i = 0; i < TRACKING_TIMEPOINT_COLUMNS; i++) {
        v[i].type = i >= 10 && i <= 12 ? TABLE_INT : TABLE_FLOAT; /* the thread counts */
        v[i].num = values[i];
        v[i].text = NULL;
    }
}

/* The static data's values (gpu_tracker's _StaticData). */
static void static_values(const struct tracking_static *st,
                          struct table_value v[TRACKING_STATIC_COLUMNS])
{
    const char *text[3] = {st->ram_unit, st->gpu_ram_unit, st->time_unit};
    double num[TRACKING_STATIC_COLUMNS] = {
        0, 0, 0,
        (double)st->ram_total_kb * 1024.0 / st->ram_divisor,
        (double)st->gpu_total_bytes / st->gpu_ram_divisor,
        st->system_core_count, st->n_expected_cores, st->system_gpu_count, st->n_expected_gpus,
    };
    for (int i = 0; i < TRACKING_STATIC_COLUMNS; i++) {
        v[i].type = i < 3 ? TABLE_TEXT : i < 5 ? TABLE_FLOAT : TABLE_INT;
        v[i].num = num[i];
        v[i].text = i < 3 ? text[i] : NULL;
    }
}

static void tracking_rows(struct sink *s, const struct pipeline_rows *rows)
{
    struct tracking_file *k = (struct tracking_file *)s;
    /* A sample that found no tracked process alive (the command has
     * exited, and the stop has not come yet, or the final sample) is no
     * row: its zeros would only pull down every statistic of the file, and
     * gpu_tracker, which stops sampling when the process ends, has none. */
    if (!rows->have_timepoint || k->failed ||
        rows->timepoint.main_threads + rows->timepoint.desc_threads <= 0)
        return;
    struct table_value v[TRACKING_TIMEPOINT_COLUMNS];
    tracking_timepoint_values(&k->st, &rows->timepoint, rows->timepoint_wall, v);
    if (table_file_row(&k->file, v, TRACKING_TIMEPOINT_COLUMNS) == 0)
        return;
    k->failed = 1;
    warn_once(k->warn_channel, WARN_TRACKING_FILE,
              "cannot write the tracking file: %s; its later timepoints are lost (the summary "
              "and the series are kept)", table_file_error(&k->file));
}

/* The stop's sample is a timepoint too: the file ends with it. */
static void tracking_finish(struct sink *s, const struct pipeline_rows *final)
{
    if (final)
        tracking_rows(s, final);
}

static const struct sink_ops tracking_ops = {.rows = tracking_rows, .finish = tracking_finish};

gt_status tracking_file_open(struct tracking_file *k, const char *path, int overwrite,
                             const struct tracking_static *st, struct warn_channel *w)
{
    memset(k, 0, sizeof *k);
    k->file.fd = -1;
    k->base.ops = &tracking_ops;
    k->st = *st;
    k->warn_channel = w;
    gt_status status = table_file_create(&k->file, path, overwrite, "tracking file");
    if (status != GT_OK)
        return status;
    /* gpu_tracker's layout: the static data's table and its one row, then
     * the timepoints' table (CSV: both in one file, one after the other). */
    struct table_value sv[TRACKING_STATIC_COLUMNS], tv[TRACKING_TIMEPOINT_COLUMNS];
    struct usage_timepoint none = {0};
    static_values(st, sv);
    tracking_timepoint_values(st, &none, 0, tv);
    if (table_file_table(&k->file, "static_data", tracking_static_columns, sv,
                         TRACKING_STATIC_COLUMNS) < 0 ||
        table_file_row(&k->file, sv, TRACKING_STATIC_COLUMNS) < 0 ||
        table_file_table(&k->file, "data", tracking_timepoint_columns, tv,
                         TRACKING_TIMEPOINT_COLUMNS) < 0) {
        status = error_set(GT_ERR_IO, "cannot write tracking file '%s': %s", path,
                           table_file_error(&k->file));
        table_file_discard(&k->file); /* not left behind, empty */
    }
    return status;
}

void tracking_file_close(struct tracking_file *k)
{
    table_file_close(&k->file);
}
