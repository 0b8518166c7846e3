/* row_source.c - reading a run's rows in batches (see row_source.h). */
#include "util/row_source.h"

#include <errno.h>
#include <stdlib.h>

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
