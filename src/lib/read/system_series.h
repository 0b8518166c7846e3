/* system_series.h - the system-wide counters of the system series beyond
 * /proc/stat and meminfo (system.h): processes, disk I/O, disk space and
 * network traffic.
 *
 * What is counted (docs/series.md has the why):
 *   disks       whole disks only (listed in <sys>/block), none that sit on
 *               others or on memory (loop, ram, zram, nbd, dm-*, md*, or any
 *               with entries in slaves/); sectors of 512 bytes
 *   interfaces  those with a device behind them (<sys>/class/net/X/device);
 *               when there is none (a container's veth), all but loopback
 *   filesystems each device once (bind mounts and btrfs subvolumes share a
 *               source device), no pseudo, memory or network filesystems
 *   processes   the number of processes (numeric entries of <proc>) */
#ifndef GT_SYSTEM_SERIES_H
#define GT_SYSTEM_SERIES_H

#include <dirent.h>
#include <stddef.h>

#include "sample.h"


/* A block device or interface name and whether it counts (cached, since the
 * answer needs /sys lookups). */
struct name_class {
    char name[SYS_NAME_LEN];
    unsigned major, minor;
    int counted;
    unsigned seen;
};

struct system_series_reader {
    char *proc_root;
    int sys_block_fd;     /* <sys>/block, -1 if it cannot be opened */
    int sys_net_fd;       /* <sys>/class/net, -1 likewise */
    int diskstats_fd, netdev_fd;
    int pressure_fd[CGROUP_PSI_N]; /* <proc>/pressure/{cpu,memory,io}, -1: none */
    DIR *proc_dir;
    char *buf;
    size_t bufcap;
    struct name_class *blocks, *ifaces;
    size_t nblocks, capblocks, nifaces, capifaces;
    unsigned generation;
    void *fs_scratch;     /* the mount-table reading's working space */
    /* The mount table, kept open: read again only when poll() says it
     * changed (the kernel flags a change of the mount namespace with
     * POLLPRI); mounts: the mount points counted, NUL-separated (nmounts
     * of them), statvfs()'d at each reading. */
    int mountinfo_fd;
    char *mounts;
    size_t nmounts, mounts_len, mounts_cap;
    int mounts_valid;
    unsigned mount_reads;  /* times the table was read (tests) */
};

/* Opens what can be opened under proc_root and sys_root. Never fails for a
 * missing file (that part is then not ok in every sample); -1 with ENOMEM. */
int system_series_open(struct system_series_reader *r, const char *proc_root,
                       const char *sys_root);
void system_series_close(struct system_series_reader *r);

/* Reads every part into s (its arrays are reused). -1 with ENOMEM only. */
int system_series_read(struct system_series_reader *r, struct system_series_sample *s);

/* The filesystems the disk-space figures count (those of
 * system_series_read(), each once), as "MOUNT (TYPE on SOURCE)" joined by
 * ", ", in at most cap bytes ("..., and N more" for those that do not
 * fit): malloc'd, "" when the mount table cannot be read; NULL when out of
 * memory. */
char *system_series_filesystems(const char *proc_root, size_t cap);

#endif
