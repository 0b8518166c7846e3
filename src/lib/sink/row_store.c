/* row_store.c - a run's rows, the newest in memory and the rest in an
 * unlinked file (see row_store.h). */
#define _GNU_SOURCE
#include "sink/row_store.h"

#include "common/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"

void row_store_init(struct row_store *s)
{
    memset(s, 0, sizeof *s);
    s->series[GT_SERIES_KIND_PROCESS].row_size = sizeof(gt_process_row);
    s->series[GT_SERIES_KIND_SYSTEM].row_size = sizeof(gt_system_row);
    for (int k = 0; k < 2; k++)
        s->series[k].fd = -1;
}

void row_store_free(struct row_store *s)
{
    for (int k = 0; k < 2; k++) {
        free(s->series[k].tail);
        if (s->series[k].fd >= 0)
            close(s->series[k].fd);
    }
    memset(s, 0, sizeof *s);
    s->series[0].fd = s->series[1].fd = -1;
}

size_t row_store_count(const struct row_store *s, gt_series_kind kind)
{
    return s->series[kind].on_disk + s->series[kind].ntail;
}

int row_store_add(struct row_store *s, gt_series_kind kind, const void *row)
{
    struct row_series *r = &s->series[kind];
    if (grow_array(&r->tail, &r->captail, r->ntail + 1, r->row_size, ROW_STORE_TAIL) < 0)
        return -1;
    memcpy(r->tail + r->ntail * r->row_size, row, r->row_size);
    r->ntail++;
    return !r->in_memory && r->ntail >= ROW_STORE_TAIL;
}

/* An unlinked file for rows in dir: O_TMPFILE, or a named one removed at
 * once where the filesystem lacks it. -1 with errno. */
static int open_unlinked(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/.gpu-tracker-rows-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

/* The file, in the first directory that takes one. */
static int open_row_file(const char *dir, char *why, size_t cap)
{
    const char *env = getenv("TMPDIR");
    const char *dirs[] = {dir ? dir : env && *env ? env : NULL, dir ? NULL : "/var/tmp",
                          dir ? NULL : "/tmp"};
    int e = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i])
            continue;
        int fd = open_unlinked(dirs[i]);
        if (fd >= 0)
            return fd;
        if (!e) {
            e = errno;
            snprintf(why, cap, "cannot make a file for rows in %s: %s", dirs[i], strerror(e));
        }
    }
    errno = e;
    return -1;
}

int row_store_flush(struct row_store *s, gt_series_kind kind)
{
    struct row_series *r = &s->series[kind];
    if (r->fd < 0 && (r->fd = open_row_file(s->dir, s->spill_error, sizeof s->spill_error)) < 0)
        return -1;
    const char *p = r->tail;
    size_t len = r->ntail * r->row_size;
    off_t at = (off_t)(r->on_disk * r->row_size);
    while (len > 0) {
        ssize_t w = pwrite(r->fd, p, len, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            snprintf(s->spill_error, sizeof s->spill_error, "cannot write rows to a temporary "
                     "file: %s", strerror(e));
            errno = e;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        at += w;
    }
    return 0;
}

int row_store_commit(struct row_store *s, gt_series_kind kind, int rc)
{
    struct row_series *r = &s->series[kind];
    if (rc == 0) {
        r->on_disk += r->ntail;
        r->ntail = 0;
        return 0;
    }
    int first = !r->in_memory && !s->series[!kind].in_memory;
    r->in_memory = 1;
    return first;
}

int row_store_read_file(int fd, size_t row_size, size_t first, size_t n, void *out)
{
    char *dst = out;
    size_t len = n * row_size;
    off_t at = (off_t)(first * row_size);
    while (len > 0) {
        ssize_t got = pread(fd, dst, len, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0)
                errno = EIO;
            return -1;
        }
        dst += got;
        len -= (size_t)got;
        at += got;
    }
    return 0;
}

/* Rows first .. first + n - 1: those on disk with pread, the rest from the
 * tail. */
static int read_rows(const struct row_source *src, gt_series_kind kind, size_t first, size_t n,
                     void *out)
{
    const struct row_store *s = src->ctx;
    const struct row_series *r = &s->series[kind];
    char *dst = out;
    if (first < r->on_disk) {
        size_t take = r->on_disk - first < n ? r->on_disk - first : n;
        if (row_store_read_file(r->fd, r->row_size, first, take, dst) < 0)
            return -1;
        dst += take * r->row_size;
        first += take;
        n -= take;
    }
    if (n)
        memcpy(dst, r->tail + (first - r->on_disk) * r->row_size, n * r->row_size);
    return 0;
}

void row_store_source(const struct row_store *s, struct row_source *src)
{
    src->count[GT_SERIES_KIND_PROCESS] = row_store_count(s, GT_SERIES_KIND_PROCESS);
    src->count[GT_SERIES_KIND_SYSTEM] = row_store_count(s, GT_SERIES_KIND_SYSTEM);
    src->read = read_rows;
    src->ctx = s;
}

size_t row_store_copy_begin(const struct row_store *s, gt_series_kind kind, size_t first,
                            size_t max, void *out, struct row_copy_rest *rest)
{
    const struct row_series *r = &s->series[kind];
    size_t count = r->on_disk + r->ntail, on_disk = r->on_disk;
    size_t end = first < count ? (count - first < max ? count : first + max) : first;
    size_t from_tail = end > on_disk ? end - (first > on_disk ? first : on_disk) : 0;
    if (from_tail)
        memcpy((char *)out + (end - from_tail - first) * r->row_size,
               r->tail + (end - from_tail - on_disk) * r->row_size, from_tail * r->row_size);
    *rest = (struct row_copy_rest){r->fd, r->row_size, first, end - first - from_tail};
    return end - first;
}

int row_store_copy_rest(const struct row_copy_rest *rest, void *out)
{
    if (!rest->n)
        return 0;
    return row_store_read_file(rest->fd, rest->row_size, rest->first, rest->n, out);
}
