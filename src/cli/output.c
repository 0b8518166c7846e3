/* output.c - checking and opening the outputs, through the library's file
 * rules (output_file_check and output_file_open). */
#define _GNU_SOURCE
#include "output.h"
#include "common/toolkit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The library says "cannot write 'PATH': WHY"; we say which output that is:
 * "cannot write output file 'PATH': WHY". */
static void output_message(const char *what, char *err, size_t errcap)
{
    static const char prefix[] = "cannot write '";
    const char *m = gt_last_error();
    if (strncmp(m, prefix, sizeof prefix - 1) == 0)
        snprintf(err, errcap, "cannot write %s '%s", what, m + sizeof prefix - 1);
    else
        snprintf(err, errcap, "%s", m);
}

int output_check_writable(const char *path, const char *what, char *err, size_t errcap)
{
    if (output_file_check(path) == GT_OK)
        return 0;
    output_message(what, err, errcap);
    return -1;
}

int output_hold(const char *path, const char *what, char *err, size_t errcap)
{
    if (output_file_hold(path) == GT_OK)
        return 0;
    output_message(what, err, errcap);
    return -1;
}

int output_open_csv(const char *path, const char *option, char *err, size_t errcap)
{
    if (strcmp(path, "-") == 0)
        return STDOUT_FILENO;
    int fd;
    if (output_file_open(path, &fd) == GT_OK)
        return fd;
    char what[64];
    snprintf(what, sizeof what, "%s file", option);
    output_message(what, err, errcap);
    return -1;
}

int output_check_tracking_file(const char *path, int overwrite, char *err, size_t errcap)
{
    struct stat st;
    if (!overwrite && lstat(path, &st) == 0) {
        snprintf(err, errcap, "tracking file '%s' already exists: give --overwrite to replace "
                 "it, or another name", path);
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(err, errcap, "cannot write tracking file '%s': it is not a regular file (a "
                 "FIFO, a device or a directory); give a file's name", path);
        return -1;
    }
    return output_check_writable(path, "tracking file", err, errcap);
}

/* 1 when path is the null device (under any name): outputs sent there are
 * thrown away, so two of them cannot overwrite each other. */
static int is_null_device(const char *path)
{
    struct stat st, null;
    return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
           S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

int output_find_same(const struct output_use *uses, size_t n, char *err, size_t errcap)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; uses[i].path && j < n; j++) {
            if (!uses[j].path)
                continue;
            /* "-" is standard output: the same as /dev/stdout. */
            const char *a = strcmp(uses[i].path, "-") == 0 ? "/dev/stdout" : uses[i].path;
            const char *b = strcmp(uses[j].path, "-") == 0 ? "/dev/stdout" : uses[j].path;
            if (!output_file_same(a, b) || is_null_device(a))
                continue;
            char names[1024];
            if (strcmp(uses[i].path, uses[j].path) == 0)
                snprintf(names, sizeof names, "'%s'", uses[i].path);
            else
                snprintf(names, sizeof names, "'%s' and '%s'", uses[i].path, uses[j].path);
            snprintf(err, errcap, "%s and %s name the same file (%s): one would overwrite the "
                     "other; give each its own file", uses[i].option, uses[j].option, names);
            return -1;
        }
    return 0;
}

void cli_error(const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("gpu-tracker: out of memory\n", stderr);
        return;
    }
    if (n > 0 && line[n - 1] == '\n')
        line[n - 1] = '\0';
    fputs("gpu-tracker: ", stderr);
    output_print_untrusted(stderr, line);
    fputc('\n', stderr);
    free(line);
}

int cli_fail(const char *msg, int status)
{
    cli_error("%s", msg);
    return status;
}

void output_print_untrusted(FILE *f, const char *s)
{
    char *safe = text_escape(s);
    if (safe) {
        fputs(safe, f);
        free(safe);
        return;
    }
    /* Out of memory: only what is plainly printable. */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        fputc(*p >= 0x20 && *p < 0x7f ? *p : '?', f);
}

int output_rescue_series(gt_tracker *t, gt_series_kind kind, const char *path)
{
    int proc = kind == GT_SERIES_KIND_PROCESS;
    if (!gt_tracker_csv_failed(t, kind))
        return 0;
    cli_error("the %s series could not be written in full to '%s'; all its "
              "rows follow on standard error\n", proc ? "process" : "system",
              strcmp(path, "-") == 0 ? "standard output" : path);
    fflush(stderr);
    if (gt_tracker_write_series_csv(t, kind, STDERR_FILENO) != GT_OK)
        cli_error("%s\n", gt_last_error());
    return 1;
}
