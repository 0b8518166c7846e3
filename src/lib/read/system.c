/* system.c - /proc/stat and /proc/meminfo through kept-open descriptors. */
#define _GNU_SOURCE
#include "read/system.h"

#include "common/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/procfs.h"
#include "common/background.h"

#define MAX_STAT_BYTES (8u << 20) /* /proc/stat of a huge machine, with room */

int system_open(struct system_reader *r, const char *proc_root, struct sys_cpu *cpu,
                struct meminfo *mem, const char **what)
{
    memset(r, 0, sizeof *r);
    r->stat_fd = r->meminfo_fd = -1;
    r->bufcap = 16384;
    r->buf = malloc(r->bufcap);
    if (!r->buf) {
        errno = ENOMEM;
        *what = "memory";
        return -1;
    }
    r->stat_fd = file_open_in(proc_root, "stat", 0);
    if (r->stat_fd < 0) {
        *what = "stat";
        goto fail;
    }
    r->meminfo_fd = file_open_in(proc_root, "meminfo", 0);
    if (r->meminfo_fd < 0) {
        *what = "meminfo";
        goto fail;
    }
    if (system_read(r, cpu, mem, what) < 0)
        goto fail;
    r->open_cpu = *cpu;
    r->open_mem = *mem;
    r->open_time = monotonic_now();
    return 0;
fail:;
    int saved = errno;
    system_close(r);
    errno = saved;
    return -1;
}

void system_close(struct system_reader *r)
{
    if (r->stat_fd >= 0)
        close(r->stat_fd);
    if (r->meminfo_fd >= 0)
        close(r->meminfo_fd);
    free(r->buf);
    memset(r, 0, sizeof *r);
    r->stat_fd = r->meminfo_fd = -1;
}

int system_read(struct system_reader *r, struct sys_cpu *cpu, struct meminfo *mem,
                const char **what)
{
    if (r->open_time > 0) {
        int young = monotonic_now() - r->open_time < SYSTEM_REUSE_SECONDS;
        r->open_time = 0;
        if (young) {
            *cpu = r->open_cpu;
            *mem = r->open_mem;
            return 0;
        }
    }
    size_t len;
    *what = "stat";
    if (file_pread_grow(r->stat_fd, &r->buf, &r->bufcap, MAX_STAT_BYTES, &len) < 0)
        return -1;
    if (proc_parse_cpu_stat(r->buf, len, cpu) < 0) {
        errno = ERR_MALFORMED;
        return -1;
    }
    *what = "meminfo";
    if (file_pread_grow(r->meminfo_fd, &r->buf, &r->bufcap, MAX_STAT_BYTES, &len) < 0)
        return -1;
    if (proc_parse_meminfo(r->buf, len, mem) < 0) {
        errno = ERR_MALFORMED;
        return -1;
    }
    return 0;
}
