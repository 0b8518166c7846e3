/* main.c - gpu-tracker: run a command (or attach to a PID), track its whole
 * process tree with libgputracker, and print or save the summary. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker.h"
#include "options.h"
#include "output.h"
#include "run.h"

/* Warnings that arrive before the command runs wait here: if it cannot be
 * started, the one error line is all the user should see. */
#define MAX_HELD_WARNINGS 8
static char *held_warnings[MAX_HELD_WARNINGS];
static int n_held_warnings;
static int command_started;

static void print_warning(const char *message, void *data)
{
    (void)data;
    if (command_started) {
        fprintf(stderr, "gpu-tracker: warning: %s\n", message);
    } else if (n_held_warnings < MAX_HELD_WARNINGS) {
        held_warnings[n_held_warnings] = strdup(message);
        if (held_warnings[n_held_warnings])
            n_held_warnings++;
    }
}

static void release_warnings(int print)
{
    for (int i = 0; i < n_held_warnings; i++) {
        if (print)
            fprintf(stderr, "gpu-tracker: warning: %s\n", held_warnings[i]);
        free(held_warnings[i]);
    }
    n_held_warnings = 0;
}

static void on_started(pid_t pid, const gt_options *opts)
{
    command_started = 1;
    release_warnings(1);
    if (opts->process_id == pid && opts->reaper_pid == 0 && !opts->disable_logs)
        fprintf(stderr, "gpu-tracker: tracking PID %d until it ends (Ctrl-C stops tracking)\n",
                (int)pid);
}

static int fail(const char *msg, int status)
{
    fprintf(stderr, "gpu-tracker: %s\n", msg);
    return status;
}

int main(int argc, char **argv)
{
    struct cli_options o;
    char err[1024];
    if (cli_parse(argc, argv, &o, err, sizeof err) < 0)
        return fail(err, 2);
    if (o.action == ACTION_HELP) {
        fputs(cli_usage, stdout);
        return 0;
    }
    if (o.action == ACTION_VERSION) {
        printf("gpu-tracker %s\n", gt_version());
        return 0;
    }
    if (o.output && output_check_writable(o.output, err, sizeof err) < 0) {
        cli_options_free(&o);
        return fail(err, 2);
    }
    o.tracker.on_warning = print_warning;

    gt_tracker *t = NULL;
    struct run_result r;
    int rc = o.command ? run_command(o.command, &o.tracker, &t, &r, on_started, err, sizeof err)
                       : run_attached(o.attach_pid, &o.tracker, &t, &r, on_started, err,
                                      sizeof err);
    release_warnings(0);
    if (rc < 0) {
        cli_options_free(&o);
        return fail(err, r.exit_status);
    }

    char *summary = o.format == FORMAT_JSON ? gt_tracker_to_json(t) : gt_tracker_to_text(t);
    gt_tracker_free(t);
    if (!summary) {
        cli_options_free(&o);
        return fail("cannot format the summary: out of memory", r.exit_status ? r.exit_status : 1);
    }

    /* The status line goes where it does not mix with a JSON document. */
    FILE *status_out = o.format == FORMAT_JSON && !o.output ? stderr : stdout;
    if (o.command)
        fprintf(status_out, "Resource tracking complete. Process completed with status code: %d\n",
                r.status_code);
    else if (r.interrupted)
        fprintf(status_out, "Resource tracking stopped. Process %d is still running.\n",
                (int)o.attach_pid);
    else
        fprintf(status_out, "Resource tracking complete. Process %d has ended.\n", (int)o.attach_pid);
    fflush(status_out);

    if (o.output) {
        if (output_write_file(o.output, summary, err, sizeof err) < 0) {
            /* Never lose the measurements: show them instead. */
            fprintf(stderr, "gpu-tracker: %s; the summary follows on standard output\n", err);
            printf("%s\n", summary);
        }
    } else {
        printf("%s\n", summary);
    }
    free(summary);
    cli_options_free(&o);
    return r.exit_status;
}
