/* benchmark_tsv.c - see benchmark_tsv.h. Snakemake 7.21's
 * snakemake/benchmark.py is the reference for the format: columns joined by
 * tabs, s with 4 decimals, h:m:s as H:MM:SS (after "N day(s), "), the rest
 * with 2 decimals, "-" for a figure not measured; memory and I/O in MiB
 * (bytes / 1024 / 1024, which it labels MB), mean_load the CPU percent of
 * one core averaged over the run, cpu_time user + system seconds. */
#define _GNU_SOURCE
#include "benchmark_tsv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_tracker_internal.h"

const char benchmark_tsv_header[] = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out"
                                    "\tmean_load\tcpu_time\tmax_gpu_ram\tmean_gpu_load";

#define MIB (1024.0 * 1024.0)

/* Opens path to append, never through a link, never waiting on a FIFO:
 * the descriptor, or -1 with errno (EINVAL: not a regular file). */
static int open_append(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                  0666);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

static const char *open_error(int e)
{
    return e == ELOOP ? "it is a symbolic link (give the file itself)"
           : e == EINVAL ? "it is not a regular file"
                         : strerror(e);
}

/* What the file starts with: 1 our header, 0 empty or missing, -1 other. */
static int first_line(const char *path, char *err, size_t errcap)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errcap, "cannot read --benchmark-tsv file '%s': %s", path,
                 open_error(errno));
        return -1;
    }
    struct stat st;
    char line[sizeof benchmark_tsv_header + 1];
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, line, sizeof line - 1) : -2;
    close(fd);
    if (n == -2) {
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': it is not a regular file",
                 path);
        return -1;
    }
    if (n == 0)
        return 0;
    size_t h = sizeof benchmark_tsv_header - 1;
    if (n == (ssize_t)(h + 1) && memcmp(line, benchmark_tsv_header, h) == 0 && line[h] == '\n')
        return 1;
    snprintf(err, errcap, "--benchmark-tsv file '%s' is not a benchmark file of gpu-tracker's "
             "(its first line is not the header s, h:m:s, ..., max_gpu_ram, mean_gpu_load): "
             "give a new file", path);
    return -1;
}

int benchmark_tsv_check(const char *path, char *err, size_t errcap)
{
    return first_line(path, err, errcap) < 0 ? -1 : 0;
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

int benchmark_tsv_append(gt_tracker *t, const char *path, char *err, size_t errcap)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    gt_totals totals = {.struct_size = sizeof totals};
    if (!u || gt_tracker_totals(t, &totals) != GT_OK) {
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': no results", path);
        return -1;
    }
    double ram = gt_ram_unit_bytes(u->max_ram.unit), gram = gt_ram_unit_bytes(u->max_gpu_ram.unit);
    char when[64], uss[32] = "-", io_in[32] = "-", io_out[32] = "-", gpu[32] = "-",
         gpu_load[32] = "-";
    /* USS is the private part, known where smaps_rollup was read (a run's
     * tenth samples and its new highs): "-" for a run too short to have it. */
    if (u->max_ram.combined.private_rss > 0)
        snprintf(uss, sizeof uss, "%.2f", u->max_ram.combined.private_rss * ram / MIB);
    hms(totals.wall_seconds, when, sizeof when);
    if (totals.io_available) {
        snprintf(io_in, sizeof io_in, "%.2f", totals.read_bytes / MIB);
        snprintf(io_out, sizeof io_out, "%.2f", totals.write_bytes / MIB);
    }
    if (u->measurement.gpu_available) {
        snprintf(gpu, sizeof gpu, "%.2f", u->max_gpu_ram.combined * gram / MIB);
        snprintf(gpu_load, sizeof gpu_load, "%.2f",
                 u->gpu_utilization.gpu_percentages.mean_sum_percent);
    }
    int have = first_line(path, err, errcap);
    if (have < 0)
        return -1;
    char row[1024];
    int n = snprintf(row, sizeof row, "%s%s%.4f\t%s\t%.2f\t-\t%s\t-\t%s\t%s\t%.2f\t%.2f\t%s\t%s\n",
                     have ? "" : benchmark_tsv_header, have ? "" : "\n", totals.wall_seconds,
                     when, u->max_ram.combined.total_rss * ram / MIB, uss, io_in, io_out,
                     u->cpu_utilization.combined.mean_sum_percent,
                     totals.cpu_main_seconds + totals.cpu_descendants_seconds, gpu, gpu_load);
    int fd = open_append(path);
    if (fd < 0) {
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': %s", path,
                 open_error(errno));
        return -1;
    }
    ssize_t w = write(fd, row, (size_t)n);
    int e = errno;
    if (close(fd) != 0 && w == n) {
        w = -1;
        e = errno;
    }
    if (w != n) {
        snprintf(err, errcap, "cannot write --benchmark-tsv file '%s': %s", path,
                 w < 0 ? strerror(e) : "a short write");
        return -1;
    }
    return 0;
}
