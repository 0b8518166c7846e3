/* output.c - checking and writing the output file. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int output_check_writable(const char *path, char *err, size_t errcap)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
        /* It did not exist: we only wanted to know we could create it. */
        close(fd);
        unlink(path);
        return 0;
    }
    if (errno == EEXIST) {
        struct stat sb;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            snprintf(err, errcap, "cannot write output file '%s': it is a directory", path);
            return -1;
        }
        fd = open(path, O_WRONLY | O_CLOEXEC); /* no O_TRUNC: keep its contents */
        if (fd >= 0) {
            close(fd);
            return 0;
        }
    }
    snprintf(err, errcap, "cannot write output file '%s': %s", path, strerror(errno));
    return -1;
}

int output_write_file(const char *path, const char *text, char *err, size_t errcap)
{
    char *copy = strdup(path);
    if (!copy) {
        snprintf(err, errcap, "cannot write output file '%s': out of memory", path);
        return -1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dirname(copy), basename((char *)path));
    free(copy);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errcap, "cannot write output file '%s': %s", path, strerror(errno));
        return -1;
    }
    fchmod(fd, 0644);
    size_t len = strlen(text);
    int ok = 1;
    for (size_t off = 0; ok && off < len;) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        if (ok)
            off += (size_t)w;
    }
    ok = ok && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
    int e = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return 0;
    if (!e)
        e = errno;
    unlink(tmp);
    snprintf(err, errcap, "cannot write output file '%s': %s", path, strerror(e));
    return -1;
}
