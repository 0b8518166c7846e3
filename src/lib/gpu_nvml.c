/* gpu_nvml.c - NVIDIA GPUs through NVML (libnvidia-ml.so.1), declared here
 * by hand from NVIDIA's documented API so that nothing of the vendor is
 * needed to build, and loaded with dlopen at run time. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

/* The part of nvml.h we use. */
typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFULL
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct { /* nvmlProcessInfo_t of the _v2/_v3 process queries */
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;
typedef nvmlReturn_t (*process_query_fn)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);

struct nvml {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);             /* optional */
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);       /* optional */
    process_query_fn compute, graphics;                                  /* optional */
    nvmlDevice_t devices[GPU_MAX_DEVICES];
    nvmlProcessInfo_t *infos;
    unsigned int capinfos;
};

static const char *nvml_error(struct nvml *n, nvmlReturn_t rc)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    return s ? s : "unknown error";
}

/* The first symbol of names that the library exports, or NULL. */
static void *symbol(void *lib, const char *const *names)
{
    for (; *names; names++) {
        void *p = dlsym(lib, *names);
        if (p)
            return p;
    }
    return NULL;
}

#define SYMBOLS(...) ((const char *const[]){__VA_ARGS__, NULL})

static int nvml_init(struct gpu *g)
{
    struct nvml *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(g->reason, sizeof g->reason, "out of memory");
        return -1;
    }
    g->state = n;
    *(void **)&n->init = symbol(g->lib, SYMBOLS("nvmlInit_v2", "nvmlInit"));
    *(void **)&n->shutdown = symbol(g->lib, SYMBOLS("nvmlShutdown"));
    *(void **)&n->error_string = symbol(g->lib, SYMBOLS("nvmlErrorString"));
    *(void **)&n->count = symbol(g->lib, SYMBOLS("nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"));
    *(void **)&n->handle = symbol(g->lib, SYMBOLS("nvmlDeviceGetHandleByIndex_v2",
                                                  "nvmlDeviceGetHandleByIndex"));
    *(void **)&n->uuid = symbol(g->lib, SYMBOLS("nvmlDeviceGetUUID"));
    *(void **)&n->name = symbol(g->lib, SYMBOLS("nvmlDeviceGetName"));
    *(void **)&n->memory = symbol(g->lib, SYMBOLS("nvmlDeviceGetMemoryInfo"));
    *(void **)&n->utilization = symbol(g->lib, SYMBOLS("nvmlDeviceGetUtilizationRates"));
    *(void **)&n->compute = symbol(g->lib, SYMBOLS("nvmlDeviceGetComputeRunningProcesses_v3",
                                                   "nvmlDeviceGetComputeRunningProcesses_v2"));
    *(void **)&n->graphics = symbol(g->lib, SYMBOLS("nvmlDeviceGetGraphicsRunningProcesses_v3",
                                                    "nvmlDeviceGetGraphicsRunningProcesses_v2"));
    if (!n->init || !n->shutdown || !n->count || !n->handle || !n->uuid || !n->memory) {
        snprintf(g->reason, sizeof g->reason,
                 "the NVML library lacks nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetUUID or "
                 "nvmlDeviceGetMemoryInfo");
        n->shutdown = NULL;
        return -1;
    }
    nvmlReturn_t rc = n->init();
    if (rc != NVML_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "NVML could not start: %s", nvml_error(n, rc));
        n->shutdown = NULL; /* nothing to shut down */
        return -1;
    }
    unsigned int count = 0;
    if ((rc = n->count(&count)) != NVML_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "NVML cannot count GPUs: %s", nvml_error(n, rc));
        return -1;
    }
    if (count > GPU_MAX_DEVICES)
        count = GPU_MAX_DEVICES;
    for (unsigned int i = 0; i < count; i++) {
        struct gpu_device *d = &g->devices[i];
        nvmlMemory_t mem;
        if ((rc = n->handle(i, &n->devices[i])) != NVML_SUCCESS ||
            (rc = n->uuid(n->devices[i], d->uuid, sizeof d->uuid)) != NVML_SUCCESS ||
            (rc = n->memory(n->devices[i], &mem)) != NVML_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "NVML cannot read GPU %u: %s", i,
                     nvml_error(n, rc));
            return -1;
        }
        if (!n->name || n->name(n->devices[i], d->name, sizeof d->name) != NVML_SUCCESS)
            snprintf(d->name, sizeof d->name, "unknown");
        d->memory_total = mem.total;
    }
    g->ndevices = (int)count;
    return 0;
}

/* Adds the processes of one query of one device to g->procs. A buffer that
 * is too small is grown to the size NVML asks for, and the query repeated. */
static int add_processes(struct gpu *g, struct nvml *n, process_query_fn query, nvmlDevice_t dev)
{
    if (!query)
        return 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        unsigned int count = n->capinfos;
        nvmlReturn_t rc = query(dev, &count, n->infos);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
            unsigned int want = count > n->capinfos ? count + 16 : n->capinfos * 2 + 16;
            nvmlProcessInfo_t *p = realloc(n->infos, want * sizeof *p);
            if (!p)
                return -1;
            n->infos = p;
            n->capinfos = want;
            continue;
        }
        if (rc == NVML_ERROR_NOT_SUPPORTED)
            return 0;
        if (rc != NVML_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "NVML cannot list GPU processes: %s",
                     nvml_error(n, rc));
            return -1;
        }
        for (unsigned int i = 0; i < count && i < n->capinfos; i++) {
            unsigned long long bytes = n->infos[i].usedGpuMemory;
            if (bytes == NVML_VALUE_NOT_AVAILABLE)
                bytes = 0; /* e.g. MIG without permission: present, size unknown */
            if (gpu_add_process(g, (pid_t)n->infos[i].pid, bytes) < 0)
                return -1;
        }
        return 0;
    }
    return 0; /* the list kept growing between calls: count it next time */
}

static int nvml_sample(struct gpu *g, struct gpu_sample *s)
{
    struct nvml *n = g->state;
    for (int i = 0; i < g->ndevices; i++) {
        nvmlDevice_t dev = n->devices[i];
        nvmlMemory_t mem;
        nvmlReturn_t rc = n->memory(dev, &mem);
        if (rc != NVML_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "NVML cannot read GPU %d memory: %s", i,
                     nvml_error(n, rc));
            return -1;
        }
        s->memory_used += mem.used;
        nvmlUtilization_t util;
        if (g->devices[i].selected && n->utilization && n->utilization(dev, &util) == NVML_SUCCESS)
            s->util_sum_percent += util.gpu;
        if (add_processes(g, n, n->compute, dev) < 0 || add_processes(g, n, n->graphics, dev) < 0)
            return -1;
    }
    return 0;
}

static void nvml_shutdown(struct gpu *g)
{
    struct nvml *n = g->state;
    if (!n)
        return;
    if (n->shutdown)
        n->shutdown();
    free(n->infos);
}

const struct gpu_backend gpu_nvml_backend = {
    .brand = "nvidia",
    .library = "libnvidia-ml.so.1",
    .env = "GPU_TRACKER_NVML_LIBRARY",
    .init = nvml_init,
    .sample = nvml_sample,
    .shutdown = nvml_shutdown,
};
