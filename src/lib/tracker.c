/* tracker.c - the tracker: its options, state machine, sampling thread and
 * schedule. Everything else is a stage of the pipeline (sample.h):
 * sample_reader does a sample's I/O, pipeline turns it into aggregates and
 * rows, the row store and the sinks (csv_sink, backup_sink) keep and write
 * them, run_record assembles snapshots.
 *
 * The schedule is absolute (start + k * sleep_time), so a slow sample never
 * shifts the later ones.
 *
 * Threads and ownership. The reader belongs to whoever samples: the
 * sampling thread while it runs, the caller of stop() once the thread has
 * finished; so do the sinks. The lock guards only what both sides touch
 * (the pipeline's aggregates, the row store, the flags) and is never held
 * during I/O, so a read that hangs in the kernel cannot block stop() beyond
 * its timeout. A thread that is still stuck when the tracker is freed frees
 * the tracker itself when it comes back. */
#define _GNU_SOURCE
#include "tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"
#include "util/background.h"
#include "read/read.h"
#include "util/hot_path.h"
#include "options.h"
#include "pipeline/pipeline.h"
#include "util/units.h"
#include "util/warn.h"

/* The memory that the process that made t and a child made by fork() both
 * release (the reader is released by each in its own way; the locks only by
 * the owner: in a child another thread may have held them at the fork). */
static void release_memory(gt_tracker *t)
{
    pipeline_free(&t->pipe);
    row_store_free(&t->store);
    free(t->all_process);
    free(t->all_system);
    free(t->gpu_list);
    free(t->throttle_list);
    backup_sink_forget(&t->backup);
    metrics_sink_forget(&t->metrics);
    run_record_free(&t->run);
    options_copy_free(&t->cfg);
    free(t);
}

static void destroy(gt_tracker *t)
{
    if (t->cloud) {
        gt_cloud_info ignored;
        cloud_discovery_finish(t->cloud, 0, &ignored); /* it frees itself when it ends */
    }
    sample_reader_close(&t->reader);
    /* After the reader: the job's group is removed once nothing reads it. */
    char why[256];
    if (cgroup_own_remove(&t->own_cg, why, sizeof why) < 0)
        warn_always(&t->warner, "%s (left in place)", why);
    /* Only the owner closes it: a SQLite connection must not be used in a
     * child made by fork() (release_memory leaves it there). */
    tracking_file_close(&t->tracking);
    backup_sink_destroy_lock(&t->backup);
    if (t->metrics_on)
        metrics_sink_destroy(&t->metrics);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->lock);
    release_memory(t);
}

/* The reasons for missing GPU figures, for readers of the results. Caller
 * holds the lock (and owns the reader). */
GT_HOT static void copy_gpu_reasons_locked(gt_tracker *t)
{
    const struct sample_reader *r = &t->reader;
    text_copy(t->gpu_reason, sizeof t->gpu_reason, r->gpu_reason);
    const char *none = r->gpu_reason[0] ? r->gpu_reason : NULL;
    /* in a namespace, PIDs are translated where the GPUs' device files are
     * known; otherwise nothing of the driver's can be matched */
    const char *ns = r->in_pid_namespace && !r->pid_translation ? PID_NAMESPACE_REASON : NULL;
    text_copy(t->gpu_proc_memory_reason, GT_REASON_LEN,
              none ? none : ns ? ns : r->gpu.proc_memory_reason);
    text_copy(t->gpu_proc_util_reason, GT_REASON_LEN,
              none ? none : ns ? ns : r->gpu.proc_util_reason);
    text_copy(t->gpu_energy_reason, GT_REASON_LEN, none ? none : r->gpu.energy_reason);
    text_copy(t->gpu_accounting_reason, GT_REASON_LEN,
              none ? none : ns ? ns : r->gpu.accounting_reason);
    text_copy(t->gpu_throttle_reason, GT_REASON_LEN, none ? none : r->gpu.throttle_reason);
    text_copy(t->gpu_ecc_reason, GT_REASON_LEN, none ? none : r->gpu.ecc_reason);
    text_copy(t->gpu_xid_reason, GT_REASON_LEN, none ? none : r->gpu.xid_reason);
    text_copy(t->gpu_mig_reason, GT_REASON_LEN, none ? none : r->gpu.mig_util_reason);
}

/* The exporter of options.metrics_listen / metrics_textfile_dir, its labels
 * from the run: the host, the job, the command's short name (the tracked
 * process's own name when no command was said) and PID. */
static gt_status start_exporter(gt_tracker *t)
{
    const gt_options *opts = &t->cfg.o;
    struct metrics_static *ms = calloc(1, sizeof *ms);
    if (!ms)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    char host[256] = "", comm[64] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    const char *command = opts->command;
    if (!command || !*command) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%d/comm", t->cfg.proc_root, (int)t->pid);
        FILE *f = fopen(path, "re");
        if (f) {
            if (fgets(comm, sizeof comm, f))
                comm[strcspn(comm, "\n")] = '\0';
            fclose(f);
        }
        command = comm;
    }
    metrics_static_labels(ms, host, opts->job ? &t->job : NULL, command, (long)t->pid);
    const struct gpu *g = &t->reader.gpu;
    ms->ngpus = g->nvendors ? (g->ndevices < METRICS_MAX_GPUS ? g->ndevices : METRICS_MAX_GPUS) : 0;
    for (int i = 0; i < ms->ngpus; i++) {
        text_copy(ms->gpus[i].uuid, sizeof ms->gpus[i].uuid, g->devices[i].uuid);
        text_copy(ms->gpus[i].name, sizeof ms->gpus[i].name, g->devices[i].name);
        ms->gpus[i].total = g->devices[i].memory_total;
    }
    gt_status st = metrics_sink_init(&t->metrics, opts->metrics_listen,
                                     opts->metrics_textfile_dir, t->pid, ms, &t->warner);
    free(ms);
    t->metrics_on = st == GT_OK;
    return st;
}

/* gt_tracker_new() with the testing hooks (NULL: none). */
static gt_status tracker_new(const gt_options *user, const gt_testing_hooks *hooks,
                             gt_tracker **out)
{
    gt_clear_error();
    *out = NULL;
    gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    gt_status st = options_copy_make(&t->cfg, user, hooks);
    if (st != GT_OK) {
        free(t);
        return st;
    }
    const gt_options *opts = &t->cfg.o;
    row_store_init(&t->store); /* before anything can fail: destroy() frees it */
    t->reader.tree.root_fd = -1; /* closing is safe before the reader opens */
    t->reader.sys.stat_fd = t->reader.sys.meminfo_fd = -1;
    cgroup_reader_init(&t->reader.cg);
    rapl_init(&t->reader.rapl);
    t->backup.target.dirfd = -1;
    t->tracking.file.fd = -1;
    warner_init(&t->warner, opts->on_warning, opts->warning_data, opts->disable_logs);
    pthread_mutex_init(&t->lock, NULL);
    cond_init_monotonic(&t->done);
    const char *backup_path = *opts->resource_usage_file ? opts->resource_usage_file : NULL;
    if (backup_sink_init(&t->backup, backup_path, opts->sleep_time, opts->stop_timeout,
                         &t->warner) != GT_OK) {
        destroy(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    t->cfg.o.resource_usage_file = t->backup.path;
    t->owner = getpid();
    t->pid = opts->process_id ? opts->process_id : t->owner;
    if (t->backup.path && backup_sink_set_identity(&t->backup, t->pid, opts->command) != GT_OK) {
        destroy(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }

    long tck = sysconf(_SC_CLK_TCK);
    if (opts->own_cgroup) {
        if (!opts->process_id || opts->process_id == t->owner) {
            destroy(t);
            return gt_fail(GT_ERR_INVALID_ARGUMENT,
                           "own_cgroup needs process_id, a process the caller started and "
                           "holds: memory already used stays charged to the group it was used "
                           "in");
        }
        /* Before the reader opens: it reads the group pid is in. */
        if (cgroup_own_make(&t->own_cg, t->cfg.proc_root, t->cfg.sys_root, t->pid) < 0)
            warn_always(&t->warner, "no cgroup of the job's own: %s; tracking goes on without "
                        "one", t->own_cg.reason);
        else if (t->own_cg.memory_reason[0])
            warn_always(&t->warner, "the job's cgroup has no memory figures: %s",
                        t->own_cg.memory_reason);
    }
    struct sample_reader_config cfg = {
        .proc_root = t->cfg.proc_root,
        .sys_root = t->cfg.sys_root,
        .pid = t->pid,
        .reaper_pid = opts->main_only ? 0 : opts->reaper_pid, /* a reaper adopts descendants */
        .max_kept_files = opts->max_kept_files,
        .self = t->pid == t->owner,
        .series = t->cfg.o.series,
        .sampled_only = t->cfg.sampled_only,
        .main_only = opts->main_only,
        .gpu_brand = opts->gpu_brand,
        .gpu_uuids = opts->gpu_uuids,
        .nvml_library = opts->nvml_library,
        .rsmi_library = opts->rsmi_library,
        .gpu_open_timeout = opts->stop_timeout,
        .cgroup = !t->cfg.sampled_only,
        .ticks_per_second = tck > 0 ? (double)tck : 100.0,
    };
    st = sample_reader_open(&t->reader, &cfg, &t->warner);
    if (st != GT_OK) {
        destroy(t);
        return st;
    }
    copy_gpu_reasons_locked(t); /* no thread yet */
    csv_sink_init(&t->csv, opts->process_csv_fd, opts->system_csv_fd, &t->warner);
    t->sinks[t->nsinks++] = &t->csv.base;
    t->sinks[t->nsinks++] = &t->backup.base;

    const struct gpu *g = &t->reader.gpu;
    t->units.ram_unit = opts->ram_unit;
    t->units.gpu_ram_unit = opts->gpu_ram_unit;
    t->units.time_unit = opts->time_unit;
    t->units.ram_divisor = units_ram_divisor(opts->ram_unit);
    t->units.gpu_ram_divisor = units_ram_divisor(opts->gpu_ram_unit);
    t->units.time_divisor = units_time_divisor(opts->time_unit);
    t->units.system_core_count = t->reader.ncpu;
    /* Not the node's count: the CPUs this job may use (its affinity and
     * cgroup quota, a fraction rounded up), as a scheduler gave them. */
    double usable = server_usable_cpus(t->cfg.proc_root, t->cfg.sys_root, t->pid, t->reader.ncpu);
    int usable_cores = usable >= 1 ? (int)ceil(usable - 1e-9) : 1;
    t->units.n_expected_cores = opts->n_expected_cores > 0 ? opts->n_expected_cores : usable_cores;
    pipeline_init(&t->pipe, opts->sleep_time, tck > 0 ? (double)tck : 100.0, t->cfg.o.series,
                  t->pid, t->cfg.sampled_only);
    unsigned long long gpu_capacity = 0;
    for (int i = 0; i < g->ndevices; i++)
        gpu_capacity += g->devices[i].memory_total;
    usage_set_gpus(&t->pipe.acc, gpu_capacity, g->ndevices, g->nselected);
    if (tracker_list_gpus(t) < 0) {
        destroy(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    if (opts->tracking_file) {
        /* As gpu_tracker, the file and its static data are made with the
         * tracker: a name that cannot be used fails here, not mid-run. */
        struct tracking_static ts = {
            .ram_unit = opts->ram_unit, .gpu_ram_unit = opts->gpu_ram_unit,
            .time_unit = opts->time_unit, .ram_divisor = t->units.ram_divisor,
            .gpu_ram_divisor = t->units.gpu_ram_divisor, .ram_total_kb = t->reader.mem_total_kb,
            .gpu_total_bytes = gpu_capacity, .system_core_count = t->units.system_core_count,
            .n_expected_cores = t->units.n_expected_cores, .system_gpu_count = g->ndevices,
            .n_expected_gpus = g->nselected,
        };
        st = tracking_file_open(&t->tracking, opts->tracking_file, opts->overwrite, &ts,
                                &t->warner);
        if (st != GT_OK) {
            destroy(t);
            return st;
        }
        t->sinks[t->nsinks++] = &t->tracking.base;
    }
    if (opts->job)
        t->job = *opts->job;
    if (opts->metrics_listen || opts->metrics_textfile_dir) {
        st = start_exporter(t);
        if (st != GT_OK) {
            destroy(t);
            return st;
        }
        t->sinks[t->nsinks++] = &t->metrics.base;
    }
    t->state = STATE_NEW;
    *out = t;
    return GT_OK;
}

gt_status gt_tracker_new(const gt_options *opts, gt_tracker **out)
{
    return tracker_new(opts, NULL, out);
}

gt_status gt_testing_tracker_new(const gt_options *opts, const gt_testing_hooks *hooks,
                                 gt_tracker **out)
{
    return tracker_new(opts, hooks, out);
}

/* Keeps the rows a sample made in the store (a full batch goes to the row
 * file, written without the lock: a disk that hangs must not keep stop()
 * waiting beyond its timeout). 0, or -1 when stop() has frozen the series
 * (the rows go nowhere). */
GT_HOT static int store_rows(gt_tracker *t, const struct pipeline_rows *rows)
{
    if (!rows->have_process && !rows->have_system)
        return 0; /* no series, or the baseline: no lock to take */
    pthread_mutex_lock(&t->lock);
    int frozen = t->series_frozen;
    int full[2] = {0, 0};
    if (!frozen && rows->have_process)
        full[GT_SERIES_KIND_PROCESS] =
            row_store_add(&t->store, GT_SERIES_KIND_PROCESS, &rows->process);
    if (!frozen && rows->have_system)
        full[GT_SERIES_KIND_SYSTEM] = row_store_add(&t->store, GT_SERIES_KIND_SYSTEM, &rows->system);
    if (t->row_waiters)
        pthread_cond_broadcast(&t->done);
    pthread_mutex_unlock(&t->lock);
    if (frozen)
        return -1;
    if (full[0] < 0 || full[1] < 0)
        warn_once(&t->warner, WARN_SERIES_MEMORY,
                  "out of memory: some rows of the series are only in the CSV output");
    for (int kind = 0; kind < 2; kind++) {
        if (full[kind] != 1)
            continue;
        int rc = row_store_flush(&t->store, (gt_series_kind)kind);
        pthread_mutex_lock(&t->lock);
        int first_failure =
            !t->series_frozen && row_store_commit(&t->store, (gt_series_kind)kind, rc);
        pthread_mutex_unlock(&t->lock);
        if (first_failure)
            warn_always(&t->warner, "%s; the rows are kept in memory instead",
                        t->store.spill_error);
    }
    return 0;
}

/* One sample read and through the pipeline (slot as in struct sample); its
 * rows in *rows. The caller owns the reader (see the file comment). Returns
 * the sample's monotonic time. */
static double take_sample(gt_tracker *t, long slot, struct pipeline_rows *rows)
{
    struct sample s;
    /* The exporter's I/O counters cost a file per process: read only when
     * someone will see them (metrics_sink.h). */
    int read_io = t->metrics_on && metrics_sink_wants_io(&t->metrics, monotonic_now());
    sample_read(&t->reader, slot, read_io, &s);
    pthread_mutex_lock(&t->lock);
    pipeline_step(&t->pipe, &s, rows);
    /* A shared group's figures are never used: stop paying for them (a
     * user's session group can hold thousands of processes). */
    t->reader.cgroup_off |= t->pipe.cg.shared;
    if (t->metrics_on) {
        int next = !t->mcur;
        pipeline_metrics(&t->pipe, &s, s.slot == 0 ? NULL : &t->mpoints[t->mcur],
                         &t->mpoints[next]);
        t->mcur = next;
        rows->metrics = &t->mpoints[next];
    }
    copy_gpu_reasons_locked(t);
    pthread_mutex_unlock(&t->lock);
    return s.now;
}

/* A sample's rows kept in the store and handed to the sinks, with the
 * summary as of now to those that want it. The caller owns the sinks. */
GT_HOT static void feed_sinks(gt_tracker *t, const struct pipeline_rows *rows, double now)
{
    if (store_rows(t, rows) < 0)
        return;
    int summary_filled = 0;
    for (int i = 0; i < t->nsinks; i++) {
        struct sink *k = t->sinks[i];
        if (k->ops->rows)
            k->ops->rows(k, rows);
        if (!k->ops->summary || (k->ops->wants_summary && !k->ops->wants_summary(k, now)))
            continue;
        if (!summary_filled) {
            pthread_mutex_lock(&t->lock);
            tracker_fill_usage_locked(t, now, 0, &t->sink_summary);
            pthread_mutex_unlock(&t->lock);
            summary_filled = 1;
        }
        k->ops->summary(k, &t->sink_summary, now);
    }
}

/* The baseline sample (slot 0): the start of the run. epoch, when > 0, is
 * the wall-clock time the schedule names it (options.start_at), which the
 * rows' timestamps count from. The caller owns the reader and the sinks. */
static void take_baseline(gt_tracker *t, double epoch)
{
    struct pipeline_rows rows;
    double start = take_sample(t, 0, &rows);
    pthread_mutex_lock(&t->lock);
    t->start_time = start;
    if (epoch > 0)
        t->pipe.epoch_start = epoch;
    t->run.epoch_start = t->pipe.epoch_start;
    t->baseline_taken = 1;
    pthread_mutex_unlock(&t->lock);
    if (t->metrics_on)
        metrics_sink_set_start(&t->metrics, t->run.epoch_start);
    /* Compute time runs from the baseline sample to the final one, the same
     * span the CPU means are measured over. The baseline writes the backup
     * file too. */
    feed_sinks(t, &rows, start);
}

GT_HOT static void *sampler_main(void *arg)
{
    gt_tracker *t = arg;
    double interval = t->cfg.o.sleep_time;
    /* With a duration, the last slot is the one at start + duration. */
    long last_slot = t->cfg.o.duration > 0 ? (long)floor(t->cfg.o.duration / interval + 1e-9) : -1;
    /* A start ahead: wait for it (a stop() meanwhile ends the run unsampled). */
    int stopped_early = t->delayed_start > 0 &&
        wake_word_sleep_until(&t->stop_word,
                              monotonic_now() + (t->delayed_start - epoch_now()));
    if (t->delayed_start > 0 && !stopped_early)
        take_baseline(t, t->delayed_start);
    pthread_mutex_lock(&t->lock);
    for (long k = 1; !stopped_early && !t->stop_requested;) {
        if (last_slot >= 0 && k > last_slot) {
            t->duration_done = 1;
            break;
        }
        /* Asleep without the lock: stop() sets the word, then the flag. */
        pthread_mutex_unlock(&t->lock);
        int stop = wake_word_sleep_until(&t->stop_word, t->start_time + (double)k * interval);
        pthread_mutex_lock(&t->lock);
        if (stop || t->stop_requested)
            break;
        double late = monotonic_now() - (t->start_time + (double)k * interval);
        if (late < 0)
            late = 0;
        t->lateness_sum += late;
        if (late > t->lateness_max)
            t->lateness_max = late;
        t->lateness_n++;
        pthread_mutex_unlock(&t->lock);
        struct pipeline_rows rows;
        double now = take_sample(t, k, &rows);
        feed_sinks(t, &rows, now);
        pthread_mutex_lock(&t->lock);
        /* Next deadline on the schedule; deadlines already past are skipped. */
        long due = (long)floor((monotonic_now() - t->start_time) / interval) + 1;
        if (due > k + 1)
            t->skipped += due - (k + 1); /* slots the overrun left no time for */
        k = due > k + 1 ? due : k + 1;
    }
    t->thread_done = 1;
    pthread_cond_broadcast(&t->done);
    int orphaned = t->orphaned;
    pthread_mutex_unlock(&t->lock);
    if (orphaned)
        destroy(t); /* gt_tracker_free() gave up waiting and left it to us */
    return NULL;
}

/* The epoch time the sampling thread is to take the baseline at, or 0:
 * now (options.start_at 0, or a time already past). */
static double scheduled_start(const gt_options *o)
{
    double now = epoch_now(), at = o->start_at;
    if (at == GT_START_ALIGNED) {
        /* resource_tracker's rule: the next whole multiple of the interval,
         * leaving the sampler at least 50 ms to get ready. */
        at = ceil(now / o->sleep_time) * o->sleep_time;
        if (at - now < 0.05)
            at += o->sleep_time;
    }
    return at > now ? at : 0;
}

gt_status gt_tracker_start(gt_tracker *t)
{
    gt_clear_error();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_NEW)
        return gt_fail(GT_ERR_STATE, t->state == STATE_STARTED
                       ? "cannot start a tracker that has already been started"
                       : "cannot start a tracker that has already been stopped");
    if (t->gpu_reason[0])
        warn_always(&t->warner, "%s: GPU RAM and GPU utilization are reported as 0",
                    t->gpu_reason);
    if (t->reader.gpu.left_out[0])
        warn_always(&t->warner, "%s", t->reader.gpu.left_out);
    if (t->cfg.o.discover_cloud)
        t->cloud = cloud_discovery_start(t->cfg.metadata_url); /* in the background: never delays tracking */
    const struct gpu *g = &t->reader.gpu;
    run_record_begin(&t->run, t->pid, t->cfg.o.sleep_time, t->cfg.proc_root, t->cfg.sys_root,
                     g->devices, g->nvendors ? g->ndevices : 0);
    t->run.job = t->job;
    if (!t->cfg.o.csv_no_header)
        csv_sink_headers(&t->csv);
    t->delayed_start = scheduled_start(&t->cfg.o);
    if (t->delayed_start <= 0)
        take_baseline(t, 0); /* no thread yet: the reader and sinks are ours */

    int rc = start_library_thread(&t->thread, "gt:sampler", sampler_main, t);
    if (rc != 0) {
        backup_sink_finish(&t->backup);
        return gt_fail(GT_ERR_SYSTEM, "cannot start the sampling thread: %s", strerror(rc));
    }
    t->thread_started = 1;
    t->state = STATE_STARTED;
    return GT_OK;
}

/* Asks the sampling thread to stop and waits up to timeout seconds for it.
 * Returns 1 when it has finished (and is joined). */
static int stop_sampler(gt_tracker *t, double timeout)
{
    pthread_mutex_lock(&t->lock);
    t->stop_requested = 1;
    wake_word_set(&t->stop_word);
    struct timespec deadline = to_timespec(monotonic_now() + timeout);
    int rc = 0;
    while (!t->thread_done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&t->done, &t->lock, &deadline);
    int done = t->thread_done;
    pthread_mutex_unlock(&t->lock);
    if (done && t->thread_started) {
        pthread_join(t->thread, NULL);
        t->thread_started = 0;
    }
    return done;
}

gt_status gt_tracker_stop(gt_tracker *t)
{
    gt_clear_error();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has not been started");
    if (t->state == STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has already been stopped");
    double stop_time;
    if (stop_sampler(t, t->cfg.o.stop_timeout)) {
        if (!t->baseline_taken)
            take_baseline(t, 0); /* stopped before its start: a run of no time */
        struct pipeline_rows final; /* off the schedule: no series rows */
        stop_time = take_sample(t, -1, &final); /* the reader and sinks are ours now */
        /* ...but it is a timepoint: the tracking file ends with it, when
         * a tracked process was still alive. After the command has exited
         * its zeros would only pull down every statistic of the file (and
         * gpu_tracker, which stops sampling when the process ends, has no
         * such row). */
        int alive = final.timepoint.main_threads + final.timepoint.desc_threads > 0;
        if (final.have_timepoint && alive && t->tracking.base.ops)
            t->tracking.base.ops->rows(&t->tracking.base, &final);
        /* No more serving, the textfile removed. (A stuck sampler still
         * owns the exporter: then gt_tracker_free, or the sampler itself
         * when it comes back, ends it.) */
        if (t->metrics_on)
            metrics_sink_finish(&t->metrics);
    } else {
        /* Stuck in a system call: the readers are still in its hands. The
         * results are those of the samples it finished. */
        stop_time = monotonic_now();
        warn_always(&t->warner, "the sampling thread did not stop within %g s; the results are those of the "
             "samples taken before", t->cfg.o.stop_timeout);
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    t->run.epoch_stop = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
    pthread_mutex_lock(&t->lock);
    t->series_frozen = 1;
    t->stop_time = stop_time;
    if (!t->baseline_taken) /* stuck in the baseline itself: a run of no time */
        t->start_time = stop_time;
    pthread_mutex_unlock(&t->lock);
    backup_sink_finish(&t->backup); /* a clean stop: no backup needed */
    t->state = STATE_STOPPED;
    return GT_OK;
}

gt_status gt_tracker_add_reaped(gt_tracker *t, pid_t pid, const struct rusage *ru)
{
    gt_clear_error();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot add a reaped process before the tracker is started");
    if (!ru)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "no resource usage given for PID %d", (int)pid);
    pthread_mutex_lock(&t->lock);
    if (ru->ru_maxrss > 0)
        usage_add_reaped(&t->pipe.acc, pid == t->pid, (unsigned long long)ru->ru_maxrss);
    usage_add_reaped_io(&t->pipe.acc, pid == t->pid,
                        ru->ru_inblock > 0 ? (unsigned long long)ru->ru_inblock : 0,
                        ru->ru_oublock > 0 ? (unsigned long long)ru->ru_oublock : 0);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

int gt_tracker_wait(gt_tracker *t, double timeout)
{
    gt_clear_error();
    if (!tracker_owned_here(t)) {
        tracker_forked_copy_error(t);
        return 0;
    }
    if (t->state != STATE_STARTED || !(t->cfg.o.duration > 0))
        return t->state == STATE_STOPPED && t->duration_done;
    pthread_mutex_lock(&t->lock);
    struct timespec deadline = to_timespec(monotonic_now() + (timeout > 0 ? timeout : 0));
    int rc = 0;
    while (!t->thread_done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&t->done, &t->lock, &deadline);
    int ended = t->thread_done && t->duration_done;
    pthread_mutex_unlock(&t->lock);
    return ended;
}

/* In a child made by fork(): the child's copy of the tracker, whose thread
 * does not exist here and whose lock another thread may have held at the
 * fork. Its memory and descriptors are released without locking, waiting or
 * removing anything (the backup file and the thread are the parent's). */
static void free_forked_copy(gt_tracker *t)
{
    sample_reader_forget(&t->reader); /* the GPU library's state is the parent's */
    release_memory(t);
}

void gt_tracker_free(gt_tracker *t)
{
    if (!t)
        return;
    if (!tracker_owned_here(t)) {
        free_forked_copy(t);
        return;
    }
    if (t->thread_started && !stop_sampler(t, t->cfg.o.stop_timeout)) {
        pthread_mutex_lock(&t->lock);
        if (!t->thread_done) {
            /* Still stuck: it will free the tracker when its system call
             * returns. Detached before the lock is let go: from then on the
             * thread may free t at any moment. */
            pthread_detach(t->thread);
            t->orphaned = 1;
            pthread_mutex_unlock(&t->lock);
            return;
        }
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
    }
    destroy(t);
}
