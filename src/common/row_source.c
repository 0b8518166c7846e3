/* row_source.c - reading a run's rows in batches (see row_source.h). */
#include "common/row_source.h"

#include "common/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rows of a series within batch [at, at + take): how many there are. */
static size_t rows_in(size_t count, size_t at, size_t take)
{
    if (at >= count)
        return 0;
    return count - at < take ? count - at : take;
}

int row_source_each_pair(const struct row_source *src, size_t n, row_pair_fn fn, void *ctx)
{
    size_t np = src->count[GT_SERIES_KIND_PROCESS], ns = src->count[GT_SERIES_KIND_SYSTEM];
    size_t longer = np > ns ? np : ns;
    if (n > longer)
        n = longer;
    if (n == 0)
        return 0;
    gt_process_row *p = malloc(ROW_BATCH * sizeof *p);
    gt_system_row *y = malloc(ROW_BATCH * sizeof *y);
    int rc = p && y ? 0 : -1;
    if (rc < 0)
        errno = ENOMEM;
    for (size_t at = 0; rc == 0 && at < n; at += ROW_BATCH) {
        size_t take = n - at < ROW_BATCH ? n - at : ROW_BATCH;
        size_t tp = rows_in(np, at, take), ty = rows_in(ns, at, take);
        if ((tp && src->read(src, GT_SERIES_KIND_PROCESS, at, tp, p) < 0) ||
            (ty && src->read(src, GT_SERIES_KIND_SYSTEM, at, ty, y) < 0)) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < take; k++)
            fn(ctx, at + k, k < tp ? &p[k] : NULL, k < ty ? &y[k] : NULL);
    }
    int e = errno;
    free(p);
    free(y);
    errno = e;
    return rc;
}

/* The row source over the arrays of a gt_series. */
static int read_array_rows(const struct row_source *src, gt_series_kind kind, size_t first,
                           size_t n, void *out)
{
    const gt_series *se = src->ctx;
    if (kind == GT_SERIES_KIND_PROCESS)
        memcpy(out, se->process + first, n * sizeof *se->process);
    else
        memcpy(out, se->system + first, n * sizeof *se->system);
    return 0;
}

void row_source_from_series(struct row_source *src, const gt_series *series)
{
    src->count[GT_SERIES_KIND_PROCESS] = series->process ? series->nprocess : 0;
    src->count[GT_SERIES_KIND_SYSTEM] = series->system ? series->nsystem : 0;
    src->read = read_array_rows;
    src->ctx = series;
}

gt_status row_source_read_all(const struct row_source *rows, gt_process_row **process,
                              gt_system_row **system)
{
    size_t np = rows->count[GT_SERIES_KIND_PROCESS], ns = rows->count[GT_SERIES_KIND_SYSTEM];
    *process = malloc((np ? np : 1) * sizeof **process);
    *system = malloc((ns ? ns : 1) * sizeof **system);
    int rc = 0;
    if (!*process || !*system) {
        errno = ENOMEM;
        rc = -1;
    } else if (rows->read(rows, GT_SERIES_KIND_PROCESS, 0, np, *process) < 0 ||
               rows->read(rows, GT_SERIES_KIND_SYSTEM, 0, ns, *system) < 0) {
        rc = -1;
    }
    if (rc < 0) {
        int e = errno;
        free(*process);
        free(*system);
        *process = NULL;
        *system = NULL;
        return e == ENOMEM ? error_set(GT_ERR_NO_MEMORY, "out of memory for %zu rows", np + ns)
                           : error_set(GT_ERR_IO, "cannot read the rows back: %s", strerror(e));
    }
    return GT_OK;
}
