/* gpu.c - choosing, loading and sampling a GPU backend; UUID selection. */
#define _GNU_SOURCE
#include "gpu.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gpu_backend *const backends[] = {&gpu_nvml_backend};

int gpu_reserve_procs(struct gpu *g, size_t n)
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

int gpu_add_process(struct gpu *g, pid_t pid, unsigned long long bytes, double sm_percent)
{
    for (size_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].pid == pid) {
            g->procs[i].bytes += bytes;
            g->procs[i].sm_percent += sm_percent;
            return 0;
        }
    if (gpu_reserve_procs(g, g->nprocs + 1) < 0)
        return -1;
    g->procs[g->nprocs].pid = pid;
    g->procs[g->nprocs].bytes = bytes;
    g->procs[g->nprocs].sm_percent = sm_percent;
    g->nprocs++;
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
    memset(g, 0, sizeof *g);
    char tried[160] = "";
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const struct gpu_backend *b = backends[i];
        if (brand && strcmp(brand, b->brand) != 0)
            continue;
        const char *file = getenv(b->env);
        if (!file || !*file)
            file = b->library;
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "", file);
        g->lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!g->lib)
            continue;
        g->backend = b;
        if (b->init(g) < 0) {
            dlclose(g->lib);
            g->lib = NULL;
            g->backend = NULL;
            break; /* the vendor's library is there but unusable: say why */
        }
        if (g->ndevices == 0) {
            snprintf(g->reason, sizeof g->reason, "%.200s found no GPU", file);
            gpu_close(g);
            break;
        }
        enum gpu_open_result r = select_devices(g, uuids, err, errcap);
        if (r != GPU_AVAILABLE)
            gpu_close(g);
        return r;
    }
    if (!*g->reason) {
        if (brand && strcmp(brand, "amd") == 0)
            snprintf(g->reason, sizeof g->reason,
                     "AMD GPUs (ROCm SMI) are not supported by this version yet");
        else
            snprintf(g->reason, sizeof g->reason,
                     "no GPU library found (tried %.150s; AMD's librocm_smi64.so is not supported "
                     "by this version yet)", tried);
    }
    if (uuids)
        return select_devices(g, uuids, err, errcap) == GPU_AVAILABLE ? GPU_UNAVAILABLE
                                                                     : GPU_BAD_UUIDS;
    return GPU_UNAVAILABLE;
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
    free(g->procs);
    free(g->state);
    g->backend = NULL;
    g->lib = NULL;
    g->procs = NULL;
    g->state = NULL;
    g->nprocs = g->capprocs = 0;
}
