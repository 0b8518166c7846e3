/* gpu_drm.c - AMD and Intel GPUs with no vendor library: the kernel's own
 * figures. The GPUs are the DRM cards of sysfs whose driver is amdgpu, i915
 * or xe (/sys/class/drm/cardN/device/uevent: DRIVER, PCI_SLOT_NAME); each
 * tracked process's use of them is read from the fdinfo of the GPU device
 * files it holds open (drm_fdinfo.h, the kernel's drm-usage-stats), as nvtop
 * does, but for the tree only. amdgpu also gives the whole GPU's memory use
 * and busy percent in sysfs (mem_info_vram_used, gpu_busy_percent).
 *
 * Where ROCm SMI already lists the AMD GPUs, this backend leaves them to it
 * (unless the brand asked for is "drm"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drm_fdinfo.h"
#include "gpu.h"

/* One client (an open of a GPU's device file) as last read. */
struct drm_client {
    int device;
    unsigned long long client_id;
    unsigned long long at_ns;  /* when it was read (CLOCK_MONOTONIC) */
    int nengines;
    struct drm_engine engines[DRM_MAX_ENGINES];
};

struct drm_state {
    char pdev[GPU_MAX_DEVICES][DRM_NAME_LEN]; /* each device's PCI address */
    char driver[GPU_MAX_DEVICES][DRM_NAME_LEN];
    char card[GPU_MAX_DEVICES][16];           /* its sysfs name, "card0" */
    struct drm_client *prev, *cur;            /* last sample's clients, this one's */
    size_t nprev, ncur, capprev, capcur;
    char *buf;                                /* an fdinfo file */
    size_t bufcap;
};

/* The drivers whose fdinfo follows drm-usage-stats and that run compute
 * work; display-only drivers (virtio, bochs, ast, simpledrm ...) are not
 * GPUs to track. */
static int tracked_driver(const char *driver)
{
    return !strcmp(driver, "amdgpu") || !strcmp(driver, "i915") || !strcmp(driver, "xe");
}

/* Whether the brand asked for keeps driver's GPUs. */
static int brand_keeps(const struct gpu_vendor *v, const char *driver)
{
    int amd = !strcmp(driver, "amdgpu");
    if (!v->brand)
        return !(amd && v->amd_taken);
    if (!strcmp(v->brand, "drm"))
        return 1;
    if (!strcmp(v->brand, "amd"))
        return amd && !v->amd_taken;
    if (!strcmp(v->brand, "intel"))
        return !amd;
    return 0;
}

/* dir/name's first line into out (cap bytes, newline dropped). 0, or -1. */
static int read_line(const char *dir, const char *name, char *out, size_t cap)
{
    char path[4500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int ok = fgets(out, (int)cap, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

static int read_ull(const char *dir, const char *name, unsigned long long *out)
{
    char line[64], *end;
    if (read_line(dir, name, line, sizeof line) < 0)
        return -1;
    *out = strtoull(line, &end, 10);
    return end != line && *end == '\0' ? 0 : -1;
}

/* The DRIVER and PCI_SLOT_NAME of a card's device/uevent. 0, or -1. */
static int card_identity(const char *device_dir, char *driver, char *slot)
{
    char path[4500], line[256];
    snprintf(path, sizeof path, "%s/uevent", device_dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    driver[0] = slot[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strncmp(line, "DRIVER=", 7))
            snprintf(driver, DRM_NAME_LEN, "%.31s", line + 7);
        else if (!strncmp(line, "PCI_SLOT_NAME=", 14))
            snprintf(slot, DRM_NAME_LEN, "%.31s", line + 14);
    }
    fclose(f);
    return driver[0] && slot[0] ? 0 : -1;
}

static int compare_names(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    /* card2 before card10 */
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static int drm_init(struct gpu_vendor *v)
{
    struct drm_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(v->reason, sizeof v->reason, "out of memory");
        return -1;
    }
    v->state = st;
    snprintf(v->accounting_reason, sizeof v->accounting_reason,
             "the kernel's DRM figures keep no record of exited processes");
    snprintf(v->throttle_reason, sizeof v->throttle_reason,
             "the kernel's DRM figures give no throttle reasons");
    snprintf(v->ecc_reason, sizeof v->ecc_reason, "the kernel's DRM figures count no ECC errors");
    snprintf(v->xid_reason, sizeof v->xid_reason, "XID errors are NVIDIA's");
    snprintf(v->energy_reason, sizeof v->energy_reason,
             "the kernel's DRM figures give no energy counter");
    char classdir[4200];
    snprintf(classdir, sizeof classdir, "%s/class/drm", v->sys_root);
    DIR *dir = opendir(classdir);
    if (!dir)
        return 0; /* no DRM at all: no GPU, no failure */
    char *names[256];
    size_t nnames = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && nnames < 256) {
        /* cardN only: not its connectors (card0-DP-1) nor render nodes */
        const char *p = e->d_name;
        if (strncmp(p, "card", 4) != 0 || !p[4] || strspn(p + 4, "0123456789") != strlen(p + 4))
            continue;
        if (!(names[nnames] = strdup(p)))
            break;
        nnames++;
    }
    closedir(dir);
    qsort(names, nnames, sizeof names[0], compare_names);
    for (size_t i = 0; i < nnames; i++) {
        char device_dir[4400], driver[DRM_NAME_LEN], slot[DRM_NAME_LEN];
        snprintf(device_dir, sizeof device_dir, "%s/%s/device", classdir, names[i]);
        if (card_identity(device_dir, driver, slot) == 0 && tracked_driver(driver) &&
            brand_keeps(v, driver)) {
            v->found++;
            if (v->ndevices < v->capacity && v->ndevices < GPU_MAX_DEVICES) {
                int d = v->ndevices++;
                struct gpu_device *dev = &v->devices[d];
                memset(dev, 0, sizeof *dev);
                snprintf(dev->uuid, sizeof dev->uuid, "pci-%s", slot);
                char product[64];
                if (read_line(device_dir, "product_name", product, sizeof product) == 0 && *product)
                    snprintf(dev->name, sizeof dev->name, "%s", product);
                else
                    snprintf(dev->name, sizeof dev->name, "%s GPU %s", driver, slot);
                unsigned long long total = 0;
                if (read_ull(device_dir, "mem_info_vram_total", &total) == 0)
                    dev->memory_total = total;
                dev->minor = -1;
                snprintf(st->pdev[d], sizeof st->pdev[d], "%s", slot);
                snprintf(st->driver[d], sizeof st->driver[d], "%s", driver);
                snprintf(st->card[d], sizeof st->card[d], "%.15s", names[i]);
            }
        }
        free(names[i]);
    }
    return 0;
}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* The device of a client: by its PCI address, or the only device of its
 * driver when the file names none. -1: not one of ours. */
static int device_of(const struct gpu_vendor *v, const struct drm_state *st,
                     const struct drm_fdinfo *info)
{
    int only = -1, count = 0;
    for (int d = 0; d < v->ndevices; d++) {
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

/* The file's whole text into st->buf. Its length, or -1. */
static long read_fdinfo(struct drm_state *st, int dirfd_, const char *name)
{
    int fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    for (;;) {
        if (len + 1024 > st->bufcap) {
            if (st->bufcap >= (1u << 20)) /* an fdinfo is a few hundred bytes */
                break;
            size_t ncap = st->bufcap ? st->bufcap * 2 : 4096;
            char *p = realloc(st->buf, ncap);
            if (!p)
                break;
            st->buf = p;
            st->bufcap = ncap;
        }
        ssize_t n = read(fd, st->buf + len, st->bufcap - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    return (long)len;
}

/* Adds process pid's GPU clients to v->procs and st->cur. 0, or -1 when out
 * of memory. */
static int read_process(struct gpu_vendor *v, struct drm_state *st, pid_t pid,
                        unsigned long long at)
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
        unsigned long long bytes = info.has_local ? info.local_bytes : info.system_bytes;
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

static int drm_sample(struct gpu_vendor *v, struct gpu_sample *s)
{
    struct drm_state *st = v->state;
    for (int d = 0; d < v->ndevices; d++) {
        char device_dir[4400];
        snprintf(device_dir, sizeof device_dir, "%s/class/drm/%s/device", v->sys_root, st->card[d]);
        unsigned long long used = 0, busy = 0;
        if (read_ull(device_dir, "mem_info_vram_used", &used) == 0) {
            s->device_memory_used[d] = used;
            s->memory_used += used;
        }
        s->device_util[d] = -1;
        if (read_ull(device_dir, "gpu_busy_percent", &busy) == 0 && busy <= 100) {
            s->device_util[d] = (double)busy;
            if (v->devices[d].selected)
                s->util_sum_percent += (double)busy;
        }
    }
    unsigned long long at = now_ns();
    st->ncur = 0;
    for (size_t i = 0; i < v->ntree_pids; i++)
        if (read_process(v, st, v->tree_pids[i], at) < 0) {
            snprintf(v->reason, sizeof v->reason, "out of memory for the GPU clients");
            return -1;
        }
    /* this sample's clients are the next one's earlier readings */
    struct drm_client *tmp = st->prev;
    size_t tcap = st->capprev;
    st->prev = st->cur;
    st->nprev = st->ncur;
    st->capprev = st->capcur;
    st->cur = tmp;
    st->capcur = tcap;
    st->ncur = 0;
    s->proc_util_ok = 1;
    s->energy_ok = 0;
    return 0;
}

static void drm_release(struct gpu_vendor *v)
{
    struct drm_state *st = v->state;
    if (!st)
        return;
    free(st->prev);
    free(st->cur);
    free(st->buf);
}

const struct gpu_backend gpu_drm_backend = {
    .brand = "drm",
    .library = NULL,
    .needs_tree_pids = 1,
    .init = drm_init,
    .sample = drm_sample,
    .shutdown = NULL,
    .release = drm_release,
};
