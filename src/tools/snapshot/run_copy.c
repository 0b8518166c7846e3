/* run_copy.c - a tracker's run copied into memory: its snapshot whole
 * (gt_tracker_snapshot) and its rows as they grow (gt_tracker_rows_since),
 * through the gate the tools take a live run by (gpu_tracker_tools.h).
 * Apart from run_snapshot.c, so that the command, which links the tools'
 * archive, takes the streaming writer without these. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_tools.h"
#include "common/internal.h"
#include "common/row_source.h"

gt_status gt_tracker_snapshot(gt_tracker *t, const char *command, int exit_status,
                              gt_snapshot **out)
{
    error_clear();
    *out = NULL;
    gt_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = gt_tracker_snapshot_parts(t, command, exit_status, s, &rows, &live);
    free(live);
    gt_process_row *process = NULL;
    gt_system_row *system = NULL;
    if (st == GT_OK)
        st = row_source_read_all(&rows, &process, &system);
    if (st != GT_OK) {
        gt_snapshot_free(s);
        return st;
    }
    s->series.process = process;
    s->series.system = system;
    *out = s;
    return GT_OK;
}

gt_status gt_tracker_rows_since(gt_tracker *t, gt_series_kind kind, size_t first, void **rows,
                                size_t *n)
{
    error_clear();
    *rows = NULL;
    *n = 0;
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                         (int)kind);
    struct row_source src;
    double interval;
    gt_status st = gt_tracker_rows(t, &src, &interval);
    if (st != GT_OK || first >= src.count[kind])
        return st;
    size_t want = src.count[kind] - first;
    size_t size = kind == GT_SERIES_KIND_PROCESS ? sizeof(gt_process_row) : sizeof(gt_system_row);
    void *out = want <= SIZE_MAX / size ? malloc(want * size) : NULL;
    if (!out)
        return error_set(GT_ERR_NO_MEMORY, "out of memory for %zu rows", want);
    if (src.read(&src, kind, first, want, out) < 0) {
        free(out);
        return error_set(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
    }
    *rows = out;
    *n = want;
    return GT_OK;
}
