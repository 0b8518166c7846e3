/* output.c - checking and writing the output file. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
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

int output_open_csv(const char *path, const char *option, char *err, size_t errcap)
{
    if (strcmp(path, "-") == 0)
        return STDOUT_FILENO;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errcap, "cannot write %s file '%s': it is a directory", option, path);
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        snprintf(err, errcap, "cannot write %s file '%s': %s", option, path, strerror(errno));
    return fd;
}

int output_rescue_series(const gt_series *series, gt_series_kind kind, const char *path)
{
    int proc = kind == GT_SERIES_KIND_PROCESS;
    if (!(proc ? series->process_csv_failed : series->system_csv_failed))
        return 0;
    char *csv = gt_series_to_csv(series, kind);
    fprintf(stderr, "gpu-tracker: the %s series could not be written in full to '%s'; all its "
            "%zu rows follow on standard error\n", proc ? "process" : "system",
            strcmp(path, "-") == 0 ? "standard output" : path,
            proc ? series->nprocess : series->nsystem);
    if (csv)
        fputs(csv, stderr);
    else
        fputs("gpu-tracker: out of memory formatting the rows\n", stderr);
    free(csv);
    return 1;
}
