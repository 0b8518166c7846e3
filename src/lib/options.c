/* options.c - gt_options: the defaults of gpu_tracker's Tracker(), their
 * validation, and the default name of the backup file. */
#define _GNU_SOURCE
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "background.h"
#include "options.h"
#include "units.h"

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
char *options_default_backup_path(void)
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

