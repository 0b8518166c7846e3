/* series.h - the process and system time series (resource_tracker's
 * ProcessTracker and SystemTracker rows).
 *
 * A row is made from two readings of cumulative counters, the previous one
 * and the current one, and the seconds between them: CPU seconds and bytes
 * are what happened in that interval, memory and GPU figures are what the
 * current reading saw. Everything here is pure (no I/O), so the row logic is
 * tested on constructed readings; tracker.c takes the readings. */
#ifndef GT_SERIES_H
#define GT_SERIES_H

#include <stddef.h>
#include <sys/types.h>

#include "gpu_tracker_internal.h"
#include "sample.h"


/* One reading of the tracked tree (see tree_sample). */
struct process_reading {
    unsigned long long utime_ticks, stime_ticks;
    unsigned long long cpu_ns;  /* the same CPU, finer (tree_sample.cpu_ns) */
    unsigned long long read_bytes, write_bytes;
    unsigned long long pss_kb;
    long children;
    struct series_gpu gpu;
    int ncpu;   /* the machine's CPUs at this reading (0: not known): no
                   row's cpu_usage is above it */
};

/* One reading of the whole system. extra may be NULL (not read). */
struct system_reading {
    int cpu_ok;
    struct sys_cpu cpu;
    struct meminfo mem;
    const struct system_series_sample *extra;
    struct series_gpu gpu;
    struct rapl_sample rapl;  /* the CPUs' energy so far (rapl.ok 0: none) */
};

/* How far a device counter moved. A counter that went backwards wrapped,
 * if it was a 32-bit counter near 2^32 (within 1 GiB) and is now small (old
 * drivers keep 32-bit counters); otherwise it was restarted (the device was
 * removed and came back, or its driver reset it), and what it shows now is
 * what it counted since. */
unsigned long long series_counter_delta(unsigned long long prev, unsigned long long cur);

/* The timestamp of row k (k >= 1) of a series started at epoch_start
 * (seconds since the epoch) with the given interval: its scheduled time,
 * rounded to milliseconds. */
double series_timestamp(double epoch_start, long k, double interval);

/* The row for the interval from prev to cur, seconds long (> 0). */
void series_process_row(const struct process_reading *prev, const struct process_reading *cur,
                        double seconds, double ticks_per_second, double timestamp, pid_t pid,
                        gt_process_row *row);
void series_system_row(const struct system_reading *prev, const struct system_reading *cur,
                       double seconds, double ticks_per_second, double timestamp,
                       gt_system_row *row);

#endif
