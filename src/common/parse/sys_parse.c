/* sys_parse.c - cursor-style parsers of /proc/diskstats, /proc/net/dev and
 * mountinfo, and the name and type rules that decide what is counted. */
#define _GNU_SOURCE /* memrchr */
#include "common/parse/sys_parse.h"

#include <limits.h>
#include <string.h>

#include "common/cursor.h"

static int read_uint(struct cursor *c, unsigned *out)
{
    unsigned long long v;
    if (read_u64(c, &v) < 0 || v > UINT_MAX)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* Copies the next blank-separated token into out (cap bytes with the NUL). */
static int read_token(struct cursor *c, char *out, size_t cap)
{
    skip_blanks(c);
    const char *start = c->p;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
        c->p++;
    size_t len = (size_t)(c->p - start);
    if (len == 0 || len >= cap)
        return -1;
    memcpy(out, start, len);
    out[len] = '\0';
    return 0;
}

static int skip_fields(struct cursor *c, int count)
{
    for (int i = 0; i < count; i++) {
        skip_blanks(c);
        if (c->p >= c->end)
            return -1;
        while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
            c->p++;
    }
    return 0;
}

int sys_each_line(const char *buf, size_t len,
                  int (*fn)(const char *line, size_t n, void *arg), void *arg)
{
    const char *p = buf, *end = buf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        int rc = fn(p, (size_t)(eol - p), arg);
        if (rc)
            return rc;
        p = eol + 1;
    }
    return 0;
}

int sys_parse_diskstats_line(const char *line, size_t n, struct diskstats_line *out)
{
    struct cursor c = {line, line + n};
    memset(out, 0, sizeof *out);
    if (read_uint(&c, &out->major) < 0 || read_uint(&c, &out->minor) < 0 ||
        read_token(&c, out->name, sizeof out->name) < 0)
        return -1;
    unsigned long long f[7];
    for (int i = 0; i < 7; i++) /* reads merged sectors ms writes merged sectors */
        if (read_u64(&c, &f[i]) < 0)
            return -1;
    out->read_sectors = f[2];
    out->write_sectors = f[6];
    return 0;
}

int sys_parse_netdev_line(const char *line, size_t n, struct netdev_line *out)
{
    memset(out, 0, sizeof *out);
    /* Names may hold ':' (aliases are not listed here, but be safe): the
     * fields start after the last ':' of the line. */
    const char *colon = memrchr(line, ':', n);
    if (!colon)
        return -1;
    const char *s = line;
    while (s < colon && (*s == ' ' || *s == '\t'))
        s++;
    size_t nlen = (size_t)(colon - s);
    if (nlen == 0 || nlen >= sizeof out->name)
        return -1;
    memcpy(out->name, s, nlen);
    out->name[nlen] = '\0';
    struct cursor c = {colon + 1, line + n};
    unsigned long long f[9];
    for (int i = 0; i < 9; i++) /* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes */
        if (read_u64(&c, &f[i]) < 0)
            return -1;
    out->rx_bytes = f[0];
    out->tx_bytes = f[8];
    return 0;
}

/* Copies the next token, decoding mountinfo's octal escapes (\040). */
static int read_escaped(struct cursor *c, char *out, size_t cap)
{
    skip_blanks(c);
    size_t len = 0;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t') {
        char ch = *c->p++;
        if (ch == '\\' && c->end - c->p >= 3 && c->p[0] >= '0' && c->p[0] <= '3' &&
            c->p[1] >= '0' && c->p[1] <= '7' && c->p[2] >= '0' && c->p[2] <= '7') {
            ch = (char)((c->p[0] - '0') * 64 + (c->p[1] - '0') * 8 + (c->p[2] - '0'));
            c->p += 3;
        }
        if (len + 1 >= cap)
            return -1;
        out[len++] = ch;
    }
    if (len == 0)
        return -1;
    out[len] = '\0';
    return 0;
}

int sys_parse_mountinfo_line(const char *line, size_t n, struct mountinfo_line *out)
{
    struct cursor c = {line, line + n};
    memset(out, 0, sizeof *out);
    if (skip_fields(&c, 2) < 0 || read_uint(&c, &out->major) < 0)
        return -1;
    if (c.p >= c.end || *c.p != ':')
        return -1;
    c.p++;
    if (read_uint(&c, &out->minor) < 0 || skip_fields(&c, 1) < 0 ||
        read_escaped(&c, out->mount_point, sizeof out->mount_point) < 0)
        return -1;
    /* Mount options, then optional fields up to a lone "-". */
    for (;;) {
        if (skip_fields(&c, 1) < 0)
            return -1;
        skip_blanks(&c);
        if (c.end - c.p >= 2 && c.p[0] == '-' && (c.p[1] == ' ' || c.p[1] == '\t')) {
            c.p++;
            break;
        }
    }
    if (read_token(&c, out->fstype, sizeof out->fstype) < 0 ||
        read_escaped(&c, out->source, sizeof out->source) < 0)
        return -1;
    return 0;
}

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

int sys_fs_is_pseudo(const char *fstype)
{
    static const char *const pseudo[] = {
        "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts",
        "devtmpfs", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore",
        "ramfs", "rootfs", "rpc_pipefs", "securityfs", "selinuxfs", "squashfs", "sysfs",
        "tmpfs", "tracefs", "nfsd", "iso9660", "udf", "fuse.gvfsd-fuse",
        "fuse.portal", "fuse.lxcfs", "erofs", NULL,
    };
    return in_list(fstype, pseudo);
}

int sys_fs_is_network(const char *fstype)
{
    static const char *const network[] = {
        "nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre", "gpfs", "beegfs",
        "afs", "9p", "virtiofs", "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.rclone",
        "fuse.ceph-fuse", "fuse.glusterfs", "fuse.juicefs", "fuse.goofys", NULL,
    };
    return in_list(fstype, network);
}

/* 1 when name is prefix followed by one or more digits only. */
static int prefix_digits(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0 || !name[pl])
        return 0;
    for (const char *p = name + pl; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

int sys_block_is_virtual(const char *name)
{
    static const char *const prefixes[] = {"loop", "ram", "zram", "nbd", "dm-", "md", NULL};
    for (const char *const *p = prefixes; *p; p++)
        if (prefix_digits(name, *p))
            return 1;
    return strncmp(name, "md_", 3) == 0;
}

/* Skips [a-z]+ then checks for digits to the end. */
static int letters_then_digits(const char *p)
{
    const char *s = p;
    while (*p >= 'a' && *p <= 'z')
        p++;
    if (p == s || !*p)
        return 0;
    for (; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* Skips digits; returns the position after them, or NULL if there were none. */
static const char *skip_digits(const char *p)
{
    const char *s = p;
    while (*p >= '0' && *p <= '9')
        p++;
    return p == s ? NULL : p;
}

int sys_block_looks_like_partition(const char *name)
{
    /* sdXN, vdXN, xvdXN, hdXN */
    static const char *const lettered[] = {"sd", "vd", "xvd", "hd", NULL};
    for (const char *const *p = lettered; *p; p++)
        if (strncmp(name, *p, strlen(*p)) == 0 && letters_then_digits(name + strlen(*p)))
            return 1;
    /* nvmeXnYpZ, mmcblkXpY */
    const char *p = NULL;
    if (strncmp(name, "nvme", 4) == 0 && (p = skip_digits(name + 4)) && *p == 'n')
        p = skip_digits(p + 1);
    else if (strncmp(name, "mmcblk", 6) == 0)
        p = skip_digits(name + 6);
    else
        return 0;
    return p && *p == 'p' && (p = skip_digits(p + 1)) && !*p;
}
