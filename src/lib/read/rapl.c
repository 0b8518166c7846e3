/* rapl.c - see rapl.h. */
#define _GNU_SOURCE
#include "read/rapl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/internal.h"
#include "read/procfs.h"

void rapl_init(struct rapl_reader *r)
{
    memset(r, 0, sizeof *r);
}

void rapl_close(struct rapl_reader *r)
{
    for (int i = 0; i < r->nzones; i++)
        if (r->zones[i].fd >= 0)
            close(r->zones[i].fd);
    rapl_init(r);
}

/* A small sysfs file of zone dir under base, NUL-terminated without its
 * newline; -1 with errno. */
static int zone_text(int base, const char *zone, const char *file, char *buf, size_t cap)
{
    char rel[320];
    snprintf(rel, sizeof rel, "%s/%s", zone, file);
    int fd = openat(base, rel, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    int rc = file_pread(fd, buf, cap, &len);
    int e = errno;
    close(fd);
    if (rc < 0) {
        errno = e;
        return -1;
    }
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* "intel-rapl:N" or "intel-rapl:N:M" (not the control type itself, nor
 * intel-rapl-mmio, which repeats a package's counter). */
static int is_zone(const char *name)
{
    const char *p = name;
    if (strncmp(p, "intel-rapl:", 11) != 0)
        return 0;
    p += 11;
    for (int part = 0; part < 2; part++) {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '\0')
            return 1;
        if (*p != ':' || part == 1)
            return 0;
        p++;
    }
    return 0;
}

void rapl_open(struct rapl_reader *r, const char *sys_root)
{
    rapl_init(r);
    char path[4096];
    snprintf(path, sizeof path, "%s/class/powercap", sys_root);
    DIR *d = opendir(path);
    if (!d) {
        snprintf(r->reason, sizeof r->reason, "no RAPL counters: %.120s cannot be read (%s; a CPU "
                 "or virtual machine without RAPL)", path, errno_text(errno));
        return;
    }
    int base = dirfd(d);
    int denied = 0, found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && r->nzones < RAPL_MAX_ZONES) {
        if (!is_zone(e->d_name))
            continue;
        char name[64], range[32];
        if (zone_text(base, e->d_name, "name", name, sizeof name) < 0)
            continue;
        int dram = strcmp(name, "dram") == 0;
        if (!dram && strncmp(name, "package", 7) != 0)
            continue; /* core, uncore, psys: inside a package, or beside it */
        found++;
        struct rapl_zone *z = &r->zones[r->nzones];
        memset(z, 0, sizeof *z);
        char rel[320];
        snprintf(rel, sizeof rel, "%s/energy_uj", e->d_name);
        z->fd = openat(base, rel, O_RDONLY | O_CLOEXEC);
        if (z->fd < 0) {
            denied += errno == EACCES || errno == EPERM;
            continue;
        }
        z->dram = dram;
        z->range_uj = zone_text(base, e->d_name, "max_energy_range_uj", range, sizeof range) == 0
                          ? strtoull(range, NULL, 10) : 0;
        r->nzones++;
        r->npackages += !dram;
        r->ndram += dram;
    }
    closedir(d);
    if (r->nzones == 0 && found == 0)
        snprintf(r->reason, sizeof r->reason, "no RAPL package zones under %.120s (a CPU or "
                 "virtual machine without RAPL)", path);
    else if (r->nzones == 0 && denied)
        snprintf(r->reason, sizeof r->reason, "the RAPL counters under %.120s are readable by root "
                 "only (Linux 5.10 and later)", path);
    else if (r->nzones == 0)
        snprintf(r->reason, sizeof r->reason, "the RAPL counters under %.120s cannot be read", path);
    else if (r->npackages == 0) { /* DRAM alone says nothing of the CPU */
        rapl_close(r);
        snprintf(r->reason, sizeof r->reason, "no readable RAPL package zone under %.120s", path);
        return;
    }
    /* the first reading is the zero */
    struct rapl_sample first;
    rapl_read(r, &first);
    for (int i = 0; i < r->nzones; i++)
        r->zones[i].total_uj = 0;
}

void rapl_read(struct rapl_reader *r, struct rapl_sample *out)
{
    memset(out, 0, sizeof *out);
    if (r->nzones == 0)
        return;
    char buf[64];
    for (int i = 0; i < r->nzones; i++) {
        struct rapl_zone *z = &r->zones[i];
        size_t len;
        char *end;
        if (file_pread(z->fd, buf, sizeof buf, &len) < 0)
            return;
        unsigned long long now = strtoull(buf, &end, 10);
        if (end == buf || (*end != '\n' && *end != '\0'))
            return; /* not a count: this sample has no energy */
        /* A counter below its last value wrapped at range_uj (once: it is
         * read far more often than it wraps). */
        if (now >= z->last_uj)
            z->total_uj += now - z->last_uj;
        else if (z->range_uj > z->last_uj)
            z->total_uj += z->range_uj - z->last_uj + now;
        z->last_uj = now;
    }
    for (int i = 0; i < r->nzones; i++) {
        if (r->zones[i].dram)
            out->dram_uj += r->zones[i].total_uj;
        else
            out->package_uj += r->zones[i].total_uj;
    }
    out->have_dram = r->ndram > 0;
    out->ok = 1;
}
