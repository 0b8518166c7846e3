#define _GNU_SOURCE
/* The time series without running anything real: the system-file parsers on
 * fixture strings, what counts as a disk / interface / filesystem on fixture
 * /proc and /sys trees, the row logic on constructed readings (wraps,
 * restarts, vanished devices), the CSV, the tree's series counters, and the
 * tracker's rows on a fixture tree; and, on this machine's /proc, that the
 * series' CPU is the kernel's nanosecond run time of the whole process. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_tracker_new.h"
#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "common/parse/proc_parse.h"
#include "sink/row_store.h"
#include "pipeline/series.h"
#include "read/system.h"
#include "common/background.h"
#include "common/series_columns.h"
#include "output/write_csv.h"
#include "common/parse/sys_parse.h"
#include "read/system_series.h"
#include "read/tree.h"

static void test_diskstats_lines(void)
{
    struct diskstats_line d;
    /* A 5.x kernel's 20 fields. */
    const char *l = "   8       0 sda 73302 13537 9111970 106207 50398 24702 2027272 10255 0 19736 "
                    "120923 50774 17 1546648 4188 5903 272";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == 0);
    CHECK(d.major == 8 && d.minor == 0);
    CHECK_STR(d.name, "sda");
    CHECK(d.read_sectors == 9111970 && d.write_sectors == 2027272);
    /* A 4.x kernel's 14 fields, an nvme partition. */
    l = " 259       1 nvme0n1p1 10 0 80 3 7 0 56 2 0 5 5";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == 0);
    CHECK_STR(d.name, "nvme0n1p1");
    CHECK(d.read_sectors == 80 && d.write_sectors == 56);
    /* Counters at the 64-bit limit, and one past it. */
    l = "8 16 sdb 0 0 18446744073709551615 0 0 0 1 0 0 0 0";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == 0 &&
          d.read_sectors == 18446744073709551615ULL);
    l = "8 16 sdb 0 0 18446744073709551616 0 0 0 1 0 0 0 0";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == -1);
    /* Truncated, garbage, empty. */
    l = "8 16 sdb 0 0 5 0 0 0";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == -1);
    l = "x y sdb 0 0 5 0 0 0 1 0 0 0 0";
    CHECK(sys_parse_diskstats_line(l, strlen(l), &d) == -1);
    CHECK(sys_parse_diskstats_line("", 0, &d) == -1);
    /* A name too long for the buffer. */
    char longname[200];
    snprintf(longname, sizeof longname, "8 1 %0100d 1 1 1 1 1 1 1 1", 0);
    CHECK(sys_parse_diskstats_line(longname, strlen(longname), &d) == -1);
}

static void test_netdev_lines(void)
{
    struct netdev_line n;
    const char *h1 = "Inter-|   Receive                                                |  Transmit";
    const char *h2 = " face |bytes    packets errs drop fifo frame compressed multicast|bytes";
    CHECK(sys_parse_netdev_line(h1, strlen(h1), &n) == -1);
    CHECK(sys_parse_netdev_line(h2, strlen(h2), &n) == -1);
    const char *l = "  eth0: 19183002     618    0    0    0     0          0         0    30910     "
                    "345    0    0    0     0       0          0";
    CHECK(sys_parse_netdev_line(l, strlen(l), &n) == 0);
    CHECK_STR(n.name, "eth0");
    CHECK(n.rx_bytes == 19183002 && n.tx_bytes == 30910);
    /* Old kernels glue a big counter to the colon. */
    l = "  eth1:4294967296 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0";
    CHECK(sys_parse_netdev_line(l, strlen(l), &n) == 0);
    CHECK(n.rx_bytes == 4294967296ULL && n.tx_bytes == 7);
    l = "  eth2: 1 2 3";
    CHECK(sys_parse_netdev_line(l, strlen(l), &n) == -1);
    l = "  : 1 2 3 4 5 6 7 8 9 10";
    CHECK(sys_parse_netdev_line(l, strlen(l), &n) == -1);
}

static void test_mountinfo_lines(void)
{
    struct mountinfo_line m;
    const char *l = "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == 0);
    CHECK(m.major == 254 && m.minor == 0);
    CHECK_STR(m.mount_point, "/");
    CHECK_STR(m.fstype, "ext4");
    CHECK_STR(m.source, "/dev/vda");
    /* No optional fields; escaped spaces in the mount point. */
    l = "40 27 8:17 /data /mnt/my\\040disk rw - xfs /dev/sdb1 rw";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == 0);
    CHECK_STR(m.mount_point, "/mnt/my disk");
    CHECK_STR(m.source, "/dev/sdb1");
    CHECK(m.major == 8 && m.minor == 17);
    /* Several optional fields. */
    l = "41 27 0:50 / /var/lib/docker/overlay2/x/merged rw shared:3 master:1 propagate_from:2 - "
        "overlay overlay rw,lowerdir=/a";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == 0);
    CHECK_STR(m.fstype, "overlay");
    CHECK_STR(m.source, "overlay");
    /* No separator, truncated, malformed device numbers. */
    l = "27 1 254:0 / / rw,relatime ext4 /dev/vda rw";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == -1);
    l = "27 1 254:0 / / rw -";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == -1);
    l = "27 1 254-0 / / rw - ext4 /dev/vda rw";
    CHECK(sys_parse_mountinfo_line(l, strlen(l), &m) == -1);
    CHECK(sys_parse_mountinfo_line("", 0, &m) == -1);
}

static void test_proc_files(void)
{
    struct proc_io io;
    const char *t = "rchar: 5\nwchar: 6\nsyscr: 1\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 8192\n"
                    "cancelled_write_bytes: 4096\n";
    CHECK(proc_parse_io(t, strlen(t), &io) == 0);
    CHECK(io.read_bytes == 4096 && io.write_bytes == 8192);
    t = "rchar: 5\nread_bytes: 4096\n";
    CHECK(proc_parse_io(t, strlen(t), &io) == -1);
    t = "read_bytes: x\nwrite_bytes: 1\n";
    CHECK(proc_parse_io(t, strlen(t), &io) == -1);

    struct sys_cpu c;
    t = "cpu  100 20 30 400 5 6 7 8 9 10\ncpu0 1 1 1 1 1 1 1 1 0 0\n";
    CHECK(proc_parse_cpu_stat(t, strlen(t), &c) == 0);
    CHECK(c.user_nice == 120 && c.system == 30);

    struct meminfo mi;
    t = "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 500 kB\nBuffers: 10 kB\nCached: 200 kB\n"
        "SwapCached: 7 kB\nActive: 300 kB\nInactive: 250 kB\nActive(anon): 40 kB\n";
    CHECK(proc_parse_meminfo(t, strlen(t), &mi) == 0);
    CHECK(mi.free_kb == 100 && mi.buffers_kb == 10 && mi.cached_kb == 200);
    CHECK(mi.active_kb == 300 && mi.inactive_kb == 250);
}

static void test_classifiers(void)
{
    const char *partitions[] = {"sda1", "sdab12", "vdb3", "xvda1", "hda2", "nvme0n1p1",
                                "nvme12n3p45", "mmcblk0p1"};
    for (size_t i = 0; i < sizeof partitions / sizeof *partitions; i++)
        CHECK_MSG(sys_block_looks_like_partition(partitions[i]), "%s", partitions[i]);
    const char *disks[] = {"sda", "vdb", "nvme0n1", "mmcblk0", "sr0", "nvme0n1p", "dm-0", "md127"};
    for (size_t i = 0; i < sizeof disks / sizeof *disks; i++)
        CHECK_MSG(!sys_block_looks_like_partition(disks[i]), "%s", disks[i]);
    const char *virt[] = {"loop0", "ram15", "zram0", "nbd3", "dm-12", "md0", "md_d0"};
    for (size_t i = 0; i < sizeof virt / sizeof *virt; i++)
        CHECK_MSG(sys_block_is_virtual(virt[i]), "%s", virt[i]);
    const char *real[] = {"sda", "nvme0n1", "vda", "mmcblk0", "loopy", "mdx", "dm", "sr0"};
    for (size_t i = 0; i < sizeof real / sizeof *real; i++)
        CHECK_MSG(!sys_block_is_virtual(real[i]), "%s", real[i]);
    CHECK(sys_fs_is_pseudo("tmpfs") && sys_fs_is_pseudo("proc") && sys_fs_is_pseudo("squashfs"));
    CHECK(!sys_fs_is_pseudo("ext4") && !sys_fs_is_pseudo("overlay") && !sys_fs_is_pseudo("btrfs"));
    CHECK(sys_fs_is_network("nfs4") && sys_fs_is_network("fuse.sshfs") && sys_fs_is_network("lustre"));
    CHECK(!sys_fs_is_network("xfs") && !sys_fs_is_network("fuse.fuse-overlayfs"));
}

/* A fixture /sys with the block devices and interfaces of a busy server. */
static void make_sys(const char *sys)
{
    const char *whole[] = {"block/sda", "block/sdb", "block/sdc", "block/nvme0n1", "block/sr0",
                           "block/loop0", "block/ram0", "block/zram0", "block/dm-0/slaves/sda2",
                           "block/md0/slaves/sdb", "block/dm-1/slaves",
                           "block/bcache0/slaves/sdc"};
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++)
        fx_mkdirs(sys, whole[i]);
    fx_write(sys, "block/md0/slaves/sdc", ""); /* a second member, as a plain entry */
    const char *ifs[] = {"class/net/lo", "class/net/eth0/device", "class/net/wlan0/device",
                         "class/net/veth1a2b", "class/net/docker0/bridge", "class/net/bond0",
                         "class/net/eth0.100"};
    for (size_t i = 0; i < sizeof ifs / sizeof *ifs; i++)
        fx_mkdirs(sys, ifs[i]);
}

static void write_diskstats(const char *proc, unsigned long long k)
{
    /* Every device moved k sectors in each direction since boot... */
    const char *devs[][3] = {
        {"8", "0", "sda"},     {"8", "1", "sda1"},   {"8", "2", "sda2"},  {"8", "16", "sdb"},
        {"8", "32", "sdc"},    {"259", "0", "nvme0n1"}, {"259", "1", "nvme0n1p1"},
        {"11", "0", "sr0"},    {"7", "0", "loop0"},  {"1", "0", "ram0"},  {"252", "0", "zram0"},
        {"253", "0", "dm-0"},  {"9", "0", "md0"},    {"253", "1", "dm-1"}, {"8", "48", "sdd"},
        {"250", "0", "bcache0"},
    };
    char buf[8192];
    size_t n = 0;
    for (size_t i = 0; i < sizeof devs / sizeof *devs; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "%4s %7s %s 1 0 %llu 1 1 0 %llu 1 0 1 2 0 0 0 0 0 0\n", devs[i][0],
                              devs[i][1], devs[i][2], k, 2 * k);
    fx_write(proc, "diskstats", buf);
}

static void test_system_counters(void)
{
    char *root = fx_mkroot();
    char proc[4200], sys[4200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    make_sys(sys);
    fx_mkdirs(proc, "net");
    fx_mkdirs(proc, "self");
    fx_mkdirs(proc, "1");
    fx_mkdirs(proc, "42");
    fx_mkdirs(proc, "31337");
    fx_mkdirs(proc, "sys");
    fx_write(proc, "uptime", "1 1\n");
    write_diskstats(proc, 100);
    fx_write(proc, "net/dev",
             "Inter-|   Receive                                                |  Transmit\n"
             " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
             "errs drop fifo colls carrier compressed\n"
             "    lo: 5000 1 0 0 0 0 0 0 5000 1 0 0 0 0 0 0\n"
             "  eth0: 1000 1 0 0 0 0 0 0 2000 1 0 0 0 0 0 0\n"
             " wlan0: 300 1 0 0 0 0 0 0 400 1 0 0 0 0 0 0\n"
             "veth1a2b: 1000 1 0 0 0 0 0 0 2000 1 0 0 0 0 0 0\n"
             "docker0: 1000 1 0 0 0 0 0 0 2000 1 0 0 0 0 0 0\n"
             " bond0: 1300 1 0 0 0 0 0 0 2400 1 0 0 0 0 0 0\n"
             "eth0.100: 10 1 0 0 0 0 0 0 20 1 0 0 0 0 0 0\n");

    /* Mount points are real directories, so statvfs() answers for them; all
     * live on the same filesystem, so each one counted adds the same total. */
    const char *dirs[] = {"m/root", "m/bind", "m/tmp", "m/data", "m/my disk", "m/overlay",
                          "m/nfs", "m/snap", "m/btrfs-a", "m/btrfs-b", "m/proc", "m/ovl-bind"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        fx_mkdirs(root, dirs[i]);
    char mi[16384];
    snprintf(mi, sizeof mi,
             "22 1 8:1 / %1$s/m/root rw shared:1 - ext4 /dev/sda1 rw\n"
             "23 22 8:1 /home %1$s/m/bind rw - ext4 /dev/sda1 rw\n"             /* bind: again */
             "24 22 0:21 / %1$s/m/tmp rw - tmpfs tmpfs rw\n"                     /* memory */
             "25 22 8:17 / %1$s/m/data rw - xfs /dev/sdb1 rw\n"
             "26 22 8:17 /x %1$s/m/my\\040disk rw - xfs /dev/sdb1 rw\n"       /* bind, escaped */
             "27 22 0:50 / %1$s/m/overlay rw - overlay overlay rw,lowerdir=/l\n"
             "28 22 0:51 / %1$s/m/nfs rw - nfs4 server:/export rw\n"            /* network */
             "29 22 7:0 / %1$s/m/snap ro - squashfs /dev/loop0 ro\n"           /* image */
             "30 22 0:60 / %1$s/m/btrfs-a rw - btrfs /dev/sdc rw,subvol=/a\n"
             "31 22 0:61 / %1$s/m/btrfs-b rw - btrfs /dev/sdc rw,subvol=/b\n"  /* same device */
             "32 22 0:22 / %1$s/m/proc rw - proc proc rw\n"
             "33 22 8:48 / %1$s/m/gone rw - ext4 /dev/sdd rw\n"                 /* unreachable */
             "34 22 0:50 /sub %1$s/m/ovl-bind rw - overlay overlay rw\n",      /* bind of 27 */
             root);
    fx_write(proc, "self/mountinfo", mi);

    struct statvfs v;
    CHECK(statvfs(root, &v) == 0);
    unsigned long long frsize = v.f_frsize ? v.f_frsize : v.f_bsize;
    unsigned long long one_total = (unsigned long long)v.f_blocks * frsize;

    struct system_series_reader r;
    struct system_series_sample s = {0};
    CHECK(system_series_open(&r, proc, sys) == 0);
    CHECK(system_series_read(&r, &s) == 0);
    CHECK(s.processes_ok && s.processes == 3); /* 1, 42, 31337; not self, net, sys */
    CHECK(s.disks_ok && s.nets_ok && s.fs_ok);

    /* Whole disks only: sda, sdb, sdc, nvme0n1, sr0. Not the partitions, not
     * loop/ram/zram, not dm-0 (on sda2), md0 (on sdb, sdc), dm-1 (named dm-)
     * or bcache0 (slaves: on sdc), not sdd (no /sys/block entry: not a whole
     * disk we know). */
    const char *want_disks[] = {"sda", "sdb", "sdc", "nvme0n1", "sr0"};
    CHECK_MSG(s.ndisks == 5, "%zu disks", s.ndisks);
    for (size_t i = 0; i < sizeof want_disks / sizeof *want_disks; i++) {
        int found = 0;
        for (size_t j = 0; j < s.ndisks; j++)
            found |= strcmp(s.disks[j].name, want_disks[i]) == 0;
        CHECK_MSG(found, "%s counted", want_disks[i]);
    }
    /* Interfaces with a device: eth0, wlan0. */
    CHECK_MSG(s.nnets == 2, "%zu interfaces", s.nnets);
    unsigned long long rx = 0, tx = 0;
    for (size_t i = 0; i < s.nnets; i++) {
        rx += s.nets[i].rx_bytes;
        tx += s.nets[i].tx_bytes;
    }
    CHECK(rx == 1300 && tx == 2400);
    /* Filesystems: sda1, sdb1, overlay, the btrfs of sdc: four. */
    CHECK_MSG(s.fs_total_bytes == 4 * one_total, "total %llu, one %llu", s.fs_total_bytes,
              one_total);
    CHECK(s.fs_used_bytes <= s.fs_total_bytes && s.fs_free_bytes <= s.fs_total_bytes);
    /* ... and named, the four of them, for the report. */
    char *names = system_series_filesystems(proc, 4096);
    char want[8192];
    snprintf(want, sizeof want, "%1$s/m/root (ext4 on /dev/sda1), %1$s/m/data (xfs on /dev/sdb1), "
             "%1$s/m/overlay (overlay on overlay), %1$s/m/btrfs-a (btrfs on /dev/sdc)", root);
    CHECK_STR(names ? names : "", want);
    free(names);
    /* Too small a room: never a silent drop, the rest counted. */
    names = system_series_filesystems(proc, strlen(root) + 64);
    CHECK_MSG(names && strstr(names, " (ext4 on /dev/sda1), and 3 more"), "[%s]",
              names ? names : "");
    free(names);

    /* A second reading after traffic: the row counts 512-byte sectors of the
     * whole disks only: 5 disks * 50 sectors read, 100 written. */
    struct system_series_sample prev = {0};
    system_series_sample_swap(&prev, &s);
    write_diskstats(proc, 150);
    CHECK(system_series_read(&r, &s) == 0);
    struct system_reading a = {.extra = &prev}, b = {.extra = &s};
    gt_system_row row;
    series_system_row(&a, &b, 1.0, 100, 1000.0, &row);
    CHECK_MSG(row.disk_read_bytes == 5 * 50 * 512ULL, "%llu", row.disk_read_bytes);
    CHECK(row.disk_write_bytes == 5 * 100 * 512ULL);
    CHECK(row.processes == 3);
    CHECK(row.disk_space_total_gb ==
          round(4.0 * (double)one_total / (1024.0 * 1024 * 1024) * 100) / 100);

    /* A container: only a veth and lo, no device behind any interface: the
     * veth is the way out and counts. */
    fx_write(proc, "net/dev",
             "Inter-|   Receive\n face |bytes\n"
             "    lo: 5000 1 0 0 0 0 0 0 5000 1 0 0 0 0 0 0\n"
             "  veth1a2b: 70 1 0 0 0 0 0 0 80 1 0 0 0 0 0 0\n");
    CHECK(system_series_read(&r, &s) == 0);
    CHECK(s.nnets == 1 && s.nets[0].rx_bytes == 70 && s.nets[0].tx_bytes == 80);
    system_series_close(&r);

    /* Without /sys: partitions told apart by name, virtual devices still
     * left out; no interface can be shown to have a device: all but lo. */
    char nosys[4300];
    snprintf(nosys, sizeof nosys, "%s/nonexistent", root);
    CHECK(system_series_open(&r, proc, nosys) == 0);
    CHECK(system_series_read(&r, &s) == 0);
    CHECK_MSG(s.ndisks == 7, "%zu disks without /sys", s.ndisks); /* + sdd, bcache0 */
    CHECK(s.nnets == 1);
    system_series_close(&r);

    /* Unreadable files: that part is not ok, the others are. */
    char path[4400];
    snprintf(path, sizeof path, "%s/diskstats", proc);
    unlink(path);
    snprintf(path, sizeof path, "%s/self/mountinfo", proc);
    unlink(path);
    CHECK(system_series_open(&r, proc, sys) == 0);
    CHECK(system_series_read(&r, &s) == 0);
    CHECK(!s.disks_ok && !s.fs_ok && s.nets_ok && s.processes_ok);
    system_series_close(&r);

    system_series_sample_free(&s);
    system_series_sample_free(&prev);
    fx_rmroot(root);
}

static struct system_series_sample one_device(const char *disk, unsigned long long rs,
                                              unsigned long long ws, const char *net,
                                              unsigned long long rx, unsigned long long txb)
{
    struct system_series_sample s = {0};
    s.disks_ok = s.nets_ok = 1;
    if (disk) {
        s.disks = calloc(1, sizeof *s.disks);
        snprintf(s.disks[0].name, sizeof s.disks[0].name, "%s", disk);
        s.disks[0].major = 8;
        s.disks[0].read_sectors = rs;
        s.disks[0].write_sectors = ws;
        s.ndisks = 1;
    }
    if (net) {
        s.nets = calloc(1, sizeof *s.nets);
        snprintf(s.nets[0].name, sizeof s.nets[0].name, "%s", net);
        s.nets[0].rx_bytes = rx;
        s.nets[0].tx_bytes = txb;
        s.nnets = 1;
    }
    return s;
}

/* system_open()'s reading serves the first system_read() when that comes
 * within SYSTEM_REUSE_SECONDS of it (the tracker's baseline, right after the
 * open): the files are not read twice in a row. Any other read reads them. */
static void test_system_open_reading(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 900, 2, 8000, 6000);
    struct system_reader r;
    struct sys_cpu cpu;
    struct meminfo mem;
    const char *what = "";
    CHECK(system_open(&r, root, &cpu, &mem, &what) == 0);
    CHECK(cpu.busy == 100 && cpu.ncpu == 2 && mem.available_kb == 6000);
    fx_system(root, 250, 950, 2, 8000, 5000); /* the same files, rewritten */
    double opened = r.open_time;
    CHECK(opened > 0);
    CHECK(system_read(&r, &cpu, &mem, &what) == 0);
    double after = monotonic_now();
    if (after - opened < SYSTEM_REUSE_SECONDS) /* else this machine stalled: either is right */
        CHECK_MSG(cpu.busy == 100 && mem.available_kb == 6000, "read again: busy %llu",
                  cpu.busy);
    CHECK(r.open_time == 0); /* handed out once */
    CHECK(system_read(&r, &cpu, &mem, &what) == 0);
    CHECK(cpu.busy == 250 && mem.available_kb == 5000);
    system_close(&r);

    /* A first read that comes later (a library caller that starts the
     * tracker a while after making it) reads the files. */
    fx_system(root, 100, 900, 2, 8000, 6000);
    CHECK(system_open(&r, root, &cpu, &mem, &what) == 0 && cpu.busy == 100);
    fx_system(root, 300, 1000, 2, 8000, 4000);
    struct timespec pause = {0, (long)(SYSTEM_REUSE_SECONDS * 2e9)};
    nanosleep(&pause, NULL);
    CHECK(system_read(&r, &cpu, &mem, &what) == 0);
    CHECK(cpu.busy == 300 && mem.available_kb == 4000);
    system_close(&r);
    fx_rmroot(root);
}

static void test_system_rows(void)
{
    CHECK(series_counter_delta(10, 15) == 5);
    CHECK(series_counter_delta(1000, 40) == 40); /* restarted: what it shows since */
    CHECK(series_counter_delta(7, 7) == 0);
    /* A 32-bit counter that wrapped: 100 before 2^32, 50 after. */
    CHECK(series_counter_delta(4294967196ULL, 50) == 150);
    /* Near 2^32 but now large again: restarted, not wrapped. */
    CHECK(series_counter_delta(4294967196ULL, 2000000000ULL) == 2000000000ULL);
    /* A 64-bit counter far past 2^32 never wraps in practice: restarted. */
    CHECK(series_counter_delta(10000000000ULL, 50) == 50);

    struct system_reading a = {.cpu_ok = 1}, b = {.cpu_ok = 1};
    a.cpu.user_nice = 1000;
    a.cpu.system = 500;
    b.cpu.user_nice = 1150;
    b.cpu.system = 530;
    b.mem = (struct meminfo){.total_kb = 10000, .available_kb = 6000, .free_kb = 3000,
                             .buffers_kb = 500, .cached_kb = 2500, .active_kb = 4000,
                             .inactive_kb = 1000};
    b.gpu = (struct series_gpu){.usage = 1.25, .vram_mib = 2048.5, .utilized = 2};

    /* Counters that move, restart, vanish and appear. */
    struct system_series_sample p = one_device("sda", 100, 200, "eth0", 1000, 2000);
    struct system_series_sample c = one_device("sda", 104, 210, "eth0", 1500, 2600);
    a.extra = &p;
    b.extra = &c;
    gt_system_row row;
    series_system_row(&a, &b, 2.0, 100, 1700000000.5, &row);
    CHECK(row.timestamp == 1700000000.5);
    CHECK(row.utime == 1.5 && row.stime == 0.3);
    CHECK(row.cpu_usage == 0.9); /* 1.8 s of CPU over 2 s (no tick total: the clock) */
    CHECK(row.memory_free == 3000 && row.memory_used == 10000 - 3000 - 500 - 2500);
    CHECK(row.memory_buffers == 500 && row.memory_cached == 2500);
    CHECK(row.memory_active == 4000 && row.memory_inactive == 1000);
    CHECK(row.disk_read_bytes == 4 * 512 && row.disk_write_bytes == 10 * 512);
    /* No pressure files read: no pressure in the row. */
    CHECK(row.pressure_ok == 0 && row.pressure_cpu_some == 0);
    /* The system's PSI: 0.5 s of some CPU stall and 0.2 s of full memory
     * stall in 2 s; a counter that goes back leaves the row's pressure out. */
    for (int k = 0; k < CGROUP_PSI_N; k++)
        p.psi_ok[k] = c.psi_ok[k] = 1;
    p.psi[CGROUP_PSI_CPU] = (struct psi_totals){.some_us = 1000000};
    c.psi[CGROUP_PSI_CPU] = (struct psi_totals){.some_us = 1500000};
    p.psi[CGROUP_PSI_MEMORY] = (struct psi_totals){.some_us = 10, .full_us = 10};
    c.psi[CGROUP_PSI_MEMORY] = (struct psi_totals){.some_us = 300010, .full_us = 200010};
    series_system_row(&a, &b, 2.0, 100, 1700000000.5, &row);
    CHECK(row.pressure_ok == 1);
    CHECK(row.pressure_cpu_some == 0.25 && row.pressure_cpu_full == 0);
    CHECK(row.pressure_memory_some == 0.15 && row.pressure_memory_full == 0.1);
    CHECK(row.pressure_io_some == 0 && row.pressure_io_full == 0);
    c.psi[CGROUP_PSI_IO] = (struct psi_totals){.some_us = 0};
    p.psi[CGROUP_PSI_IO] = (struct psi_totals){.some_us = 5};
    series_system_row(&a, &b, 2.0, 100, 1700000000.5, &row);
    CHECK(row.pressure_ok == 0 && row.pressure_cpu_some == 0);
    c.psi_ok[CGROUP_PSI_IO] = 0;
    p.psi[CGROUP_PSI_IO] = c.psi[CGROUP_PSI_IO];
    series_system_row(&a, &b, 2.0, 100, 1700000000.5, &row);
    CHECK(row.pressure_ok == 0);
    for (int k = 0; k < CGROUP_PSI_N; k++)
        p.psi_ok[k] = c.psi_ok[k] = 0;
    CHECK(row.net_recv_bytes == 500 && row.net_sent_bytes == 600);
    CHECK(row.gpu_usage == 1.25 && row.gpu_vram == 2048.5 && row.gpu_utilized == 2);
    /* With the kernel's tick total: over it, the same at 2 s on 2 CPUs
     * (400 ticks); at 10 ms the busy ticks may outrun the clock (4 ticks of
     * work in 10 ms on 2 CPUs is 4 cores by the clock) but not the total
     * (4 ticks elapsed: 2 cores, all the machine has); a total that stepped
     * back (idle can) still reads no more than the CPUs. */
    struct system_reading fast_a = {.cpu_ok = 1}, fast_b = {.cpu_ok = 1};
    fast_a.cpu = (struct sys_cpu){.user_nice = 1000, .system = 500, .total = 100000, .ncpu = 2};
    fast_b.cpu = (struct sys_cpu){.user_nice = 1150, .system = 530, .total = 100400, .ncpu = 2};
    series_system_row(&fast_a, &fast_b, 2.0, 100, 0, &row);
    CHECK_MSG(row.cpu_usage == 0.9, "%g", row.cpu_usage);
    fast_a.cpu = (struct sys_cpu){.user_nice = 500, .system = 100, .total = 9000, .ncpu = 2};
    fast_b.cpu = (struct sys_cpu){.user_nice = 503, .system = 101, .total = 9004, .ncpu = 2};
    series_system_row(&fast_a, &fast_b, 0.01, 100, 0, &row);
    CHECK_MSG(row.cpu_usage == 2, "%g cores on 2 CPUs", row.cpu_usage);
    fast_b.cpu.total = 9002; /* 2 ticks elapsed, 4 busy: idle went back */
    series_system_row(&fast_a, &fast_b, 0.01, 100, 0, &row);
    CHECK_MSG(row.cpu_usage == 2, "%g cores on 2 CPUs", row.cpu_usage);
    fast_b.cpu.user_nice = 501; /* 2 busy of 2 elapsed over 2 CPUs: 2 cores */
    series_system_row(&fast_a, &fast_b, 0.01, 100, 0, &row);
    CHECK_MSG(row.cpu_usage == 2, "%g", row.cpu_usage);
    fast_b.cpu.system = 100; /* 1 busy tick of 2: 1 core */
    series_system_row(&fast_a, &fast_b, 0.01, 100, 0, &row);
    CHECK_MSG(row.cpu_usage == 1, "%g", row.cpu_usage);

    /* An old driver's 32-bit byte counter wrapped on the interface. */
    p.nets[0].rx_bytes = 4294967000ULL;
    c.nets[0].rx_bytes = 704;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.net_recv_bytes == 1000);
    p.nets[0].rx_bytes = 1000;
    c.nets[0].rx_bytes = 1500;

    /* The device came back with fresh counters: count what it shows. */
    c.disks[0].read_sectors = 3;
    c.nets[0].rx_bytes = 70;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.disk_read_bytes == 3 * 512 && row.net_recv_bytes == 70);

    /* Another device under the same name (new major:minor): a new device,
     * counted from its second reading on; the old one took its bytes along. */
    c.disks[0].major = 9;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.disk_read_bytes == 0 && row.disk_write_bytes == 0);

    /* An interface that vanished and one that appeared: neither counts. */
    snprintf(c.nets[0].name, sizeof c.nets[0].name, "eth1");
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.net_recv_bytes == 0 && row.net_sent_bytes == 0);

    /* A part that could not be read gives zeros, not garbage. */
    c.disks_ok = 0;
    c.fs_ok = 0;
    c.processes_ok = 0;
    c.processes = 55;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.disk_read_bytes == 0 && row.processes == 0 && row.disk_space_total_gb == 0);

    /* Disk space in GiB, rounded to 2 decimals. */
    c.fs_ok = 1;
    c.fs_total_bytes = 1073741824ULL * 10 + 5368709; /* 10.005 GiB */
    c.fs_used_bytes = 1073741824ULL * 3;
    c.fs_free_bytes = 1073741824ULL * 7 - 53687091; /* 6.95 GiB */
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.disk_space_total_gb == 10.0 || row.disk_space_total_gb == 10.01);
    CHECK(row.disk_space_used_gb == 3.0 && row.disk_space_free_gb == 6.95);

    /* CPU counters that went backwards (a CPU went offline): 0, not huge. */
    b.cpu.user_nice = 900;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.utime == 0.0 && row.stime == 0.3 && row.cpu_usage == 0.15);
    /* /proc/stat unreadable in either reading: no CPU or memory figures. */
    a.cpu_ok = 0;
    series_system_row(&a, &b, 2.0, 100, 0, &row);
    CHECK(row.utime == 0 && row.cpu_usage == 0 && row.memory_free == 0);

    system_series_sample_free(&p);
    system_series_sample_free(&c);
}

static void test_process_rows_and_csv(void)
{
    struct process_reading a = {.utime_ticks = 100, .stime_ticks = 40, .cpu_ns = 1400000000ULL,
                                .read_bytes = 4096, .write_bytes = 1 << 20, .pss_kb = 500,
                                .children = 1};
    struct process_reading b = {.utime_ticks = 125, .stime_ticks = 41, .cpu_ns = 1660000000ULL,
                                .read_bytes = 8192, .write_bytes = 3 << 20, .pss_kb = 2048,
                                .children = 3,
                                .gpu = {.usage = 0.5, .vram_mib = 1024, .utilized = 1}};
    gt_process_row row;
    series_process_row(&a, &b, 0.5, 100, series_timestamp(1700000000.0, 3, 0.5), 4242, &row);
    CHECK(row.timestamp == 1700000001.5);
    CHECK(row.pid == 4242 && row.children == 3);
    CHECK(row.utime == 0.25 && row.stime == 0.01);
    CHECK(row.cpu_usage == 0.52);
    CHECK(row.memory == 2048);
    CHECK(row.read_bytes == 4096 && row.write_bytes == 2 << 20);
    CHECK(row.gpu_usage == 0.5 && row.gpu_vram == 1024 && row.gpu_utilized == 1);

    char line[SERIES_CSV_ROW_MAX];
    size_t n = series_process_csv_row(&row, line);
    CHECK_STR(line, "1700000001.5,4242,3,0.25,0.01,0.52,2048,4096,2097152,0.5,1024.0,1\r\n");
    CHECK(n == strlen(line));

    /* A tree figure that fell (a process left our view): 0, as max(0, ...). */
    b.write_bytes = 0;
    b.utime_ticks = 50;
    b.cpu_ns = 1000000000ULL;
    series_process_row(&a, &b, 0.5, 100, 0, 1, &row);
    CHECK(row.write_bytes == 0 && row.utime == 0 && row.cpu_usage == 0);

    /* cpu_usage to 4 decimals, from the run time in nanoseconds, not the
     * ticks (which say 0.0033 here); timestamps to milliseconds. */
    b.utime_ticks = 101;
    b.stime_ticks = 40;
    b.cpu_ns = 1400000000ULL + 12345678ULL;
    series_process_row(&a, &b, 3.0, 100, 0, 1, &row);
    CHECK_MSG(row.cpu_usage == 0.0041 && row.utime == 0.01, "cpu_usage %g", row.cpu_usage);
    /* 10 ms of run time in a 10 ms interval is one core, whatever the
     * ticks say (they moved by 3 here: a step more than ran). */
    b.utime_ticks = 103;
    b.cpu_ns = 1400000000ULL + 10000000ULL;
    series_process_row(&a, &b, 0.01, 100, 0, 1, &row);
    CHECK_MSG(row.cpu_usage == 1.0 && row.utime == 0.03, "cpu_usage %g", row.cpu_usage);
    /* 30 ms in 10 ms (a reaped child's ticks moving into its parent's): on
     * 2 CPUs, at most 2. */
    b.cpu_ns = 1400000000ULL + 30000000ULL;
    b.ncpu = 2;
    series_process_row(&a, &b, 0.01, 100, 0, 1, &row);
    CHECK_MSG(row.cpu_usage == 2.0, "cpu_usage %g", row.cpu_usage);
    b.ncpu = 0; /* not known: as the clock says */
    series_process_row(&a, &b, 0.01, 100, 0, 1, &row);
    CHECK(row.cpu_usage == 3.0);
    CHECK(series_timestamp(1700000000.0, 1, 0.3333) == 1700000000.333);
    CHECK(series_timestamp(1700000000.0004, 2, 0.0003) == 1700000000.001);

    CHECK_STR(series_process_csv_header,
              "\"timestamp\",\"pid\",\"children\",\"utime\",\"stime\",\"cpu_usage\",\"memory\","
              "\"read_bytes\",\"write_bytes\",\"gpu_usage\",\"gpu_vram\",\"gpu_utilized\"\r\n");
    CHECK_STR(series_system_csv_header,
              "\"timestamp\",\"processes\",\"utime\",\"stime\",\"cpu_usage\",\"memory_free\","
              "\"memory_used\",\"memory_buffers\",\"memory_cached\",\"memory_active\","
              "\"memory_inactive\",\"disk_read_bytes\",\"disk_write_bytes\","
              "\"disk_space_total_gb\",\"disk_space_used_gb\",\"disk_space_free_gb\","
              "\"net_recv_bytes\",\"net_sent_bytes\",\"gpu_usage\",\"gpu_vram\","
              "\"gpu_utilized\"\r\n");
    gt_system_row srow = {.timestamp = 1700000002.25, .processes = 312, .utime = 1.5,
                          .stime = 0.3, .cpu_usage = 0.9, .memory_free = 3000,
                          .memory_used = 4000, .memory_buffers = 500, .memory_cached = 2500,
                          .memory_active = 4000, .memory_inactive = 1000,
                          .disk_read_bytes = 2048, .disk_write_bytes = 5120,
                          .disk_space_total_gb = 251.97, .disk_space_used_gb = 15.88,
                          .disk_space_free_gb = 79.81, .net_recv_bytes = 500,
                          .net_sent_bytes = 600, .gpu_usage = 0, .gpu_vram = 0,
                          .gpu_utilized = 0};
    series_system_csv_row(&srow, line);
    CHECK_STR(line, "1700000002.25,312,1.5,0.3,0.9,3000,4000,500,2500,4000,1000,2048,5120,"
                    "251.97,15.88,79.81,500,600,0.0,0.0,0\r\n");

    /* The whole series as CSV. */
    gt_series s = {.struct_size = sizeof s, .interval = 0.5, .nsystem = 1, .system = &srow,
                   .nprocess = 1, .process = &row};
    char *csv = gt_series_to_csv(&s, GT_SERIES_KIND_SYSTEM);
    CHECK(csv && strncmp(csv, series_system_csv_header, strlen(series_system_csv_header)) == 0);
    CHECK(csv && strstr(csv, line) && strlen(csv) == strlen(series_system_csv_header) + strlen(line));
    free(csv);
}

/* The tree's series counters: CPU split into user/system, io with its
 * departures, PSS and live children. */
static void test_tree_counters(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .utime = 50, .stime = 10, .cutime = 5, .cstime = 1,
                        .rss_kb = 1000, .anon_kb = 600, .private_kb = 600, .shared_kb = 400,
                        .pss_kb = 700, .starttime = 1000, .children = "101 102",
                        .read_bytes = 4096, .write_bytes = 1 << 20};
    struct fx_proc c1 = {.pid = 101, .ppid = 100, .utime = 20, .stime = 2, .rss_kb = 2000,
                         .anon_kb = 1500, .private_kb = 1500, .shared_kb = 500, .pss_kb = 1700,
                         .starttime = 1001, .write_bytes = 8192};
    struct fx_proc z = {.pid = 102, .ppid = 100, .state = 'Z', .utime = 3, .starttime = 1002,
                        .write_bytes = 4096};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c1);
    fx_proc_write(root, &z);

    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    t.series = 1;
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.utime_ticks == 50 + 5 + 20 + 3 && s.stime_ticks == 10 + 1 + 2);
    /* A fixture's PIDs are not ours to ask the kernel about: its ticks. */
    CHECK(!t.run_clock && s.cpu_ns == (50 + 5 + 20 + 3 + 10 + 1 + 2) * t.tick_ns);
    CHECK(s.read_bytes == 4096 && s.write_bytes == (1 << 20) + 8192 + 4096);
    CHECK(s.pss_kb == 700 + 1700); /* the zombie holds no memory */
    CHECK(s.children == 1);        /* nor is it a live child */

    /* Every walk re-reads smaps_rollup in series mode: a new PSS shows at
     * once, not at the next background refresh. */
    c1.pss_kb = 1900;
    fx_proc_write(root, &c1);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.pss_kb == 700 + 1900);

    /* main reaps the zombie: its bytes move into main's io (the kernel adds
     * them at reap), and its CPU into main's cutime: the sums do not move. */
    fx_proc_remove(root, 102);
    m.children = "101";
    m.cutime = 5 + 3;
    m.write_bytes = (1 << 20) + 4096;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.utime_ticks == 50 + 8 + 20 && s.write_bytes == (1 << 20) + 8192 + 4096);

    /* 101 starts 104, then exits and main reaps it; 104 is re-parented
     * outside the tree (no subreaper) and leaves our view while alive: its
     * last figures are kept, so the sums never step back. */
    struct fx_proc g = {.pid = 104, .ppid = 101, .utime = 7, .stime = 3, .rss_kb = 10,
                        .anon_kb = 10, .private_kb = 10, .pss_kb = 10, .starttime = 1004,
                        .read_bytes = 1000, .write_bytes = 2000};
    fx_proc_write(root, &g);
    c1.children = "104";
    fx_proc_write(root, &c1);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.children == 2 && s.utime_ticks == 50 + 8 + 20 + 7);
    fx_proc_remove(root, 101);
    m.children = "";
    m.cutime += 20;
    m.cstime += 2;
    m.write_bytes += 8192;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.utime_ticks == 50 + 8 + 20 + 7 && s.stime_ticks == 10 + 1 + 2 + 3);
    CHECK(s.cpu_ns == (50 + 8 + 20 + 7 + 10 + 1 + 2 + 3) * t.tick_ns);
    CHECK(s.read_bytes == 4096 + 1000 && s.write_bytes == (1 << 20) + 8192 + 4096 + 2000);
    CHECK(s.children == 0 && s.pss_kb == 700);

    /* An io file we may not read (another user's process): skipped, the
     * rest still counts. */
    struct fx_proc c3 = {.pid = 103, .ppid = 100, .utime = 1, .rss_kb = 10, .anon_kb = 10,
                         .private_kb = 10, .pss_kb = 10, .starttime = 1003, .no_io = 1};
    fx_proc_write(root, &c3);
    m.children = "103";
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.children == 1 && s.pss_kb == 710 && s.utime_ticks == 50 + 8 + 20 + 7 + 1);
    tree_free(&t);
    fx_rmroot(root);
}

static unsigned long long ns_of(const struct timespec *ts)
{
    return (unsigned long long)ts->tv_sec * 1000000000ULL + (unsigned long long)ts->tv_nsec;
}

/* Burns CPU until the calling thread has run ms milliseconds. */
static void burn_thread_cpu(unsigned ms)
{
    struct timespec ts;
    volatile unsigned long spin = 0;
    do {
        for (int i = 0; i < 100000; i++)
            spin++;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    } while (ns_of(&ts) < ms * 1000000ULL);
}

static void *burn_40ms(void *arg)
{
    (void)arg;
    burn_thread_cpu(40);
    return NULL;
}

/* The series' CPU of a real process is its run time in nanoseconds, all
 * of its threads, the exited ones too (/proc/<pid>/schedstat would give
 * the main thread's alone): a child runs a thread for 40 ms of CPU, joins
 * it, runs 40 ms itself and stops; its figure must be exactly what its CPU
 * clock says (a tick count is that only one time in 10^7). */
static void test_tree_run_clock(void)
{
    pid_t child = fork();
    if (child == 0) {
        pthread_t th;
        if (pthread_create(&th, NULL, burn_40ms, NULL) != 0)
            _exit(2);
        pthread_join(th, NULL);
        burn_thread_cpu(40);
        raise(SIGSTOP);
        _exit(0);
    }
    CHECK(child > 0);
    if (child <= 0)
        return;
    int status = 0;
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    clockid_t clock;
    struct timespec ts;
    CHECK(clock_getcpuclockid(child, &clock) == 0 && clock_gettime(clock, &ts) == 0);
    unsigned long long truth = ns_of(&ts);

    struct tree t;
    CHECK(tree_init(&t, "/proc", child, 0, 0) == 0);
    t.series = 1;
    t.run_clock = 1;
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK_MSG(s.cpu_ns == truth, "cpu_ns %llu, the clock %llu", s.cpu_ns, truth);
    CHECK_MSG(truth >= 80000000ULL, "ran %llu ns", truth);
    /* The ticks say the same to within a tick (the kernel truncates). */
    unsigned long long ticks_ns = (s.utime_ticks + s.stime_ticks) * t.tick_ns;
    CHECK_MSG(ticks_ns <= truth + t.tick_ns && truth <= ticks_ns + 2 * t.tick_ns,
              "ticks %llu ns, run time %llu ns", ticks_ns, truth);
    /* The main thread's own schedstat lacks the exited thread's 40 ms. */
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)child);
    FILE *f = fopen(path, "r");
    unsigned long long main_thread_ns = 0;
    if (f && fgets(line, sizeof line, f) && sscanf(line, "%llu", &main_thread_ns) == 1)
        CHECK_MSG(main_thread_ns + 30000000ULL < s.cpu_ns, "main thread %llu ns, all %llu ns",
                  main_thread_ns, s.cpu_ns);
    if (f)
        fclose(f);
    tree_free(&t);

    /* Without the clock (a fixture root), the same process reads as ticks. */
    CHECK(tree_init(&t, "/proc", child, 0, 0) == 0);
    t.series = 1;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.cpu_ns == (s.utime_ticks + s.stime_ticks) * t.tick_ns);
    tree_free(&t);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
}

/* main_only (resource_tracker's children=False) on the same kind of tree:
 * no descendant is walked, and the CPU time main's reaped children left in
 * its cutime/cstime counts neither in the series' totals nor as
 * descendants'. */
static void test_tree_main_only(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .utime = 50, .stime = 10, .cutime = 5, .cstime = 1,
                        .rss_kb = 1000, .anon_kb = 600, .private_kb = 600, .shared_kb = 400,
                        .pss_kb = 700, .starttime = 1000, .children = "101"};
    struct fx_proc c1 = {.pid = 101, .ppid = 100, .utime = 20, .stime = 2, .rss_kb = 2000,
                         .anon_kb = 1500, .private_kb = 1500, .shared_kb = 500, .pss_kb = 1700,
                         .starttime = 1001};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c1);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    t.series = 1;
    t.main_only = 1;
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.children == 0 && s.pss_kb == 700 && s.desc_rss_kb == 0);
    CHECK_MSG(s.utime_ticks == 50 && s.stime_ticks == 10, "%llu/%llu", s.utime_ticks,
              s.stime_ticks);
    CHECK(s.cpu_ns == 60 * t.tick_ns);
    CHECK(s.main_ticks == 60 && s.desc_ticks == 0);
    tree_free(&t);
    fx_rmroot(root);
}

/* A fixture machine for a tracker's series: 2 CPUs, memory, one interface
 * and the disks of write_diskstats, under a new root (returned; its proc
 * and sys paths in proc and sys, cap bytes each). */
static char *tracker_fixture(char *proc, char *sys, size_t cap)
{
    char *root = fx_mkroot();
    fx_proc_sys(root, proc, sys, cap);
    make_sys(sys);
    fx_system(proc, 100, 100, 2, 1000000, 500000);
    fx_mkdirs(proc, "net");
    fx_write(proc, "net/dev", "Inter-|\n face |\n  eth0: 1 1 0 0 0 0 0 0 2 1 0 0 0 0 0 0\n");
    write_diskstats(proc, 10);
    return root;
}

/* The tracker's rows on a fixture tree: exactly one row per slot up to the
 * duration, timestamps on the schedule, the fixture's figures in them, the
 * same rows streamed as CSV and kept in memory. */
static void test_tracker_rows(void)
{
    char proc[4200], sys[4200];
    char *root = tracker_fixture(proc, sys, sizeof proc);
    struct fx_proc m = {.pid = 300, .ppid = 1, .utime = 5, .rss_kb = 100, .anon_kb = 100,
                        .private_kb = 100, .pss_kb = 90, .starttime = 1, .children = "301"};
    struct fx_proc c = {.pid = 301, .ppid = 300, .rss_kb = 50, .anon_kb = 50, .private_kb = 50,
                        .pss_kb = 40, .starttime = 2};
    fx_proc_write(proc, &m);
    fx_proc_write(proc, &c);

    char pcsv[4300], scsv[4300];
    snprintf(pcsv, sizeof pcsv, "%s/p.csv", root);
    snprintf(scsv, sizeof scsv, "%s/s.csv", root);
    int pfd = open(pcsv, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int sfd = open(scsv, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    gt_options o;
    test_options_init(&o);
    CHECK(o.process_csv_fd == -1 && o.system_csv_fd == -1 && o.series == 0);
    test_sources.proc_root = proc;
    test_sources.sys_root = sys;
    o.process_id = 300;
    o.sleep_time = 0.2;
    o.duration = 0.6;
    o.resource_usage_file = "";
    o.process_csv_fd = pfd;
    o.system_csv_fd = sfd;
    o.gpu_brand = "nvidia";
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return;
    gt_series s = {.struct_size = sizeof(gt_series)};
    CHECK(gt_tracker_series(t, &s) == GT_ERR_STATE);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_wait(t, 30) == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_series(t, &s) == GT_OK);
    CHECK_MSG(s.nprocess == 3 && s.nsystem == 3, "%zu/%zu rows", s.nprocess, s.nsystem);
    CHECK(s.interval == 0.2 && !s.process_csv_failed && !s.system_csv_failed);
    for (size_t i = 0; i < s.nprocess && i < s.nsystem; i++) {
        double slot = s.start_time + 0.2 * (double)(i + 1);
        CHECK_MSG(fabs(s.process[i].timestamp - slot) < 0.0006, "row %zu at %.4f, slot %.4f", i,
                  s.process[i].timestamp, slot);
        CHECK(s.process[i].timestamp == s.system[i].timestamp);
        CHECK(s.process[i].pid == 300 && s.process[i].children == 1);
        CHECK(s.process[i].memory == 130);
        CHECK(s.process[i].utime == 0 && s.process[i].write_bytes == 0);
        CHECK(s.system[i].processes == 2);
        CHECK(s.system[i].disk_read_bytes == 0);
    }
    /* What was streamed is what is kept. */
    char *pwant = gt_series_to_csv(&s, GT_SERIES_KIND_PROCESS);
    char *swant = gt_series_to_csv(&s, GT_SERIES_KIND_SYSTEM);
    close(pfd);
    close(sfd);
    char got[8192];
    FILE *f = fopen(pcsv, "r");
    size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    got[n] = '\0';
    if (f)
        fclose(f);
    CHECK_STR(got, pwant);
    f = fopen(scsv, "r");
    n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    got[n] = '\0';
    if (f)
        fclose(f);
    CHECK_STR(got, swant);
    free(pwant);
    free(swant);
    gt_tracker_free(t);

    /* A descriptor that fails (closed): one warning, rows kept, and the
     * series says the file lacks them. */
    o.process_csv_fd = pfd; /* closed above */
    o.system_csv_fd = -1;
    o.series = 0;
    o.duration = 0.2;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (t) {
        CHECK(gt_tracker_start(t) == GT_OK);
        CHECK(gt_tracker_wait(t, 30) == 1);
        CHECK(gt_tracker_stop(t) == GT_OK);
        CHECK(gt_tracker_series(t, &s) == GT_OK);
        CHECK(s.nprocess == 1 && s.nsystem == 0 && s.process_csv_failed);
        gt_tracker_free(t);
    }

    /* Bad options. */
    gt_options bad = o;
    bad.series = 8;
    CHECK(test_tracker_new(&bad, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid series 8");
    bad = o;
    bad.duration = -1;
    CHECK(test_tracker_new(&bad, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid duration -1");
    bad = o;
    bad.duration = 0.1;
    CHECK(test_tracker_new(&bad, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "shorter than one interval");
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    fx_rmroot(root);
}

/* 0.3's calls for a run that goes on, on the fixture tree: rows copied
 * and waited for while tracking (the copy equal to the stopped tracker's
 * rows), the main process alone (main_only), a CSV without its header, an
 * aligned start (round timestamps), and a snapshot while STARTED. */
/* The mount table is read once and again only when it changes: on the
 * real kernel, in a mount namespace of our own (a child process, so that
 * nothing of the machine's mounts changes), a tmpfs mounted between two
 * readings makes the second read it again; two readings with no change
 * read it once. Without the right to make the namespace (not root) that
 * part says so and is left out. */
static void test_mount_table_watch(void)
{
    struct system_series_reader r;
    struct system_series_sample s;
    memset(&s, 0, sizeof s);
    CHECK(system_series_open(&r, "/proc", "/sys") == 0);
    CHECK(system_series_read(&r, &s) == 0 && system_series_read(&r, &s) == 0);
    CHECK_MSG(r.mount_reads == 1 && s.fs_ok, "%u reads", r.mount_reads);
    system_series_close(&r);
    system_series_sample_free(&s);
    pid_t child = fork();
    if (child == 0) {
        if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
            _exit(77);
        char dir[] = "/tmp/gt-mount-XXXXXX";
        if (!mkdtemp(dir))
            _exit(2);
        struct system_series_reader c;
        struct system_series_sample cs;
        memset(&cs, 0, sizeof cs);
        int ok = system_series_open(&c, "/proc", "/sys") == 0 && system_series_read(&c, &cs) == 0 &&
                 mount("gt-test", dir, "tmpfs", 0, "size=1m") == 0 &&
                 system_series_read(&c, &cs) == 0 && c.mount_reads == 2 &&
                 system_series_read(&c, &cs) == 0 && c.mount_reads == 2;
        umount(dir);
        rmdir(dir);
        system_series_close(&c);
        system_series_sample_free(&cs);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        printf("test_series: mount-table watch on the real kernel not checked: no mount "
               "namespace of our own (needs root)\n");
    else
        CHECK_MSG(WEXITSTATUS(status) == 0, "the mounted tmpfs was not noticed (exit %d)",
                  WEXITSTATUS(status));
}

static void test_live_reads(void)
{
    char proc[4200], sys[4200];
    char *root = tracker_fixture(proc, sys, sizeof proc);
    struct fx_proc m = {.pid = 300, .ppid = 1, .utime = 5, .cutime = 9, .rss_kb = 100,
                        .anon_kb = 100, .private_kb = 100, .pss_kb = 90, .starttime = 1,
                        .children = "301"};
    struct fx_proc c = {.pid = 301, .ppid = 300, .rss_kb = 50, .anon_kb = 50, .private_kb = 50,
                        .pss_kb = 40, .starttime = 2};
    fx_proc_write(proc, &m);
    fx_proc_write(proc, &c);
    char pcsv[4300];
    snprintf(pcsv, sizeof pcsv, "%s/p.csv", root);
    int pfd = open(pcsv, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = proc;
    test_sources.sys_root = sys;
    o.process_id = 300;
    o.sleep_time = 0.05;
    o.resource_usage_file = "";
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    o.process_csv_fd = pfd;
    o.csv_no_header = 1;
    o.main_only = 1;
    o.start_at = GT_START_ALIGNED;
    o.gpu_brand = "nvidia";
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return;
    void *copied = NULL;
    size_t got = 9;
    CHECK(gt_tracker_rows_since(t, GT_SERIES_KIND_PROCESS, 0, &copied, &got) == GT_ERR_STATE &&
          !copied && got == 0); /* NEW */
    double epoch = -1;
    CHECK(gt_tracker_figure(t, GT_FIGURE_START_EPOCH, &epoch) == GT_ERR_STATE && epoch == 0);
    CHECK(gt_tracker_wait_rows(t, 1, 0) == 0); /* NEW: nothing to wait for */
    gt_server_info si = {.struct_size = sizeof(gt_server_info)};
    CHECK(gt_tracker_server_info(t, &si) == GT_ERR_STATE);
    double elapsed = -1, samples = -1, rss = -1, peak = -1, cpu = -1, gpu = -1;
    CHECK(gt_tracker_figure(t, GT_FIGURE_RSS_BYTES, &rss) == GT_ERR_STATE && rss == 0); /* NEW */
    double before = (double)time(NULL);
    CHECK(gt_tracker_start(t) == GT_OK);
    /* Scheduled at once on start: a multiple of the interval, ahead. */
    double scheduled = 0;
    CHECK(gt_tracker_figure(t, GT_FIGURE_START_EPOCH, &scheduled) == GT_OK);
    CHECK_MSG(scheduled >= before && fabs(scheduled / 0.05 - floor(scheduled / 0.05 + 0.5)) < 1e-6,
              "scheduled %.6f", scheduled);
    CHECK(gt_tracker_wait_rows(t, 4, 30) == 1);
    CHECK(gt_tracker_figure(t, GT_FIGURE_START_EPOCH, &epoch) == GT_OK &&
          epoch == scheduled); /* the baseline came then */
    CHECK(gt_tracker_rows_since(t, GT_SERIES_KIND_PROCESS, 0, &copied, &got) == GT_OK);
    CHECK_MSG(got >= 4 && copied, "%zu rows copied", got);
    const gt_process_row *live = copied;
    if (!live)
        got = 0;
    if (got >= 2) { /* in order, the same as from row 1 on */
        const gt_process_row *all = live;
        void *later = NULL;
        size_t nlater = 0;
        CHECK(gt_tracker_rows_since(t, GT_SERIES_KIND_PROCESS, 1, &later, &nlater) == GT_OK);
        CHECK(nlater >= got - 1 && later &&
              memcmp(later, all + 1, (got - 1) * sizeof *all) == 0 &&
              all[1].timestamp > all[0].timestamp);
        free(later);
    }
    size_t none = 9;
    void *nothing = NULL;
    CHECK(gt_tracker_rows_since(t, GT_SERIES_KIND_PROCESS, 1000, &nothing, &none) == GT_OK &&
          none == 0 && !nothing);
    CHECK(gt_tracker_rows_since(t, (gt_series_kind)7, 0, &nothing, &none) ==
          GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "unknown series kind 7; valid: process, system");
    CHECK(gt_tracker_server_info(t, &si) == GT_OK && si.vcpus > 0);
    /* resource_tracker's views (the tools') give the same. */
    gt_server_info rt_si;
    CHECK(gt_rt_server_info(t, &rt_si) == GT_OK && rt_si.vcpus == si.vcpus &&
          rt_si.memory_mib == si.memory_mib && !strcmp(rt_si.allocation, si.allocation));
    gt_cloud_info rt_cloud;
    CHECK(gt_rt_cloud_info(t, 0, &rt_cloud) == 0); /* not asked for */
    gt_counters *now = NULL;
    CHECK(gt_rt_counters_read(0, 1, &now) == GT_ERR_INVALID_ARGUMENT && !now);
    CHECK_STR(gt_last_error(), "invalid process ID 0: give a positive PID");
    CHECK(gt_rt_counters_read((int)getpid(), 0, &now) == GT_OK && now &&
          now->pid == getpid() && now->system_ok && now->mem_total_kb > 0);
    gt_rt_counters_free(now);
    /* A status line's figures: the newest sample's (main alone: 100 kB
     * RSS, all private; its CPU ticks never move). */
    CHECK(gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &elapsed) == GT_OK);
    CHECK(gt_tracker_figure(t, GT_FIGURE_SAMPLES, &samples) == GT_OK);
    CHECK_MSG(samples >= 5 && elapsed > 0, "%.0f samples, %f s", samples, elapsed);
    CHECK(gt_tracker_figure(t, GT_FIGURE_RSS_BYTES, &rss) == GT_OK);
    CHECK(gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &peak) == GT_OK);
    CHECK_MSG(rss == 100.0 * 1024 && peak >= rss, "rss %f peak %f", rss, peak);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_PERCENT, &cpu) == GT_OK && cpu == 0);
    CHECK(gt_tracker_figure(t, GT_FIGURE_GPU_RAM_BYTES, &gpu) == GT_ERR_UNAVAILABLE && gpu == 0);
    CHECK_CONTAINS(gt_last_error(), "no GPU sampled"); /* no GPU library */
    CHECK(gt_tracker_figure(t, GT_FIGURE_GPU_UTIL_PERCENT, &gpu) == GT_ERR_UNAVAILABLE);
    gt_snapshot *snap = NULL;
    CHECK(gt_tracker_snapshot(t, "live", -1, &snap) == GT_OK);
    if (snap) {
        CHECK(snap->series.nprocess >= got && !snap->usage.measurement.complete);
        CHECK(snap->stop_time >= snap->start_time);
        gt_snapshot_free(snap);
    }
    CHECK(gt_tracker_stop(t) == GT_OK);
    /* Stopped: the run's length is fixed, the final sample counted. */
    double end1 = 0, end2 = 0, end_samples = 0;
    CHECK(gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &end1) == GT_OK &&
          gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &end2) == GT_OK);
    CHECK(end1 == end2 && end1 >= elapsed);
    CHECK(gt_tracker_figure(t, GT_FIGURE_SAMPLES, &end_samples) == GT_OK && end_samples > samples);
    /* Totals: the same span; main's ticks never moved; no reaper, no I/O. */
    gt_run_results *res = NULL;
    CHECK(gt_run_results_read(t, &res) == GT_OK && res);
    CHECK(res && res->totals.wall_seconds == end1);
    CHECK(res && res->totals.cpu_main_seconds == 0 && res->totals.cpu_descendants_seconds == 0);
    CHECK(res && res->totals.io_available == 0 && res->totals.read_bytes == 0 &&
          res->totals.write_bytes == 0);
    gt_run_results_free(res);
    CHECK(gt_tracker_wait_rows(t, 100000, 5) == 0); /* stopped with fewer */
    gt_series s = {.struct_size = sizeof(gt_series)};
    CHECK(gt_tracker_series(t, &s) == GT_OK);
    CHECK(s.nprocess >= got);
    for (size_t i = 0; i < got && i < s.nprocess; i++)
        CHECK(memcmp(&live[i], &s.process[i], sizeof live[i]) == 0);
    free(copied);
    /* Aligned: the baseline at a multiple of the interval, the rows too. */
    double k = s.start_time / 0.05;
    CHECK_MSG(fabs(k - floor(k + 0.5)) < 1e-6, "start %.6f", s.start_time);
    CHECK(s.start_time == scheduled);
    for (size_t i = 0; i < s.nprocess; i++) {
        /* main_only: no children, the main's own PSS (test_tree_main_only: its CPU) */
        CHECK(s.process[i].children == 0 && s.process[i].memory == 90);
    }
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u && u->max_ram.descendants.total_rss == 0 && u->max_ram.main.total_rss > 0);
    gt_tracker_free(t);
    close(pfd);
    /* Rows only: the first line is a row (starts with its timestamp). */
    char text[4096];
    FILE *f = fopen(pcsv, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECK_MSG(n > 0 && text[0] >= '1' && text[0] <= '9', "CSV starts '%.20s'", text);

    /* A start ahead, stopped before it comes: a run of no rows, no error. */
    o.process_csv_fd = -1;
    o.main_only = 0;
    o.start_at = (double)time(NULL) + 3600;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (t) {
        CHECK(gt_tracker_start(t) == GT_OK);
        double ahead = 0; /* before the baseline: the schedule */
        CHECK(gt_tracker_figure(t, GT_FIGURE_START_EPOCH, &ahead) == GT_OK && ahead == o.start_at);
        CHECK(gt_tracker_snapshot(t, NULL, -1, &snap) == GT_ERR_STATE);
        CHECK_CONTAINS(gt_last_error(), "sampling begins at");
        CHECK(gt_tracker_stop(t) == GT_OK);
        void *rows = NULL;
        size_t nrows = 9;
        CHECK(gt_tracker_rows_since(t, GT_SERIES_KIND_SYSTEM, 0, &rows, &nrows) == GT_OK &&
              nrows == 0 && !rows);
        CHECK(gt_tracker_usage(t) != NULL);
        gt_tracker_free(t);
    }
    gt_options bad = o;
    bad.start_at = -5;
    CHECK(test_tracker_new(&bad, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid start time");
    bad.start_at = (double)time(NULL) + 3 * 86400;
    CHECK(test_tracker_new(&bad, &t) == GT_ERR_INVALID_ARGUMENT);
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    fx_rmroot(root);
}

/* Appends n rows the way the tracker does (a full tail is flushed, then
 * committed) and reads them all back. 1 when every row came back intact. */
static int store_round_trip(struct row_store *st, size_t n, int *warnings)
{
    for (size_t i = 0; i < n; i++) {
        gt_process_row p;
        gt_system_row y;
        memset(&p, 0, sizeof p);
        memset(&y, 0, sizeof y);
        p.timestamp = y.timestamp = 1700000000.0 + (double)i;
        p.pid = (int)i;
        p.memory = 3ULL * i;
        y.net_recv_bytes = 7ULL * i;
        int fp = row_store_add(st, GT_SERIES_KIND_PROCESS, &p);
        int fy = row_store_add(st, GT_SERIES_KIND_SYSTEM, &y);
        if (fp < 0 || fy < 0)
            return 0;
        if (fp == 1)
            *warnings += row_store_commit(st, GT_SERIES_KIND_PROCESS,
                                          row_store_flush(st, GT_SERIES_KIND_PROCESS));
        if (fy == 1)
            *warnings += row_store_commit(st, GT_SERIES_KIND_SYSTEM,
                                          row_store_flush(st, GT_SERIES_KIND_SYSTEM));
    }
    struct row_source src;
    row_store_source(st, &src);
    if (src.count[0] != n || src.count[1] != n)
        return 0;
    /* Read back in uneven pieces that straddle the disk and the tail. */
    gt_process_row p[777];
    gt_system_row y[777];
    for (size_t at = 0; at < n; at += 777) {
        size_t take = n - at < 777 ? n - at : 777;
        if (src.read(&src, GT_SERIES_KIND_PROCESS, at, take, p) < 0 ||
            src.read(&src, GT_SERIES_KIND_SYSTEM, at, take, y) < 0)
            return 0;
        for (size_t k = 0; k < take; k++)
            if (p[k].pid != (int)(at + k) || p[k].memory != 3ULL * (at + k) ||
                y[k].net_recv_bytes != 7ULL * (at + k) ||
                y[k].timestamp != 1700000000.0 + (double)(at + k))
                return 0;
    }
    return 1;
}

/* The row store: rows beyond the tail go to an unlinked file and come back
 * intact; when no file can be made, they stay in memory (one warning), and
 * none is lost. */
static void test_row_store(void)
{
    struct row_store st;
    row_store_init(&st);
    int warnings = 0;
    CHECK(store_round_trip(&st, 5000, &warnings));
    CHECK(warnings == 0);
    CHECK(st.series[GT_SERIES_KIND_PROCESS].on_disk > 0 && st.spill_error[0] == '\0');
    CHECK(st.series[GT_SERIES_KIND_PROCESS].ntail <= ROW_STORE_TAIL);
    row_store_free(&st);

    row_store_init(&st);
    st.dir = "/nonexistent-dir";
    warnings = 0;
    CHECK(store_round_trip(&st, 5000, &warnings));
    CHECK(warnings == 1); /* said once, for both series */
    CHECK(st.series[GT_SERIES_KIND_PROCESS].on_disk == 0);
    CHECK_CONTAINS(st.spill_error, "cannot make a file for rows in /nonexistent-dir");
    row_store_free(&st);
}

/* docs/series.md has one table per series whose first column names every
 * column, in order: the column tables (series_columns.c) drive the CSV, the
 * snapshot and the rounding, and this keeps the page describing them. */
static void test_docs_list_every_column(void)
{
    FILE *f = fopen(DOCS_DIR "/series.md", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    /* The tables whose header is "| column | unit | meaning |", in order:
     * the process series, then the system series. */
    char names[2][64][48];
    size_t n[2] = {0, 0};
    int table = -1, in_table = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "| column | unit | meaning |", 27) == 0) {
            table++;
            in_table = 1;
            continue;
        }
        if (in_table && line[0] != '|') {
            in_table = 0;
            continue;
        }
        char name[48];
        if (in_table && table < 2 && sscanf(line, "| `%47[a-z_]` |", name) == 1 && n[table] < 64)
            snprintf(names[table][n[table]++], sizeof names[0][0], "%s", name);
    }
    fclose(f);
    CHECK_MSG(table == 1, "docs/series.md has %d column tables, want 2", table + 1);
    for (int kind = 0; kind < 2 && kind <= table; kind++) {
        const struct series_columns *cols = series_columns((gt_series_kind)kind);
        CHECK_MSG(n[kind] == cols->ncolumns, "docs/series.md lists %zu %s columns, the table has %zu",
                  n[kind], kind ? "system" : "process", cols->ncolumns);
        for (size_t i = 0; i < n[kind] && i < cols->ncolumns; i++)
            CHECK_MSG(strcmp(names[kind][i], cols->columns[i].name) == 0,
                      "docs/series.md %s column %zu is `%s`, the table's is `%s`",
                      kind ? "system" : "process", i, names[kind][i], cols->columns[i].name);
    }
}

int main(void)
{
    test_docs_list_every_column();
    test_diskstats_lines();
    test_netdev_lines();
    test_mountinfo_lines();
    test_proc_files();
    test_classifiers();
    test_system_counters();
    test_system_open_reading();
    test_system_rows();
    test_process_rows_and_csv();
    test_tree_counters();
    test_tree_main_only();
    test_tree_run_clock();
    test_tracker_rows();
    test_live_reads();
    test_mount_table_watch();
    test_row_store();
    return check_exit("test_series");
}
