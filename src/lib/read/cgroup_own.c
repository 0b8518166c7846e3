/* cgroup_own.c - see cgroup_own.h. */
#define _GNU_SOURCE
#include "read/cgroup_own.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/cgroup.h"
#include "common/internal.h"
#include "read/procfs.h"

/* Writes text to the cgroup file name in dirfd (one write: cgroupfs
 * takes a whole value at once); -1 with errno. */
static int put(int dirfd, const char *name, const char *text)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n = write(fd, text, len);
    int e = errno;
    close(fd);
    if (n == (ssize_t)len)
        return 0;
    errno = n < 0 ? e : EIO;
    return -1;
}

static int move_pid(int groupfd, pid_t pid)
{
    char text[24];
    snprintf(text, sizeof text, "%d\n", (int)pid);
    return put(groupfd, "cgroup.procs", text);
}

/* The members of group (its cgroup.procs), malloc'd; NULL with *n 0 when
 * it cannot be read or is empty. */
static pid_t *members(int groupfd, size_t *n)
{
    *n = 0;
    int fd = openat(groupfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    pid_t *pids = NULL;
    size_t npids = 0, cappids = 0;
    if (buf && file_pread_grow(fd, &buf, &cap, 16u << 20, &len) == 0) {
        for (char *p = buf; p < buf + len;) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (v > 0 && pid_list_push(&pids, &npids, &cappids, (pid_t)v) < 0)
                break;
            p = end + (*end == '\n');
        }
    }
    free(buf);
    close(fd);
    *n = npids;
    return pids;
}

/* Whether the space-separated list has the word w. */
static int lists(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
            return 1;
    return 0;
}

static int read_list(int dirfd, const char *name, char *buf, size_t cap)
{
    size_t len;
    return file_read_at(dirfd, name, buf, cap, &len);
}

static void close_parents(struct cgroup_own *o)
{
    for (int i = 0; i < o->nparents; i++)
        if (o->parent_fd[i] >= 0)
            close(o->parent_fd[i]);
    o->nparents = 0;
}

/* v2, our group holds processes besides us: controllers cannot be
 * handed down. Otherwise we move into a leaf and enable them. */
static void v2_controllers(struct cgroup_own *o, int parent, const char *path)
{
    char have[512] = "", on[512] = "";
    read_list(parent, "cgroup.subtree_control", on, sizeof on);
    if (lists(on, "memory"))
        return; /* the root group, or one handed down already */
    if (read_list(parent, "cgroup.controllers", have, sizeof have) < 0 || !lists(have, "memory")) {
        snprintf(o->memory_reason, sizeof o->memory_reason,
                 "the memory controller is not delegated to the cgroup %.150s (not in its "
                 "cgroup.controllers)", path);
        return;
    }
    size_t n;
    pid_t *pids = members(parent, &n);
    size_t others = 0;
    for (size_t i = 0; i < n; i++)
        others += pids[i] != getpid(); /* the job is in its group already */
    free(pids);
    if (others) {
        snprintf(o->memory_reason, sizeof o->memory_reason,
                 "cannot enable memory beneath %.50s: %zu other processes are in it (cgroup "
                 "v2 hands controllers down only from an empty group); run gpu-tracker alone "
                 "in a delegated cgroup", path, others);
        return;
    }
    char leaf[80];
    snprintf(leaf, sizeof leaf, "%s-tracker", o->name);
    if (mkdirat(parent, leaf, 0755) < 0) {
        snprintf(o->memory_reason, sizeof o->memory_reason, "cannot make %.100s/%s: %s", path,
                 leaf, errno_text(errno));
        return;
    }
    int leaffd = openat(parent, leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (leaffd < 0 || move_pid(leaffd, getpid()) < 0) {
        snprintf(o->memory_reason, sizeof o->memory_reason, "cannot move gpu-tracker into "
                 "%.100s/%s: %s", path, leaf, errno_text(errno));
        if (leaffd >= 0)
            close(leaffd);
        unlinkat(parent, leaf, AT_REMOVEDIR);
        return;
    }
    o->moved_self = 1;
    /* memory is what the group's figures need; cpu and io as available,
     * one at a time (a write of several fails whole for one refused) */
    if (put(parent, "cgroup.subtree_control", "+memory") < 0) {
        snprintf(o->memory_reason, sizeof o->memory_reason,
                 "cannot enable the memory controller beneath the cgroup %.150s: %s", path,
                 errno_text(errno));
        move_pid(parent, getpid());
        unlinkat(parent, leaf, AT_REMOVEDIR);
        o->moved_self = 0;
    } else {
        snprintf(o->enabled, sizeof o->enabled, "+memory");
        static const char *const more[] = {"+cpu", "+io"};
        for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
            if (lists(have, more[i] + 1) && put(parent, "cgroup.subtree_control", more[i]) == 0)
                snprintf(o->enabled + strlen(o->enabled), sizeof o->enabled - strlen(o->enabled),
                         " %s", more[i]);
    }
    close(leaffd);
}

int cgroup_own_make(struct cgroup_own *o, const char *proc_root, const char *sys_root,
                    pid_t pid)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < CGROUP_OWN_MAX_DIRS; i++)
        o->parent_fd[i] = -1;
    snprintf(o->name, sizeof o->name, "gpu-tracker-%d", (int)getpid());
    struct cgroup_location loc;
    if (cgroup_locate(proc_root, sys_root, "self", &loc, o->reason, sizeof o->reason) < 0)
        return -1;
    o->version = loc.version;
    /* The parents: v2 our group; v1 our memory group, then the cpuacct and
     * cpu groups unless they are one directory (mounted joined). */
    int cand[3] = {loc.group_fd, loc.cpuacct_fd, loc.cpu_fd};
    loc.group_fd = loc.cpuacct_fd = loc.cpu_fd = -1;
    for (int i = 0; i < 3; i++) {
        if (cand[i] < 0)
            continue;
        struct stat a, b;
        int dup_of_earlier = 0;
        for (int j = 0; j < o->nparents; j++)
            if (fstat(cand[i], &a) == 0 && fstat(o->parent_fd[j], &b) == 0 &&
                a.st_dev == b.st_dev && a.st_ino == b.st_ino)
                dup_of_earlier = 1;
        if (dup_of_earlier)
            close(cand[i]);
        else
            o->parent_fd[o->nparents++] = cand[i];
    }
    /* The first parent (v2's group, v1's memory group) is required. */
    if (mkdirat(o->parent_fd[0], o->name, 0755) < 0) {
        snprintf(o->reason, sizeof o->reason, "cannot make a cgroup beneath %.150s: %s (it is "
                 "not delegated to this user, or read-only)", loc.path, errno_text(errno));
        close_parents(o);
        return -1;
    }
    int made[CGROUP_OWN_MAX_DIRS] = {1, 0, 0};
    for (int i = 1; i < o->nparents; i++)
        made[i] = mkdirat(o->parent_fd[i], o->name, 0755) == 0;
    /* pid into each group made, the required one first; then, on v2, our
     * group can be left empty and hand its controllers down */
    for (int i = 0; i < o->nparents; i++) {
        if (!made[i])
            continue;
        int g = openat(o->parent_fd[i], o->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int ok = g >= 0 && move_pid(g, pid) == 0;
        int e = errno;
        if (g >= 0)
            close(g);
        if (!ok && i == 0) {
            snprintf(o->reason, sizeof o->reason, "cannot move PID %d into the cgroup "
                     "%.150s/%s: %s", (int)pid, loc.path, o->name, errno_text(e));
            o->made = 1; /* so that remove undoes everything */
            char ignored[64];
            cgroup_own_remove(o, ignored, sizeof ignored);
            return -1;
        }
        if (!ok)
            unlinkat(o->parent_fd[i], o->name, AT_REMOVEDIR);
    }
    o->made = 1;
    if (o->version == 2)
        v2_controllers(o, o->parent_fd[0], loc.path);
    return 0;
}

/* Deeper than this, groups the job made beneath ours are left (the kernel
 * allows a depth set by cgroup.max.depth; a job has no reason to go so
 * deep). */
#define CGROUP_OWN_MAX_DEPTH 32

static int empty_and_remove_at(int parent, const char *name, int dest, char *why, size_t whycap,
                               int depth);

/* Removes the groups the job made beneath g (each emptied into dest
 * first), deepest first: a group with children cannot be removed. */
static void remove_children(int g, int dest, char *why, size_t whycap, int depth)
{
    int copy = fcntl(g, F_DUPFD_CLOEXEC, 0);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
    if (!d) {
        if (copy >= 0)
            close(copy);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_type != DT_DIR || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        /* what the job made is its own business: removed if we can, and
         * its removal's failure is said for our group, below */
        empty_and_remove_at(g, e->d_name, dest, why, whycap, depth + 1);
    }
    closedir(d);
}

/* Moves the members of parent/name into dest, then removes parent/name. */
static int empty_and_remove(int parent, const char *name, int dest, char *why, size_t whycap)
{
    return empty_and_remove_at(parent, name, dest, why, whycap, 0);
}

static int empty_and_remove_at(int parent, const char *name, int dest, char *why, size_t whycap,
                               int depth)
{
    int g = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (g < 0)
        return errno == ENOENT ? 0 : -1;
    if (depth < CGROUP_OWN_MAX_DEPTH)
        remove_children(g, dest, why, whycap, depth);
    /* A process forking as it is moved may leave a child behind: a few
     * rounds. */
    for (int round = 0; round < 8; round++) {
        size_t n;
        pid_t *pids = members(g, &n);
        for (size_t i = 0; i < n; i++)
            move_pid(dest, pids[i]);
        free(pids);
        if (n == 0)
            break;
    }
    close(g);
    if (unlinkat(parent, name, AT_REMOVEDIR) < 0) {
        snprintf(why, whycap, "cannot remove the cgroup %s: %s", name, errno_text(errno));
        return -1;
    }
    return 0;
}

int cgroup_own_remove(struct cgroup_own *o, char *why, size_t whycap)
{
    if (!o->made) {
        close_parents(o);
        return 0;
    }
    int rc = 0;
    char leaf[80];
    snprintf(leaf, sizeof leaf, "%s-tracker", o->name);
    int leaffd = o->moved_self
                     ? openat(o->parent_fd[0], leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                     : -1;
    for (int i = 0; i < o->nparents; i++) {
        /* v2 with controllers on: our parent may hold no processes, so what
         * is left goes to our leaf first */
        int dest = i == 0 && leaffd >= 0 ? leaffd : o->parent_fd[i];
        if (empty_and_remove(o->parent_fd[i], o->name, dest, why, whycap) < 0)
            rc = -1;
    }
    if (o->moved_self) {
        /* what we enabled, disabled again one by one: "-memory", ... */
        char list[sizeof o->enabled];
        snprintf(list, sizeof list, "%s", o->enabled);
        char *save = NULL;
        for (char *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            w[0] = '-';
            if (put(o->parent_fd[0], "cgroup.subtree_control", w) < 0 && rc == 0) {
                snprintf(why, whycap, "cannot disable %s again: %s", w + 1,
                         errno_text(errno));
                rc = -1;
            }
        }
        if (rc == 0 && empty_and_remove(o->parent_fd[0], leaf, o->parent_fd[0], why, whycap) < 0)
            rc = -1;
    }
    if (leaffd >= 0)
        close(leaffd);
    close_parents(o);
    o->made = 0;
    return rc;
}
