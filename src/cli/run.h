/* run.h - running the tracked command (or waiting on an attached PID) under a
 * tracker, with signals forwarded. */
#ifndef GT_CLI_RUN_H
#define GT_CLI_RUN_H

#include <sys/types.h>

#include "gpu_tracker.h"
#include "gpu_tracker_testing.h"

/* How a run ended. */
struct run_result {
    int exit_status;   /* what gpu-tracker should exit with */
    int status_code;   /* the command's code: exit code, or 128+N for signal N */
    int signalled;     /* the command died by a signal */
    int interrupted;   /* --pid: tracking stopped by a signal to us */
};

/* Ignores SIGPIPE in gpu-tracker (a closed standard output is then an
 * error we report, not a silent death), keeping what it was for the
 * command, which gets it back. Call once, first. */
void run_ignore_sigpipe(void);

/* Starts argv with the tracker watching it and waits until it ends; the
 * tracker is stopped on return. On failure before the command ran, returns -1
 * with a one-line message in err (exit_status 127 when the command could not
 * be started, 1 otherwise) and *t is NULL. on_started is called once the
 * command runs (exec succeeded). */
int run_command(char **argv, gt_options *opts, const gt_testing_hooks *hooks, gt_tracker **t,
                struct run_result *r,
                void (*on_started)(pid_t pid, const gt_options *opts),
                char *err, size_t errcap);

/* Tracks an existing process until it ends or we get SIGINT/SIGTERM/SIGHUP.
 * Same contract as run_command (pid must not be our own). on_started is
 * called once tracking runs. */
int run_attached(pid_t pid, gt_options *opts, const gt_testing_hooks *hooks, gt_tracker **t,
                 struct run_result *r,
                 void (*on_started)(pid_t pid, const gt_options *opts),
                 char *err, size_t errcap);

#endif
