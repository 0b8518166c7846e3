/* gpu.c - choosing, loading and sampling a GPU backend; UUID selection. */
#define _GNU_SOURCE
#include "gpu.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gpu_backend *const backends[] = {&gpu_nvml_backend, &gpu_rsmi_backend};

static int reserve_procs(struct gpu *g, size_t n)
{
    if (n <= g->capprocs)
        return 0;
    size_t ncap = n < 64 ? 64 : n * 2;
    struct gpu_process *p = realloc(g->procs, ncap * sizeof *p);
    if (!p)
        return -1;
    g->procs = p;
    g->capprocs = ncap;
    return 0;
}

int gpu_add_process(struct gpu *g, pid_t pid, int device, unsigned long long bytes,
                    double sm_percent)
{
    unsigned long long bit = device >= 0 && device < 64 ? 1ULL << device : 0;
    struct gpu_process *p = NULL;
    for (size_t i = 0; i < g->nprocs && !p; i++)
        if (g->procs[i].pid == pid)
            p = &g->procs[i];
    if (!p) {
        if (reserve_procs(g, g->nprocs + 1) < 0)
            return -1;
        p = &g->procs[g->nprocs++];
        memset(p, 0, sizeof *p);
        p->pid = pid;
    }
    p->bytes += bytes;
    p->sm_percent += sm_percent;
    if (bytes > 0)
        p->memory_devices |= bit;
    if (sm_percent > 0)
        p->busy_devices |= bit;
    return 0;
}

/* Marks the devices named in uuids; GPU_BAD_UUIDS when one is unknown or
 * the list is empty, with the available UUIDs in err. */
static enum gpu_open_result select_devices(struct gpu *g, const char *uuids, char *err,
                                           size_t errcap)
{
    for (int i = 0; i < g->ndevices; i++)
        g->devices[i].selected = uuids == NULL;
    g->nselected = uuids == NULL ? g->ndevices : 0;
    if (!uuids)
        return GPU_AVAILABLE;

    char available[1024] = "";
    for (int i = 0; i < g->ndevices; i++) {
        size_t used = strlen(available);
        snprintf(available + used, sizeof available - used, "%s%s", i ? ", " : "",
                 g->devices[i].uuid);
    }
    if (!*available)
        snprintf(available, sizeof available, "none");
    char *copy = strdup(uuids);
    if (!copy) {
        snprintf(err, errcap, "out of memory");
        return GPU_BAD_UUIDS;
    }
    int named = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len > 0 && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (!len)
            continue;
        named++;
        int found = 0;
        for (int i = 0; i < g->ndevices; i++)
            if (strcmp(g->devices[i].uuid, tok) == 0) {
                found = 1;
                if (!g->devices[i].selected)
                    g->nselected++;
                g->devices[i].selected = 1;
            }
        if (!found) {
            snprintf(err, errcap, "unknown GPU UUID '%s'; available GPUs: %s", tok, available);
            free(copy);
            return GPU_BAD_UUIDS;
        }
    }
    free(copy);
    if (!named) {
        snprintf(err, errcap, "no GPU UUID given; available GPUs: %s", available);
        return GPU_BAD_UUIDS;
    }
    return GPU_AVAILABLE;
}

enum gpu_open_result gpu_open(struct gpu *g, const char *brand, const char *uuids, char *err,
                              size_t errcap)
{
    char tried[200] = "", failure[256] = "";
    memset(g, 0, sizeof *g);
    /* NVIDIA first, then AMD; a library that loads but cannot start (no
     * driver, no GPU) does not stop us from trying the next one. */
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const struct gpu_backend *b = backends[i];
        if (brand && strcmp(brand, b->brand) != 0)
            continue;
        const char *file = getenv(b->env);
        if (!file || !*file)
            file = b->library;
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%.80s", used ? ", " : "", file);
        void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            continue;
        memset(g, 0, sizeof *g);
        g->lib = lib;
        g->backend = b;
        int ok = b->init(g) == 0;
        if (ok && g->ndevices > 0)
            break;
        if (!*failure) {
            if (ok)
                snprintf(failure, sizeof failure, "%.200s found no GPU", file);
            else
                snprintf(failure, sizeof failure, "%s", g->reason);
        }
        gpu_close(g);
        memset(g, 0, sizeof *g);
    }
    if (g->backend) {
        enum gpu_open_result r = select_devices(g, uuids, err, errcap);
        if (r != GPU_AVAILABLE)
            gpu_close(g);
        return r;
    }
    if (*failure)
        snprintf(g->reason, sizeof g->reason, "%s", failure);
    else
        snprintf(g->reason, sizeof g->reason, "no GPU library found (tried %s)", tried);
    /* With no GPU, any UUID named is unknown: select_devices says which. */
    return uuids ? select_devices(g, uuids, err, errcap) : GPU_UNAVAILABLE;
}

int gpu_sample(struct gpu *g, struct gpu_sample *s)
{
    memset(s, 0, sizeof *s);
    if (!g->backend)
        return -1;
    g->nprocs = 0;
    if (g->backend->sample(g, s) < 0)
        return -1;
    s->procs = g->procs;
    s->nprocs = g->nprocs;
    return 0;
}

void gpu_close(struct gpu *g)
{
    if (g->backend && g->backend->shutdown)
        g->backend->shutdown(g);
    if (g->lib)
        dlclose(g->lib);
    gpu_forget(g);
}

void gpu_forget(struct gpu *g)
{
    if (g->backend && g->backend->release)
        g->backend->release(g);
    free(g->procs);
    free(g->state);
    g->backend = NULL;
    g->lib = NULL;
    g->procs = NULL;
    g->state = NULL;
    g->nprocs = g->capprocs = 0;
}
