/* benchmark_tsv.c - see benchmark_tsv.h. Snakemake 7.21's
 * snakemake/benchmark.py is the reference for the format: columns joined by
 * tabs, s with 4 decimals, h:m:s as H:MM:SS (after "N day(s), "), the rest
 * with 2 decimals, "-" for a figure not measured; memory and I/O in MiB
 * (bytes / 1024 / 1024, which it labels MB), mean_load the CPU percent of
 * one core averaged over the run, cpu_time user + system seconds. */
#define _GNU_SOURCE
#include "benchmark_tsv.h"
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

const char benchmark_tsv_header[] = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out"
                                    "\tmean_load\tcpu_time\tmax_gpu_ram\tmean_gpu_load";

#define MIB (1024.0 * 1024.0)

/* The most a benchmark file may hold to be appended to: about 100 bytes a
 * run, so 160,000 runs. Read whole, as anything another user may have put at
 * the path. */
#define BENCHMARK_TSV_MAX ((size_t)16 << 20)

/* The file at path as it is now: *data (malloc'd, NULL when the file is
 * missing or empty) and *len, after checking that it starts with our
 * header. Read under the output rules (output_file_read: the name never
 * followed, the held directory once the run has started), so a link put
 * at the name, or another user's file put there in a shared directory, is
 * not read but replaced by the write: *replaced says so. 0, or -1 with
 * the reason in err. Written back whole, with the new row, by
 * output_file_write(). */
static int existing(const char *path, char **data, size_t *len, int *replaced, char *err,
                    size_t errcap)
{
    if (output_file_read(path, BENCHMARK_TSV_MAX, "--benchmark-tsv file", data, len, replaced) !=
        GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        return -1;
    }
    size_t h = sizeof benchmark_tsv_header - 1;
    if (*len == 0 ||
        (*len > h && memcmp(*data, benchmark_tsv_header, h) == 0 && (*data)[h] == '\n'))
        return 0;
    free(*data);
    *data = NULL;
    snprintf(err, errcap, "--benchmark-tsv file '%s' is not a benchmark file of gpu-tracker's "
             "(its first line is not the header s, h:m:s, ..., max_gpu_ram, mean_gpu_load): "
             "give a new file", path);
    return -1;
}

int benchmark_tsv_check(const char *path, char *err, size_t errcap)
{
    if (output_file_check(path) != GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        return -1;
    }
    char *data;
    size_t len;
    int replaced;
    int rc = existing(path, &data, &len, &replaced, err, errcap);
    free(data);
    if (rc == 0 && output_file_hold(path) != GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        rc = -1;
    }
    return rc;
}

/* Snakemake's h:m:s: whole seconds, "N day(s), " before a day or more. */
static void hms(double seconds, char *out, size_t cap)
{
    long s = (long)seconds, days = s / 86400;
    s %= 86400;
    char prefix[32] = "";
    if (days)
        snprintf(prefix, sizeof prefix, "%ld day%s, ", days, days == 1 ? "" : "s");
    snprintf(out, cap, "%s%ld:%02ld:%02ld", prefix, s / 3600, s / 60 % 60, s % 60);
}

/* Appends the row of a run (u in the options' units, its totals) to path. */
static int append_row(const gt_resource_usage *u, const gt_totals *totals, const char *path,
                      char *err, size_t errcap)
{
    double ram = units_ram_divisor(u->max_ram.unit), gram = units_ram_divisor(u->max_gpu_ram.unit);
    char when[64], uss[32] = "-", io_in[32] = "-", io_out[32] = "-", gpu[32] = "-",
         gpu_load[32] = "-";
    /* USS is the private part, known where smaps_rollup was read (a run's
     * tenth samples and its new highs): "-" for a run too short to have it. */
    if (u->max_ram.combined.private_rss > 0)
        snprintf(uss, sizeof uss, "%.2f", u->max_ram.combined.private_rss * ram / MIB);
    hms(totals->wall_seconds, when, sizeof when);
    if (totals->io_available) {
        snprintf(io_in, sizeof io_in, "%.2f", totals->read_bytes / MIB);
        snprintf(io_out, sizeof io_out, "%.2f", totals->write_bytes / MIB);
    }
    if (u->measurement.gpu_available) {
        snprintf(gpu, sizeof gpu, "%.2f", u->max_gpu_ram.combined * gram / MIB);
        snprintf(gpu_load, sizeof gpu_load, "%.2f",
                 u->gpu_utilization.gpu_percentages.mean_sum_percent);
    }
    char *data;
    size_t len;
    int replaced;
    if (existing(path, &data, &len, &replaced, err, errcap) < 0)
        return -1;
    if (replaced)
        cli_error("warning: --benchmark-tsv file '%s' was replaced during the "
                  "run by a link or another user's file: not read, replaced by a new file with "
                  "this run's row\n", path);
    char row[1024];
    int n = snprintf(row, sizeof row, "%s%s%.4f\t%s\t%.2f\t-\t%s\t-\t%s\t%s\t%.2f\t%.2f\t%s\t%s\n",
                     len ? "" : benchmark_tsv_header, len ? "" : "\n", totals->wall_seconds,
                     when, u->max_ram.combined.total_rss * ram / MIB, uss, io_in, io_out,
                     u->cpu_utilization.combined.mean_sum_percent,
                     totals->cpu_main_seconds + totals->cpu_descendants_seconds, gpu, gpu_load);
    size_t rowlen = n > 0 && (size_t)n < sizeof row ? (size_t)n : strlen(row);
    char *all = realloc(data, len + rowlen);
    if (!all) {
        free(data);
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': out of memory", path);
        return -1;
    }
    memcpy(all + len, row, rowlen);
    gt_status st = output_file_write(path, all, len + rowlen);
    free(all);
    if (st != GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        return -1;
    }
    return 0;
}

int benchmark_tsv_append(gt_tracker *t, const char *path, char *err, size_t errcap)
{
    gt_run_results *res;
    if (gt_run_results_read(t, &res) != GT_OK) {
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': no results", path);
        return -1;
    }
    int rc = append_row(&res->usage, &res->totals, path, err, errcap);
    gt_run_results_free(res);
    return rc;
}
