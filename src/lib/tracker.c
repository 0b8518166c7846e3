/* tracker.c - the tracker's lifecycle: options, the sampling thread on an
 * absolute schedule (start + k * sleep_time, so a slow sample never shifts
 * the later ones), stop, and results. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "gpu.h"
#include "system.h"
#include "tree.h"
#include "units.h"
#include "usage.h"

enum state { STATE_NEW, STATE_STARTED, STATE_STOPPED };

struct gt_tracker {
    gt_options opts;        /* strings below are our own copies */
    char *ram_unit, *gpu_ram_unit, *time_unit, *gpu_uuids, *gpu_brand, *proc_root;
    struct usage_units units;
    pid_t pid;

    enum state state;
    pthread_t thread;
    int thread_running;
    pthread_mutex_t lock;   /* guards everything below */
    pthread_cond_t wake;
    int stop_requested;

    struct tree tree;
    struct system_reader sys;
    struct usage_acc acc;
    double start_time, stop_time;
    int warned_tree, warned_sys, warned_fds;
    char gpu_reason[160];
    gt_resource_usage usage;
};

static double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void gt_options_init(gt_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->sleep_time = 1.0;
    opts->ram_unit = "gigabytes";
    opts->gpu_ram_unit = "gigabytes";
    opts->time_unit = "hours";
    opts->proc_root = "/proc";
}

static void warn(gt_tracker *t, const char *fmt, ...) GT_PRINTF(2, 3);
static void warn(gt_tracker *t, const char *fmt, ...)
{
    if (t->opts.disable_logs || !t->opts.on_warning)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t->opts.on_warning(msg, t->opts.warning_data);
}

static char *dup_or_null(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

gt_status gt_options_validate(const gt_options *o)
{
    gt_clear_error();
    if (!(o->sleep_time > 0) || !isfinite(o->sleep_time))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid sleep time %g: it must be a positive number of seconds",
                       o->sleep_time);
    if (units_ram_divisor(o->ram_unit) == 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown RAM unit '%s'; valid units: " GT_RAM_UNITS,
                       o->ram_unit ? o->ram_unit : "(null)");
    if (units_ram_divisor(o->gpu_ram_unit) == 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "unknown GPU RAM unit '%s'; valid units: " GT_RAM_UNITS,
                       o->gpu_ram_unit ? o->gpu_ram_unit : "(null)");
    if (units_time_divisor(o->time_unit) == 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown time unit '%s'; valid units: " GT_TIME_UNITS,
                       o->time_unit ? o->time_unit : "(null)");
    if (o->n_expected_cores < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid number of expected cores %d: it must be positive",
                       o->n_expected_cores);
    if (o->gpu_brand && strcmp(o->gpu_brand, "nvidia") != 0 && strcmp(o->gpu_brand, "amd") != 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "unknown GPU brand '%s'; valid brands: nvidia, amd",
                       o->gpu_brand);
    if (o->process_id < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "invalid process ID %d", (int)o->process_id);
    return GT_OK;
}

gt_status gt_tracker_new(const gt_options *opts, gt_tracker **out)
{
    gt_clear_error();
    *out = NULL;
    gt_status st = gt_options_validate(opts);
    if (st != GT_OK)
        return st;

    gt_tracker *t = calloc(1, sizeof *t);
    if (!t)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    t->tree.root_fd = -1;
    t->sys.stat_fd = t->sys.meminfo_fd = -1;
    t->opts = *opts;
    int failed = 0;
    t->ram_unit = dup_or_null(opts->ram_unit, &failed);
    t->gpu_ram_unit = dup_or_null(opts->gpu_ram_unit, &failed);
    t->time_unit = dup_or_null(opts->time_unit, &failed);
    t->gpu_uuids = dup_or_null(opts->gpu_uuids, &failed);
    t->gpu_brand = dup_or_null(opts->gpu_brand, &failed);
    t->proc_root = dup_or_null(opts->proc_root ? opts->proc_root : "/proc", &failed);
    pthread_mutex_init(&t->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&t->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (failed) {
        gt_tracker_free(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    t->opts.ram_unit = t->ram_unit;
    t->opts.gpu_ram_unit = t->gpu_ram_unit;
    t->opts.time_unit = t->time_unit;
    t->opts.gpu_uuids = t->gpu_uuids;
    t->opts.gpu_brand = t->gpu_brand;
    t->opts.proc_root = t->proc_root;
    t->pid = opts->process_id ? opts->process_id : getpid();

    const char *what = "";
    struct sys_cpu cpu;
    struct meminfo mem;
    if (system_open(&t->sys, t->proc_root, &cpu, &mem, &what) < 0) {
        int e = errno;
        gt_tracker_free(t);
        return gt_fail(e == EINVAL ? GT_ERR_PARSE : GT_ERR_IO, "cannot read %s/%s: %s",
                       opts->proc_root ? opts->proc_root : "/proc", what,
                       e == EINVAL ? "malformed contents" : strerror(e));
    }
    if (tree_init(&t->tree, t->proc_root, t->pid, opts->reaper_pid) < 0) {
        int e = errno;
        gt_tracker_free(t);
        if (e == ENOENT || e == ESRCH)
            return gt_fail(GT_ERR_NO_PROCESS, "no process with PID %d", (int)(opts->process_id
                           ? opts->process_id : getpid()));
        return gt_fail(GT_ERR_IO, "cannot open %s: %s", opts->proc_root ? opts->proc_root : "/proc",
                       strerror(e));
    }

    t->units.ram_unit = t->ram_unit;
    t->units.gpu_ram_unit = t->gpu_ram_unit;
    t->units.time_unit = t->time_unit;
    t->units.ram_divisor = units_ram_divisor(t->ram_unit);
    t->units.gpu_ram_divisor = units_ram_divisor(t->gpu_ram_unit);
    t->units.time_divisor = units_time_divisor(t->time_unit);
    t->units.system_core_count = cpu.ncpu;
    t->units.n_expected_cores = opts->n_expected_cores > 0 ? opts->n_expected_cores : cpu.ncpu;
    long tck = sysconf(_SC_CLK_TCK);
    usage_init(&t->acc, opts->sleep_time, tck > 0 ? (double)tck : 100.0);
    t->state = STATE_NEW;
    *out = t;
    return GT_OK;
}

/* One sample of everything; returns its time. Caller holds the lock. */
static double sample_locked(gt_tracker *t)
{
    double now = monotonic_now();
    struct sys_cpu cpu;
    struct meminfo mem;
    const char *what = "";
    int sys_ok = system_read(&t->sys, &cpu, &mem, &what) == 0;
    if (!sys_ok && !t->warned_sys) {
        t->warned_sys = 1;
        warn(t, "cannot read %s/%s (%s); system-wide figures leave out the samples where it "
             "fails", t->proc_root, what,
             errno == EINVAL ? "malformed contents" : strerror(errno));
    }
    struct tree_sample ts;
    int tree_ok = tree_walk(&t->tree, &ts) == 0;
    if (!tree_ok && !t->warned_tree) {
        t->warned_tree = 1;
        warn(t, "cannot walk the process tree of PID %d: %s", (int)t->pid, strerror(errno));
    }
    if (t->tree.fd_exhausted && !t->warned_fds) {
        t->warned_fds = 1;
        warn(t, "too many open files: some processes of the tree are not counted (raise the "
             "limit with ulimit -n)");
    }
    usage_add(&t->acc, now, tree_ok ? &ts : NULL, sys_ok ? &cpu : NULL, sys_ok ? &mem : NULL);
    return now;
}

static struct timespec to_timespec(double seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

static void *sampler_main(void *arg)
{
    gt_tracker *t = arg;
    double interval = t->opts.sleep_time;
    pthread_mutex_lock(&t->lock);
    for (long k = 1; !t->stop_requested;) {
        struct timespec deadline = to_timespec(t->start_time + (double)k * interval);
        int rc = 0;
        while (!t->stop_requested && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&t->wake, &t->lock, &deadline);
        if (t->stop_requested)
            break;
        sample_locked(t);
        /* Next deadline on the schedule; deadlines already past are skipped. */
        long due = (long)floor((monotonic_now() - t->start_time) / interval) + 1;
        k = due > k + 1 ? due : k + 1;
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

gt_status gt_tracker_start(gt_tracker *t)
{
    gt_clear_error();
    if (t->state != STATE_NEW)
        return gt_fail(GT_ERR_STATE, t->state == STATE_STARTED
                       ? "cannot start a tracker that has already been started"
                       : "cannot start a tracker that has already been stopped");
    gpu_probe(t->gpu_brand, t->gpu_reason, sizeof t->gpu_reason);
    warn(t, "%s: GPU RAM and GPU utilization are reported as 0", t->gpu_reason);

    /* Compute time runs from the baseline sample to the final one, the same
     * span the CPU means are measured over. */
    pthread_mutex_lock(&t->lock);
    t->start_time = sample_locked(t);
    pthread_mutex_unlock(&t->lock);

    /* The sampling thread takes no signals: they belong to the program. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t->thread, NULL, sampler_main, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return gt_fail(GT_ERR_SYSTEM, "cannot start the sampling thread: %s", strerror(rc));
    t->thread_running = 1;
    t->state = STATE_STARTED;
    return GT_OK;
}

static void join_sampler(gt_tracker *t)
{
    if (!t->thread_running)
        return;
    pthread_mutex_lock(&t->lock);
    t->stop_requested = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    t->thread_running = 0;
}

gt_status gt_tracker_stop(gt_tracker *t)
{
    gt_clear_error();
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has not been started");
    if (t->state == STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has already been stopped");
    join_sampler(t);
    pthread_mutex_lock(&t->lock);
    t->stop_time = sample_locked(t);
    t->state = STATE_STOPPED;
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

gt_status gt_tracker_add_reaped(gt_tracker *t, pid_t pid, const struct rusage *ru)
{
    gt_clear_error();
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot add a reaped process before the tracker is started");
    if (!ru)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "no resource usage given for PID %d", (int)pid);
    pthread_mutex_lock(&t->lock);
    int is_main = pid == t->pid;
    /* main's ru_maxrss covers the children it reaped too; it is main's own
     * only if main reaped none (no faults of reaped children, as last read). */
    int own_only = is_main && tree_main_reaped_nothing(&t->tree);
    if (ru->ru_maxrss > 0)
        usage_add_reaped(&t->acc, is_main, own_only, (unsigned long long)ru->ru_maxrss);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

const gt_resource_usage *gt_tracker_usage(gt_tracker *t)
{
    gt_clear_error();
    if (t->state != STATE_STOPPED) {
        gt_fail(GT_ERR_STATE, t->state == STATE_NEW
                ? "no results: the tracker has not been started"
                : "no results yet: the tracker has not been stopped");
        return NULL;
    }
    pthread_mutex_lock(&t->lock);
    usage_result(&t->acc, &t->units, t->stop_time - t->start_time, &t->usage);
    t->usage.measurement.gpu_available = 0;
    snprintf(t->usage.measurement.gpu_reason, sizeof t->usage.measurement.gpu_reason, "%s",
             t->gpu_reason);
    pthread_mutex_unlock(&t->lock);
    return &t->usage;
}

char *gt_tracker_to_text(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    return u ? gt_usage_to_text(u) : NULL;
}

char *gt_tracker_to_json(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    return u ? gt_usage_to_json(u) : NULL;
}

void gt_tracker_free(gt_tracker *t)
{
    if (!t)
        return;
    join_sampler(t);
    tree_free(&t->tree);
    system_close(&t->sys);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->lock);
    free(t->ram_unit);
    free(t->gpu_ram_unit);
    free(t->time_unit);
    free(t->gpu_uuids);
    free(t->gpu_brand);
    free(t->proc_root);
    free(t);
}
