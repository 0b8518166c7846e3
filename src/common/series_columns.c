/* series_columns.c - the column tables of the two series. The ranges are
 * generous bounds of what a machine can produce, not guesses at typical
 * values: a timestamp before the year 2286, a PID within pid_max, at most a
 * million cores, 2^50 kB (an exbibyte) of memory, 2^60 bytes in an
 * interval. They keep every value finite and within its type (counts are
 * read as 64-bit integers, never through a double), so that no later
 * arithmetic or conversion overflows. */
#include "common/series_columns.h"
#include "common/toolkit.h"

#define MAX_TIMESTAMP 1e10       /* epoch seconds: year 2286 */
#define MAX_PID 4194304.0        /* the kernel's largest pid_max */
#define MAX_CPU_SECONDS 1e12     /* in one interval, all cores */
#define MAX_CORES 1e6
#define MAX_KB 1125899906842624.0 /* 2^50 kB */
#define MAX_BYTES 1152921504606846976.0 /* 2^60 */
#define MAX_GPUS 65536.0
#define MAX_MIB 1e12
#define MAX_GIB 1e12
#define MAX_JOULES 1e12          /* in one interval: a megawatt for 11 days */

#define PCOL(n, t, max) {#n, t, offsetof(gt_process_row, n), max}
static const struct series_column process_columns[] = {
    PCOL(timestamp, COLUMN_DOUBLE, MAX_TIMESTAMP),
    PCOL(pid, COLUMN_INT, MAX_PID),
    PCOL(children, COLUMN_LONG, MAX_PID),
    PCOL(utime, COLUMN_DOUBLE, MAX_CPU_SECONDS),
    PCOL(stime, COLUMN_DOUBLE, MAX_CPU_SECONDS),
    PCOL(cpu_usage, COLUMN_DOUBLE, MAX_CORES),
    PCOL(memory, COLUMN_ULL, MAX_KB),
    PCOL(read_bytes, COLUMN_ULL, MAX_BYTES),
    PCOL(write_bytes, COLUMN_ULL, MAX_BYTES),
    PCOL(gpu_usage, COLUMN_DOUBLE, MAX_GPUS),
    PCOL(gpu_vram, COLUMN_DOUBLE, MAX_MIB),
    PCOL(gpu_utilized, COLUMN_INT, MAX_GPUS),
};

#define SCOL(n, t, max) {#n, t, offsetof(gt_system_row, n), max}
static const struct series_column system_columns[] = {
    SCOL(timestamp, COLUMN_DOUBLE, MAX_TIMESTAMP),
    SCOL(processes, COLUMN_LONG, MAX_PID),
    SCOL(utime, COLUMN_DOUBLE, MAX_CPU_SECONDS),
    SCOL(stime, COLUMN_DOUBLE, MAX_CPU_SECONDS),
    SCOL(cpu_usage, COLUMN_DOUBLE, MAX_CORES),
    SCOL(memory_free, COLUMN_ULL, MAX_KB),
    SCOL(memory_used, COLUMN_ULL, MAX_KB),
    SCOL(memory_buffers, COLUMN_ULL, MAX_KB),
    SCOL(memory_cached, COLUMN_ULL, MAX_KB),
    SCOL(memory_active, COLUMN_ULL, MAX_KB),
    SCOL(memory_inactive, COLUMN_ULL, MAX_KB),
    SCOL(disk_read_bytes, COLUMN_ULL, MAX_BYTES),
    SCOL(disk_write_bytes, COLUMN_ULL, MAX_BYTES),
    SCOL(disk_space_total_gb, COLUMN_DOUBLE, MAX_GIB),
    SCOL(disk_space_used_gb, COLUMN_DOUBLE, MAX_GIB),
    SCOL(disk_space_free_gb, COLUMN_DOUBLE, MAX_GIB),
    SCOL(net_recv_bytes, COLUMN_ULL, MAX_BYTES),
    SCOL(net_sent_bytes, COLUMN_ULL, MAX_BYTES),
    SCOL(gpu_usage, COLUMN_DOUBLE, MAX_GPUS),
    SCOL(gpu_vram, COLUMN_DOUBLE, MAX_MIB),
    SCOL(gpu_utilized, COLUMN_INT, MAX_GPUS),
    /* ours, since 0.3 */
    SCOL(pressure_ok, COLUMN_INT, 1),
    SCOL(pressure_cpu_some, COLUMN_DOUBLE, 1),
    SCOL(pressure_cpu_full, COLUMN_DOUBLE, 1),
    SCOL(pressure_memory_some, COLUMN_DOUBLE, 1),
    SCOL(pressure_memory_full, COLUMN_DOUBLE, 1),
    SCOL(pressure_io_some, COLUMN_DOUBLE, 1),
    SCOL(pressure_io_full, COLUMN_DOUBLE, 1),
    SCOL(energy_ok, COLUMN_INT, 1),
    SCOL(cpu_energy_joules, COLUMN_DOUBLE, MAX_JOULES),
    SCOL(dram_energy_joules, COLUMN_DOUBLE, MAX_JOULES),
};
#define SYSTEM_RT_COLUMNS 21 /* timestamp .. gpu_utilized */

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

const struct series_columns *series_columns(gt_series_kind kind)
{
    static const struct series_columns process = {process_columns, NCOLS(process_columns),
                                                  sizeof(gt_process_row),
                                                  NCOLS(process_columns)};
    static const struct series_columns system = {system_columns, NCOLS(system_columns),
                                                 sizeof(gt_system_row), SYSTEM_RT_COLUMNS};
    return kind == GT_SERIES_KIND_PROCESS ? &process : &system;
}

const char *series_column_name(int kind, size_t i)
{
    const struct series_columns *c =
        series_columns(kind == GT_SERIES_KIND_PROCESS ? GT_SERIES_KIND_PROCESS
                                                      : GT_SERIES_KIND_SYSTEM);
    return i < c->rt_ncolumns ? c->columns[i].name : NULL;
}

double series_column_value(const struct series_column *c, const void *row)
{
    const char *field = (const char *)row + c->offset;
    switch (c->type) {
    case COLUMN_DOUBLE: return *(const double *)field;
    case COLUMN_INT: return (double)*(const int *)field;
    case COLUMN_LONG: return (double)*(const long *)field;
    case COLUMN_ULL: return (double)*(const unsigned long long *)field;
    }
    return 0;
}

void series_column_set(const struct series_column *c, void *row, double v, unsigned long long u)
{
    char *field = (char *)row + c->offset;
    switch (c->type) {
    case COLUMN_DOUBLE: *(double *)field = v; break;
    case COLUMN_INT: *(int *)field = (int)u; break;
    case COLUMN_LONG: *(long *)field = (long)u; break;
    case COLUMN_ULL: *(unsigned long long *)field = u; break;
    }
}
