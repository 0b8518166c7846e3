/* files.c - the file calls the toolkit offers its users outside the
 * library (common/toolkit.h): whole files read as the library reads
 * untrusted files (and trusted ones, owned and private), a file opened to read
 * under the same rules, and a file written atomically under the output
 * rules (file_io.c has the rules and the work). */
#define _GNU_SOURCE
#include <sys/stat.h>

#include "common/file_io.h"
#include "common/internal.h"
#include "common/toolkit.h"

gt_status output_file_write(const char *path, const void *data, size_t len)
{
    if (!path || (!data && len))
        return error_set(GT_ERR_INVALID_ARGUMENT, "output_file_write: a path and data are needed");
    return write_file_atomic(path, data, len);
}

/* input_file_read() and input_file_read_private(): reader under the name fn. */
static gt_status read_for(const char *fn,
                          gt_status (*reader)(const char *, size_t, const char *, char **, size_t *),
                          const char *path, size_t max, const char *what, char **data, size_t *len)
{
    if (!path || !data)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: a path and data are needed", fn);
    size_t n = 0;
    gt_status st = reader(path, max, what ? what : "file", data, &n);
    if (len)
        *len = n;
    return st;
}

gt_status input_file_read(const char *path, size_t max, const char *what, char **data, size_t *len)
{
    return read_for("input_file_read", read_regular_file, path, max, what, data, len);
}

gt_status input_file_read_private(const char *path, size_t max, const char *what, char **data,
                               size_t *len)
{
    return read_for("input_file_read_private", read_private_file, path, max, what, data, len);
}

gt_status input_file_open(const char *path, const char *what, int *fd)
{
    if (!path || !fd)
        return error_set(GT_ERR_INVALID_ARGUMENT, "input_file_open: a path and fd are needed");
    struct stat st;
    gt_status status;
    *fd = input_open(path, what, 0, &st, &status);
    return status;
}
