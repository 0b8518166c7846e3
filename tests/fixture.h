/* fixture.h - builds fake /proc trees in a temporary directory, so that the
 * tree walk, the aggregates and the tracker run on known numbers. */
#ifndef GT_FIXTURE_H
#define GT_FIXTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

struct fx_proc {
    int pid, ppid;
    const char *comm;
    char state;                 /* 0 means 'S' */
    unsigned long long utime, stime, cutime, cstime, cminflt, starttime;
    long threads;               /* 0 means 1 */
    unsigned long long rss_kb, hwm_kb, anon_kb;
    int no_rollup;              /* leave smaps_rollup out */
    unsigned long long private_kb, shared_kb, pss_kb;
    const char *children;       /* of the main thread, e.g. "101 102" */
    int no_children_files;      /* a kernel without CONFIG_PROC_CHILDREN */
    unsigned long long read_bytes, write_bytes; /* its io file */
    int no_io;                  /* leave io out */
    unsigned long long sig_ign; /* status's SigIgn mask (zombies keep theirs) */
    unsigned long long sched_run_ns, sched_wait_ns; /* its schedstat */
    unsigned long long blkio_ticks; /* stat's field 42, block I/O delay */
};

static inline void fx_write(const char *root, const char *rel, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(99);
    }
    fputs(text, f);
    fclose(f);
}

/* Copies the file from to to (a new file, or one emptied first); exits
 * the test when it cannot. */
static inline void fx_copy(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out) {
        perror(in ? to : from);
        exit(99);
    }
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, in)) > 0)
        fwrite(b, 1, n, out);
    fclose(in);
    fclose(out);
}

static inline char *fx_mkroot(void)
{
    char tmpl[] = "/tmp/gt-fixture-XXXXXX";
    char *d = mkdtemp(tmpl);
    if (!d) {
        perror("mkdtemp");
        exit(99);
    }
    return strdup(d);
}

static inline int fx_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

static inline void fx_rmroot(char *root)
{
    nftw(root, fx_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(root);
}

/* /proc/stat with the aggregate line from busy/total ticks, and meminfo. */
static inline void fx_system(const char *root, unsigned long long busy, unsigned long long idle, int ncpu,
                      unsigned long long mem_total_kb, unsigned long long mem_avail_kb)
{
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "cpu  %llu 0 0 %llu 0 0 0 0 0 0\n", busy, idle);
    for (int i = 0; i < ncpu; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, "cpu%d 0 0 0 0 0 0 0 0 0 0\n", i);
    snprintf(buf + n, sizeof buf - (size_t)n, "intr 1 2 3\nprocesses 999\n");
    fx_write(root, "stat", buf);
    snprintf(buf, sizeof buf, "MemTotal:       %llu kB\nMemFree:        1000 kB\n"
                              "MemAvailable:   %llu kB\n", mem_total_kb, mem_avail_kb);
    fx_write(root, "meminfo", buf);
}

static inline void fx_proc_write(const char *root, const struct fx_proc *p)
{
    char rel[256], buf[4096];
    snprintf(rel, sizeof rel, "%s/%d", root, p->pid);
    mkdir(rel, 0755);
    snprintf(rel, sizeof rel, "%s/%d/task", root, p->pid);
    mkdir(rel, 0755);
    snprintf(rel, sizeof rel, "%s/%d/task/%d", root, p->pid, p->pid);
    mkdir(rel, 0755);

    snprintf(buf, sizeof buf,
             "%d (%s) %c %d %d %d 0 -1 4194560 10 %llu 0 0 %llu %llu %llu %llu 20 0 %ld 0 %llu "
             "1000 100 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 %llu 0 0 0 0 0 0 0 0 0 0\n",
             p->pid, p->comm ? p->comm : "proc", p->state ? p->state : 'S', p->ppid, p->pid, p->pid,
             p->cminflt, p->utime, p->stime, p->cutime, p->cstime, p->threads ? p->threads : 1,
             p->starttime, p->blkio_ticks);
    snprintf(rel, sizeof rel, "%d/stat", p->pid);
    fx_write(root, rel, buf);

    if (p->state == 'Z')
        snprintf(buf, sizeof buf, "Name:\t%s\nState:\tZ (zombie)\nThreads:\t1\n"
                 "SigQ:\t0/1000\nSigIgn:\t%016llx\n", p->comm ? p->comm : "proc", p->sig_ign);
    else
        snprintf(buf, sizeof buf,
                 "Name:\t%s\nVmHWM:\t%llu kB\nVmRSS:\t%llu kB\nRssAnon:\t%llu kB\n"
                 "RssFile:\t%llu kB\nRssShmem:\t0 kB\nThreads:\t%ld\nSigQ:\t0/1000\n"
                 "SigIgn:\t%016llx\n",
                 p->comm ? p->comm : "proc", p->hwm_kb ? p->hwm_kb : p->rss_kb, p->rss_kb,
                 p->anon_kb, p->rss_kb - p->anon_kb, p->threads ? p->threads : 1, p->sig_ign);
    snprintf(rel, sizeof rel, "%d/status", p->pid);
    fx_write(root, rel, buf);

    snprintf(rel, sizeof rel, "%d/schedstat", p->pid);
    snprintf(buf, sizeof buf, "%llu %llu 7\n", p->sched_run_ns, p->sched_wait_ns);
    fx_write(root, rel, buf);

    snprintf(rel, sizeof rel, "%d/smaps_rollup", p->pid);
    if (!p->no_rollup) {
        snprintf(buf, sizeof buf,
                 "00400000-7fff0000 ---p 00000000 00:00 0    [rollup]\nRss: %llu kB\nPss: %llu kB\n"
                 "Shared_Clean: %llu kB\nShared_Dirty: 0 kB\nPrivate_Clean: 0 kB\n"
                 "Private_Dirty: %llu kB\n",
                 p->private_kb + p->shared_kb, p->pss_kb, p->shared_kb, p->private_kb);
        fx_write(root, rel, buf);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        unlink(path);
    }

    snprintf(rel, sizeof rel, "%d/io", p->pid);
    if (!p->no_io) {
        snprintf(buf, sizeof buf,
                 "rchar: 1000\nwchar: 2000\nsyscr: 10\nsyscw: 20\nread_bytes: %llu\n"
                 "write_bytes: %llu\ncancelled_write_bytes: 0\n",
                 p->read_bytes, p->write_bytes);
        fx_write(root, rel, buf);
    } else {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        unlink(path);
    }

    snprintf(rel, sizeof rel, "%d/task/%d/children", p->pid, p->pid);
    if (!p->no_children_files)
        fx_write(root, rel, p->children ? p->children : "");
}

/* Makes the directories of rel (like mkdir -p) under root. */
/* The GPU tests' tree: main 100 (1000 kB, all private) with one child,
 * 101, alike. */
static inline void fx_main_and_child(const char *root)
{
    struct fx_proc m = {.pid = 100, .ppid = 1, .rss_kb = 1000, .anon_kb = 1000, .private_kb = 1000,
                        .pss_kb = 1000, .starttime = 5, .children = "101"};
    struct fx_proc c = {.pid = 101, .ppid = 100, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 6};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
}

static inline void fx_mkdirs(const char *root, const char *rel)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", root, rel);
    for (int i = (int)strlen(root) + 1; i <= n; i++)
        if (path[i] == '/' || path[i] == '\0') {
            char c = path[i];
            path[i] = '\0';
            mkdir(path, 0755);
            path[i] = c;
        }
}

/* Makes <root>/proc and <root>/sys for a fixture of both; their paths in
 * proc and sys (cap bytes each). */
static inline void fx_proc_sys(const char *root, char *proc, char *sys, size_t cap)
{
    snprintf(proc, cap, "%s/proc", root);
    snprintf(sys, cap, "%s/sys", root);
    mkdir(proc, 0755);
    mkdir(sys, 0755);
}

static inline void fx_proc_remove(const char *root, int pid)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d", root, pid);
    nftw(path, fx_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
