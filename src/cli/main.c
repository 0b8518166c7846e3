/* main.c - gpu-tracker: run a command (or attach to a PID), track its whole
 * process tree with libgputracker, and print or save the summary. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_main.h"
#include "gpu_tracker_internal.h"
#include "human.h"
#include "live.h"
#include "options.h"
#include "output.h"
#include "run.h"
#include "shlex.h"
#include "benchmark_tsv.h"
#include "compare_cmd.h"
#include "environment.h"
#include "snapshot_cmd.h"
#include "subtrack_cmd.h"
#include "suggest.h"
#include "system_cmd.h"
#include "common/toolkit.h"

/* Warnings that arrive before the command runs wait here: if it cannot be
 * started, the one error line is all the user should see. Warnings can come
 * from the tracker's sampling thread, hence the lock. */
#define MAX_HELD_WARNINGS 8
static pthread_mutex_t warnings_lock = PTHREAD_MUTEX_INITIALIZER;
static char *held_warnings[MAX_HELD_WARNINGS];
static int n_held_warnings;
static int command_started;

static void print_warning(const char *message, void *data)
{
    (void)data;
    pthread_mutex_lock(&warnings_lock);
    if (command_started) {
        live_pause();
        cli_error("warning: %s\n", message);
        live_resume();
    } else if (n_held_warnings < MAX_HELD_WARNINGS) {
        held_warnings[n_held_warnings] = strdup(message);
        if (held_warnings[n_held_warnings])
            n_held_warnings++;
    }
    pthread_mutex_unlock(&warnings_lock);
}

/* A caveat of the figures, as a warning beside a summary that has no
 * words of its own for it (gpu_tracker's text, the JSON). */
static void warn_caveat(const char *sentence, void *data)
{
    (void)data;
    cli_error("warning: %s\n", sentence);
}

/* Prints (or drops) the held warnings; later ones are printed at once. */
static void release_warnings(int print)
{
    pthread_mutex_lock(&warnings_lock);
    for (int i = 0; i < n_held_warnings; i++) {
        if (print)
            cli_error("warning: %s\n", held_warnings[i]);
        free(held_warnings[i]);
    }
    n_held_warnings = 0;
    if (print)
        command_started = 1;
    pthread_mutex_unlock(&warnings_lock);
}

/* Say no more than a warning would: nothing with --disable-logs or -q. */
static int quiet_start;

/* 1 when spec ([ADDR:]PORT) asks for port 0: any free one. */
static int any_port(const char *spec)
{
    const char *colon = spec ? strrchr(spec, ':') : NULL;
    return spec && strcmp(colon ? colon + 1 : spec, "0") == 0;
}

static void on_started(pid_t pid, const gt_options *opts, gt_tracker *t)
{
    release_warnings(1);
    /* Where the exporter serves: always said for port 0 (who else would
     * know which port it got?), otherwise as the other start lines. */
    const char *metrics = gt_tracker_metrics_address(t);
    if (metrics && (any_port(opts->metrics_listen) || !(opts->disable_logs || quiet_start)))
        cli_error("serving metrics at http://%s/metrics\n", metrics);
    if (opts->disable_logs || quiet_start)
        return;
    if (opts->process_id == pid && opts->reaper_pid == 0)
        cli_error("tracking PID %d until it ends (Ctrl-C stops tracking)\n",
                  (int)pid);
    /* The backup file is not named: a normal run never needs it, and one
     * that was killed finds it as .gpu-tracker_*.json in its working
     * directory (or where --backup said); docs/cli.md says so. */
}

/* The command has exited and left processes running that it started:
 * they were measured up to now, not to their end. */
static void warn_left_running(const struct run_result *r)
{
    char pids[RUN_LEFT_PIDS * 24 + 64];
    size_t shown = r->left_running < RUN_LEFT_PIDS ? r->left_running : RUN_LEFT_PIDS;
    int n = 0;
    for (size_t i = 0; i < shown && n >= 0 && (size_t)n < sizeof pids; i++)
        n += snprintf(pids + n, sizeof pids - (size_t)n, "%s%d",
                      i ? ", " : (r->left_running == 1 ? " " : "s "), (int)r->left_pids[i]);
    if (r->left_running > shown && n >= 0 && (size_t)n < sizeof pids)
        snprintf(pids + n, sizeof pids - (size_t)n, " and %zu more", r->left_running - shown);
    cli_error("warning: the command has exited, but %zu process%s it started %s still running "
              "(PID%s): measured up to the command's exit, not to %s end; --wait-all waits for "
              "%s\n", r->left_running, r->left_running == 1 ? "" : "es",
              r->left_running == 1 ? "is" : "are", pids, r->left_running == 1 ? "its" : "their",
              r->left_running == 1 ? "it" : "them");
}

/* The exit status of a run that breached a limit (as timeout(1) says 124
 * when its time limit passed); --command-status keeps the command's. */
#define EXIT_LIMIT_BREACHED 124

/* A breach that no sample saw (the kernel's high-water mark of a process
 * reaped at the end) has not been warned of: it is, now. */
static void warn_late_breaches(const gt_limits *l)
{
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        if (!l->figure[i].breached || l->figure[i].warned)
            continue;
        char what[256];
        gt_limits_describe(l, i, what, sizeof what);
        /* "... 0.1 s into the run": found when the run ended */
        char *into = strstr(what, ") ");
        if (into)
            into[1] = '\0';
        cli_error("warning: limit breached: %s, found at the end of the run\n",
                  what);
    }
}

/* text (a -f human summary ending in a newline, or NULL), wrapped to the
 * width of the terminal it goes to (standard output's, unless written to a
 * file: then 80 columns), without its final newline as the other formats;
 * NULL when out of memory. Frees text. */
static char *human_finish(char *text, const char *output)
{
    if (!text)
        return NULL;
    char *wrapped = human_wrap(text, output ? 80 : human_width(STDOUT_FILENO));
    free(text);
    size_t n = wrapped ? strlen(wrapped) : 0;
    if (n > 0 && wrapped[n - 1] == '\n')
        wrapped[n - 1] = '\0';
    return wrapped;
}

/* The -f human summary of a stopped tracker (its units bytes and seconds),
 * as human_finish() gives it; NULL when out of memory. */
static char *human_of(gt_tracker *t, gt_limit_watch *limits_watch, const struct cli_options *o,
                      const struct run_result *r)
{
    gt_run_results *res;
    if (gt_run_results_read(t, &res) != GT_OK)
        return NULL;
    struct human_extras x = {
        .cg = res->cgroup, .cgroup_asked = o->tracker.own_cgroup, .energy = res->cpu_energy,
        .gpu_run = res->gpu_run, .at_peak = res->at_peak, .gpu_idle = res->gpu_idle,
        .job_energy = res->job_energy, .processes = res->processes,
        .command_sigkill = r->signalled && r->status_code == 128 + SIGKILL,
        .command_pid = o->tracker.process_id, .verbose = o->verbose,
    };
    gt_limits limits = {0};
    if (gt_limit_watch_report(limits_watch, &limits) == GT_OK && limits.any_set)
        x.limits = &limits;
    /* CO2e asked for and not given: the document does not say it was
     * asked, the options do. */
    gt_job_energy energy;
    if (res->job_energy && !res->job_energy->co2e_available) {
        energy = *res->job_energy;
        energy.carbon_intensity = o->tracker.carbon_intensity;
        x.job_energy = &energy;
    }
    char *text = human_summary(&res->usage, &res->totals, &x);
    gt_run_results_free(res);
    return human_finish(text, o->output);
}

/* The end of a run's options: the outputs held since before the command
 * started are let go (an embedding program, the Python package, may run
 * the command again in this process). */
static void options_done(struct cli_options *o)
{
    output_file_release(o->output);
    output_file_release(o->snapshot);
    output_file_release(o->report);
    cli_options_free(o);
}

/* -h and -v say which defaults file a run would read, and whether it is there. */
static void print_config_file(const struct cli_options *o, const char *label)
{
    fputs(label, stdout);
    if (!o->config_path[0]) {
        fputs("none (no home directory to look in)\n", stdout);
        return;
    }
    output_print_untrusted(stdout, o->config_path);
    fputs(o->config_state == CONFIG_PRESENT ? " (present: runs read it; --no-config ignores it)\n"
                                            : " (not present)\n", stdout);
}

/* "3 s", "4 min", "2.5 h", "3.0 days": how long ago a backup was written. */
static void format_ago(char *buf, size_t cap, double seconds)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 60)
        snprintf(buf, cap, "%d s", (int)seconds); /* whole seconds, minutes: cut */
    else if (seconds < 3600)
        snprintf(buf, cap, "%d min", (int)(seconds / 60));
    else if (seconds < 86400)
        snprintf(buf, cap, "%.1f h", seconds / 3600);
    else
        snprintf(buf, cap, "%.1f days", seconds / 86400);
}

/* A backup is being shown: which run it is from, and whether that run is
 * still going on (its writer alive on this machine) or did not finish.
 * Its strings come from the file: printed with control characters escaped. */
static void say_which_run(const char *path)
{
    gt_backup_info info;
    memset(&info, 0, sizeof info);
    if (gt_backup_read_info(path, &info) != GT_OK) {
        cli_error("warning: %s; the summary follows all the same\n",
                  gt_last_error());
        info.present = 0;
    }
    fputs("gpu-tracker: '", stderr);
    output_print_untrusted(stderr, path);
    if (!info.present) {
        fputs("' is the backup of a run that did not finish: the figures are those up to its "
              "last sample\n", stderr);
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char ago[32];
    format_ago(ago, sizeof ago, (double)now.tv_sec + (double)now.tv_nsec / 1e9 - info.updated);
    if (info.running) {
        fprintf(stderr, "' is the backup of a run still going on (pid %d, last update %s ago",
                info.pid, ago);
    } else {
        char started[64] = "";
        time_t t = (time_t)info.start_time;
        struct tm tm;
        if (localtime_r(&t, &tm))
            strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S", &tm);
        fprintf(stderr, "' is the backup of a run that did not finish (pid %d on ", info.pid);
        output_print_untrusted(stderr, info.host);
        fprintf(stderr, ", started %s, last update %s ago", started, ago);
    }
    if (info.command[0]) {
        fputs(", command: ", stderr);
        output_print_untrusted(stderr, info.command);
    }
    fputs("): the figures are those up to its last update\n", stderr);
}

/* Rewrites *u's RAM and GPU RAM figures (not the GPU list's) in bytes and
 * its compute time in seconds, and their unit names to match, from the
 * units it names (a unit it does not know leaves that part as it is): what
 * -f human reads from a saved summary. */
static void usage_to_bytes_seconds(gt_resource_usage *u)
{
    if (!u)
        return;
    double ram = units_ram_divisor(u->max_ram.unit), gpu = units_ram_divisor(u->max_gpu_ram.unit);
    double time = units_time_divisor(u->compute_time.unit);
    if (ram > 0) {
        gt_max_ram *m = &u->max_ram;
        gt_rss_values *v[] = {&m->main, &m->descendants, &m->combined};
        m->system_capacity *= ram;
        m->system *= ram;
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            v[i]->total_rss *= ram;
            v[i]->private_rss *= ram;
            v[i]->shared_rss *= ram;
        }
        snprintf(m->unit, sizeof m->unit, "bytes");
    }
    if (gpu > 0) {
        gt_max_gpu_ram *g = &u->max_gpu_ram;
        g->system_capacity *= gpu;
        g->system *= gpu;
        g->main *= gpu;
        g->descendants *= gpu;
        g->combined *= gpu;
        snprintf(g->unit, sizeof g->unit, "bytes");
    }
    if (time > 0) {
        u->compute_time.time *= time;
        snprintf(u->compute_time.unit, sizeof u->compute_time.unit, "seconds");
    }
}


/* The -f human summary of a saved one: the figures it keeps, read in
 * bytes and seconds; CPU seconds from the exact means times the wall time. */
static char *human_of_file(gt_resource_usage *u, int verbose)
{
    usage_to_bytes_seconds(u);
    gt_totals totals = {.struct_size = sizeof totals};
    totals.wall_seconds = u->compute_time.time;
    totals.cpu_main_seconds = u->cpu_utilization.main.mean_sum_percent / 100 * totals.wall_seconds;
    totals.cpu_descendants_seconds =
        u->cpu_utilization.descendants.mean_sum_percent / 100 * totals.wall_seconds;
    struct human_extras x = {.verbose = verbose, .from_file = 1};
    return human_finish(human_summary(u, &totals, &x), NULL);
}

/* A snapshot is told by its name, never by its content: --snapshot writes
 * FILE.json.gz, and a name ending in .gz is read as one. */
static int is_snapshot_name(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* gpu-tracker show FILE [-f text|json|human] [--verbose]: prints a saved
 * summary or a backup file left by a run that did not finish. */
static int show(int argc, char **argv)
{
    static const char usage[] = "usage: gpu-tracker show FILE [-f text|json|human] [--verbose]";
    static const char help[] =
        "Usage: gpu-tracker show FILE [-f text|json|human] [--verbose]\n"
        "\n"
        "Prints the summary of a run from its file: a summary (-f json -o FILE), a\n"
        "backup (.gpu-tracker_*.json, of a run killed before its end) or a snapshot\n"
        "(--snapshot FILE.json.gz).\n"
        "\n"
        "    -f --format=<format>    'text' (gpu_tracker's, the default), 'json' or\n"
        "                            'human' (a line per figure).\n"
        "    --verbose               With -f human: every reason in full.\n"
        "    -h --help               Show this help and exit.\n";
    const char *path = NULL, *format = "text";
    int verbose = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(help, stdout);
            return 0;
        }
        if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--format")) && i + 1 < argc)
            format = argv[++i];
        else if (!strncmp(argv[i], "--format=", 9))
            format = argv[i] + 9;
        else if (!strcmp(argv[i], "--verbose"))
            verbose = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_fail(usage, 2);
        else if (!path)
            path = argv[i];
        else
            return cli_fail(usage, 2);
    }
    if (!path)
        return cli_fail(usage, 2);
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0 &&
        strcmp(format, "human") != 0) {
        cli_error("unknown format '%s'; valid formats: text, json, human\n", format);
        return 2;
    }
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_snapshot *snap = NULL; /* a snapshot's: it owns u's GPU list */
    if (is_snapshot_name(path)) {
        /* A snapshot by its name (as --snapshot writes them): its summary. */
        if (gt_snapshot_read(path, 0, &snap) != GT_OK)
            return cli_fail(gt_last_error(), 1);
        if (snap->no_summary) {
            cli_error("'%s' is a resource_tracker snapshot: it has no gpu_tracker summary to "
                      "show (gpu-tracker stats and report read its series)\n", path);
            gt_snapshot_free(snap);
            return 1;
        }
        u = snap->usage;
    } else if (gt_usage_read_file(path, &u) != GT_OK) {
        return cli_fail(gt_last_error(), 1);
    }
    if (!snap && !u.measurement.complete)
        say_which_run(path);
    char *out = strcmp(format, "json") == 0    ? usage_to_json(&u)
                : strcmp(format, "human") == 0 ? human_of_file(&u, verbose)
                                               : usage_to_text(&u);
    if (snap)
        gt_snapshot_free(snap);
    else
        gt_usage_release(&u);
    if (!out)
        return cli_fail("out of memory", 1);
    printf("%s\n", out);
    free(out);
    return 0;
}

/* A first argument one edit from a subcommand is a typo, not a program to
 * run (gpu-tracker stat x ran /usr/bin/stat); `--` before it runs it. */
static int refuse_near_subcommand(const char *word)
{
    static const char *const subcommands[] = {"show", "system", "stats", "recommend", "report",
                                              "merge", "job", "compare", "sub-track", NULL};
    for (size_t i = 0; subcommands[i]; i++)
        if (strcmp(word, subcommands[i]) == 0)
            return 0;
    const char *near = suggest_nearest(word, subcommands, 1);
    if (!near)
        return 0;
    char all[160] = "";
    for (size_t i = 0, n = 0; subcommands[i] && n < sizeof all; i++)
        n += (size_t)snprintf(all + n, sizeof all - n, "%s%s", i ? ", " : "", subcommands[i]);
    cli_error("unknown subcommand '%s'; did you mean '%s'? (subcommands: %s; to run a program "
              "named '%s', write: gpu-tracker -- %s ...)\n", word, near, all, word, word);
    return 1;
}

/* The subcommands: each takes its arguments from its own name on. */
static const struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    {"system", system_command}, {"stats", stats_command}, {"recommend", recommend_command},
    {"report", report_command}, {"merge", merge_command}, {"job", job_command},
    {"compare", compare_command}, {"sub-track", subtrack_command},
};

/* When argv[1] names a subcommand: 1 and its exit status in *rc. */
static int run_subcommand(int argc, char **argv, int *rc)
{
    if (argc < 2)
        return 0;
    if (strcmp(argv[1], "show") == 0) {
        *rc = show(argc, argv);
        return 1;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            *rc = subcommands[i].run(argc - 1, argv + 1);
            return 1;
        }
    return 0;
}

/* Before anything runs: no two outputs on one file, each writable; the
 * files written at the end are held from now (their directories kept
 * open), so that nothing planted on their paths meanwhile loses them. 0,
 * or -1 with the reason in err. */
static int check_outputs(const struct cli_options *o, char *err, size_t errcap)
{
    const struct output_use outputs[] = {
        {"-o", o->output}, {"--snapshot", o->snapshot}, {"--report", o->report},
        {"--process-csv", o->process_csv}, {"--system-csv", o->system_csv},
        {"--tf", o->tracker.tracking_file}, {"--benchmark-tsv", o->benchmark_tsv},
    };
    const char *whats[] = {"output file", "--snapshot file", "--report file"};
    int refused = output_find_same(outputs, sizeof outputs / sizeof outputs[0], err, errcap);
    for (size_t i = 0; !refused && i < sizeof whats / sizeof whats[0]; i++)
        refused = outputs[i].path && output_hold(outputs[i].path, whats[i], err, errcap) < 0;
    /* The tracking file is made by the library; say what is wrong with it
     * here, as for the other outputs, before the command runs. */
    if (!refused && o->tracker.tracking_file)
        refused = output_check_tracking_file(o->tracker.tracking_file, o->tracker.overwrite, err,
                                             errcap) < 0;
    if (!refused && o->benchmark_tsv)
        refused = benchmark_tsv_check(o->benchmark_tsv, err, errcap) < 0;
    return refused ? -1 : 0;
}

/* What the run left to say: processes left running, a kill that did not
 * end the tree, a sampler that failed. */
static void say_after_run(const struct cli_options *o, const struct run_result *r, int rc)
{
    if (rc == 0 && r->left_running > 0 && !o->tracker.disable_logs && !o->quiet)
        warn_left_running(r);
    if (rc == 0 && r->kill_wait_ended)
        cli_error("warning: the limit ended the tree, but part of it was still there %g s after "
                  "the SIGKILL (a process stuck in the kernel, one gpu-tracker may not signal, "
                  "or an init that ignores it): tracking stopped there\n", RUN_KILL_GRACE);
    if (rc == 0 && r->sampler_error[0])
        cli_error("warning: %s; the figures are those of the start and the "
                  "end of the run only\n", r->sampler_error);
}

/* The series files rescued and closed, the benchmark row, the snapshot
 * and the report: 1 when one of them could not be written. */
static int write_run_files(gt_tracker *t, const struct cli_options *o, const struct run_result *r,
                           const int csv_fds[2])
{
    char err[1024];
    const char *csv_paths[2] = {o->process_csv, o->system_csv};
    const char *csv_options[2] = {"--process-csv", "--system-csv"};
    int output_failed = 0;
    for (int i = 0; i < 2; i++)
        if (csv_paths[i])
            output_failed |= output_rescue_series(
                t, i == 0 ? GT_SERIES_KIND_PROCESS : GT_SERIES_KIND_SYSTEM, csv_paths[i]);
    for (int i = 0; i < 2; i++)
        if (csv_fds[i] > STDOUT_FILENO && close(csv_fds[i]) != 0) {
            cli_error("cannot write %s file '%s': %s\n", csv_options[i],
                      csv_paths[i], strerror(errno));
            output_failed = 1;
        }

    if (o->benchmark_tsv && benchmark_tsv_append(t, o->benchmark_tsv, err, sizeof err) < 0)
        output_failed |= cli_fail(err, 1);

    if (o->snapshot || o->report) {
        char *command = o->command ? shlex_join(o->command) : NULL;
        if (o->command && !command)
            output_failed |= cli_fail("cannot save the run: out of memory", 1);
        else
            output_failed |= save_run(t, command, o->command ? r->status_code : -1, o->snapshot,
                                      o->snapshot_format, o->report, o->stf);
        free(command);
    }

    return output_failed;
}

/* The status line and the summary, each where it does not mix with a
 * document on standard output; a summary that cannot be written where it
 * was asked goes to standard error. 1 when it could not be written. */
static int print_summary(const struct cli_options *o, const struct run_result *r,
                         const char *summary, int csv_on_stdout)
{
    char err[1024];
    int output_failed = 0;
    /* The status line goes where it does not mix with a JSON document or a
     * series on standard output; the summary does not mix with a series. */
    FILE *status_out = (o->format == FORMAT_JSON && !o->output) || csv_on_stdout ? stderr : stdout;
    FILE *summary_out = csv_on_stdout ? stderr : stdout;
    if (o->quiet)
        ; /* -q: nothing but the summary (and errors) */
    else if (o->command)
        fprintf(status_out, "Resource tracking complete. Process completed with status code: %d\n",
                r->status_code);
    else if (r->interrupted)
        fprintf(status_out, "Resource tracking stopped. Process %d is still running.\n",
                (int)o->attach_pid);
    else
        fprintf(status_out, "Resource tracking complete. Process %d has ended.\n", (int)o->attach_pid);
    fflush(status_out);

    if (o->output) {
        int failed;
        {
            /* the summary as printed: gpu_tracker's text (and the limits),
             * the human summary, or the tracker's JSON with its "cgroup"
             * section */
            size_t n = strlen(summary);
            char *doc = malloc(n + 2);
            if (doc) {
                memcpy(doc, summary, n);
                doc[n] = '\n';
            }
            failed = !doc || output_file_write(o->output, doc, n + 1) != GT_OK;
            free(doc);
        }
        if (failed)
            snprintf(err, sizeof err, "%s", *gt_last_error() ? gt_last_error() : "out of memory");
        if (failed) {
            /* Never lose the measurements: show them instead. */
            cli_error("%s; the summary follows on standard error\n", err);
            fprintf(stderr, "%s\n", summary);
            output_failed = 1;
        }
    } else {
        fprintf(summary_out, "%s\n", summary);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* stdout itself is full or gone: say so where it may still be seen. */
        cli_error("cannot write to standard output: %s; the summary "
                  "follows on standard error\n", strerror(errno));
        fprintf(stderr, "%s\n", summary);
        output_failed = 1;
    }
    return output_failed;
}

/* -f human says its caveats and a starved CPU in its own lines; the
 * other formats as warnings. */
static void warn_figures(gt_tracker *t, const struct cli_options *o)
{
    gt_run_results *res;
    if (o->format == FORMAT_HUMAN || o->tracker.disable_logs || o->quiet ||
        gt_run_results_read(t, &res) != GT_OK)
        return;
    gt_measurement_caveats(&res->usage, res->cgroup, warn_caveat, NULL);
    char starved[512];
    if (gt_cpu_contention(&res->usage, res->cgroup, res->totals.wall_seconds, starved,
                          sizeof starved))
        cli_error("warning: CPU starved: %s\n", starved);
    gt_run_results_free(res);
}

int gt_cli_main(int argc, char **argv)
{
    cli_protect_environment();
    char env_err[1200];
    if (cli_check_environment(env_err, sizeof env_err) < 0)
        return cli_fail(env_err, 2);
    if (argc >= 2 && argv[1][0] != '-' && refuse_near_subcommand(argv[1]))
        return 2;
    int sub_rc;
    if (run_subcommand(argc, argv, &sub_rc))
        return sub_rc;
    struct cli_options o;
    char err[1024];
    if (cli_parse(argc, argv, &o, err, sizeof err) < 0) {
        options_done(&o);
        return cli_fail(err, 2);
    }
    if (o.action == ACTION_HELP || o.action == ACTION_HELP_ALL) {
        fputs(o.action == ACTION_HELP_ALL ? cli_help_all : cli_help, stdout);
        print_config_file(&o, "\nConfig file: ");
        return 0;
    }
    if (o.action == ACTION_VERSION) {
        printf("gpu-tracker %s\n", gt_version());
        print_config_file(&o, "config file: ");
        return 0;
    }
    if (o.names_note[0] && !o.tracker.disable_logs)
        cli_error("warning: %s (docs/cli.md, \"Names made from the job\")\n",
                  o.names_note);
    if (o.tracker.discover_cloud && !o.snapshot && !o.report) {
        /* The cloud is recorded only in those: asking would cost up to
         * seconds of requests for nothing. */
        if (!o.tracker.disable_logs)
            cli_error("warning: --cloud has no effect without --snapshot or "
                      "--report (the cloud instance is recorded only there); not asking\n");
        o.tracker.discover_cloud = 0;
    }
    /* A standard output that goes away (gpu-tracker -- cmd | head) must not
     * kill us silently: writes fail with EPIPE and the summary goes to
     * stderr instead. The command gets SIGPIPE as it was. */
    run_ignore_sigpipe();
    if (check_outputs(&o, err, sizeof err) < 0) {
        options_done(&o);
        return cli_fail(err, 2);
    }
    int csv_fds[2] = {-1, -1};
    const char *csv_paths[2] = {o.process_csv, o.system_csv};
    const char *csv_options[2] = {"--process-csv", "--system-csv"};
    for (int i = 0; i < 2; i++)
        if (csv_paths[i] &&
            (csv_fds[i] = output_open_csv(csv_paths[i], csv_options[i], err, sizeof err)) < 0) {
            if (i == 1 && csv_fds[0] > STDOUT_FILENO)
                close(csv_fds[0]);
            options_done(&o);
            return cli_fail(err, 2);
        }
    o.tracker.process_csv_fd = csv_fds[0];
    o.tracker.system_csv_fd = csv_fds[1];
    int csv_on_stdout = csv_fds[0] == STDOUT_FILENO || csv_fds[1] == STDOUT_FILENO;
    o.tracker.on_warning = print_warning;
    /* The limits: a watch fed by the tracker's per-sample callback (its
     * options were checked with the rest). */
    gt_limit_watch *limits = NULL;
    if (gt_limit_watch_new(&o.limits, &o.tracker, &limits) != GT_OK) {
        snprintf(err, sizeof err, "%s", gt_last_error());
        for (int i = 0; i < 2; i++)
            if (csv_fds[i] > STDOUT_FILENO)
                close(csv_fds[i]);
        options_done(&o);
        return cli_fail(err, 1);
    }

    gt_tracker *t = NULL;
    struct run_result r;
    struct run_control control = {.on_started = on_started, .wait_all = o.wait_all,
                                  .limits = limits, .limit_options = &o.limits};
    /* Our standard output carries a document (the JSON summary, a series)
     * to a program: the command prints on our standard error instead, so
     * that what the program reads is never the command's text followed by
     * the document (docs/cli.md, "Standard output and standard error"). On
     * a terminal both are for a person, and stay as they are. */
    int document_on_stdout = (o.format == FORMAT_JSON && !o.output) || csv_on_stdout;
    control.command_stdout_to_stderr = document_on_stdout && !isatty(STDOUT_FILENO);
    quiet_start = o.quiet;
    if (live_begin(STDERR_FILENO, !o.quiet && !o.tracker.disable_logs)) {
        control.on_tick = live_tick;
        control.on_terminal_signal = live_signal;
    }
    int rc = o.command ? run_command(o.command, &o.tracker, &t, &r, &control, err,
                                     sizeof err)
                       : run_attached(o.attach_pid, &o.tracker, &t, &r, &control, err,
                                      sizeof err);
    live_end();
    release_warnings(0);
    say_after_run(&o, &r, rc);
    if (rc < 0) {
        for (int i = 0; i < 2; i++)
            if (csv_fds[i] > STDOUT_FILENO)
                close(csv_fds[i]);
        gt_limit_watch_free(limits);
        options_done(&o);
        return cli_fail(err, r.exit_status);
    }
    /* Output that could not be written makes the exit status non-zero (the
     * command's own, or 1), after what it held went to stderr. */
    int output_failed = write_run_files(t, &o, &r, csv_fds);

    char *summary = o.format == FORMAT_JSON ? gt_limit_watch_json(limits, t)
                    : o.format == FORMAT_HUMAN
                        ? human_of(t, limits, &o, &r)
                        : gt_limit_watch_text(limits, t);
    if (!summary) {
        gt_limit_watch_free(limits);
        gt_tracker_free(t);
        options_done(&o);
        return cli_fail("cannot format the summary: out of memory", r.exit_status ? r.exit_status : 1);
    }

    output_failed |= print_summary(&o, &r, summary, csv_on_stdout);
    free(summary);
    warn_figures(t, &o);
    /* A breached limit is the exit status (docs/limits.md), unless the
     * command's own was asked for. */
    gt_limits breaches = {0};
    int limit_breached = gt_limit_watch_report(limits, &breaches) == GT_OK &&
                         breaches.any_breached;
    if (limit_breached && !o.tracker.disable_logs)
        warn_late_breaches(&breaches);
    gt_limit_watch_free(limits);
    gt_tracker_free(t);
    options_done(&o);
    if (limit_breached && !o.command_status)
        return EXIT_LIMIT_BREACHED;
    return output_failed && r.exit_status == 0 ? 1 : r.exit_status;
}
