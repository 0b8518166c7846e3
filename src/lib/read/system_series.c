/* system_series.c - processes, disks, interfaces and filesystems for the
 * system series (see system_series.h for what counts). */
#define _GNU_SOURCE
#include "read/system_series.h"

#include "common/buf.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/internal.h"
#include "read/procfs.h"

#define MAX_FILE_BYTES (16u << 20) /* mountinfo of a busy container host, with room */
#define MAX_FS_KEYS 256            /* distinct filesystems counted per sample */

/* Reads fd from its start into the reader's buffer. */
static int read_file(struct system_series_reader *r, int fd, size_t *len)
{
    return file_pread_grow(fd, &r->buf, &r->bufcap, MAX_FILE_BYTES, len);
}

int system_series_open(struct system_series_reader *r, const char *proc_root,
                       const char *sys_root)
{
    memset(r, 0, sizeof *r);
    r->sys_block_fd = r->sys_net_fd = r->diskstats_fd = r->netdev_fd = -1;
    r->mountinfo_fd = -1;
    for (int i = 0; i < CGROUP_PSI_N; i++)
        r->pressure_fd[i] = -1;
    r->proc_root = strdup(proc_root);
    r->bufcap = 16384;
    r->buf = malloc(r->bufcap);
    if (!r->proc_root || !r->buf) {
        system_series_close(r);
        errno = ENOMEM;
        return -1;
    }
    r->sys_block_fd = file_open_in(sys_root, "block", O_DIRECTORY);
    r->sys_net_fd = file_open_in(sys_root, "class/net", O_DIRECTORY);
    r->diskstats_fd = file_open_in(proc_root, "diskstats", 0);
    r->netdev_fd = file_open_in(proc_root, "net/dev", 0);
    static const char *const psi[CGROUP_PSI_N] = {"pressure/cpu", "pressure/memory",
                                                  "pressure/io"};
    for (int i = 0; i < CGROUP_PSI_N; i++)
        r->pressure_fd[i] = file_open_in(proc_root, psi[i], 0);
    r->proc_dir = opendir(proc_root);
    r->mountinfo_fd = file_open_in(proc_root, "self/mountinfo", 0);
    return 0;
}

void system_series_close(struct system_series_reader *r)
{
    int fds[] = {r->sys_block_fd,    r->sys_net_fd,      r->diskstats_fd,   r->netdev_fd,
                 r->pressure_fd[0], r->pressure_fd[1], r->pressure_fd[2], r->mountinfo_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (r->proc_dir)
        closedir(r->proc_dir);
    free(r->proc_root);
    free(r->buf);
    free(r->blocks);
    free(r->ifaces);
    free(r->fs_scratch);
    free(r->mounts);
    memset(r, 0, sizeof *r);
    r->sys_block_fd = r->sys_net_fd = r->diskstats_fd = r->netdev_fd = -1;
    r->mountinfo_fd = -1;
    for (int i = 0; i < CGROUP_PSI_N; i++)
        r->pressure_fd[i] = -1;
}

/* Whether a name (with its device numbers) counts, as the cache has it or
 * as decide() says the first time; marked seen by this reading. NULL when
 * out of memory. */
static struct name_class *
classify(const struct system_series_reader *r, struct name_class **list, size_t *n, size_t *cap,
         const char *name, unsigned major, unsigned minor,
         int (*decide)(const struct system_series_reader *, const char *))
{
    struct name_class *c = NULL;
    for (size_t i = 0; i < *n && !c; i++)
        if ((*list)[i].major == major && (*list)[i].minor == minor &&
            strcmp((*list)[i].name, name) == 0)
            c = &(*list)[i];
    if (!c) {
        if (array_reserve((void **)list, *n, cap, sizeof **list) < 0)
            return NULL;
        c = &(*list)[(*n)++];
        snprintf(c->name, sizeof c->name, "%s", name);
        c->major = major;
        c->minor = minor;
        c->counted = decide(r, name);
    }
    c->seen = r->generation;
    return c;
}

/* Drops the cached names the last reading did not see (a device that went
 * away; its name may come back as another one). */
static void prune_classes(struct name_class *list, size_t *n, unsigned generation)
{
    for (size_t i = 0; i < *n;)
        if (list[i].seen != generation)
            list[i] = list[--*n];
        else
            i++;
}

/* 1 when the directory at dirfd/name has an entry other than . and .. */
static int dir_has_entries(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return 0;
    }
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)))
        found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return found;
}

/* Whether a block device of /proc/diskstats is a whole disk of its own. */
static int block_counted(const struct system_series_reader *r, const char *name)
{
    if (sys_block_is_virtual(name))
        return 0;
    if (r->sys_block_fd < 0)
        return !sys_block_looks_like_partition(name);
    struct stat st;
    if (fstatat(r->sys_block_fd, name, &st, 0) < 0)
        return 0; /* not in /sys/block: a partition */
    char slaves[SYS_NAME_LEN + 16];
    snprintf(slaves, sizeof slaves, "%s/slaves", name);
    return !dir_has_entries(r->sys_block_fd, slaves); /* stacked on other disks */
}

/* One reading of a file, line by line. */
struct line_ctx {
    struct system_series_reader *r;
    struct system_series_sample *s;
    int failed;
};

static int on_disk_line(const char *line, size_t n, void *arg)
{
    struct line_ctx *c = arg;
    struct diskstats_line d;
    if (sys_parse_diskstats_line(line, n, &d) < 0)
        return 0; /* not a device line */
    struct system_series_reader *r = c->r;
    struct name_class *k = classify(r, &r->blocks, &r->nblocks, &r->capblocks, d.name, d.major,
                                    d.minor, block_counted);
    if (!k)
        return c->failed = -1;
    if (!k->counted)
        return 0;
    struct system_series_sample *s = c->s;
    if (array_reserve((void **)&s->disks, s->ndisks, &s->capdisks, sizeof *s->disks) < 0)
        return c->failed = -1;
    struct disk_counter *dc = &s->disks[s->ndisks++];
    text_copy(dc->name, sizeof dc->name, d.name); /* every sample: no printf */
    dc->major = d.major;
    dc->minor = d.minor;
    dc->read_sectors = d.read_sectors;
    dc->write_sectors = d.write_sectors;
    return 0;
}

static int read_disks(struct system_series_reader *r, struct system_series_sample *s)
{
    size_t len;
    s->ndisks = 0;
    if (r->diskstats_fd < 0 || read_file(r, r->diskstats_fd, &len) < 0)
        return errno == ENOMEM ? -1 : 0;
    struct line_ctx c = {r, s, 0};
    sys_each_line(r->buf, len, on_disk_line, &c);
    if (c.failed)
        return -1;
    prune_classes(r->blocks, &r->nblocks, r->generation);
    s->disks_ok = 1;
    return 0;
}

static int iface_has_device(const struct system_series_reader *r, const char *name)
{
    if (r->sys_net_fd < 0)
        return 0;
    char path[SYS_NAME_LEN + 16];
    snprintf(path, sizeof path, "%s/device", name);
    struct stat st;
    return fstatat(r->sys_net_fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static int on_net_line(const char *line, size_t n, void *arg)
{
    struct line_ctx *c = arg;
    struct netdev_line l;
    if (sys_parse_netdev_line(line, n, &l) < 0)
        return 0; /* a header line */
    struct system_series_reader *r = c->r;
    struct name_class *k = classify(r, &r->ifaces, &r->nifaces, &r->capifaces, l.name, 0, 0,
                                    iface_has_device);
    if (!k)
        return c->failed = -1;
    struct system_series_sample *s = c->s;
    if (array_reserve((void **)&s->nets, s->nnets, &s->capnets, sizeof *s->nets) < 0)
        return c->failed = -1;
    struct net_counter *nc = &s->nets[s->nnets++];
    text_copy(nc->name, sizeof nc->name, l.name); /* every sample: no printf */
    nc->physical = k->counted;
    nc->rx_bytes = l.rx_bytes;
    nc->tx_bytes = l.tx_bytes;
    return 0;
}

static int read_nets(struct system_series_reader *r, struct system_series_sample *s)
{
    size_t len;
    s->nnets = 0;
    if (r->netdev_fd < 0 || read_file(r, r->netdev_fd, &len) < 0)
        return errno == ENOMEM ? -1 : 0;
    struct line_ctx c = {r, s, 0};
    sys_each_line(r->buf, len, on_net_line, &c);
    if (c.failed)
        return -1;
    prune_classes(r->ifaces, &r->nifaces, r->generation);
    /* Keep the interfaces with a device behind them; where there is none
     * (a container sees only its veth), all but loopback. */
    int any_physical = 0;
    for (size_t i = 0; i < s->nnets; i++)
        any_physical |= s->nets[i].physical;
    size_t kept = 0;
    for (size_t i = 0; i < s->nnets; i++) {
        int keep = any_physical ? s->nets[i].physical : strcmp(s->nets[i].name, "lo") != 0;
        if (keep)
            s->nets[kept++] = s->nets[i];
    }
    s->nnets = kept;
    s->nets_ok = 1;
    return 0;
}

/* The filesystems seen so far in one reading, to count each once. */
struct fs_keys {
    struct {
        unsigned major, minor;
        char source[512];
    } k[MAX_FS_KEYS];
    size_t n;
};

static int fs_seen(const struct fs_keys *keys, const struct mountinfo_line *m)
{
    int by_source = strncmp(m->source, "/dev/", 5) == 0;
    for (size_t i = 0; i < keys->n; i++) {
        if (keys->k[i].major == m->major && keys->k[i].minor == m->minor)
            return 1;
        if (by_source && strcmp(keys->k[i].source, m->source) == 0)
            return 1;
    }
    return 0;
}

/* One reading of the mount table: the filesystems counted so far, and room
 * for the line being parsed (too big for the stack of a sampling thread). */
struct fs_ctx {
    struct fs_keys keys;
    struct mountinfo_line m;
    struct system_series_sample *s;
    struct system_series_reader *keep; /* non-NULL: the mount points counted go to its cache */
    int out_of_memory;
    /* system_series_filesystems(): the names, written as they are counted */
    char *names;
    size_t names_cap, names_len, names_left_out;
};

/* "MOUNT (TYPE on SOURCE)" of m after the names so far; one that does not
 * fit is counted in names_left_out, never dropped unsaid. */
static void add_name(struct fs_ctx *c, const struct mountinfo_line *m)
{
    char one[1200];
    int n = snprintf(one, sizeof one, "%s%s (%s on %s)", c->names_len ? ", " : "",
                     m->mount_point, m->fstype, m->source);
    /* Room kept for ", and 999999 more". */
    if (n < 0 || c->names_len + (size_t)n + 24 >= c->names_cap) {
        c->names_left_out++;
        return;
    }
    memcpy(c->names + c->names_len, one, (size_t)n + 1);
    c->names_len += (size_t)n;
}

static int on_mount_line(const char *line, size_t n, void *arg)
{
    struct fs_ctx *c = arg;
    struct mountinfo_line *m = &c->m;
    if (sys_parse_mountinfo_line(line, n, m) < 0 || sys_fs_is_pseudo(m->fstype) ||
        sys_fs_is_network(m->fstype) || strncmp(m->source, "/dev/loop", 9) == 0 ||
        fs_seen(&c->keys, m) || c->keys.n >= MAX_FS_KEYS)
        return 0;
    struct statvfs v;
    if (statvfs(m->mount_point, &v) == 0 && v.f_blocks > 0) {
        unsigned long long frsize = v.f_frsize ? v.f_frsize : v.f_bsize;
        c->s->fs_total_bytes += (unsigned long long)v.f_blocks * frsize;
        c->s->fs_used_bytes += (unsigned long long)(v.f_blocks - v.f_bfree) * frsize;
        c->s->fs_free_bytes += (unsigned long long)v.f_bavail * frsize;
        struct fs_keys *keys = &c->keys;
        keys->k[keys->n].major = m->major;
        keys->k[keys->n].minor = m->minor;
        snprintf(keys->k[keys->n].source, sizeof keys->k[keys->n].source, "%s", m->source);
        keys->n++;
        if (c->names)
            add_name(c, m);
        if (c->keep) {
            struct system_series_reader *r = c->keep;
            size_t len = strlen(m->mount_point) + 1;
            if (grow_array(&r->mounts, &r->mounts_cap, r->mounts_len + len, 1, 256) < 0) {
                c->out_of_memory = 1;
                return 0;
            }
            memcpy(r->mounts + r->mounts_len, m->mount_point, len);
            r->mounts_len += len;
            r->nmounts++;
        }
    }
    return 0;
}

static int read_filesystems(struct system_series_reader *r, struct system_series_sample *s)
{
    s->fs_total_bytes = s->fs_used_bytes = s->fs_free_bytes = 0;
    if (r->mountinfo_fd < 0)
        return 0;
    struct pollfd changed = {.fd = r->mountinfo_fd, .events = POLLPRI};
    if (!r->mounts_valid || (poll(&changed, 1, 0) > 0 && (changed.revents & (POLLPRI | POLLERR)))) {
        /* Read again (first, or the table changed): its filesystems are
         * counted as it is parsed, and their mount points kept. */
        size_t len;
        if (read_file(r, r->mountinfo_fd, &len) < 0)
            return errno == ENOMEM ? -1 : 0;
        r->mount_reads++;
        if (!r->fs_scratch && !(r->fs_scratch = malloc(sizeof(struct fs_ctx)))) {
            errno = ENOMEM;
            return -1;
        }
        struct fs_ctx *c = r->fs_scratch;
        c->keys.n = 0;
        c->s = s;
        c->names = NULL;
        c->keep = r;
        c->out_of_memory = 0;
        r->nmounts = r->mounts_len = 0;
        sys_each_line(r->buf, len, on_mount_line, c);
        r->mounts_valid = !c->out_of_memory;
        if (c->out_of_memory) {
            errno = ENOMEM;
            return -1;
        }
        s->fs_ok = 1;
        return 0;
    }
    const char *mount_point = r->mounts;
    for (size_t i = 0; i < r->nmounts; i++, mount_point += strlen(mount_point) + 1) {
        struct statvfs v;
        if (statvfs(mount_point, &v) == 0 && v.f_blocks > 0) {
            unsigned long long frsize = v.f_frsize ? v.f_frsize : v.f_bsize;
            s->fs_total_bytes += (unsigned long long)v.f_blocks * frsize;
            s->fs_used_bytes += (unsigned long long)(v.f_blocks - v.f_bfree) * frsize;
            s->fs_free_bytes += (unsigned long long)v.f_bavail * frsize;
        }
    }
    s->fs_ok = 1;
    return 0;
}

char *system_series_filesystems(const char *proc_root, size_t cap)
{
    char *names = calloc(1, cap);
    struct fs_ctx *c = calloc(1, sizeof *c);
    struct system_series_sample s;
    memset(&s, 0, sizeof s);
    int fd = names && c ? file_open_in(proc_root, "self/mountinfo", 0) : -1;
    char *text = NULL;
    size_t len = 0, capt = 0;
    if (fd >= 0) {
        /* The whole table, however long (a container host's can be
         * thousands of lines; 64 MiB is far past any). */
        if (file_pread_grow(fd, &text, &capt, 64u << 20, &len) < 0) {
            free(text);
            text = NULL;
        }
        close(fd);
    }
    if (names && c && text) {
        c->s = &s;
        c->names = names;
        c->names_cap = cap;
        sys_each_line(text, len, on_mount_line, c);
        if (c->names_left_out)
            snprintf(names + c->names_len, cap - c->names_len, "%s and %zu more",
                     c->names_len ? "," : "", c->names_left_out);
    }
    free(text);
    free(c);
    return names;
}

static void count_processes(struct system_series_reader *r, struct system_series_sample *s)
{
    s->processes = 0;
    if (!r->proc_dir)
        return;
    rewinddir(r->proc_dir);
    struct dirent *e;
    while ((e = readdir(r->proc_dir))) {
        const char *p = e->d_name;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p != e->d_name && !*p)
            s->processes++;
    }
    s->processes_ok = 1;
}

int system_series_read(struct system_series_reader *r, struct system_series_sample *s)
{
    r->generation++;
    s->processes_ok = s->disks_ok = s->nets_ok = s->fs_ok = 0;
    count_processes(r, s);
    /* a file that cannot be read (a kernel without PSI) leaves that part out */
    for (int i = 0; i < CGROUP_PSI_N; i++) {
        size_t len;
        s->psi_ok[i] = r->pressure_fd[i] >= 0 &&
                       file_pread(r->pressure_fd[i], r->buf, r->bufcap, &len) == 0 &&
                       cgroup_parse_pressure(r->buf, len, &s->psi[i]) == 0;
    }
    if (read_disks(r, s) < 0 || read_nets(r, s) < 0 || read_filesystems(r, s) < 0)
        return -1;
    return 0;
}
