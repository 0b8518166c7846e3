/* held_command.h - the command's process, made and held before its exec
 * until the tracker has its baseline (run.c): no process of the job runs
 * untracked.
 *
 * Where this file has the architecture's raw system calls (x86-64, arm64)
 * the held process shares gpu-tracker's memory until its exec (clone with
 * CLONE_VM, as posix_spawn makes its child), instead of being a fork():
 * no page tables are copied and none of gpu-tracker's pages become
 * copy-on-write, so the tracker's setup while the command waits faults no
 * page copies (about half a millisecond of a short run's CPU on the
 * development VM: docs/performance.md, "Start-up"). Such a child runs only
 * raw system calls, on a stack of its own, and reads only what the parent
 * prepared and leaves unchanged until the exec; it writes nothing of ours
 * (not errno, no lock, no sanitizer state). Elsewhere, or when clone
 * fails, fork(). */
#ifndef GT_CLI_HELD_COMMAND_H
#define GT_CLI_HELD_COMMAND_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

/* What the command gets as it would have without us. */
struct held_setup {
    char **argv;                   /* argv[0] looked up in PATH as execvp does */
    const sigset_t *mask;          /* its signal mask */
    const struct sigaction *sigpipe; /* its SIGPIPE disposition (SIG_DFL or SIG_IGN
                                      survive an exec; a handler becomes SIG_DFL) */
    const struct rlimit *fd_limit; /* its descriptor limit */
    int stdout_to_stderr;          /* its standard output is our standard error */
    int exit_not_started;          /* its exit status when released without a go */
    int by_fork;                   /* fork() even where the memory could be shared */
};

/* A held command. */
struct held_command {
    pid_t pid;
    int go_fd;     /* ours: one byte makes it exec; closing it unwritten, exit */
    int fail_fd;   /* ours: an int errno when its exec failed, else end of file */
    int shared;    /* it shares our memory until its exec (not a fork) */
    void *stack;   /* its stack (shared: unmapped by held_command_release) */
    size_t stack_size;
    char *paths;   /* the paths it tries, each NUL-ended, then an empty one */
    char **sh_argv; /* for a file without #! (ENOEXEC): /bin/sh FILE ARGS... */
};

/* Makes the held process. 0, or -1 with why in err (nothing is left
 * then). Call with the signals the command must not see yet blocked. */
int held_command_start(struct held_command *h, const struct held_setup *s, char *err,
                       size_t errcap);

/* Frees what the held process used once it has exec'd, exited or been
 * reaped (fail_fd at end of file, or after waitpid): never while it may
 * still run on its stack. Closes go_fd and fail_fd if still open. */
void held_command_release(struct held_command *h);

#endif
