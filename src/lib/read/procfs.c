/* procfs.c - reading procfs through directory fds and fixed buffers. */
#define _GNU_SOURCE
#include "read/procfs.h"

#include "common/buf.h"

#include "common/file_read.h"

#include "common/background.h"

#include "common/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procfs_open(int root_fd, pid_t pid, int *fd_budget, struct proc_handle *h)
{
    char name[24];
    snprintf(name, sizeof name, "%d", (int)pid);
    h->pid = pid;
    h->fd_budget = fd_budget;
    h->stat_fd = h->status_fd = h->task_fd = h->children_fd = h->io_fd = h->schedstat_fd = -1;
    h->dirfd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (h->dirfd < 0)
        return -1;
    /* The directory is kept whatever the budget (it is the process's
     * identity) but counted in it, so that the budget bounds them all. */
    if (fd_budget)
        (*fd_budget)--;
    return 0;
}

/* Closes a kept descriptor and gives it back to the budget. */
static void close_kept(struct proc_handle *h, int *fd)
{
    if (*fd < 0)
        return;
    close(*fd);
    *fd = -1;
    if (h->fd_budget)
        (*h->fd_budget)++;
}

void procfs_release_files(struct proc_handle *h)
{
    int *fds[] = {&h->stat_fd, &h->status_fd, &h->task_fd, &h->children_fd, &h->io_fd,
                  &h->schedstat_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_kept(h, fds[i]);
}

void procfs_close(struct proc_handle *h)
{
    procfs_release_files(h);
    if (h->dirfd >= 0) {
        close(h->dirfd);
        if (h->fd_budget)
            (*h->fd_budget)++;
    }
    h->dirfd = -1;
}

/* Opens name to keep it (fd >= 0), or returns -1 with errno; EMFILE when the
 * budget is spent, and then the caller reads through a temporary fd. */
static int open_kept(struct proc_handle *h, int dirfd, const char *name, int flags)
{
    if (h->fd_budget && *h->fd_budget <= 0) {
        errno = EMFILE;
        return -1;
    }
    int fd = openat(dirfd, name, flags | O_CLOEXEC);
    if (fd >= 0 && h->fd_budget)
        (*h->fd_budget)--;
    return fd;
}

/* Reads a file through its kept-open fd, opening it on first use. Without a
 * descriptor to spare it still reads, just without keeping one. */
static int read_kept(struct proc_handle *h, int dirfd, int *fd, const char *name, char *buf,
                     size_t cap, size_t *len)
{
    if (*fd < 0) {
        *fd = open_kept(h, dirfd, name, O_RDONLY);
        if (*fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                return file_read_at(dirfd, name, buf, cap, len);
            return -1;
        }
    }
    return file_pread(*fd, buf, cap, len);
}

/* A parser's answer as ours: -1 with ERR_MALFORMED when it failed. */
static int parsed(int rc)
{
    if (rc < 0) {
        errno = ERR_MALFORMED;
        return -1;
    }
    return 0;
}

/* The readers of the files kept open: read through h's kept descriptor
 * (opened on first use), then parsed. One line each, as a table. */
#define KEPT_FILE_READER(function, fd_field, file, type, parser)                   \
    int function(struct proc_handle *h, char *buf, size_t cap, type *out)   \
    {                                                                              \
        size_t len;                                                                \
        if (read_kept(h, h->dirfd, &h->fd_field, file, buf, cap, &len) < 0)        \
            return -1;                                                             \
        return parsed(parser(buf, len, out));                                      \
    }

KEPT_FILE_READER(procfs_read_stat, stat_fd, "stat", struct proc_stat, proc_parse_stat)
KEPT_FILE_READER(procfs_read_stat_delay, stat_fd, "stat", struct proc_stat,
                 proc_parse_stat_delay)
KEPT_FILE_READER(procfs_read_status, status_fd, "status", struct proc_status, proc_parse_status)
KEPT_FILE_READER(procfs_read_io, io_fd, "io", struct proc_io, proc_parse_io)
KEPT_FILE_READER(procfs_read_schedstat, schedstat_fd, "schedstat", struct proc_schedstat,
                 proc_parse_schedstat)

int procfs_read_rollup(struct proc_handle *h, char *buf, size_t cap, struct proc_rollup *out)
{
    /* Not kept open: it is read rarely (see tree.c) and walks every mapping.
     * Nor even for the series, which read it every sample: the file holds
     * the address space the process had when it was opened, so a kept
     * descriptor reads nothing after an exec, or the parent's mappings
     * after a vfork child's exec (tried: the series then read 0 kB). */
    size_t len;
    if (file_read_at(h->dirfd, "smaps_rollup", buf, cap, &len) < 0)
        return -1;
    return parsed(proc_parse_smaps_rollup(buf, len, out));
}

int pid_list_push(pid_t **list, size_t *n, size_t *cap, pid_t pid)
{
    if (*n == *cap && grow_array(list, cap, *n + 1, sizeof **list, 64) < 0)
        return -1;
    (*list)[(*n)++] = pid;
    return 0;
}

/* Appends the pids of a whitespace-separated list in buf, parsing straight
 * into the list's spare room (and once more after growing it, if short). */
static int push_pid_text(const char *buf, size_t len, pid_t **list, size_t *n, size_t *cap)
{
    size_t count;
    if (parsed(proc_parse_pid_list(buf, len, *list ? *list + *n : NULL, *cap - *n, &count)) < 0)
        return -1;
    if (count > *cap - *n) {
        if (grow_array(list, cap, *n + count, sizeof **list, 64) < 0)
            return -1;
        proc_parse_pid_list(buf, len, *list + *n, *cap - *n, &count);
    }
    *n += count;
    return 0;
}

/* A children file lists pids of up to 7 digits and a space: pid_max
 * (4194304 at most) of them fit in 32 MiB. */
#define CHILDREN_MAX_BYTES ((size_t)64 << 20)

/* Doubles *buf (up to CHILDREN_MAX_BYTES) after a read that did not fit.
 * -1 with errno (EFBIG past the bound, ENOMEM). */
static int grow_buffer(char **buf, size_t *cap)
{
    if (*cap >= CHILDREN_MAX_BYTES) {
        errno = EFBIG;
        return -1;
    }
    char *nb = realloc(*buf, *cap * 2);
    if (!nb) {
        errno = ENOMEM;
        return -1;
    }
    *buf = nb;
    *cap *= 2;
    return 0;
}

/* Appends the children of one thread; a vanished thread has none. The
 * main thread's file is kept open, the others' opened for each read. */
static int thread_children(struct proc_handle *h, int task_fd, pid_t tid, char **buf,
                           size_t *cap, pid_t **list, size_t *n, size_t *listcap, int *found)
{
    size_t len;
    int rc;
    for (;;) {
        if (tid == h->pid) {
            /* The name only when the file is (re)opened: formatting it
             * was a tenth of a small tree's sample in user space. */
            char name[48] = "";
            if (h->children_fd < 0)
                snprintf(name, sizeof name, "task/%d/children", (int)tid);
            rc = read_kept(h, h->dirfd, &h->children_fd, name, *buf, *cap, &len);
        } else {
            char name[32];
            snprintf(name, sizeof name, "%d/children", (int)tid);
            rc = file_read_at(task_fd, name, *buf, *cap, &len);
        }
        if (rc == 0 || errno != EFBIG || grow_buffer(buf, cap) < 0)
            break;
    }
    if (rc < 0)
        return errno == ENOENT || errno == ESRCH ? 0 : -1;
    *found = 1;
    return push_pid_text(*buf, len, list, n, listcap);
}

/* Calls fn(arg, tid) for every thread listed in task/ (task_fd), reading
 * the directory a batch of entries at a time to its end: no thread is
 * left out, however many there are. In this process, the library's own
 * threads are passed over: they never fork, their run-queue delay is not
 * the job's, and reading their files was a good part of what tracking
 * oneself cost beyond tracking another process. 0, or -1 when the
 * directory cannot be read or fn returned -1. */
static int each_task(struct proc_handle *h, int task_fd, int (*fn)(void *arg, pid_t tid),
                     void *arg)
{
    _Alignas(struct dirent64) char dents[16384];
    for (;;) {
        ssize_t r = getdents64(task_fd, dents, sizeof dents);
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        for (ssize_t off = 0; off < r;) {
            struct dirent64 *de = (struct dirent64 *)(dents + off);
            off += de->d_reclen;
            if (de->d_name[0] < '0' || de->d_name[0] > '9')
                continue;
            pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);
            /* getpid() last: it is a system call, and only a match needs it. */
            if (tid != h->pid && is_running_library_thread(tid) && h->pid == getpid())
                continue;
            if (fn(arg, tid) < 0)
                return -1;
        }
    }
}

/* Appending each thread's children (each_task's fn). */
struct children_pass {
    struct proc_handle *h;
    int task_fd;
    char **buf;
    size_t *cap;
    pid_t **list;
    size_t *n, *listcap;
    int *found;
};

static int add_thread_children(void *arg, pid_t tid)
{
    struct children_pass *c = arg;
    return thread_children(c->h, c->task_fd, tid, c->buf, c->cap, c->list, c->n, c->listcap,
                           c->found);
}

/* h's task/ directory at its start: the kept descriptor, or one of its
 * own (*temporary 1: the caller closes it) when no more can be kept. */
static int task_dir(struct proc_handle *h, int *temporary)
{
    int task_fd = h->task_fd;
    *temporary = 0;
    if (task_fd < 0) {
        task_fd = h->task_fd = open_kept(h, h->dirfd, "task", O_RDONLY | O_DIRECTORY);
        if (task_fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            task_fd = openat(h->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            *temporary = 1;
        }
    }
    if (task_fd < 0 || lseek(task_fd, 0, SEEK_SET) < 0) {
        int saved = errno;
        if (*temporary && task_fd >= 0)
            close(task_fd);
        errno = saved;
        return -1;
    }
    return task_fd;
}

/* Reading one thread's schedstat (each_task's fn). */
struct schedstat_pass {
    struct proc_handle *h;
    int task_fd;
    char *buf;
    size_t cap;
    void (*each)(void *arg, pid_t tid, const struct proc_schedstat *s);
    void *arg;
};

static int read_thread_schedstat(void *arg, pid_t tid)
{
    struct schedstat_pass *x = arg;
    if (tid == x->h->pid)
        return 0; /* the main thread is read on its own */
    char name[32];
    size_t len;
    struct proc_schedstat st;
    snprintf(name, sizeof name, "%d/schedstat", (int)tid);
    if (file_read_at(x->task_fd, name, x->buf, x->cap, &len) == 0 &&
        proc_parse_schedstat(x->buf, len, &st) == 0)
        x->each(x->arg, tid, &st); /* one that ended meanwhile is passed over */
    return 0;
}

int procfs_threads_schedstat(struct proc_handle *h, char *buf, size_t cap,
                             void (*each)(void *arg, pid_t tid, const struct proc_schedstat *s),
                             void *arg)
{
    int temporary;
    int task_fd = task_dir(h, &temporary);
    if (task_fd < 0)
        return -1;
    struct schedstat_pass x = {h, task_fd, buf, cap, each, arg};
    int rc = each_task(h, task_fd, read_thread_schedstat, &x);
    int saved = errno;
    if (temporary)
        close(task_fd);
    errno = saved;
    return rc;
}

int procfs_list_children(struct proc_handle *h, long nthreads, char **buf, size_t *cap,
                         pid_t **list, size_t *n, size_t *listcap)
{
    int found = 0;
    if (nthreads <= 1) {
        /* One thread: its tid is the pid, no need to list task/. */
        if (thread_children(h, -1, h->pid, buf, cap, list, n, listcap, &found) < 0)
            return -1;
    } else {
        int temporary;
        int task_fd = task_dir(h, &temporary);
        if (task_fd < 0)
            return -1;
        struct children_pass c = {h, task_fd, buf, cap, list, n, listcap, &found};
        int rc = each_task(h, task_fd, add_thread_children, &c);
        if (temporary)
            close(task_fd);
        if (rc < 0)
            return -1;
    }
    if (!found) {
        /* No children file at all: either the kernel lacks
         * CONFIG_PROC_CHILDREN or the process died while we listed. */
        errno = faccessat(h->dirfd, "stat", R_OK, 0) == 0 ? ENOTSUP : ESRCH;
        return -1;
    }
    return 0;
}
int procfs_scan_children(int root_fd, pid_t ppid, char *buf, size_t cap,
                         pid_t **list, size_t *n, size_t *listcap)
{
    int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char name[300];
        snprintf(name, sizeof name, "%s/stat", de->d_name);
        size_t len;
        struct proc_stat st;
        if (file_read_at(dirfd(dir), name, buf, cap, &len) < 0 ||
            proc_parse_stat(buf, len, &st) < 0)
            continue; /* gone or unreadable: not ours to count */
        if (st.ppid == ppid)
            rc = pid_list_push(list, n, listcap, (pid_t)strtol(de->d_name, NULL, 10));
    }
    closedir(dir);
    return rc;
}
