/* options.c - gt_options: the defaults of gpu_tracker's Tracker(), the
 * struct's size versioning and validation (options_copy.c: the tracker's
 * own copy). */
#define _GNU_SOURCE
#include "common/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
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

static int known_brand(const char *brand)
{
    for (size_t i = 0; gpu_brand_name(i); i++)
        if (strcmp(brand, gpu_brand_name(i)) == 0)
            return 1;
    return 0;
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
gt_status options_import(const gt_options *user, gt_options *out)
{
    defaults(out);
    if (!user)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no options given: pass a gt_options filled by "
                         "gt_options_init()");
    size_t size = user->struct_size;
    if (size < OPTIONS_SIZE_MIN)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid gt_options.struct_size %zu: fill the options with "
                         "gt_options_init() (this library knows sizes from %zu)",
                         size, (size_t)OPTIONS_SIZE_MIN);
    if (size > sizeof *out) {
        const unsigned char *extra = (const unsigned char *)user + sizeof *out;
        for (size_t i = 0; i < size - sizeof *out; i++)
            if (extra[i])
                return error_set(GT_ERR_INVALID_ARGUMENT,
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
    error_clear();
    gt_options whole;
    gt_status st = options_import(user, &whole);
    if (st != GT_OK)
        return st;
    const gt_options *o = &whole;
    if (!(o->sleep_time >= GT_SLEEP_TIME_MIN && o->sleep_time <= GT_SLEEP_TIME_MAX))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid sleep time %g: it must be from %g to %g seconds", o->sleep_time,
                         GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
    if (units_ram_divisor(o->ram_unit) == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown RAM unit '%s'; valid units: " GT_RAM_UNITS,
                         o->ram_unit ? o->ram_unit : "(null)");
    if (units_ram_divisor(o->gpu_ram_unit) == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "unknown GPU RAM unit '%s'; valid units: " GT_RAM_UNITS,
                         o->gpu_ram_unit ? o->gpu_ram_unit : "(null)");
    if (units_time_divisor(o->time_unit) == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown time unit '%s'; valid units: " GT_TIME_UNITS,
                         o->time_unit ? o->time_unit : "(null)");
    if (o->n_expected_cores < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid number of expected cores %d: it must be positive",
                         o->n_expected_cores);
    if (o->gpu_brand && !known_brand(o->gpu_brand))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "unknown GPU brand '%s'; valid brands: nvidia, amd, intel, drm",
                         o->gpu_brand);
    if (o->process_id < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid process ID %d", (int)o->process_id);
    if (o->job && check_struct_size("options.job", "gt_job_info", o->job, GT_JOB_INFO_SIZE_1_0) !=
                      GT_OK)
        return GT_ERR_INVALID_ARGUMENT;
    if (o->max_kept_files < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid max_kept_files %d: give 0 (a quarter of the descriptor limit) "
                         "or a number of files", o->max_kept_files);
    if (!(o->stop_timeout > 0 && o->stop_timeout <= GT_STOP_TIMEOUT_MAX))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid stop timeout %g: it must be more than 0 and at most %g seconds",
                         o->stop_timeout, GT_STOP_TIMEOUT_MAX);
    if (o->series & ~(GT_SERIES_PROCESS | GT_SERIES_SYSTEM))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid series %d; valid: 0, GT_SERIES_PROCESS, GT_SERIES_SYSTEM or both",
                         o->series);
    if (!(o->duration >= 0 && o->duration <= GT_DURATION_MAX))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid duration %g: it must be 0 (none) or from the sleep time to %.0f "
                         "seconds (366 days)", o->duration, GT_DURATION_MAX);
    if (o->duration > 0 && o->duration < o->sleep_time)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "duration %g s is shorter than one interval (%g s): no row would come",
                         o->duration, o->sleep_time);
    if (o->tracking_file && !table_file_name_ok(o->tracking_file))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid tracking file name '%s': valid extensions are .csv and .sqlite",
                         o->tracking_file);
    char why[512];
    struct sockaddr_storage addr;
    socklen_t addrlen;
    if (o->metrics_listen && metrics_listen_parse(o->metrics_listen, &addr, &addrlen, why,
                                                  sizeof why) < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s", why);
    if (o->metrics_push_url && push_url_check(o->metrics_push_url, why, sizeof why) < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s", why);
    if (!(o->metrics_push_interval >= 0 && o->metrics_push_interval <= GT_DURATION_MAX))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid metrics push interval %g: give seconds from 0 (at the end only) "
                         "to %.0f", o->metrics_push_interval, GT_DURATION_MAX);
    if (o->metrics_push_interval > 0 && !o->metrics_push_url)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "a metrics push interval without a Pushgateway URL: give metrics_push_url "
                         "too");
    if (o->metrics_textfile_dir && !*o->metrics_textfile_dir)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "empty metrics textfile directory: give node_exporter's textfile "
                         "directory, or NULL for none");
    const char *roots[] = {o->proc_root, o->sys_root};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (roots[i] && roots[i][0] != '/')
            return error_set(GT_ERR_INVALID_ARGUMENT,
                             "invalid %s '%s': give an absolute path (where %s is mounted), or "
                             "NULL for %s", i ? "sys_root" : "proc_root", roots[i],
                             i ? "sysfs" : "procfs", i ? "/sys" : "/proc");
    if (o->metadata_url && strncasecmp(o->metadata_url, "http://", 7) != 0 &&
        strncasecmp(o->metadata_url, "https://", 8) != 0)
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid metadata_url '%s': give an http:// or https:// base URL, or "
                         "NULL for the cloud's own services", o->metadata_url);
    if (!(o->carbon_intensity >= 0 && o->carbon_intensity <= 10000))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid carbon_intensity %g: give grams of CO2e per kWh, from 0 (none) "
                         "to 10000", o->carbon_intensity);
    if (!(o->pue == 0 || (o->pue >= 1 && o->pue <= 10)))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid pue %g: a power usage effectiveness is from 1 to 10 (0: 1)",
                         o->pue);
    if (!(o->start_at == 0 || o->start_at == GT_START_ALIGNED ||
          (o->start_at > 0 && o->start_at <= epoch_now() + GT_START_AHEAD_MAX)))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid start time %.17g: give 0 (at once), GT_START_ALIGNED (-1: the "
                         "next multiple of the sleep time) or an epoch time at most %.0f s ahead",
                         o->start_at, GT_START_AHEAD_MAX);
    return GT_OK;
}
