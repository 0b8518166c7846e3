/* procfs.h - the thin I/O layer over procfs: open a process once, re-read its
 * files through kept-open descriptors, list its children.
 *
 * Every function returns 0 on success and -1 with errno set on failure.
 * ENOENT or ESRCH mean the process is gone (it may vanish between any two
 * reads); EACCES means we may not read that file of it. The parsers in
 * proc_parse.h do the parsing. */
#ifndef GT_PROCFS_H
#define GT_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

#include "common/parse/proc_parse.h"
#include "common/file_read.h"

/* One process's open handles. */
struct proc_handle {
    pid_t pid;
    int *fd_budget;  /* descriptors we may still keep open; NULL: unlimited */
    int dirfd;       /* /proc/<pid>, pins the process: after it dies, reads fail */
    int stat_fd;     /* kept open, -1 until first read */
    int status_fd;
    int task_fd;     /* task/, kept open once the process has several threads */
    int children_fd; /* task/<pid>/children */
    int io_fd;       /* io (read only for the series) */
    int schedstat_fd;/* schedstat (where the kernel accounts it) */
};

/* Closes h's kept files (not its directory), giving them back to the
 * budget; later reads open them again. */
void procfs_release_files(struct proc_handle *h);

/* Opens /proc/<pid> under the procfs root directory fd. Files are then kept
 * open for re-reading while *fd_budget (shared by all handles; NULL for no
 * limit) is positive; past it they are opened for each read. The directory
 * itself is always kept, and counted (the budget may go below zero). */
int procfs_open(int root_fd, pid_t pid, int *fd_budget, struct proc_handle *h);
void procfs_close(struct proc_handle *h);

/* Reads and parses stat / status / smaps_rollup. A malformed file fails
 * with ERR_MALFORMED (internal.h). buf is scratch space of cap bytes. */
int procfs_read_stat(struct proc_handle *h, char *buf, size_t cap, struct proc_stat *out);
/* The same with stat's block I/O delay (proc_parse_stat_delay). */
int procfs_read_stat_delay(struct proc_handle *h, char *buf, size_t cap, struct proc_stat *out);
int procfs_read_status(struct proc_handle *h, char *buf, size_t cap, struct proc_status *out);
int procfs_read_rollup(struct proc_handle *h, char *buf, size_t cap, struct proc_rollup *out);
/* Reads and parses io (kept open like stat: the series read it every row). */
int procfs_read_io(struct proc_handle *h, char *buf, size_t cap, struct proc_io *out);
/* Reads and parses schedstat (kept open like stat). */
int procfs_read_schedstat(struct proc_handle *h, char *buf, size_t cap,
                          struct proc_schedstat *out);
/* Calls each(arg, tid, schedstat) for every thread of h's process but its
 * main one (and, in this process, the library's own), as listed in task/
 * now; a thread that ends meanwhile is passed over. 0, or -1 with errno
 * when task/ cannot be read. */
int procfs_threads_schedstat(struct proc_handle *h, char *buf, size_t cap,
                             void (*each)(void *arg, pid_t tid, const struct proc_schedstat *s),
                             void *arg);

/* Appends the children of every thread of the process (task/<tid>/children)
 * to *list (grown with realloc; *n entries used, *listcap allocated).
 * nthreads is the process's thread count from stat: with one thread only
 * its own children file is read, without listing task/. Every thread and
 * every child is listed, however many: *buf (*cap bytes, malloc'd scratch)
 * grows to fit a children file. Fails with ENOTSUP when the kernel has no
 * children files (CONFIG_PROC_CHILDREN), ESRCH when the process died
 * meanwhile, ENOMEM. */
int procfs_list_children(struct proc_handle *h, long nthreads, char **buf, size_t *cap,
                         pid_t **list, size_t *n, size_t *listcap);

/* Appends the pids of every process whose parent is ppid, by scanning every
 * /proc/<pid>/stat: the slow fallback for kernels without children files. */
int procfs_scan_children(int root_fd, pid_t ppid, char *buf, size_t cap,
                         pid_t **list, size_t *n, size_t *listcap);

/* Appends pid to a growing list; -1 with ENOMEM when it cannot grow. */
int pid_list_push(pid_t **list, size_t *n, size_t *cap, pid_t pid);

#endif
