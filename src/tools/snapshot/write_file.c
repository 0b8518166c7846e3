/* write_file.c - the summary and the series written to a file, under the
 * rules of file_io.h (atomically, so that a crash or a full disk never
 * leaves half a file behind). */
#define _GNU_SOURCE
#include "common/file_io.h"
#include "gpu_tracker_tools.h"
#include "common/internal.h"
#include "common/summary/usage_write.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes text and a newline when add_newline; takes ownership of text
 * (NULL: out of memory). */
static gt_status write_text_atomically(const char *path, char *text, int add_newline)
{
    if (!text)
        return error_set(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
    size_t len = strlen(text);
    if (add_newline) {
        char *more = realloc(text, len + 2);
        if (!more) {
            free(text);
            return error_set(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
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
    error_clear();
    gt_status st = GT_CHECK_STRUCT("gt_usage_write_file", gt_resource_usage, usage);
    if (st != GT_OK)
        return st;
    char *text = format == GT_FORMAT_JSON ? usage_to_json(usage) : usage_to_text(usage);
    return write_text_atomically(path, text, 1);
}

gt_status gt_series_write_csv(const gt_series *series, gt_series_kind kind, const char *path)
{
    error_clear();
    gt_status st = GT_CHECK_STRUCT("gt_series_write_csv", gt_series, series);
    if (st != GT_OK)
        return st;
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                         (int)kind);
    return write_text_atomically(path, gt_series_to_csv(series, kind), 0);
}
