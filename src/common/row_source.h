/* row_source.h - where the writers of a run (snapshot, report, statistics)
 * take its rows from: the arrays of a gt_series in memory, or the
 * tracker's row store, which keeps a long run's rows in a file. Writers
 * pull rows in order, a batch at a time, so that their memory does not
 * grow with the run. */
#ifndef GT_ROW_SOURCE_H
#define GT_ROW_SOURCE_H

#include <stddef.h>

#include "gpu_tracker_internal.h"

struct row_source {
    size_t count[2]; /* rows, by gt_series_kind */
    /* Copies rows first .. first + n - 1 of kind into out (gt_process_row
     * or gt_system_row structs). 0, or -1 with errno (a store's file could
     * not be read). */
    int (*read)(const struct row_source *src, gt_series_kind kind, size_t first, size_t n,
                void *out);
    const void *ctx;
};

/* A source over the arrays of series (which must outlive it). */
void row_source_from_series(struct row_source *src, const gt_series *series);

/* Rows read from a source per batch: a few hundred kilobytes of structs. */
#define ROW_BATCH 1024

/* Called for row pair i: p, the i-th process row, and y, the i-th system
 * row, either NULL where that series is shorter. */
typedef void (*row_pair_fn)(void *ctx, size_t i, const gt_process_row *p, const gt_system_row *y);

/* Calls fn for pairs 0 .. n - 1 in order (n at most the longer series'
 * count), reading both series a batch at a time: memory that does not grow
 * with the run. 0, or -1 with errno (ENOMEM, or the source's read error);
 * fn has then been called for a prefix of the pairs. */
int row_source_each_pair(const struct row_source *src, size_t n, row_pair_fn fn, void *ctx);

/* Every row of both series of rows, copied into new arrays (*process and
 * *system, each at least one row long, so never NULL on success). GT_OK,
 * or GT_ERR_NO_MEMORY / GT_ERR_IO (the row file cannot be read back) with
 * the reason in gt_last_error() and nothing allocated left behind. */
gt_status row_source_read_all(const struct row_source *rows, gt_process_row **process,
                              gt_system_row **system);

#endif
