/* output.c - checking and opening the outputs, through the library's file
 * rules (gt_output_check and gt_output_open). */
#define _GNU_SOURCE
#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    if (gt_output_check(path) == GT_OK)
        return 0;
    output_message(what, err, errcap);
    return -1;
}

int output_open_csv(const char *path, const char *option, char *err, size_t errcap)
{
    if (strcmp(path, "-") == 0)
        return STDOUT_FILENO;
    int fd;
    if (gt_output_open(path, &fd) == GT_OK)
        return fd;
    char what[64];
    snprintf(what, sizeof what, "%s file", option);
    output_message(what, err, errcap);
    return -1;
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
            if (!gt_output_same(a, b))
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
