/* gpu_nvml.c - NVIDIA GPUs through NVML (libnvidia-ml.so.1), declared here
 * by hand from NVIDIA's documented API so that nothing of the vendor is
 * needed to build, and loaded with dlopen at run time. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"

#include "common/buf.h"
#include "common/dl_bind.h"
#include "read/gpu/gpu.h"
#include "read/gpu/gpu_lists.h"

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
typedef struct {
    unsigned int gpuUtilization, memoryUtilization;
    unsigned long long maxMemoryUsage;
    unsigned long long time;      /* milliseconds */
    unsigned long long startTime; /* epoch microseconds */
    unsigned int isRunning;
    unsigned int reserved[5];
} nvmlAccountingStats_t;
typedef void *nvmlEventSet_t;
typedef void *nvmlGpmSample_t;
typedef struct {
    unsigned int version;
    unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
typedef struct {
    unsigned int metricId;
    nvmlReturn_t nvmlReturn;
    double value;
    struct {
        char *shortName, *longName, *unit;
    } metricInfo;
} nvmlGpmMetric_t;
/* The library reads and writes numMetrics entries of metrics[]; 210 is
 * more than any nvml.h's NVML_GPM_METRIC_MAX so far. */
typedef struct {
    unsigned int version;
    unsigned int numMetrics;
    nvmlGpmSample_t sample1, sample2;
    nvmlGpmMetric_t metrics[210];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_SUPPORT_VERSION 1
#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_METRIC_GRAPHICS_UTIL 1
#define NVML_GPM_METRIC_SM_UTIL 2
#define NVML_GPM_METRIC_SM_OCCUPANCY 3
#define NVML_GPM_METRIC_ANY_TENSOR_UTIL 5
#define NVML_GPM_METRIC_DRAM_BW_UTIL 10
#define NVML_GPM_METRIC_FP64_UTIL 11
#define NVML_GPM_METRIC_FP32_UTIL 12
#define NVML_GPM_METRIC_FP16_UTIL 13
#define NVML_GPM_METRIC_PCIE_TX_PER_SEC 20 /* MiB/s */
#define NVML_GPM_METRIC_PCIE_RX_PER_SEC 21
#define NVML_PCIE_UTIL_TX_BYTES 0
#define NVML_PCIE_UTIL_RX_BYTES 1
#define NVML_DEVICE_MIG_ENABLE 1
typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType, eventData;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
#define NVML_ERROR_TIMEOUT 10
#define NVML_FEATURE_ENABLED 1
#define NVML_EVENT_XID_CRITICAL 0x8ULL
#define NVML_MEMORY_ERROR_CORRECTED 0
#define NVML_MEMORY_ERROR_UNCORRECTED 1
#define NVML_VOLATILE_ECC 0

/* A finished accounting record already handed on (or one that ended before
 * tracking began): its figures are final, so it is not asked for again
 * unless its PID shows up more often in the list (a new process with it). */
struct account_seen {
    int device;
    unsigned int pid;
    unsigned int times;    /* how often the PID was in the device's list */
};

struct nvml {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);             /* optional */
    nvmlReturn_t (*minor)(nvmlDevice_t, unsigned int *);                 /* optional */
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);       /* optional */
    process_query_fn compute, graphics;                                  /* optional */
    nvmlReturn_t (*process_utilization)(nvmlDevice_t, nvmlProcessUtilizationSample_t *,
                                        unsigned int *, unsigned long long); /* optional */
    nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long *);          /* optional, mJ */
    nvmlReturn_t (*accounting_mode)(nvmlDevice_t, int *);                /* optional */
    nvmlReturn_t (*accounting_pids)(nvmlDevice_t, unsigned int *, unsigned int *);
    nvmlReturn_t (*accounting_stats)(nvmlDevice_t, unsigned int, nvmlAccountingStats_t *);
    nvmlReturn_t (*throttle)(nvmlDevice_t, unsigned long long *);       /* optional */
    nvmlReturn_t (*ecc)(nvmlDevice_t, int, int, unsigned long long *);   /* optional */
    nvmlReturn_t (*event_set_create)(nvmlEventSet_t *);                  /* optional */
    nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
    nvmlReturn_t (*event_wait)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
    nvmlReturn_t (*event_set_free)(nvmlEventSet_t);
    nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *); /* optional */
    nvmlReturn_t (*mig_count)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*gpu_instance_id)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*gpm_support)(nvmlDevice_t, nvmlGpmSupport_t *);      /* optional */
    nvmlReturn_t (*gpm_alloc)(nvmlGpmSample_t *);
    nvmlReturn_t (*gpm_free)(nvmlGpmSample_t);
    nvmlReturn_t (*gpm_mig_sample)(nvmlDevice_t, unsigned int, nvmlGpmSample_t);
    nvmlReturn_t (*gpm_sample)(nvmlDevice_t, nvmlGpmSample_t);
    nvmlReturn_t (*gpm_metrics)(nvmlGpmMetricsGet_t *);
    nvmlReturn_t (*pcie_throughput)(nvmlDevice_t, int, unsigned int *); /* optional, KB/s */
    nvmlEventSet_t events;                 /* XID events; NULL: none */
    /* Each listed device: the handle its own figures are read through
     * (memory, processes; a MIG instance's own), the physical GPU's (clocks,
     * ECC, accounting, events), and for a MIG instance its GPU instance id
     * (-1: a whole GPU) and GPM samples, the previous and this one. */
    nvmlDevice_t devices[GPU_MAX_DEVICES];
    nvmlDevice_t physical[GPU_MAX_DEVICES];
    int gpu_instance[GPU_MAX_DEVICES];
    int first_of_physical[GPU_MAX_DEVICES]; /* 1: the first listed of its GPU */
    nvmlGpmSample_t gpm[GPU_MAX_DEVICES][2];
    int gpm_have_prev[GPU_MAX_DEVICES];
    double gpm_prev_at[GPU_MAX_DEVICES];    /* monotonic, of gpm[k][0] */
    long gpm_prev_sample[GPU_MAX_DEVICES];  /* the sample number it was taken at */
    long samples;                           /* nvml_sample() calls so far */
    nvmlGpmMetricsGet_t *metrics_get;      /* the metrics call's buffer (10 kB) */
    unsigned int *account_pids;
    unsigned int cap_account_pids;
    struct account_seen *seen;             /* sorted by device, then PID */
    size_t nseen, capseen;
    double account_read_at;                /* monotonic; 0: never */
    nvmlProcessInfo_t *infos;
    unsigned int capinfos;
    nvmlProcessUtilizationSample_t *util_samples;
    unsigned int cap_util_samples;
    unsigned long long last_seen[GPU_MAX_DEVICES]; /* newest utilization sample read */
    unsigned long long energy_base[GPU_MAX_DEVICES];
    /* nvmlDeviceGetTotalEnergyConsumption costs about 4 ms of CPU a call
     * (an H100, driver 580): the counter is read when gpu_energy_due() says
     * (the baseline and the final sample, where the run's energy is taken;
     * with g->details every GPU_ENERGY_PERIOD seconds between). */
    unsigned long long energy_last[GPU_MAX_DEVICES];
    /* The slow tier (graphics processes, XID events): last read at. */
    double slow_read_at;   /* monotonic; 0: never */
    /* 1: device i's graphics list has held a process: read every sample. */
    int graphics_seen[GPU_MAX_DEVICES];
};

/* The tiers of a GPU sample (docs/performance.md, "Tiers of cadence"). Every
 * sample: memory, utilization, compute processes, the three calls the
 * summary cannot do without. Every NVML_SLOW_PERIOD seconds and at the
 * first and last samples: the graphics process list (every sample on a GPU
 * where it ever held a process) and the XID events queued meanwhile. With
 * g->details only: per-process utilization and throttle reasons each
 * sample, energy every GPU_ENERGY_PERIOD seconds. */
#define NVML_SLOW_PERIOD 5.0
/* Accounting records are kept by the driver after their process ends, so
 * reading them every few seconds (and at the baseline and final samples)
 * loses nothing; the driver's buffer holds thousands. */
#define NVML_ACCOUNTING_PERIOD 5.0
/* The most XID events taken from the driver's queue at one sample. */
#define NVML_XID_PER_SAMPLE 64

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
    NVML_FN(minor, 0, "nvmlDeviceGetMinorNumber"),
    NVML_FN(memory, 1, "nvmlDeviceGetMemoryInfo"),
    NVML_FN(utilization, 0, "nvmlDeviceGetUtilizationRates"),
    NVML_FN(compute, 0, "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses_v2"),
    NVML_FN(graphics, 0, "nvmlDeviceGetGraphicsRunningProcesses_v3",
            "nvmlDeviceGetGraphicsRunningProcesses_v2"),
    NVML_FN(process_utilization, 0, "nvmlDeviceGetProcessUtilization"),
    NVML_FN(energy, 0, "nvmlDeviceGetTotalEnergyConsumption"),
    NVML_FN(accounting_mode, 0, "nvmlDeviceGetAccountingMode"),
    NVML_FN(accounting_pids, 0, "nvmlDeviceGetAccountingPids"),
    NVML_FN(accounting_stats, 0, "nvmlDeviceGetAccountingStats"),
    NVML_FN(throttle, 0, "nvmlDeviceGetCurrentClocksEventReasons",
            "nvmlDeviceGetCurrentClocksThrottleReasons"),
    NVML_FN(ecc, 0, "nvmlDeviceGetTotalEccErrors"),
    NVML_FN(event_set_create, 0, "nvmlEventSetCreate"),
    NVML_FN(register_events, 0, "nvmlDeviceRegisterEvents"),
    NVML_FN(event_wait, 0, "nvmlEventSetWait_v2", "nvmlEventSetWait"),
    NVML_FN(event_set_free, 0, "nvmlEventSetFree"),
    NVML_FN(mig_mode, 0, "nvmlDeviceGetMigMode"),
    NVML_FN(mig_count, 0, "nvmlDeviceGetMaxMigDeviceCount"),
    NVML_FN(mig_handle, 0, "nvmlDeviceGetMigDeviceHandleByIndex"),
    NVML_FN(gpu_instance_id, 0, "nvmlDeviceGetGpuInstanceId"),
    NVML_FN(gpm_support, 0, "nvmlGpmQueryDeviceSupport"),
    NVML_FN(gpm_alloc, 0, "nvmlGpmSampleAlloc"),
    NVML_FN(gpm_free, 0, "nvmlGpmSampleFree"),
    NVML_FN(gpm_mig_sample, 0, "nvmlGpmMigSampleGet"),
    NVML_FN(gpm_sample, 0, "nvmlGpmSampleGet"),
    NVML_FN(gpm_metrics, 0, "nvmlGpmMetricsGet"),
    NVML_FN(pcie_throughput, 0, "nvmlDeviceGetPcieThroughput"),
    {0, NULL, 0},
};

/* Whether every GPU keeps accounting records; the reason when not. The
 * mode is the administrator's (nvidia-smi -am 1): we never change it. */
static void check_accounting(struct gpu_vendor *g, struct nvml *n)
{
    if (!n->accounting_mode || !n->accounting_pids || !n->accounting_stats) {
        snprintf(g->accounting_reason, sizeof g->accounting_reason,
                 "the NVML library has no accounting functions");
        return;
    }
    for (int i = 0; i < g->ndevices; i++) {
        int mode = 0;
        nvmlReturn_t rc = n->accounting_mode(n->physical[i], &mode);
        if (rc != NVML_SUCCESS) {
            snprintf(g->accounting_reason, sizeof g->accounting_reason,
                     "GPU %d keeps no accounting records: %s", i, nvml_error(n, rc));
            return;
        }
        if (mode != NVML_FEATURE_ENABLED) {
            snprintf(g->accounting_reason, sizeof g->accounting_reason,
                     "NVML accounting mode is off on GPU %d (an administrator turns it on with "
                     "`nvidia-smi -i %d -am 1`): a GPU process that lives between two samples "
                     "is missed",
                     i, i);
            return;
        }
    }
}

/* Registers every GPU for XID (critical error) events; the reason when it
 * cannot. */
static void open_xid_events(struct gpu_vendor *g, struct nvml *n)
{
    if (!n->event_set_create || !n->register_events || !n->event_wait || !n->event_set_free) {
        snprintf(g->xid_reason, sizeof g->xid_reason, "the NVML library has no event functions");
        return;
    }
    nvmlReturn_t rc = n->event_set_create(&n->events);
    if (rc != NVML_SUCCESS) {
        n->events = NULL;
        snprintf(g->xid_reason, sizeof g->xid_reason, "NVML cannot watch XID errors: %s",
                 nvml_error(n, rc));
        return;
    }
    for (int i = 0; i < g->ndevices; i++)
        if (n->first_of_physical[i] &&
            (rc = n->register_events(n->physical[i], NVML_EVENT_XID_CRITICAL, n->events)) !=
            NVML_SUCCESS) {
            snprintf(g->xid_reason, sizeof g->xid_reason,
                     "GPU %d does not report XID errors: %s", i, nvml_error(n, rc));
            n->event_set_free(n->events);
            n->events = NULL;
            return;
        }
}

/* Why device k has no GPM figures, into the reason they are missing for:
 * a MIG instance's utilization (mig_util_reason) and every device's
 * activity counters (activity_reason). The first reason of each is kept. */
static void gpm_missing(struct gpu_vendor *g, int k, const char *why)
{
    if (g->devices[k].mig && !*g->mig_util_reason)
        snprintf(g->mig_util_reason, sizeof g->mig_util_reason,
                 "MIG instance %d shows no utilization: %s", k, why);
    if (!*g->activity_reason)
        snprintf(g->activity_reason, sizeof g->activity_reason,
                 "GPU %d has no SM, tensor or DRAM activity: %s", k, why);
}

/* GPM (Hopper and later): two samples of a GPU, or of a MIG instance's GPU
 * instance, and the metrics over the time between: the activity counters,
 * and a MIG instance's utilization. Where the GPU or the library has no
 * GPM, the reasons say so and no GPM call is made again. */
static void open_gpm(struct gpu_vendor *g, struct nvml *n, int k, int mig)
{
    nvmlGpmSupport_t support = {.version = NVML_GPM_SUPPORT_VERSION};
    nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
    char why[200];
    if (!n->gpm_support || !n->gpm_alloc || !n->gpm_free || !n->gpm_metrics ||
        (mig ? !n->gpm_mig_sample : !n->gpm_sample)) {
        gpm_missing(g, k, "the NVML library has no GPM functions (driver 520 or later)");
        return;
    }
    if (mig && n->gpu_instance[k] < 0) {
        gpm_missing(g, k, "NVML does not say which GPU instance it is");
        return;
    }
    if ((rc = n->gpm_support(n->physical[k], &support)) != NVML_SUCCESS ||
        !support.isSupportedDevice) {
        snprintf(why, sizeof why, "the GPU has no GPM counters (Hopper or later has them)%s%s",
                 rc != NVML_SUCCESS ? ": " : "", rc != NVML_SUCCESS ? nvml_error(n, rc) : "");
        gpm_missing(g, k, why);
        return;
    }
    if (!n->metrics_get && !(n->metrics_get = calloc(1, sizeof *n->metrics_get))) {
        gpm_missing(g, k, "out of memory");
        return;
    }
    if ((rc = n->gpm_alloc(&n->gpm[k][0])) != NVML_SUCCESS) {
        n->gpm[k][0] = NULL;
    } else if ((rc = n->gpm_alloc(&n->gpm[k][1])) != NVML_SUCCESS) {
        n->gpm_free(n->gpm[k][0]);
        n->gpm[k][0] = n->gpm[k][1] = NULL;
    }
    if (!n->gpm[k][0]) {
        snprintf(why, sizeof why, "GPM samples cannot be made: %s", nvml_error(n, rc));
        gpm_missing(g, k, why);
    }
}

/* Stops GPM on device k (a call refused at run time): its samples freed,
 * no GPM call made for it again. */
static void close_gpm(struct nvml *n, int k)
{
    for (int j = 0; j < 2; j++)
        if (n->gpm[k][j]) {
            n->gpm_free(n->gpm[k][j]);
            n->gpm[k][j] = NULL;
        }
}

/* The GPM metrics asked for, and where each goes: an activity figure
 * (GPU_ACTIVITY_*), a PCIe rate (-1 TX, -2 RX) or a MIG instance's
 * utilization (-3). */
static const struct {
    unsigned id;
    int into;
} gpm_wanted[] = {
    {NVML_GPM_METRIC_SM_UTIL, GPU_ACTIVITY_SM},
    {NVML_GPM_METRIC_SM_OCCUPANCY, GPU_ACTIVITY_OCCUPANCY},
    {NVML_GPM_METRIC_ANY_TENSOR_UTIL, GPU_ACTIVITY_TENSOR},
    {NVML_GPM_METRIC_DRAM_BW_UTIL, GPU_ACTIVITY_DRAM},
    {NVML_GPM_METRIC_FP64_UTIL, GPU_ACTIVITY_FP64},
    {NVML_GPM_METRIC_FP32_UTIL, GPU_ACTIVITY_FP32},
    {NVML_GPM_METRIC_FP16_UTIL, GPU_ACTIVITY_FP16},
    {NVML_GPM_METRIC_PCIE_TX_PER_SEC, -1},
    {NVML_GPM_METRIC_PCIE_RX_PER_SEC, -2},
    {NVML_GPM_METRIC_GRAPHICS_UTIL, -3}, /* last: asked for on MIG instances only */
};
#define GPM_WANTED (sizeof gpm_wanted / sizeof gpm_wanted[0])

/* The metrics over device k's pair of GPM samples into act; a MIG
 * instance's utilization returned (-1 when not given); *refused set when
 * the call failed (GPM stops on the device). */
static double gpm_metrics_into(struct gpu_vendor *g, struct nvml *n, int k,
                               struct gpu_activity *act, int *refused)
{
    int mig = n->gpu_instance[k] >= 0;
    unsigned count = (unsigned)GPM_WANTED - (mig ? 0u : 1u);
    nvmlGpmMetricsGet_t *mg = n->metrics_get;
    memset(mg, 0, offsetof(nvmlGpmMetricsGet_t, metrics) + count * sizeof mg->metrics[0]);
    mg->version = NVML_GPM_METRICS_GET_VERSION;
    mg->numMetrics = count;
    mg->sample1 = n->gpm[k][0];
    mg->sample2 = n->gpm[k][1];
    for (unsigned m = 0; m < count; m++)
        mg->metrics[m].metricId = gpm_wanted[m].id;
    nvmlReturn_t rc = n->gpm_metrics(mg);
    double util = -1;
    if (rc != NVML_SUCCESS) {
        char why[160];
        snprintf(why, sizeof why, "GPM gives no metrics: %s", nvml_error(n, rc));
        gpm_missing(g, k, why);
        *refused = 1;
        return -1;
    }
    for (unsigned m = 0; m < count; m++) {
        double v = mg->metrics[m].value;
        int into = gpm_wanted[m].into;
        if (mg->metrics[m].nvmlReturn != NVML_SUCCESS || !(v >= 0))
            continue; /* not on this GPU (a metric newer than it), or no figure */
        if (into >= 0 && v <= 100) {
            act->read |= 1u << into;
            act->percent[into] = v;
        } else if (into == -1 || into == -2) {
            act->pcie_read = 1;
            *(into == -1 ? &act->pcie_tx : &act->pcie_rx) = v * 1048576.0;
        } else if (into == -3 && v <= 100) {
            util = v;
        }
    }
    if (mig && util < 0 && !*g->mig_util_reason)
        snprintf(g->mig_util_reason, sizeof g->mig_util_reason,
                 "GPM gives no utilization for MIG instance %d", k);
    return util;
}

/* Takes device k's GPM sample at monotonic time now; with the previous one
 * (taken at the previous sample) the metrics between go into s. A MIG
 * instance's utilization since the previous sample returned, -1 when there
 * is none yet or it cannot be read. */
static double read_gpm(struct gpu_vendor *g, struct nvml *n, int k, double now,
                       struct gpu_sample *s)
{
    if (!n->gpm[k][0])
        return -1;
    int mig = n->gpu_instance[k] >= 0;
    nvmlReturn_t rc = mig ? n->gpm_mig_sample(n->physical[k], (unsigned)n->gpu_instance[k],
                                              n->gpm[k][1])
                          : n->gpm_sample(n->devices[k], n->gpm[k][1]);
    if (rc != NVML_SUCCESS) {
        char why[160];
        snprintf(why, sizeof why, "GPM refused a sample: %s", nvml_error(n, rc));
        gpm_missing(g, k, why);
        close_gpm(n, k);
        return -1;
    }
    double util = -1;
    /* A pair spans one sample's interval: a device not read at the previous
     * sample starts a new pair. */
    if (n->gpm_have_prev[k] && n->gpm_prev_sample[k] == n->samples - 1) {
        struct gpu_activity *act = &s->activity[k];
        int refused = 0;
        util = gpm_metrics_into(g, n, k, act, &refused);
        if (refused) {
            close_gpm(n, k);
            return -1;
        }
        if (act->read || act->pcie_read)
            act->seconds = now - n->gpm_prev_at[k] > 0 ? now - n->gpm_prev_at[k] : 0;
        if (!(act->seconds > 0))
            memset(act, 0, sizeof *act);
    }
    /* this sample is the next one's earlier */
    nvmlGpmSample_t t = n->gpm[k][0];
    n->gpm[k][0] = n->gpm[k][1];
    n->gpm[k][1] = t;
    n->gpm_have_prev[k] = 1;
    n->gpm_prev_at[k] = now;
    n->gpm_prev_sample[k] = n->samples;
    return util;
}

/* Device k's PCIe rates from NVML's own 20 ms window, where GPM gave none
 * (older GPUs); the first failure stops the calls. */
static void read_pcie(struct nvml *n, int k, struct gpu_sample *s)
{
    unsigned int tx = 0, rx = 0;
    if (!n->pcie_throughput || n->gpu_instance[k] >= 0 || s->activity[k].pcie_read)
        return;
    if (n->pcie_throughput(n->devices[k], NVML_PCIE_UTIL_TX_BYTES, &tx) != NVML_SUCCESS ||
        n->pcie_throughput(n->devices[k], NVML_PCIE_UTIL_RX_BYTES, &rx) != NVML_SUCCESS) {
        n->pcie_throughput = NULL;
        return;
    }
    s->activity[k].pcie_read = 1;
    s->activity[k].pcie_tx = tx * 1024.0;
    s->activity[k].pcie_rx = rx * 1024.0;
}

/* Lists device k: handle h (a MIG instance's, or the physical GPU phys
 * itself), its UUID, name, memory, device file, energy counter and, for a
 * MIG instance, its GPU instance id and GPM samples. NVML_SUCCESS, or the
 * error of a figure every device must have. */
static nvmlReturn_t list_device(struct gpu_vendor *g, struct nvml *n, int k, nvmlDevice_t h,
                                nvmlDevice_t phys, int mig, int first)
{
    struct gpu_device *d = &g->devices[k];
    nvmlMemory_t mem;
    nvmlReturn_t rc;
    n->devices[k] = h;
    n->physical[k] = phys;
    n->first_of_physical[k] = first;
    n->gpu_instance[k] = -1;
    if ((rc = n->uuid(h, d->uuid, sizeof d->uuid)) != NVML_SUCCESS ||
        (rc = n->memory(h, &mem)) != NVML_SUCCESS)
        return rc;
    if (!n->name || n->name(h, d->name, sizeof d->name) != NVML_SUCCESS)
        snprintf(d->name, sizeof d->name, "unknown");
    unsigned int minor = 0;
    d->minor = n->minor && n->minor(phys, &minor) == NVML_SUCCESS && minor < 1u << 20
                   ? (int)minor : -1;
    d->memory_total = mem.total;
    d->mig = mig;
    if (mig) {
        unsigned int gi = 0;
        if (n->gpu_instance_id && n->gpu_instance_id(h, &gi) == NVML_SUCCESS)
            n->gpu_instance[k] = (int)gi;
        open_gpm(g, n, k, 1);
        if (!*g->energy_reason)
            snprintf(g->energy_reason, sizeof g->energy_reason,
                     "a MIG instance has no energy counter of its own (GPU %d is one)", k);
        return NVML_SUCCESS;
    }
    open_gpm(g, n, k, 0);
    if (n->energy && !*g->energy_reason &&
        (rc = n->energy(h, &n->energy_base[k])) != NVML_SUCCESS)
        snprintf(g->energy_reason, sizeof g->energy_reason,
                 "GPU %d does not report its energy: %s", k, nvml_error(n, rc));
    n->energy_last[k] = n->energy_base[k];
    return NVML_SUCCESS;
}

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
    if (count > 1000000u)
        count = 1000000u; /* a sane bound for an int */
    int listed = 0;
    for (unsigned int i = 0; i < count; i++) {
        nvmlDevice_t phys;
        if ((rc = n->handle(i, &phys)) != NVML_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "NVML cannot read GPU %u: %s", i,
                     nvml_error(n, rc));
            return -1;
        }
        /* A GPU in MIG mode is listed as its instances, each a device of
         * its own (its UUID is what CUDA_VISIBLE_DEVICES and --guuids take). */
        unsigned int current = 0, pending = 0, slots = 0;
        int mig = n->mig_mode && n->mig_count && n->mig_handle &&
                  n->mig_mode(phys, &current, &pending) == NVML_SUCCESS &&
                  current == NVML_DEVICE_MIG_ENABLE && n->mig_count(phys, &slots) == NVML_SUCCESS;
        int first = 1, instances = 0;
        for (unsigned int m = 0; m < (mig ? slots : 1u) && m < 64; m++) {
            nvmlDevice_t h = phys;
            if (mig && n->mig_handle(phys, m, &h) != NVML_SUCCESS)
                continue; /* an empty slot */
            instances++;
            g->found++;
            if (listed >= g->capacity)
                continue;
            if ((rc = list_device(g, n, listed, h, phys, mig, first)) != NVML_SUCCESS) {
                snprintf(g->reason, sizeof g->reason, "NVML cannot read GPU %u%s: %s", i,
                         mig ? "'s MIG instance" : "", nvml_error(n, rc));
                return -1;
            }
            first = 0;
            listed++;
        }
        if (mig && !instances)
            g->found++; /* MIG on, no instance made yet: a GPU nothing can run on */
    }
    g->ndevices = listed;
    g->opened_us = (unsigned long long)(epoch_now() * 1e6);
    check_accounting(g, n);
    open_xid_events(g, n);
    return 0;
}

/* Adds the processes of one query of one device to g->procs. A buffer that
 * is too small is grown to the size NVML asks for, and the query repeated.
 * How many processes the query listed, or -1 (out of memory, or a driver
 * error: g->reason says which). */
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
        return (int)(count < n->capinfos ? count : n->capinfos);
    }
    return 0; /* the list kept growing between calls: count it next time */
}

/* Adds each process's SM utilization on one device: its newest sample since
 * the last call; the device's bit in s->proc_util_read when read (no sample
 * since: no process ran a kernel). 0 when there is none or the call is not
 * supported (the reason is kept); -1 when out of memory. */
static int add_process_utilization(struct gpu_vendor *g, struct nvml *n, int dev_index,
                                   struct gpu_sample *s)
{
    if (!n->process_utilization || *g->proc_util_reason)
        return 0;
    nvmlDevice_t dev = n->devices[dev_index];
    unsigned int count = 0;
    nvmlReturn_t rc = n->process_utilization(dev, NULL, &count, n->last_seen[dev_index]);
    if (rc == NVML_ERROR_NOT_FOUND) {
        s->proc_util_read |= 1ULL << dev_index;
        return 0; /* no process sample newer than the last one */
    }
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
    if (rc == NVML_ERROR_NOT_FOUND)
        s->proc_util_read |= 1ULL << dev_index;
    if (rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_INSUFFICIENT_SIZE)
        return 0; /* none, or more came meanwhile: next time */
    if (rc != NVML_SUCCESS) {
        snprintf(g->proc_util_reason, sizeof g->proc_util_reason,
                 "the driver does not report per-process GPU utilization: %s", nvml_error(n, rc));
        return 0;
    }
    unsigned long long newest = n->last_seen[dev_index];
    for (unsigned int i = 0; i < count && i < n->cap_util_samples; i++) {
        const nvmlProcessUtilizationSample_t *u = &n->util_samples[i];
        /* Only a process's newest sample counts. */
        int latest = 1;
        for (unsigned int j = 0; j < count && latest; j++)
            latest = !(n->util_samples[j].pid == u->pid && n->util_samples[j].timeStamp > u->timeStamp);
        if (latest && gpu_add_process(g, (pid_t)u->pid, dev_index, 0, (double)u->smUtil) < 0)
            return -1;
        if (u->timeStamp > newest)
            newest = u->timeStamp;
    }
    n->last_seen[dev_index] = newest;
    s->proc_util_read |= 1ULL << dev_index;
    return 0;
}

static int compare_uint(const void *a, const void *b)
{
    unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
    return x < y ? -1 : x > y;
}

/* The slot of (device, pid) in n->seen, or where it would go (*found 0). */
static size_t seen_slot(const struct nvml *n, int device, unsigned int pid, int *found)
{
    size_t lo = 0, hi = n->nseen;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct account_seen *e = &n->seen[mid];
        if (e->device < device || (e->device == device && e->pid < pid))
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < n->nseen && n->seen[lo].device == device && n->seen[lo].pid == pid;
    return lo;
}

/* Notes that pid's finished record on device was handled while the PID was
 * in the list times times. 0, or -1 when out of memory. */
static int seen_put(struct nvml *n, int device, unsigned int pid, unsigned int times)
{
    int found;
    size_t at = seen_slot(n, device, pid, &found);
    if (!found) {
        if (grow_array(&n->seen, &n->capseen, n->nseen + 1, sizeof *n->seen, 64) < 0)
            return -1;
        memmove(&n->seen[at + 1], &n->seen[at], (n->nseen - at) * sizeof n->seen[0]);
        n->nseen++;
        n->seen[at].device = device;
        n->seen[at].pid = pid;
    }
    n->seen[at].times = times;
    return 0;
}

/* Adds to g->records device dev_index's accounting records that may be the
 * job's: those running now, and those that ended since the GPUs were
 * opened and were not handed on before. 0, or -1 when out of memory; a
 * driver error sets the reason and reads nothing more. */
static int read_accounting(struct gpu_vendor *g, struct nvml *n, int dev_index)
{
    if (*g->accounting_reason)
        return 0; /* another GPU's records failed this sample */
    if (!n->first_of_physical[dev_index])
        return 0; /* a GPU's records once, with its first listed device */
    nvmlDevice_t dev = n->physical[dev_index];
    unsigned int count = 0;
    nvmlReturn_t rc = NVML_ERROR_INSUFFICIENT_SIZE;
    for (int attempt = 0; attempt < 3 && rc == NVML_ERROR_INSUFFICIENT_SIZE; attempt++) {
        count = n->cap_account_pids;
        rc = n->accounting_pids(dev, &count, n->account_pids);
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE) {
            unsigned int want = count > n->cap_account_pids ? count + 64
                                                            : n->cap_account_pids * 2 + 64;
            unsigned int *p = realloc(n->account_pids, want * sizeof *p);
            if (!p)
                return -1;
            n->account_pids = p;
            n->cap_account_pids = want;
        }
    }
    if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
        return 0; /* the list kept growing: next time */
    if (rc != NVML_SUCCESS) {
        snprintf(g->accounting_reason, sizeof g->accounting_reason,
                 "GPU %d's accounting records cannot be read: %s", dev_index, nvml_error(n, rc));
        return 0;
    }
    if (count > n->cap_account_pids)
        count = n->cap_account_pids;
    if (count == 0)
        return 0; /* no record (and maybe no buffer yet) */
    /* The same PID twice: two processes had it; the driver answers for the
     * newest, so a PID is asked for again when it shows up more often. */
    qsort(n->account_pids, count, sizeof n->account_pids[0], compare_uint);
    for (unsigned int i = 0; i < count;) {
        unsigned int pid = n->account_pids[i], times = 0;
        while (i < count && n->account_pids[i] == pid)
            i++, times++;
        int found;
        size_t at = seen_slot(n, dev_index, pid, &found);
        if (found && n->seen[at].times == times)
            continue;
        nvmlAccountingStats_t st;
        memset(&st, 0, sizeof st);
        if (n->accounting_stats(dev, pid, &st) != NVML_SUCCESS)
            continue; /* gone from the buffer meanwhile */
        if (!st.isRunning) {
            if (seen_put(n, dev_index, pid, times) < 0)
                return -1;
            if (st.startTime < g->opened_us)
                continue; /* ended, and began before tracking did: not the job's */
        }
        struct gpu_account_record r = {
            .pid = (pid_t)pid, .device = dev_index, .max_bytes = st.maxMemoryUsage,
            .util_percent = st.gpuUtilization, .time_ms = st.time, .start_us = st.startTime,
            .running = st.isRunning != 0,
        };
        if (gpu_add_record(g, &r) < 0)
            return -1;
    }
    return 0;
}

/* Device dev_index's clock throttle reasons into s; the first failure sets
 * the reason, and no more are asked for. */
static void read_throttle(struct gpu_vendor *g, struct nvml *n, int dev_index,
                          struct gpu_sample *s)
{
    if (!n->throttle || *g->throttle_reason)
        return;
    unsigned long long reasons = 0;
    nvmlReturn_t rc = n->throttle(n->physical[dev_index], &reasons);
    if (rc != NVML_SUCCESS) {
        snprintf(g->throttle_reason, sizeof g->throttle_reason,
                 "GPU %d does not report why its clocks are lowered: %s", dev_index,
                 nvml_error(n, rc));
        return;
    }
    s->throttle_read |= 1ULL << dev_index;
    /* NVML's reason bits are enum gpu_throttle's, in the same order. */
    s->device_throttle[dev_index] = (unsigned)(reasons & ((1ULL << GPU_THROTTLE_N) - 1));
}

/* Device dev_index's volatile ECC error counts into s. */
static void read_ecc(struct gpu_vendor *g, struct nvml *n, int dev_index, struct gpu_sample *s)
{
    if (!n->ecc || *g->ecc_reason || !n->first_of_physical[dev_index])
        return; /* a GPU's counters once, with its first listed device */
    nvmlDevice_t dev = n->physical[dev_index];
    nvmlReturn_t rc = n->ecc(dev, NVML_MEMORY_ERROR_CORRECTED, NVML_VOLATILE_ECC,
                             &s->ecc_corrected[dev_index]);
    if (rc == NVML_SUCCESS)
        rc = n->ecc(dev, NVML_MEMORY_ERROR_UNCORRECTED, NVML_VOLATILE_ECC,
                    &s->ecc_uncorrected[dev_index]);
    if (rc != NVML_SUCCESS) {
        snprintf(g->ecc_reason, sizeof g->ecc_reason,
                 "GPU %d does not count ECC errors (ECC off, or not supported): %s", dev_index,
                 nvml_error(n, rc));
        return;
    }
    s->ecc_read |= 1ULL << dev_index;
}

/* The XID events queued since the last sample into s (at most
 * NVML_XID_PER_SAMPLE; the rest at the next sample). */
static void read_xid_events(struct gpu_vendor *g, struct nvml *n, struct gpu_sample *s)
{
    if (!n->events)
        return;
    for (int k = 0; k < NVML_XID_PER_SAMPLE; k++) {
        nvmlEventData_t e;
        memset(&e, 0, sizeof e);
        nvmlReturn_t rc = n->event_wait(n->events, &e, 0);
        if (rc == NVML_ERROR_TIMEOUT)
            return;
        if (rc != NVML_SUCCESS) {
            snprintf(g->xid_reason, sizeof g->xid_reason, "NVML stopped reporting XID errors: %s",
                     nvml_error(n, rc));
            n->event_set_free(n->events);
            n->events = NULL;
            return;
        }
        if (!(e.eventType & NVML_EVENT_XID_CRITICAL))
            continue;
        s->xid_events++;
        s->xid_last = e.eventData;
        s->xid_last_device = -1;
        for (int i = g->ndevices - 1; i >= 0; i--)
            if (n->physical[i] == e.device || n->devices[i] == e.device)
                s->xid_last_device = i;
    }
}

static int nvml_sample(struct gpu_vendor *g, struct gpu_sample *s)
{
    struct nvml *n = g->state;
    double now = monotonic_now();
    int read_energy = gpu_energy_due(g, now);
    int slow = g->exact || n->slow_read_at == 0 || now - n->slow_read_at >= NVML_SLOW_PERIOD;
    s->accounting_read = !*g->accounting_reason &&
                         (g->exact || n->account_read_at == 0 ||
                          now - n->account_read_at >= NVML_ACCOUNTING_PERIOD);
    n->samples++;
    for (int i = 0; i < g->ndevices; i++) {
        /* The figures the verdicts need: on the devices the tree uses, and
         * on every device for a series or the exporter, and at the ends. */
        int wanted = g->exact || g->details || (g->tree_devices >> i & 1);
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
        if (n->gpu_instance[i] >= 0) {
            double u = read_gpm(g, n, i, now, s); /* a MIG instance: NVML's rates are the GPU's */
            if (u >= 0) {
                s->device_util[i] = u;
                if (g->devices[i].selected)
                    s->util_sum_percent += u;
            }
        } else {
            if (n->utilization && n->utilization(dev, &util) == NVML_SUCCESS) {
                s->device_util[i] = util.gpu;
                if (g->devices[i].selected)
                    s->util_sum_percent += util.gpu;
            }
            if (wanted)
                read_gpm(g, n, i, now, s);
            if (g->details && slow)
                read_pcie(n, i, s);
        }
        if (add_processes(g, n, n->compute, i) < 0)
            return -1;
        if (slow || n->graphics_seen[i]) {
            int listed = add_processes(g, n, n->graphics, i);
            if (listed < 0)
                return -1;
            n->graphics_seen[i] |= listed > 0;
        }
        if ((wanted && add_process_utilization(g, n, i, s) < 0) ||
            (s->accounting_read && read_accounting(g, n, i) < 0))
            return -1;
        if (wanted)
            read_throttle(g, n, i, s);
        if (g->exact)
            read_ecc(g, n, i, s);
        if (g->devices[i].selected && n->energy && !*g->energy_reason && n->gpu_instance[i] < 0) {
            if (read_energy && (rc = n->energy(dev, &n->energy_last[i])) != NVML_SUCCESS)
                snprintf(g->energy_reason, sizeof g->energy_reason,
                         "GPU %d does not report its energy: %s", i, nvml_error(n, rc));
            unsigned long long mj = n->energy_last[i];
            s->device_energy_mj[i] = mj >= n->energy_base[i] ? mj - n->energy_base[i] : 0;
            s->energy_mj += s->device_energy_mj[i];
            if (!*g->energy_reason)
                s->device_energy_read |= 1ULL << i;
        }
    }
    if (s->accounting_read)
        n->account_read_at = now;
    s->accounting_read = s->accounting_read && !*g->accounting_reason;
    if (slow) {
        read_xid_events(g, n, s);
        n->slow_read_at = now;
    }
    s->proc_util_ok = !*g->proc_util_reason;
    s->energy_ok = !*g->energy_reason;
    return 0;
}

static void nvml_shutdown(struct gpu_vendor *g)
{
    struct nvml *n = g->state;
    for (int k = 0; n && k < g->ndevices; k++)
        close_gpm(n, k);
    if (n && n->events)
        n->event_set_free(n->events);
    if (n)
        n->events = NULL;
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
    free(n->account_pids);
    free(n->seen);
    free(n->metrics_get);
}

const struct gpu_backend gpu_nvml_backend = {
    .brand = "nvidia",
    .library = "libnvidia-ml.so.1",
    .init = nvml_init,
    .sample = nvml_sample,
    .shutdown = nvml_shutdown,
    .release = nvml_release,
};
