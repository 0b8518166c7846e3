/* run.h - running the tracked command (or waiting on an attached PID) under a
 * tracker, with signals forwarded. */
#ifndef GT_CLI_RUN_H
#define GT_CLI_RUN_H

#include <sys/types.h>

#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

/* The most PIDs of processes left running that a result names. */
#define RUN_LEFT_PIDS 8
/* The exit status of a held command whose gpu-tracker went away before
 * releasing it: it never ran (as a shell's "cannot execute"). */
#define RUN_NOT_STARTED 126

/* How a run ended. */
struct run_result {
    int exit_status;   /* what gpu-tracker should exit with */
    int status_code;   /* the command's code: exit code, or 128+N for signal N */
    int signalled;     /* the command died by a signal */
    int interrupted;   /* --pid: tracking stopped by a signal to us */
    /* Processes the command started that were still running when tracking
     * ended (its orphans, which came to us as their subreaper): how many,
     * and the PIDs of the first RUN_LEFT_PIDS. */
    size_t left_running;
    pid_t left_pids[RUN_LEFT_PIDS];
    /* Why the sampling thread could not be made when the first look came
     * ("": it was, or the run ended first); the run then has only its
     * start and its end. */
    char sampler_error[256];
    /* --on-limit kill ended the tree, yet part of it was still there
     * RUN_KILL_GRACE seconds after the SIGKILL (a process stuck in the
     * kernel, one we may not signal, an init that ignores the signal):
     * tracking stopped without waiting longer. */
    int kill_wait_ended;
};

/* How long the wait for a tree that a limit ended may last after its
 * SIGKILL (kill_after seconds after the SIGTERM). */
#define RUN_KILL_GRACE 5.0

/* What the caller wants besides the run itself. */
struct run_control {
    /* Called once the command runs (exec succeeded) or tracking of an
     * attached process has begun. NULL: nothing. */
    void (*on_started)(pid_t pid, const gt_options *opts, gt_tracker *t);
    /* Called about once a second while tracking, from the waiting thread
     * (a status line). NULL: the wait sleeps until something happens. */
    void (*on_tick)(gt_tracker *t);
    /* Called with SIGWINCH, SIGTSTP and SIGCONT, which are then taken
     * from the terminal for it (not passed on: the terminal sends them to
     * the command itself). NULL: they act as they would without us. */
    void (*on_terminal_signal)(int signo);
    /* run_command: once the command has exited, keep tracking until every
     * process it started has ended too (--wait-all). */
    int wait_all;
    /* The limits' watch (made from the same options), attached to the
     * tracker before the command runs; once the command has exited, a
     * tree its --on-limit kill ended is waited for as --wait-all does.
     * NULL: no limits. */
    gt_limit_watch *limits;
    const gt_limit_options *limit_options; /* what it was made from */
    /* run_command: the command's standard output is our standard error
     * (our standard output carries a document it must not print into). */
    int command_stdout_to_stderr;
};

/* Ignores SIGPIPE in gpu-tracker (a closed standard output is then an
 * error we report, not a silent death), keeping what it was for the
 * command, which gets it back. Call once, first. */
void run_ignore_sigpipe(void);

/* Starts argv with the tracker watching it and waits until it ends; the
 * tracker is stopped on return. On failure before the command ran, returns -1
 * with a one-line message in err (exit_status 127 when the command could not
 * be started, 1 otherwise) and *t is NULL. When the command has exited,
 * the processes it started that still run are counted in r->left_running
 * (after waiting for them with control->wait_all); the tracker's final
 * sample saw them. */
int run_command(char **argv, gt_options *opts, gt_tracker **t,
                struct run_result *r, const struct run_control *control, char *err,
                size_t errcap);

/* Tracks an existing process until it ends or we get SIGINT/SIGTERM/SIGHUP.
 * Same contract as run_command (pid must not be our own; wait_all and
 * left_running do not apply: its other processes are not our children). */
int run_attached(pid_t pid, gt_options *opts, gt_tracker **t,
                 struct run_result *r, const struct run_control *control, char *err,
                 size_t errcap);

#endif
