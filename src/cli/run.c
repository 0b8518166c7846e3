/* run.c - launching, waiting, reaping and signal forwarding.
 *
 * gpu-tracker makes itself a child subreaper, so orphaned grandchildren come
 * back to it rather than to init: they stay in the tracked tree, and when it
 * reaps them their CPU time lands in its own cutime/cstime, which the tracker
 * counts (see options.reaper_pid). The command is forked first and held on a
 * pipe until the tracker has its baseline, then exec'd; a failed exec comes
 * back as an errno on a close-on-exec pipe. */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t child_pid;   /* where forwarded signals go */
static volatile sig_atomic_t pending_sig; /* a signal that came before fork */
static volatile sig_atomic_t stop_sig;    /* --pid: the signal that stops us */

static void forward_signal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    /* A terminal's Ctrl-C (si_code SI_KERNEL) already reached the command,
     * which shares our process group; only pass on what was sent to us. */
    if (info && info->si_code == SI_KERNEL)
        return;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
    else
        pending_sig = sig;
}

static void note_stop_signal(int sig)
{
    stop_sig = sig;
}

static void install_handlers(int forward)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (forward) {
        sa.sa_sigaction = forward_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
    } else {
        sa.sa_handler = note_stop_signal; /* no SA_RESTART: wake poll() */
    }
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Creates and starts a tracker for opts; NULL with the reason in err. */
static gt_tracker *start_tracker(const gt_options *opts, char *err, size_t errcap)
{
    gt_tracker *tracker = NULL;
    gt_status st = gt_tracker_new(opts, &tracker);
    if (st == GT_OK)
        st = gt_tracker_start(tracker);
    if (st == GT_OK)
        return tracker;
    snprintf(err, errcap, "%s", gt_last_error());
    gt_tracker_free(tracker);
    return NULL;
}

static void set_status(struct run_result *r, int wstatus)
{
    if (WIFSIGNALED(wstatus)) {
        r->signalled = 1;
        r->status_code = 128 + WTERMSIG(wstatus);
    } else {
        r->status_code = WEXITSTATUS(wstatus);
    }
    r->exit_status = r->status_code;
}

/* Large trees need a descriptor or more per process: take our hard limit as
 * our soft one. *saved gets the old limits, to give the command. */
static void raise_fd_limit(struct rlimit *saved)
{
    if (getrlimit(RLIMIT_NOFILE, saved) == 0 && saved->rlim_cur < saved->rlim_max) {
        struct rlimit more = {saved->rlim_max, saved->rlim_max};
        setrlimit(RLIMIT_NOFILE, &more);
    }
}

int run_command(char **argv, gt_options *opts, gt_tracker **t, struct run_result *r,
                void (*on_started)(pid_t pid, const gt_options *opts),
                char *err, size_t errcap)
{
    struct rlimit fd_limit;
    raise_fd_limit(&fd_limit);
    memset(r, 0, sizeof *r);
    *t = NULL;
    r->exit_status = 1;
    /* --sampled-only compares with a plain sampler: no subreaper. */
    if (!opts->sampled_only && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
        snprintf(err, errcap, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    int go[2], fail[2];
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(fail, O_CLOEXEC) < 0) {
        snprintf(err, errcap, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    install_handlers(1);

    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errcap, "cannot fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* The child: wait for the go, then become the command. */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        setrlimit(RLIMIT_NOFILE, &fd_limit); /* the command gets what we had */
        close(go[1]);
        close(fail[0]);
        char c;
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        execvp(argv[0], argv);
        int e = errno;
        ssize_t w = write(fail[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(go[0]);
    close(fail[1]);
    child_pid = pid;

    opts->process_id = pid;
    opts->reaper_pid = opts->sampled_only ? 0 : getpid();
    gt_tracker *tracker = start_tracker(opts, err, errcap);
    if (!tracker) {
        kill(pid, SIGKILL);
        close(go[1]);
        waitpid(pid, NULL, 0);
        close(fail[0]);
        return -1;
    }
    close(go[1]); /* go */

    int exec_errno = 0;
    ssize_t n;
    while ((n = read(fail[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(fail[0]);
    if (n == (ssize_t)sizeof exec_errno) {
        waitpid(pid, NULL, 0);
        gt_tracker_stop(tracker); /* a clean stop: no backup file left behind */
        gt_tracker_free(tracker);
        r->exit_status = 127;
        snprintf(err, errcap, "cannot run '%s': %s", argv[0], strerror(exec_errno));
        return -1;
    }
    if (pending_sig)
        kill(pid, pending_sig);
    if (on_started)
        on_started(pid, opts);

    /* Wait for the command. waitid(WNOWAIT) tells us who has exited without
     * reaping it: adopted orphans are reaped at once (their ru_maxrss goes to
     * the tracker); the command is left a zombie for the final sample, whose
     * stat then still holds its final CPU times. */
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
            if (errno == EINTR)
                continue;
            break; /* ECHILD: cannot happen while the command is unreaped */
        }
        if (si.si_pid == pid)
            break;
        int ws;
        struct rusage ru;
        if (wait4(si.si_pid, &ws, 0, &ru) > 0)
            gt_tracker_add_reaped(tracker, si.si_pid, &ru);
    }
    gt_tracker_stop(tracker);
    /* Once reaped, its PID may be reused: forward no more signals. */
    child_pid = 0;
    int ws = 0;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &ws, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (w == pid) {
        gt_tracker_add_reaped(tracker, pid, &ru);
        set_status(r, ws);
    }
    /* Orphans that exited while we took the final sample: their CPU time was
     * in that sample (a zombie's stat keeps it), their peak RSS is here. */
    pid_t z;
    while ((z = wait4(-1, &ws, WNOHANG, &ru)) > 0)
        gt_tracker_add_reaped(tracker, z, &ru);
    *t = tracker;
    return 0;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int run_attached(pid_t pid, gt_options *opts, gt_tracker **t, struct run_result *r,
                 void (*on_started)(pid_t pid, const gt_options *opts),
                 char *err, size_t errcap)
{
    struct rlimit fd_limit;
    raise_fd_limit(&fd_limit);
    memset(r, 0, sizeof *r);
    *t = NULL;
    r->exit_status = 1;
    install_handlers(0);
    opts->process_id = pid;
    opts->reaper_pid = 0;
    /* With another procfs root (fixture trees), "ended" means its entry there
     * is gone; with the real one, a pidfd tells us without polling. */
    int real_proc = !opts->proc_root || strcmp(opts->proc_root, "/proc") == 0;
    char entry[4096];
    snprintf(entry, sizeof entry, "%s/%d", opts->proc_root ? opts->proc_root : "/proc", (int)pid);
    int pidfd = real_proc ? open_pidfd(pid) : -1;
    gt_tracker *tracker = start_tracker(opts, err, errcap);
    if (!tracker) {
        if (pidfd >= 0)
            close(pidfd);
        return -1;
    }
    if (on_started)
        on_started(pid, opts);

    while (!stop_sig) {
        if (pidfd >= 0) {
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            int rc = poll(&p, 1, -1);
            if (rc > 0)
                break; /* the process has exited */
            if (rc < 0 && errno != EINTR)
                break;
        } else {
            /* No pidfd (kernel < 5.3, or a fixture root): look every 50 ms. */
            if (real_proc ? kill(pid, 0) < 0 && errno == ESRCH : access(entry, F_OK) < 0)
                break;
            struct timespec ts = {0, 50 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    gt_tracker_stop(tracker);
    if (pidfd >= 0)
        close(pidfd);
    if (stop_sig) {
        r->interrupted = 1;
        r->exit_status = 128 + stop_sig;
    } else {
        r->exit_status = 0;
    }
    *t = tracker;
    return 0;
}
