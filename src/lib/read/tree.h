/* tree.h - the tracked process tree: the main process and its descendants.
 *
 * Each tree_walk() finds the tree again (children of every thread, from
 * /proc/<pid>/task/<tid>/children, or a scan of /proc where the kernel lacks
 * those files), reads each process's stat and status, and sums them into a
 * tree_sample. Processes are identified by (pid, starttime) so a reused pid
 * is a new process.
 *
 * CPU time is cumulative and exact where the kernel allows: a process that
 * exits and is reaped by a member of the tree moves its time into that
 * member's cutime/cstime, which we count; with a reaper (see gt_options),
 * the reaper's cutime/cstime covers everything it reaped. */
#ifndef GT_TREE_H
#define GT_TREE_H

#include <sys/types.h>

#include "gpu_tracker_internal.h"
#include "common/pid_index.h"
#include "read/census.h"
#include "read/procfs.h"
#include "sample.h"


struct tracked_proc;

struct tree {
    int census_deferred;  /* 1: the caller runs tree_census_pass() after the
                             walk and takes the workers itself (the sample
                             reader: after the GPU sample has marked the
                             processes on a GPU, which are no workers) */
    int root_fd;          /* the procfs root directory */
    pid_t main_pid;
    pid_t reaper_pid;     /* 0: none */
    struct proc_handle reaper;
    struct tracked_proc *procs;
    size_t nprocs, capprocs;
    struct pid_index index; /* pid -> place in procs: lookups in constant time */
    unsigned char *roles; /* by place in procs: 1 main, 2 descendant (pid_roles) */
    pid_t *queue;
    size_t nqueue, capqueue;
    char *buf;            /* scratch for file contents */
    size_t bufcap;
    unsigned generation;  /* walks done */
    int scan_fallback;    /* no children files: scan /proc */
    int main_gone;        /* main has exited (or its pid was reused) */
    int fd_budget;        /* descriptors we may still keep open */
    int fd_budget_total;  /* what it was at the start */
    size_t release_next;  /* whose kept files make room next (make_room) */
    int fd_exhausted;     /* a process could not be opened: no descriptor left */
    unsigned long long departed_main_ticks, departed_desc_ticks;
    /* The same in nanoseconds (tree_sample.main_ns/desc_ns: run times
     * where run_clock reads them, ticks scaled by tick_ns otherwise). */
    unsigned long long departed_main_ns, departed_desc_ns;
    /* A file of a tracked process could not be read for lack of permission
     * (another user's process): its figures are left out. The first such
     * file, for the warning, and how many there were. */
    char unreadable[64];
    unsigned long nunreadable;
    /* The series: read io and smaps_rollup at every walk. */
    int series;
    /* io alone at every walk (the exporter's I/O counters). */
    int io;
    unsigned long long departed_utime, departed_stime, departed_read, departed_write;
    /* CPU in nanoseconds (the means and the series' cpu_usage): with
     * run_clock set (a procfs of our own PID namespace, not a fixture),
     * each live process's run time from its CPU clock
     * (clock_getcpuclockid), read at every walk, else its ticks scaled by
     * tick_ns. What departed processes had when last seen, in departed_ns. */
    int run_clock;
    unsigned long long tick_ns;
    unsigned long long departed_ns;
    /* options.sampled_only: CPU only from changes between two walks that saw
     * a process, summed here. */
    int sampled_only;
    /* options.main_only: no descendants are looked for, and the CPU time of
     * the children main reaped (its cutime/cstime) is not counted. */
    int main_only;
    /* The kernel's delay accounting is on (stat's block I/O delay counts). */
    int delayacct;
    unsigned long long sampled_main_ticks, sampled_desc_ticks;
    /* gpu-tracker's fork's VmHWM at the baseline, before the command's
     * exec (0: no such fork, or not read). */
    unsigned long long fork_hwm_kb;
    /* The run-queue delay (schedstat of each process's main thread), read
     * at every walk unless schedstat is -1 (the kernel has no such file);
     * schedstat_seen_run: some process showed run time (a kernel that does
     * not account it prints zeros); the totals of what was run and waited
     * between two walks that saw a process. */
    int schedstat;
    int schedstat_seen_run;
    unsigned long long sched_run_ns, sched_wait_ns;
    /* Who was in the tree (census.h), fed by every walk; walk_time is the
     * walk's monotonic time, set by the caller before it (0 in fixtures). */
    struct census census;
    double walk_time;
    /* The command lines the peak lists have named, by PID and start time
     * (a ring of the newest): a process that is exiting when a later peak
     * names it reads an empty cmdline once its memory is gone, and keeps
     * the line it had. */
    struct peak_name {
        pid_t pid;
        unsigned long long starttime;
        char cmdline[sizeof(((gt_peak_process *)0)->cmdline)];
    } peak_names[2 * GT_AT_PEAK_MAX];
    int next_peak_name;
};

/* Opens the procfs root and checks that main exists; at most
 * max_kept_files descriptors are kept open between walks (0: a quarter of
 * the RLIMIT_NOFILE soft limit). Returns 0, or -1 with errno (ENOENT: no
 * such process; others: the root cannot be opened). */
int tree_init(struct tree *t, const char *proc_root, pid_t main_pid, pid_t reaper_pid,
              int max_kept_files);
void tree_free(struct tree *t);

/* Where each pid stood in the tree at the last walk that succeeded (every
 * process still listed was seen by it): valid until the next walk. */
void tree_roles(const struct tree *t, struct pid_roles *out);

/* The PIDs of the processes the last walk found in the tree into *pids
 * (grown as needed; capacity *cap). Their number, or -1 when out of
 * memory. */
long tree_pids(const struct tree *t, pid_t **pids, size_t *cap);

/* Sends sig to every process the last walk found in the tree, and to the
 * descendants they have now (born since), but the calling process and the
 * reaper; how many it reached. */
int tree_signal(struct tree *t, int sig);

/* Who made up the tree at the last walk, for a peak (gt_peak_breakdown:
 * nprocesses, processes, others, others_bytes; the rest is the caller's):
 * the largest by RSS, or by the GPU memory the driver listed (procs, the
 * sample's), at most GT_AT_PEAK_MAX, their cmdline read now. O(n)
 * in the tree; no allocation. */
void tree_memory_breakdown(struct tree *t, gt_peak_breakdown *out);
void tree_gpu_breakdown(struct tree *t, const struct gpu_process *procs, size_t nprocs,
                        gt_peak_breakdown *out);

/* Marks the tree's processes that hold GPU memory in procs (a GPU
 * sample's, PIDs ours): from the census pass that follows on (the same
 * walk's, when it is deferred), the census counts them apart from the
 * worker groups (a process on the GPU is what workers feed, not one of
 * them; gpu_wait.h). O(nprocs). */
void tree_mark_gpu_holders(struct tree *t, const struct gpu_process *procs, size_t nprocs);

/* Tells the census (census.h) who the last walk found, with the PSS the
 * walk's sums worked out: tree_walk() does it at its end, unless
 * census_deferred (then the caller does, and reads census.busiest); the
 * benchmark times it alone. */
void tree_census_pass(struct tree *t);

/* Walks the tree and fills *s. Returns 0, or -1 with errno when the walk
 * itself failed (out of memory, reaper unreadable). A process that vanishes
 * mid-walk is simply not counted. */
int tree_walk(struct tree *t, struct tree_sample *s);

#endif
