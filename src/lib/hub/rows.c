/* rows.c - the series a tracker keeps (options.series): every row once
 * stopped, the rows so far while it runs (read back without the lock from
 * the part of the row file already committed), written as CSV; and where
 * its backup file and exporter are. */
#define _GNU_SOURCE
#include "gpu_tracker_internal.h"
#include "hub/tracker_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"

gt_status gt_tracker_series(gt_tracker *t, gt_series *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_series", gt_series, out, 1, "series");
    if (out && out->struct_size >= sizeof(gt_series)) {
        memset(out, 0, sizeof *out);
        out->struct_size = sizeof *out;
    }
    if (st != GT_OK)
        return st;
    out->interval = t->cfg.o.sleep_time;
    out->start_time = t->run.epoch_start;
    pthread_mutex_lock(&t->lock);
    struct row_source rows;
    row_store_source(&t->store, &rows);
    if (!t->all_process)
        st = row_source_read_all(&rows, &t->all_process, &t->all_system);
    if (st == GT_OK) {
        out->nprocess = rows.count[0];
        out->process = t->all_process;
        out->nsystem = rows.count[1];
        out->system = t->all_system;
    }
    pthread_mutex_unlock(&t->lock);
    if (st != GT_OK)
        return st;
    out->process_csv_failed = sinks_csv_failed(&t->sinks, GT_SERIES_KIND_PROCESS);
    out->system_csv_failed = sinks_csv_failed(&t->sinks, GT_SERIES_KIND_SYSTEM);
    return GT_OK;
}

/* ---- the rows while tracking ------------------------------------------------ */

static int known_kind(gt_series_kind kind)
{
    return kind == GT_SERIES_KIND_PROCESS || kind == GT_SERIES_KIND_SYSTEM;
}

const char *gt_tracker_metrics_address(gt_tracker *t)
{
    return t ? sinks_metrics_address(&t->sinks) : NULL;
}

/* The store is appended to while we read: the rows in memory are copied
 * under the lock, those on disk read after it, from the part of the file
 * that was committed (never written again) when we looked. */
static gt_status copy_rows(gt_tracker *t, gt_series_kind kind, size_t first, size_t max,
                           void *out, size_t *copied)
{
    *copied = 0;
    struct row_copy_rest rest;
    pthread_mutex_lock(&t->lock);
    size_t n = row_store_copy_begin(&t->store, kind, first, max, out, &rest);
    pthread_mutex_unlock(&t->lock);
    if (row_store_copy_rest(&rest, out) < 0)
        return error_set(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
    *copied = n;
    return GT_OK;
}

/* A row source over the rows kept when it was made, read while the
 * tracker may still be appending. */
static int read_live_rows(const struct row_source *src, gt_series_kind kind, size_t first,
                          size_t n, void *out)
{
    size_t got;
    if (copy_rows((gt_tracker *)src->ctx, kind, first, n, out, &got) != GT_OK || got != n) {
        errno = EIO;
        return -1;
    }
    return 0;
}

void tracker_live_rows(gt_tracker *t, struct row_source *src)
{
    pthread_mutex_lock(&t->lock);
    src->count[GT_SERIES_KIND_PROCESS] = row_store_count(&t->store, GT_SERIES_KIND_PROCESS);
    src->count[GT_SERIES_KIND_SYSTEM] = row_store_count(&t->store, GT_SERIES_KIND_SYSTEM);
    pthread_mutex_unlock(&t->lock);
    src->read = read_live_rows;
    src->ctx = t;
}

gt_status gt_tracker_rows(gt_tracker *t, struct row_source *rows, double *interval)
{
    gt_status st = tracker_call_begin(t, "gt_tracker_rows", NULL, NULL, 0, 0, 0, "rows");
    if (st != GT_OK)
        return st;
    tracker_live_rows(t, rows);
    *interval = t->cfg.o.sleep_time; /* options: read-only once made */
    return GT_OK;
}

int gt_tracker_wait_rows(gt_tracker *t, size_t n, double timeout)
{
    error_clear();
    if (!t)
        return 0;
    int series = t->cfg.o.series;
    if (!series || !tracker_owned_here(t) || t->state == STATE_NEW)
        return 0;
    struct timespec deadline = to_timespec(monotonic_now() + (timeout > 0 ? timeout : 0));
    pthread_mutex_lock(&t->lock);
    int rc = 0, enough = 0;
    t->row_waiters++;
    for (;;) {
        enough = (!(series & GT_SERIES_PROCESS) ||
                  row_store_count(&t->store, GT_SERIES_KIND_PROCESS) >= n) &&
                 (!(series & GT_SERIES_SYSTEM) ||
                  row_store_count(&t->store, GT_SERIES_KIND_SYSTEM) >= n);
        if (enough || rc == ETIMEDOUT || t->thread_done || t->series_frozen)
            break;
        rc = pthread_cond_timedwait(&t->done, &t->lock, &deadline);
    }
    t->row_waiters--;
    pthread_mutex_unlock(&t->lock);
    return enough;
}

int gt_tracker_csv_failed(gt_tracker *t, gt_series_kind kind)
{
    if (tracker_call_begin(t, "gt_tracker_csv_failed", NULL, NULL, 0, 0, 1, "CSV outcome") != GT_OK)
        return 0;
    return sinks_csv_failed(&t->sinks, kind);
}

gt_status gt_tracker_write_series_csv(gt_tracker *t, gt_series_kind kind, int fd)
{
    error_clear();
    if (!known_kind(kind))
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                         (int)kind);
    if (!gt_tracker_usage(t))
        return GT_ERR_STATE;
    struct row_source rows;
    row_store_source(&t->store, &rows);
    return write_csv_rows(&rows, kind, fd);
}
