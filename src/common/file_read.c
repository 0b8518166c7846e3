/* file_read.c - see file_read.h. */
#define _GNU_SOURCE
#include "common/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* A procfs read that returns less than this has reached the end: seq_file
 * fills at least a page per read unless the file is done. (A regular file,
 * as in test fixtures, returns short only at its end.) Saves the extra read
 * that would only return 0. */
#define PROCFS_SHORT_READ 2048

/* Reads fd into buf until its end, or until buf is full when prefix (else
 * a full buffer is EFBIG). A kept descriptor is re-read from offset 0
 * (positional: procfs regenerates the file); a fresh one is read in order. */
static int read_until(int fd, int positional, int prefix, char *buf, size_t cap,
                      size_t *len)
{
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            if (prefix)
                break;
            errno = EFBIG;
            return -1;
        }
        ssize_t r = positional ? pread(fd, buf + n, cap - 1 - n, (off_t)n)
                               : read(fd, buf + n, cap - 1 - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        size_t asked = cap - 1 - n;
        n += (size_t)r;
        /* Short of what was asked (not merely of a small buffer) and of a
         * page: the end. A read that filled the buffer may have more. */
        if ((size_t)r < asked && r < PROCFS_SHORT_READ)
            break;
    }
    buf[n] = '\0';
    *len = n;
    return 0;
}

int file_read_fd(int fd, int positional, char *buf, size_t cap, size_t *len)
{
    return read_until(fd, positional, 0, buf, cap, len);
}

int file_pread(int fd, char *buf, size_t cap, size_t *len)
{
    return file_read_fd(fd, 1, buf, cap, len);
}

int file_pread_grow(int fd, char **buf, size_t *cap, size_t max, size_t *len)
{
    if (!*buf || *cap == 0) {
        size_t first = max < 4096 ? max : 4096;
        char *nb = realloc(*buf, first ? first : 1);
        if (!nb) {
            errno = ENOMEM;
            return -1;
        }
        *buf = nb;
        *cap = first ? first : 1;
    }
    for (;;) {
        if (file_pread(fd, *buf, *cap, len) == 0)
            return 0;
        if (errno != EFBIG || *cap >= max)
            return -1;
        char *nb = realloc(*buf, *cap * 2);
        if (!nb) {
            errno = ENOMEM;
            return -1;
        }
        *buf = nb;
        *cap *= 2;
    }
}

int file_open_in(const char *root, const char *name, int flags)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, name);
    return open(path, flags | O_RDONLY | O_CLOEXEC);
}

int file_read_at(int dirfd, const char *name, char *buf, size_t cap, size_t *len)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = file_read_fd(fd, 0, buf, cap, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int file_read_prefix(const char *path, char *buf, size_t cap, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = read_until(fd, 0, 1, buf, cap, len);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}
