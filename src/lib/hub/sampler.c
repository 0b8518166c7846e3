/* sampler.c - what whoever samples does (the sampling thread while it
 * runs, the caller of gt_tracker_start() and gt_tracker_stop() for the
 * baseline and the final sample): read a sample, run it through the
 * pipeline, keep its rows, hand them to the sinks and look at who held a
 * new peak, on the absolute schedule start + k * sleep_time
 * (a slow sample never shifts the later ones). The lock guards only what
 * the API's callers read too, and is never held during I/O. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include "gpu_tracker_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "common/background.h"

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
        warn_once(&t->warn_channel, WARN_SERIES_MEMORY,
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
            warn_always(&t->warn_channel, "%s; the rows are kept in memory instead",
                        t->store.spill_error);
    }
    return 0;
}

/* What the next sample reads beyond what every sample reads: the one place
 * where what later stages learnt feeds back into the reader. The caller
 * owns the reader and the sinks. */
static struct read_plan next_read_plan(gt_tracker *t, long slot)
{
    struct read_plan plan = {
        /* The exporter's I/O counters cost a file per process: read only
         * when someone will see them (metrics_sink.h). */
        .io = sinks_want_io(&t->sinks, slot < 0),
        /* A shared group's figures are never used: stop paying for them (a
         * user's session group can hold thousands of processes). */
        .cgroup = !t->pipe.cg.shared,
        /* Outsiders seen twice: a third sighting shares the group. */
        .cgroup_outsiders = t->pipe.cg.pending[1],
        .ncgroup_outsiders = t->pipe.cg.npending[1],
    };
    return plan;
}

/* One sample read and through the pipeline (slot as in struct sample); its
 * rows in *rows. The caller owns the reader (see the file comment). Returns
 * the sample's monotonic time. */
static double take_sample(gt_tracker *t, long slot, struct pipeline_rows *rows)
{
    struct sample s;
    /* pipe.cg.shared: only the sampler writes it */
    struct read_plan plan = next_read_plan(t, slot);
    pthread_mutex_lock(&t->reader_lock);
    sample_read(&t->reader, slot, &plan, &s);
    pthread_mutex_lock(&t->lock);
    pipeline_step(&t->pipe, &s, rows);
    rows->metrics = sinks_take_point(&t->sinks, &t->pipe, &s);
    results_take_reasons(&t->res, &t->reader);
    int new_peak[2] = {t->pipe.acc.new_rss_peak, t->pipe.acc.new_gpu_peak && s.gpu_ok};
    double at = t->baseline_taken ? s.now - t->res.start_time : 0;
    double peak_bytes[2] = {(double)t->pipe.acc.comb_pk.total_kb * 1024.0,
                            (double)t->pipe.acc.gpu_comb_max};
    pthread_mutex_unlock(&t->lock);
    /* A new peak: who made it up, from the walk just done. */
    for (int kind = 0; kind < 2; kind++) {
        if (!new_peak[kind])
            continue;
        gt_peak_breakdown b;
        sample_reader_peak(&t->reader, &s, kind, at, peak_bytes[kind], &b);
        pthread_mutex_lock(&t->lock);
        t->at_peak[kind] = b;
        pthread_mutex_unlock(&t->lock);
    }
    pthread_mutex_unlock(&t->reader_lock);
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

void sampler_take_baseline(gt_tracker *t, double epoch)
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
    /* Compute time runs from the baseline sample to the final one, the same
     * span the CPU means are measured over. The baseline writes the backup
     * file too. */
    sinks_start(&t->sinks, t->run.epoch_start);
    feed_sinks(t, &rows, start);
}

double sampler_take_final(gt_tracker *t)
{
    struct pipeline_rows final; /* off the schedule: no series rows */
    double now = take_sample(t, -1, &final);
    sinks_finish(&t->sinks, &final);
    return now;
}

double sampler_scheduled_start(const gt_options *o)
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

int sampler_run(gt_tracker *t)
{
    double interval = t->cfg.o.sleep_time;
    /* With a duration, the last slot is the one at start + duration. */
    long last_slot = t->cfg.o.duration > 0 ? (long)floor(t->cfg.o.duration / interval + 1e-9) : -1;
    /* A start ahead: wait for it (a stop() meanwhile ends the run unsampled). */
    int stopped_early = t->delayed_start > 0 &&
        wakeup_sleep_until(&t->stop_word,
                              monotonic_now() + (t->delayed_start - epoch_now()));
    if (t->delayed_start > 0 && !stopped_early)
        sampler_take_baseline(t, t->delayed_start);
    pthread_mutex_lock(&t->lock);
    for (long k = 1; !stopped_early && !t->stop_requested;) {
        if (last_slot >= 0 && k > last_slot) {
            t->duration_done = 1;
            break;
        }
        /* Asleep without the lock: stop() sets the wake-up, then the flag. */
        double slot_at = t->res.start_time + (double)k * interval;
        pthread_mutex_unlock(&t->lock);
        int stop = wakeup_sleep_until(&t->stop_word, slot_at);
        pthread_mutex_lock(&t->lock);
        if (stop || t->stop_requested)
            break;
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
    return orphaned;
}

/* A thread of the caller's that works for the tracker (the Python
 * Tracker's allocator reader) counted as the library's, as the sampling
 * thread is: gpu_tracker.h. */
int gt_library_thread_enter(void)
{
    return library_thread_enter();
}

void gt_library_thread_leave(void)
{
    library_thread_leave();
}
