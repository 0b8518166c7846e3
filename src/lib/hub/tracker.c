/* tracker.c - the hub: a tracker's options, state machine, sampling thread
 * and schedule. Every stage is a wing that builds itself from the options
 * (docs/architecture.md): read/ does a sample's I/O (reader_open), the
 * pipeline turns it into aggregates and rows (pipeline_open), the sinks
 * keep and write them (sinks_open), output/ assembles the results
 * (results.c hands them out). What one stage asks of the next sample is
 * decided here, in one place (next_read_plan).
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
#include "hub/tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sink/sink.h"
#include "util/background.h"
#include "read/read.h"
#include "hub/options.h"
#include "pipeline/pipeline.h"
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
    results_free(&t->res);
    sinks_forget(&t->sinks);
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
    sinks_destroy(&t->sinks);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->lock);
    release_memory(t);
}

/* A cgroup of the job's own (options.own_cgroup), made before the reader
 * opens: it reads the group the process is in. */
static gt_status make_own_cgroup(gt_tracker *t)
{
    if (!t->cfg.o.process_id || t->cfg.o.process_id == t->owner)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "own_cgroup needs process_id, a process the caller started and holds: "
                       "memory already used stays charged to the group it was used in");
    if (cgroup_own_make(&t->own_cg, t->cfg.proc_root, t->cfg.sys_root, t->pid) < 0)
        warn_always(&t->warner, "no cgroup of the job's own: %s; tracking goes on without one",
                    t->own_cg.reason);
    else if (t->own_cg.memory_reason[0])
        warn_always(&t->warner, "the job's cgroup has no memory figures: %s",
                    t->own_cg.memory_reason);
    return GT_OK;
}

/* The expected cores' default: the CPUs the tracked process may use. The
 * quota comes from the cgroup reader's descriptors where it has them (the
 * process's cgroup file and the group's quota files are not read twice). */
static double usable_cpus(gt_tracker *t, const struct reader_place *at)
{
    double quota = cgroup_quota_cores(&t->reader.cg); /* no thread yet */
    if (quota < 0)
        return server_usable_cpus(at->proc_root, at->sys_root, t->pid, t->reader.ncpu);
    return server_usable_cpus_quota(at->proc_root, t->pid, t->reader.ncpu, quota);
}

/* The wings of t, each built from the options: the reader, the pipeline
 * and the results' state from what the reader found, then the sinks. */
static gt_status open_wings(gt_tracker *t)
{
    const gt_options *o = &t->cfg.o;
    struct reader_place at = {t->cfg.proc_root, t->cfg.sys_root, t->pid, t->pid == t->owner,
                              t->cfg.sampled_only};
    gt_status st = reader_open(&t->reader, o, &at, &t->warner);
    if (st != GT_OK)
        return st;
    const struct gpu *g = &t->reader.gpu;
    struct pipeline_facts pf = {
        .pid = t->pid, .sampled_only = t->cfg.sampled_only, .ncpu = t->reader.ncpu,
        /* Only the expected cores' default: not read when they are given. */
        .usable_cpus = o->n_expected_cores > 0 ? 0 : usable_cpus(t, &at),
        .ngpus = g->ndevices, .nselected = g->nselected,
    };
    for (int i = 0; i < g->ndevices; i++)
        pf.gpu_capacity += g->devices[i].memory_total;
    pipeline_open(&t->pipe, o, &pf, &t->res.units);
    limits_init(&t->limits, o);
    t->res.sampled_only = t->cfg.sampled_only;
    t->res.cg = &t->reader.cg;
    t->res.rapl = &t->reader.rapl;
    t->res.own_cg = &t->own_cg;
    t->res.own_cg_asked = o->own_cgroup;
    results_take_reasons(&t->res, &t->reader); /* no thread yet */
    if (results_list_gpus(&t->res, g) < 0)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    struct sinks_facts sf = {t->pid, at.proc_root, &t->res.units, t->reader.mem_total_kb, g,
                             o->job ? &t->job : NULL, t};
    return sinks_open(&t->sinks, o, &sf, &t->warner);
}

/* gt_tracker_new() reading from sources (NULL: the system). */
static gt_status tracker_new(const gt_options *user, const gt_sources *sources,
                             gt_tracker **out)
{
    gt_clear_error();
    *out = NULL;
    gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    gt_status st = options_copy_make(&t->cfg, user, sources);
    if (st != GT_OK) {
        free(t);
        return st;
    }
    /* Before anything can fail: destroy() closes whatever is open. */
    row_store_init(&t->store);
    sample_reader_init(&t->reader);
    sinks_init(&t->sinks);
    warner_init(&t->warner, t->cfg.o.on_warning, t->cfg.o.warning_data, t->cfg.o.disable_logs);
    pthread_mutex_init(&t->lock, NULL);
    cond_init_monotonic(&t->done);
    t->owner = getpid();
    t->pid = t->cfg.o.process_id ? t->cfg.o.process_id : t->owner;
    if (t->cfg.o.job)
        t->job = *t->cfg.o.job;
    st = t->cfg.o.own_cgroup ? make_own_cgroup(t) : GT_OK;
    if (st == GT_OK)
        st = open_wings(t);
    if (st != GT_OK) {
        destroy(t);
        return st;
    }
    t->cfg.o.resource_usage_file = t->sinks.backup.path;
    t->state = STATE_NEW;
    *out = t;
    return GT_OK;
}

gt_status gt_tracker_new(const gt_options *opts, gt_tracker **out)
{
    return tracker_new(opts, NULL, out);
}

gt_status gt_tracker_new_from(const gt_options *opts, const gt_sources *sources,
                                 gt_tracker **out)
{
    return tracker_new(opts, sources, out);
}

/* Keeps the rows a sample made in the store (a full batch goes to the row
 * file, written without the lock: a disk that hangs must not keep stop()
 * waiting beyond its timeout). 0, or -1 when stop() has frozen the series
 * (the rows go nowhere). */
static int store_rows(gt_tracker *t, const struct pipeline_rows *rows)
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

/* What the next sample reads beyond what every sample reads: the one place
 * where what later stages learnt feeds back into the reader. The caller
 * owns the reader and the sinks. */
static struct read_plan next_read_plan(gt_tracker *t)
{
    struct read_plan plan = {
        /* The exporter's I/O counters cost a file per process: read only
         * when someone will see them (metrics_sink.h). */
        .io = sinks_want_io(&t->sinks),
        /* A shared group's figures are never used: stop paying for them (a
         * user's session group can hold thousands of processes). */
        .cgroup = !t->pipe.cg.shared,
        /* Strangers seen twice: a third sighting shares the group. */
        .cgroup_strangers = t->pipe.cg.pending[1],
        .ncgroup_strangers = t->pipe.cg.npending[1],
    };
    return plan;
}

void tracker_limit_figures(const gt_tracker *t, double now, struct limit_figures *f)
{
    double main_s, desc_s;
    usage_cpu_seconds(&t->pipe.acc, &main_s, &desc_s);
    f->value[GT_LIMIT_RAM] = (double)usage_combined_peak_kb(&t->pipe.acc) * 1024.0;
    f->value[GT_LIMIT_GPU_RAM] = (double)t->pipe.acc.gpu_comb_max;
    f->value[GT_LIMIT_TIME] = t->baseline_taken ? now - t->res.start_time : 0;
    f->value[GT_LIMIT_CPU_TIME] = main_s + desc_s;
}

/* After SIGKILL, how often what is left of the tree gets it again until
 * the run ends: a process its parent forked as it was killed was in no
 * list yet. */
#define KILL_AGAIN_PERIOD 0.2

/* The limits after a sample taken at now (under the lock): the breaches
 * seen first here, worded into msgs (one line each); with on_limit kill,
 * what the tree is to be sent (0: nothing; -SIGKILL: SIGKILL again). */
static int check_limits(gt_tracker *t, double now, char msgs[GT_LIMIT_COUNT][256],
                               int *nmsgs)
{
    *nmsgs = 0;
    if (!t->limits.nset)
        return 0;
    struct limit_figures f;
    tracker_limit_figures(t, now, &f);
    double elapsed = f.value[GT_LIMIT_TIME];
    unsigned fresh = limits_observe(&t->limits, &f, elapsed);
    for (int i = 0; i < GT_LIMIT_COUNT; i++)
        if (fresh & (1u << i))
            limits_describe(&t->limits, i, msgs[(*nmsgs)++], sizeof msgs[0]);
    t->limits.warned |= fresh;
    if (t->cfg.o.on_limit != GT_ON_LIMIT_KILL)
        return 0;
    if (fresh && !t->limits.term_sent) {
        t->limits.term_sent = 1;
        t->limits.term_at = elapsed;
        t->term_mono = now;
        return SIGTERM;
    }
    if (t->limits.term_sent && !t->limits.kill_sent && now - t->term_mono >= t->cfg.o.kill_after) {
        t->limits.kill_sent = 1;
        t->limits.kill_again = now + KILL_AGAIN_PERIOD;
        return SIGKILL;
    }
    if (t->limits.kill_sent && now >= t->limits.kill_again) {
        t->limits.kill_again = now + KILL_AGAIN_PERIOD;
        return -SIGKILL; /* again, quietly */
    }
    return 0;
}

/* Says what check_limits found (outside the lock) and sends the tree sig
 * (0: nothing). The caller owns the reader. */
static void act_on_limits(gt_tracker *t, int sig, char msgs[GT_LIMIT_COUNT][256], int nmsgs)
{
    int kill = t->cfg.o.on_limit == GT_ON_LIMIT_KILL; /* options: read-only once started */
    for (int i = 0; i < nmsgs; i++)
        warn_always(&t->warner, "limit breached: %s%s", msgs[i],
                    !kill    ? "; running on (--on-limit warn)"
                    : i == 0 ? "; ending the command (--on-limit kill)"
                             : "");
    if (!sig)
        return;
    /* The tree as the last sample found it, and what it forked since
     * (sample_reader_signal_tree); -SIGKILL: the same again, unsaid. */
    int reached = sample_reader_signal_tree(&t->reader, sig < 0 ? -sig : sig);
    if (sig == SIGKILL && reached > 0)
        warn_always(&t->warner, "limit: %d process%s still running %g s after SIGTERM, sent "
                    "SIGKILL", reached, reached == 1 ? "" : "es", t->cfg.o.kill_after);
}

/* When the limits need the sampler between two samples (under the lock):
 * the moment max_time passes, or the SIGKILL kill_after seconds after the
 * SIGTERM, whichever is first and not done; INFINITY when neither. Acting
 * then, not at the next sample, keeps --max-time and --kill-after as exact
 * as timeout(1)'s, whatever the sleep time. */
static double limit_deadline(const gt_tracker *t)
{
    double at = INFINITY;
    if (t->limits.limit[GT_LIMIT_TIME] > 0 && t->limits.at[GT_LIMIT_TIME] < 0 &&
        t->baseline_taken)
        at = t->res.start_time + t->limits.limit[GT_LIMIT_TIME];
    if (t->limits.term_sent && !t->limits.kill_sent && t->term_mono + t->cfg.o.kill_after < at)
        at = t->term_mono + t->cfg.o.kill_after;
    if (t->limits.kill_sent && t->limits.kill_again < at)
        at = t->limits.kill_again;
    return at;
}

/* One sample read and through the pipeline (slot as in struct sample); its
 * rows in *rows. The caller owns the reader (see the file comment). Returns
 * the sample's monotonic time. */
static double take_sample(gt_tracker *t, long slot, struct pipeline_rows *rows)
{
    struct sample s;
    struct read_plan plan = next_read_plan(t); /* pipe.cg.shared: only the sampler writes it */
    sample_read(&t->reader, slot, &plan, &s);
    char msgs[GT_LIMIT_COUNT][256];
    int nmsgs;
    pthread_mutex_lock(&t->lock);
    pipeline_step(&t->pipe, &s, rows);
    rows->metrics = sinks_take_point(&t->sinks, &t->pipe, &s);
    results_take_reasons(&t->res, &t->reader);
    int sig = check_limits(t, s.now, msgs, &nmsgs);
    int new_peak[2] = {t->pipe.acc.new_rss_peak, t->pipe.acc.new_gpu_peak && s.gpu_ok};
    double at = t->baseline_taken ? s.now - t->res.start_time : 0;
    double peak_bytes[2] = {(double)t->pipe.acc.comb_pk.total_kb * 1024.0,
                            (double)t->pipe.acc.gpu_comb_max};
    pthread_mutex_unlock(&t->lock);
    act_on_limits(t, sig, msgs, nmsgs);
    /* A new peak: who made it up, from the walk just done (O(n) in the
     * tree, only at a new peak; the few largest named). */
    for (int kind = 0; kind < 2; kind++) {
        if (!new_peak[kind])
            continue;
        gt_peak_breakdown b;
        memset(&b, 0, sizeof b);
        b.struct_size = sizeof b;
        if (kind == GT_PEAK_MEMORY)
            sample_reader_memory_breakdown(&t->reader, &b);
        else
            sample_reader_gpu_breakdown(&t->reader, &s, &b);
        b.available = 1;
        b.at_seconds = at;
        b.total_bytes = peak_bytes[kind];
        if (kind == GT_PEAK_MEMORY) {
            double own = b.others_private_bytes;
            for (int i = 0; i < b.nprocesses; i++)
                own += b.processes[i].private_bytes >= 0 ? b.processes[i].private_bytes
                                                         : b.processes[i].bytes;
            b.shared_bytes = b.total_bytes > own ? b.total_bytes - own : 0;
        }
        pthread_mutex_lock(&t->lock);
        t->at_peak[kind] = b;
        pthread_mutex_unlock(&t->lock);
    }
    return s.now;
}

/* The summary as of now for the sinks that want it (sinks_feed). */
static const gt_resource_usage *sink_summary(void *ctx, double now)
{
    gt_tracker *t = ctx;
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, now, 0, &t->sink_summary);
    pthread_mutex_unlock(&t->lock);
    return &t->sink_summary;
}

/* A sample's rows kept in the store and handed to the sinks, with the
 * summary as of now to those that want it. The caller owns the sinks. */
static void feed_sinks(gt_tracker *t, const struct pipeline_rows *rows, double now)
{
    if (store_rows(t, rows) >= 0)
        sinks_feed(&t->sinks, rows, now, sink_summary, t);
}

/* The baseline sample (slot 0): the start of the run. epoch, when > 0, is
 * the wall-clock time the schedule names it (options.start_at), which the
 * rows' timestamps count from. The caller owns the reader and the sinks. */
static void take_baseline(gt_tracker *t, double epoch)
{
    struct pipeline_rows rows;
    double start = take_sample(t, 0, &rows);
    pthread_mutex_lock(&t->lock);
    t->res.start_time = start;
    if (epoch > 0)
        t->pipe.epoch_start = epoch;
    t->run.epoch_start = t->pipe.epoch_start;
    t->baseline_taken = 1;
    pthread_mutex_unlock(&t->lock);
    if (t->sinks.metrics_on)
        metrics_sink_set_start(&t->sinks.metrics, t->run.epoch_start);
    /* Compute time runs from the baseline sample to the final one, the same
     * span the CPU means are measured over. The baseline writes the backup
     * file too. */
    feed_sinks(t, &rows, start);
}

static void *sampler_main(void *arg)
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
        /* Asleep without the lock: stop() sets the word, then the flag. A
         * limit's moment before the next slot is acted on then, without a
         * sample (no row: the schedule is the slots'). */
        double slot_at = t->res.start_time + (double)k * interval;
        double limit_at = limit_deadline(t);
        pthread_mutex_unlock(&t->lock);
        int stop = wake_word_sleep_until(&t->stop_word, limit_at < slot_at ? limit_at : slot_at);
        pthread_mutex_lock(&t->lock);
        if (stop || t->stop_requested)
            break;
        if (limit_at < slot_at) {
            char msgs[GT_LIMIT_COUNT][256];
            int nmsgs;
            int sig = check_limits(t, monotonic_now(), msgs, &nmsgs);
            pthread_mutex_unlock(&t->lock);
            act_on_limits(t, sig, msgs, nmsgs);
            pthread_mutex_lock(&t->lock);
            continue;
        }
        double late = monotonic_now() - (t->res.start_time + (double)k * interval);
        if (late < 0)
            late = 0;
        t->res.lateness_sum += late;
        if (late > t->res.lateness_max)
            t->res.lateness_max = late;
        t->res.lateness_n++;
        pthread_mutex_unlock(&t->lock);
        struct pipeline_rows rows;
        double now = take_sample(t, k, &rows);
        feed_sinks(t, &rows, now);
        pthread_mutex_lock(&t->lock);
        /* Next deadline on the schedule; deadlines already past are skipped. */
        long due = (long)floor((monotonic_now() - t->res.start_time) / interval) + 1;
        if (due > k + 1)
            t->res.skipped += due - (k + 1); /* slots the overrun left no time for */
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

/* Starts the sampling thread of a started tracker (once). */
static gt_status start_sampler(gt_tracker *t)
{
    int rc = start_library_thread(&t->thread, "gt:sampler", sampler_main, t);
    if (rc != 0)
        return gt_fail(GT_ERR_SYSTEM, "cannot start the sampling thread: %s", strerror(rc));
    t->thread_started = 1;
    t->sampler_due = 0;
    return GT_OK;
}

/* Whether the sampling thread may wait until the first look is near: only
 * when nothing but the samples needs it before then (no scheduled start,
 * duration or limit, which the thread keeps to the moment). */
static int sampler_may_wait(const gt_tracker *t)
{
    return t->delayed_start <= 0 && !(t->cfg.o.duration > 0) && t->limits.nset == 0;
}

/* gt_tracker_start(), the thread made now (deferred 0) or, where
 * sampler_may_wait(), left to gt_tracker_start_sampler() (deferred 1). */
static gt_status tracker_start(gt_tracker *t, int deferred)
{
    gt_clear_error();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_NEW)
        return gt_fail(GT_ERR_STATE, t->state == STATE_STARTED
                       ? "cannot start a tracker that has already been started"
                       : "cannot start a tracker that has already been stopped");
    /* No GPU is news only where one was expected: a brand asked for, or a
     * vendor's library installed but unable to start. A machine with no GPU
     * library has no GPU to speak of (the summary says "none"). */
    if (t->res.why.gpu[0] && (t->cfg.o.gpu_brand || t->reader.gpu.broken_library))
        warn_always(&t->warner, "%s: GPU RAM and GPU utilization are reported as 0",
                    t->res.why.gpu);
    if (t->reader.gpu.left_out[0])
        warn_always(&t->warner, "%s", t->reader.gpu.left_out);
    if (t->cfg.o.discover_cloud)
        t->cloud = cloud_discovery_start(t->cfg.metadata_url); /* in the background: never delays tracking */
    const struct gpu *g = &t->reader.gpu;
    /* A run with a series will make a snapshot or report of the machine as
     * it ran: described now; others only if asked (run_record.h). */
    run_record_begin(&t->run, t->pid, t->cfg.o.sleep_time, t->cfg.proc_root, t->cfg.sys_root,
                     g->devices, g->nvendors ? g->ndevices : 0, t->cfg.o.series != 0);
    t->run.job = t->job;
    if (!t->cfg.o.csv_no_header)
        csv_sink_headers(&t->sinks.csv);
    t->delayed_start = scheduled_start(&t->cfg.o);
    if (t->delayed_start <= 0)
        take_baseline(t, 0); /* no thread yet: the reader and sinks are ours */

    if (deferred && sampler_may_wait(t)) {
        /* Half an interval ahead of the first look: time enough to make
         * the thread without making that look late. */
        t->sampler_due = t->res.start_time + t->cfg.o.sleep_time / 2;
    } else {
        gt_status st = start_sampler(t);
        if (st != GT_OK) {
            backup_sink_finish(&t->sinks.backup);
            return st;
        }
    }
    t->state = STATE_STARTED;
    return GT_OK;
}

gt_status gt_tracker_start(gt_tracker *t)
{
    return tracker_start(t, 0);
}

gt_status gt_tracker_start_deferred(gt_tracker *t)
{
    return tracker_start(t, 1);
}

double gt_tracker_sampler_due(const gt_tracker *t)
{
    return t->state == STATE_STARTED && !t->thread_started ? t->sampler_due : 0;
}

gt_status gt_tracker_start_sampler(gt_tracker *t)
{
    gt_clear_error();
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_STARTED || t->thread_started)
        return GT_OK;
    return start_sampler(t);
}

/* Asks the sampling thread to stop and waits up to timeout seconds for it.
 * Returns 1 when it has finished (and is joined). */
static int stop_sampler(gt_tracker *t, double timeout)
{
    if (!t->thread_started)
        return 1; /* never made (gt_tracker_start_deferred): nothing to wait for */
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
         * a tracked process was still alive (its sink skips it otherwise). */
        struct sink *tf = &t->sinks.tracking.base;
        if (final.have_timepoint && tf->ops)
            tf->ops->rows(tf, &final);
        /* No more serving, the textfile removed. (A stuck sampler still
         * owns the exporter: then gt_tracker_free, or the sampler itself
         * when it comes back, ends it.) */
        if (t->sinks.metrics_on)
            metrics_sink_finish(&t->sinks.metrics);
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
        t->res.start_time = stop_time;
    pthread_mutex_unlock(&t->lock);
    backup_sink_finish(&t->sinks.backup); /* a clean stop: no backup needed */
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
