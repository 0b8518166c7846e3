/* trusted_path.c - whether a privileged run may use what a variable of its
 * caller's environment names: a library to load, a tree to read instead of
 * /proc or /sys (common/toolkit.h, docs/untrusted-input.md). */
#define _GNU_SOURCE
#include "common/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/file_io.h"

#define PROC_MAGIC 0x9fa0
#define SYSFS_MAGIC 0x62656572
#define TREE_MAX_ENTRIES 100000 /* a test tree has hundreds; checking costs ~1 us each */
#define TREE_MAX_DEPTH 32

/* An owner whose files a privileged run may take: root, or itself. */
static int owner_ok(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

gt_status path_library_trusted(const char *path, const char *what)
{
    error_clear();
    if (path[0] != '/')
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s '%s': as root, a library is named by its "
                         "absolute path", what, path);
    struct stat st;
    gt_status status;
    int fd = input_open(path, what, 1, &st, &status);
    if (fd < 0)
        return status;
    close(fd);
    if (!owner_ok(st.st_uid))
        return error_set(GT_ERR_IO, "%s '%s' is owned by user %d: as root, only a library of "
                         "root's is loaded", what, path, (int)st.st_uid);
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return error_set(GT_ERR_IO, "%s '%s' is writable by others than its owner: as root, it "
                         "is not loaded (chmod go-w)", what, path);
    return GT_OK;
}

/* A link's target stays inside the tree: relative, and no ".." that climbs
 * above the tree from depth (the link's directory's depth below it). */
static int link_stays_inside(const char *target, int depth)
{
    if (target[0] == '/')
        return 0;
    int at = depth;
    const char *c = target;
    while (*c) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            if (--at < 0)
                return 0;
        } else if (n > 0 && !(n == 1 && c[0] == '.')) {
            at++;
        }
        c += n;
        while (*c == '/')
            c++;
    }
    return 1;
}

struct tree_walk {
    const char *root;
    const char *what;
    long entries;
    gt_status status;
};

static int tree_fail(struct tree_walk *w, const char *rel, const char *why)
{
    char *safe = text_escape(rel);
    w->status = error_set(GT_ERR_IO, "%s '%s': '%s' %s: as root, only a tree that no one but "
                          "root can change is read", w->what, w->root, safe ? safe : "?", why);
    free(safe);
    return -1;
}

/* Checks the directory dirfd (rel: its path below the tree, for messages)
 * and everything below it. 0, or -1 with w->status. */
static int check_tree_dir(struct tree_walk *w, int dirfd, const char *rel, int depth)
{
    if (depth > TREE_MAX_DEPTH)
        return tree_fail(w, rel, "is nested too deep");
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return tree_fail(w, rel, strerror(errno));
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        if (++w->entries > TREE_MAX_ENTRIES) {
            rc = tree_fail(w, rel, "is in a tree of more than 100000 entries, too many to check");
            break;
        }
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            rc = tree_fail(w, sub, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            if (!owner_ok(st.st_uid))
                rc = tree_fail(w, sub, "is a directory of another user's");
            else if (st.st_mode & (S_IWGRP | S_IWOTH))
                rc = tree_fail(w, sub, "is a directory others may write");
            else {
                int next = openat(dirfd, e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                rc = next < 0 ? tree_fail(w, sub, strerror(errno))
                              : check_tree_dir(w, next, sub, depth + 1);
                if (next >= 0)
                    close(next);
            }
        } else if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(dirfd, e->d_name, target, sizeof target - 1);
            if (n < 0)
                rc = tree_fail(w, sub, strerror(errno));
            else {
                target[n] = '\0';
                if (!owner_ok(st.st_uid))
                    rc = tree_fail(w, sub, "is a link of another user's");
                else if (!link_stays_inside(target, depth))
                    rc = tree_fail(w, sub, "is a link that leads out of the tree");
            }
        } else if (!S_ISREG(st.st_mode)) {
            rc = tree_fail(w, sub, "is not a regular file (a FIFO, device or socket)");
        }
    }
    closedir(d);
    return rc;
}

gt_status path_tree_trusted(const char *path, const char *what)
{
    error_clear();
    if (path[0] != '/')
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s '%s': as root, a tree is named by its "
                         "absolute path", what, path);
    gt_status status;
    int dirfd = trusted_dir_open(path, what, &status);
    if (dirfd < 0)
        return status;
    struct statfs fs;
    if (fstatfs(dirfd, &fs) == 0 && (fs.f_type == PROC_MAGIC || fs.f_type == SYSFS_MAGIC)) {
        close(dirfd); /* the kernel's own files: nothing a user planted */
        return GT_OK;
    }
    /* The tree itself as strict as every directory in it: a sticky one
     * (/tmp) would let anyone add a name after the walk. */
    struct stat top;
    if (fstat(dirfd, &top) < 0 || (top.st_mode & (S_IWGRP | S_IWOTH))) {
        close(dirfd);
        return error_set(GT_ERR_IO, "%s '%s' is a directory others may write (a sticky one too): "
                         "as root, only a tree that no one but root can change is read", what,
                         path);
    }
    struct tree_walk w = {path, what, 0, GT_OK};
    int rc = check_tree_dir(&w, dirfd, "", 0);
    close(dirfd);
    return rc == 0 ? GT_OK : w.status;
}

gt_status path_dir_trusted(const char *path, const char *what)
{
    error_clear();
    if (path[0] != '/')
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s '%s' is not an absolute path", what, path);
    gt_status status;
    int fd = trusted_dir_open(path, what, &status);
    if (fd < 0)
        return status;
    close(fd);
    return GT_OK;
}
