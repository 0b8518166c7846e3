/* drm_clients.c - see drm_clients.h. */
#define _GNU_SOURCE
#include "read/gpu/drm_clients.h"
#include "read/gpu/gpu_lists.h"
#include "common/file_read.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct drm_client {
    int device;
    unsigned long long client_id;
    unsigned long long at_ns;  /* when it was read (CLOCK_MONOTONIC) */
    int nengines;
    struct drm_engine engines[DRM_MAX_ENGINES];
};

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* The device of a client: by its PCI address, or the only device of its
 * driver when the file names none. -1: not one of ours. */
static int device_of(const struct gpu_vendor *v, const struct drm_clients *st,
                     const struct drm_fdinfo *info)
{
    int only = -1, count = 0;
    for (int d = 0; d < st->ndevices && d < v->ndevices; d++) {
        if (info->pdev[0] && !strcmp(st->pdev[d], info->pdev))
            return d;
        if (!strcmp(st->driver[d], info->driver)) {
            only = d;
            count++;
        }
    }
    return !info->pdev[0] && count == 1 ? only : -1;
}

static const struct drm_client *find_client(const struct drm_client *list, size_t n, int device,
                                            unsigned long long id)
{
    for (size_t i = 0; i < n; i++)
        if (list[i].device == device && list[i].client_id == id)
            return &list[i];
    return NULL;
}

/* The file's whole text into st->buf (an fdinfo is a few hundred bytes;
 * at most 1 MiB is read). Its length, or -1. */
static long read_fdinfo(struct drm_clients *st, int dirfd_, const char *name)
{
    int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    int rc = file_pread_grow(fd, &st->buf, &st->bufcap, 1u << 20, &len);
    close(fd);
    return rc < 0 ? -1 : (long)len;
}

/* Adds process pid's GPU clients to v->procs and st->cur. 0, or -1 when out
 * of memory. */
static int read_process(struct gpu_vendor *v, struct drm_clients *st, pid_t pid,
                        unsigned long long at, int with_memory)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%d/fd", v->proc_root, (int)pid);
    DIR *fds = opendir(path);
    if (!fds)
        return 0; /* gone, or not ours to read */
    snprintf(path, sizeof path, "%s/%d/fdinfo", v->proc_root, (int)pid);
    int infodir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent *e;
    while (infodir >= 0 && (e = readdir(fds)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char target[64];
        ssize_t n = readlinkat(dirfd(fds), e->d_name, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strncmp(target, "/dev/dri/", 9) != 0)
            continue; /* only GPU device files have DRM figures */
        long len = read_fdinfo(st, infodir, e->d_name);
        struct drm_fdinfo info;
        if (len <= 0 || !drm_fdinfo_parse(st->buf, (size_t)len, &info) || !info.has_client_id)
            continue;
        int d = device_of(v, st, &info);
        /* a client shared by several fds (dup, fork) counts once */
        if (d < 0 || find_client(st->cur, st->ncur, d, info.client_id))
            continue;
        if (st->ncur == st->capcur) {
            size_t ncap = st->capcur ? st->capcur * 2 : 16;
            struct drm_client *p = realloc(st->cur, ncap * sizeof *p);
            if (!p) {
                close(infodir);
                closedir(fds);
                return -1;
            }
            st->cur = p;
            st->capcur = ncap;
        }
        struct drm_client *c = &st->cur[st->ncur++];
        c->device = d;
        c->client_id = info.client_id;
        c->at_ns = at;
        c->nengines = info.nengines;
        memcpy(c->engines, info.engines, sizeof c->engines);
        /* Its busiest engine since the last sample (none the first time). */
        double pct = 0;
        const struct drm_client *before = find_client(st->prev, st->nprev, d, info.client_id);
        for (int k = 0; before && k < info.nengines; k++)
            for (int j = 0; j < before->nengines; j++)
                if (!strcmp(before->engines[j].name, info.engines[k].name)) {
                    double p = drm_engine_percent(&before->engines[j], &info.engines[k],
                                                  at - before->at_ns);
                    if (p > pct)
                        pct = p;
                }
        unsigned long long bytes =
            !with_memory ? 0 : info.has_local ? info.local_bytes : info.system_bytes;
        if (gpu_add_process(v, pid, d, bytes, pct) < 0) {
            close(infodir);
            closedir(fds);
            return -1;
        }
    }
    if (infodir >= 0)
        close(infodir);
    closedir(fds);
    return 0;
}


int drm_clients_sample(struct drm_clients *st, struct gpu_vendor *v, int with_memory)
{
    unsigned long long at = now_ns();
    st->ncur = 0;
    for (size_t i = 0; i < v->ntree_pids; i++)
        if (read_process(v, st, v->tree_pids[i], at, with_memory) < 0)
            return -1;
    /* this sample's clients are the next one's earlier readings */
    struct drm_client *tmp = st->prev;
    size_t tcap = st->capprev;
    st->prev = st->cur;
    st->nprev = st->ncur;
    st->capprev = st->capcur;
    st->cur = tmp;
    st->capcur = tcap;
    st->ncur = 0;
    return 0;
}

void drm_clients_free(struct drm_clients *c)
{
    free(c->prev);
    free(c->cur);
    free(c->buf);
    c->prev = c->cur = NULL;
    c->buf = NULL;
    c->nprev = c->ncur = c->capprev = c->capcur = c->bufcap = 0;
}
