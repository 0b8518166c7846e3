/* kfd.c - see kfd.h. */
#define _GNU_SOURCE
#include "read/gpu/kfd.h"
#include "read/gpu/gpu_lists.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* dir/name's first line as an unsigned number (decimal). 0, or -1. */
static int read_number(const char *dir, const char *name, unsigned long long *out)
{
    char path[4800], line[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char *end;
    if (!ok || line[0] < '0' || line[0] > '9')
        return -1;
    *out = strtoull(line, &end, 10);
    return *end == '\n' || *end == '\0' ? 0 : -1;
}

/* A node's PCI address from its properties ("domain D", "location_id L"),
 * in drm-pdev's form. 0, or -1 when it has none. */
static int node_pdev(const char *node_dir, char *out, size_t cap)
{
    char path[4800], line[128];
    snprintf(path, sizeof path, "%s/properties", node_dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    unsigned long long domain = 0, location = 0;
    int have = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (sscanf(line, "domain %llu", &v) == 1)
            domain = v;
        else if (sscanf(line, "location_id %llu", &v) == 1) {
            location = v;
            have = 1;
        }
    }
    fclose(f);
    if (!have)
        return -1;
    snprintf(out, cap, "%04llx:%02llx:%02llx.%llx", domain & 0xffff, (location >> 8) & 0xff,
             (location >> 3) & 0x1f, location & 0x7);
    return 0;
}

void kfd_gpus_find(struct kfd_gpus *k, const char *sys_root, const char (*pdev)[DRM_NAME_LEN],
                   int ndevices)
{
    memset(k, 0, sizeof *k);
    char nodes[4400];
    snprintf(nodes, sizeof nodes, "%s/class/kfd/kfd/topology/nodes", sys_root);
    DIR *d = opendir(nodes);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && k->n < GPU_MAX_DEVICES) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char node_dir[4700], where[DRM_NAME_LEN];
        snprintf(node_dir, sizeof node_dir, "%s/%s", nodes, e->d_name);
        unsigned long long id = 0;
        if (read_number(node_dir, "gpu_id", &id) < 0 || id == 0 ||
            node_pdev(node_dir, where, sizeof where) < 0)
            continue; /* a CPU node, or one we cannot place */
        for (int i = 0; i < ndevices; i++)
            if (!strcmp(pdev[i], where)) {
                k->gpu_id[k->n] = (unsigned long)id;
                k->device[k->n++] = i;
                break;
            }
    }
    if (d)
        closedir(d);
}

int kfd_sample(const struct kfd_gpus *k, struct gpu_vendor *v)
{
    for (size_t i = 0; k->n > 0 && i < v->ntree_pids; i++) {
        char dir[4400];
        snprintf(dir, sizeof dir, "%s/class/kfd/kfd/proc/%d", v->sys_root, (int)v->tree_pids[i]);
        if (k->n > 1 && access(dir, F_OK) != 0)
            continue; /* not a ROCm process: one lookup, not one per GPU */
        unsigned long long total = 0, devices = 0;
        for (int g = 0; g < k->n; g++) {
            char name[48];
            unsigned long long bytes = 0;
            snprintf(name, sizeof name, "vram_%lu", k->gpu_id[g]);
            if (read_number(dir, name, &bytes) < 0 || bytes == 0)
                continue; /* not a ROCm process, or none on this GPU */
            total += bytes;
            if (k->device[g] < 64)
                devices |= 1ULL << k->device[g];
        }
        if (!total)
            continue;
        struct gpu_process *p = gpu_process_entry(&v->procs, &v->nprocs, &v->capprocs,
                                                  v->tree_pids[i]);
        if (!p)
            return -1;
        if (total > p->bytes)
            p->bytes = total;
        p->memory_devices |= devices;
    }
    return 0;
}
