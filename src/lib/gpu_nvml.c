/* gpu_nvml.c - NVIDIA GPUs through NVML (libnvidia-ml.so.1), declared here
 * by hand from NVIDIA's documented API so that nothing of the vendor is
 * needed to build, and loaded with dlopen at run time. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "background.h"
#include "dl_bind.h"
#include "gpu.h"

/* The part of nvml.h we use. */
typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
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
typedef struct {
    unsigned int pid;
    unsigned long long timeStamp; /* microseconds */
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;
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
    nvmlReturn_t (*process_utilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                        unsigned int *, unsigned long long); /* optional */
    nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);          /* optional, mJ */
    nvmlDevice_t devices[GPU_MAX_DEVICES];
    nvmlProcessInfo_t *infos;
    unsigned int capinfos;
    nvmlProcessUtilizationSample_t *util_samples;
    unsigned int cap_util_samples;
    unsigned long long last_seen[GPU_MAX_DEVICES]; /* newest utilization sample read */
    unsigned long long energy_base[GPU_MAX_DEVICES];
    /* nvmlDeviceGetTotalEnergyConsumption costs about 4 ms of CPU a call
     * (an H100, driver 580): the counter is read at most every
     * NVML_ENERGY_PERIOD seconds, and at the baseline and the final sample
     * (g->exact), where the run's energy is taken. */
    unsigned long long energy_last[GPU_MAX_DEVICES];
    double energy_read_at; /* monotonic; 0: never */
};

#define NVML_ENERGY_PERIOD 10.0

static const char *nvml_error(struct nvml *n, nvmlReturn_t rc)
{
    const char *s = n->error_string ? n->error_string(rc) : NULL;
    return s ? s : "unknown error";
}

#define NVML_FN(field, required, ...) \
    {offsetof(struct nvml, field), DL_NAMES(__VA_ARGS__), required}
static const struct dl_symbol nvml_symbols[] = {
    NVML_FN(init, 1, "nvmlInit_v2", "nvmlInit"),
    NVML_FN(shutdown, 1, "nvmlShutdown"),
    NVML_FN(error_string, 0, "nvmlErrorString"),
    NVML_FN(count, 1, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
    NVML_FN(handle, 1, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"),
    NVML_FN(uuid, 1, "nvmlDeviceGetUUID"),
    NVML_FN(name, 0, "nvmlDeviceGetName"),
    NVML_FN(memory, 1, "nvmlDeviceGetMemoryInfo"),
    NVML_FN(utilization, 0, "nvmlDeviceGetUtilizationRates"),
    NVML_FN(compute, 0, "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses_v2"),
    NVML_FN(graphics, 0, "nvmlDeviceGetGraphicsRunningProcesses_v3",
            "nvmlDeviceGetGraphicsRunningProcesses_v2"),
    NVML_FN(process_utilization, 0, "nvmlDeviceGetProcessUtilization"),
    NVML_FN(energy, 0, "nvmlDeviceGetTotalEnergyConsumption"),
    {0, NULL, 0},
};

static int nvml_init(struct gpu_vendor *g)
{
    struct nvml *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(g->reason, sizeof g->reason, "out of memory");
        return -1;
    }
    g->state = n;
    int missing = dl_bind(g->lib, nvml_symbols, n, NULL);
    if (!n->compute && !n->graphics)
        snprintf(g->proc_memory_reason, sizeof g->proc_memory_reason,
                 "the NVML library cannot list GPU processes");
    if (!n->process_utilization)
        snprintf(g->proc_util_reason, sizeof g->proc_util_reason,
                 "the NVML library has no nvmlDeviceGetProcessUtilization");
    if (!n->energy)
        snprintf(g->energy_reason, sizeof g->energy_reason,
                 "the NVML library has no nvmlDeviceGetTotalEnergyConsumption");
    if (missing) {
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
    g->found = (int)(count > 1000000u ? 1000000u : count); /* a sane bound for an int */
    if (count > (unsigned)g->capacity)
        count = (unsigned)g->capacity;
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
        if (n->energy && !*g->energy_reason &&
            (rc = n->energy(n->devices[i], &n->energy_base[i])) != NVML_SUCCESS)
            snprintf(g->energy_reason, sizeof g->energy_reason,
                     "GPU %u does not report its energy: %s", i, nvml_error(n, rc));
        n->energy_last[i] = n->energy_base[i];
    }
    g->ndevices = (int)count;
    return 0;
}

/* Adds the processes of one query of one device to g->procs. A buffer that
 * is too small is grown to the size NVML asks for, and the query repeated. */
static int add_processes(struct gpu_vendor *g, struct nvml *n, process_query_fn query, int dev_index)
{
    if (!query)
        return 0;
    nvmlDevice_t dev = n->devices[dev_index];
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
            if (bytes == NVML_VALUE_NOT_AVAILABLE) {
                /* e.g. MIG, or no permission: the process is there, its size not */
                bytes = 0;
                if (!*g->proc_memory_reason)
                    snprintf(g->proc_memory_reason, sizeof g->proc_memory_reason,
                             "the driver does not report the GPU memory of each process "
                             "(MIG, or no permission)");
            }
            if (gpu_add_process(g, (pid_t)n->infos[i].pid, dev_index, bytes, 0.0) < 0)
                return -1;
        }
        return 0;
    }
    return 0; /* the list kept growing between calls: count it next time */
}

/* Adds each process's SM utilization on one device: its newest sample since
 * the last call. 0 when there is none (nothing ran) or the call is not
 * supported (the reason is kept); -1 when out of memory. */
static int add_process_utilization(struct gpu_vendor *g, struct nvml *n, int dev_index)
{
    if (!n->process_utilization || *g->proc_util_reason)
        return 0;
    nvmlDevice_t dev = n->devices[dev_index];
    unsigned int count = 0;
    nvmlReturn_t rc = n->process_utilization(dev, NULL, &count, n->last_seen[dev_index]);
    if (rc == NVML_ERROR_NOT_FOUND)
        return 0; /* no process sample newer than the last one */
    if (rc != NVML_SUCCESS && rc != NVML_ERROR_INSUFFICIENT_SIZE) {
        snprintf(g->proc_util_reason, sizeof g->proc_util_reason,
                 "the driver does not report per-process GPU utilization: %s", nvml_error(n, rc));
        return 0;
    }
    if (count > n->cap_util_samples) {
        nvmlProcessUtilizationSample_t *p = realloc(n->util_samples, (count + 16) * sizeof *p);
        if (!p)
            return -1;
        n->util_samples = p;
        n->cap_util_samples = count + 16;
    }
    count = n->cap_util_samples;
    rc = n->process_utilization(dev, n->util_samples, &count, n->last_seen[dev_index]);
    if (rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_INSUFFICIENT_SIZE)
        return 0; /* none, or more came meanwhile: next time */
    if (rc != NVML_SUCCESS) {
        snprintf(g->proc_util_reason, sizeof g->proc_util_reason,
                 "the driver does not report per-process GPU utilization: %s", nvml_error(n, rc));
        return 0;
    }
    unsigned long long newest = n->last_seen[dev_index];
    for (unsigned int i = 0; i < count && i < n->cap_util_samples; i++) {
        const nvmlProcessUtilizationSample_t *s = &n->util_samples[i];
        /* Only a process's newest sample counts. */
        int latest = 1;
        for (unsigned int j = 0; j < count && latest; j++)
            latest = !(n->util_samples[j].pid == s->pid && n->util_samples[j].timeStamp > s->timeStamp);
        if (latest && gpu_add_process(g, (pid_t)s->pid, dev_index, 0, (double)s->smUtil) < 0)
            return -1;
        if (s->timeStamp > newest)
            newest = s->timeStamp;
    }
    n->last_seen[dev_index] = newest;
    return 0;
}

static int nvml_sample(struct gpu_vendor *g, struct gpu_sample *s)
{
    struct nvml *n = g->state;
    double now = monotonic_now();
    int read_energy = g->exact || n->energy_read_at == 0 ||
                      now - n->energy_read_at >= NVML_ENERGY_PERIOD;
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
        s->device_memory_used[i] = mem.used;
        nvmlUtilization_t util;
        s->device_util[i] = -1;
        if (n->utilization && n->utilization(dev, &util) == NVML_SUCCESS) {
            s->device_util[i] = util.gpu;
            if (g->devices[i].selected)
                s->util_sum_percent += util.gpu;
        }
        if (add_processes(g, n, n->compute, i) < 0 || add_processes(g, n, n->graphics, i) < 0 ||
            add_process_utilization(g, n, i) < 0)
            return -1;
        if (g->devices[i].selected && n->energy && !*g->energy_reason) {
            if (read_energy && (rc = n->energy(dev, &n->energy_last[i])) != NVML_SUCCESS)
                snprintf(g->energy_reason, sizeof g->energy_reason,
                         "GPU %d does not report its energy: %s", i, nvml_error(n, rc));
            unsigned long long mj = n->energy_last[i];
            s->energy_mj += mj >= n->energy_base[i] ? mj - n->energy_base[i] : 0;
        }
    }
    if (read_energy)
        n->energy_read_at = now;
    s->proc_util_ok = !*g->proc_util_reason;
    s->energy_ok = !*g->energy_reason;
    return 0;
}

static void nvml_shutdown(struct gpu_vendor *g)
{
    struct nvml *n = g->state;
    if (n && n->shutdown)
        n->shutdown();
}

static void nvml_release(struct gpu_vendor *g)
{
    struct nvml *n = g->state;
    if (!n)
        return;
    free(n->infos);
    free(n->util_samples);
}

const struct gpu_backend gpu_nvml_backend = {
    .brand = "nvidia",
    .library = "libnvidia-ml.so.1",
    .init = nvml_init,
    .sample = nvml_sample,
    .shutdown = nvml_shutdown,
    .release = nvml_release,
};
