/* server_info.c - the machine a run is on (see server_info.h). */
#define _GNU_SOURCE
#include "read/server_info.h"

#include "common/array_copy.h"
#include "common/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/parse/proc_parse.h"
#include "read/procfs.h"

#define MIB (1024.0 * 1024.0)

/* Finds a line starting with key; returns its text after the separator
 * sep (blanks trimmed), up to the end of the line, in out. */
static int line_value(const char *buf, const char *key, char sep, char *out, size_t cap)
{
    size_t klen = strlen(key);
    for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, key, klen) != 0)
            continue;
        const char *q = p + klen;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != sep)
            continue;
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
        const char *end = strchr(q, '\n');
        size_t len = end ? (size_t)(end - q) : strlen(q);
        while (len > 0 && (q[len - 1] == ' ' || q[len - 1] == '\t' || q[len - 1] == '\r'))
            len--;
        if (len == 0 || len >= cap)
            return -1;
        memcpy(out, q, len);
        out[len] = '\0';
        return 0;
    }
    return -1;
}

int server_parse_os_release(const char *buf, char *out, size_t cap)
{
    char v[512];
    if (line_value(buf, "PRETTY_NAME", '=', v, sizeof v) < 0)
        return -1;
    char *s = v;
    size_t len = strlen(s);
    if (len >= 2 && (s[0] == '"' || s[0] == '\'') && s[len - 1] == s[0]) {
        s[len - 1] = '\0';
        s++;
    }
    if (!*s || strlen(s) >= cap)
        return -1;
    memcpy(out, s, strlen(s) + 1);
    return 0;
}

int server_parse_cpu_model(const char *buf, char *out, size_t cap)
{
    static const char *const keys[] = {"model name", "Processor", "Hardware", "cpu model"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (line_value(buf, keys[i], ':', out, cap) == 0)
            return 0;
    return -1;
}

int server_parse_cgroup_path(const char *buf, const char *controller, char *out, size_t cap)
{
    for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        const char *c1 = strchr(p, ':');
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if (!c1 || c1 > eol)
            continue;
        const char *c2 = memchr(c1 + 1, ':', (size_t)(eol - c1 - 1));
        if (!c2)
            continue;
        size_t clen = (size_t)(c2 - c1 - 1);
        int match;
        if (!controller) {
            match = clen == 0 && p[0] == '0' && c1 == p + 1;
        } else {
            /* "cpu,cpuacct": any of the comma-separated names */
            match = 0;
            size_t want = strlen(controller);
            for (const char *n = c1 + 1; n < c2;) {
                const char *comma = memchr(n, ',', (size_t)(c2 - n));
                const char *ne = comma ? comma : c2;
                if ((size_t)(ne - n) == want && strncmp(n, controller, want) == 0)
                    match = 1;
                n = ne + 1;
            }
        }
        if (!match)
            continue;
        size_t len = (size_t)(eol - c2 - 1);
        if (len == 0 || len >= cap)
            return -1;
        memcpy(out, c2 + 1, len);
        out[len] = '\0';
        return 0;
    }
    return -1;
}

double server_parse_cpu_max(const char *buf)
{
    if (strncmp(buf, "max", 3) == 0)
        return 0;
    char *end;
    errno = 0;
    double quota = strtod(buf, &end);
    if (errno || end == buf || quota <= 0)
        return -1;
    char *end2;
    double period = strtod(end, &end2);
    if (end2 == end || period <= 0)
        return -1;
    return quota / period;
}

double server_parse_memory_limit(const char *buf)
{
    if (strncmp(buf, "max", 3) == 0)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || end == buf)
        return -1;
    if (v >= (1ULL << 60))
        return 0; /* v1's "no limit" is a page-rounded LLONG_MAX */
    return (double)v / MIB;
}

/* Reads a small text file into buf; -1 when it cannot. */
static int read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len;
    int rc = file_pread(fd, buf, cap, &len);
    close(fd);
    return rc;
}

/* CPUs and memory the cgroup of process who ("self", or a PID) allows (0:
 * no limit); mem_mib NULL: the CPUs alone (a file fewer to open). */
static void cgroup_limits(const char *proc_root, const char *sys_root, const char *who,
                          double *cpus, double *mem_mib)
{
    double mem_ignored;
    int want_mem = mem_mib != NULL;
    if (!want_mem)
        mem_mib = &mem_ignored;
    *cpus = 0;
    *mem_mib = 0;
    char buf[8192], cg[2048], path[4096 + 2048];
    snprintf(path, sizeof path, "%s/%s/cgroup", proc_root, who);
    if (read_small(path, buf, sizeof buf) < 0)
        return;
    char small[256];
    if (server_parse_cgroup_path(buf, NULL, cg, sizeof cg) == 0) {
        /* v2: the limits of our cgroup (its ancestors may be tighter; the
         * nearest one is what a job's scheduler sets). */
        int unified = 0;
        snprintf(path, sizeof path, "%s/fs/cgroup%s/cpu.max", sys_root, strcmp(cg, "/") ? cg : "");
        if (read_small(path, small, sizeof small) == 0) {
            unified = 1;
            if (server_parse_cpu_max(small) > 0)
                *cpus = server_parse_cpu_max(small);
        }
        snprintf(path, sizeof path, "%s/fs/cgroup%s/memory.max", sys_root, strcmp(cg, "/") ? cg : "");
        if (want_mem && read_small(path, small, sizeof small) == 0) {
            unified = 1;
            if (server_parse_memory_limit(small) > 0)
                *mem_mib = server_parse_memory_limit(small);
        }
        /* A hybrid host lists a "0::" line too, but its unified hierarchy
         * (at fs/cgroup/unified) holds no controller: the limits are v1's. */
        if (unified)
            return;
    }
    if (server_parse_cgroup_path(buf, "cpu", cg, sizeof cg) == 0) {
        char q[64], p[64];
        snprintf(path, sizeof path, "%s/fs/cgroup/cpu%s/cpu.cfs_quota_us", sys_root, cg);
        int ok = read_small(path, q, sizeof q) == 0;
        snprintf(path, sizeof path, "%s/fs/cgroup/cpu%s/cpu.cfs_period_us", sys_root, cg);
        ok = ok && read_small(path, p, sizeof p) == 0;
        double quota = ok ? strtod(q, NULL) : -1, period = ok ? strtod(p, NULL) : 0;
        if (quota > 0 && period > 0)
            *cpus = quota / period;
    }
    if (want_mem && server_parse_cgroup_path(buf, "memory", cg, sizeof cg) == 0) {
        snprintf(path, sizeof path, "%s/fs/cgroup/memory%s/memory.limit_in_bytes", sys_root, cg);
        if (read_small(path, small, sizeof small) == 0 && server_parse_memory_limit(small) > 0)
            *mem_mib = server_parse_memory_limit(small);
    }
}

void server_info_collect(gt_server_info *si, const char *proc_root, const char *sys_root,
                         const struct gpu_device *devices, int ndevices)
{
    memset(si, 0, sizeof *si);
    si->struct_size = sizeof *si;
    snprintf(si->allocation, sizeof si->allocation, "unknown");
    char *buf = malloc(1 << 16);
    if (!buf)
        return;
    if (read_small("/etc/os-release", buf, 1 << 16) == 0 ||
        read_small("/usr/lib/os-release", buf, 1 << 16) == 0)
        server_parse_os_release(buf, si->os, sizeof si->os);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(si->kernel, sizeof si->kernel, "%s", u.release);
        if (!si->os[0])
            snprintf(si->os, sizeof si->os, "%s", u.sysname);
    }
    gethostname(si->hostname, sizeof si->hostname - 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/cpuinfo", proc_root);
    /* cpuinfo of a big machine is long; the first processor will do */
    size_t got;
    if (file_read_prefix(path, buf, 1 << 16, &got) == 0 && got > 0)
        server_parse_cpu_model(buf, si->cpu_model, sizeof si->cpu_model);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    si->vcpus = online > 0 ? (int)online : 0;
    /* What --nec defaults to, the same figure. */
    si->vcpus_usable = server_usable_cpus(proc_root, sys_root, 0, si->vcpus);
    double cg_cpus, cg_mem;
    cgroup_limits(proc_root, sys_root, "self", &cg_cpus, &cg_mem);
    snprintf(path, sizeof path, "%s/meminfo", proc_root);
    struct meminfo mi;
    if (read_small(path, buf, 1 << 16) == 0 && proc_parse_meminfo(buf, strlen(buf), &mi) == 0)
        si->memory_mib = round((double)mi.total_kb / 1024.0 * 100) / 100;
    si->memory_limit_mib = cg_mem;
    if (devices && ndevices > 0) {
        si->gpu_count = ndevices;
        int n = ndevices < GT_MAX_GPUS ? ndevices : GT_MAX_GPUS;
        const char *names[GT_MAX_GPUS];
        for (int i = 0; i < ndevices; i++) {
            si->gpu_memory_mib += (double)devices[i].memory_total / MIB;
            if (i < n)
                names[i] = devices[i].name;
        }
        si->gpu_names = (const char *const *)strings_dup(names, (size_t)n, GT_GPU_NAME_MAX);
        si->ngpu_names = si->gpu_names ? n : 0; /* out of memory: no names */
    }
    free(buf);
}

void server_info_release(gt_server_info *si)
{
    free((void *)(uintptr_t)si->gpu_names);
    si->gpu_names = NULL;
    si->ngpu_names = 0;
}

double server_usable_cpus_quota(const char *proc_root, pid_t pid, int ncpu, double quota_cores)
{
    double usable = ncpu;
    cpu_set_t set;
    /* A fixture's PIDs are not the kernel's: only the real procfs has the
     * process's affinity. */
    if (strcmp(proc_root, "/proc") == 0 && sched_getaffinity(pid, sizeof set, &set) == 0 &&
        CPU_COUNT(&set) > 0 && CPU_COUNT(&set) < usable)
        usable = CPU_COUNT(&set);
    if (quota_cores > 0 && quota_cores < usable)
        usable = quota_cores;
    return usable;
}

double server_usable_cpus(const char *proc_root, const char *sys_root, pid_t pid, int ncpu)
{
    char who[32];
    snprintf(who, sizeof who, "%d", (int)pid);
    double cg_cpus;
    cgroup_limits(proc_root, sys_root, pid > 0 ? who : "self", &cg_cpus, NULL);
    return server_usable_cpus_quota(proc_root, pid, ncpu, cg_cpus);
}
