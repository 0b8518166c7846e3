/* backup_cost.c - gt-bench-backup: what the crash backup costs (the
 * backup sink, src/lib/sink/backup_sink.c, driven as the sampling thread
 * drives it, on a file in a temporary directory).
 *
 *   gt-bench-backup
 *
 * Three rows, each the process's CPU time (the sampling thread's look and
 * the writer thread's write) and the writes made:
 *   - one write: a summary whose memory peak grew, at every look (a job
 *     whose peak climbs every second writes at every look), per write;
 *   - an hour of a steady job at --st 1: 3600 looks with the same figures
 *     (the refresh writes every 5 minutes), the hour's total;
 *   - an hour of a job whose peak climbs all the time: 3600 looks, each
 *     with a peak 1.1 % above the last (a write at each), the hour's total.
 * The clock is the sink's own (the looks are given their times, an hour
 * passes in a few seconds of wall time); each write waits for the writer
 * thread (backup_sink_flush) so that its CPU is counted. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"
#include "sink/backup_sink.h"
#include "common/warn.h"

static double process_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A summary of a small job: its peaks from peak_mib. */
static void summary_of(gt_resource_usage *u, double peak_mib)
{
    memset(u, 0, sizeof *u);
    u->struct_size = sizeof *u;
    snprintf(u->max_ram.unit, sizeof u->max_ram.unit, "bytes");
    snprintf(u->max_gpu_ram.unit, sizeof u->max_gpu_ram.unit, "bytes");
    snprintf(u->compute_time.unit, sizeof u->compute_time.unit, "seconds");
    u->max_ram.main.total_rss = u->max_ram.combined.total_rss = peak_mib * 1048576.0;
    u->max_ram.main.private_rss = u->max_ram.combined.private_rss = peak_mib * 1048576.0 * 0.9;
    u->max_ram.main.shared_rss = u->max_ram.combined.shared_rss = peak_mib * 1048576.0 * 0.1;
    u->max_ram.system_capacity = 24.0 * 1073741824.0;
    u->cpu_utilization.system_core_count = 2;
    u->cpu_utilization.main_n_threads = u->cpu_utilization.combined_n_threads = 1;
    u->measurement.sleep_time = 1.0;
    u->measurement.samples = 1;
}

/* looks looks, one a second from t0; the peak grows by growth (a factor)
 * at each. The CPU seconds it cost; *writes the writes made. */
static double run_looks(const char *path, int looks, double growth, int *writes)
{
    struct warn_channel w;
    warn_channel_init(&w, NULL, NULL, 1);
    struct backup_sink b;
    if (backup_sink_init(&b, path, 1.0, 5.0, &w) != GT_OK) {
        fprintf(stderr, "gt-bench-backup: cannot make the sink: %s\n", gt_last_error());
        exit(1);
    }
    gt_resource_usage u;
    double peak = 100, t = 1000.0;
    b.base.ops->wants_summary(&b.base, t); /* the baseline */
    double cpu0 = process_cpu();
    for (int i = 0; i < looks; i++) {
        t += 1.0;
        peak *= growth;
        summary_of(&u, peak);
        u.measurement.samples = i + 2;
        u.compute_time.time = t - 1000.0;
        if (b.base.ops->wants_summary(&b.base, t)) {
            b.base.ops->summary(&b.base, &u, t);
            backup_sink_flush(&b);
        }
    }
    double cpu = process_cpu() - cpu0;
    *writes = b.written;
    backup_sink_destroy_lock(&b); /* ends the writer thread */
    backup_sink_forget(&b);
    unlink(path);
    return cpu;
}

int main(void)
{
    char dir[] = "/tmp/gt-bench-backup-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("gt-bench-backup: mkdtemp");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/backup.json", dir);
    printf("\nThe crash backup (the sink on a file in %s; CPU of the look and the write)\n",
           "/tmp");
    printf("%-44s %8s %12s\n", "case", "writes", "CPU");
    int writes;
    double cpu = run_looks(path, 200, 1.02, &writes);
    printf("%-44s %8d %9.1f us\n", "a memory peak that grew, per write", writes,
           writes ? cpu / writes * 1e6 : 0.0);
    cpu = run_looks(path, 3600, 1.0, &writes);
    printf("%-44s %8d %9.1f ms\n", "an hour of a steady job (--st 1)", writes, cpu * 1e3);
    cpu = run_looks(path, 3600, 1.011, &writes);
    printf("%-44s %8d %9.1f ms\n", "an hour of a peak up 1.1 % at every look", writes,
           cpu * 1e3);
    rmdir(dir);
    return 0;
}
