/* system_cmd.c - gpu-tracker system: writes the system series (resource_tracker's
 * SystemTracker) until a duration ends or a signal stops it. */
#define _GNU_SOURCE
#include "system_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"
#include "environment.h"
#include "options.h"
#include "output.h"
#include "suggest.h"

static const char usage[] =
    "Usage: gpu-tracker system [--st=<sleep-time>] [--duration=<seconds>] [-o <file>]\n"
    "\n"
    "Writes a row of system-wide metrics every sleep time, as CSV: timestamp,\n"
    "processes, utime, stime, cpu_usage, memory_free, memory_used, memory_buffers,\n"
    "memory_cached, memory_active, memory_inactive, disk_read_bytes,\n"
    "disk_write_bytes, disk_space_total_gb, disk_space_used_gb, disk_space_free_gb,\n"
    "net_recv_bytes, net_sent_bytes, gpu_usage, gpu_vram, gpu_utilized\n"
    "(docs/series.md defines each).\n"
    "\n"
    "Options:\n"
    "    --st=<sleep-time>       Seconds between rows. Defaults to 1.0.\n"
    "    --duration=<seconds>    Stop after this long (the last row is the one at the\n"
    "                            end).\n"
    "                            Defaults to running until SIGINT or SIGTERM.\n"
    "    -o --output=<file>      Write the CSV to this file. Defaults to standard\n"
    "                            output.\n"
    "    --disable-logs          If set, warnings are suppressed.\n"
    "    -h --help               Show this help message and exit.\n";

enum { OPT_ST = 256, OPT_DURATION, OPT_DISABLE_LOGS };

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {"st", required_argument, NULL, OPT_ST},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"disable-logs", no_argument, NULL, OPT_DISABLE_LOGS},
    {NULL, 0, NULL, 0},
};

static void print_warning(const char *message, void *data)
{
    (void)data;
    cli_error("warning: %s\n", message);
}

static double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for one of the signals in set, or until the tracker's duration has
 * run out (duration > 0). */
static void wait_for_end(gt_tracker *t, const sigset_t *set, double duration, double interval)
{
    if (!(duration > 0)) {
        while (sigwaitinfo(set, NULL) < 0 && errno == EINTR)
            ;
        return;
    }
    double end = monotonic_now() + duration;
    for (;;) {
        double left = end - monotonic_now();
        if (left <= 0)
            break;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig > 0)
            return; /* stopped early: the rows so far are complete */
        if (errno != EINTR && errno != EAGAIN)
            break;
    }
    /* The last row is due about now (the tracker started a moment after we
     * took `end`); signals wait, blocked, while it comes. */
    gt_tracker_wait(t, interval + 10.0);
}

int system_command(int argc, char **argv)
{
    gt_options opts;
    gt_options_init(&opts);
    const char *output = "-";
    cli_read_environment(&opts);

    char err[1024];
    opterr = 0;
    optind = 1;
    int c;
    int current = optind; /* the argument getopt works on (see options.c) */
    while ((c = getopt_long(argc, argv, ":ho:", long_options, NULL)) != -1) {
        switch (c) {
        case 'h': fputs(usage, stdout); return 0;
        case 'o': output = optarg; break;
        case OPT_ST:
            if (parse_seconds(optarg, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX, &opts.sleep_time) < 0) {
                snprintf(err, sizeof err, "invalid --st '%s': the sleep time must be a number of "
                         "seconds from %g to %g", optarg, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
                return cli_fail(err, 2);
            }
            break;
        case OPT_DURATION:
            if (parse_seconds(optarg, 1e-300, GT_DURATION_MAX, &opts.duration) < 0) {
                snprintf(err, sizeof err, "invalid --duration '%s': it must be a number of "
                         "seconds, more than 0 and at most %.0f (366 days)", optarg,
                         GT_DURATION_MAX);
                return cli_fail(err, 2);
            }
            break;
        case OPT_DISABLE_LOGS: opts.disable_logs = 1; break;
        case ':':
            snprintf(err, sizeof err, "option '%s' needs a value", argv[current]);
            return cli_fail(err, 2);
        default:
            suggest_option_error(argv[current], long_options, "see gpu-tracker system --help",
                                 err, sizeof err);
            return cli_fail(err, 2);
        }
        current = optind;
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "unexpected argument '%s': gpu-tracker system takes only "
                 "options; see gpu-tracker system --help", argv[optind]);
        return cli_fail(err, 2);
    }
    if (!*output)
        return cli_fail("empty file name for -o; give a file or '-' for standard output", 2);

    opts.series = GT_SERIES_SYSTEM;
    opts.resource_usage_file = ""; /* no summary: no backup of one */
    opts.on_warning = print_warning;
    if (gt_options_validate(&opts) != GT_OK)
        return cli_fail(gt_last_error(), 2);
    int fd = output_open_csv(output, "output", err, sizeof err);
    if (fd < 0)
        return cli_fail(err, 2);
    opts.system_csv_fd = fd;

    /* The signals that end the series are taken synchronously. */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, &old);

    gt_tracker *t = NULL;
    gt_status st = gt_tracker_new(&opts, &t);
    if (st == GT_OK)
        st = gt_tracker_start(t);
    int status = 0;
    if (st != GT_OK) {
        status = cli_fail(gt_last_error(), 1);
    } else {
        wait_for_end(t, &set, opts.duration, opts.sleep_time);
        gt_tracker_stop(t);
        if (output_rescue_series(t, GT_SERIES_KIND_SYSTEM, output))
            status = 1;
    }
    gt_tracker_free(t);
    if (fd != STDOUT_FILENO && close(fd) != 0 && status == 0) {
        snprintf(err, sizeof err, "cannot write output file '%s': %s", output, strerror(errno));
        status = cli_fail(err, 1);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    return status;
}
