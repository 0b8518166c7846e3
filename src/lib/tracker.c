/* tracker.c - the tracker's lifecycle: options, the sampling thread on an
 * absolute schedule (start + k * sleep_time, so a slow sample never shifts
 * the later ones), the backup file, stop, and results.
 *
 * Threads and ownership. The readers (tree, system) belong to whoever
 * samples: the sampling thread while it runs, the caller of stop() once the
 * thread has finished. The lock guards only what both sides touch (the
 * aggregates, the flags) and is never held during I/O, so a read that hangs
 * in the kernel cannot block stop() beyond its timeout. A thread that is
 * still stuck when the tracker is freed frees the tracker itself when it
 * comes back. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "background.h"
#include "cloud_info.h"
#include "file_io.h"
#include "gpu.h"
#include "procfs.h"
#include "report.h"
#include "row_store.h"
#include "series.h"
#include "snapshot.h"
#include "write_csv.h"
#include "system.h"
#include "server_info.h"
#include "stats.h"
#include "system_series.h"
#include "tree.h"
#include "units.h"
#include "usage.h"

#define DEFAULT_STOP_TIMEOUT 10.0
/* The backup file is rewritten at every sample, but not more often than about
 * once a second (at most a second of results is at risk when the job is
 * killed). A killed process leaves the page cache behind, so only a machine
 * crash needs the file on disk: it is fsynced at the first write and then at
 * most every BACKUP_FSYNC_PERIOD. An fsync cost more CPU than the write itself
 * (75 of 135 us, and 280 us of waiting, measured on the development VM). */
#define BACKUP_PERIOD 1.0
#define BACKUP_FSYNC_PERIOD 30.0
#define PID_NAMESPACE_REASON \
    "gpu-tracker runs in a PID namespace (a container): the driver's process IDs are the host's"

/* 1 when we run in a PID namespace other than the host's (a container): the
 * initial PID namespace always has inode 4026531836 (PROC_PID_INIT_INO). */
static int in_pid_namespace(void)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
    if (n <= 0)
        return 0; /* cannot tell: assume the host's */
    link[n] = '\0';
    return strcmp(link, "pid:[4026531836]") != 0;
}

/* The PID that <proc_root>/self names, or 0 when there is no such link (a
 * fixture tree). A procfs mounted for another PID namespace (the host's
 * /proc inside `unshare --pid --fork`) names us by another number: every
 * PID in it is then someone else's. */
static pid_t procfs_self_pid(const char *proc_root)
{
    char path[4096], link[32];
    snprintf(path, sizeof path, "%s/self", proc_root);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    char *end;
    long pid = strtol(link, &end, 10);
    return *end == '\0' && pid > 0 ? (pid_t)pid : 0;
}

enum state { STATE_NEW, STATE_STARTED, STATE_STOPPED };

struct gt_tracker {
    gt_options opts; /* its strings point at our own copies below */
    char *ram_unit, *gpu_ram_unit, *time_unit, *gpu_uuids, *gpu_brand, *proc_root, *sys_root;
    char *backup_path; /* NULL: no backup file */
    /* The backup file, resolved once (file_io.h): its directory stays the
     * one checked at the start, whatever happens to the path meanwhile.
     * dirfd -1: none (no backup_path, or it could not be resolved, then
     * backup_error says why). */
    struct output_target backup;
    char backup_error[512];
    struct usage_units units;
    pid_t pid;
    int self;          /* tracking the calling process: leave our threads out */
    pid_t owner;       /* the process that made the tracker (see fork in api.md) */

    enum state state;  /* changed only by the API calls */
    pthread_t thread;
    int thread_started;
    double start_time;

    /* Owned by whoever samples (see the file comment). */
    struct tree tree;
    struct system_reader sys;
    struct gpu gpu;    /* gpu.backend NULL: no GPU figures (gpu.reason says why) */
    int gpu_failed;    /* the driver failed mid-run: no more GPU samples */
    int in_pid_namespace; /* the driver's PIDs cannot be matched to ours */
    int warned_tree, warned_sys, warned_fds, warned_backup, warned_unreadable;
    double last_backup;
    double last_backup_fsync; /* 0: the file was never fsynced */

    /* The series (see series.h): the readings of the previous sample. */
    double ticks_per_second;
    double epoch_start;               /* wall clock of the baseline sample */
    struct system_series_reader sysx; /* disks, interfaces, filesystems */
    struct system_series_sample sysx_prev, sysx_cur;
    int have_proc_prev, have_sys_prev;
    double proc_prev_time, sys_prev_time;
    struct process_reading proc_prev;
    struct system_reading sys_prev;
    int csv_failed_process, csv_failed_system, warned_series_memory;
    struct cloud_discovery *cloud;    /* options.discover_cloud: running, until a snapshot */
    gt_cloud_info cloud_result;       /* what it found (asked = 0: not asked yet) */
    gt_server_info server;            /* taken for the first snapshot or report */
    int have_server;
    double epoch_stop;                /* wall clock of the final sample */

    pthread_mutex_t lock; /* guards everything below */
    pthread_cond_t wake;  /* to the sampling thread: stop */
    pthread_cond_t done;  /* from the sampling thread: finished */
    int stop_requested, thread_done, orphaned, backup_off;
    struct usage_acc acc;
    struct row_store store; /* the rows: the newest in memory, the rest on disk */
    /* gt_tracker_series() copies every row into memory, once, on demand. */
    gt_process_row *all_process;
    gt_system_row *all_system;
    int duration_done; /* sampling reached options.duration and ended */
    double lateness_sum, lateness_max; /* seconds past each periodic sample's deadline */
    long lateness_n;
    long skipped;      /* scheduled samples skipped: the one before overran */
    /* stop() gave up on a stuck sampling thread: the rows are the caller's
     * to read now, and the descriptors may be closed: add and write none. */
    int series_frozen;
    double stop_time;
    char gpu_reason[256];  /* why GPU figures are missing ("" if they are not) */
    /* The backend's reasons for missing extras, copied at each sample. */
    char gpu_proc_memory_reason[GT_REASON_LEN], gpu_proc_util_reason[GT_REASON_LEN],
        gpu_energy_reason[GT_REASON_LEN];
    gt_resource_usage usage;
};

void gt_options_init(gt_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->sleep_time = 1.0;
    opts->ram_unit = "gigabytes";
    opts->gpu_ram_unit = "gigabytes";
    opts->time_unit = "hours";
    opts->proc_root = "/proc";
    opts->sys_root = "/sys";
    opts->stop_timeout = DEFAULT_STOP_TIMEOUT;
    opts->process_csv_fd = -1;
    opts->system_csv_fd = -1;
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
    if (!(o->sleep_time >= GT_SLEEP_TIME_MIN && o->sleep_time <= GT_SLEEP_TIME_MAX))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid sleep time %g: it must be from %g to %g seconds", o->sleep_time,
                       GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
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
    if (!(o->stop_timeout > 0 && o->stop_timeout <= GT_STOP_TIMEOUT_MAX))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid stop timeout %g: it must be more than 0 and at most %g seconds",
                       o->stop_timeout, GT_STOP_TIMEOUT_MAX);
    if (o->series & ~(GT_SERIES_PROCESS | GT_SERIES_SYSTEM))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid series %d; valid: 0, GT_SERIES_PROCESS, GT_SERIES_SYSTEM or both",
                       o->series);
    if (!(o->duration >= 0 && o->duration <= GT_DURATION_MAX))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid duration %g: it must be 0 (none) or from the sleep time to %.0f "
                       "seconds (366 days)", o->duration, GT_DURATION_MAX);
    if (o->duration > 0 && o->duration < o->sleep_time)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "duration %g s is shorter than one interval (%g s): no row would come",
                       o->duration, o->sleep_time);
    return GT_OK;
}

/* ".gpu-tracker_<random UUID>.json" in the working directory, as gpu_tracker
 * names its pickle. */
static char *default_backup_path(void)
{
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* Entropy is not ready this early in boot: time and pid will do. */
        unsigned long long x = (unsigned long long)(monotonic_now() * 1e9) ^ (unsigned long long)getpid();
        for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
            r[i] = (unsigned char)(x >> 56);
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* UUID version 4 */
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
    char *p = NULL;
    if (asprintf(&p,
                 ".gpu-tracker_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x.json",
                 r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                 r[13], r[14], r[15]) < 0)
        return NULL;
    return p;
}

static void free_strings(gt_tracker *t)
{
    output_target_close(&t->backup);
    free(t->ram_unit);
    free(t->gpu_ram_unit);
    free(t->time_unit);
    free(t->gpu_uuids);
    free(t->gpu_brand);
    free(t->proc_root);
    free(t->sys_root);
    free(t->backup_path);
}

/* 1 in the process that made t; 0 in a child made by fork() since. */
static int owned_here(const gt_tracker *t)
{
    return t->owner == getpid();
}

/* GT_ERR_STATE for a call on a tracker inherited through fork(). */
static gt_status forked_copy_error(const gt_tracker *t)
{
    return gt_fail(GT_ERR_STATE, "this tracker belongs to process %d: a child made by fork() "
                   "may only gt_tracker_free() its copy", (int)t->owner);
}

/* The tracker's own memory and descriptors: what the process that made it
 * and a child made by fork() both release. */
static void release_resources(gt_tracker *t)
{
    tree_free(&t->tree);
    system_close(&t->sys);
    system_series_close(&t->sysx);
    system_series_sample_free(&t->sysx_prev);
    system_series_sample_free(&t->sysx_cur);
    row_store_free(&t->store);
    free(t->all_process);
    free(t->all_system);
}

static void destroy(gt_tracker *t)
{
    gpu_close(&t->gpu);
    if (t->cloud) {
        gt_cloud_info ignored;
        cloud_discovery_finish(t->cloud, 0, &ignored); /* it frees itself when it ends */
    }
    release_resources(t);
    pthread_cond_destroy(&t->wake);
    pthread_cond_destroy(&t->done);
    pthread_mutex_destroy(&t->lock);
    free_strings(t);
    free(t);
}

/* Opening a GPU library runs its init (nvmlInit, rsmi_init), which can hang
 * for a long time on a GPU in a bad state: it runs as a background job. */
struct gpu_opener {
    char *brand, *uuids;
    struct gpu gpu;
    enum gpu_open_result result;
    char err[512];
};

static void gpu_opener_free(struct gpu_opener *o)
{
    free(o->brand);
    free(o->uuids);
    free(o);
}

static void gpu_opener_run(void *arg)
{
    struct gpu_opener *o = arg;
    o->result = gpu_open(&o->gpu, o->brand, o->uuids, o->err, sizeof o->err);
}

/* An opener given up on: its GPU is nobody's. */
static void gpu_opener_drop(void *arg)
{
    struct gpu_opener *o = arg;
    gpu_close(&o->gpu);
    gpu_opener_free(o);
}

/* gpu_open() for t, waiting at most timeout seconds. */
static enum gpu_open_result open_gpus(gt_tracker *t, double timeout, char *err, size_t errcap)
{
    struct gpu_opener *o = calloc(1, sizeof *o);
    int failed = !o;
    if (o) {
        o->brand = dup_or_null(t->gpu_brand, &failed);
        o->uuids = dup_or_null(t->gpu_uuids, &failed);
    }
    struct background *job = failed ? NULL : background_start("gt:gpu-open", gpu_opener_run, o, gpu_opener_drop);
    if (!job) {
        if (o)
            gpu_opener_free(o);
        /* No thread to spare: open it here, hang or not. */
        return gpu_open(&t->gpu, t->gpu_brand, t->gpu_uuids, err, errcap);
    }
    if (!background_wait(job, timeout)) {
        memset(&t->gpu, 0, sizeof t->gpu);
        snprintf(t->gpu.reason, sizeof t->gpu.reason,
                 "the GPU library did not answer within %g s", timeout);
        if (t->gpu_uuids) {
            snprintf(err, errcap, "cannot check the GPU UUIDs: %s", t->gpu.reason);
            return GPU_BAD_UUIDS;
        }
        return GPU_UNAVAILABLE;
    }
    t->gpu = o->gpu; /* the opener's GPU is ours now */
    snprintf(err, errcap, "%s", o->err);
    enum gpu_open_result r = o->result;
    gpu_opener_free(o);
    return r;
}

/* The backend's reasons for missing figures, for readers of the results.
 * Caller holds the lock (and owns t->gpu). */
static void copy_gpu_reasons_locked(gt_tracker *t)
{
    const char *none = t->gpu_reason[0] ? t->gpu_reason : NULL;
    snprintf(t->gpu_proc_memory_reason, GT_REASON_LEN, "%s",
             none ? none : t->in_pid_namespace ? PID_NAMESPACE_REASON : t->gpu.proc_memory_reason);
    snprintf(t->gpu_proc_util_reason, GT_REASON_LEN, "%s",
             none ? none : t->in_pid_namespace ? PID_NAMESPACE_REASON : t->gpu.proc_util_reason);
    snprintf(t->gpu_energy_reason, GT_REASON_LEN, "%s", none ? none : t->gpu.energy_reason);
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
    t->backup.dirfd = -1;
    row_store_init(&t->store); /* before anything can fail: destroy() frees it */
    t->tree.root_fd = -1; /* tree_free() and system_close() are safe before init */
    t->sys.stat_fd = t->sys.meminfo_fd = -1;
    t->sysx.sys_block_fd = t->sysx.sys_net_fd = t->sysx.diskstats_fd = t->sysx.netdev_fd = -1;
    t->opts = *opts;
    /* A descriptor to write a series to asks for that series. */
    if (opts->process_csv_fd >= 0)
        t->opts.series |= GT_SERIES_PROCESS;
    if (opts->system_csv_fd >= 0)
        t->opts.series |= GT_SERIES_SYSTEM;
    int failed = 0;
    t->ram_unit = dup_or_null(opts->ram_unit, &failed);
    t->gpu_ram_unit = dup_or_null(opts->gpu_ram_unit, &failed);
    t->time_unit = dup_or_null(opts->time_unit, &failed);
    t->gpu_uuids = dup_or_null(opts->gpu_uuids, &failed);
    t->gpu_brand = dup_or_null(opts->gpu_brand, &failed);
    t->proc_root = dup_or_null(opts->proc_root ? opts->proc_root : "/proc", &failed);
    t->sys_root = dup_or_null(opts->sys_root ? opts->sys_root : "/sys", &failed);
    if (!opts->resource_usage_file)
        failed |= !(t->backup_path = default_backup_path());
    else if (*opts->resource_usage_file)
        t->backup_path = dup_or_null(opts->resource_usage_file, &failed);
    pthread_mutex_init(&t->lock, NULL);
    cond_init_monotonic(&t->wake);
    cond_init_monotonic(&t->done);
    if (failed) {
        destroy(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    t->opts.ram_unit = t->ram_unit;
    t->opts.gpu_ram_unit = t->gpu_ram_unit;
    t->opts.time_unit = t->time_unit;
    t->opts.gpu_uuids = t->gpu_uuids;
    t->opts.gpu_brand = t->gpu_brand;
    t->opts.proc_root = t->proc_root;
    t->opts.sys_root = t->sys_root;
    t->opts.resource_usage_file = t->backup_path;
    if (t->backup_path && output_resolve(t->backup_path, &t->backup) != GT_OK)
        snprintf(t->backup_error, sizeof t->backup_error, "%s", gt_last_error());
    t->owner = getpid();
    t->pid = opts->process_id ? opts->process_id : t->owner;
    t->self = t->pid == getpid();

    pid_t self_there = procfs_self_pid(t->proc_root);
    if (self_there > 0 && self_there != t->owner) {
        gt_status ns_err = gt_fail(GT_ERR_IO, "%s belongs to another PID namespace (%s/self is PID %d "
                               "there, but this process is PID %d here): its PIDs name other "
                               "processes; mount a procfs of this namespace (unshare "
                               "--mount-proc) or run outside it", t->proc_root, t->proc_root,
                               (int)self_there, (int)t->owner);
        destroy(t);
        return ns_err;
    }
    const char *what = "";
    struct sys_cpu cpu;
    struct meminfo mem;
    if (system_open(&t->sys, t->proc_root, &cpu, &mem, &what) < 0) {
        int e = errno;
        destroy(t);
        return gt_fail(e == EINVAL ? GT_ERR_PARSE : GT_ERR_IO, "cannot read %s/%s: %s",
                       opts->proc_root ? opts->proc_root : "/proc", what,
                       e == EINVAL ? "malformed contents" : strerror(e));
    }
    if (tree_init(&t->tree, t->proc_root, t->pid, opts->reaper_pid) < 0) {
        int e = errno;
        pid_t pid = t->pid;
        destroy(t);
        if (e == ENOENT || e == ESRCH)
            return gt_fail(GT_ERR_NO_PROCESS, "no process with PID %d", (int)pid);
        return gt_fail(GT_ERR_IO, "cannot open %s: %s", opts->proc_root ? opts->proc_root : "/proc",
                       strerror(e));
    }
    t->tree.series = (t->opts.series & GT_SERIES_PROCESS) != 0;
    t->tree.sampled_only = opts->sampled_only != 0;
    if ((t->opts.series & GT_SERIES_SYSTEM) &&
        system_series_open(&t->sysx, t->proc_root, t->sys_root) < 0) {
        destroy(t);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }

    char gpu_err[512];
    enum gpu_open_result gr = open_gpus(t, opts->stop_timeout, gpu_err, sizeof gpu_err);
    if (gr == GPU_BAD_UUIDS) {
        destroy(t);
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "%s", gpu_err);
    }
    unsigned long long gpu_capacity = 0;
    for (int i = 0; i < t->gpu.ndevices; i++)
        gpu_capacity += t->gpu.devices[i].memory_total;
    snprintf(t->gpu_reason, sizeof t->gpu_reason, "%s", gr == GPU_AVAILABLE ? "" : t->gpu.reason);
    t->in_pid_namespace = in_pid_namespace();
    copy_gpu_reasons_locked(t); /* no thread yet */

    t->units.ram_unit = t->ram_unit;
    t->units.gpu_ram_unit = t->gpu_ram_unit;
    t->units.time_unit = t->time_unit;
    t->units.ram_divisor = units_ram_divisor(t->ram_unit);
    t->units.gpu_ram_divisor = units_ram_divisor(t->gpu_ram_unit);
    t->units.time_divisor = units_time_divisor(t->time_unit);
    t->units.system_core_count = cpu.ncpu;
    t->units.n_expected_cores = opts->n_expected_cores > 0 ? opts->n_expected_cores : cpu.ncpu;
    long tck = sysconf(_SC_CLK_TCK);
    t->ticks_per_second = tck > 0 ? (double)tck : 100.0;
    usage_init(&t->acc, opts->sleep_time, t->ticks_per_second);
    t->acc.sampled_only = opts->sampled_only != 0;
    usage_set_gpus(&t->acc, gpu_capacity, t->gpu.ndevices, t->gpu.nselected);
    t->state = STATE_NEW;
    *out = t;
    return GT_OK;
}

/* Fills t->usage from the aggregates. Caller holds the lock. */
static void fill_usage_locked(gt_tracker *t, double end_time, int complete)
{
    usage_result(&t->acc, &t->units, end_time - t->start_time, &t->usage);
    t->usage.measurement.complete = complete;
    t->usage.measurement.lateness_mean_ms =
        t->lateness_n ? t->lateness_sum / (double)t->lateness_n * 1e3 : 0;
    t->usage.measurement.lateness_max_ms = t->lateness_max * 1e3;
    t->usage.measurement.skipped = t->skipped;
    t->usage.measurement.sampled_only = t->opts.sampled_only != 0;
    t->usage.measurement.gpu_available = t->gpu_reason[0] == '\0';
    gt_gpu_details *d = &t->usage.gpu_details;
    d->ndevices = t->gpu.ndevices < GT_MAX_GPUS ? t->gpu.ndevices : GT_MAX_GPUS;
    for (int i = 0; i < d->ndevices; i++) {
        snprintf(d->devices[i].uuid, sizeof d->devices[i].uuid, "%s", t->gpu.devices[i].uuid);
        snprintf(d->devices[i].name, sizeof d->devices[i].name, "%s", t->gpu.devices[i].name);
        d->devices[i].memory_total = (double)t->gpu.devices[i].memory_total / t->units.gpu_ram_divisor;
        d->devices[i].selected = t->gpu.devices[i].selected;
    }
    snprintf(d->process_memory_reason, GT_REASON_LEN, "%s", t->gpu_proc_memory_reason);
    snprintf(d->process_utilization_reason, GT_REASON_LEN, "%s", t->gpu_proc_util_reason);
    snprintf(d->energy_reason, GT_REASON_LEN, "%s", t->gpu_energy_reason);
    d->process_memory_available = !d->process_memory_reason[0];
    d->process_utilization_available = !d->process_utilization_reason[0];
    d->energy_available = !d->energy_reason[0];
    snprintf(t->usage.measurement.gpu_reason, sizeof t->usage.measurement.gpu_reason, "%s",
             t->gpu_reason);
}

/* Rewrites the backup file with the results so far (the sampling thread, or
 * start() before there is one). */
static void write_backup(gt_tracker *t, double now)
{
    pthread_mutex_lock(&t->lock);
    if (t->backup_off || t->backup.dirfd < 0) {
        pthread_mutex_unlock(&t->lock);
        return;
    }
    fill_usage_locked(t, now, 0);
    gt_resource_usage snapshot = t->usage;
    pthread_mutex_unlock(&t->lock);

    char *json = gt_usage_to_json(&snapshot);
    size_t len = json ? strlen(json) : 0;
    char *text = json ? realloc(json, len + 2) : NULL;
    gt_status st = GT_ERR_NO_MEMORY;
    if (text) {
        text[len++] = '\n';
        text[len] = '\0';
        output_target_refresh(&t->backup);
        int durable =
            t->last_backup_fsync == 0 || now - t->last_backup_fsync >= BACKUP_FSYNC_PERIOD;
        st = output_target_replace(&t->backup, t->backup_path, text, len, durable);
        if (st == GT_OK && durable)
            t->last_backup_fsync = now;
    } else {
        free(json);
        gt_fail(st, "cannot write '%s': out of memory", t->backup_path);
    }
    free(text);
    if (st != GT_OK && !t->warned_backup) {
        t->warned_backup = 1;
        warn(t, "cannot write the backup file: %s", gt_last_error());
    }
    /* A stop() that came while we wrote has already removed the file: our
     * rename may have put it back. */
    pthread_mutex_lock(&t->lock);
    if (t->backup_off)
        output_target_remove(&t->backup);
    pthread_mutex_unlock(&t->lock);
}

#define MIB (1024.0 * 1024.0)

/* The series' GPU figures from one GPU sample: the system's (every GPU) and
 * the tree's (gs: its memory and SM utilization; the GPUs where it holds
 * memory and keeps SMs busy, as bit masks). The tree's usage is its SM
 * utilization where the driver gives it; otherwise the utilization of the
 * GPUs where it holds memory (all GPUs when the library does not say which). */
static void series_gpu_figures(const struct gpu *g, const struct gpu_sample *s,
                               const struct gpu_tree_sample *gs,
                               unsigned long long memory_devices,
                               unsigned long long busy_devices, struct series_gpu *proc,
                               struct series_gpu *sys)
{
    memset(proc, 0, sizeof *proc);
    memset(sys, 0, sizeof *sys);
    sys->vram_mib = (double)s->memory_used / MIB;
    for (int d = 0; d < g->ndevices && d < GPU_MAX_DEVICES; d++)
        if (s->device_util[d] >= 0) {
            sys->usage += s->device_util[d] / 100.0;
            sys->utilized += s->device_util[d] > 0;
        }
    unsigned long long bytes = gs->main_bytes + gs->desc_bytes;
    proc->vram_mib = (double)bytes / MIB;
    if (s->proc_util_ok) {
        proc->usage = (gs->main_sm + gs->desc_sm) / 100.0;
        proc->utilized = __builtin_popcountll(busy_devices);
        return;
    }
    if (bytes > 0 && memory_devices == 0)
        memory_devices = ~0ULL; /* the library does not say which GPUs */
    for (int d = 0; d < g->ndevices && d < 64; d++)
        if ((memory_devices >> d & 1) && s->device_util[d] >= 0) {
            proc->usage += s->device_util[d] / 100.0;
            proc->utilized += s->device_util[d] > 0;
        }
}

/* Samples the GPUs and sums the GPU memory of the tree's processes (as the
 * last tree walk found them), and the series' GPU figures. -1 when there is
 * nothing to add. */
static int sample_gpus(gt_tracker *t, struct gpu_tree_sample *gs, struct series_gpu *proc,
                       struct series_gpu *sys)
{
    if (!t->gpu.backend || t->gpu_failed)
        return -1;
    struct gpu_sample s;
    if (gpu_sample(&t->gpu, &s) < 0) {
        /* A driver error mid-run: everything else goes on. */
        t->gpu_failed = 1;
        warn(t, "GPU figures stop here: %s", t->gpu.reason);
        return -1;
    }
    memset(gs, 0, sizeof *gs);
    gs->system_used = s.memory_used;
    gs->util_sum_percent = s.util_sum_percent;
    gs->proc_util_ok = s.proc_util_ok;
    gs->energy_ok = s.energy_ok;
    gs->energy_mj = s.energy_mj;
    unsigned long long memory_devices = 0, busy_devices = 0;
    for (size_t i = 0; i < s.nprocs; i++) {
        int role = tree_role_of(&t->tree, s.procs[i].pid);
        if (role == 1) {
            gs->main_bytes += s.procs[i].bytes;
            gs->main_sm += s.procs[i].sm_percent;
        } else if (role == 2) {
            gs->desc_bytes += s.procs[i].bytes;
            gs->desc_sm += s.procs[i].sm_percent;
        }
        if (role) {
            memory_devices |= s.procs[i].memory_devices;
            busy_devices |= s.procs[i].busy_devices;
        }
    }
    series_gpu_figures(&t->gpu, &s, gs, memory_devices, busy_devices, proc, sys);
    return 0;
}

/* Writes one CSV line to the series' descriptor; a failure stops that
 * series' writing with one warning (the rows stay in memory). */
static void write_csv_line(gt_tracker *t, int fd, int *failed, const char *what,
                           const char *line, size_t len)
{
    if (fd < 0 || *failed)
        return;
    while (len > 0) {
        ssize_t w = write(fd, line, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            *failed = 1;
            warn(t, "cannot write the %s series: %s; its rows are kept in memory only", what,
                 w < 0 ? strerror(errno) : "nothing written");
            return;
        }
        line += w;
        len -= (size_t)w;
    }
}

/* Adds the rows of slot k (from the previous readings to these) to the
 * store, and writes them. Called by the sampler, which owns the readings. */
static void add_rows(gt_tracker *t, long k, double now, const struct process_reading *pr,
                     const struct system_reading *sr)
{
    double ts = series_timestamp(t->epoch_start, k, t->opts.sleep_time);
    gt_process_row prow;
    gt_system_row srow;
    int have_p = pr && t->have_proc_prev && now > t->proc_prev_time;
    int have_s = sr && t->have_sys_prev && now > t->sys_prev_time;
    if (have_p)
        series_process_row(&t->proc_prev, pr, now - t->proc_prev_time, t->ticks_per_second, ts,
                           t->pid, &prow);
    if (have_s)
        series_system_row(&t->sys_prev, sr, now - t->sys_prev_time, t->ticks_per_second, ts,
                          &srow);
    pthread_mutex_lock(&t->lock);
    int frozen = t->series_frozen;
    int full[2] = {0, 0}, lost = 0;
    if (!frozen && have_p)
        full[GT_SERIES_KIND_PROCESS] = row_store_add(&t->store, GT_SERIES_KIND_PROCESS, &prow);
    if (!frozen && have_s)
        full[GT_SERIES_KIND_SYSTEM] = row_store_add(&t->store, GT_SERIES_KIND_SYSTEM, &srow);
    lost = full[0] < 0 || full[1] < 0;
    pthread_mutex_unlock(&t->lock);
    if (frozen)
        return;
    if (lost && !t->warned_series_memory) {
        t->warned_series_memory = 1;
        warn(t, "out of memory: some rows of the series are only in the CSV output");
    }
    /* A full batch goes to the row file, written without the lock: a disk
     * that hangs must not keep stop() waiting beyond its timeout. */
    for (int kind = 0; kind < 2; kind++) {
        if (full[kind] != 1)
            continue;
        int rc = row_store_flush(&t->store, (gt_series_kind)kind);
        pthread_mutex_lock(&t->lock);
        int first_failure =
            !t->series_frozen && row_store_commit(&t->store, (gt_series_kind)kind, rc);
        pthread_mutex_unlock(&t->lock);
        if (first_failure)
            warn(t, "%s; the rows are kept in memory instead", t->store.spill_error);
    }
    char line[SERIES_CSV_ROW_MAX];
    if (have_p)
        write_csv_line(t, t->opts.process_csv_fd, &t->csv_failed_process, "process", line,
                       series_process_csv_row(&prow, line));
    if (have_s)
        write_csv_line(t, t->opts.system_csv_fd, &t->csv_failed_system, "system", line,
                       series_system_csv_row(&srow, line));
}

/* The series' part of a sample: readings from this sample, the rows of
 * slot (when > 0), and the readings kept for the next row. tree or cpu is
 * NULL when it could not be read: that series gets no row for this slot and
 * starts again from its next reading. */
static void series_step(gt_tracker *t, long slot, double now, const struct tree_sample *tree,
                        const struct sys_cpu *cpu, const struct meminfo *mem,
                        const struct series_gpu *proc_gpu, const struct series_gpu *sys_gpu)
{
    struct process_reading pr;
    struct system_reading sr;
    int want_p = (t->opts.series & GT_SERIES_PROCESS) && tree;
    int want_s = (t->opts.series & GT_SERIES_SYSTEM) != 0;
    if (want_p) {
        memset(&pr, 0, sizeof pr);
        pr.utime_ticks = tree->utime_ticks;
        pr.stime_ticks = tree->stime_ticks;
        pr.read_bytes = tree->read_bytes;
        pr.write_bytes = tree->write_bytes;
        pr.pss_kb = tree->pss_kb;
        pr.children = tree->children;
        pr.gpu = *proc_gpu;
    }
    if (want_s) {
        memset(&sr, 0, sizeof sr);
        sr.cpu_ok = cpu != NULL;
        if (cpu) {
            sr.cpu = *cpu;
            sr.mem = *mem;
        }
        if (system_series_read(&t->sysx, &t->sysx_cur) < 0 && !t->warned_series_memory) {
            t->warned_series_memory = 1;
            warn(t, "out of memory reading the system's disks and interfaces");
        }
        sr.extra = &t->sysx_cur;
        sr.gpu = *sys_gpu;
    }
    if (slot > 0)
        add_rows(t, slot, now, want_p ? &pr : NULL, want_s ? &sr : NULL);
    t->have_proc_prev = want_p;
    if (want_p) {
        t->proc_prev = pr;
        t->proc_prev_time = now;
    }
    if (want_s) {
        system_series_sample_swap(&t->sysx_prev, &t->sysx_cur);
        t->sys_prev = sr;
        t->sys_prev.extra = &t->sysx_prev;
        t->sys_prev_time = now;
        t->have_sys_prev = 1;
    }
}

static unsigned long long ticks_minus(unsigned long long a, unsigned long long b)
{
    return a > b ? a - b : 0;
}

/* One sample of everything; returns its time. The caller owns the readers
 * (the sampling thread, or stop() after it); in_sampler says which. slot is
 * the sample's place on the schedule: 0 the baseline, k > 0 the one at
 * start + k * sleep_time (which makes the series' rows), -1 the final one
 * at stop (no row: it is not on the schedule). */
static double take_sample(gt_tracker *t, int in_sampler, long slot)
{
    double now = monotonic_now();
    if (slot == 0) {
        struct timespec wall;
        clock_gettime(CLOCK_REALTIME, &wall);
        t->epoch_start = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
    }
    struct sys_cpu cpu;
    struct meminfo mem;
    const char *what = "";
    int sys_ok = system_read(&t->sys, &cpu, &mem, &what) == 0;
    if (!sys_ok && !t->warned_sys) {
        t->warned_sys = 1;
        warn(t, "cannot read %s/%s (%s); system-wide figures leave out the samples where it "
             "fails", t->proc_root, what, errno == EINVAL ? "malformed contents" : strerror(errno));
    }
    struct tree_sample ts;
    int tree_ok = tree_walk(&t->tree, &ts) == 0;
    if (!tree_ok && !t->warned_tree) {
        t->warned_tree = 1;
        warn(t, "cannot walk the process tree of PID %d: %s", (int)t->pid, strerror(errno));
    }
    if (t->tree.nunreadable && !t->warned_unreadable) {
        t->warned_unreadable = 1;
        warn(t, "permission denied reading %s/%s (a process of another user?): what that file "
             "holds is left out of the figures; run as its owner or root to count it",
             t->proc_root, t->tree.unreadable);
    }
    if (t->tree.fd_exhausted && !t->warned_fds) {
        t->warned_fds = 1;
        warn(t, "too many open files: some processes of the tree are not counted (raise the "
             "limit with ulimit -n)");
    }
    if (tree_ok && t->self) {
        /* Tracking ourselves: the library's threads (this sampler, other
         * trackers' samplers, background jobs) are not the user's work.
         * Their ticks stay in the process's total after they end, so they
         * are taken out of every sample, the baseline included. */
        struct library_threads lib;
        library_threads_usage(&lib);
        ts.main_ticks = ticks_minus(ts.main_ticks, lib.utime + lib.stime);
        ts.utime_ticks = ticks_minus(ts.utime_ticks, lib.utime);
        ts.stime_ticks = ticks_minus(ts.stime_ticks, lib.stime);
        if (lib.others >= 0)
            ts.main_threads = lib.others;
    }
    struct gpu_tree_sample gs;
    struct series_gpu proc_gpu = {0}, sys_gpu = {0};
    int gpu_ok = tree_ok && sample_gpus(t, &gs, &proc_gpu, &sys_gpu) == 0;
    pthread_mutex_lock(&t->lock);
    usage_add(&t->acc, now, tree_ok ? &ts : NULL, sys_ok ? &cpu : NULL, sys_ok ? &mem : NULL,
              gpu_ok ? &gs : NULL);
    copy_gpu_reasons_locked(t);
    pthread_mutex_unlock(&t->lock);

    if (slot >= 0 && t->opts.series)
        series_step(t, slot, now, tree_ok ? &ts : NULL, sys_ok ? &cpu : NULL, &mem, &proc_gpu,
                    &sys_gpu);

    /* Half an interval of slack, so that at sleep_time >= BACKUP_PERIOD
     * schedule jitter never skips a write. */
    if (in_sampler && t->backup.dirfd >= 0 &&
        now - t->last_backup >= BACKUP_PERIOD - t->opts.sleep_time / 2) {
        t->last_backup = now;
        write_backup(t, now);
    }
    return now;
}

static void *sampler_main(void *arg)
{
    gt_tracker *t = arg;
    double interval = t->opts.sleep_time;
    /* With a duration, the last slot is the one at start + duration. */
    long last_slot = t->opts.duration > 0 ? (long)floor(t->opts.duration / interval + 1e-9) : -1;
    pthread_mutex_lock(&t->lock);
    for (long k = 1; !t->stop_requested;) {
        if (last_slot >= 0 && k > last_slot) {
            t->duration_done = 1;
            break;
        }
        struct timespec deadline = to_timespec(t->start_time + (double)k * interval);
        int rc = 0;
        while (!t->stop_requested && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&t->wake, &t->lock, &deadline);
        if (t->stop_requested)
            break;
        double late = monotonic_now() - (t->start_time + (double)k * interval);
        if (late < 0)
            late = 0;
        t->lateness_sum += late;
        if (late > t->lateness_max)
            t->lateness_max = late;
        t->lateness_n++;
        pthread_mutex_unlock(&t->lock);
        take_sample(t, 1, k);
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

gt_status gt_tracker_start(gt_tracker *t)
{
    gt_clear_error();
    if (!owned_here(t))
        return forked_copy_error(t);
    if (t->state != STATE_NEW)
        return gt_fail(GT_ERR_STATE, t->state == STATE_STARTED
                       ? "cannot start a tracker that has already been started"
                       : "cannot start a tracker that has already been stopped");
    if (t->gpu_reason[0])
        warn(t, "%s: GPU RAM and GPU utilization are reported as 0", t->gpu_reason);
    if (t->opts.discover_cloud)
        t->cloud = cloud_discovery_start(); /* in the background: never delays tracking */

    /* Compute time runs from the baseline sample to the final one, the same
     * span the CPU means are measured over. */
    if (t->opts.process_csv_fd >= 0)
        write_csv_line(t, t->opts.process_csv_fd, &t->csv_failed_process, "process",
                       series_process_csv_header, strlen(series_process_csv_header));
    if (t->opts.system_csv_fd >= 0)
        write_csv_line(t, t->opts.system_csv_fd, &t->csv_failed_system, "system",
                       series_system_csv_header, strlen(series_system_csv_header));
    t->start_time = t->last_backup = take_sample(t, 0, 0);
    if (t->backup_error[0]) {
        t->warned_backup = 1;
        warn(t, "cannot write the backup file: %s", t->backup_error);
    }
    write_backup(t, t->start_time); /* no thread yet: ours to call */

    int rc = start_library_thread(&t->thread, "gt:sampler", sampler_main, t);
    if (rc != 0) {
        output_target_remove(&t->backup);
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
    pthread_cond_signal(&t->wake);
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
    if (!owned_here(t))
        return forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has not been started");
    if (t->state == STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, "cannot stop a tracker that has already been stopped");
    double stop_time;
    if (stop_sampler(t, t->opts.stop_timeout)) {
        stop_time = take_sample(t, 0, -1); /* the readers are ours now */
    } else {
        /* Stuck in a system call: the readers are still in its hands. The
         * results are those of the samples it finished. */
        stop_time = monotonic_now();
        warn(t, "the sampling thread did not stop within %g s; the results are those of the "
             "samples taken before", t->opts.stop_timeout);
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    t->epoch_stop = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
    pthread_mutex_lock(&t->lock);
    t->series_frozen = 1;
    t->stop_time = stop_time;
    t->backup_off = 1;
    output_target_remove(&t->backup); /* a clean stop: no backup needed */
    pthread_mutex_unlock(&t->lock);
    t->state = STATE_STOPPED;
    return GT_OK;
}

gt_status gt_tracker_add_reaped(gt_tracker *t, pid_t pid, const struct rusage *ru)
{
    gt_clear_error();
    if (!owned_here(t))
        return forked_copy_error(t);
    if (t->state == STATE_NEW)
        return gt_fail(GT_ERR_STATE, "cannot add a reaped process before the tracker is started");
    if (!ru)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "no resource usage given for PID %d", (int)pid);
    pthread_mutex_lock(&t->lock);
    if (ru->ru_maxrss > 0)
        usage_add_reaped(&t->acc, pid == t->pid, (unsigned long long)ru->ru_maxrss);
    pthread_mutex_unlock(&t->lock);
    return GT_OK;
}

const gt_resource_usage *gt_tracker_usage(gt_tracker *t)
{
    gt_clear_error();
    if (!owned_here(t)) {
        forked_copy_error(t);
        return NULL;
    }
    if (t->state != STATE_STOPPED) {
        gt_fail(GT_ERR_STATE, t->state == STATE_NEW
                ? "no results: the tracker has not been started"
                : "no results yet: the tracker has not been stopped");
        return NULL;
    }
    pthread_mutex_lock(&t->lock);
    fill_usage_locked(t, t->stop_time, 1);
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
    memset(out, 0, sizeof *out);
    if (!owned_here(t))
        return forked_copy_error(t);
    if (t->state != STATE_STOPPED)
        return gt_fail(GT_ERR_STATE, t->state == STATE_NEW
                       ? "no series: the tracker has not been started"
                       : "no series yet: the tracker has not been stopped");
    out->interval = t->opts.sleep_time;
    out->start_time = t->epoch_start;
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
    out->process_csv_failed = t->csv_failed_process;
    out->system_csv_failed = t->csv_failed_system;
    return GT_OK;
}

int gt_tracker_wait(gt_tracker *t, double timeout)
{
    gt_clear_error();
    if (!owned_here(t)) {
        forked_copy_error(t);
        return 0;
    }
    if (t->state != STATE_STARTED || !(t->opts.duration > 0))
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

/* At most this long for the cloud discovery to end: its requests time out
 * after 1 s each, and AWS asks up to four. */
#define CLOUD_WAIT_SECONDS 8.0

/* Everything of a snapshot of a stopped t but its rows (series: counts and
 * interval only, no arrays); server and cloud information are taken once
 * and kept for the next call. command is copied into s->command. */
static gt_status snapshot_meta(gt_tracker *t, const char *command, int exit_status,
                               gt_snapshot *s, struct row_source *rows)
{
    memset(s, 0, sizeof *s);
    const gt_resource_usage *u = gt_tracker_usage(t);
    if (!u)
        return GT_ERR_STATE;
    row_store_source(&t->store, rows);
    if (!t->have_server) {
        server_info_collect(&t->server, t->proc_root, t->sys_root, &t->gpu);
        snprintf(t->server.allocation, sizeof t->server.allocation, "%s",
                 stats_allocation_of_rows(rows));
        t->have_server = 1;
    }
    if (t->opts.discover_cloud && t->cloud) {
        cloud_discovery_finish(t->cloud, CLOUD_WAIT_SECONDS, &t->cloud_result);
        t->cloud = NULL;
    }
    s->command = strdup(command ? command : "");
    if (!s->command)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    s->format_version = GT_SNAPSHOT_FORMAT;
    snprintf(s->tracker_version, sizeof s->tracker_version, "%s", gt_version());
    s->pid = (int)t->pid;
    s->interval = t->opts.sleep_time;
    s->start_time = t->epoch_start;
    s->stop_time = t->epoch_stop;
    s->duration = t->epoch_stop - t->epoch_start;
    s->exit_status = exit_status;
    s->usage = *u;
    s->server = t->server;
    snprintf(s->host, sizeof s->host, "%s", s->server.hostname);
    s->cloud = t->cloud_result;
    s->series.interval = t->opts.sleep_time;
    s->series.start_time = t->epoch_start;
    s->series.nprocess = rows->count[GT_SERIES_KIND_PROCESS];
    s->series.nsystem = rows->count[GT_SERIES_KIND_SYSTEM];
    return GT_OK;
}

gt_status gt_tracker_snapshot(gt_tracker *t, const char *command, int exit_status,
                              gt_snapshot **out)
{
    *out = NULL;
    gt_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    struct row_source rows;
    gt_status st = snapshot_meta(t, command, exit_status, s, &rows);
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

gt_status gt_tracker_write_snapshot(gt_tracker *t, const char *command, int exit_status,
                                    const char *path)
{
    gt_clear_error();
    gt_snapshot s;
    struct row_source rows;
    gt_status st = snapshot_meta(t, command, exit_status, &s, &rows);
    if (st == GT_OK)
        st = snapshot_write_rows(&s, &rows, path);
    free(s.command);
    return st;
}

gt_status gt_tracker_write_report(gt_tracker *t, const char *command, int exit_status,
                                  const char *server_json, const char *path)
{
    gt_clear_error();
    gt_snapshot s;
    struct row_source rows;
    gt_status st = snapshot_meta(t, command, exit_status, &s, &rows);
    if (st == GT_OK)
        st = report_write_rows(&s, &rows, server_json, path);
    free(s.command);
    return st;
}

int gt_tracker_csv_failed(gt_tracker *t, gt_series_kind kind)
{
    return kind == GT_SERIES_KIND_PROCESS ? t->csv_failed_process : t->csv_failed_system;
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

char *gt_tracker_to_json(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    return u ? gt_usage_to_json(u) : NULL;
}

/* In a child made by fork(): the child's copy of the tracker, whose thread
 * does not exist here and whose lock another thread may have held at the
 * fork. Its memory and descriptors are released without locking, waiting or
 * removing anything (the backup file and the thread are the parent's). */
static void free_forked_copy(gt_tracker *t)
{
    gpu_forget(&t->gpu); /* the library's state is the parent's: no shutdown */
    release_resources(t);
    free_strings(t);
    free(t);
}

void gt_tracker_free(gt_tracker *t)
{
    if (!t)
        return;
    if (!owned_here(t)) {
        free_forked_copy(t);
        return;
    }
    if (t->thread_started && !stop_sampler(t, t->opts.stop_timeout)) {
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
