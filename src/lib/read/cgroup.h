/* cgroup.h - the job's cgroup as a reader of the sample: the group the main
 * process is in (v2, or v1's memory and cpuacct hierarchies), found once
 * from <proc_root>/<pid>/cgroup under <sys_root>/fs/cgroup, its files
 * opened once and re-read through the kept descriptors at each sample, as
 * /proc is (Documentation/admin-guide/cgroup-v2.rst, cgroup-v1/memory.rst).
 *
 * Whether the group is the job's (every member is in the tracked tree) is
 * the pipeline's call (cgroup_usage.h): this only reads. */
#ifndef GT_CGROUP_H
#define GT_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

#include "common/parse/cgroup_parse.h"
#include "sample.h"

#define CGROUP_REASON_LEN 256

/* Where a process's group is: its directories, opened (-1: not there). */
struct cgroup_location {
    int version;              /* 1 or 2 */
    char path[CGROUP_PATH_LEN]; /* v2's, or v1 memory's */
    int group_fd;             /* v2: the group; v1: its memory group */
    int cpuacct_fd, cpu_fd;   /* v1 only: its cpuacct and cpu groups (one
                                 directory when the two are mounted joined);
                                 -1 where that group is the root one */
    int cpu_in_root;          /* v1: its cpuacct group is the root one */
    int no_cpu_quota;         /* v1: no cpu group of its own (none mounted, or
                                 the root one): no CPU quota can apply */
};

/* Finds the group of process who ("self", or a PID) under proc_root and
 * opens its directories under <sys_root>/fs/cgroup (v1's memory hierarchy
 * when mounted, else v2, the hybrid layout's "unified" included). 0, or
 * -1 with why naming the cause. Close with cgroup_location_close. */
int cgroup_locate(const char *proc_root, const char *sys_root, const char *who,
                  struct cgroup_location *loc, char *why, size_t whycap);
void cgroup_location_close(struct cgroup_location *loc);

struct cgroup_reader {
    int version;              /* 0: no group (reason says why), 1 or 2 */
    char path[CGROUP_PATH_LEN];
    char reason[CGROUP_REASON_LEN];       /* no group at all */
    char memory_reason[CGROUP_REASON_LEN];/* no memory figures */
    char cpu_reason[CGROUP_REASON_LEN];   /* no CPU figures */
    char pressure_reason[CGROUP_REASON_LEN];
    /* Kept descriptors, -1 when that file is not there. */
    int procs_fd, current_fd, peak_fd, stat_fd, events_fd, limit_fd, failcnt_fd;
    int procs_errno;          /* why cgroup.procs could not be opened */
    int group_dir_fd;         /* v1: the group's directory, for cgroup.procs afresh */
    double members_read;      /* monotonic seconds of the last members read; 0 never */
    int members_asked;        /* cgroup_read_members was called for this sample */
    int members_failed;       /* ... and found the group gone */
    int members_fresh;        /* r->members were read for this sample */
    int members_judged;       /* a list went through cgroup_read already */
    int root_ended;           /* set by the caller before cgroup_read: the
                                 sample's walk found the tracked process a
                                 zombie or gone, so in no group (an exited
                                 process leaves every group): where it is
                                 is not looked up */
    int cpu_fd;               /* v2 cpu.stat; v1 cpuacct.usage */
    int cpu_split_fd;         /* v1 cpuacct.stat (ticks) */
    int throttle_fd;          /* v1 cpu.stat (v2: in cpu.stat) */
    int quota_fd, period_fd;  /* v2 cpu.max (quota_fd); v1 cfs_quota_us, cfs_period_us */
    int no_cpu_quota;         /* v1: cgroup_location's */
    int psi_fd[CGROUP_PSI_N];
    double ticks_per_second;  /* v1 cpuacct.stat's unit */
    pid_t self_pid;
    pid_t root_pid;           /* the tracked process */
    char outside_path[CGROUP_PATH_LEN]; /* where it is, once out of the group */
    const char *proc_root;    /* the caller's, for a member's parent */
    pid_t *members;
    size_t nmembers, capmembers;
    char *buf;
    size_t bufcap;
    unsigned long long max_current; /* the highest usage read so far */
    int have_max_current;
};

/* v1: the members (cgroup.procs) are read at most this often by periodic
 * samples (seconds); the baseline and the final sample always read them. */
#define CGROUP_V1_MEMBERS_PERIOD 1.0

/* Cores the group's CPU quota allows, through the descriptors the reader
 * keeps: 0 for none, -1 when the reader has no group or cannot read its
 * quota (then read the process's limits by path: server_usable_cpus).
 * What the usable CPUs need at the start, without reading the process's
 * cgroup file and the group's quota files again. */
double cgroup_quota_cores(struct cgroup_reader *r);

/* A reader with nothing open (closing it is safe). */
void cgroup_reader_init(struct cgroup_reader *r);

/* Finds the group of pid and opens its files. Never fails the run: 0 with
 * r->version 0 and r->reason set when there is no group to read (no
 * cgroup filesystem, the root group, a file we may not read); -1 with
 * errno only when out of memory. */
int cgroup_reader_open(struct cgroup_reader *r, const char *proc_root, const char *sys_root,
                       pid_t pid, double ticks_per_second);

/* Closes what is open; safe after a failed open, and again. */
void cgroup_reader_close(struct cgroup_reader *r);

/* Reads the group's member list (cgroup.procs) for the sample about to be
 * taken, if this sample reads it (always when full; v1 at most every
 * CGROUP_V1_MEMBERS_PERIOD otherwise). Call it before the sample's tree
 * walk: then every process of the tree that is in the list is in the walk
 * too, or has ended, and no member needs its parent looked up (a child
 * forked after the walk is not in the list). 0, or -1 when the group is
 * gone (cgroup_read then returns -1 too). */
int cgroup_read_members(struct cgroup_reader *r, int full);

/* Reads the group into *out (out->version 0: no group). full: the
 * baseline or final sample, which also read CPU, throttling, pressure and
 * the limits. The members are those cgroup_read_members read (read here
 * when it was not called). roles: the tree as this sample's walk found it
 * (NULL: the walk failed): a member it lacks whose /proc entry is gone has
 * ended and is left out of out->members, which then holds the tree's
 * processes and outsiders. Returns 0, or -1 when nothing could be read
 * (the group is gone); parts that failed have their ok flags 0.
 * outsiders[0..noutsiders): members seen outside the tree at the two
 * samples before; when one is a member outside the tree again, the group
 * is shared from this sample on (cgroup_usage.h: a third sighting), its
 * figures are never used, and only the members are read. */
int cgroup_read(struct cgroup_reader *r, int full, const struct pid_roles *roles,
                const pid_t *outsiders, size_t noutsiders, struct cgroup_sample *out);

#endif
