/* run.c - launching, waiting, reaping and signal forwarding.
 *
 * gpu-tracker makes itself a child subreaper, so orphaned grandchildren come
 * back to it rather than to init: they stay in the tracked tree, and when it
 * reaps them their CPU time lands in its own cutime/cstime, which the tracker
 * counts (see options.reaper_pid). The command is forked first and held on a
 * pipe until the tracker has its baseline, then exec'd when one byte comes
 * (end of file alone, gpu-tracker killed meanwhile, means it never runs); a
 * failed exec comes back as an errno on a close-on-exec pipe.
 *
 * Signals are taken synchronously: SIGINT, SIGTERM, SIGHUP and SIGCHLD are
 * blocked while the command runs and read from a signalfd in the wait loop,
 * so there is no asynchronous handler to race with (and a sanitizer, which
 * delays handlers until its next intercepted call, sees them at once). Once
 * the command has ended they are unblocked with their default actions: a
 * signal then ends gpu-tracker, as it would any program, instead of being
 * swallowed while an output waits (a FIFO without a reader, the cloud
 * discovery). */
#define _GNU_SOURCE
#include "run.h"

#include "environment.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The signals we take from the signalfd while tracking: those we pass on,
 * SIGCHLD for a command of ours, and the terminal's for a status line. */
static void tracked_signals(sigset_t *set, int with_chld, const struct run_control *control)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    if (with_chld)
        sigaddset(set, SIGCHLD);
    if (control->on_terminal_signal) {
        sigaddset(set, SIGWINCH);
        sigaddset(set, SIGTSTP);
        sigaddset(set, SIGCONT);
    }
}

/* A terminal's signal, for the status line: 1 when si was one. */
static int terminal_signal(const struct run_control *control, const struct signalfd_siginfo *si)
{
    int s = (int)si->ssi_signo;
    if (s != SIGWINCH && s != SIGTSTP && s != SIGCONT)
        return 0;
    if (control->on_terminal_signal)
        control->on_terminal_signal(s);
    return 1;
}

/* Blocks the signals in set and opens a signalfd for them; -1 with errno.
 * *old gets the mask to restore. */
static int open_signalfd(const sigset_t *set, sigset_t *old)
{
    if (sigprocmask(SIG_BLOCK, set, old) < 0)
        return -1;
    int fd = signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        sigprocmask(SIG_SETMASK, old, NULL);
        errno = e;
    }
    return fd;
}

/* The command has ended (or tracking has): signals act on us as they
 * would without gpu-tracker's wait (we install no handler). One already
 * pending is delivered now. */
static void release_signals(int sfd, const sigset_t *old)
{
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, old, NULL);
}

/* SIGPIPE as gpu-tracker found it, for the command. */
static struct sigaction inherited_sigpipe;

void run_ignore_sigpipe(void)
{
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &inherited_sigpipe);
}

/* Creates and starts a tracker for opts, the limits' watch (NULL: none)
 * attached; NULL with the reason in err. Its sampling thread is made when
 * the first look nears (sampler_poll_ms): a command that ends sooner, as
 * many in a pipeline do, costs none. */
static gt_tracker *start_tracker(const gt_options *opts,
                                 gt_limit_watch *limits, char *err, size_t errcap)
{
    gt_tracker *tracker = NULL;
    gt_status st = gt_tracker_new(opts, &tracker);
    if (st == GT_OK && limits)
        st = gt_limit_watch_attach(limits, tracker);
    if (st == GT_OK)
        st = gt_tracker_start_deferred(tracker);
    if (st == GT_OK)
        return tracker;
    snprintf(err, errcap, "%s", gt_last_error());
    gt_tracker_free(tracker);
    return NULL;
}

/* The poll timeout of a wait loop whose own is wait_ms (-1: none): no
 * later than the moment the sampling thread is due, made there when it is
 * (a failure is kept in r, and tracking goes on to the final sample).
 * *for_sampler says the timeout is the thread's, not the loop's: a poll
 * that times out then is no tick (a status line before the first sample
 * would show nothing yet). */
static int sampler_poll_ms(gt_tracker *t, int wait_ms, struct run_result *r, int *for_sampler)
{
    *for_sampler = 0;
    double due = gt_tracker_sampler_due(t);
    if (due <= 0)
        return wait_ms;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double left = due - ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    if (left <= 0) {
        if (gt_tracker_start_sampler(t) != GT_OK)
            snprintf(r->sampler_error, sizeof r->sampler_error, "%s", gt_last_error());
        return wait_ms;
    }
    int ms = left < 86400 ? (int)(left * 1000.0) + 1 : 86400 * 1000; /* --st of days */
    if (wait_ms >= 0 && wait_ms <= ms)
        return wait_ms;
    *for_sampler = 1;
    return ms;
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

/* Passes a signal sent to us on to the command, and wakes the command up
 * (as timeout(1) does): a stopped command would otherwise never act on it.
 * A terminal's Ctrl-C (si_code SI_KERNEL) already reached the command,
 * which shares our process group: it is not sent a second time. */
static void forward(pid_t pid, const struct signalfd_siginfo *si)
{
    if (si->ssi_code == SI_KERNEL)
        return;
    kill(pid, (int)si->ssi_signo);
    kill(pid, SIGCONT);
}

/* Reaps everything but the command that has exited, giving the tracker each
 * one's peak RSS; returns 1 once the command itself has exited (left a
 * zombie, for the final sample: its stat still holds its final CPU times). */
static int reap_others(pid_t command, gt_tracker *tracker)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | WNOHANG) < 0)
            return errno == ECHILD; /* cannot happen while the command is unreaped */
        if (si.si_pid == 0)
            return 0; /* nobody else has exited */
        if (si.si_pid == command)
            return 1;
        int ws;
        struct rusage ru;
        if (wait4(si.si_pid, &ws, 0, &ru) > 0)
            gt_tracker_add_reaped(tracker, si.si_pid, &ru);
    }
}

/* The whole of the file at path (a children file: "PID PID ..."), however
 * long, NUL-terminated in *buf (malloc'd, *bufcap bytes, grown to fit);
 * NULL when it cannot be opened (a thread that has just ended). Plain reads,
 * not stdio: this runs at the end of every run. */
static const char *read_whole(const char *path, char **buf, size_t *bufcap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t len = 0;
    for (;;) {
        if (len + 1 >= *bufcap) {
            size_t grown = *bufcap ? 2 * *bufcap : 4096;
            char *more = realloc(*buf, grown);
            if (!more)
                break; /* what was read so far */
            *buf = more;
            *bufcap = grown;
        }
        ssize_t got = read(fd, *buf + len, *bufcap - 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    if (!*buf)
        return "";
    (*buf)[len] = '\0';
    return *buf;
}

/* Our live children other than the command: the processes it started that
 * came to us, as their subreaper, when their parents ended (a child of ours
 * that has exited is reaped here, its peak RSS given to the tracker).
 * Listed from our main thread's children file, read whole however long:
 * the main thread made the command, our other threads (the library's) make
 * no process, and the kernel hands an orphan to its subreaper's first live
 * thread, the main one (find_alive_thread). Returns how many there are;
 * pids gets the first cap of them. */
static size_t live_children(pid_t command, gt_tracker *tracker, pid_t *pids, size_t cap)
{
    size_t n = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    char *buf = NULL;
    size_t bufcap = 0;
    const char *list = read_whole(path, &buf, &bufcap);
    for (char *end; list && *list; list = end) {
        long child = strtol(list, &end, 10);
        if (end == list)
            break;
        if (child <= 0 || child > INT_MAX || child == command)
            continue;
        int ws;
        struct rusage ru;
        if (wait4((pid_t)child, &ws, WNOHANG, &ru) == (pid_t)child) {
            gt_tracker_add_reaped(tracker, (pid_t)child, &ru);
            continue;
        }
        if (n < cap)
            pids[n] = (pid_t)child;
        n++;
    }
    free(buf);
    return n;
}

/* The command has exited: keeps tracking until the processes it started
 * (now our children) have ended too. A signal to us is passed on to them
 * and ends the wait. */
/* Whether --on-limit kill has ended the tree (SIGTERM went), with the
 * limits it had in *l. */
static int limit_ended_tree(gt_limit_watch *w, gt_limits *l)
{
    memset(l, 0, sizeof *l);
    return w && gt_limit_watch_report(w, l) == GT_OK && l->killed;
}

/* Bounds the waits once --on-limit kill has ended the tree: *since is the
 * monotonic time the end was first seen (0 before). 1 when the SIGKILL
 * went RUN_KILL_GRACE seconds ago (it goes kill_after after the SIGTERM)
 * and the wait should stop; r says so. The wait loops wake at least once
 * a second while a kill may come (wake_ms). */
static int kill_wait_over(const struct run_control *control, double *since,
                          struct run_result *r)
{
    gt_limits l;
    if (!limit_ended_tree(control->limits, &l))
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (*since == 0)
        *since = now;
    if (now - *since < control->limit_options->kill_after + RUN_KILL_GRACE)
        return 0;
    r->kill_wait_ended = 1;
    return 1;
}

/* A wait loop's poll timeout wait_ms, no longer than a second while
 * --on-limit kill may end the tree (kill_wait_over must get to look). */
static int wake_ms(const struct run_control *control, int wait_ms)
{
    if (!control->limits || control->limit_options->on_limit != GT_ON_LIMIT_KILL)
        return wait_ms;
    return wait_ms < 0 || wait_ms > 1000 ? 1000 : wait_ms;
}

static void wait_for_the_rest(pid_t command, gt_tracker *tracker, int sfd,
                              const struct run_control *control, struct run_result *r)
{
    pid_t pids[64];
    double killed_seen = 0;
    for (;;) {
        size_t n = live_children(command, tracker, pids, sizeof pids / sizeof pids[0]);
        if (n == 0 || kill_wait_over(control, &killed_seen, r))
            return;
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        int for_sampler;
        int wait_ms = sampler_poll_ms(tracker, wake_ms(control, control->on_tick ? 1000 : -1), r,
                                      &for_sampler);
        int rc = poll(&p, 1, wait_ms);
        if (rc < 0 && errno != EINTR)
            return;
        int stop = 0;
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            if (si.ssi_signo == SIGCHLD || terminal_signal(control, &si))
                continue;
            stop = 1;
            if (si.ssi_code == SI_KERNEL)
                continue; /* the terminal sent it to them already */
            size_t shown = n < sizeof pids / sizeof pids[0] ? n : sizeof pids / sizeof pids[0];
            for (size_t i = 0; i < shown; i++) {
                kill(pids[i], (int)si.ssi_signo);
                kill(pids[i], SIGCONT);
            }
        }
        if (stop)
            return;
        if (control->on_tick && !(rc == 0 && for_sampler))
            control->on_tick(tracker);
    }
}

/* Descriptors the command itself keeps back from the tracker's /proc
 * files: its outputs, signalfd and pipes, the GPU libraries' device files. */
#define CLI_RESERVED_FDS 256

/* The forked child: the signal mask (old), SIGPIPE and descriptor limit
 * the command would have had without us, then the go on go_fd, and the
 * command. The go is one byte; end of file means gpu-tracker is gone
 * (killed before it could start tracking): the command must not run
 * untracked, so it does not run at all. An exec that fails writes its
 * errno to fail_fd. Never returns. */
static _Noreturn void become_command(char **argv, const sigset_t *old,
                                     const struct rlimit *fd_limit,
                                     int go_fd, int fail_fd,
                                     const struct run_control *control)
{
    sigaction(SIGPIPE, &inherited_sigpipe, NULL);
    sigprocmask(SIG_SETMASK, old, NULL);
    setrlimit(RLIMIT_NOFILE, fd_limit); /* the command gets what we had */
    char c;
    ssize_t got;
    while ((got = read(go_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    if (got != 1)
        _exit(RUN_NOT_STARTED);
    if (control->command_stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        _exit(RUN_NOT_STARTED);
    execvpe(argv[0], argv, cli_job_environment());
    int e = errno;
    ssize_t w = write(fail_fd, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* Waits for the command pid to end, reaping adopted orphans as they exit
 * and passing on the signals sent to us (those that came before it ran
 * too: they waited in the signalfd sfd), ticking control->on_tick. */
static void wait_for_command(pid_t pid, gt_tracker *tracker, int sfd,
                             const struct run_control *control, struct run_result *r)
{
    while (!reap_others(pid, tracker)) {
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        int for_sampler;
        int wait_ms = sampler_poll_ms(tracker, control->on_tick ? 1000 : -1, r, &for_sampler);
        int rc = poll(&p, 1, wait_ms);
        if (rc < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (si.ssi_signo != SIGCHLD && !terminal_signal(control, &si))
                forward(pid, &si);
        if (control->on_tick && !(rc == 0 && for_sampler))
            control->on_tick(tracker);
    }
}

/* After the final sample: the command reaped (its status and rusage into
 * r and the tracker), then the orphans that exited while the sample was
 * taken: their CPU time was in it (a zombie's stat keeps it), their peak
 * RSS is here. */
static void reap_command(pid_t pid, gt_tracker *tracker, struct run_result *r)
{
    int ws = 0;
    struct rusage ru;
    pid_t w;
    while ((w = wait4(pid, &ws, 0, &ru)) < 0 && errno == EINTR)
        ;
    if (w == pid) {
        gt_tracker_add_reaped(tracker, pid, &ru);
        set_status(r, ws);
    }
    pid_t z;
    while ((z = wait4(-1, &ws, WNOHANG, &ru)) > 0)
        gt_tracker_add_reaped(tracker, z, &ru);
}

/* What both ways of running begin with: as many descriptors as we may
 * have (the old limit in *fd_limit, for the command), nearly all of them
 * the tracker's to keep /proc files open (the library's default is a
 * quarter, for programs that have other uses for them; this one has
 * none), no tracker, no result yet. */
static void run_begin(struct rlimit *fd_limit, gt_options *opts, gt_tracker **t,
                      struct run_result *r)
{
    raise_fd_limit(fd_limit);
    struct rlimit now;
    if (opts->max_kept_files == 0 && getrlimit(RLIMIT_NOFILE, &now) == 0 &&
        now.rlim_cur >= 2 * CLI_RESERVED_FDS)
        opts->max_kept_files = now.rlim_cur - CLI_RESERVED_FDS > (1 << 20)
                                   ? (1 << 20) : (int)(now.rlim_cur - CLI_RESERVED_FDS);
    memset(r, 0, sizeof *r);
    *t = NULL;
    r->exit_status = 1;
}

int run_command(char **argv, gt_options *opts, gt_tracker **t,
                struct run_result *r, const struct run_control *control, char *err,
                size_t errcap)
{
    struct rlimit fd_limit;
    run_begin(&fd_limit, opts, t, r);
    /* --sampled-only compares with a plain sampler: no subreaper. */
    if (!opts->sampled_only && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
        snprintf(err, errcap, "cannot become a child subreaper: %s", strerror(errno));
        return -1;
    }
    sigset_t set, old;
    tracked_signals(&set, 1, control);
    int sfd = open_signalfd(&set, &old);
    if (sfd < 0) {
        snprintf(err, errcap, "cannot take signals: %s", strerror(errno));
        return -1;
    }
    int go[2], fail[2];
    if (pipe2(go, O_CLOEXEC) < 0 || pipe2(fail, O_CLOEXEC) < 0) {
        snprintf(err, errcap, "cannot create a pipe: %s", strerror(errno));
        release_signals(sfd, &old);
        return -1;
    }

    /* A fork(), not a child that shares our memory until its exec (clone
     * with CLONE_VM, as posix_spawn makes): that one starts 0.3 ms cheaper,
     * but the kernel records the old memory's high-water mark at an exec
     * into the process's maximum RSS, which wait4 reports: the command's
     * exact peak (options.reaper_pid) would carry gpu-tracker's own memory
     * as it was at the go, 2.5 MiB here and 22 MiB with NVML loaded. A
     * fork's copy holds only what we had mapped at this point (about 1 MiB)
     * and grows no further. */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errcap, "cannot fork: %s", strerror(errno));
        release_signals(sfd, &old);
        return -1;
    }
    if (pid == 0) {
        close(go[1]);
        close(fail[0]);
        become_command(argv, &old, &fd_limit, go[0], fail[1], control);
    }
    close(go[0]);
    close(fail[1]);

    opts->process_id = pid;
    opts->reaper_pid = opts->sampled_only ? 0 : getpid();
    gt_tracker *tracker = start_tracker(opts, control->limits, err, errcap);
    if (!tracker) {
        kill(pid, SIGKILL);
        close(go[1]);
        waitpid(pid, NULL, 0);
        close(fail[0]);
        release_signals(sfd, &old);
        return -1;
    }
    /* go: one byte (the child runs nothing on end of file alone) */
    ssize_t sent;
    while ((sent = write(go[1], "g", 1)) < 0 && errno == EINTR)
        ;
    close(go[1]);
    if (sent != 1) {
        int e = errno;
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(fail[0]);
        gt_tracker_stop(tracker);
        gt_tracker_free(tracker);
        release_signals(sfd, &old);
        snprintf(err, errcap, "cannot start the command: %s", strerror(e));
        return -1;
    }

    int exec_errno = 0;
    ssize_t n;
    while ((n = read(fail[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(fail[0]);
    if (n == (ssize_t)sizeof exec_errno) {
        waitpid(pid, NULL, 0);
        gt_tracker_stop(tracker); /* a clean stop: no backup file left behind */
        gt_tracker_free(tracker);
        release_signals(sfd, &old);
        r->exit_status = 127;
        snprintf(err, errcap, "cannot run '%s': %s", argv[0], strerror(exec_errno));
        return -1;
    }
    if (control->on_started)
        control->on_started(pid, opts, tracker);

    wait_for_command(pid, tracker, sfd, control, r);
    /* What the command started and left running (without a subreaper we
     * cannot see it): waited for, or named. The final sample measures it
     * as it is now. */
    if (!opts->sampled_only) {
        gt_limits l;
        if (control->wait_all || limit_ended_tree(control->limits, &l))
            wait_for_the_rest(pid, tracker, sfd, control, r);
        r->left_running = live_children(pid, tracker, r->left_pids, RUN_LEFT_PIDS);
    }
    gt_tracker_stop(tracker);
    reap_command(pid, tracker, r);
    /* Once reaped, its PID may be reused: no more forwarding, and signals
     * act on us again. */
    release_signals(sfd, &old);
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

int run_attached(pid_t pid, gt_options *opts, gt_tracker **t,
                 struct run_result *r, const struct run_control *control, char *err,
                 size_t errcap)
{
    struct rlimit fd_limit;
    run_begin(&fd_limit, opts, t, r);
    if (pid == getpid()) {
        snprintf(err, errcap, "--pid %d is gpu-tracker itself: it would wait for its own end; "
                 "give the PID of another process", (int)pid);
        return -1;
    }
    opts->process_id = pid;
    opts->reaper_pid = 0;
    sigset_t set, old;
    tracked_signals(&set, 0, control);
    int sfd = open_signalfd(&set, &old);
    if (sfd < 0) {
        snprintf(err, errcap, "cannot take signals: %s", strerror(errno));
        return -1;
    }
    /* With another procfs root (fixture trees), "ended" means its entry there
     * is gone; with the real one, a pidfd tells us without polling. */
    int real_proc = !opts->proc_root || strcmp(opts->proc_root, "/proc") == 0;
    char entry[4096];
    snprintf(entry, sizeof entry, "%s/%d", opts->proc_root ? opts->proc_root : "/proc", (int)pid);
    int pidfd = real_proc ? open_pidfd(pid) : -1;
    gt_tracker *tracker = start_tracker(opts, control->limits, err, errcap);
    if (!tracker) {
        if (pidfd >= 0)
            close(pidfd);
        release_signals(sfd, &old);
        return -1;
    }
    if (control->on_started)
        control->on_started(pid, opts, tracker);

    int stop_sig = 0;
    double killed_seen = 0;
    while (!stop_sig && !kill_wait_over(control, &killed_seen, r)) {
        /* No pidfd (kernel < 5.3, or a fixture root): look every 50 ms. */
        struct pollfd p[2] = {{.fd = sfd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
        int for_sampler;
        int rc = poll(p, pidfd >= 0 ? 2 : 1,
                      sampler_poll_ms(tracker,
                                      wake_ms(control, pidfd < 0 ? 50 : control->on_tick ? 1000 : -1),
                                      r, &for_sampler));
        if (control->on_tick && !(rc == 0 && for_sampler))
            control->on_tick(tracker);
        if (rc < 0 && errno != EINTR)
            break;
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
            if (!terminal_signal(control, &si))
                stop_sig = (int)si.ssi_signo;
        if (pidfd >= 0 ? (p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0
                       : real_proc ? kill(pid, 0) < 0 && errno == ESRCH
                                   : access(entry, F_OK) < 0)
            break; /* the process has exited */
    }
    gt_tracker_stop(tracker);
    if (pidfd >= 0)
        close(pidfd);
    release_signals(sfd, &old);
    if (stop_sig) {
        r->interrupted = 1;
        r->exit_status = 128 + stop_sig;
    } else {
        r->exit_status = 0;
    }
    *t = tracker;
    return 0;
}
