/* results.c - the public calls that hand out what a tracker gives: its
 * summary, its series and rows, the job's cgroup, energy and GPU driver
 * figures, a snapshot or report of the run, a series as CSV. Each takes the
 * tracker's lock and lets output/ assemble (results.h, run_record.h);
 * nothing here samples or formats. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/background.h"
#include "util/buf.h"
#include "output/output.h"
#include "pipeline/pipeline.h"
#include "util/json_write.h"
#include "analysis/analysis.h"

/* At most this long for the cloud discovery to end: its requests time out
 * after 1 s each, and AWS asks up to four. */
#define CLOUD_WAIT_SECONDS 8.0

const gt_resource_usage *gt_tracker_usage(gt_tracker *t)
{
    gt_clear_error();
    if (!tracker_owned_here(t)) {
        tracker_forked_copy_error(t);
        return NULL;
    }
    if (t->state != STATE_STOPPED) {
        gt_fail(GT_ERR_STATE, t->state == STATE_NEW
                ? "no results: the tracker has not been started"
                : "no results yet: the tracker has not been stopped");
        return NULL;
    }
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, t->stop_time, 1, &t->usage);
    pthread_mutex_unlock(&t->lock);
    return &t->usage;
}

/* Every row of rows in new arrays (row_source_read_all), as a status. */
static gt_status read_all_rows(const struct row_source *rows, gt_process_row **process,
                               gt_system_row **system)
{
    if (row_source_read_all(rows, process, system) == 0)
        return GT_OK;
    return errno == ENOMEM ? gt_fail(GT_ERR_NO_MEMORY, "out of memory for %zu rows",
                                     rows->count[0] + rows->count[1])
                           : gt_fail(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
}

gt_status gt_tracker_series(gt_tracker *t, gt_series *out)
{
    gt_clear_error();
    gt_status checked = GT_CHECK_STRUCT("gt_tracker_series", gt_series, out);
    if (checked != GT_OK)
        return checked;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, t->state == STATE_NEW
                       ? "no series: the tracker has not been started"
                       : "no series yet: the tracker has not been stopped");
    out->interval = t->cfg.o.sleep_time;
    out->start_time = t->run.epoch_start;
    pthread_mutex_lock(&t->lock);
    struct row_source rows;
    row_store_source(&t->store, &rows);
    gt_status st = GT_OK;
    if (!t->all_process)
        st = read_all_rows(&rows, &t->all_process, &t->all_system);
    if (st == GT_OK) {
        out->nprocess = rows.count[0];
        out->process = t->all_process;
        out->nsystem = rows.count[1];
        out->system = t->all_system;
    }
    pthread_mutex_unlock(&t->lock);
    if (st != GT_OK)
        return st;
    out->process_csv_failed = t->sinks.csv.failed[GT_SERIES_KIND_PROCESS];
    out->system_csv_failed = t->sinks.csv.failed[GT_SERIES_KIND_SYSTEM];
    return GT_OK;
}

/* ---- the rows while tracking ------------------------------------------------ */

static int known_kind(gt_series_kind kind)
{
    return kind == GT_SERIES_KIND_PROCESS || kind == GT_SERIES_KIND_SYSTEM;
}

size_t gt_tracker_row_count(gt_tracker *t, gt_series_kind kind)
{
    if (!known_kind(kind))
        return 0;
    pthread_mutex_lock(&t->lock);
    size_t n = row_store_count(&t->store, kind);
    pthread_mutex_unlock(&t->lock);
    return n;
}

double gt_tracker_start_epoch(gt_tracker *t)
{
    pthread_mutex_lock(&t->lock);
    /* Before a delayed baseline, the schedule; after any baseline, its time
     * (run.epoch_start is 0 until then). */
    double at = t->baseline_taken ? t->run.epoch_start : t->delayed_start;
    pthread_mutex_unlock(&t->lock);
    return at;
}

const char *gt_tracker_backup_path(gt_tracker *t)
{
    return t ? t->sinks.backup.path : NULL;
}

const char *gt_tracker_metrics_address(gt_tracker *t)
{
    return t && t->sinks.metrics_on && t->sinks.metrics.daemon ? t->sinks.metrics.address : NULL;
}

gt_status gt_tracker_totals(gt_tracker *t, gt_totals *out)
{
    gt_status st = gt_check_out_struct("gt_tracker_totals", t, out, "gt_totals",
                                       out ? out->struct_size : 0, sizeof(gt_totals));
    if (st != GT_OK)
        return st;
    if (t->state != STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, "gt_tracker_totals: the tracker is not stopped");
    gt_totals r;
    memset(&r, 0, sizeof r);
    r.struct_size = out->struct_size;
    pthread_mutex_lock(&t->lock);
    r.wall_seconds = t->stop_time - t->res.start_time;
    usage_totals(&t->pipe.acc, &r);
    pthread_mutex_unlock(&t->lock);
    memcpy(out, &r, sizeof r);
    return GT_OK;
}

gt_status gt_tracker_progress(gt_tracker *t, gt_progress *out)
{
    gt_status st = gt_check_out_struct("gt_tracker_progress", t, out, "gt_progress",
                                       out ? out->struct_size : 0, sizeof(gt_progress));
    if (st != GT_OK)
        return st;
    gt_progress p;
    memset(&p, 0, sizeof p);
    p.struct_size = out->struct_size;
    pthread_mutex_lock(&t->lock);
    if (t->state == STATE_NEW) {
        pthread_mutex_unlock(&t->lock);
        return gt_fail(GT_ERR_STATE, "gt_tracker_progress: the tracker has not started");
    }
    if (t->baseline_taken)
        p.elapsed = (t->state == STATE_STOPPED ? t->stop_time : monotonic_now()) - t->res.start_time;
    usage_progress(&t->pipe.acc, &p);
    pthread_mutex_unlock(&t->lock);
    if (p.elapsed < 0)
        p.elapsed = 0;
    memcpy(out, &p, sizeof p);
    return GT_OK;
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
        return gt_fail(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
    *copied = n;
    return GT_OK;
}

gt_status gt_tracker_copy_rows(gt_tracker *t, gt_series_kind kind, size_t first, size_t max,
                               void *out, size_t *copied)
{
    gt_clear_error();
    *copied = 0;
    if (!known_kind(kind))
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                       (int)kind);
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    return copy_rows(t, kind, first, max, out, copied);
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

static void live_row_source(gt_tracker *t, struct row_source *src)
{
    pthread_mutex_lock(&t->lock);
    src->count[GT_SERIES_KIND_PROCESS] = row_store_count(&t->store, GT_SERIES_KIND_PROCESS);
    src->count[GT_SERIES_KIND_SYSTEM] = row_store_count(&t->store, GT_SERIES_KIND_SYSTEM);
    pthread_mutex_unlock(&t->lock);
    src->read = read_live_rows;
    src->ctx = t;
}

int gt_tracker_wait_rows(gt_tracker *t, size_t n, double timeout)
{
    gt_clear_error();
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

gt_status gt_tracker_server_info(gt_tracker *t, gt_server_info *out)
{
    gt_clear_error();
    gt_status checked = GT_CHECK_STRUCT("gt_tracker_server_info", gt_server_info, out);
    if (checked != GT_OK)
        return checked;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "no server info: the tracker has not been started");
    run_record_describe(&t->run);
    *out = t->run.server; /* described once: read-only since */
    out->struct_size = sizeof *out;
    struct row_source rows;
    live_row_source(t, &rows);
    snprintf(out->allocation, sizeof out->allocation, "%s", stats_allocation_of_rows(&rows));
    return GT_OK;
}

int gt_tracker_cloud_info(gt_tracker *t, double max_wait, gt_cloud_info *out)
{
    gt_clear_error();
    if (GT_CHECK_STRUCT("gt_tracker_cloud_info", gt_cloud_info, out) != GT_OK)
        return -1;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (t->state == STATE_NEW || !t->cfg.o.discover_cloud)
        return 0;
    if (t->cloud) {
        if (max_wait <= 0 && !cloud_discovery_ready(t->cloud))
            return 0;
        cloud_discovery_finish(t->cloud, max_wait, &t->run.cloud);
        t->cloud = NULL;
    }
    *out = t->run.cloud;
    out->struct_size = sizeof *out;
    return 1;
}

/* ---- snapshots and reports ---------------------------------------------------- */

static void snapshot_who(gt_tracker *t, gt_snapshot *s);

/* Everything of a snapshot of t but its rows (series: counts and interval
 * only, no arrays): a stopped run, or while STARTED the run so far (the
 * summary as of now, in *live, which the caller frees). The cloud
 * discovery's answer is waited for once and kept for the next call.
 * command is copied into s->command. */
static gt_status snapshot_meta(gt_tracker *t, const char *command, int exit_status,
                               gt_snapshot *s, struct row_source *rows, gt_resource_usage **live)
{
    memset(s, 0, sizeof *s);
    *live = NULL;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_NEW) /* begun: described at the first need */
        run_record_describe(&t->run);
    struct run_record run = t->run; /* a copy to fill in: its lock is not used */
    const gt_resource_usage *u;
    if (t->state == STATE_STARTED) {
        u = *live = calloc(1, sizeof **live);
        if (!*live)
            return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
        pthread_mutex_lock(&t->lock);
        int begun = t->baseline_taken;
        if (begun)
            results_usage(&t->res, &t->pipe, monotonic_now(), 0, *live);
        run.epoch_start = t->run.epoch_start;
        pthread_mutex_unlock(&t->lock);
        if (!begun)
            return gt_fail(GT_ERR_STATE, "no snapshot yet: sampling begins at %.3f (start_at)",
                           t->delayed_start);
        run.epoch_stop = epoch_now();
        live_row_source(t, rows);
    } else {
        u = gt_tracker_usage(t);
        if (!u)
            return GT_ERR_STATE;
        row_store_source(&t->store, rows);
    }
    if (t->cfg.o.discover_cloud && t->cloud) {
        cloud_discovery_finish(t->cloud, CLOUD_WAIT_SECONDS, &t->run.cloud);
        t->cloud = NULL;
    }
    run.cloud = t->run.cloud;
    gt_status st = run_record_snapshot(&run, command, exit_status, u, rows, s);
    s->main_only = t->cfg.o.main_only != 0;
    s->cgroup.struct_size = sizeof s->cgroup;
    s->cpu_energy.struct_size = sizeof s->cpu_energy;
    s->gpu_run.struct_size = sizeof s->gpu_run;
    /* The snapshot owns its per-GPU figures, as it owns its other lists. */
    gt_gpu_throttle_device *table =
        t->res.ngpu_list > 0 ? calloc((size_t)t->res.ngpu_list, sizeof *table) : NULL;
    if (st == GT_OK && t->res.ngpu_list > 0 && !table)
        st = gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&t->lock);
    results_cgroup(&t->res, &t->pipe, &s->cgroup);
    results_energy(&t->res, &t->pipe, u, &s->cpu_energy);
    results_gpu_run(&t->res, &t->pipe, u, &s->gpu_run, table);
    pthread_mutex_unlock(&t->lock);
    if (s->gpu_run.devices != table)
        free(table);
    if (st == GT_OK)
        snapshot_who(t, s);
    return st;
}

gt_status gt_tracker_snapshot(gt_tracker *t, const char *command, int exit_status,
                              gt_snapshot **out)
{
    *out = NULL;
    gt_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = snapshot_meta(t, command, exit_status, s, &rows, &live);
    free(live);
    if (st != GT_OK) {
        gt_snapshot_free(s);
        return st;
    }
    gt_process_row *prow;
    gt_system_row *srow;
    st = read_all_rows(&rows, &prow, &srow);
    if (st != GT_OK) {
        gt_snapshot_free(s);
        return st;
    }
    s->series.process = prow;
    s->series.system = srow;
    *out = s;
    return GT_OK;
}

/* What snapshot_meta() made for a streamed write, released. */
static void snapshot_meta_release(gt_snapshot *s, gt_resource_usage *live)
{
    free(live);
    free(s->command);
    free(s->filesystems);
    snapshot_free_lists(s);
}

gt_status gt_tracker_write_snapshot_as(gt_tracker *t, const char *command, int exit_status,
                                       gt_snapshot_format format, const char *path)
{
    gt_clear_error();
    gt_snapshot s;
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = snapshot_meta(t, command, exit_status, &s, &rows, &live);
    if (st == GT_OK)
        st = snapshot_write_rows(&s, &rows, format, path);
    snapshot_meta_release(&s, live);
    return st;
}

gt_status gt_tracker_write_snapshot(gt_tracker *t, const char *command, int exit_status,
                                    const char *path)
{
    return gt_tracker_write_snapshot_as(t, command, exit_status, GT_SNAPSHOT_GPU_TRACKER, path);
}

gt_status gt_tracker_write_report(gt_tracker *t, const char *command, int exit_status,
                                  const char *server_json, const char *path)
{
    return gt_tracker_write_report_ex(t, command, exit_status, server_json, NULL, path);
}

gt_status gt_tracker_write_report_ex(gt_tracker *t, const char *command, int exit_status,
                                     const char *server_json, const gt_report_extras *extras,
                                     const char *path)
{
    gt_clear_error();
    gt_snapshot s;
    struct row_source rows;
    gt_resource_usage *live;
    gt_status st = snapshot_meta(t, command, exit_status, &s, &rows, &live);
    if (st == GT_OK)
        st = report_write_rows(&s, &rows, server_json, extras, path);
    snapshot_meta_release(&s, live);
    return st;
}

int gt_tracker_csv_failed(gt_tracker *t, gt_series_kind kind)
{
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM)
        return 0;
    return t->sinks.csv.failed[kind];
}

gt_status gt_tracker_write_series_csv(gt_tracker *t, gt_series_kind kind, int fd)
{
    gt_clear_error();
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown series kind %d; valid: process, system",
                       (int)kind);
    if (!gt_tracker_usage(t))
        return GT_ERR_STATE;
    struct row_source rows;
    row_store_source(&t->store, &rows);
    return write_csv_rows(&rows, kind, fd);
}



static void gpu_idle_now(gt_tracker *t, gt_gpu_idle *out);

char *gt_tracker_to_text(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    char *text = u ? gt_usage_to_text(u) : NULL;
    if (!text)
        return text;
    /* gpu_tracker's text, then the limits the run had and the GPUs it held
     * idle: sections of our own, each only when there is something to say
     * (gpu_tracker's text stays as it is otherwise). */
    gt_limits l;
    gt_gpu_idle *idle = calloc(1, sizeof *idle);
    pthread_mutex_lock(&t->lock);
    tracker_limits_now(t, &l);
    if (idle) {
        idle->struct_size = sizeof *idle;
        gpu_idle_now(t, idle);
    }
    pthread_mutex_unlock(&t->lock);
    struct buf extra;
    buf_init(&extra, 512);
    limits_text(&l, &extra);
    gpu_idle_text(idle, &extra);
    free(idle);
    if (!extra.failed && extra.len == 0) {
        buf_free(&extra);
        return text;
    }
    struct buf b;
    buf_init(&b, strlen(text) + extra.len + 2);
    buf_puts(&b, text);
    buf_puts(&b, "\n");
    if (extra.data)
        buf_add(&b, extra.data, extra.len);
    if (extra.failed)
        b.failed = extra.failed;
    buf_free(&extra);
    free(text);
    if (b.failed) {
        buf_free(&b);
        return NULL;
    }
    if (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = '\0'; /* ends as gt_usage_to_text's does */
    return buf_take(&b);
}

/* What gt_tracker_cpu_energy() and gt_tracker_gpu_run() share: the checks
 * of the caller's struct and the tracker's state, then fill(t, u, out)
 * under the lock, u the usage of the moment. what names the figures in the
 * state error. */
static gt_status fill_with_usage(gt_tracker *t, const char *fn, const char *type, void *out,
                                 size_t given, size_t expected, const char *what,
                                 void (*fill)(gt_tracker *, const gt_resource_usage *, void *))
{
    gt_clear_error();
    gt_status st = gt_check_out_struct(fn, t, out, type, given, expected);
    if (st != GT_OK)
        return st;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "no %s figures: the tracker has not been started", what);
    gt_resource_usage *u = calloc(1, sizeof *u); /* filled in place: zeroed first */
    if (!u)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, t->state == STATE_STOPPED ? t->stop_time : monotonic_now(),
                  t->state == STATE_STOPPED, u);
    fill(t, u, out);
    pthread_mutex_unlock(&t->lock);
    free(u);
    return GT_OK;
}

static void fill_energy(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    results_energy(&t->res, &t->pipe, u, out);
}

gt_status gt_tracker_cpu_energy(gt_tracker *t, gt_cpu_energy *out)
{
    return fill_with_usage(t, "gt_tracker_cpu_energy", "gt_cpu_energy", out,
                           out ? out->struct_size : 0, sizeof(gt_cpu_energy), "energy",
                           fill_energy);
}

static void fill_gpu_run(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    /* The caller's per-GPU figures: the tracker's table, until the next call. */
    results_gpu_run(&t->res, &t->pipe, u, out, t->res.throttle_list);
}

gt_status gt_tracker_gpu_run(gt_tracker *t, gt_gpu_run *out)
{
    return fill_with_usage(t, "gt_tracker_gpu_run", "gt_gpu_run", out,
                           out ? out->struct_size : 0, sizeof(gt_gpu_run), "GPU", fill_gpu_run);
}

gt_status gt_tracker_cgroup(gt_tracker *t, gt_cgroup_usage *out)
{
    gt_clear_error();
    /* A caller built before 0.4 has no room for incomplete*: it is given
     * the fields it knows. */
    gt_status st = gt_check_out_struct("gt_tracker_cgroup", t, out, "gt_cgroup_usage",
                                       out ? out->struct_size : 0,
                                       offsetof(gt_cgroup_usage, incomplete));
    if (st != GT_OK)
        return st;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "no cgroup figures: the tracker has not been started");
    gt_cgroup_usage all = {.struct_size = sizeof all};
    pthread_mutex_lock(&t->lock);
    results_cgroup(&t->res, &t->pipe, &all);
    pthread_mutex_unlock(&t->lock);
    size_t size = out->struct_size < sizeof all ? out->struct_size : sizeof all;
    memcpy(out, &all, size);
    out->struct_size = size;
    return GT_OK;
}

/* The limits under the lock, checked once more against the figures of now
 * (a peak the stop's reaped processes added counts; at = the stop). */
void tracker_limits_now(gt_tracker *t, gt_limits *out)
{
    struct limit_state s = t->limits;
    struct limit_figures f;
    tracker_limit_figures(t, t->state == STATE_STOPPED ? t->stop_time : monotonic_now(), &f);
    limits_observe(&s, &f, f.value[GT_LIMIT_TIME]);
    limits_report(&s, out);
}

/* What every gt_tracker_X(t, out) of the run's figures checks before it
 * fills *out: the caller's struct (given bytes, need), that t is this
 * process's, and that it has started (what names the figures). */
static gt_status figures_call_check(gt_tracker *t, const char *fn, const char *type,
                                    const void *out, size_t given, size_t need,
                                    const char *what)
{
    gt_clear_error();
    gt_status st = gt_check_out_struct(fn, t, out, type, given, need);
    if (st != GT_OK)
        return st;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "no %s: the tracker has not been started", what);
    return GT_OK;
}

gt_status gt_tracker_energy(gt_tracker *t, gt_job_energy *out)
{
    gt_status st = figures_call_check(t, "gt_tracker_energy", "gt_job_energy", out,
                                      out ? out->struct_size : 0, sizeof(gt_job_energy),
                                      "energy figures");
    if (st != GT_OK)
        return st;
    gt_resource_usage *u = calloc(1, sizeof *u);
    if (!u)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    gt_cpu_energy e = {.struct_size = sizeof e};
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, t->state == STATE_STOPPED ? t->stop_time : monotonic_now(),
                  t->state == STATE_STOPPED, u);
    results_energy(&t->res, &t->pipe, u, &e);
    energy_job(u, &e, t->cfg.o.carbon_intensity, t->cfg.o.pue, out);
    pthread_mutex_unlock(&t->lock);
    free(u);
    return GT_OK;
}

/* GPUs held but idle, under the lock. */
static void gpu_idle_now(gt_tracker *t, gt_gpu_idle *out)
{
    const char *uuids[GPU_MAX_DEVICES];
    int n = t->reader.gpu.ndevices < GPU_MAX_DEVICES ? t->reader.gpu.ndevices : GPU_MAX_DEVICES;
    for (int d = 0; d < GPU_MAX_DEVICES; d++)
        uuids[d] = d < n ? t->reader.gpu.devices[d].uuid : NULL; /* set once, at the open */
    gpu_idle_report(&t->pipe.gpu_idle, uuids, out);
    out->requested = t->job.gpus_requested;
    snprintf(out->requested_by, sizeof out->requested_by, "%s", t->job.gpus_requested_by);
    /* Unused only where the GPUs could be read: no GPU library is no verdict. */
    out->request_unused = out->requested > 0 && t->reader.gpu.nvendors > 0 &&
                          t->pipe.acc.gpu_comb_max == 0 && out->ndevices == 0;
}

gt_status gt_tracker_gpu_idle(gt_tracker *t, gt_gpu_idle *out)
{
    gt_status st = figures_call_check(t, "gt_tracker_gpu_idle", "gt_gpu_idle", out,
                                      out ? out->struct_size : 0, sizeof(gt_gpu_idle),
                                      "GPU figures");
    if (st != GT_OK)
        return st;
    pthread_mutex_lock(&t->lock);
    gpu_idle_now(t, out);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

gt_status gt_tracker_at_peak(gt_tracker *t, int kind, gt_peak_breakdown *out)
{
    gt_status st = figures_call_check(t, "gt_tracker_at_peak", "gt_peak_breakdown", out,
                                      out ? out->struct_size : 0, sizeof(gt_peak_breakdown),
                                      "peak yet");
    if (st != GT_OK)
        return st;
    if (kind != GT_PEAK_MEMORY && kind != GT_PEAK_GPU_MEMORY)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown peak kind %d; valid: GT_PEAK_MEMORY (0), "
                       "GT_PEAK_GPU_MEMORY (1)", kind);
    pthread_mutex_lock(&t->lock);
    *out = t->at_peak[kind];
    pthread_mutex_unlock(&t->lock);
    out->struct_size = sizeof *out;
    return GT_OK;
}

/* The processes by command (census.c), and the run's CPU time no sample
 * saw; the census takes its own lock, the totals t's. */
static void processes_now(gt_tracker *t, gt_command_groups *out)
{
    struct tree *tree = &t->reader.tree;
    census_groups(&tree->census, 1e9 / (double)(tree->tick_ns ? tree->tick_ns : 10000000),
                  out);
    gt_totals totals;
    memset(&totals, 0, sizeof totals);
    pthread_mutex_lock(&t->lock);
    usage_totals(&t->pipe.acc, &totals);
    pthread_mutex_unlock(&t->lock);
    double run = totals.cpu_main_seconds + totals.cpu_descendants_seconds;
    out->unseen_cpu_seconds = run > out->cpu_seconds ? run - out->cpu_seconds : 0;
}

/* Who held it, into a snapshot of t: the peaks, the idle GPUs, the
 * processes by command, and the top process's timeline (which the
 * snapshot owns; left out when out of memory). */
static void snapshot_who(gt_tracker *t, gt_snapshot *s)
{
    s->processes.struct_size = sizeof s->processes;
    processes_now(t, &s->processes);
    s->gpu_idle.struct_size = sizeof s->gpu_idle;
    pthread_mutex_lock(&t->lock);
    memcpy(s->at_peak, t->at_peak, sizeof s->at_peak);
    gpu_idle_now(t, &s->gpu_idle);
    double start = t->res.start_time;
    pthread_mutex_unlock(&t->lock);
    s->top_processes = census_top_changes(&t->reader.tree.census, start, &s->ntop_processes);
}

gt_status gt_tracker_processes(gt_tracker *t, gt_command_groups *out)
{
    gt_status st = figures_call_check(t, "gt_tracker_processes", "gt_command_groups", out,
                                      out ? out->struct_size : 0, sizeof(gt_command_groups),
                                      "processes yet");
    if (st != GT_OK)
        return st;
    processes_now(t, out);
    return GT_OK;
}

gt_status gt_tracker_limits(gt_tracker *t, gt_limits *out)
{
    gt_status st = figures_call_check(t, "gt_tracker_limits", "gt_limits", out,
                                      out ? out->struct_size : 0, sizeof(gt_limits),
                                      "limits to report");
    if (st != GT_OK)
        return st;
    pthread_mutex_lock(&t->lock);
    tracker_limits_now(t, out);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

char *gt_tracker_to_json(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    if (!u)
        return NULL;
    gt_cgroup_usage c = {.struct_size = sizeof c};
    gt_cpu_energy e = {.struct_size = sizeof e};
    gt_gpu_run *g = calloc(1, sizeof *g);
    gt_gpu_throttle_device *table = calloc((size_t)t->res.ngpu_list + 1, sizeof *table);
    if (g && !table) {
        free(g);
        g = NULL; /* its part is left out, as when out of memory for it */
    }
    gt_limits l;
    gt_job_energy *energy = calloc(1, sizeof *energy);
    if (energy)
        energy->struct_size = sizeof *energy;
    gt_peak_breakdown *peaks = malloc(2 * sizeof *peaks);
    gt_gpu_idle *idle = calloc(1, sizeof *idle);
    if (idle)
        idle->struct_size = sizeof *idle;
    gt_command_groups *procs = calloc(1, sizeof *procs);
    if (procs) {
        procs->struct_size = sizeof *procs;
        processes_now(t, procs); /* takes the locks it needs */
    }
    pthread_mutex_lock(&t->lock);
    tracker_limits_now(t, &l);
    if (idle)
        gpu_idle_now(t, idle);
    if (peaks)
        memcpy(peaks, t->at_peak, 2 * sizeof *peaks);
    results_cgroup(&t->res, &t->pipe, &c);
    results_energy(&t->res, &t->pipe, u, &e);
    if (energy)
        energy_job(u, &e, t->cfg.o.carbon_intensity, t->cfg.o.pue, energy);
    if (g) {
        g->struct_size = sizeof *g;
        results_gpu_run(&t->res, &t->pipe, u, g, table);
    }
    pthread_mutex_unlock(&t->lock);
    char *text = results_document(u, &c, &e, g, &l, peaks, idle, energy, procs);
    free(procs);
    free(peaks);
    free(idle);
    free(energy);
    free(g);
    free(table);
    return text;
}

/* The command's way to the analysis wing's judgement of CPU contention
 * (gpu_tracker_internal.h). */
int gt_cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg, double wall_seconds,
                      char *why, size_t cap)
{
    return cpu_contention(u, cg, wall_seconds, why, cap);
}

/* ... and of the GPUs to ask for. */
int gt_gpu_advice(const gt_gpu_idle *g, char *out, size_t cap)
{
    return gpu_advice(g, out, cap);
}

void gt_limits_describe(const gt_limits *l, int i, char *out, size_t cap)
{
    struct limit_state s;
    memset(&s, 0, sizeof s);
    if (i < 0 || i >= GT_LIMIT_COUNT) {
        snprintf(out, cap, "%s", "");
        return;
    }
    s.limit[i] = l->figure[i].limit;
    s.peak[i] = l->figure[i].peak;
    s.at[i] = l->figure[i].at;
    limits_describe(&s, i, out, cap);
}
