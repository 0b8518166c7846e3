/* held_command.c - see held_command.h. */
#define _GNU_SOURCE
#include "held_command.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* ---- the shared-memory child ------------------------------------------ */

/* ThreadSanitizer's runtime takes clone() over and cannot follow a child
 * that shares its memory: its builds hold the command by fork() (the
 * fallback, tested there and with GPU_TRACKER_HOLD_BY_FORK). */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HELD_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define HELD_UNDER_TSAN 1
#endif

#if (defined(__x86_64__) || defined(__aarch64__)) && defined(SYS_clone) && !defined(HELD_UNDER_TSAN)
#define HELD_SHARED 1
#else
#define HELD_SHARED 0
#endif

#if HELD_SHARED

/* The child's code must not be instrumented: a sanitizer's checks write its
 * state, which is the parent's here. The stack protector only reads the
 * parent's canary, which is the child's too. */
#if defined(__clang__)
#define CHILD_CODE __attribute__((noinline, no_sanitize("address", "thread", "undefined")))
#else
#define CHILD_CODE                                                                              \
    __attribute__((noinline, no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
#endif

/* A system call without libc: the result, or minus the error. */
CHILD_CODE static long raw_call(long nr, long a, long b, long c, long d)
{
    long ret;
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
#else
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    ret = x0;
#endif
    return ret;
}

/* The kernel's struct sigaction (x86-64 and arm64 alike). */
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};

/* All the child reads: the parent's, unchanged until the exec. */
struct child_plan {
    int go_fd, fail_fd, go_parent, fail_parent;
    int stdout_to_stderr, exit_not_started;
    unsigned long mask;          /* the command's: the kernel's 64-bit set */
    struct kernel_sigaction sigpipe;
    struct rlimit fd_limit;
    char **argv, **envp, **sh_argv;
    const char *paths;
};

CHILD_CODE static void child_exit(int status)
{
    for (;;)
        raw_call(SYS_exit, status, 0, 0, 0);
}

/* The held process: waits for the go, then becomes the command, trying
 * each path as execvp does (an error other than "not there" or "not
 * allowed" ends the search; "not allowed" anywhere wins over "not
 * there"); a failure goes back as an errno on fail_fd. */
CHILD_CODE static int held_child(void *arg)
{
    const struct child_plan *p = arg;
    /* Every signal is blocked from the clone on (start_shared): no handler
     * of the parent's may run here, on its memory. */
    raw_call(SYS_rt_sigaction, SIGPIPE, (long)&p->sigpipe, 0, sizeof p->sigpipe.mask);
    raw_call(SYS_prlimit64, 0, RLIMIT_NOFILE, (long)&p->fd_limit, 0);
    raw_call(SYS_close, p->go_parent, 0, 0, 0);
    raw_call(SYS_close, p->fail_parent, 0, 0, 0);
    char c = 0;
    long got;
    do
        got = raw_call(SYS_read, p->go_fd, (long)&c, 1, 0);
    while (got == -EINTR);
    if (got != 1)
        child_exit(p->exit_not_started); /* gpu-tracker is gone: the command never runs */
    if (p->stdout_to_stderr && raw_call(SYS_dup3, STDERR_FILENO, STDOUT_FILENO, 0, 0) < 0)
        child_exit(p->exit_not_started);
    raw_call(SYS_rt_sigprocmask, SIG_SETMASK, (long)&p->mask, 0, sizeof p->mask);
    long error = -ENOENT;
    int denied = 0;
    for (const char *path = p->paths; *path;) {
        long rc = raw_call(SYS_execve, (long)path, (long)p->argv, (long)p->envp, 0);
        if (rc == -ENOEXEC) { /* a script without #!: the shell runs it, as execvp does */
            p->sh_argv[1] = (char *)path;
            rc = raw_call(SYS_execve, (long)"/bin/sh", (long)p->sh_argv, (long)p->envp, 0);
        }
        if (rc == -EACCES)
            denied = 1;
        else if (rc != -ENOENT && rc != -ENOTDIR && rc != -ESTALE && rc != -ENODEV &&
                 rc != -ETIMEDOUT) {
            error = rc;
            break;
        }
        while (*path)
            path++;
        path++;
    }
    int e = (int)-(error == -ENOENT && denied ? -EACCES : error);
    raw_call(SYS_write, p->fail_fd, (long)&e, sizeof e, 0);
    child_exit(127);
    return 0;
}

#endif /* HELD_SHARED */

/* ---- the parent's side ------------------------------------------------ */

#if HELD_SHARED
/* The paths execvp would try for name, each NUL-ended, then an empty one:
 * name itself when it holds a '/', else each PATH directory's (an empty
 * directory is the working one; no PATH: /bin:/usr/bin, as glibc). NULL
 * when out of memory. */
static char *candidate_paths(const char *name)
{
    if (!*name || strchr(name, '/')) {
        size_t n = strlen(name);
        char *one = malloc(n + 2);
        if (one) {
            memcpy(one, name, n + 1);
            one[n + 1] = '\0';
            if (!*name)
                one[0] = '\0'; /* "": nothing to try (ENOENT) */
        }
        return one;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    size_t nlen = strlen(name), cap = 1, dirs = 1;
    for (const char *c = path; *c; c++)
        dirs += *c == ':';
    cap += strlen(path) + dirs * (nlen + 2);
    char *out = malloc(cap), *w = out;
    if (!out)
        return NULL;
    for (const char *d = path;; d++) {
        const char *end = strchrnul(d, ':');
        if (end > d) {
            memcpy(w, d, (size_t)(end - d));
            w += end - d;
            *w++ = '/';
        }
        memcpy(w, name, nlen + 1);
        w += nlen + 1;
        if (!*end)
            break;
        d = end;
    }
    *w = '\0';
    return out;
}

/* Starts the shared-memory child; 0, or -1 (errno set) to fall back. */
static int start_shared(struct held_command *h, const struct held_setup *s, int go[2],
                        int fail[2])
{
    size_t argc = 0;
    while (s->argv[argc])
        argc++;
    h->paths = candidate_paths(s->argv[0]);
    h->sh_argv = calloc(argc + 2, sizeof *h->sh_argv);
    struct child_plan *p = calloc(1, sizeof *p);
    /* The plan lies at the top of the child's stack: freed with it. */
    h->stack_size = 64 * 1024;
    h->stack = mmap(NULL, h->stack_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (!h->paths || !h->sh_argv || !p || h->stack == MAP_FAILED) {
        if (h->stack == MAP_FAILED)
            h->stack = NULL;
        free(p);
        errno = ENOMEM;
        return -1;
    }
    h->sh_argv[0] = "/bin/sh";
    for (size_t i = 1; i < argc; i++)
        h->sh_argv[i + 1] = s->argv[i];
    struct child_plan *plan = (struct child_plan *)((char *)h->stack + h->stack_size) - 1;
    p->go_fd = go[0];
    p->fail_fd = fail[1];
    p->go_parent = go[1];
    p->fail_parent = fail[0];
    p->stdout_to_stderr = s->stdout_to_stderr;
    p->exit_not_started = s->exit_not_started;
    memcpy(&p->mask, s->mask, sizeof p->mask); /* the kernel's set: its first 64 bits */
    p->sigpipe.handler = s->sigpipe->sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
    p->fd_limit = *s->fd_limit;
    p->argv = s->argv;
    p->envp = environ;
    p->sh_argv = h->sh_argv;
    p->paths = h->paths;
    *plan = *p;
    free(p);
    /* The child's stack grows down from just below the plan (16-aligned). */
    char *top = (char *)((unsigned long)plan & ~15UL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = clone(held_child, top, CLONE_VM | SIGCHLD, plan);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    if (pid < 0)
        return -1;
    h->pid = pid;
    h->shared = 1;
    return 0;
}
#endif

int held_command_start(struct held_command *h, const struct held_setup *s, char *err,
                       size_t errcap)
{
    memset(h, 0, sizeof *h);
    h->go_fd = h->fail_fd = -1;
    int go[2], fail[2];
    if (pipe2(go, O_CLOEXEC) < 0) {
        snprintf(err, errcap, "cannot create a pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(fail, O_CLOEXEC) < 0) {
        snprintf(err, errcap, "cannot create a pipe: %s", strerror(errno));
        close(go[0]);
        close(go[1]);
        return -1;
    }
    int started = -1;
#if HELD_SHARED
    if (!s->by_fork)
        started = start_shared(h, s, go, fail);
    if (started < 0 && !s->by_fork) { /* fork() instead, with nothing of this left */
        held_command_release(h);
        memset(h, 0, sizeof *h);
    }
#endif
    if (started < 0) {
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(err, errcap, "cannot fork: %s", strerror(errno));
            close(go[0]);
            close(go[1]);
            close(fail[0]);
            close(fail[1]);
            h->go_fd = h->fail_fd = -1;
            return -1;
        }
        if (pid == 0) {
            /* The child: the signal mask and SIGPIPE the command would
             * have had without us, then wait for the go, and become the
             * command. */
            sigaction(SIGPIPE, s->sigpipe, NULL);
            sigprocmask(SIG_SETMASK, s->mask, NULL);
            setrlimit(RLIMIT_NOFILE, s->fd_limit);
            close(go[1]);
            close(fail[0]);
            /* The go is one byte. End of file means gpu-tracker is gone
             * (killed before it could start tracking): the command must
             * not run untracked, so it does not run at all. */
            char c;
            ssize_t got;
            while ((got = read(go[0], &c, 1)) < 0 && errno == EINTR)
                ;
            if (got != 1)
                _exit(s->exit_not_started);
            if (s->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
                _exit(s->exit_not_started);
            execvp(s->argv[0], s->argv);
            int e = errno;
            ssize_t w = write(fail[1], &e, sizeof e);
            (void)w;
            _exit(127);
        }
        h->pid = pid;
    }
    close(go[0]);
    close(fail[1]);
    h->go_fd = go[1];
    h->fail_fd = fail[0];
    return 0;
}

void held_command_release(struct held_command *h)
{
    if (h->go_fd >= 0)
        close(h->go_fd);
    if (h->fail_fd >= 0)
        close(h->fail_fd);
    h->go_fd = h->fail_fd = -1;
    if (h->stack)
        munmap(h->stack, h->stack_size);
    h->stack = NULL;
    free(h->paths);
    free(h->sh_argv);
    h->paths = NULL;
    h->sh_argv = NULL;
}
