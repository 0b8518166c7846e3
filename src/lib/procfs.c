/* procfs.c - reading procfs through directory fds and fixed buffers. */
#define _GNU_SOURCE
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_fd_from(int fd, off_t off0, char *buf, size_t cap, size_t *len)
{
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            errno = EFBIG;
            return -1;
        }
        ssize_t r = pread(fd, buf + n, cap - 1 - n, off0 + (off_t)n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *len = n;
    return 0;
}

int procfs_pread(int fd, char *buf, size_t cap, size_t *len)
{
    return read_fd_from(fd, 0, buf, cap, len);
}

int procfs_read_at(int dirfd, const char *name, char *buf, size_t cap, size_t *len)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = read_fd_from(fd, 0, buf, cap, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int procfs_open(int root_fd, pid_t pid, struct proc_handle *h)
{
    char name[24];
    snprintf(name, sizeof name, "%d", (int)pid);
    h->stat_fd = h->status_fd = -1;
    h->dirfd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return h->dirfd < 0 ? -1 : 0;
}

void procfs_close(struct proc_handle *h)
{
    if (h->stat_fd >= 0)
        close(h->stat_fd);
    if (h->status_fd >= 0)
        close(h->status_fd);
    if (h->dirfd >= 0)
        close(h->dirfd);
    h->dirfd = h->stat_fd = h->status_fd = -1;
}

/* Reads a file through its kept-open fd, opening it on first use. If the
 * process already has too many files open we still read, just without
 * keeping the descriptor. */
static int read_kept(struct proc_handle *h, int *fd, const char *name, char *buf,
                     size_t cap, size_t *len)
{
    if (*fd < 0) {
        *fd = openat(h->dirfd, name, O_RDONLY | O_CLOEXEC);
        if (*fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                return procfs_read_at(h->dirfd, name, buf, cap, len);
            return -1;
        }
    }
    return procfs_pread(*fd, buf, cap, len);
}

int procfs_read_stat(struct proc_handle *h, char *buf, size_t cap, struct proc_stat *out)
{
    size_t len;
    if (read_kept(h, &h->stat_fd, "stat", buf, cap, &len) < 0)
        return -1;
    if (proc_parse_stat(buf, len, out) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int procfs_read_status(struct proc_handle *h, char *buf, size_t cap, struct proc_status *out)
{
    size_t len;
    if (read_kept(h, &h->status_fd, "status", buf, cap, &len) < 0)
        return -1;
    if (proc_parse_status(buf, len, out) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int procfs_read_rollup(struct proc_handle *h, char *buf, size_t cap, struct proc_rollup *out)
{
    /* Not kept open: it is read rarely (see tree.c) and walks every mapping. */
    size_t len;
    if (procfs_read_at(h->dirfd, "smaps_rollup", buf, cap, &len) < 0)
        return -1;
    if (proc_parse_smaps_rollup(buf, len, out) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int pid_list_push(pid_t **list, size_t *n, size_t *cap, pid_t pid)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        pid_t *p = realloc(*list, ncap * sizeof *p);
        if (!p) {
            errno = ENOMEM;
            return -1;
        }
        *list = p;
        *cap = ncap;
    }
    (*list)[(*n)++] = pid;
    return 0;
}

/* Appends the pids of a whitespace-separated list in buf. */
static int push_pid_text(const char *buf, size_t len, pid_t **list, size_t *n, size_t *cap)
{
    size_t count;
    if (proc_parse_pid_list(buf, len, NULL, 0, &count) < 0) {
        errno = EINVAL;
        return -1;
    }
    if (count == 0)
        return 0;
    pid_t *tmp = malloc(count * sizeof *tmp);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    proc_parse_pid_list(buf, len, tmp, count, &count);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++)
        rc = pid_list_push(list, n, cap, tmp[i]);
    free(tmp);
    return rc;
}

int procfs_list_children(struct proc_handle *h, char *buf, size_t cap,
                         pid_t **list, size_t *n, size_t *listcap)
{
    int taskfd = openat(h->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (taskfd < 0)
        return -1;
    DIR *dir = fdopendir(taskfd);
    if (!dir) {
        close(taskfd);
        return -1;
    }
    int rc = 0, threads = 0, files = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        threads++;
        char name[300];
        snprintf(name, sizeof name, "%s/children", de->d_name);
        size_t len;
        if (procfs_read_at(dirfd(dir), name, buf, cap, &len) < 0) {
            if (errno == ENOENT || errno == ESRCH)
                continue; /* the thread exited, or no children files at all */
            rc = -1;
            break;
        }
        files++;
        rc = push_pid_text(buf, len, list, n, listcap);
    }
    int saved = errno;
    closedir(dir);
    if (rc == 0 && threads > 0 && files == 0) {
        /* Threads exist but none has a children file: either the kernel lacks
         * CONFIG_PROC_CHILDREN or the process died while we listed. */
        if (faccessat(h->dirfd, "stat", R_OK, 0) == 0) {
            errno = ENOTSUP;
            return -1;
        }
        errno = ESRCH;
        return -1;
    }
    errno = saved;
    return rc;
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
        if (procfs_read_at(dirfd(dir), name, buf, cap, &len) < 0 ||
            proc_parse_stat(buf, len, &st) < 0)
            continue; /* gone or unreadable: not ours to count */
        if (st.ppid == ppid)
            rc = pid_list_push(list, n, listcap, (pid_t)strtol(de->d_name, NULL, 10));
    }
    closedir(dir);
    return rc;
}
