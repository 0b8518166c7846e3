/* options.c - gt_options: the defaults of gpu_tracker's Tracker(), the
 * struct's size versioning, validation, the tracker's own copy and the
 * default name of the backup file. */
#define _GNU_SOURCE
#include "common/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/background.h"
#include "common/file_read.h"
#include "common/parse/proc_parse.h"
#include "output/output.h"
#include "hub/options.h"
#include "common/table_file.h"
#include "gpu_tracker_internal.h"
#include "common/units.h"
#include "common/toolkit.h"

/* The size of the 1.0 struct: a smaller struct_size is not one
 * gt_options_init_size() of a 1.x header wrote. */
#define OPTIONS_SIZE_MIN (offsetof(gt_options, sample_data) + sizeof(void *))

/* gt_options.gpu_brand's values besides NULL. */
static const char *const gpu_brands[] = {"nvidia", "amd", "intel", "drm"};
#define NBRANDS (sizeof gpu_brands / sizeof gpu_brands[0])

static int known_brand(const char *brand)
{
    for (size_t i = 0; i < NBRANDS; i++)
        if (strcmp(brand, gpu_brands[i]) == 0)
            return 1;
    return 0;
}

const char *gt_option_name(gt_option_list list, size_t i)
{
    switch (list) {
    case GT_OPTION_RAM_UNITS: return units_ram_name(i);
    case GT_OPTION_TIME_UNITS: return units_time_name(i);
    case GT_OPTION_GPU_BRANDS: return i < NBRANDS ? gpu_brands[i] : NULL;
    }
    return NULL;
}

/* A Pushgateway's base URL: http:// or https://, a host, no query, no
 * fragment, no space or control character (it goes into a request line).
 * 0, or -1 with the reason in why. */
static int push_url_check(const char *url, char *why, size_t cap)
{
    const char *rest = strncmp(url, "http://", 7) == 0    ? url + 7
                       : strncmp(url, "https://", 8) == 0 ? url + 8
                                                          : NULL;
    const char *bad = NULL;
    for (const char *c = url; *c && !bad; c++)
        if ((unsigned char)*c <= ' ' || *c == 127 || *c == '?' || *c == '#')
            bad = c;
    if (!rest || !*rest || *rest == '/' || bad || strlen(url) > 1024) {
        char shown[160];
        text_escape_into(url, shown, sizeof shown);
        snprintf(why, cap, "invalid Pushgateway URL '%s': give http://HOST:PORT or "
                 "https://HOST:PORT (a path prefix may follow; no query, fragment or space)",
                 shown);
        return -1;
    }
    return 0;
}

static void defaults(gt_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->sleep_time = 1.0;
    o->ram_unit = "gigabytes";
    o->gpu_ram_unit = "gigabytes";
    o->time_unit = "hours";
    o->stop_timeout = DEFAULT_STOP_TIMEOUT;
    o->process_csv_fd = -1;
    o->system_csv_fd = -1;
}

void gt_options_init_size(gt_options *opts, size_t size)
{
    gt_options d;
    defaults(&d);
    if (!opts || size < sizeof d.struct_size)
        return;
    /* A caller compiled against a newer header has fields we do not know:
     * zero, the value that keeps them off, as options_import expects. */
    if (size > sizeof d) {
        memset((char *)opts + sizeof d, 0, size - sizeof d);
        memcpy(opts, &d, sizeof d);
    } else {
        memcpy(opts, &d, size);
    }
    opts->struct_size = size;
}

/* The caller's options as this library's whole struct: its struct_size
 * bytes over the defaults. GT_ERR_INVALID_ARGUMENT for a size
 * gt_options_init_size() did not write, or for a newer struct that sets a
 * field this library does not have (it would be silently ignored). */
static gt_status options_import(const gt_options *user, gt_options *out)
{
    defaults(out);
    if (!user)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "no options given: pass a gt_options filled by "
                       "gt_options_init()");
    size_t size = user->struct_size;
    if (size < OPTIONS_SIZE_MIN)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid gt_options.struct_size %zu: fill the options with "
                       "gt_options_init() (this library knows sizes from %zu)",
                       size, (size_t)OPTIONS_SIZE_MIN);
    if (size > sizeof *out) {
        const unsigned char *extra = (const unsigned char *)user + sizeof *out;
        for (size_t i = 0; i < size - sizeof *out; i++)
            if (extra[i])
                return gt_fail(GT_ERR_INVALID_ARGUMENT,
                               "gt_options sets a field this library (%s) does not have, at "
                               "byte %zu: it needs a newer libgputracker",
                               GT_VERSION_STRING, sizeof *out + i);
        size = sizeof *out;
    }
    memcpy(out, user, size);
    out->struct_size = sizeof *out;
    return GT_OK;
}

gt_status gt_options_validate(const gt_options *user)
{
    gt_clear_error();
    gt_options whole;
    gt_status st = options_import(user, &whole);
    if (st != GT_OK)
        return st;
    const gt_options *o = &whole;
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
    if (o->gpu_brand && !known_brand(o->gpu_brand))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "unknown GPU brand '%s'; valid brands: nvidia, amd, intel, drm",
                       o->gpu_brand);
    if (o->process_id < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "invalid process ID %d", (int)o->process_id);
    if (o->job && gt_check_struct("options.job", "gt_job_info", o->job, GT_JOB_INFO_SIZE_1_0) !=
                      GT_OK)
        return GT_ERR_INVALID_ARGUMENT;
    if (o->max_kept_files < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid max_kept_files %d: give 0 (a quarter of the descriptor limit) "
                       "or a number of files", o->max_kept_files);
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
    if (o->tracking_file && !table_file_name_ok(o->tracking_file))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid tracking file name '%s': valid extensions are .csv and .sqlite",
                       o->tracking_file);
    char why[512];
    struct sockaddr_storage addr;
    socklen_t addrlen;
    if (o->metrics_listen && metrics_listen_parse(o->metrics_listen, &addr, &addrlen, why,
                                                  sizeof why) < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "%s", why);
    if (o->metrics_push_url && push_url_check(o->metrics_push_url, why, sizeof why) < 0)
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "%s", why);
    if (!(o->metrics_push_interval >= 0 && o->metrics_push_interval <= GT_DURATION_MAX))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid metrics push interval %g: give seconds from 0 (at the end only) "
                       "to %.0f", o->metrics_push_interval, GT_DURATION_MAX);
    if (o->metrics_push_interval > 0 && !o->metrics_push_url)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "a metrics push interval without a Pushgateway URL: give metrics_push_url "
                       "too");
    if (o->metrics_textfile_dir && !*o->metrics_textfile_dir)
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "empty metrics textfile directory: give node_exporter's textfile "
                       "directory, or NULL for none");
    if (!(o->carbon_intensity >= 0 && o->carbon_intensity <= 10000))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid carbon_intensity %g: give grams of CO2e per kWh, from 0 (none) "
                       "to 10000", o->carbon_intensity);
    if (!(o->pue == 0 || (o->pue >= 1 && o->pue <= 10)))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid pue %g: a power usage effectiveness is from 1 to 10 (0: 1)",
                       o->pue);
    if (!(o->start_at == 0 || o->start_at == GT_START_ALIGNED ||
          (o->start_at > 0 && o->start_at <= epoch_now() + GT_START_AHEAD_MAX)))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "invalid start time %.17g: give 0 (at once), GT_START_ALIGNED (-1: the "
                       "next multiple of the sleep time) or an epoch time at most %.0f s ahead",
                       o->start_at, GT_START_AHEAD_MAX);
    return GT_OK;
}

/* ".gpu-tracker_<random UUID>.json" in the working directory, as gpu_tracker
 * names its pickle; NULL when out of memory. */
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


/* Keeps a copy of s (NULL stays NULL) in c->owned; sets *failed when out
 * of memory. */
static const char *own(struct options_copy *c, const char *s, int *failed)
{
    if (!s)
        return NULL;
    if (c->nowned == (int)(sizeof c->owned / sizeof c->owned[0])) {
        *failed = 1; /* a string added to the options without room here */
        return NULL;
    }
    char *d = dup_or_null(s, failed);
    if (d)
        c->owned[c->nowned++] = d;
    return d;
}

/* 1 when pid is this process's parent, or its parent's, ... up to the
 * first process of its PID namespace (each step one /proc/PID/stat, read
 * and parsed as the tree walk does; a PID that cannot be read ends it). */
static int is_own_ancestor(pid_t pid)
{
    pid_t at = getppid();
    for (int depth = 0; at > 0 && depth < 4096; depth++) {
        if (at == pid)
            return 1;
        char path[64], text[1024];
        size_t len;
        struct proc_stat st;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)at);
        if (file_read_prefix(path, text, sizeof text, &len) != 0 ||
            proc_parse_stat(text, len, &st) != 0)
            return 0;
        at = st.ppid;
    }
    return 0;
}

gt_status options_signal_refusal(const struct options_copy *c)
{
    const gt_options *o = &c->o;
    if (o->process_id == 0 || o->process_id == getpid())
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "cannot signal the tracked tree: it is the tracking program's own "
                       "(process_id is its own)");
    /* The tree of an ancestor holds this program, and the rest of what
     * that ancestor runs (a pipeline's other commands): a signal would
     * reach them, and an init (PID 1) ignores the SIGKILL. */
    if (strcmp(c->proc_root, "/proc") == 0 && is_own_ancestor(o->process_id))
        return gt_fail(GT_ERR_INVALID_ARGUMENT,
                       "cannot signal the tracked tree: process %d started the tracking "
                       "program (its tree holds the tracking program and whatever else that "
                       "process runs, a pipeline's other commands among them)",
                       (int)o->process_id);
    return GT_OK;
}

gt_status options_copy_make(struct options_copy *c, const gt_options *user,
                            const gt_sources *sources)
{
    memset(c, 0, sizeof *c);
    gt_status st = gt_options_validate(user);
    if (st != GT_OK)
        return st;
    options_import(user, &c->o);
    gt_options *o = &c->o;
    int failed = 0;
    o->ram_unit = own(c, o->ram_unit, &failed);
    o->gpu_ram_unit = own(c, o->gpu_ram_unit, &failed);
    o->time_unit = own(c, o->time_unit, &failed);
    o->gpu_uuids = own(c, o->gpu_uuids, &failed);
    o->gpu_brand = own(c, o->gpu_brand, &failed);
    o->nvml_library = own(c, o->nvml_library, &failed);
    o->rsmi_library = own(c, o->rsmi_library, &failed);
    o->command = own(c, o->command, &failed);
    o->tracking_file = own(c, o->tracking_file, &failed);
    o->metrics_listen = own(c, o->metrics_listen, &failed);
    o->metrics_textfile_dir = own(c, o->metrics_textfile_dir, &failed);
    o->metrics_push_url = own(c, o->metrics_push_url, &failed);
    if (o->job) {
        /* as much as the caller's struct holds (a 1.0 program's ends before
         * the 1.1 fields; options_validate checked it holds 1.0's) */
        size_t size = o->job->struct_size < sizeof c->job ? o->job->struct_size : sizeof c->job;
        memset(&c->job, 0, sizeof c->job);
        memcpy(&c->job, o->job, size);
        c->job.struct_size = sizeof c->job;
        o->job = &c->job;
    }
    if (!o->resource_usage_file) {
        char *path = default_backup_path();
        o->resource_usage_file = own(c, path, &failed);
        failed |= !path;
        free(path);
    } else {
        o->resource_usage_file = own(c, o->resource_usage_file, &failed);
    }
    /* A descriptor to write a series to asks for that series. */
    if (o->process_csv_fd >= 0)
        o->series |= GT_SERIES_PROCESS;
    if (o->system_csv_fd >= 0)
        o->series |= GT_SERIES_SYSTEM;
    const char *proc = sources && sources->proc_root ? sources->proc_root : "/proc";
    const char *sys = sources && sources->sys_root ? sources->sys_root : "/sys";
    c->proc_root = own(c, proc, &failed);
    c->sys_root = own(c, sys, &failed);
    c->metadata_url = own(c, sources ? sources->metadata_url : NULL, &failed);
    c->sampled_only = sources && sources->sampled_only;
    if (failed) {
        options_copy_free(c);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    return GT_OK;
}

void options_copy_free(struct options_copy *c)
{
    for (int i = 0; i < c->nowned; i++)
        free(c->owned[i]);
    c->nowned = 0;
}
