/* proc_parse.h - pure parsers of procfs files: a buffer in, a struct out.
 *
 * None of them reads a file, allocates or keeps state, so each is tested on
 * fixture strings. All return 0 on success and -1 when the text is malformed
 * or truncated before a required field; numbers that overflow 64 bits are
 * malformed too. */
#ifndef GT_PROC_PARSE_H
#define GT_PROC_PARSE_H

#include <stddef.h>
#include <sys/types.h>

/* /proc/<pid>/stat, parsed after the last ')' so that any comm works. */
struct proc_stat {
    char comm[16];                  /* field 2, without its parentheses: the
                                       command's short name, cut at 15 bytes
                                       as the kernel keeps it */
    char state;                     /* 'R', 'S', 'Z', ... */
    pid_t ppid;
    unsigned long long minflt;      /* its own minor faults, every thread's
                                       (a zombie's: all it made) */
    unsigned long long majflt;
    unsigned long long cminflt;     /* minor faults of reaped children */
    unsigned long long cmajflt;
    unsigned long long utime;       /* clock ticks */
    unsigned long long stime;
    unsigned long long cutime;      /* of reaped children, recursively */
    unsigned long long cstime;
    long num_threads;
    unsigned long long starttime;   /* ticks after boot: identifies the process */
    /* proc_parse_stat_delay() only (0 from proc_parse_stat): */
    int has_blkio;                  /* the line reached field 42 */
    unsigned long long blkio_ticks; /* 42 delayacct_blkio_ticks: time its
                                       threads waited for block I/O, clock
                                       ticks (0 unless the kernel's delay
                                       accounting is on) */
};
int proc_parse_stat(const char *buf, size_t len, struct proc_stat *out);
/* proc_parse_stat() and field 42, twenty fields further: for the one
 * process whose I/O wait is looked at (the tracked main process), not
 * every process of a walk. */
int proc_parse_stat_delay(const char *buf, size_t len, struct proc_stat *out);

/* /proc/<pid>/status. A zombie has no Vm* lines: has_memory is then 0. */
struct proc_status {
    int has_memory;
    unsigned long long vm_rss_kb;
    unsigned long long vm_hwm_kb;
    unsigned long long rss_anon_kb;
    unsigned long long rss_file_kb;
    unsigned long long rss_shmem_kb;
    long threads;
    /* SigIgn holds SIGCHLD: the kernel reaps this process's children
     * itself, and their CPU time and peak RSS never reach its counters
     * (cutime, wait4's rusage). */
    int sigchld_ignored;
};
int proc_parse_status(const char *buf, size_t len, struct proc_status *out);

/* /proc/<pid>/smaps_rollup: private = Private_Clean + Private_Dirty,
 * shared = Shared_Clean + Shared_Dirty. */
struct proc_rollup {
    unsigned long long rss_kb;
    unsigned long long pss_kb;
    unsigned long long private_kb;
    unsigned long long shared_kb;
};
int proc_parse_smaps_rollup(const char *buf, size_t len, struct proc_rollup *out);

/* /proc/<pid>/task/<tid>/children: pids separated by spaces. Stores at most
 * cap pids in out and the number found (which may exceed cap) in *count. */
int proc_parse_pid_list(const char *buf, size_t len, pid_t *out, size_t cap, size_t *count);

/* The aggregate "cpu" line and the number of "cpuN" lines of /proc/stat.
 * busy excludes idle and iowait; guest time is already inside user/nice. */
struct sys_cpu {
    unsigned long long busy;
    unsigned long long total;
    unsigned long long user_nice;  /* user + nice (resource_tracker's utime) */
    unsigned long long system;     /* system (resource_tracker's stime) */
    int ncpu;
};
int proc_parse_cpu_stat(const char *buf, size_t len, struct sys_cpu *out);

/* /proc/meminfo: MemTotal and MemAvailable (both required); the others are
 * 0 when the kernel does not have them. */
struct meminfo {
    unsigned long long total_kb;
    unsigned long long available_kb;
    unsigned long long free_kb, buffers_kb, cached_kb, active_kb, inactive_kb;
    unsigned long long sreclaimable_kb; /* reclaimable slab (caches of the kernel's own) */
};
int proc_parse_meminfo(const char *buf, size_t len, struct meminfo *out);

/* /proc/<pid>/io: bytes the process (with the children it reaped) caused to
 * be read from / sent to the storage layer. Both fields required. */
struct proc_io {
    unsigned long long read_bytes;
    unsigned long long write_bytes;
};
int proc_parse_io(const char *buf, size_t len, struct proc_io *out);

/* /proc/<pid>/schedstat: the task's time on a CPU and its time runnable
 * but waiting for one (the run-queue delay), nanoseconds, and how many
 * times it ran. A kernel that does not account them prints zeros. */
struct proc_schedstat {
    unsigned long long run_ns, wait_ns, slices;
};
int proc_parse_schedstat(const char *buf, size_t len, struct proc_schedstat *out);

#endif
