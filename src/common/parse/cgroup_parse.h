/* cgroup_parse.h - pure parsers of the cgroup files a job's group figures
 * come from (issue 17): /proc/<pid>/cgroup, the flat keyed files
 * (memory.stat, cpu.stat, memory.events, v1 memory.oom_control), the
 * single values (memory.peak, memory.max, v1 limit_in_bytes) and pressure
 * stall information (cpu.pressure, memory.pressure, io.pressure), as
 * Documentation/admin-guide/cgroup-v2.rst and cgroup-v1/memory.rst
 * describe them.
 *
 * Like proc_parse.h: a buffer in, a struct out, no I/O, no allocation;
 * -1 when the text does not have the file's shape (then nothing of it is
 * used). */
#ifndef GT_CGROUP_PARSE_H
#define GT_CGROUP_PARSE_H

#include <stddef.h>

#define CGROUP_PATH_LEN 1024

/* Where a process is in each hierarchy, from /proc/<pid>/cgroup. A path
 * is "" when that hierarchy is not there. */
struct cgroup_membership {
    char unified[CGROUP_PATH_LEN]; /* the v2 line "0::PATH" */
    int have_unified;
    char memory[CGROUP_PATH_LEN];  /* v1 "N:...memory...:PATH" */
    char cpu[CGROUP_PATH_LEN];     /* v1 cpu (often joined as cpu,cpuacct) */
    char cpuacct[CGROUP_PATH_LEN];
    int have_memory, have_cpu, have_cpuacct;
};

/* Parses /proc/<pid>/cgroup. A path with "..", a NUL or that does not
 * start with '/' is refused (-1): it is joined to a mount point. */
int cgroup_parse_membership(const char *buf, size_t len, struct cgroup_membership *out);

/* A value file: a decimal count, or "max" (then *is_max is 1 and *out 0).
 * Trailing newline allowed, nothing else. */
int cgroup_parse_value(const char *buf, size_t len, unsigned long long *out, int *is_max);

/* A flat keyed file ("key value" lines): the values of the nkeys keys
 * asked for into values[i], bit i of *found set for each found. Lines of
 * other keys are skipped; a line of an asked key whose value is not a
 * count fails the whole file (-1). */
int cgroup_parse_keyed(const char *buf, size_t len, const char *const *keys, size_t nkeys,
                       unsigned long long *values, unsigned *found);

/* A pressure file: the "total=" microseconds of its "some" line and of its
 * "full" line (absent from cpu.pressure before Linux 5.13: have_full 0). */
struct psi_totals {
    unsigned long long some_us, full_us;
    int have_full;
};
int cgroup_parse_pressure(const char *buf, size_t len, struct psi_totals *out);

#endif
