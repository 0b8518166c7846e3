/* file_io.c - resolving, checking and writing output files, and reading
 * input files, under the rules of file_io.h. */
#define _GNU_SOURCE
#include "common/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/internal.h"

#define MAX_LINK_HOPS 40       /* as the kernel's own limit (ELOOP) */
#define PROC_SUPER_MAGIC 0x9fa0

/* ---- resolving ----------------------------------------------------------- */

/* One resolution: the path as the user gave it (for messages), the links
 * followed so far, and the first failure. */
struct walk {
    const char *path;
    int hops;
    gt_status status;
    const char *verb;  /* "write" or "read", for messages */
    const char *what;  /* the kind of file ("tracking file") before the path, or NULL */
    int trusted_dirs;  /* every directory on the way must be trusted_dir() */
};

static int walk_fail(struct walk *w, gt_status status, const char *fmt, ...) GT_PRINTF(3, 4);
static int walk_fail(struct walk *w, gt_status status, const char *fmt, ...)
{
    char where[4200];
    snprintf(where, sizeof where, "cannot %s %s%s'%s'", w->verb ? w->verb : "write",
             w->what ? w->what : "", w->what ? " " : "", w->path);
    va_list ap;
    va_start(ap, fmt);
    w->status = error_set_prefixed(status, where, fmt, ap);
    va_end(ap);
    return -1;
}

static int walk_errno(struct walk *w, int err)
{
    return walk_fail(w, err == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "%s", strerror(err));
}

/* A link we may follow: the user's own, or root's (the system's). */
static int trusted_owner(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

/* For a file whose contents are trusted (the config file): a directory
 * only the user or root may change the entries of: theirs, and writable by
 * no one else unless sticky (then each entry's own owner is checked as the
 * walk goes on). 0 after walk_fail() naming the directory (name). */
static int trusted_dir(struct walk *w, int dirfd, const char *name)
{
    struct stat d;
    if (fstat(dirfd, &d) < 0)
        return walk_errno(w, errno), 0;
    if (!trusted_owner(d.st_uid)) {
        walk_fail(w, GT_ERR_IO, "the directory '%s' is owned by user %d, neither you nor root: "
                  "its entries are theirs to change", name, (int)d.st_uid);
        return 0;
    }
    if ((d.st_mode & (S_IWGRP | S_IWOTH)) && !(d.st_mode & S_ISVTX)) {
        walk_fail(w, GT_ERR_IO, "the directory '%s' is writable by others than its owner "
                  "(chmod go-w)", name);
        return 0;
    }
    return 1;
}

/* The target of the link name in dirfd, when we may follow it; NULL after
 * walk_fail(). */
static char *read_link(struct walk *w, int dirfd, const char *name, const struct stat *st)
{
    if (!trusted_owner(st->st_uid)) {
        walk_fail(w, GT_ERR_IO, "'%s' is a symbolic link owned by user %d, neither you nor "
                  "root: not following it (remove the link, or give another path)", name,
                  (int)st->st_uid);
        return NULL;
    }
    if (++w->hops > MAX_LINK_HOPS) {
        walk_errno(w, ELOOP);
        return NULL;
    }
    size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : PATH_MAX;
    char *buf = malloc(cap + 1);
    if (!buf) {
        walk_errno(w, ENOMEM);
        return NULL;
    }
    ssize_t n = readlinkat(dirfd, name, buf, cap);
    if (n < 0 || (size_t)n >= cap) {
        walk_errno(w, n < 0 ? errno : ENAMETOOLONG);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* Opens the directory dir (absolute, or relative to the directory from) as
 * an O_PATH descriptor, one component at a time, following trusted links
 * only. -1 after walk_fail(). */
static int open_dir(struct walk *w, int from, const char *dir)
{
    int cur = dir[0] == '/'       ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
              : from == AT_FDCWD ? open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)
                                 : fcntl(from, F_DUPFD_CLOEXEC, 0);
    if (cur < 0)
        return walk_errno(w, errno);
    if (w->trusted_dirs && !trusted_dir(w, cur, dir[0] == '/' ? "/" : ".")) {
        close(cur);
        return -1;
    }
    char *copy = strdup(dir);
    if (!copy) {
        close(cur);
        return walk_errno(w, ENOMEM);
    }
    char *save = NULL;
    for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0)
            continue;
        struct stat st;
        int next = -1;
        if (fstatat(cur, c, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            walk_errno(w, errno);
        } else if (S_ISLNK(st.st_mode)) {
            char *target = read_link(w, cur, c, &st);
            if (target)
                next = open_dir(w, cur, target);
            free(target);
        } else if (!S_ISDIR(st.st_mode)) {
            walk_fail(w, GT_ERR_IO, "'%s' is not a directory", c);
        } else if ((next = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
            walk_errno(w, errno);
        } else if (w->trusted_dirs && !trusted_dir(w, next, c)) {
            close(next);
            next = -1;
        }
        close(cur);
        cur = next;
        if (cur < 0)
            break;
    }
    free(copy);
    return cur;
}

static gt_status resolve_at(struct walk *w, int from, const char *path, struct output_target *t)
{
    size_t len = strlen(path);
    if (len == 0)
        return walk_fail(w, GT_ERR_IO, "an empty file name"), w->status;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        return walk_fail(w, GT_ERR_IO, "it is a directory"), w->status;
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return walk_errno(w, ENOMEM), w->status;
    int dirfd = open_dir(w, from, dir);
    free(dir);
    if (dirfd < 0)
        return w->status;
    struct stat st;
    if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        int e = errno;
        if (e != ENOENT) {
            close(dirfd);
            return walk_errno(w, e), w->status;
        }
        memset(&st, 0, sizeof st);
    } else if (S_ISLNK(st.st_mode)) {
        struct statfs fs;
        if (!(fstatfs(dirfd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC)) {
            char *target = read_link(w, dirfd, base, &st);
            gt_status r = target ? resolve_at(w, dirfd, target, t) : w->status;
            free(target);
            close(dirfd);
            return r;
        }
        /* /proc/PID/fd/N names an open file, not a path: only the kernel
         * can follow it. Ours are the user's; another user's are not. */
        if (!trusted_owner(st.st_uid)) {
            close(dirfd);
            return walk_fail(w, GT_ERR_IO, "'%s' is a link of another user's process", base),
                   w->status;
        }
        t->kernel_link = 1;
    }
    t->dirfd = dirfd;
    t->exists = st.st_mode != 0;
    t->st = st;
    t->name = strdup(base);
    if (!t->name) {
        output_target_close(t);
        return walk_errno(w, ENOMEM), w->status;
    }
    return GT_OK;
}

/* ---- held outputs ---------------------------------------------------------- */

/* output_file_hold()'s registry: a path as given, and the directory and name
 * it resolved to then. A handful at most (a run's -o, --snapshot and
 * --report): a list. */
struct held_output {
    char *path;
    struct output_target target; /* dirfd and name; exists/st are looked at again */
    struct held_output *next;
};
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held_output *held_list;

/* t as the held resolution of path, when path is held: 1 (t filled, or
 * GT_ERR_NO_MEMORY in *st), 0 when path is not held. */
static int held_resolve(const char *path, struct output_target *t, gt_status *st)
{
    int found = 0;
    pthread_mutex_lock(&held_lock);
    for (struct held_output *h = held_list; h; h = h->next) {
        if (strcmp(h->path, path) != 0)
            continue;
        found = 1;
        t->dirfd = fcntl(h->target.dirfd, F_DUPFD_CLOEXEC, 0);
        t->name = strdup(h->target.name);
        t->kernel_link = h->target.kernel_link;
        break;
    }
    pthread_mutex_unlock(&held_lock);
    if (!found)
        return 0;
    *st = GT_OK;
    if (t->dirfd < 0 || !t->name) {
        int e = t->dirfd < 0 ? errno : ENOMEM;
        output_target_close(t);
        *st = error_set(e == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot write '%s': %s", path,
                        strerror(e));
        return 1;
    }
    t->exists = fstatat(t->dirfd, t->name, &t->st, AT_SYMLINK_NOFOLLOW) == 0;
    return 1;
}

gt_status output_resolve(const char *path, struct output_target *t)
{
    memset(t, 0, sizeof *t);
    t->dirfd = -1;
    gt_status st;
    if (held_resolve(path, t, &st))
        return st;
    struct walk w = {path, 0, GT_OK, "write", NULL, 0};
    return resolve_at(&w, AT_FDCWD, path, t);
}

void output_target_refresh(struct output_target *t)
{
    if (t->kernel_link || t->dirfd < 0)
        return;
    if (fstatat(t->dirfd, t->name, &t->st, AT_SYMLINK_NOFOLLOW) == 0)
        t->exists = 1;
    else
        t->exists = 0;
}

int output_target_remove(const struct output_target *t)
{
    if (t->kernel_link || t->dirfd < 0 || !t->wrote) {
        errno = EINVAL;
        return -1;
    }
    struct stat now;
    if (fstatat(t->dirfd, t->name, &now, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (now.st_dev != t->written_dev || now.st_ino != t->written_ino) {
        errno = ESTALE; /* someone else's now: theirs to remove */
        return -1;
    }
    return unlinkat(t->dirfd, t->name, 0);
}

void output_target_close(struct output_target *t)
{
    if (t->dirfd >= 0)
        close(t->dirfd);
    free(t->name);
    t->dirfd = -1;
    t->name = NULL;
}

/* ---- how to write -------------------------------------------------------- */

static int dir_writable(const struct output_target *t)
{
    return faccessat(t->dirfd, ".", W_OK | X_OK, AT_EACCESS) == 0;
}

/* A directory only the user (or root) may change: nobody else can have put
 * a link to a file of theirs in it. */
static int private_dir(const struct output_target *t)
{
    struct stat d;
    return fstat(t->dirfd, &d) == 0 && trusted_owner(d.st_uid) &&
           !(d.st_mode & (S_IWGRP | S_IWOTH));
}

/* 1 when entry (t's name, or what is there now) is another user's (file_io.h):
 * made by a user other than us, root and the directory's owner, in a
 * directory that others may write to. A directory we cannot look at is
 * taken for one that others may write to. */
static int other_users_name(const struct output_target *t, const struct stat *entry)
{
    if (t->kernel_link)
        return 0;
    uid_t u = entry->st_uid;
    if (trusted_owner(u))
        return 0;
    struct stat d;
    if (fstat(t->dirfd, &d) != 0)
        return 1;
    return u != d.st_uid && (d.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* Whether our new file may take the place of t's name, made by another user: not in a
 * sticky directory (/tmp) that is not ours, unless we are root. */
static int may_replace(const struct output_target *t)
{
    struct stat d;
    return geteuid() == 0 ||
           (fstat(t->dirfd, &d) == 0 && (!(d.st_mode & S_ISVTX) || d.st_uid == geteuid()));
}

static gt_status other_users_fail(const struct output_target *t, const char *path)
{
    return error_set(GT_ERR_IO, "cannot write '%s': '%s' is user %d's, in a directory others may "
                     "write to: not writing to or replacing another user's file there (remove it, "
                     "or give another path)", path, t->name, (int)t->st.st_uid);
}

/* A regular file with other names that we write through, in place. */
static int keeps_links(const struct output_target *t)
{
    return t->st.st_nlink > 1 && t->st.st_uid == geteuid() && private_dir(t);
}

/* A regular file written in place rather than replaced. */
static int write_in_place(const struct output_target *t)
{
    return keeps_links(t) ||
           (!dir_writable(t) && faccessat(t->dirfd, t->name, W_OK, AT_EACCESS) == 0);
}

gt_status output_target_check(const struct output_target *t, const char *path)
{
    const char *why = NULL;
    if (t->kernel_link) {
        if (faccessat(t->dirfd, t->name, W_OK, AT_EACCESS) < 0)
            why = strerror(errno);
    } else if (!t->exists) {
        if (!dir_writable(t))
            why = strerror(errno);
    } else if (S_ISDIR(t->st.st_mode)) {
        why = "it is a directory";
    } else if (other_users_name(t, &t->st)) {
        /* Ours to name (the backup, the textfile): replaced. The user's
         * name: refused, before anything runs. */
        if (!t->replace_only || !may_replace(t))
            return other_users_fail(t, path);
        if (!dir_writable(t))
            why = strerror(errno);
    } else if (S_ISSOCK(t->st.st_mode)) {
        why = "it is a socket";
    } else if ((S_ISREG(t->st.st_mode) || t->replace_only) && dir_writable(t)) {
        why = NULL; /* a temporary file beside it, then rename */
    } else if (faccessat(t->dirfd, t->name, W_OK, AT_EACCESS) < 0) {
        why = strerror(errno);
    }
    return why ? error_set(GT_ERR_IO, "cannot write '%s': %s", path, why) : GT_OK;
}

int fd_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Gives a file we made in place of an existing one that file's owner,
 * group and permissions (the best we may: a user cannot give a file away). */
static void copy_owner_mode(int fd, const struct stat *was)
{
    if (fchown(fd, was->st_uid, was->st_gid) < 0 && fchown(fd, (uid_t)-1, was->st_gid) < 0) {
        /* Not ours to give: the file stays the user's, with the mode below. */
    }
    if (fchmod(fd, was->st_mode & 0777) < 0) {
        /* The umask's mode stays. */
    }
}

/* A random name "<prefix><name><infix><12 hex digits>" in *out (malloc'd);
 * -1 when memory runs out. */
static int random_name(const char *prefix, const char *name, const char *infix, int attempt,
                       char **out)
{
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (unsigned long long)getpid() * 2654435761u + (unsigned long long)attempt;
    if (asprintf(out, "%s%.200s%s%012llx", prefix, name, infix, r & 0xffffffffffffULL) < 0) {
        *out = NULL;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Creates a temporary file beside name in dirfd; -1 with errno. */
static int make_temp(int dirfd, const char *name, mode_t mode, char **tmp)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        if (random_name(".", name, ".", attempt, tmp) < 0)
            return -1;
        int fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

/* Opens the existing file of t to write in place. The name is opened with
 * O_PATH|O_NOFOLLOW first (that opens nothing: a FIFO does not wait),
 * checked to be what we resolved (same file, so same type and owner), and
 * only then opened for writing, through /proc/self/fd: what an open waits
 * on (a FIFO's reader) is the object we checked. Without /proc, the name
 * again with O_NONBLOCK (a FIFO without a reader is then an error) and
 * the same check. No O_TRUNC: a regular file is emptied after the check. */
static int open_existing(const struct output_target *t, int flags)
{
    int base = O_WRONLY | O_CLOEXEC | O_NOCTTY | flags;
    if (t->kernel_link)
        return openat(t->dirfd, t->name, base);
    int p = openat(t->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (p < 0)
        return -1;
    struct stat now;
    if (fstat(p, &now) < 0 || now.st_dev != t->st.st_dev || now.st_ino != t->st.st_ino) {
        close(p);
        errno = ESTALE; /* replaced under us */
        return -1;
    }
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", p);
    int fd = open(self, base);
    if (fd < 0 && errno == ENOENT) {
        fd = openat(t->dirfd, t->name, base | O_NOFOLLOW | O_NONBLOCK);
        struct stat got;
        if (fd >= 0 && (fstat(fd, &got) < 0 || got.st_dev != now.st_dev ||
                        got.st_ino != now.st_ino || fcntl(fd, F_SETFL, flags & O_APPEND) < 0)) {
            close(fd);
            fd = -1;
            errno = ESTALE;
        }
    }
    int e = errno;
    close(p);
    errno = e;
    return fd;
}

static gt_status write_fail(const char *path, int err)
{
    return error_set(err == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot write '%s': %s", path,
                     err == ESTALE   ? "it was replaced while we wrote it"
                     : err == EISDIR ? "a directory is at its name"
                                   : strerror(err));
}

gt_status output_stream_begin(struct output_target *t, const char *path, struct output_stream *w)
{
    memset(w, 0, sizeof *w);
    w->target = t;
    w->path = path;
    w->fd = -1;
    /* A link that appeared under a name we resolved before (see
     * output_target_refresh) is replaced like a missing file: never
     * followed, and its owner is not given our file. Another user's name is
     * replaced too, never opened; a directory is left alone (commit keeps
     * the data beside it). */
    int existing = t->exists && !S_ISLNK(t->st.st_mode) && !S_ISDIR(t->st.st_mode);
    int foreign = existing && !t->kernel_link && other_users_name(t, &t->st);
    int in_place = t->kernel_link ||
                   (existing && !foreign && !t->replace_only &&
                    (!S_ISREG(t->st.st_mode) || write_in_place(t)));
    if (in_place) {
        /* A FIFO's open waits for a reader, as for any writer. */
        w->fd = open_existing(t, t->kernel_link ? O_APPEND : 0);
        if (w->fd >= 0 && S_ISREG(t->st.st_mode) && !t->kernel_link && ftruncate(w->fd, 0) < 0) {
            int e = errno;
            close(w->fd);
            w->fd = -1;
            errno = e;
        }
    } else {
        int keep = existing && !foreign;
        w->fd = make_temp(t->dirfd, t->name, keep ? 0600 : 0666, &w->tmp);
        if (w->fd >= 0 && keep)
            copy_owner_mode(w->fd, &t->st);
    }
    return w->fd >= 0 ? GT_OK : write_fail(path, errno);
}

int output_stream_write(struct output_stream *w, const void *data, size_t len)
{
    if (w->error) {
        errno = w->error;
        return -1;
    }
    if (fd_write_all(w->fd, data, len) < 0) {
        w->error = errno;
        return -1;
    }
    return 0;
}

/* The whole temporary file tmp could not take t's name (why: errno of the
 * rename): it is given a visible name of its own beside it, so that what
 * was written is not lost, and the failure says where. */
static gt_status keep_aside(struct output_target *t, const char *path, const char *tmp, int why)
{
    char *saved = NULL;
    int rc = -1;
    for (int attempt = 0; attempt < 100 && rc < 0; attempt++) {
        free(saved);
        if (random_name("", t->name, ".saved-", attempt, &saved) < 0)
            break;
        rc = renameat2(t->dirfd, tmp, t->dirfd, saved, RENAME_NOREPLACE);
        if (rc < 0 && errno != EEXIST)
            break;
    }
    if (rc < 0) {
        free(saved);
        unlinkat(t->dirfd, tmp, 0);
        return write_fail(path, why);
    }
    /* Where the directory is now, for the message. */
    char self[64], dir[PATH_MAX];
    snprintf(self, sizeof self, "/proc/self/fd/%d", t->dirfd);
    ssize_t n = readlink(self, dir, sizeof dir - 1);
    dir[n > 0 ? n : 0] = '\0';
    gt_status st = error_set(GT_ERR_IO, "cannot write '%s': %s; what was to be written is in "
                             "'%s%s%s' instead", path,
                             why == EISDIR ? "a directory is at its name" : strerror(why),
                             n > 0 && dir[0] == '/' ? dir : "", n > 1 ? "/" : "", saved);
    free(saved);
    return st;
}

/* Remembers which file t's name is after a write of ours took it. */
static void note_written(struct output_target *t, int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        t->wrote = 1;
        t->written_dev = st.st_dev;
        t->written_ino = st.st_ino;
    }
}

gt_status output_stream_commit(struct output_stream *w)
{
    struct output_target *t = w->target;
    int regular = !t->kernel_link && (w->tmp || S_ISREG(t->st.st_mode));
    int ok = !w->error && (!regular || w->no_fsync || fsync(w->fd) == 0);
    int e = w->error ? w->error : errno;
    if (ok && !t->kernel_link)
        note_written(t, w->fd);
    if (close(w->fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    w->fd = -1;
    gt_status st = GT_OK;
    /* rename() replaces the name itself: a link put there meanwhile is
     * replaced, never followed. */
    if (ok && w->tmp && renameat(t->dirfd, w->tmp, t->dirfd, t->name) != 0) {
        t->wrote = 0;
        st = keep_aside(t, w->path, w->tmp, errno);
    } else if (!ok) {
        t->wrote = 0;
        if (w->tmp)
            unlinkat(t->dirfd, w->tmp, 0);
        st = write_fail(w->path, e);
    }
    free(w->tmp);
    w->tmp = NULL;
    return st;
}

void output_stream_abort(struct output_stream *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    if (w->tmp)
        unlinkat(w->target->dirfd, w->tmp, 0);
    free(w->tmp);
    w->tmp = NULL;
}

gt_status output_target_replace(struct output_target *t, const char *path, const void *data,
                                size_t len, int durable)
{
    struct output_stream w;
    gt_status st = output_stream_begin(t, path, &w);
    if (st != GT_OK)
        return st;
    w.no_fsync = !durable;
    output_stream_write(&w, data, len);
    return output_stream_commit(&w);
}

gt_status output_target_write(struct output_target *t, const char *path, const void *data,
                              size_t len)
{
    return output_target_replace(t, path, data, len, 1);
}

gt_status write_file_atomic(const char *path, const void *data, size_t len)
{
    struct output_target t;
    gt_status st = output_resolve(path, &t);
    if (st == GT_OK)
        st = output_target_write(&t, path, data, len);
    output_target_close(&t);
    return st;
}

gt_status output_open_stream(const char *path, int *fdp)
{
    *fdp = -1;
    struct output_target t;
    gt_status st = output_resolve(path, &t);
    if (st != GT_OK)
        return st;
    int fd = -1;
    if (t.kernel_link) {
        fd = open_existing(&t, O_APPEND);
    } else if (!t.exists) {
        fd = openat(t.dirfd, t.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    } else if (S_ISDIR(t.st.st_mode)) {
        errno = EISDIR;
    } else if (other_users_name(&t, &t.st)) {
        st = other_users_fail(&t, path);
        output_target_close(&t);
        return st;
    } else if (!S_ISREG(t.st.st_mode) || t.st.st_nlink == 1 || keeps_links(&t)) {
        fd = open_existing(&t, 0);
        if (fd >= 0 && S_ISREG(t.st.st_mode) && ftruncate(fd, 0) < 0) {
            int e = errno;
            close(fd);
            fd = -1;
            errno = e;
        }
    } else {
        /* Other names share this file, and we may not write through them:
         * a new file takes this name, as an atomic replacement would. */
        if (unlinkat(t.dirfd, t.name, 0) == 0 || errno == ENOENT) {
            fd = openat(t.dirfd, t.name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0600);
            if (fd >= 0)
                copy_owner_mode(fd, &t.st);
        }
    }
    st = fd >= 0 ? GT_OK
                 : error_set(errno == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot write '%s': %s",
                             path, errno == EISDIR ? "it is a directory"
                                 : errno == ESTALE ? "it was replaced while we opened it"
                                                   : strerror(errno));
    output_target_close(&t);
    *fdp = fd;
    return st;
}

/* ---- the public face ----------------------------------------------------- */

gt_status output_file_check(const char *path)
{
    error_clear();
    if (!path)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no output path given");
    struct output_target t;
    gt_status st = output_resolve(path, &t);
    if (st == GT_OK)
        st = output_target_check(&t, path);
    output_target_close(&t);
    return st;
}

gt_status output_file_hold(const char *path)
{
    error_clear();
    if (!path)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no output path given");
    struct held_output *h = calloc(1, sizeof *h);
    if (!h || !(h->path = strdup(path))) {
        free(h);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    /* Resolved afresh, not through an earlier hold of the same path. */
    memset(&h->target, 0, sizeof h->target);
    h->target.dirfd = -1;
    struct walk w = {path, 0, GT_OK, "write", NULL, 0};
    gt_status st = resolve_at(&w, AT_FDCWD, path, &h->target);
    if (st == GT_OK)
        st = output_target_check(&h->target, path);
    if (st != GT_OK) {
        output_target_close(&h->target);
        free(h->path);
        free(h);
        return st;
    }
    output_file_release(path);
    pthread_mutex_lock(&held_lock);
    h->next = held_list;
    held_list = h;
    pthread_mutex_unlock(&held_lock);
    return GT_OK;
}

void output_file_release(const char *path)
{
    if (!path)
        return;
    pthread_mutex_lock(&held_lock);
    for (struct held_output **p = &held_list; *p; p = &(*p)->next) {
        struct held_output *h = *p;
        if (strcmp(h->path, path) == 0) {
            *p = h->next;
            output_target_close(&h->target);
            free(h->path);
            free(h);
            break;
        }
    }
    pthread_mutex_unlock(&held_lock);
}

gt_status output_file_open(const char *path, int *fd)
{
    error_clear();
    *fd = -1;
    if (!path)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no output path given");
    return output_open_stream(path, fd);
}

/* What writing to path would write: an existing file (its device and
 * inode; name NULL), or a new name in a directory (the directory's device
 * and inode, and the name). -1 when path cannot be resolved. */
static int output_identity(const char *path, dev_t *dev, ino_t *ino, char **name)
{
    struct output_target t;
    *name = NULL;
    if (output_resolve(path, &t) != GT_OK) {
        output_target_close(&t);
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (t.exists && !t.kernel_link) {
        *dev = t.st.st_dev;
        *ino = t.st.st_ino;
    } else if (t.kernel_link && fstatat(t.dirfd, t.name, &st, 0) == 0) {
        *dev = st.st_dev; /* what /dev/stdout names now */
        *ino = st.st_ino;
    } else if (fstat(t.dirfd, &st) == 0 && (*name = strdup(t.name)) != NULL) {
        *dev = st.st_dev;
        *ino = st.st_ino;
    } else {
        rc = -1;
    }
    output_target_close(&t);
    return rc;
}

int output_file_same(const char *a, const char *b)
{
    error_clear();
    dev_t da, db;
    ino_t ia, ib;
    char *na = NULL, *nb = NULL;
    int same = a && b && output_identity(a, &da, &ia, &na) == 0 &&
               output_identity(b, &db, &ib, &nb) == 0 && da == db && ia == ib &&
               (na == NULL) == (nb == NULL) && (!na || strcmp(na, nb) == 0);
    free(na);
    free(nb);
    error_clear();
    return same;
}

/* ---- reading ------------------------------------------------------------- */

#define SYSFS_MAGIC 0x62656572

/* Opens name in dirfd to read, looking before opening: an O_PATH
 * descriptor (that opens nothing: a device's open has effects, a FIFO's
 * waits) is looked at, and only a regular file is opened, through that
 * descriptor, so that what is read is what was looked at. The name itself
 * is not followed unless follow (a procfs link only the kernel can
 * follow). private: a file in /proc or /sys is refused. The descriptor
 * and *st its fstat; -1 with *why (a sentence) or errno set. */
static int open_looked_at(int dirfd, const char *name, int follow, int private, struct stat *st,
                          const char **why)
{
    *why = NULL;
    int p = openat(dirfd, name, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
    if (p < 0)
        return -1;
    int fd = -1, e = 0;
    struct statfs fs;
    if (fstat(p, st) < 0)
        e = errno;
    else if (S_ISDIR(st->st_mode))
        *why = "it is a directory";
    else if (S_ISLNK(st->st_mode))
        *why = "a symbolic link took its name while it was looked at";
    else if (!S_ISREG(st->st_mode))
        *why = "it is not a regular file (FIFOs, devices and sockets are not read)";
    else if (private && fstatfs(p, &fs) < 0)
        e = errno;
    else if (private && (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC))
        *why = "it is a kernel file in /proc or /sys, not one a user wrote";
    if (!e && !*why) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", p);
        fd = open(self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) { /* no /proc: the name again, checked to be the same */
            struct stat again;
            fd = openat(dirfd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC |
                                         (follow ? 0 : O_NOFOLLOW));
            if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_dev != st->st_dev ||
                            again.st_ino != st->st_ino)) {
                close(fd);
                fd = -1;
                errno = ESTALE;
            }
        }
        if (fd < 0)
            e = errno;
    }
    close(p);
    errno = e;
    return fd;
}

int input_open(const char *path, const char *what, int private, struct stat *st,
               gt_status *status)
{
    struct output_target t;
    memset(&t, 0, sizeof t);
    t.dirfd = -1;
    struct walk w = {path, 0, GT_OK, "read", what, private};
    if ((*status = resolve_at(&w, AT_FDCWD, path, &t)) != GT_OK)
        return -1;
    const char *why = NULL;
    int fd = -1;
    if (!t.exists)
        errno = ENOENT;
    else
        fd = open_looked_at(t.dirfd, t.name, t.kernel_link, private, st, &why);
    int e = errno;
    output_target_close(&t);
    if (fd < 0)
        *status = error_set(e == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot read %s%s'%s': %s",
                            what ? what : "", what ? " " : "", path,
                            why ? why : e == ESTALE ? "it was replaced while it was opened"
                                                  : strerror(e));
    return fd;
}

int trusted_dir_open(const char *path, const char *what, gt_status *status)
{
    struct walk w = {path, 0, GT_OK, "read", what, 1};
    int fd = open_dir(&w, AT_FDCWD, path);
    *status = fd < 0 ? w.status : GT_OK;
    return fd;
}

static gt_status read_file_whole(const char *path, size_t max, const char *what, int private,
                                 char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    struct stat st;
    gt_status opened;
    int fd = input_open(path, NULL, private, &st, &opened);
    if (fd < 0)
        return opened;
    const char *why = NULL;
    if (private && st.st_uid != geteuid() && st.st_uid != 0)
        why = "it is owned by another user than you or root";
    else if (private && (st.st_mode & (S_IWGRP | S_IWOTH)))
        why = "it is writable by others than its owner (chmod go-w)";
    if (why) {
        close(fd);
        return error_set(GT_ERR_IO, "cannot read '%s': %s", path, why);
    }
    return read_open_file(fd, &st, path, max, what, data, len);
}

gt_status read_open_file(int fd, const struct stat *st, const char *path, size_t max,
                         const char *what, char **data, size_t *len)
{
    if ((unsigned long long)st->st_size > max) {
        close(fd);
        return error_set(GT_ERR_IO, "cannot read '%s': it has %lld bytes; a %s is read up to %zu "
                         "bytes", path, (long long)st->st_size, what, max);
    }
    size_t cap = (size_t)st->st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) { /* it grew while we read */
            if (cap > max) {
                free(buf);
                close(fd);
                return error_set(GT_ERR_IO, "cannot read '%s': it is larger than %zu bytes, the "
                                 "most a %s may have", path, max, what);
            }
            size_t ncap = cap * 2 < max + 1 ? cap * 2 : max + 1;
            char *more = realloc(buf, ncap + 1);
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return error_set(GT_ERR_IO, "cannot read '%s': %s", path, strerror(e));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!buf)
        return error_set(GT_ERR_NO_MEMORY, "cannot read '%s': out of memory", path);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return GT_OK;
}

gt_status read_regular_file(const char *path, size_t max, const char *what, char **data,
                            size_t *len)
{
    return read_file_whole(path, max, what, 0, data, len);
}

gt_status read_private_file(const char *path, size_t max, const char *what, char **data,
                            size_t *len)
{
    return read_file_whole(path, max, what, 1, data, len);
}

gt_status output_file_read(const char *path, size_t max, const char *what, char **data,
                         size_t *len, int *replaced)
{
    *data = NULL;
    *len = 0;
    *replaced = 0;
    if (!path)
        return error_set(GT_ERR_INVALID_ARGUMENT, "output_file_read: a path is needed");
    struct output_target t;
    gt_status st = output_resolve(path, &t);
    if (st != GT_OK)
        return st;
    /* What the write will not keep: nothing there, a link put there since
     * it was resolved (never followed), another user's name in a shared
     * directory (replaced by the write); a procfs link (a pipe, a
     * terminal) has nothing to keep. */
    if (!t.exists || t.kernel_link || S_ISLNK(t.st.st_mode) || other_users_name(&t, &t.st)) {
        *replaced = t.exists && !t.kernel_link;
        output_target_close(&t);
        return GT_OK;
    }
    struct stat now;
    memset(&now, 0, sizeof now);
    const char *why = NULL;
    int fd = open_looked_at(t.dirfd, t.name, 0, 0, &now, &why);
    int e = errno;
    /* Changed since it was resolved: a link or another user's file now. */
    int planted = S_ISLNK(now.st_mode) || (fd >= 0 && other_users_name(&t, &now));
    output_target_close(&t);
    if (planted || (fd < 0 && !why && e == ENOENT)) {
        if (fd >= 0)
            close(fd);
        *replaced = planted;
        return GT_OK;
    }
    if (fd < 0)
        return error_set(e == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot read %s '%s': %s",
                         what ? what : "file", path, why ? why : strerror(e));
    return read_open_file(fd, &now, path, max, what ? what : "file", data, len);
}
