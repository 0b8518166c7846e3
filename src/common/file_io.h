/* file_io.h - the library's file discipline, for a program that is run as
 * root on shared machines and fed files from untrusted sources.
 *
 * Writing (every summary, CSV, snapshot, report and backup goes through
 * here; docs/cli.md "Output files" states the rules for users):
 *  - A path is resolved one component at a time through directory
 *    descriptors. A symbolic link is followed only when it belongs to the
 *    effective user or to root: a link someone else planted (in /tmp, in a
 *    shared project directory) is an error, never a way to make us replace
 *    a file elsewhere. A link in procfs (/dev/stdout, /dev/fd/N) is opened
 *    by the kernel and appended to.
 *  - A name is another user's when another user (not us, not root, not the
 *    directory's owner) made it in a directory that others may write to
 *    (group or others have write permission: /tmp, a shared project
 *    directory). Another user's name is never opened, whatever it is (a FIFO
 *    would block us, a file would give them what we write): before a run
 *    it is refused (output_target_check); met at write time (put there
 *    during the run) it is replaced by our own new file (rename), never
 *    written through.
 *  - A new file gets mode 0666 less the umask. An existing regular file is
 *    replaced atomically (a temporary file made with O_EXCL beside it,
 *    fsync, rename) and keeps its mode, owner and group; one with other
 *    hard links is written in place (the links keep seeing it) when it is
 *    the user's own in a directory no one else may write to, otherwise a
 *    new file takes its name. A file we may write in a directory we may not
 *    is written in place. A FIFO or a device is written in place, never
 *    replaced. Whatever is opened in place is first opened with O_PATH and
 *    O_NOFOLLOW, checked (type, owner, the file we resolved) and only then
 *    opened for writing, through that descriptor: an open that waits (a
 *    FIFO's, for its reader) waits only on an object we checked.
 *  - A target marked replace_only (the backup, the metrics textfile: files
 *    of our own naming) is never opened in place: whatever is at its name
 *    is replaced.
 *  - A write that cannot take its name (a directory was put there, or a
 *    sticky directory forbids replacing what another user put there) is
 *    kept under a new name beside it, "NAME.saved-XXXXXX", and the error
 *    says where: nothing measured is lost.
 *  - Nothing is created or changed to check a path (a FIFO's reader would
 *    take an open for the end of the data).
 *  - output_file_hold(path) resolves path once and keeps its directory open:
 *    until output_file_release(path), every write to that path (by any of
 *    the library's writers) goes into that directory, whatever is done to
 *    the directories on the way meanwhile (a link or a directory planted
 *    during a run).
 *
 * Reading (every file the library or the command reads from a user: a
 * snapshot, a summary, a tracking file, a config file):
 *  - The path is resolved as an output's is: a symbolic link is followed
 *    only when it belongs to the effective user or to root, so a link a
 *    another user planted never makes us read a file of root's for them.
 *  - The final name is never followed (O_NOFOLLOW) and is looked at
 *    through an O_PATH descriptor before anything is opened: only a
 *    regular file is opened (a device's open has effects, a FIFO's waits),
 *    and through that descriptor, so what is read is what was checked.
 *  - A file whose contents are trusted (the config file: options a program
 *    run as root takes) is read only through directories that the user or
 *    root alone may change, must be theirs and writable by no one else,
 *    and is never a kernel file (/proc, /sys).
 *  - At most a given number of bytes. */
#ifndef GT_FILE_IO_H
#define GT_FILE_IO_H

#include <stddef.h>
#include <sys/stat.h>

#include "common/toolkit.h" /* the output_file_* it defines (file_io.c) */

/* Where an output goes, resolved under the rules above. */
struct output_target {
    int dirfd;        /* the directory of the final name (O_PATH); -1 when closed */
    char *name;       /* the name in it (malloc'd) */
    int exists;       /* name exists: st is its lstat */
    struct stat st;
    int kernel_link;  /* a procfs link: the kernel opens what it names */
    int replace_only; /* never written in place (set by the owner after resolving) */
    int wrote;        /* a write of ours took the name: written_* say which file */
    dev_t written_dev;
    ino_t written_ino;
};

/* Resolves path. GT_ERR_IO (a planted link, a missing directory, too many
 * links, ...) or GT_ERR_NO_MEMORY with the message. Close with
 * output_target_close(). */
gt_status output_resolve(const char *path, struct output_target *t);
void output_target_close(struct output_target *t);

/* Looks at t's name again (it may have been written, removed, or replaced
 * by someone else since): for a target kept over many writes (the backup
 * file). A link found there is replaced, never followed. */
void output_target_refresh(struct output_target *t);

/* Removes t's name when it is still the file our last write put there
 * (what someone else put there since is left alone). 0, or -1 with errno. */
int output_target_remove(const struct output_target *t);

/* Checks that t can be written, changing nothing. GT_ERR_IO with the reason
 * (path names it in the message). */
gt_status output_target_check(const struct output_target *t, const char *path);

/* Writes len bytes to t (see the rules above): a failure leaves an existing
 * regular file as it was, except one written in place. GT_ERR_IO /
 * GT_ERR_NO_MEMORY with the message naming path. */
gt_status output_target_write(struct output_target *t, const char *path, const void *data,
                              size_t len);

/* output_target_write() with durable 0: no fsync before the rename. The
 * file is still whole for every reader and after the writer is killed (the
 * page cache keeps it); only a machine crash may lose it. For a file
 * rewritten often whose older version may stand in (the backup file). */
gt_status output_target_replace(struct output_target *t, const char *path, const void *data,
                                size_t len, int durable);

/* A write made a piece at a time (a snapshot, gzipped as it is made),
 * under the same rules as output_target_write(): begin, write any number of
 * times, then commit (fsync, rename into place) or abort (nothing of it
 * stays). */
struct output_stream {
    struct output_target *target;
    const char *path;
    int fd;
    char *tmp;      /* the temporary file's name; NULL when in place */
    int error;      /* errno of the first failed write, 0 */
    int no_fsync;   /* commit without fsync (see output_target_replace) */
};
gt_status output_stream_begin(struct output_target *t, const char *path, struct output_stream *w);
/* 0, or -1 with errno (kept for commit's message). */
int output_stream_write(struct output_stream *w, const void *data, size_t len);
gt_status output_stream_commit(struct output_stream *w);
void output_stream_abort(struct output_stream *w);

/* output_resolve() + output_target_write(). */
gt_status write_file_atomic(const char *path, const void *data, size_t len);

/* Opens path to write a stream into (the series' CSV): created, or emptied
 * in place keeping its mode and owner (one with other hard links, when not
 * kept as above, is replaced by a new file of the same mode). *fd is
 * close-on-exec. GT_ERR_IO with the message. */
gt_status output_open_stream(const char *path, int *fd);

/* write() all of len bytes to fd, again after EINTR or a short write: 0, or
 * -1 with errno (EIO when the file took nothing). */
int fd_write_all(int fd, const void *data, size_t len);

/* Opens path to read under the reading rules above: a descriptor
 * (O_RDONLY, close-on-exec) of a regular file and *st its fstat, or -1
 * with *status and the message ("cannot read WHAT 'PATH': why"; what may
 * be NULL). private: the rules of a trusted file's directories and
 * filesystem (its owner and mode are the caller's to check on *st). */
int input_open(const char *path, const char *what, int private, struct stat *st,
               gt_status *status);

/* Reads fd, an open regular file input_open() gave (st its fstat), whole
 * into *data as read_regular_file() says (at most max bytes, also when it
 * grows while read), and closes it. */
gt_status read_open_file(int fd, const struct stat *st, const char *path, size_t max,
                         const char *what, char **data, size_t *len);

/* Opens the directory path (O_PATH, close-on-exec) under the rules of a
 * trusted file's directories: it and every directory on the way the
 * effective user's or root's and writable by no one else (unless sticky),
 * no link of another user's followed. -1 with *status and the message. */
int trusted_dir_open(const char *path, const char *what, gt_status *status);

/* Reads the regular file path whole into *data (malloc'd, NUL-terminated
 * after *len bytes). GT_ERR_IO: cannot be read, not a regular file (a FIFO
 * is never waited on), or larger than max bytes (the message says the
 * limit); GT_ERR_NO_MEMORY. what names the kind of file in messages
 * ("snapshot", "summary"). */
gt_status read_regular_file(const char *path, size_t max, const char *what, char **data,
                            size_t *len);

/* read_regular_file() of a file that is to be trusted, such as one whose
 * options a program run as root takes: it must also be owned by the
 * effective user or root and writable by no one else (GT_ERR_IO with the
 * reason otherwise). */
gt_status read_private_file(const char *path, size_t max, const char *what, char **data,
                            size_t *len);

#endif
