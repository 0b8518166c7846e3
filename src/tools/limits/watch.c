/* limits/watch.c - the limits of a run kept by a watch over its tracker
 * (gpu_tracker_tools.h, "Limits"): the state machine of limits.c fed with
 * the tracker's figures after every sample (the tracker's per-sample
 * callback) and at the moments between samples that matter (the moment
 * max_time passes, kill_after after the SIGTERM: a thread of the watch's
 * own sleeps until then), its actions done through the library's one
 * primitive for them, gt_tracker_signal().
 *
 * Threads. The state is under w->lock; the tracker's figures are read and
 * the tree signalled outside it (the sampler calls on_sample without its
 * own locks held, and gt_tracker_signal() may wait for a sample to end). */
#define _GNU_SOURCE
#include "limits/limits.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"
#include "common/internal.h"

/* kill_after's default: timeout(1)'s advice for --kill-after. */
#define DEFAULT_KILL_AFTER 5.0

struct gt_limit_watch {
    gt_limit_options lo;
    gt_tracker *t;               /* from gt_limit_watch_attach() */
    gt_warning_fn warn;          /* NULL: warnings not wanted */
    void *warn_data;
    gt_sample_fn next;           /* the host's own on_sample, called after ours */
    void *next_data;

    pthread_mutex_t lock;        /* guards what follows */
    pthread_cond_t wake;         /* to the thread: a deadline moved, or stop */
    struct limit_state s;
    double base;                 /* monotonic time of the baseline; < 0 before it */
    int stopping;
    pthread_t thread;
    int thread_started;
};

void gt_limit_options_init(gt_limit_options *lo)
{
    memset(lo, 0, sizeof *lo);
    lo->on_limit = GT_ON_LIMIT_WARN;
    lo->kill_after = DEFAULT_KILL_AFTER;
}

gt_status gt_limit_options_validate(const gt_limit_options *lo)
{
    error_clear();
    if (!lo)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_limit_options_validate: NULL options");
    const double values[GT_LIMIT_COUNT] = {lo->max_ram, lo->max_gpu_ram, lo->max_time,
                                           lo->max_cpu_time};
    for (int i = 0; i < GT_LIMIT_COUNT; i++)
        if (!(values[i] >= 0 && values[i] < 1e300))
            return error_set(GT_ERR_INVALID_ARGUMENT,
                             "invalid %s %g: give 0 (no limit) or a number of %s above 0",
                             limits_option_name(i), values[i], limits_unit(i));
    if (lo->on_limit != GT_ON_LIMIT_WARN && lo->on_limit != GT_ON_LIMIT_KILL)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid on_limit %d; valid: GT_ON_LIMIT_WARN (0) or GT_ON_LIMIT_KILL (1)",
                         lo->on_limit);
    if (!(lo->kill_after > 0 && lo->kill_after <= GT_STOP_TIMEOUT_MAX))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid kill_after %g: it must be more than 0 and at most %g seconds",
                         lo->kill_after, GT_STOP_TIMEOUT_MAX);
    return GT_OK;
}

/* The figures a limit of lo is put on, as the tracker has them now (each
 * a microsecond or so under the tracker's lock; the others are left 0);
 * elapsed is the run's seconds so far. A figure the run does not have (no
 * GPU) is 0. */
static void read_figures(const gt_limit_options *lo, gt_tracker *t, double elapsed,
                         struct limit_figures *f)
{
    const double limit[GT_LIMIT_COUNT] = {lo->max_ram, lo->max_gpu_ram, lo->max_time,
                                          lo->max_cpu_time};
    static const gt_figure which[GT_LIMIT_COUNT] = {
        [GT_LIMIT_RAM] = GT_FIGURE_PEAK_RSS_BYTES,
        [GT_LIMIT_GPU_RAM] = GT_FIGURE_PEAK_GPU_RAM_BYTES,
        [GT_LIMIT_CPU_TIME] = GT_FIGURE_CPU_SECONDS,
    };
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        f->value[i] = 0;
        if (i != GT_LIMIT_TIME && limit[i] > 0 &&
            gt_tracker_figure(t, which[i], &f->value[i]) != GT_OK)
            f->value[i] = 0;
    }
    /* Children the kernel reaps between samples reach no figure of the
     * tree; the job's cgroup, where it has one, counted them (its peak
     * holds page cache too: docs/limits.md). */
    double unseen = 0, group = 0;
    if (limit[GT_LIMIT_RAM] > 0 &&
        gt_tracker_figure(t, GT_FIGURE_UNSEEN_CHILDREN_PID, &unseen) == GT_OK && unseen > 0 &&
        gt_tracker_figure(t, GT_FIGURE_CGROUP_PEAK_BYTES, &group) == GT_OK &&
        group > f->value[GT_LIMIT_RAM])
        f->value[GT_LIMIT_RAM] = group;
    f->value[GT_LIMIT_TIME] = elapsed;
}

/* One line to the host's warning callback, when it wants them. */
static void warn_line(const gt_limit_watch *w, const char *fmt, ...) GT_PRINTF(2, 3);
static void warn_line(const gt_limit_watch *w, const char *fmt, ...)
{
    if (!w->warn)
        return;
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    w->warn(line, w->warn_data);
}

/* Does what the state machine said (w->lock not held): warns of each
 * breach, and signals the tree. */
static void act(gt_limit_watch *w, const struct limit_action *a)
{
    int kill = w->lo.on_limit == GT_ON_LIMIT_KILL;
    for (int i = 0; i < a->nmsgs; i++)
        warn_line(w, "limit breached: %s%s", a->msgs[i],
                  !kill    ? "; running on (--on-limit warn)"
                  : i == 0 ? "; ending the command (--on-limit kill)"
                           : "");
    if (!a->signal)
        return;
    int reached = 0;
    if (gt_tracker_signal(w->t, a->signal, &reached) != GT_OK)
        warn_line(w, "limit: cannot end the command: %s", gt_last_error());
    else if (a->signal == SIGKILL && !a->again && reached > 0)
        warn_line(w, "limit: %d process%s still running %g s after SIGTERM, sent SIGKILL",
                  reached, reached == 1 ? "" : "es", w->lo.kill_after);
}

/* The tracker's per-sample callback: the figures after this sample
 * through the state machine, then the host's own callback. */
static void on_sample(gt_tracker *t, const gt_sample *sample, void *data)
{
    gt_limit_watch *w = data;
    struct limit_figures f;
    read_figures(&w->lo, t, sample->elapsed, &f);
    double since_baseline = -1;
    if (sample->elapsed == 0 && !sample->last &&
        gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &since_baseline) != GT_OK)
        since_baseline = -1;
    double now = monotonic_now();
    struct limit_action a;
    pthread_mutex_lock(&w->lock);
    if (!w->t)
        w->t = t;
    if (w->base < 0) {
        /* The baseline's own moment, which max_time counts from: the
         * tracker's elapsed time now says how long ago it was taken. */
        w->base = now - (since_baseline >= 0 ? since_baseline : sample->elapsed);
        pthread_cond_signal(&w->wake); /* max_time's deadline is known now */
    }
    limits_step(&w->s, &f, now, &a);
    if (a.signal == SIGTERM)
        pthread_cond_signal(&w->wake); /* kill_after's deadline */
    if (sample->last) {
        /* The run is over: nothing more to keep to the moment. */
        w->stopping = 1;
        pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&w->lock);
    act(w, &a);
    if (w->next)
        w->next(t, sample, w->next_data);
}

/* The thread: sleeps until the state machine's next deadline (max_time,
 * the SIGKILL, the SIGKILL again) and steps it then, between samples. */
static void *watch_thread(void *arg)
{
    gt_limit_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stopping) {
        double at = limits_deadline(&w->s, w->base);
        if (isinf(at)) {
            pthread_cond_wait(&w->wake, &w->lock);
            continue;
        }
        double now = monotonic_now();
        if (now < at) {
            struct timespec until = to_timespec(at);
            pthread_cond_timedwait(&w->wake, &w->lock, &until);
            continue;
        }
        double base = w->base;
        pthread_mutex_unlock(&w->lock);
        struct limit_figures f;
        read_figures(&w->lo, w->t, now - base, &f);
        struct limit_action a;
        pthread_mutex_lock(&w->lock);
        limits_step(&w->s, &f, now, &a);
        pthread_mutex_unlock(&w->lock);
        act(w, &a);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

gt_status gt_limit_watch_new(const gt_limit_options *lo, gt_options *o, gt_limit_watch **out)
{
    error_clear();
    if (!out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_limit_watch_new: NULL out");
    *out = NULL;
    if (!lo || !o)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_limit_watch_new: NULL options");
    gt_status st = gt_limit_options_validate(lo);
    if (st != GT_OK)
        return st;
    gt_limit_watch *w = calloc(1, sizeof *w);
    if (!w)
        return error_set(GT_ERR_NO_MEMORY, "out of memory for the limits' watch");
    w->lo = *lo;
    w->base = -1;
    limits_init(&w->s, lo);
    pthread_mutex_init(&w->lock, NULL);
    cond_init_monotonic(&w->wake);
    if (w->s.nset > 0) {
        if (!o->disable_logs) {
            w->warn = o->on_warning;
            w->warn_data = o->warning_data;
        }
        w->next = o->on_sample;
        w->next_data = o->sample_data;
        o->on_sample = on_sample;
        o->sample_data = w;
    }
    *out = w;
    return GT_OK;
}

gt_status gt_limit_watch_attach(gt_limit_watch *w, gt_tracker *t)
{
    error_clear();
    if (!w || !t)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_limit_watch_attach: NULL watch or tracker");
    /* A tree that holds the tracking program (its own, an ancestor's) is
     * refused before anything runs, not at the breach. */
    if (w->lo.on_limit == GT_ON_LIMIT_KILL && gt_tracker_signal(t, 0, NULL) != GT_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", gt_last_error());
        return error_set(GT_ERR_INVALID_ARGUMENT, "on_limit kill: %s; track another process, "
                         "or warn", why);
    }
    pthread_mutex_lock(&w->lock);
    w->t = t;
    pthread_mutex_unlock(&w->lock);
    if (w->s.nset == 0 || w->thread_started)
        return GT_OK;
    if (start_library_thread(&w->thread, "gt:limits", watch_thread, w) != 0)
        return error_set(GT_ERR_SYSTEM, "cannot start the limits' thread");
    w->thread_started = 1;
    return GT_OK;
}

gt_status gt_limit_watch_report(gt_limit_watch *w, gt_limits *out)
{
    error_clear();
    if (!w || !out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_limit_watch_report: NULL argument");
    pthread_mutex_lock(&w->lock);
    struct limit_state s = w->s;
    gt_tracker *t = w->t;
    pthread_mutex_unlock(&w->lock);
    double elapsed = 0;
    if (t && s.nset > 0 && gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &elapsed) == GT_OK) {
        struct limit_figures f;
        read_figures(&w->lo, t, elapsed, &f);
        limits_observe(&s, &f, elapsed);
    }
    limits_report(&s, out);
    return GT_OK;
}

void gt_limit_watch_free(gt_limit_watch *w)
{
    if (!w)
        return;
    if (w->thread_started) {
        pthread_mutex_lock(&w->lock);
        w->stopping = 1;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
    }
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
