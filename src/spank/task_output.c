/* task_output.c - see task_output.h. */
#define _GNU_SOURCE
#include "task_output.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

const char *task_step_name(unsigned long step, char *buf, size_t cap)
{
    if (step == STEP_BATCH)
        return "batch";
    if (step == STEP_EXTERN)
        return "extern";
    if (step == STEP_INTERACTIVE)
        return "interactive";
    snprintf(buf, cap, "%lu", step);
    return buf;
}

static int field_ok(const char *v)
{
    return v && *v && !strchr(v, '/') && strcmp(v, ".") != 0 && strcmp(v, "..") != 0;
}

int task_output_expand(const char *tmpl, const struct task_names *n, char *out, size_t cap,
                       size_t *fixed, char *why, size_t whycap)
{
    if (tmpl[0] != '/') {
        snprintf(why, whycap, "output '%s' is not an absolute path", tmpl);
        return -1;
    }
    size_t len = 0;
    *fixed = (size_t)-1;
    for (const char *c = tmpl; *c; c++) {
        const char *add = NULL;
        char one[2] = {*c, '\0'};
        if (*c != '%') {
            add = one;
        } else {
            const char *v = NULL;
            switch (c[1]) {
            case 'u': v = n->user; break;
            case 'j': v = n->job; break;
            case 's': v = n->step; break;
            case 't': v = n->task; break;
            case 'n': v = n->node; break;
            case '%': v = "%"; break;
            default:
                snprintf(why, whycap, "output '%s': unknown field '%%%.1s' (valid: %%u %%j %%s "
                         "%%t %%n %%%%)", tmpl, c[1] ? c + 1 : "");
                return -1;
            }
            if (c[1] != '%') {
                if (!field_ok(v)) {
                    snprintf(why, whycap, "output '%s': no usable value for %%%c", tmpl, c[1]);
                    return -1;
                }
                if (*fixed == (size_t)-1)
                    *fixed = len;
            }
            add = v;
            c++;
        }
        size_t k = strlen(add);
        if (len + k + 1 > cap) {
            snprintf(why, whycap, "output '%s' expands to more than %zu bytes", tmpl, cap - 1);
            return -1;
        }
        memcpy(out + len, add, k);
        len += k;
    }
    out[len] = '\0';
    if (*fixed == (size_t)-1)
        *fixed = len;
    return 0;
}

/* Opens the directory name under dirfd without following a link, making
 * it when missing with mode exactly (whatever slurmstepd's umask). *made:
 * it was made now. -1 with errno. */
static int open_dir(int dirfd, const char *name, mode_t mode, int *made)
{
    *made = 0;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    if (mkdirat(dirfd, name, mode) == 0)
        *made = 1;
    else if (errno != EEXIST) /* another task of the step made it meanwhile: taken */
        return -1;
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && *made && fchmod(fd, mode) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int task_output_prepare(const char *path, size_t fixed, uid_t uid, gid_t gid, char *why,
                        size_t whycap)
{
    char *copy = strdup(path);
    if (!copy) {
        snprintf(why, whycap, "out of memory");
        return -1;
    }
    int dirfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = dirfd < 0 ? -1 : 0;
    char *slash = strrchr(copy, '/');
    *slash = '\0'; /* the file's name is not a directory */
    char *at = copy + 1;
    while (rc == 0 && *at) {
        char *end = strchr(at, '/');
        if (end)
            *end = '\0';
        /* a component ending past the site's part is the user's */
        int users = (size_t)(at - copy) + strlen(at) > fixed;
        int made = 0;
        int fd = open_dir(dirfd, at, users ? 0700 : 0711, &made);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            snprintf(why, whycap, "cannot open or make the directory '%.*s': %s",
                     (int)(at - copy + (ptrdiff_t)strlen(at)), copy, strerror(errno));
            rc = -1;
        } else if (users && made && fchown(fd, uid, gid) < 0) {
            snprintf(why, whycap, "cannot give '%s' to uid %ld: %s", copy, (long)uid,
                     strerror(errno));
            rc = -1;
        } else if (users && !made && st.st_uid != uid && st.st_uid != 0) {
            snprintf(why, whycap, "the directory '%s' belongs to uid %ld, neither the job's "
                     "user (%ld) nor root: not used", copy, (long)st.st_uid, (long)uid);
            rc = -1;
        } else if (!users && st.st_uid != 0) {
            /* the site's part is root's: one another user made (in /tmp,
             * say) would let them move the users' directories */
            snprintf(why, whycap, "the directory '%s' belongs to uid %ld, not root: the part "
                     "of output= before its first field must be root's", copy, (long)st.st_uid);
            rc = -1;
        } else if (!users && (st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
            /* root's, but others may rename what is made in it (between
             * the mkdir of a user's directory and its chown): not used */
            snprintf(why, whycap, "the directory '%s' is root's but writable by others (mode "
                     "%04o): the part of output= before its first field must be writable by "
                     "root alone (or sticky)", copy, (unsigned)(st.st_mode & 07777));
            rc = -1;
        }
        close(dirfd);
        dirfd = fd;
        if (!end)
            break;
        *end = '/';
        at = end + 1;
    }
    if (dirfd >= 0)
        close(dirfd);
    free(copy);
    return rc;
}

/* A new file at path for the caller alone (mode 0600 under umask 077),
 * whatever was at the name: a link, FIFO or file someone left there is
 * removed first, never followed, opened or kept with its own mode. -1
 * with msg when the name keeps being taken or cannot be removed (a
 * directory). */
static int create_new(const char *path, char *msg, size_t cap)
{
    for (int tries = 0; tries < 2; tries++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
                      O_NONBLOCK, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST) {
            snprintf(msg, cap, "cannot write '%s': %s", path, strerror(errno));
            return -1;
        }
        if (unlink(path) < 0 && errno != ENOENT) {
            snprintf(msg, cap, "cannot replace what is at '%s': %s", path, strerror(errno));
            return -1;
        }
    }
    snprintf(msg, cap, "something keeps reappearing at '%s': not written", path);
    return -1;
}

/* The child's side: open path and send the descriptor (or why not) on
 * sock. Never returns. */
static void open_and_send(int sock, uid_t uid, gid_t gid, const char *path)
{
    char msg[512] = "";
    int fd = -1;
    int already = getuid() == uid && geteuid() == uid && getgid() == gid && getegid() == gid;
    if (!already &&
        (setgroups(1, &gid) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)) {
        snprintf(msg, sizeof msg, "cannot take the identity of uid %ld: %s", (long)uid,
                 strerror(errno));
    } else {
        umask(077);
        struct stat st;
        fd = create_new(path, msg, sizeof msg);
        if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
            snprintf(msg, sizeof msg, "'%s' is not a regular file: not written", path);
            close(fd);
            fd = -1;
        }
    }
    struct iovec iov = {msg, strlen(msg) + 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    _exit(sendmsg(sock, &m, MSG_DONTWAIT) < 0 || fd < 0 ? 1 : 0);
}

long long task_output_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kills child (it may be stopped, or past its message and not yet gone)
 * and reaps it, waiting until deadline (a monotonic ms) at most: a child
 * the kernel holds past that (in an uninterruptible sleep) is left to
 * whoever reaps slurmstepd's children. Its end is waited for on a pidfd
 * (Linux 5.3), else in steps of 1 ms. */
static void kill_and_reap(pid_t child, long long deadline)
{
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    kill(child, SIGKILL);
    for (;;) {
        pid_t got = waitpid(child, NULL, WNOHANG);
        if (got != 0 && !(got < 0 && errno == EINTR))
            break; /* reaped, or not ours to reap any more */
        long long left = deadline - task_output_now_ms();
        if (left <= 0)
            break;
        if (pidfd >= 0) {
            struct pollfd p = {pidfd, POLLIN, 0};
            poll(&p, 1, (int)left);
        } else {
            struct timespec pause = {0, 1000 * 1000};
            nanosleep(&pause, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
}

int task_output_start_opener(uid_t uid, gid_t gid, const char *path, struct task_opener *o,
                             char *why, size_t whycap)
{
    o->pid = -1;
    o->sock = -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(why, whycap, "cannot make a socket pair: %s", strerror(errno));
        return -1;
    }
    o->started_ms = task_output_now_ms();
    pid_t child = fork();
    if (child < 0) {
        snprintf(why, whycap, "cannot fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (child == 0) {
        close(sv[0]);
        open_and_send(sv[1], uid, gid, path);
    }
    close(sv[1]);
    o->pid = child;
    o->sock = sv[0];
    return 0;
}

int task_output_finish_opener(struct task_opener *o, int deadline_ms, int *fd, char *why,
                              size_t whycap)
{
    *fd = -1;
    long long deadline = o->started_ms + deadline_ms;
    char msg[513] = "";
    ssize_t n = -1;
    int timed_out = 0;
    for (;;) {
        long long left = deadline - task_output_now_ms();
        struct pollfd p = {o->sock, POLLIN, 0};
        int ready = poll(&p, 1, left > 0 ? (int)left : 0);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            timed_out = ready == 0;
            break;
        }
        struct iovec iov = {msg, sizeof msg - 1};
        union {
            char buf[CMSG_SPACE(sizeof(int))];
            struct cmsghdr align;
        } control;
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                           .msg_controllen = sizeof control.buf};
        n = recvmsg(o->sock, &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(fd, CMSG_DATA(c), sizeof *fd);
        break;
    }
    /* Whatever it said, the opener's work is done: one stopped after its
     * message (by a process of the job's uid) must not hold us in waitpid
     * either. */
    kill_and_reap(o->pid, (deadline > task_output_now_ms() ? deadline : task_output_now_ms()) +
                              TASK_OUTPUT_REAP_MS);
    close(o->sock);
    o->sock = -1;
    o->pid = -1;
    if (*fd >= 0) {
        /* the child opened it non-blocking (a FIFO planted there would not
         * hold it); writing blocks as any file's */
        int flags = fcntl(*fd, F_GETFL);
        if (flags >= 0)
            fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK);
        return 0;
    }
    msg[n > 0 ? (size_t)n : 0] = '\0';
    if (timed_out)
        snprintf(why, whycap, "the opener (the job's uid) did not answer within %d ms (stopped "
                 "or held by a process of the job's user?): killed, the snapshot given up",
                 deadline_ms);
    else
        snprintf(why, whycap, "%s", msg[0] ? msg : "the opener ended without an answer (killed "
                 "by a signal?)");
    return -1;
}

int task_output_open_as(uid_t uid, gid_t gid, const char *path, int *fd, char *why,
                        size_t whycap)
{
    *fd = -1;
    struct task_opener o;
    if (task_output_start_opener(uid, gid, path, &o, why, whycap) < 0)
        return -1;
    return task_output_finish_opener(&o, TASK_OUTPUT_OPEN_DEADLINE_MS, fd, why, whycap);
}
