/* gpu_drm.c - AMD and Intel GPUs with no vendor library: the kernel's own
 * figures. The GPUs are the DRM cards of sysfs whose driver is amdgpu, i915
 * or xe (/sys/class/drm/cardN/device/uevent: DRIVER, PCI_SLOT_NAME); each
 * tracked process's use of them is read from the fdinfo of the GPU device
 * files it holds open (drm_clients.h over drm_fdinfo.h, the kernel's
 * drm-usage-stats), as nvtop does, but for the tree only. amdgpu also gives the whole GPU's memory use
 * and busy percent in sysfs (mem_info_vram_used, gpu_busy_percent), and a
 * ROCm process's compute memory through KFD (kfd.h).
 *
 * Where ROCm SMI already lists the AMD GPUs, this backend leaves them to it
 * (unless the brand asked for is "drm"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/gpu/drm_clients.h"
#include "read/gpu/gpu.h"
#include "read/gpu/kfd.h"

struct drm_state {
    struct drm_clients clients;     /* each device's PCI address and driver */
    char card[GPU_MAX_DEVICES][16]; /* each device's sysfs name, "card0" */
    struct kfd_gpus kfd;            /* the amdgpu devices' KFD ids (ROCm compute) */
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
    v->needs_tree_pids = 1; /* each process's figures are in its fdinfo */
    snprintf(v->accounting_reason, sizeof v->accounting_reason,
             "the kernel's DRM figures keep no record of exited processes");
    snprintf(v->throttle_reason, sizeof v->throttle_reason,
             "the kernel's DRM figures give no throttle reasons");
    snprintf(v->ecc_reason, sizeof v->ecc_reason, "the kernel's DRM figures count no ECC errors");
    snprintf(v->xid_reason, sizeof v->xid_reason, "XID errors are NVIDIA's");
    snprintf(v->energy_reason, sizeof v->energy_reason,
             "the kernel's DRM figures give no energy counter");
    snprintf(v->activity_reason, sizeof v->activity_reason,
             "the kernel's DRM figures give no SM, tensor or DRAM activity");
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
                snprintf(st->clients.pdev[d], DRM_NAME_LEN, "%s", slot);
                snprintf(st->clients.driver[d], DRM_NAME_LEN, "%s", driver);
                st->clients.ndevices = v->ndevices;
                snprintf(st->card[d], sizeof st->card[d], "%.15s", names[i]);
            }
        }
        free(names[i]);
    }
    kfd_gpus_find(&st->kfd, v->sys_root, (const char (*)[DRM_NAME_LEN])st->clients.pdev,
                  v->ndevices);
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
    /* ROCm compute's memory is KFD's, which the fdinfo does not show */
    if (drm_clients_sample(&st->clients, v, 1) < 0 || kfd_sample(&st->kfd, v) < 0) {
        snprintf(v->reason, sizeof v->reason, "out of memory for the GPU clients");
        return -1;
    }
    s->proc_util_ok = 1;
    s->energy_ok = 0;
    return 0;
}

static void drm_release(struct gpu_vendor *v)
{
    struct drm_state *st = v->state;
    if (st)
        drm_clients_free(&st->clients);
}

/* No DRM class directory, no DRM device (a VM or container without one): the
 * vendor, its device table and state (20 KiB zeroed) are not made for it. */
static int drm_present(const char *sys_root)
{
    char classdir[4200];
    snprintf(classdir, sizeof classdir, "%s/class/drm", sys_root);
    return access(classdir, F_OK) == 0;
}

const struct gpu_backend gpu_drm_backend = {
    .brand = "drm",
    .library = NULL,
    .present = drm_present,
    .init = drm_init,
    .sample = drm_sample,
    .shutdown = NULL,
    .release = drm_release,
};
