/* output.c - checking and writing the output file. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
