/* series.c - rows of the process and system series from two readings, and
 * (the row store keeps them: row_store.c; their CSV: write_csv.c). */
#define _GNU_SOURCE
#include "pipeline/series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/pyfloat.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Counters kept in 32 bits by old drivers wrap at 2^32; one that was within
 * this much of the wrap and is now small wrapped, rather than restarted. */
#define WRAP32 (1ULL << 32)
#define WRAP32_WINDOW (1ULL << 30)

unsigned long long series_counter_delta(unsigned long long prev, unsigned long long cur)
{
    if (cur >= prev)
        return cur - prev;
    if (prev < WRAP32 && prev >= WRAP32 - WRAP32_WINDOW && cur < WRAP32_WINDOW)
        return WRAP32 - prev + cur; /* a 32-bit counter wrapped */
    return cur;                     /* restarted: what it counted since */
}

/* A cumulative figure of the tree that went down (a process we could read
 * left our view) gives 0, as resource_tracker's max(0, ...) does. */
static unsigned long long tree_delta(unsigned long long prev, unsigned long long cur)
{
    return cur > prev ? cur - prev : 0;
}

double series_timestamp(double epoch_start, long k, double interval)
{
    return pyfloat_round(epoch_start + (double)k * interval, 3);
}

void series_process_row(const struct process_reading *prev,
                        const struct process_reading *cur, double seconds,
                        double ticks_per_second, double timestamp, pid_t pid,
                        gt_process_row *row)
{
    memset(row, 0, sizeof *row);
    row->timestamp = timestamp;
    row->pid = (int)pid;
    row->children = cur->children;
    unsigned long long du = tree_delta(prev->utime_ticks, cur->utime_ticks);
    unsigned long long ds = tree_delta(prev->stime_ticks, cur->stime_ticks);
    row->utime = pyfloat_round((double)du / ticks_per_second, 6);
    row->stime = pyfloat_round((double)ds / ticks_per_second, 6);
    /* cpu_usage from the nanosecond run time where the kernel gave it:
     * ticks land in whole 1/USER_HZ steps, so over a short interval a busy
     * tree shows a step more or less than it ran. The cap still holds: a
     * process reaped in the interval moves into its parent's tick counts. */
    double cores = (double)tree_delta(prev->cpu_ns, cur->cpu_ns) / 1e9 / seconds;
    if (cur->ncpu > 0 && cores > cur->ncpu)
        cores = cur->ncpu;
    row->cpu_usage = pyfloat_round(cores, 4);
    row->memory = cur->pss_kb;
    row->read_bytes = tree_delta(prev->read_bytes, cur->read_bytes);
    row->write_bytes = tree_delta(prev->write_bytes, cur->write_bytes);
    row->gpu_usage = pyfloat_round(cur->gpu.usage, 4);
    row->gpu_vram = pyfloat_round(cur->gpu.vram_mib, 4);
    row->gpu_utilized = cur->gpu.utilized;
}

static const struct disk_counter *find_disk(const struct system_series_sample *s,
                                            const struct disk_counter *d)
{
    for (size_t i = 0; i < s->ndisks; i++)
        if (s->disks[i].major == d->major && s->disks[i].minor == d->minor &&
            strcmp(s->disks[i].name, d->name) == 0)
            return &s->disks[i];
    return NULL;
}

static const struct net_counter *find_net(const struct system_series_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nnets; i++)
        if (strcmp(s->nets[i].name, name) == 0)
            return &s->nets[i];
    return NULL;
}

/* Disk and network traffic of the interval: per device, for the devices in
 * both readings (one that appeared counts from its second reading on; one
 * that went away takes its bytes with it). */
static void io_deltas(const struct system_series_sample *p, const struct system_series_sample *c,
                      gt_system_row *row)
{
    if (p->disks_ok && c->disks_ok)
        for (size_t i = 0; i < c->ndisks; i++) {
            const struct disk_counter *was = find_disk(p, &c->disks[i]);
            if (!was)
                continue;
            row->disk_read_bytes += series_counter_delta(was->read_sectors,
                                                         c->disks[i].read_sectors) *
                                    DISK_SECTOR_BYTES;
            row->disk_write_bytes += series_counter_delta(was->write_sectors,
                                                          c->disks[i].write_sectors) *
                                     DISK_SECTOR_BYTES;
        }
    if (p->nets_ok && c->nets_ok)
        for (size_t i = 0; i < c->nnets; i++) {
            const struct net_counter *was = find_net(p, c->nets[i].name);
            if (!was)
                continue;
            row->net_recv_bytes += series_counter_delta(was->rx_bytes, c->nets[i].rx_bytes);
            row->net_sent_bytes += series_counter_delta(was->tx_bytes, c->nets[i].tx_bytes);
        }
}

/* The machine's CPU in the interval, in cores: busy ticks over the
 * kernel's own count of the time that passed (every tick of /proc/stat,
 * over the CPUs), not over the wall clock. Both then move in the same
 * 1/USER_HZ steps, so a short interval cannot read more cores than there
 * are (at 10 ms, 4 busy ticks against a 10 ms clock read 4 cores on 2
 * CPUs). Without that count, the wall clock; never above the CPU count
 * (idle can step back on some kernels). */
static double system_cores(const struct sys_cpu *prev, const struct sys_cpu *cur,
                           unsigned long long busy, double seconds, double ticks_per_second)
{
    unsigned long long elapsed = tree_delta(prev->total, cur->total);
    double cores = cur->ncpu > 0 && elapsed > 0
        ? (double)busy * cur->ncpu / (double)elapsed
        : (double)busy / ticks_per_second / seconds;
    return cur->ncpu > 0 && cores > cur->ncpu ? cur->ncpu : cores;
}

/* The share of the interval each resource was stalled, from the
 * cumulative microseconds at both ends (a counter that went back, or one
 * not read at both ends, leaves the row's pressure out). */
static void pressure_shares(const struct system_series_sample *p,
                            const struct system_series_sample *c, double seconds,
                            gt_system_row *row)
{
    double *some[CGROUP_PSI_N] = {&row->pressure_cpu_some, &row->pressure_memory_some,
                                  &row->pressure_io_some};
    double *full[CGROUP_PSI_N] = {&row->pressure_cpu_full, &row->pressure_memory_full,
                                  &row->pressure_io_full};
    for (int i = 0; i < CGROUP_PSI_N; i++)
        if (!p->psi_ok[i] || !c->psi_ok[i] || c->psi[i].some_us < p->psi[i].some_us ||
            c->psi[i].full_us < p->psi[i].full_us)
            return;
    double us = seconds * 1e6;
    for (int i = 0; i < CGROUP_PSI_N; i++) {
        double sv = (double)(c->psi[i].some_us - p->psi[i].some_us) / us;
        double fv = (double)(c->psi[i].full_us - p->psi[i].full_us) / us;
        *some[i] = pyfloat_round(sv > 1 ? 1 : sv, 4);
        *full[i] = pyfloat_round(fv > 1 ? 1 : fv, 4);
    }
    row->pressure_ok = 1;
}

void series_system_row(const struct system_reading *prev, const struct system_reading *cur,
                       double seconds, double ticks_per_second, double timestamp,
                       gt_system_row *row)
{
    memset(row, 0, sizeof *row);
    row->timestamp = timestamp;
    if (prev->cpu_ok && cur->cpu_ok) {
        unsigned long long du = tree_delta(prev->cpu.user_nice, cur->cpu.user_nice);
        unsigned long long ds = tree_delta(prev->cpu.system, cur->cpu.system);
        row->utime = pyfloat_round((double)du / ticks_per_second, 6);
        row->stime = pyfloat_round((double)ds / ticks_per_second, 6);
        row->cpu_usage =
            pyfloat_round(system_cores(&prev->cpu, &cur->cpu, du + ds, seconds, ticks_per_second), 4);
        const struct meminfo *m = &cur->mem;
        row->memory_free = m->free_kb;
        unsigned long long not_used = m->free_kb + m->buffers_kb + m->cached_kb;
        row->memory_used = m->total_kb > not_used ? m->total_kb - not_used : 0;
        row->memory_buffers = m->buffers_kb;
        row->memory_cached = m->cached_kb;
        row->memory_active = m->active_kb;
        row->memory_inactive = m->inactive_kb;
    }
    const struct system_series_sample *c = cur->extra, *p = prev->extra;
    if (c) {
        row->processes = c->processes_ok ? c->processes : 0;
        if (c->fs_ok) {
            row->disk_space_total_gb = pyfloat_round((double)c->fs_total_bytes / GIB, 2);
            row->disk_space_used_gb = pyfloat_round((double)c->fs_used_bytes / GIB, 2);
            row->disk_space_free_gb = pyfloat_round((double)c->fs_free_bytes / GIB, 2);
        }
        if (p) {
            io_deltas(p, c, row);
            pressure_shares(p, c, seconds, row);
        }
    }
    if (prev->rapl.ok && cur->rapl.ok && cur->rapl.package_uj >= prev->rapl.package_uj &&
        cur->rapl.dram_uj >= prev->rapl.dram_uj) {
        row->energy_ok = 1;
        row->cpu_energy_joules =
            pyfloat_round((double)(cur->rapl.package_uj - prev->rapl.package_uj) / 1e6, 3);
        row->dram_energy_joules =
            pyfloat_round((double)(cur->rapl.dram_uj - prev->rapl.dram_uj) / 1e6, 3);
    }
    row->gpu_usage = pyfloat_round(cur->gpu.usage, 4);
    row->gpu_vram = pyfloat_round(cur->gpu.vram_mib, 4);
    row->gpu_utilized = cur->gpu.utilized;
}
