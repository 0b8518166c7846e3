/* proc_parse.c - cursor-style parsers of procfs text (no sscanf/atoi). */
#define _GNU_SOURCE /* memrchr */
#include "common/parse/proc_parse.h"

#include <limits.h>
#include <signal.h>
#include <string.h>

#include "common/cursor.h"

/* Reads a decimal that may be negative; negative values read as 0 (the
 * counters we keep cannot be negative; priority and nice may be). */
static int read_u64_clamped(struct cursor *c, unsigned long long *out)
{
    skip_blanks(c);
    int neg = c->p < c->end && *c->p == '-';
    if (neg)
        c->p++;
    if (read_u64(c, out) < 0)
        return -1;
    if (neg)
        *out = 0;
    return 0;
}

/* Skips one blank-separated token; -1 when none is left. */
static int skip_token(struct cursor *c)
{
    skip_blanks(c);
    if (c->p >= c->end || *c->p == '\n')
        return -1;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\n')
        c->p++;
    return 0;
}

/* proc_parse_stat(), and with blkio its field 42 too. */
static int parse_stat(const char *buf, size_t len, struct proc_stat *out, int blkio)
{
    /* comm may hold spaces and ')' itself: fields start after the LAST ')'. */
    const char *close = memrchr(buf, ')', len);
    if (!close)
        return -1;
    struct cursor c = {close + 1, buf + len};
    memset(out, 0, sizeof *out);
    const char *lparen = memchr(buf, '(', (size_t)(close - buf));
    if (lparen) {
        size_t n = (size_t)(close - lparen - 1);
        if (n >= sizeof out->comm)
            n = sizeof out->comm - 1;
        memcpy(out->comm, lparen + 1, n);
    }

    skip_blanks(&c);
    if (c.p >= c.end)
        return -1;
    out->state = *c.p++;                          /* field 3 */
    unsigned long long v;
    if (read_u64(&c, &v) < 0 || v > INT_MAX)      /* 4 ppid */
        return -1;
    out->ppid = (pid_t)v;
    for (int f = 5; f <= 9; f++)                  /* pgrp .. flags */
        if (skip_token(&c) < 0)
            return -1;
    if (read_u64(&c, &out->minflt) < 0 ||         /* 10 */
        read_u64(&c, &out->cminflt) < 0 ||        /* 11 */
        read_u64(&c, &out->majflt) < 0 ||         /* 12 */
        read_u64(&c, &out->cmajflt) < 0 ||        /* 13 */
        read_u64(&c, &out->utime) < 0 ||          /* 14 */
        read_u64(&c, &out->stime) < 0 ||          /* 15 */
        read_u64_clamped(&c, &out->cutime) < 0 || /* 16 */
        read_u64_clamped(&c, &out->cstime) < 0)   /* 17 */
        return -1;
    if (skip_token(&c) < 0 || skip_token(&c) < 0) /* 18 priority, 19 nice */
        return -1;
    if (read_u64(&c, &v) < 0 || v > LONG_MAX)     /* 20 num_threads */
        return -1;
    out->num_threads = (long)v;
    if (skip_token(&c) < 0)                       /* 21 itrealvalue */
        return -1;
    if (read_u64(&c, &out->starttime) < 0)        /* 22 */
        return -1;
    if (!blkio)
        return 0;
    /* 23 vsize .. 41 policy, then 42: a shorter line (a kernel before
     * 2.6.18, a fixture) has no block I/O delay, which is not an error. */
    for (int f = 23; f <= 41; f++)
        if (skip_token(&c) < 0)
            return 0;
    out->has_blkio = read_u64(&c, &out->blkio_ticks) == 0;
    if (!out->has_blkio)
        out->blkio_ticks = 0;
    return 0;
}

int proc_parse_stat(const char *buf, size_t len, struct proc_stat *out)
{
    return parse_stat(buf, len, out, 0);
}

int proc_parse_stat_delay(const char *buf, size_t len, struct proc_stat *out)
{
    return parse_stat(buf, len, out, 1);
}

/* One "Key: value [kB]" field wanted from a key-value file. */
struct kv_slot {
    const char *key;
    unsigned long long *value;
    int found;
    int hex;       /* the value is a hexadecimal mask (SigIgn) */
};

/* Fills the slots found in a "Key:<blanks>number[ kB]" file. Lines that do not
 * have that shape (the smaps_rollup header, keys we don't want) are skipped;
 * a wanted key with a malformed number is an error. Read at every sample
 * for every process (status): a line is matched on its first byte and its
 * length before its key is compared, which took a status file's parse from
 * 7,800 instructions to 4,900 (callgrind). */
static int parse_kv(const char *buf, size_t len, struct kv_slot *slots, size_t n)
{
    size_t klen[16];
    if (n > sizeof klen / sizeof klen[0])
        return -1;
    for (size_t i = 0; i < n; i++)
        klen[i] = strlen(slots[i].key);
    const char *p = buf, *end = buf + len;
    size_t left = n; /* a key's first line counts: the rest need not be read */
    while (p < end && left > 0) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        size_t linelen = (size_t)(eol - p);
        for (size_t i = 0; i < n; i++) {
            size_t k = klen[i];
            if (slots[i].found || linelen <= k || p[k] != ':' || p[0] != slots[i].key[0] ||
                memcmp(slots[i].key, p, k) != 0)
                continue;
            struct cursor c = {p + k + 1, eol};
            if ((slots[i].hex ? read_hex64(&c, slots[i].value) : read_u64(&c, slots[i].value)) < 0)
                return -1;
            slots[i].found = 1;
            left--;
            break;
        }
        p = eol + 1;
    }
    return 0;
}

int proc_parse_status(const char *buf, size_t len, struct proc_status *out)
{
    memset(out, 0, sizeof *out);
    unsigned long long threads = 0, ignored = 0;
    struct kv_slot slots[] = {
        {"VmRSS", &out->vm_rss_kb, 0, 0},     {"VmHWM", &out->vm_hwm_kb, 0, 0},
        {"RssAnon", &out->rss_anon_kb, 0, 0}, {"RssFile", &out->rss_file_kb, 0, 0},
        {"RssShmem", &out->rss_shmem_kb, 0, 0}, {"Threads", &threads, 0, 0},
        {"SigIgn", &ignored, 0, 1},
    };
    if (parse_kv(buf, len, slots, sizeof slots / sizeof slots[0]) < 0)
        return -1;
    if (!slots[5].found || threads > LONG_MAX)
        return -1;
    out->threads = (long)threads;
    out->has_memory = slots[0].found && slots[1].found;
    /* Bit n-1 is signal n (SIGCHLD is 17 on every Linux architecture but
     * Alpha, MIPS and SPARC, which Debian's x86, ARM, POWER, s390 and
     * RISC-V ports do not include). */
    out->sigchld_ignored = (ignored >> (SIGCHLD - 1)) & 1;
    return 0;
}

int proc_parse_smaps_rollup(const char *buf, size_t len, struct proc_rollup *out)
{
    unsigned long long sc = 0, sd = 0, pc = 0, pd = 0;
    memset(out, 0, sizeof *out);
    struct kv_slot slots[] = {
        {"Rss", &out->rss_kb, 0, 0},        {"Pss", &out->pss_kb, 0, 0},
        {"Shared_Clean", &sc, 0, 0},        {"Shared_Dirty", &sd, 0, 0},
        {"Private_Clean", &pc, 0, 0},       {"Private_Dirty", &pd, 0, 0},
    };
    size_t n = sizeof slots / sizeof slots[0];
    if (parse_kv(buf, len, slots, n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!slots[i].found)
            return -1;
    out->private_kb = pc + pd;
    out->shared_kb = sc + sd;
    return 0;
}

int proc_parse_pid_list(const char *buf, size_t len, pid_t *out, size_t cap, size_t *count)
{
    struct cursor c = {buf, buf + len};
    size_t n = 0;
    for (;;) {
        while (c.p < c.end && (*c.p == ' ' || *c.p == '\n' || *c.p == '\t'))
            c.p++;
        if (c.p >= c.end)
            break;
        unsigned long long v;
        if (read_u64(&c, &v) < 0 || v == 0 || v > INT_MAX)
            return -1;
        if (n < cap)
            out[n] = (pid_t)v;
        n++;
    }
    *count = n;
    return 0;
}

int proc_parse_cpu_stat(const char *buf, size_t len, struct sys_cpu *out)
{
    memset(out, 0, sizeof *out);
    const char *p = buf, *end = buf + len;
    int have_total = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (eol - p > 3 && memcmp(p, "cpu", 3) == 0) {
            if (p[3] == ' ') {
                /* user nice system idle iowait irq softirq steal [guest guest_nice] */
                unsigned long long f[8];
                struct cursor c = {p + 3, eol};
                for (int i = 0; i < 8; i++)
                    if (read_u64(&c, &f[i]) < 0)
                        return -1;
                unsigned long long idle = f[3] + f[4];
                out->total = 0;
                for (int i = 0; i < 8; i++) {
                    if (out->total > ULLONG_MAX - f[i])
                        return -1;
                    out->total += f[i];
                }
                out->busy = out->total - idle;
                out->user_nice = f[0] + f[1];
                out->system = f[2];
                have_total = 1;
            } else if (p[3] >= '0' && p[3] <= '9') {
                out->ncpu++;
            }
        }
        p = eol + 1;
    }
    return have_total && out->ncpu > 0 ? 0 : -1;
}

int proc_parse_meminfo(const char *buf, size_t len, struct meminfo *out)
{
    memset(out, 0, sizeof *out);
    struct kv_slot slots[] = {
        {"MemTotal", &out->total_kb, 0, 0},   {"MemAvailable", &out->available_kb, 0, 0},
        {"MemFree", &out->free_kb, 0, 0},     {"Buffers", &out->buffers_kb, 0, 0},
        {"Cached", &out->cached_kb, 0, 0},    {"Active", &out->active_kb, 0, 0},
        {"Inactive", &out->inactive_kb, 0, 0}, {"SReclaimable", &out->sreclaimable_kb, 0, 0},
    };
    if (parse_kv(buf, len, slots, sizeof slots / sizeof slots[0]) < 0 || !slots[0].found ||
        !slots[1].found)
        return -1;
    return 0;
}

int proc_parse_schedstat(const char *buf, size_t len, struct proc_schedstat *out)
{
    struct cursor c = {buf, buf + len};
    if (read_u64(&c, &out->run_ns) < 0 || read_u64(&c, &out->wait_ns) < 0 ||
        read_u64(&c, &out->slices) < 0)
        return -1;
    return 0;
}

int proc_parse_io(const char *buf, size_t len, struct proc_io *out)
{
    memset(out, 0, sizeof *out);
    struct kv_slot slots[] = {
        {"read_bytes", &out->read_bytes, 0, 0},
        {"write_bytes", &out->write_bytes, 0, 0},
    };
    if (parse_kv(buf, len, slots, 2) < 0 || !slots[0].found || !slots[1].found)
        return -1;
    return 0;
}
