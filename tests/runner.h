/* runner.h - running programs from the tests: spawn with pipes, read until a
 * line appears, collect the rest and the exit status, read JSON figures. */
#ifndef GT_RUNNER_H
#define GT_RUNNER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define MIB (1024.0 * 1024.0)

/* ---- running processes ------------------------------------------------- */

struct child {
    pid_t pid;
    int in, out, err; /* our ends of its stdin, stdout, stderr (-1 if none) */
};

static inline struct child spawn(char *const argv[], int want_stdin)
{
    int in[2] = {-1, -1}, out[2], err[2];
    if ((want_stdin && pipe(in) < 0) || pipe(out) < 0 || pipe(err) < 0) {
        perror("pipe");
        exit(99);
    }
    struct child c = {fork(), -1, out[0], err[0]};
    if (c.pid == 0) {
        if (want_stdin)
            dup2(in[0], 0);
        else
            dup2(open("/dev/null", O_RDONLY), 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        for (int fd = 3; fd < 64; fd++)
            close(fd);
        execv(argv[0], argv);
        _exit(126);
    }
    if (want_stdin) {
        close(in[0]);
        c.in = in[1];
    }
    close(out[1]);
    close(err[1]);
    return c;
}

struct buf {
    char *data;
    size_t len;
};

static inline void buf_append(struct buf *b, const char *p, size_t n)
{
    b->data = realloc(b->data, b->len + n + 1);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* Reads fd into b until needle appears (or EOF when needle is NULL). */
static inline int read_until(int fd, struct buf *b, const char *needle)
{
    if (!b->data)
        buf_append(b, "", 0);
    while (!needle || !strstr(b->data, needle)) {
        char tmp[4096];
        ssize_t n = read(fd, tmp, sizeof tmp);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return needle ? -1 : 0;
        buf_append(b, tmp, (size_t)n);
    }
    return 0;
}

struct result {
    int status; /* exit status, or 128+signal */
    struct buf out, err;
    json_object *json; /* stdout or the -o file parsed, when asked */
};

/* Waits for c, collecting what is left of its stdout and stderr. */
static inline void finish(struct child *c, struct result *r)
{
    if (c->in >= 0)
        close(c->in);
    struct pollfd p[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
    struct buf *bufs[2] = {&r->out, &r->err};
    int open_fds = 2;
    if (!r->out.data)
        buf_append(&r->out, "", 0);
    if (!r->err.data)
        buf_append(&r->err, "", 0);
    while (open_fds > 0) {
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
                continue;
            char tmp[4096];
            ssize_t n = read(p[i].fd, tmp, sizeof tmp);
            if (n > 0) {
                buf_append(bufs[i], tmp, (size_t)n);
            } else {
                close(p[i].fd);
                p[i].fd = -1;
                open_fds--;
            }
        }
    }
    int ws;
    waitpid(c->pid, &ws, 0);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* finish(), but a child still running after seconds is killed (SIGKILL)
 * and the check fails: a regression that hangs fails the test instead of
 * stopping the suite. A deadline, not a timing assertion: what is waited
 * for takes milliseconds when all is well. */
static inline void finish_within(struct child *c, struct result *r, double seconds,
                                 const char *what)
{
    pid_t watchdog = fork();
    if (watchdog == 0) {
        struct timespec ts = {(time_t)seconds, 0};
        nanosleep(&ts, NULL);
        if (kill(c->pid, 0) == 0) {
            kill(c->pid, SIGKILL);
            _exit(1);
        }
        _exit(0);
    }
    finish(c, r);
    kill(watchdog, SIGKILL);
    int ws = 0;
    waitpid(watchdog, &ws, 0);
    CHECK_MSG(!(WIFEXITED(ws) && WEXITSTATUS(ws) == 1), "%s did not end within %g s", what,
              seconds);
}

static inline void result_free(struct result *r)
{
    free(r->out.data);
    free(r->err.data);
    if (r->json)
        json_object_put(r->json);
    memset(r, 0, sizeof *r);
}

/* Runs argv to its end, collecting its output and status. */
static inline struct result run_argv(char *const argv[])
{
    struct child c = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    finish(&c, &r);
    return r;
}

/* argv (64 slots) for gpu-tracker and the arguments first, then ap's up
 * to a NULL. */
static inline void gt_argv(char *argv[64], const char *first, va_list ap)
{
    int n = 0;
    argv[n++] = GT_BIN;
    for (const char *a = first; a && n < 63; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    argv[n] = NULL;
}

/* Runs gpu-tracker with the given arguments (NULL-terminated). */
static inline struct result gt(const char *first, ...)
{
    char *argv[64];
    va_list ap;
    va_start(ap, first);
    gt_argv(argv, first, ap);
    va_end(ap);
    return run_argv(argv);
}

/* gt(), killed (and a failed check naming what) if it has not ended
 * within 60 s: for what must never hang. */
static inline struct result gt_within(const char *what, const char *first, ...)
{
    char *argv[64];
    va_list ap;
    va_start(ap, first);
    gt_argv(argv, first, ap);
    va_end(ap);
    struct child c = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    finish_within(&c, &r, 60, what);
    return r;
}

/* An error: the status, nothing on stdout, exactly the one line on stderr.
 * Frees r. */
static inline void check_error(struct result *r, int status, const char *line)
{
    CHECK_MSG(r->status == status, "status %d, want %d (%s)", r->status, status, line);
    CHECK_STR(r->out.data, "");
    CHECK_STR(r->err.data, line);
    result_free(r);
}

/* ---- reading the JSON -------------------------------------------------- */

/* The number at a dotted path, e.g. "max_ram.main.total_rss" (a number
 * indexes an array: "runs.0.stats"); NAN if none. */
static inline double jnum(json_object *root, const char *path)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    json_object *o = root;
    for (char *save = NULL, *key = strtok_r(copy, ".", &save); key && o;
         key = strtok_r(NULL, ".", &save)) {
        if (json_object_is_type(o, json_type_array)) {
            o = json_object_array_get_idx(o, (size_t)atoi(key));
            continue;
        }
        if (!json_object_object_get_ex(o, key, &o))
            return NAN;
    }
    return o ? json_object_get_double(o) : NAN;
}

static inline json_object *parse_or_fail(const char *text, const char *what)
{
    json_object *j = json_tokener_parse(text);
    CHECK_MSG(j != NULL, "%s is not JSON: [%s]", what, text);
    return j;
}

static inline char *slurp(const char *path)
{
    struct buf b = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    read_until(fd, &b, NULL);
    close(fd);
    return b.data;
}

static char tmpdir[64] __attribute__((unused));

/* Makes tmpdir (/tmp/gt-TAG-XXXXXX) for a test's files; exits if it cannot. */
static inline void tmpdir_make(const char *tag)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gt-%s-XXXXXX", tag);
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        exit(99);
    }
}

static inline void tmpdir_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

static inline const char *tmp_path(const char *name)
{
    static char paths[8][256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 256, "%s/%s", tmpdir, name);
    return p;
}

/* How far a tracker's CPU seconds may be from the kernel's own count of the
 * same thread or process: both come from the same scheduler accounting,
 * but procfs gives whole clock ticks (10 ms), truncated, at the baseline and
 * final samples and for each library thread taken out. Bounded by that,
 * not by how loaded the machine is. */
#define TICKS_SLACK 0.05

/* A "NAME SECONDS" line a workload printed on stderr ("main cpu 0.07");
 * NAN if none. */
static inline double reported(const struct result *r, const char *what)
{
    const char *line = r->err.data ? strstr(r->err.data, what) : NULL;
    return line ? atof(line + strlen(what)) : NAN;
}

/* CPU seconds a section stands for: its mean percent over the compute time. */
static inline double cpu_seconds(json_object *j, const char *who)
{
    char path[128];
    snprintf(path, sizeof path, "cpu_utilization.%s.mean_sum_percent", who);
    double secs = jnum(j, "compute_time.time");
    const char *unit = json_object_get_string(json_object_object_get(
        json_object_object_get(j, "compute_time"), "unit"));
    if (unit && strcmp(unit, "seconds") != 0)
        fprintf(stderr, "cpu_seconds: compute time is in %s\n", unit);
    return jnum(j, path) / 100.0 * secs;
}

#endif
