/* sys_parse.h - pure parsers and classifiers of system-wide files:
 * /proc/diskstats, /proc/net/dev, /proc/self/mountinfo.
 *
 * Like proc_parse.h: a buffer in, a struct out, no I/O, no allocation. The
 * line parsers take one line (without its newline) and return 0, or -1 when
 * the line does not have the file's shape (a header, a truncated line, a
 * number that overflows 64 bits). */
#ifndef GT_SYS_PARSE_H
#define GT_SYS_PARSE_H

#include <stddef.h>

#define SYS_NAME_LEN 64

/* Calls fn(line, len, arg) for every line of buf (without the newline);
 * stops early and returns what fn returned when that is non-zero. */
int sys_each_line(const char *buf, size_t len, int (*fn)(const char *line, size_t n, void *arg),
                  void *arg);

/* One line of /proc/diskstats: "major minor name reads merged sectors ms
 * writes merged sectors ...". Sectors are 512-byte units whatever the
 * device's own sector size. */
struct diskstats_line {
    unsigned major, minor;
    char name[SYS_NAME_LEN];
    unsigned long long read_sectors;
    unsigned long long write_sectors;
};
int sys_parse_diskstats_line(const char *line, size_t n, struct diskstats_line *out);

/* One interface line of /proc/net/dev: "name: rx_bytes ... (8 fields)
 * tx_bytes ...". The two header lines fail (they have no "name:"). */
struct netdev_line {
    char name[SYS_NAME_LEN];
    unsigned long long rx_bytes;
    unsigned long long tx_bytes;
};
int sys_parse_netdev_line(const char *line, size_t n, struct netdev_line *out);

/* One line of /proc/<pid>/mountinfo: "id parent major:minor root mountpoint
 * options [optional fields...] - fstype source superoptions". Escapes
 * (\040 for a space, ...) in the mount point and source are decoded. A
 * field that does not fit its buffer fails the line. */
struct mountinfo_line {
    unsigned major, minor;
    char mount_point[4096];
    char fstype[64];
    char source[512];
};
int sys_parse_mountinfo_line(const char *line, size_t n, struct mountinfo_line *out);

/* 1 for filesystems that hold no disk space of their own: kernel and memory
 * filesystems (proc, sysfs, tmpfs, cgroup, ...) and read-only images
 * mounted from a file (squashfs: their space is inside another filesystem). */
int sys_fs_is_pseudo(const char *fstype);

/* 1 for network and cluster filesystems (nfs, cifs, ceph, lustre, sshfs...):
 * shared space that is not this machine's disk, and whose statvfs() can hang
 * when the server does not answer. */
int sys_fs_is_network(const char *fstype);

/* 1 for block devices that sit on top of others or on memory and so would
 * count the same bytes twice (loop, ram, zram, nbd, device-mapper, md). */
int sys_block_is_virtual(const char *name);

/* 1 when a name looks like a partition (sda1, nvme0n1p2, mmcblk0p1, vdb3,
 * xvda1): the fallback when /sys/block cannot tell whole disks apart. */
int sys_block_looks_like_partition(const char *name);

#endif
