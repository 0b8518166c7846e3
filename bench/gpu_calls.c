/* gpu_calls.c - gt-bench-gpu-calls: what each NVML call gpu-tracker makes
 * costs, one by one, on this machine's driver, beside how often a tracked
 * run makes it (docs/performance.md, "What each reader costs").
 *
 * usage: gt-bench-gpu-calls [CALLS_EACH]
 * The library is GPU_TRACKER_NVML_LIBRARY when set (the fake one of the
 * tests, say), else libnvidia-ml.so.1, loaded with dlopen as the tracker
 * loads it. Each call is made CALLS_EACH times (default 50) on GPU 0; CPU
 * is the whole process's (the driver may work in threads of its own), wall
 * the elapsed time, both per call. Then the same for ROCm SMI
 * (GPU_TRACKER_RSMI_LIBRARY, else librocm_smi64.so). Prints "not measured:
 * REASON" and exits 0 where a library is not there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef int nvml_rc;
typedef void *nvml_device;
typedef struct {
    unsigned long long total, free, used;
} nvml_memory;
typedef struct {
    unsigned int gpu, memory;
} nvml_utilization;
typedef struct {
    unsigned int pid;
    unsigned long long used;
    unsigned int gpu_instance, compute_instance;
} nvml_process;
typedef struct {
    unsigned int pid;
    unsigned long long timestamp;
    unsigned int sm, mem, enc, dec;
} nvml_process_util;
typedef struct {
    nvml_device device;
    unsigned long long type, data;
    unsigned int gpu_instance, compute_instance;
} nvml_event;

enum { ARGS_DEVICE, ARGS_NONE };

/* Each call as the tracker makes it, and the cadence it is made at (the
 * tiers of docs/performance.md). */
struct call {
    const char *symbol;
    const char *cadence;
    double cpu_us, wall_us;
    int rc; /* the last call's return code */
};

static struct {
    void *lib;
    nvml_device dev;
    void *events;
    nvml_rc (*init)(void);
    nvml_rc (*shutdown)(void);
    nvml_rc (*handle)(unsigned, nvml_device *);
} nv;

static double cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Makes call c once; its return code (-1: the library lacks it). */
static int make_call(const struct call *c)
{
    void *f = dlsym(nv.lib, c->symbol);
    if (!f)
        return -1;
    static nvml_process procs[256];
    static nvml_process_util utils[1024];
    static unsigned int pids[4096];
    unsigned int count;
    unsigned long long u64 = 0;
    if (!strcmp(c->symbol, "nvmlDeviceGetMemoryInfo")) {
        nvml_memory m;
        return ((nvml_rc(*)(nvml_device, nvml_memory *))f)(nv.dev, &m);
    }
    if (!strcmp(c->symbol, "nvmlDeviceGetUtilizationRates")) {
        nvml_utilization u;
        return ((nvml_rc(*)(nvml_device, nvml_utilization *))f)(nv.dev, &u);
    }
    if (strstr(c->symbol, "RunningProcesses")) {
        count = 256;
        return ((nvml_rc(*)(nvml_device, unsigned *, nvml_process *))f)(nv.dev, &count, procs);
    }
    if (!strcmp(c->symbol, "nvmlDeviceGetProcessUtilization")) {
        /* the tracker's two calls: the count, then the samples since 1 s ago */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        unsigned long long since = (unsigned long long)t.tv_sec * 1000000ULL - 1000000ULL;
        nvml_rc (*pu)(nvml_device, nvml_process_util *, unsigned *, unsigned long long) =
            (nvml_rc(*)(nvml_device, nvml_process_util *, unsigned *, unsigned long long))f;
        count = 0;
        pu(nv.dev, NULL, &count, since);
        count = 1024;
        return pu(nv.dev, utils, &count, since);
    }
    if (!strcmp(c->symbol, "nvmlDeviceGetTotalEnergyConsumption") ||
        !strcmp(c->symbol, "nvmlDeviceGetCurrentClocksEventReasons"))
        return ((nvml_rc(*)(nvml_device, unsigned long long *))f)(nv.dev, &u64);
    if (!strcmp(c->symbol, "nvmlDeviceGetTotalEccErrors"))
        return ((nvml_rc(*)(nvml_device, int, int, unsigned long long *))f)(nv.dev, 0, 0, &u64);
    if (!strcmp(c->symbol, "nvmlDeviceGetAccountingPids")) {
        count = 4096;
        return ((nvml_rc(*)(nvml_device, unsigned *, unsigned *))f)(nv.dev, &count, pids);
    }
    if (!strcmp(c->symbol, "nvmlDeviceGetAccountingMode")) {
        int mode;
        return ((nvml_rc(*)(nvml_device, int *))f)(nv.dev, &mode);
    }
    if (!strcmp(c->symbol, "nvmlEventSetWait_v2")) {
        if (!nv.events)
            return -2;
        nvml_event e;
        return ((nvml_rc(*)(void *, nvml_event *, unsigned))f)(nv.events, &e, 0);
    }
    return -1;
}

/* Registers GPU 0 for XID events, as the tracker does at its start. */
static void open_events(void)
{
    nvml_rc (*create)(void **) = (nvml_rc(*)(void **))dlsym(nv.lib, "nvmlEventSetCreate");
    nvml_rc (*reg)(nvml_device, unsigned long long, void *) =
        (nvml_rc(*)(nvml_device, unsigned long long, void *))dlsym(nv.lib,
                                                                   "nvmlDeviceRegisterEvents");
    if (create && reg && create(&nv.events) == 0 && reg(nv.dev, 0x8ULL, nv.events) != 0)
        nv.events = NULL;
}

/* ---- ROCm SMI ---------------------------------------------------------- */

typedef int rsmi_rc;
typedef struct {
    unsigned int process_id, pasid;
    unsigned long long vram_usage, sdma_usage;
    unsigned int cu_occupancy;
} rsmi_process;
typedef struct {
    unsigned long long correctable, uncorrectable;
} rsmi_errors;

static void *rsmi_lib;

/* Makes ROCm SMI call symbol once, on GPU 0, as gpu_rsmi.c makes it: its
 * return code, -1 when the library lacks it. */
static int make_rsmi_call(const char *symbol)
{
    void *f = dlsym(rsmi_lib, symbol);
    if (!f)
        return -1;
    unsigned long long u64 = 0, stamp = 0;
    if (!strcmp(symbol, "rsmi_dev_memory_usage_get"))
        return ((rsmi_rc(*)(unsigned, int, unsigned long long *))f)(0, 0, &u64);
    if (!strcmp(symbol, "rsmi_dev_busy_percent_get")) {
        unsigned busy;
        return ((rsmi_rc(*)(unsigned, unsigned *))f)(0, &busy);
    }
    if (!strcmp(symbol, "rsmi_compute_process_info_get")) {
        /* the tracker's two calls: the count, then the list */
        static rsmi_process procs[256];
        rsmi_rc (*list)(rsmi_process *, unsigned *) = (rsmi_rc(*)(rsmi_process *, unsigned *))f;
        unsigned count = 0;
        list(NULL, &count);
        count = 256;
        return list(procs, &count);
    }
    if (!strcmp(symbol, "rsmi_dev_energy_count_get")) {
        float resolution;
        return ((rsmi_rc(*)(unsigned, unsigned long long *, float *, unsigned long long *))f)(
            0, &u64, &resolution, &stamp);
    }
    if (!strcmp(symbol, "rsmi_dev_ecc_count_get")) {
        /* every block, as the first and last samples read them */
        rsmi_rc rc = 0;
        for (unsigned block = 0x1u; block <= 0x2000u; block <<= 1) {
            rsmi_errors e;
            rc = ((rsmi_rc(*)(unsigned, unsigned, rsmi_errors *))f)(0, block, &e);
        }
        return rc;
    }
    return -1;
}

static void rsmi_table(int each)
{
    const char *path = getenv("GPU_TRACKER_RSMI_LIBRARY");
    if (!path || !*path)
        path = "librocm_smi64.so";
    printf("\nROCm SMI calls one by one (%s, GPU 0, %d calls each)\n", path, each);
    double c0 = cpu_now();
    rsmi_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    double c1 = cpu_now();
    if (!rsmi_lib) {
        printf("not measured: %s\n", dlerror());
        return;
    }
    rsmi_rc (*init)(unsigned long long) =
        (rsmi_rc(*)(unsigned long long))dlsym(rsmi_lib, "rsmi_init");
    rsmi_rc (*shut_down)(void) = (rsmi_rc(*)(void))dlsym(rsmi_lib, "rsmi_shut_down");
    rsmi_rc (*count)(unsigned *) = (rsmi_rc(*)(unsigned *))dlsym(rsmi_lib,
                                                                 "rsmi_num_monitor_devices");
    unsigned n = 0;
    if (!init || !shut_down || !count) {
        printf("not measured: the library lacks rsmi_init, rsmi_shut_down or "
               "rsmi_num_monitor_devices\n");
        return;
    }
    rsmi_rc rc = init(0);
    double c2 = cpu_now();
    if (rc != 0 || count(&n) != 0 || n == 0) {
        printf("not measured: ROCm SMI did not start or has no GPU (code %d)\n", rc);
        return;
    }
    printf("%-44s %-34s %10s %10s\n", "", "made", "CPU us", "wall us");
    printf("%-44s %-34s %10.0f\n", "dlopen", "once, at the start", (c1 - c0) * 1e6);
    printf("%-44s %-34s %10.0f\n", "rsmi_init", "once, at the start", (c2 - c1) * 1e6);
    static const struct {
        const char *symbol, *cadence;
    } calls[] = {
        {"rsmi_dev_memory_usage_get", "every sample"},
        {"rsmi_dev_busy_percent_get", "every sample"},
        {"rsmi_compute_process_info_get", "every sample (2 calls)"},
        {"rsmi_dev_energy_count_get", "first, last; 10 s with details"},
        {"rsmi_dev_ecc_count_get", "first, last (every block)"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        rc = make_rsmi_call(calls[i].symbol);
        double cw = wall_now(), cc = cpu_now();
        for (int k = 0; k < each && rc != -1; k++)
            rc = make_rsmi_call(calls[i].symbol);
        if (rc == -1) {
            printf("%-44s %-34s %21s\n", calls[i].symbol, calls[i].cadence,
                   "not in the library");
            continue;
        }
        printf("%-44s %-34s %10.1f %10.1f%s\n", calls[i].symbol, calls[i].cadence,
               (cpu_now() - cc) / each * 1e6, (wall_now() - cw) / each * 1e6,
               rc == 0 ? "" : "  (an error)");
    }
    double cs = cpu_now();
    shut_down();
    printf("%-44s %-34s %10.0f\n", "rsmi_shut_down", "once, at the end", (cpu_now() - cs) * 1e6);
}

static void nvml_table(int each);

int main(int argc, char **argv)
{
    int each = argc > 1 ? atoi(argv[1]) : 50;
    if (each < 1 || each > 100000) {
        fprintf(stderr, "usage: gt-bench-gpu-calls [CALLS_EACH: 1 to 100000]\n");
        return 2;
    }
    nvml_table(each);
    rsmi_table(each);
    return 0;
}

/* ---- NVML -------------------------------------------------------------- */

static void nvml_table(int each)
{
    const char *path = getenv("GPU_TRACKER_NVML_LIBRARY");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    printf("NVML calls one by one (%s, GPU 0, %d calls each)\n", path, each);
    double w0 = wall_now(), c0 = cpu_now();
    nv.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    double w1 = wall_now(), c1 = cpu_now();
    if (!nv.lib) {
        printf("not measured: %s\n", dlerror());
        return;
    }
    nv.init = (nvml_rc(*)(void))dlsym(nv.lib, "nvmlInit_v2");
    nv.shutdown = (nvml_rc(*)(void))dlsym(nv.lib, "nvmlShutdown");
    nv.handle = (nvml_rc(*)(unsigned, nvml_device *))dlsym(nv.lib,
                                                           "nvmlDeviceGetHandleByIndex_v2");
    if (!nv.init || !nv.shutdown || !nv.handle) {
        printf("not measured: the library lacks nvmlInit_v2, nvmlShutdown or "
               "nvmlDeviceGetHandleByIndex_v2\n");
        return;
    }
    nvml_rc rc = nv.init();
    double w2 = wall_now(), c2 = cpu_now();
    if (rc != 0 || nv.handle(0, &nv.dev) != 0) {
        printf("not measured: NVML did not start or has no GPU 0 (code %d)\n", rc);
        return;
    }
    open_events();
    printf("%-44s %-34s %10s %10s\n", "", "made", "CPU us", "wall us");
    printf("%-44s %-34s %10.0f %10.0f\n", "dlopen", "once, at the start",
           (c1 - c0) * 1e6, (w1 - w0) * 1e6);
    printf("%-44s %-34s %10.0f %10.0f\n", "nvmlInit_v2", "once, at the start",
           (c2 - c1) * 1e6, (w2 - w1) * 1e6);
    struct call calls[] = {
        {"nvmlDeviceGetMemoryInfo", "every sample", 0, 0, 0},
        {"nvmlDeviceGetUtilizationRates", "every sample", 0, 0, 0},
        {"nvmlDeviceGetComputeRunningProcesses_v3", "every sample", 0, 0, 0},
        {"nvmlDeviceGetGraphicsRunningProcesses_v3", "every 5 s; each sample once used", 0, 0, 0},
        {"nvmlDeviceGetProcessUtilization", "with details (2 calls)", 0, 0, 0},
        {"nvmlDeviceGetTotalEnergyConsumption", "first, last; 10 s with details", 0, 0, 0},
        {"nvmlDeviceGetCurrentClocksEventReasons", "with details", 0, 0, 0},
        {"nvmlDeviceGetTotalEccErrors", "first, last", 0, 0, 0},
        {"nvmlDeviceGetAccountingPids", "every 5 s, if accounting on", 0, 0, 0},
        {"nvmlDeviceGetAccountingMode", "once, at the start", 0, 0, 0},
        {"nvmlEventSetWait_v2", "every 5 s, first, last", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        struct call *c = &calls[i];
        c->rc = make_call(c); /* warm: the first call may set things up */
        double cw = wall_now(), cc = cpu_now();
        for (int k = 0; k < each && c->rc != -1 && c->rc != -2; k++)
            c->rc = make_call(c);
        c->wall_us = (wall_now() - cw) / each * 1e6;
        c->cpu_us = (cpu_now() - cc) / each * 1e6;
        if (c->rc == -1 || c->rc == -2) {
            printf("%-44s %-34s %21s\n", c->symbol, c->cadence,
                   c->rc == -1 ? "not in the library" : "no event set");
            continue;
        }
        printf("%-44s %-34s %10.1f %10.1f%s\n", c->symbol, c->cadence, c->cpu_us, c->wall_us,
               c->rc == 0    ? ""
               : c->rc == 3  ? "  (not supported)"
               : c->rc == 6  ? "  (not found: nothing to report)"
               : c->rc == 10 ? "  (timeout: no event)"
                             : "  (an error)");
    }
    double cs = cpu_now(), ws = wall_now();
    nv.shutdown();
    printf("%-44s %-34s %10.0f %10.0f\n", "nvmlShutdown", "once, at the end",
           (cpu_now() - cs) * 1e6, (wall_now() - ws) * 1e6);
}
