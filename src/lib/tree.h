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

#include "pid_index.h"
#include "procfs.h"

/* What one walk saw. Memory in kB, CPU in clock ticks. */
struct tree_sample {
    int main_alive;                 /* main seen (running or zombie) */
    unsigned long long main_ticks;  /* cumulative utime+stime of main */
    unsigned long long desc_ticks;  /* cumulative CPU of all descendants */
    long main_threads, desc_threads;

    /* RSS now; private/shared from the latest smaps_rollup (see tree.c). */
    unsigned long long main_rss_kb, main_private_kb, main_shared_kb, main_pss_kb;
    unsigned long long desc_rss_kb, desc_private_kb, desc_shared_kb; /* sums */
    unsigned long long desc_shared_max_kb;      /* largest shared of one desc */
    unsigned long long desc_pss_shared_kb;      /* sum of (Pss - Private) */

    /* Kernel high-water marks (VmHWM) that were reached while tracked. */
    unsigned long long main_hwm_kb, desc_hwm_max_kb;

    /* main's reaped-children fault counters: both 0 means main reaped no
     * child, so its wait4 ru_maxrss is its own high-water mark. */
    unsigned long long main_cminflt, main_cmajflt;

    /* For the process series (tree->series set), of the whole tree:
     * cumulative CPU ticks split into user and system, cumulative bytes
     * read/written at the storage layer (as /proc/<pid>/io counts them: a
     * reaped child's bytes move into its parent's), PSS now, and the number
     * of live descendants. */
    unsigned long long utime_ticks, stime_ticks;
    unsigned long long read_bytes, write_bytes;
    unsigned long long pss_kb;
    long children;
};

struct tracked_proc;

struct tree {
    int root_fd;          /* the procfs root directory */
    pid_t main_pid;
    pid_t reaper_pid;     /* 0: none */
    struct proc_handle reaper;
    struct tracked_proc *procs;
    size_t nprocs, capprocs;
    struct pid_index index; /* pid -> place in procs: lookups in constant time */
    pid_t *queue;
    size_t nqueue, capqueue;
    char *buf;            /* scratch for file contents */
    size_t bufcap;
    unsigned generation;  /* walks done */
    int scan_fallback;    /* no children files: scan /proc */
    int main_gone;        /* main has exited (or its pid was reused) */
    int fd_budget;        /* descriptors we may still keep open */
    int fd_exhausted;     /* a process could not be opened: no descriptor left */
    unsigned long long departed_main_ticks, departed_desc_ticks;
    /* A file of a tracked process could not be read for lack of permission
     * (another user's process): its figures are left out. The first such
     * file, for the warning, and how many there were. */
    char unreadable[64];
    unsigned long nunreadable;
    /* The series: read io and smaps_rollup at every walk. */
    int series;
    unsigned long long departed_utime, departed_stime, departed_read, departed_write;
    /* options.sampled_only: CPU only from changes between two walks that saw
     * a process, summed here. */
    int sampled_only;
    unsigned long long sampled_main_ticks, sampled_desc_ticks;
};

/* Opens the procfs root and checks that main exists. Returns 0, or -1 with
 * errno (ENOENT: no such process; others: the root cannot be opened). */
int tree_init(struct tree *t, const char *proc_root, pid_t main_pid, pid_t reaper_pid);
void tree_free(struct tree *t);

/* Where pid stands in the tree as of the last walk: 1 main, 2 a descendant,
 * 0 not in the tree. */
int tree_role_of(const struct tree *t, pid_t pid);

/* Walks the tree and fills *s. Returns 0, or -1 with errno when the walk
 * itself failed (out of memory, reaper unreadable). A process that vanishes
 * mid-walk is simply not counted. */
int tree_walk(struct tree *t, struct tree_sample *s);

#endif
