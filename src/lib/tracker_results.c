/* tracker_results.c - what a stopped tracker gives: its summary (also the
 * backup's, while tracking), its series, a snapshot or report of the run,
 * a series as CSV. The rows are read from the row store; nothing here
 * samples. */
#define _GNU_SOURCE
#include "tracker_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/background.h"
#include "output/output.h"
#include "pipeline/pipeline.h"
#include "util/json_write.h"
#include "util/hot_path.h"
#include "analysis/analysis.h"

/* At most this long for the cloud discovery to end: its requests time out
 * after 1 s each, and AWS asks up to four. */
#define CLOUD_WAIT_SECONDS 8.0

/* The driver's per-process high-water marks, where it keeps them, are
 * lower bounds as VmHWM is for RAM: no GPU peak is reported below them. */
static void raise_to_accounting_locked(gt_tracker *t, gt_resource_usage *out)
{
    if (t->gpu_accounting_reason[0] || t->cfg.sampled_only)
        return;
    unsigned long long main_peak, descendants_peak;
    gpu_run_acc_peaks(&t->pipe.gpu_run, &main_peak, &descendants_peak);
    gt_max_gpu_ram *g = &out->max_gpu_ram;
    double main_units = (double)main_peak / t->units.gpu_ram_divisor;
    double desc_units = (double)descendants_peak / t->units.gpu_ram_divisor;
    if (main_units > g->main)
        g->main = main_units;
    if (desc_units > g->descendants)
        g->descendants = desc_units;
    if (g->main > g->combined)
        g->combined = g->main;
    if (g->descendants > g->combined)
        g->combined = g->descendants;
}

int tracker_list_gpus(gt_tracker *t)
{
    const struct gpu *g = &t->reader.gpu;
    int n = g->ndevices < GT_MAX_GPUS ? g->ndevices : GT_MAX_GPUS;
    if (n > 0 && (!(t->gpu_list = calloc((size_t)n, sizeof *t->gpu_list)) ||
                  !(t->throttle_list = calloc((size_t)n, sizeof *t->throttle_list))))
        return -1;
    for (int i = 0; i < n; i++) {
        gt_gpu_device *d = &t->gpu_list[i];
        text_copy(d->uuid, sizeof d->uuid, g->devices[i].uuid);
        text_copy(d->name, sizeof d->name, g->devices[i].name);
        d->memory_total = (double)g->devices[i].memory_total / t->units.gpu_ram_divisor;
        d->selected = g->devices[i].selected;
    }
    t->ngpu_list = n;
    return 0;
}

GT_HOT void tracker_fill_usage_locked(gt_tracker *t, double end_time, int complete,
                                      gt_resource_usage *out)
{
    usage_result(&t->pipe.acc, &t->units, end_time - t->start_time, out);
    out->measurement.complete = complete;
    out->measurement.lateness_mean_ms =
        t->lateness_n ? t->lateness_sum / (double)t->lateness_n * 1e3 : 0;
    out->measurement.lateness_max_ms = t->lateness_max * 1e3;
    out->measurement.skipped = t->skipped;
    out->measurement.sampled_only = t->cfg.sampled_only != 0;
    out->measurement.gpu_available = t->gpu_reason[0] == '\0';
    gt_gpu_details *d = &out->gpu_details;
    d->ndevices = t->ngpu_list;
    d->devices = t->gpu_list;
    text_copy(d->process_memory_reason, GT_REASON_LEN, t->gpu_proc_memory_reason);
    text_copy(d->process_utilization_reason, GT_REASON_LEN, t->gpu_proc_util_reason);
    text_copy(d->energy_reason, GT_REASON_LEN, t->gpu_energy_reason);
    d->process_memory_available = !d->process_memory_reason[0];
    d->process_utilization_available = !d->process_utilization_reason[0];
    d->energy_available = !d->energy_reason[0];
    text_copy(out->measurement.gpu_reason, sizeof out->measurement.gpu_reason, t->gpu_reason);
    raise_to_accounting_locked(t, out);
}

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
    tracker_fill_usage_locked(t, t->stop_time, 1, &t->usage);
    pthread_mutex_unlock(&t->lock);
    return &t->usage;
}

/* Every row of both series of rows, copied into new arrays (*process and
 * *system; each at least one row long, so never NULL on success).
 * GT_ERR_NO_MEMORY or GT_ERR_IO (the row file cannot be read back), with
 * nothing allocated left behind. */
static gt_status read_all_rows(const struct row_source *rows, gt_process_row **process,
                               gt_system_row **system)
{
    size_t np = rows->count[GT_SERIES_KIND_PROCESS], ns = rows->count[GT_SERIES_KIND_SYSTEM];
    *process = malloc((np ? np : 1) * sizeof **process);
    *system = malloc((ns ? ns : 1) * sizeof **system);
    gt_status st = GT_OK;
    if (!*process || !*system)
        st = gt_fail(GT_ERR_NO_MEMORY, "out of memory for %zu rows", np + ns);
    else if (rows->read(rows, GT_SERIES_KIND_PROCESS, 0, np, *process) < 0 ||
             rows->read(rows, GT_SERIES_KIND_SYSTEM, 0, ns, *system) < 0)
        st = gt_fail(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
    if (st != GT_OK) {
        free(*process);
        free(*system);
        *process = NULL;
        *system = NULL;
    }
    return st;
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
    out->process_csv_failed = t->csv.failed[GT_SERIES_KIND_PROCESS];
    out->system_csv_failed = t->csv.failed[GT_SERIES_KIND_SYSTEM];
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
    return t ? t->backup.path : NULL;
}

const char *gt_tracker_metrics_address(gt_tracker *t)
{
    return t && t->metrics_on && t->metrics.daemon ? t->metrics.address : NULL;
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
    const struct usage_acc *a = &t->pipe.acc;
    r.wall_seconds = t->stop_time - t->start_time;
    usage_cpu_seconds(a, &r.cpu_main_seconds, &r.cpu_descendants_seconds);
    r.io_available = a->main_reaped;
    if (r.io_available) {
        r.read_bytes = (double)a->reaped_in_blocks * 512.0;
        r.write_bytes = (double)a->reaped_out_blocks * 512.0;
    }
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
    const struct usage_acc *a = &t->pipe.acc;
    if (t->baseline_taken)
        p.elapsed = (t->state == STATE_STOPPED ? t->stop_time : monotonic_now()) - t->start_time;
    p.samples = a->samples;
    p.have_cpu = a->latest.have_cores;
    p.cpu_cores = a->latest.cores;
    p.rss_mib = (double)a->latest.rss_kb / 1024.0;
    p.rss_peak_mib = (double)usage_combined_peak_kb(a) / 1024.0;
    p.have_gpu = a->latest.have_gpu && a->gpu_count > 0;
    p.gpu_memory_mib = (double)a->latest.gpu_bytes / (1024.0 * 1024.0);
    p.gpu_util_percent = a->latest.gpu_util_percent;
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
    pthread_mutex_lock(&t->lock);
    const struct row_series *r = &t->store.series[kind];
    size_t count = r->on_disk + r->ntail, on_disk = r->on_disk;
    int fd = r->fd;
    size_t end = first < count ? (count - first < max ? count : first + max) : first;
    size_t from_tail = end > on_disk ? end - (first > on_disk ? first : on_disk) : 0;
    if (from_tail)
        memcpy((char *)out + (end - from_tail - first) * r->row_size,
               r->tail + (end - from_tail - on_disk) * r->row_size, from_tail * r->row_size);
    size_t row_size = r->row_size;
    pthread_mutex_unlock(&t->lock);
    size_t from_disk = end - first - from_tail;
    if (from_disk && row_store_read_file(fd, row_size, first, from_disk, out) < 0)
        return gt_fail(GT_ERR_IO, "cannot read the rows back: %s", strerror(errno));
    *copied = end - first;
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
    *out = t->run.server; /* set at start, before the thread: read-only since */
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
    struct run_record run = t->run;
    const gt_resource_usage *u;
    if (t->state == STATE_STARTED) {
        u = *live = calloc(1, sizeof **live);
        if (!*live)
            return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
        pthread_mutex_lock(&t->lock);
        int begun = t->baseline_taken;
        if (begun)
            tracker_fill_usage_locked(t, monotonic_now(), 0, *live);
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
        t->ngpu_list > 0 ? calloc((size_t)t->ngpu_list, sizeof *table) : NULL;
    if (st == GT_OK && t->ngpu_list > 0 && !table)
        st = gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&t->lock);
    tracker_fill_cgroup_locked(t, &s->cgroup);
    tracker_fill_energy_locked(t, u, &s->cpu_energy);
    tracker_fill_gpu_run_locked(t, u, &s->gpu_run, table);
    pthread_mutex_unlock(&t->lock);
    if (s->gpu_run.devices != table)
        free(table);
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
    return t->csv.failed[kind];
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

char *gt_tracker_to_text(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    return u ? gt_usage_to_text(u) : NULL;
}

void tracker_fill_cgroup_locked(gt_tracker *t, gt_cgroup_usage *out)
{
    const struct cgroup_reader *r = &t->reader.cg;
    int asked = t->cfg.o.own_cgroup;
    struct cgroup_reasons why = {
        .group = r->reason, .memory = r->memory_reason, .cpu = r->cpu_reason,
        .pressure = r->pressure_reason, .created = t->own_cg.made,
        .created_reason = asked && !t->own_cg.made ? t->own_cg.reason : NULL,
    };
    /* a group made without its memory controller says why */
    if (t->own_cg.made && t->own_cg.memory_reason[0])
        why.memory = t->own_cg.memory_reason;
    cgroup_acc_fill(&t->pipe.cg, &why, out);
}

void tracker_fill_energy_locked(gt_tracker *t, const gt_resource_usage *u, gt_cpu_energy *out)
{
    /* The job's share of the machine's CPU time: its cores over all cores
     * busy, both as means over the run. */
    double sys = u->cpu_utilization.system.mean_sum_percent;
    double job = u->cpu_utilization.combined.mean_sum_percent;
    energy_acc_fill(&t->pipe.energy, t->reader.rapl.reason, t->reader.rapl.npackages,
                    sys > 0 ? job / sys : 0, out);
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
    tracker_fill_usage_locked(t, t->state == STATE_STOPPED ? t->stop_time : monotonic_now(),
                              t->state == STATE_STOPPED, u);
    fill(t, u, out);
    pthread_mutex_unlock(&t->lock);
    free(u);
    return GT_OK;
}

static void fill_energy(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    tracker_fill_energy_locked(t, u, out);
}

gt_status gt_tracker_cpu_energy(gt_tracker *t, gt_cpu_energy *out)
{
    return fill_with_usage(t, "gt_tracker_cpu_energy", "gt_cpu_energy", out,
                           out ? out->struct_size : 0, sizeof(gt_cpu_energy), "energy",
                           fill_energy);
}

void tracker_fill_gpu_run_locked(gt_tracker *t, const gt_resource_usage *u, gt_gpu_run *out,
                                 gt_gpu_throttle_device *table)
{
    struct gpu_run_reasons why = {
        .gpu = t->gpu_reason, .accounting = t->gpu_accounting_reason,
        .throttle = t->gpu_throttle_reason, .ecc = t->gpu_ecc_reason, .xid = t->gpu_xid_reason,
        .energy = t->gpu_energy_reason, .proc_util = t->gpu_proc_util_reason,
        .pids = t->reader.in_pid_namespace && !t->reader.pid_translation && !t->gpu_reason[0]
                    ? PID_NAMESPACE_REASON " and the GPUs' device files are not known to match "
                      "them by"
                    : NULL,
    };
    if (t->cfg.sampled_only)
        why.accounting = "not read (a plain sampler's comparison run)";
    else if (t->pipe.gpu_run_lost)
        why.accounting = "out of memory for the accounting records";
    gpu_run_acc_fill(&t->pipe.gpu_run, &why, t->ngpu_list, u->gpu_details.energy_joules, table,
                     out);
    for (int d = 0; d < t->reader.gpu.ndevices; d++)
        out->mig_instances += t->reader.gpu.devices[d].mig;
    out->mig_utilization_available = out->mig_instances > 0 && !t->gpu_mig_reason[0];
    text_copy(out->mig_utilization_reason, GT_REASON_LEN, out->mig_instances ? t->gpu_mig_reason : "");
}

static void fill_gpu_run(gt_tracker *t, const gt_resource_usage *u, void *out)
{
    /* The caller's per-GPU figures: the tracker's table, until the next call. */
    tracker_fill_gpu_run_locked(t, u, out, t->throttle_list);
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
    tracker_fill_cgroup_locked(t, &all);
    pthread_mutex_unlock(&t->lock);
    size_t size = out->struct_size < sizeof all ? out->struct_size : sizeof all;
    memcpy(out, &all, size);
    out->struct_size = size;
    return GT_OK;
}

char *gt_tracker_to_json(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    if (!u)
        return NULL;
    json_object *root = usage_json_object(u);
    gt_cgroup_usage c = {.struct_size = sizeof c};
    pthread_mutex_lock(&t->lock);
    tracker_fill_cgroup_locked(t, &c);
    pthread_mutex_unlock(&t->lock);
    json_object_object_add(root, "cgroup", cgroup_json_object(&c));
    gt_cpu_energy e = {.struct_size = sizeof e};
    pthread_mutex_lock(&t->lock);
    tracker_fill_energy_locked(t, u, &e);
    pthread_mutex_unlock(&t->lock);
    json_object_object_add(root, "cpu_energy", cpu_energy_json_object(&e));
    gt_gpu_run *gr = calloc(1, sizeof *gr);
    gt_gpu_throttle_device *table = calloc((size_t)t->ngpu_list + 1, sizeof *table);
    if (gr && table) {
        gr->struct_size = sizeof *gr;
        pthread_mutex_lock(&t->lock);
        tracker_fill_gpu_run_locked(t, u, gr, table);
        pthread_mutex_unlock(&t->lock);
        json_object_object_add(root, "gpu_run", gpu_run_json_object(gr));
    }
    free(table);
    /* Where the figures beyond gpu_tracker's come from, as "measurement"
     * says for the rest. */
    json_object *m = NULL;
    if (json_object_object_get_ex(root, "measurement", &m) && m) {
        json_object *src = json_object_new_object();
        if (c.memory_available)
            json_object_object_add(src, "cgroup.memory.peak",
                                   json_new_text(c.memory_peak_kernel
                                                     ? "kernel group high-water mark"
                                                     : "sampled"));
        if (c.available) {
            json_object_object_add(src, "cgroup.memory.at_peak_sample", json_new_text("sampled"));
            json_object_object_add(src, "cgroup.memory.oom_kills",
                                   json_new_text("exact (kernel counter)"));
            json_object_object_add(src, "cgroup.cpu", json_new_text("exact (kernel counters)"));
            json_object_object_add(src, "cgroup.pressure",
                                   json_new_text("exact (kernel counters)"));
        }
        if (gr && u->measurement.gpu_available)
            json_object_object_add(
                src, "max_gpu_ram",
                json_new_text(gr->accounting_available
                                  ? "sampled, and never below the driver's per-process "
                                    "high-water marks (NVML accounting): exact lower bounds"
                                  : "sampled: a GPU process that lives between two samples "
                                    "is missed (see gpu_run.accounting)"));
        if (e.available)
            json_object_object_add(src, "cpu_energy",
                                   json_new_text("the whole machine's (RAPL, per socket); "
                                                 "job_share an estimate"));
        json_object_object_add(m, "sources", src);
    }
    free(gr);
    return json_pretty_text(root);
}
