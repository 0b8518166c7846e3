/* cgroup.c - see cgroup.h. */
#define _GNU_SOURCE
#include "read/cgroup.h"

#include "common/background.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/internal.h"
#include "read/procfs.h"

/* cgroup.procs of a group with a million processes, with room. */
#define MAX_PROCS_BYTES (16u << 20)
#define MAX_SMALL_FILE (1u << 16)

static void clear(struct cgroup_reader *r)
{
    memset(r, 0, sizeof *r);
    int *fds[] = {&r->procs_fd, &r->current_fd, &r->peak_fd, &r->stat_fd, &r->events_fd,
                  &r->limit_fd, &r->failcnt_fd, &r->cpu_fd, &r->cpu_split_fd, &r->throttle_fd,
                  &r->quota_fd, &r->period_fd, &r->group_dir_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        *fds[i] = -1;
    for (int i = 0; i < CGROUP_PSI_N; i++)
        r->psi_fd[i] = -1;
}

void cgroup_reader_init(struct cgroup_reader *r)
{
    clear(r);
}

static void close_fds(struct cgroup_reader *r)
{
    int *fds[] = {&r->procs_fd, &r->current_fd, &r->peak_fd, &r->stat_fd, &r->events_fd,
                  &r->limit_fd, &r->failcnt_fd, &r->cpu_fd, &r->cpu_split_fd, &r->throttle_fd,
                  &r->quota_fd, &r->period_fd, &r->group_dir_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    for (int i = 0; i < CGROUP_PSI_N; i++)
        if (r->psi_fd[i] >= 0) {
            close(r->psi_fd[i]);
            r->psi_fd[i] = -1;
        }
}

/* A file of the group's directory, -1 when it is not there. cgroupfs has
 * no links; O_NOFOLLOW keeps a fixture (or anything else) from making one
 * count. */
static int open_file(int dirfd, const char *name)
{
    return dirfd < 0 ? -1 : openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

/* The directory of the group path below a hierarchy's root; -1 with errno. */
static int open_group(int rootfd, const char *path)
{
    const char *rel = path[1] ? path + 1 : ".";
    return openat(rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The first of the names that is a directory under base (v1 mounts cpu
 * and cpuacct joined as "cpu,cpuacct", with links of the single names). */
static int open_hierarchy(int base, const char *const *names)
{
    for (; *names; names++) {
        int fd = openat(base, *names, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
            return fd;
    }
    return -1;
}

/* Whether dirfd has the file name (the v2 root's cgroup.controllers). */
static int has_file(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static void open_v2(struct cgroup_reader *r, int g)
{
    r->procs_fd = open_file(g, "cgroup.procs");
    r->procs_errno = errno;
    r->current_fd = open_file(g, "memory.current");
    r->peak_fd = open_file(g, "memory.peak");
    r->stat_fd = open_file(g, "memory.stat");
    r->events_fd = open_file(g, "memory.events");
    r->limit_fd = open_file(g, "memory.max");
    r->cpu_fd = open_file(g, "cpu.stat");
    r->quota_fd = open_file(g, "cpu.max");
    static const char *const psi[CGROUP_PSI_N] = {"cpu.pressure", "memory.pressure",
                                                  "io.pressure"};
    for (int i = 0; i < CGROUP_PSI_N; i++)
        r->psi_fd[i] = open_file(g, psi[i]);
    if (r->current_fd < 0)
        snprintf(r->memory_reason, sizeof r->memory_reason,
                 "the memory controller is not enabled for the cgroup %.120s (its parent's "
                 "cgroup.subtree_control lacks memory)", r->path);
    if (r->cpu_fd < 0)
        snprintf(r->cpu_reason, sizeof r->cpu_reason, "the cgroup %.150s has no cpu.stat", r->path);
    if (r->psi_fd[0] < 0 && r->psi_fd[1] < 0 && r->psi_fd[2] < 0)
        snprintf(r->pressure_reason, sizeof r->pressure_reason,
                 "no pressure stall information for the cgroup %.100s (a kernel without PSI, or "
                 "booted with psi=0)", r->path);
}

static void open_v1(struct cgroup_reader *r, int mem, int cpuacct, int cpu, int cpu_in_root)
{
    r->procs_fd = open_file(mem, "cgroup.procs");
    r->procs_errno = errno;
    /* v1 keeps the PID list an open cgroup.procs read, for as long as it is
     * read again within a second: read through a kept descriptor at every
     * sample, the members would never change. It is opened anew each time
     * from the group's directory, whose descriptor the reader takes over
     * (cgroup_reader_open); this first one serves the first read alone
     * (read_members). */
    r->group_dir_fd = mem;
    r->current_fd = open_file(mem, "memory.usage_in_bytes");
    r->peak_fd = open_file(mem, "memory.max_usage_in_bytes");
    r->stat_fd = open_file(mem, "memory.stat");
    r->events_fd = open_file(mem, "memory.oom_control");
    r->limit_fd = open_file(mem, "memory.limit_in_bytes");
    r->failcnt_fd = open_file(mem, "memory.failcnt");
    r->cpu_fd = open_file(cpuacct, "cpuacct.usage");
    r->cpu_split_fd = open_file(cpuacct, "cpuacct.stat");
    r->throttle_fd = open_file(cpu, "cpu.stat");
    r->quota_fd = open_file(cpu, "cpu.cfs_quota_us");
    r->period_fd = open_file(cpu, "cpu.cfs_period_us");
    if (r->current_fd < 0)
        snprintf(r->memory_reason, sizeof r->memory_reason,
                 "the memory cgroup %.150s has no memory.usage_in_bytes", r->path);
    if (r->cpu_fd < 0 && cpu_in_root)
        snprintf(r->cpu_reason, sizeof r->cpu_reason,
                 "the process's cpuacct group is the root one, the whole machine's (cgroup v1)");
    else if (r->cpu_fd < 0)
        snprintf(r->cpu_reason, sizeof r->cpu_reason,
                 "no cpuacct hierarchy for the process (cgroup v1)");
    snprintf(r->pressure_reason, sizeof r->pressure_reason,
             "cgroup v1 keeps no pressure stall information per group");
}

/* Reads the membership of who into m; 0, or -1 with why set. */
static int membership(const char *proc_root, const char *who, struct cgroup_membership *m,
                      char *why, size_t whycap)
{
    char path[4096], buf[8192];
    snprintf(path, sizeof path, "%s/%s/cgroup", proc_root, who);
    size_t len = 0;
    if (file_read_at(AT_FDCWD, path, buf, sizeof buf, &len) < 0) {
        snprintf(why, whycap, "cannot read %s: %s", path, errno_text(errno));
        return -1;
    }
    if (cgroup_parse_membership(buf, len, m) < 0) {
        snprintf(why, whycap, "%s is malformed (expected lines ID:CONTROLLERS:/PATH)", path);
        return -1;
    }
    return 0;
}

void cgroup_location_close(struct cgroup_location *loc)
{
    int *fds[] = {&loc->group_fd, &loc->cpuacct_fd, &loc->cpu_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

int cgroup_locate(const char *proc_root, const char *sys_root, const char *who,
                  struct cgroup_location *loc, char *why, size_t whycap)
{
    memset(loc, 0, sizeof *loc);
    loc->group_fd = loc->cpuacct_fd = loc->cpu_fd = -1;
    struct cgroup_membership m;
    if (membership(proc_root, who, &m, why, whycap) < 0)
        return -1;
    char mnt[4096];
    snprintf(mnt, sizeof mnt, "%s/fs/cgroup", sys_root);
    int base = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base < 0) {
        snprintf(why, whycap, "no cgroup filesystem at %s: %s", mnt, errno_text(errno));
        return -1;
    }
    int mem_root = m.have_memory ? openat(base, "memory", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int v2_root = -1;
    if (mem_root < 0 && m.have_unified) {
        if (has_file(base, "cgroup.controllers")) {
            v2_root = dup(base);
        } else { /* the hybrid layout: v2 beside v1 */
            int u = openat(base, "unified", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (u >= 0 && has_file(u, "cgroup.controllers"))
                v2_root = u;
            else if (u >= 0)
                close(u);
        }
    }
    int rc = -1;
    if (mem_root < 0 && v2_root < 0) {
        snprintf(why, whycap, "%s/%s is in no cgroup hierarchy under %s that gpu-tracker reads "
                 "(v2, or v1 memory)", proc_root, who, mnt);
        goto done;
    }
    const char *group = mem_root >= 0 ? m.memory : m.unified;
    snprintf(loc->path, sizeof loc->path, "%s", group);
    loc->group_fd = open_group(mem_root >= 0 ? mem_root : v2_root, group);
    if (loc->group_fd < 0) {
        snprintf(why, whycap, "cannot open the cgroup %s: %s", group, errno_text(errno));
        goto done;
    }
    if (mem_root >= 0) {
        static const char *const acct_names[] = {"cpuacct", "cpu,cpuacct", "cpuacct,cpu", NULL};
        static const char *const cpu_names[] = {"cpu", "cpu,cpuacct", "cpuacct,cpu", NULL};
        /* A v1 hierarchy's root group is the whole machine's: where the
         * process's cpuacct or cpu group is the root one (its memory group
         * is not: a container whose runtime moved only some controllers),
         * its counters are not the job's, and are not opened. */
        loc->cpu_in_root = m.have_cpuacct && strcmp(m.cpuacct, "/") == 0;
        loc->no_cpu_quota = !m.have_cpu || strcmp(m.cpu, "/") == 0;
        int acct_root = m.have_cpuacct && !loc->cpu_in_root ? open_hierarchy(base, acct_names)
                                                            : -1;
        int cpu_root = m.have_cpu && strcmp(m.cpu, "/") != 0 ? open_hierarchy(base, cpu_names)
                                                             : -1;
        loc->cpuacct_fd = acct_root >= 0 ? open_group(acct_root, m.cpuacct) : -1;
        loc->cpu_fd = cpu_root >= 0 ? open_group(cpu_root, m.cpu) : -1;
        if (acct_root >= 0)
            close(acct_root);
        if (cpu_root >= 0)
            close(cpu_root);
        loc->version = 1;
    } else {
        loc->version = 2;
    }
    rc = 0;
done:
    if (mem_root >= 0)
        close(mem_root);
    if (v2_root >= 0)
        close(v2_root);
    close(base);
    return rc;
}

int cgroup_reader_open(struct cgroup_reader *r, const char *proc_root, const char *sys_root,
                       pid_t pid, double ticks_per_second)
{
    clear(r);
    r->self_pid = getpid();
    r->root_pid = pid;
    r->proc_root = proc_root;
    r->ticks_per_second = ticks_per_second > 0 ? ticks_per_second : 100;
    char who[24];
    snprintf(who, sizeof who, "%d", (int)pid);
    struct cgroup_location loc;
    if (cgroup_locate(proc_root, sys_root, who, &loc, r->reason, sizeof r->reason) < 0)
        return 0;
    snprintf(r->path, sizeof r->path, "%s", loc.path);
    if (strcmp(loc.path, "/") == 0) {
        snprintf(r->reason, sizeof r->reason,
                 "PID %d is in the root cgroup, the whole machine's: no group of its own",
                 (int)pid);
        cgroup_location_close(&loc);
        return 0;
    }
    if (loc.version == 1) {
        open_v1(r, loc.group_fd, loc.cpuacct_fd, loc.cpu_fd, loc.cpu_in_root);
        r->no_cpu_quota = loc.no_cpu_quota;
        loc.group_fd = -1; /* the reader's now (group_dir_fd) */
    } else {
        open_v2(r, loc.group_fd);
    }
    r->version = loc.version;
    cgroup_location_close(&loc);
    if (r->procs_fd < 0) {
        /* Without the members the group cannot be told to be the job's. */
        snprintf(r->reason, sizeof r->reason, "cannot read the members of the cgroup %.120s "
                 "(cgroup.procs): %s", r->path, errno_text(r->procs_errno));
        close_fds(r);
        r->version = 0;
        return 0;
    }
    r->bufcap = 4096;
    r->buf = malloc(r->bufcap);
    if (!r->buf) {
        close_fds(r);
        r->version = 0;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

void cgroup_reader_close(struct cgroup_reader *r)
{
    close_fds(r);
    free(r->members);
    free(r->buf);
    clear(r);
}

/* The file behind a kept descriptor, whole, into r->buf; -1 with errno. */
static int read_kept(struct cgroup_reader *r, int fd, size_t max, size_t *len)
{
    if (fd < 0) {
        errno = ENOENT;
        return -1;
    }
    return file_pread_grow(fd, &r->buf, &r->bufcap, max, len);
}

static int read_value(struct cgroup_reader *r, int fd, unsigned long long *v, int *is_max)
{
    size_t len;
    int dummy;
    if (read_kept(r, fd, MAX_SMALL_FILE, &len) < 0)
        return -1;
    return cgroup_parse_value(r->buf, len, v, is_max ? is_max : &dummy);
}

/* Reads the keys of a flat keyed file; found gets a bit per key read. */
static int read_keyed(struct cgroup_reader *r, int fd, const char *const *keys, size_t n,
                      unsigned long long *values, unsigned *found)
{
    size_t len;
    if (read_kept(r, fd, MAX_SMALL_FILE, &len) < 0)
        return -1;
    return cgroup_parse_keyed(r->buf, len, keys, n, values, found);
}

/* cgroup.procs into r->members: one PID a line. */
static int read_members(struct cgroup_reader *r)
{
    size_t len;
    if (r->version == 1 && r->group_dir_fd >= 0) {
        /* The descriptor the open made (to see the list could be read) is
         * fresh for its first read, which builds the list: the first
         * sample's, which then closes it like the others. */
        int fd = r->procs_fd >= 0 ? r->procs_fd : open_file(r->group_dir_fd, "cgroup.procs");
        r->procs_fd = -1;
        int rc = fd < 0 ? -1 : file_pread_grow(fd, &r->buf, &r->bufcap, MAX_PROCS_BYTES, &len);
        int e = errno;
        if (fd >= 0)
            close(fd);
        errno = e;
        if (rc < 0)
            return -1;
    } else if (read_kept(r, r->procs_fd, MAX_PROCS_BYTES, &len) < 0) {
        return -1;
    }
    r->nmembers = 0;
    const char *p = r->buf, *end = r->buf + len;
    while (p < end) {
        unsigned long long v = 0;
        size_t n = 0;
        while (p + n < end && p[n] >= '0' && p[n] <= '9' && v < (1ULL << 31)) {
            v = v * 10 + (unsigned)(p[n] - '0');
            n++;
        }
        if (n == 0 || v == 0 || v >= (1ULL << 31) || (p + n < end && p[n] != '\n')) {
            errno = ERR_MALFORMED;
            return -1;
        }
        if (pid_list_push(&r->members, &r->nmembers, &r->capmembers, (pid_t)v) < 0)
            return -1;
        p += n + 1;
    }
    return 0;
}

static void read_memory(struct cgroup_reader *r, struct cgroup_sample *out)
{
    out->mem_ok = read_value(r, r->current_fd, &out->mem_current, NULL) == 0;
    out->peak_ok = read_value(r, r->peak_fd, &out->mem_peak, NULL) == 0;
    if (out->mem_ok && (!r->have_max_current || out->mem_current > r->max_current)) {
        /* The split is read where the usage is the highest yet: memory.stat
         * is long (40-odd lines) and only that sample's matters. */
        r->max_current = out->mem_current;
        r->have_max_current = 1;
        static const char *const v2[] = {"anon", "file", "shmem"};
        static const char *const v1[] = {"total_rss", "total_cache", "total_shmem"};
        unsigned long long vals[3] = {0, 0, 0};
        unsigned found = 0;
        if (read_keyed(r, r->stat_fd, r->version == 2 ? v2 : v1, 3, vals, &found) == 0 &&
            (found & 3) == 3) {
            out->split_ok = 1;
            out->anon = vals[0];
            out->file = vals[1];
            out->shmem = vals[2];
        }
    }
    unsigned found = 0;
    if (r->version == 2) {
        static const char *const keys[] = {"oom", "oom_kill", "max"};
        unsigned long long vals[3] = {0, 0, 0};
        if (read_keyed(r, r->events_fd, keys, 3, vals, &found) == 0 && (found & 3) == 3) {
            out->events_ok = 1;
            out->oom = vals[0];
            out->oom_kill = vals[1];
            out->limit_hits = vals[2];
        }
    } else {
        /* v1 counts kills in oom_control since Linux 4.13, and how often
         * the limit was hit in failcnt; it keeps no count of OOM events. */
        static const char *const keys[] = {"oom_kill"};
        unsigned long long kills = 0, hits = 0;
        if (read_keyed(r, r->events_fd, keys, 1, &kills, &found) == 0 && (found & 1) &&
            read_value(r, r->failcnt_fd, &hits, NULL) == 0) {
            out->events_ok = 1;
            out->oom_kill = kills;
            out->oom = kills;
            out->limit_hits = hits;
        }
    }
}

/* Cores the quota allows (0: none); -1 when it cannot be read. */
static double read_quota(struct cgroup_reader *r)
{
    size_t len;
    if (r->version == 2) {
        if (read_kept(r, r->quota_fd, MAX_SMALL_FILE, &len) < 0)
            return -1;
        /* "max 100000" or "150000 100000" */
        char quota[32];
        unsigned long long period = 0;
        if (sscanf(r->buf, "%31s %llu", quota, &period) != 2 || period == 0)
            return -1;
        if (strcmp(quota, "max") == 0)
            return 0;
        char *end;
        double q = strtod(quota, &end);
        return *end || q <= 0 ? -1 : q / (double)period;
    }
    /* v1: cfs_quota_us is -1 with no quota */
    if (read_kept(r, r->quota_fd, MAX_SMALL_FILE, &len) < 0)
        return -1;
    long long q = strtoll(r->buf, NULL, 10);
    unsigned long long period = 0;
    if (q <= 0)
        return 0;
    if (read_value(r, r->period_fd, &period, NULL) < 0 || period == 0)
        return -1;
    return (double)q / (double)period;
}

double cgroup_quota_cores(struct cgroup_reader *r)
{
    if (!r->version)
        return -1;
    /* A v1 root group's cfs_quota_us is -1 and cannot be set. */
    if (r->version == 1 && r->no_cpu_quota)
        return 0;
    return read_quota(r);
}

static void read_cpu(struct cgroup_reader *r, struct cgroup_sample *out)
{
    unsigned found = 0;
    if (r->version == 2) {
        static const char *const keys[] = {"usage_usec",   "user_usec",    "system_usec",
                                           "nr_periods",   "nr_throttled", "throttled_usec"};
        unsigned long long v[6] = {0};
        if (read_keyed(r, r->cpu_fd, keys, 6, v, &found) == 0 && (found & 7) == 7) {
            out->cpu_ok = 1;
            out->cpu_usage_us = v[0];
            out->cpu_user_us = v[1];
            out->cpu_system_us = v[2];
            /* the throttling lines are there when the cpu controller is */
            if ((found & 0x38) == 0x38) {
                out->throttle_ok = 1;
                out->nr_periods = v[3];
                out->nr_throttled = v[4];
                out->throttled_us = v[5];
            }
        }
    } else {
        unsigned long long ns = 0;
        if (read_value(r, r->cpu_fd, &ns, NULL) == 0) {
            out->cpu_ok = 1;
            out->cpu_usage_us = ns / 1000;
            static const char *const keys[] = {"user", "system"};
            unsigned long long v[2] = {0, 0};
            if (read_keyed(r, r->cpu_split_fd, keys, 2, v, &found) == 0 && found == 3) {
                out->cpu_user_us = (unsigned long long)((double)v[0] * 1e6 / r->ticks_per_second);
                out->cpu_system_us = (unsigned long long)((double)v[1] * 1e6 / r->ticks_per_second);
            }
        }
        static const char *const keys[] = {"nr_periods", "nr_throttled", "throttled_time"};
        unsigned long long v[3] = {0, 0, 0};
        found = 0;
        if (read_keyed(r, r->throttle_fd, keys, 3, v, &found) == 0 && found == 7) {
            out->throttle_ok = 1;
            out->nr_periods = v[0];
            out->nr_throttled = v[1];
            out->throttled_us = v[2] / 1000;
        }
    }
    if (out->throttle_ok) {
        double q = read_quota(r);
        if (q < 0)
            out->throttle_ok = 0;
        else
            out->quota_cores = q;
    }
}

static int in_roles(const struct pid_roles *roles, pid_t pid)
{
    size_t slot;
    return pid_index_get(roles->index, pid, &slot) && roles->role[slot] != 0;
}

/* Leaves out the members that have ended: cgroup v1 lists a task that is
 * still leaving the group (its memory being uncharged, slow under memory
 * pressure) after its /proc entry is gone, and a process that has ended is
 * no one else's work in the group. The list was read before the walk
 * (cgroup_read_members), so a process of the tree that was in it is in the
 * walk, or has ended since: only members the walk lacks are looked at, by
 * whether their /proc entry is there (one stat each, no file read). */
/* Whether member pid has ended: its /proc entry is gone (one stat). */
static int member_ended(const struct cgroup_reader *r, pid_t pid)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%d", r->proc_root, (int)pid);
    return stat(path, &st) < 0 && errno == ENOENT;
}

static void drop_departed(struct cgroup_reader *r, const struct pid_roles *roles)
{
    size_t kept = 0;
    for (size_t i = 0; i < r->nmembers; i++) {
        pid_t pid = r->members[i];
        if (pid == r->self_pid || in_roles(roles, pid) || !member_ended(r, pid))
            r->members[kept++] = pid;
    }
    r->nmembers = kept;
}

/* 1 when the tracked process is in neither the group nor a group beneath
 * it, with where it is in r->outside_path; 0 when it is inside, or cannot
 * be told (its /proc entry gone). Looked at only when it is not among the
 * members (cgroup.procs lists a group's own members, not its children's):
 * a job that makes groups of its own pays a read of /proc/PID/stat and
 * /proc/PID/cgroup a sample, one that does not pays nothing. */
static int root_outside(struct cgroup_reader *r)
{
    for (size_t i = 0; i < r->nmembers; i++)
        if (r->members[i] == r->root_pid)
            return 0;
    char who[24], why[256];
    snprintf(who, sizeof who, "%d", (int)r->root_pid);
    /* An exited process (a zombie not yet reaped: the final sample's
     * command) has left every group: v1 shows it in the root one. */
    char path[4096], buf[1024];
    snprintf(path, sizeof path, "%s/%s", r->proc_root, who);
    int dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    size_t len = 0;
    struct proc_stat st;
    int alive = dirfd >= 0 && file_read_at(dirfd, "stat", buf, sizeof buf, &len) == 0 &&
                proc_parse_stat(buf, len, &st) == 0 && st.state != 'Z' && st.state != 'X';
    if (dirfd >= 0)
        close(dirfd);
    struct cgroup_membership m;
    if (!alive || membership(r->proc_root, who, &m, why, sizeof why) < 0)
        return 0;
    const char *now = r->version == 1 ? (m.have_memory ? m.memory : NULL)
                                      : (m.have_unified ? m.unified : NULL);
    if (!now)
        return 0;
    size_t n = strlen(r->path);
    int inside = strncmp(now, r->path, n) == 0 && (now[n] == '\0' || now[n] == '/');
    if (!inside)
        snprintf(r->outside_path, sizeof r->outside_path, "%s", now);
    return !inside;
}

/* Reads cgroup.procs into r->members when this sample should: 0 (with
 * r->members_fresh set when it did), -1 when the group is gone. */
static int load_members(struct cgroup_reader *r, int full)
{
    r->members_fresh = 0;
    if (!r->version)
        return 0;
    /* v1 builds its PID list anew for each open of cgroup.procs (30 us for
     * 64 members here, where v2 walks its list in place): a periodic sample
     * reads it at most once a second, as long as v1 would have kept a list
     * anyway. A sample without it checks no members (members_ok 0). */
    double now = r->version == 1 && !full ? monotonic_now() : 0;
    if (r->version == 1 && !full && r->members_read > 0 &&
        now - r->members_read < CGROUP_V1_MEMBERS_PERIOD)
        return 0;
    if (read_members(r) < 0)
        return -1; /* the group is gone (or its list is not one): nothing of it counts */
    r->members_read = now > 0 ? now : monotonic_now();
    r->members_fresh = 1;
    return 0;
}

int cgroup_read_members(struct cgroup_reader *r, int full)
{
    r->members_asked = 1;
    r->members_failed = load_members(r, full) < 0;
    return r->members_failed ? -1 : 0;
}

/* Whether a member outside roles' tree is one of outsiders, alive (one
 * that has ended is no one's work: drop_departed), for cgroup_read. */
static int outsider_stays(const struct cgroup_reader *r, const struct pid_roles *roles,
                          const pid_t *outsiders, size_t noutsiders)
{
    for (size_t i = 0; i < r->nmembers; i++) {
        pid_t pid = r->members[i];
        if (pid == r->self_pid || in_roles(roles, pid))
            continue;
        for (size_t k = 0; k < noutsiders; k++)
            if (outsiders[k] == pid && !member_ended(r, pid))
                return 1;
    }
    return 0;
}

int cgroup_read(struct cgroup_reader *r, int full, const struct pid_roles *roles,
                const pid_t *outsiders, size_t noutsiders, struct cgroup_sample *out)
{
    memset(out, 0, sizeof *out);
    if (!r->version)
        return 0;
    out->path = r->path;
    out->version = r->version;
    out->self_pid = r->self_pid;
    int members_failed = r->members_asked ? r->members_failed : load_members(r, full) < 0;
    r->members_asked = 0;
    if (members_failed)
        return -1;
    if (r->members_fresh) {
        r->members_fresh = 0;
        int first_list = !r->members_judged;
        r->members_judged = 1;
        if (r->root_pid > 0 && !r->root_ended && root_outside(r)) {
            out->root_outside = 1;
            out->root_pid = r->root_pid;
            out->outside_path = r->outside_path;
        }
        /* Shared from now on: the rest would never be used (the final
         * sample of a short run in a shared group, as a terminal's is),
         * nor which of the other members have ended since the list. */
        int shared = roles && roles->index && noutsiders &&
                     outsider_stays(r, roles, outsiders, noutsiders);
        /* The first list (the baseline's) is not pruned: a member that has
         * ended only waits among the outsiders to be seen again, and the
         * list that sees it again asks first whether it is alive
         * (outsider_stays), then prunes. A stat per outsider at every
         * start (a login session's group holds hundreds) for nothing. */
        if (roles && roles->index && !shared && !first_list)
            drop_departed(r, roles);
        out->members_ok = 1;
        out->members = r->members;
        out->nmembers = r->nmembers;
        if (shared)
            return 0;
    }
    read_memory(r, out);
    if (!full)
        return 0;
    int is_max = 0;
    if (read_value(r, r->limit_fd, &out->mem_limit, &is_max) == 0) {
        out->limit_ok = 1;
        /* v1 says "no limit" with a huge page-rounded number */
        if (is_max || out->mem_limit >= (1ULL << 62))
            out->mem_limit = 0;
    }
    read_cpu(r, out);
    for (int i = 0; i < CGROUP_PSI_N; i++) {
        size_t len;
        out->psi_ok[i] = read_kept(r, r->psi_fd[i], MAX_SMALL_FILE, &len) == 0 &&
                         cgroup_parse_pressure(r->buf, len, &out->psi[i]) == 0;
    }
    return 0;
}
