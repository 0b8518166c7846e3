/* write_file.c - writing a summary to a file atomically, so that a crash or a
 * full disk never leaves half a file behind. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Writes to something that is not a regular file (/dev/stdout, /dev/full, a
 * FIFO) in place: a temporary file renamed over it would replace the
 * device node or pipe itself. */
static gt_status write_in_place(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    int ok = write_all(fd, data, len) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    return ok ? GT_OK : gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(e));
}

gt_status write_file_atomic(const char *path, const void *data, size_t len)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        if (S_ISDIR(sb.st_mode))
            return gt_fail(GT_ERR_IO, "cannot write '%s': it is a directory", path);
        return write_in_place(path, data, len);
    }
    /* A symbolic link to a file: replace the file, keep the link. */
    char *target = NULL;
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode) && (target = realpath(path, NULL))) {
        gt_status st = write_file_atomic(target, data, len);
        free(target);
        return st;
    }
    char *dir_copy = strdup(path), *base_copy = strdup(path);
    char *tmp = NULL;
    gt_status st = GT_OK;
    if (!dir_copy || !base_copy ||
        asprintf(&tmp, "%s/.%s.XXXXXX", dirname(dir_copy), basename(base_copy)) < 0) {
        tmp = NULL;
        st = gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
        goto out;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    fchmod(fd, 0644);
    int ok = write_all(fd, data, len) == 0 && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        unlink(tmp);
        st = gt_fail(GT_ERR_IO, "cannot write '%s': %s", path, strerror(e));
    }
out:
    free(tmp);
    free(dir_copy);
    free(base_copy);
    return st;
}

/* Writes text and a newline when add_newline; takes ownership of text
 * (NULL: out of memory). */
static gt_status write_text_atomically(const char *path, char *text, int add_newline)
{
    if (!text)
        return gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
    size_t len = strlen(text);
    if (add_newline) {
        char *more = realloc(text, len + 2);
        if (!more) {
            free(text);
            return gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
        }
        text = more;
        text[len++] = '\n';
        text[len] = '\0';
    }
    gt_status st = write_file_atomic(path, text, len);
    free(text);
    return st;
}

gt_status gt_usage_write_file(const gt_resource_usage *usage, const char *path, gt_format format)
{
    gt_clear_error();
    char *text = format == GT_FORMAT_JSON ? gt_usage_to_json(usage) : gt_usage_to_text(usage);
    return write_text_atomically(path, text, 1);
}

gt_status gt_series_write_csv(const gt_series *series, gt_series_kind kind, const char *path)
{
    gt_clear_error();
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                       (int)kind);
    return write_text_atomically(path, gt_series_to_csv(series, kind), 0);
}
