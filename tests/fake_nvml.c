/* fake_nvml.c - a stand-in for libnvidia-ml.so.1: exports the NVML functions
 * gpu-tracker calls, answering from a scenario file named by the environment
 * variable FAKE_NVML_SCENARIO, re-read at every call (tests change it while
 * a tracker runs). Built twice: in full, and with -DFAKE_NVML_MINIMAL
 * without the optional functions (name, utilization, process lists).
 *
 * Scenario lines ('#' starts a comment):
 *   init CODE                          nvmlInit_v2 returns CODE
 *   device UUID NAME TOTAL USED UTIL   a GPU (bytes, bytes, percent)
 *   process DEV PID BYTES [graphics]   a process on device DEV (0-based)
 *   fail FUNCTION CODE                 FUNCTION returns CODE
 *   procutil DEV PID SM                a per-process utilization sample
 *   energy DEV MILLIJOULES             energy used since the driver loaded
 *   block FUNCTION FIFO                FUNCTION hangs until FIFO's writer closes
 *   accounting DEV on|off              the GPU's accounting mode (default off)
 *   record DEV PID MAXBYTES START_US RUNNING [UTIL TIME_MS]
 *                                      an accounting record (START_US: epoch
 *                                      microseconds; RUNNING 0 or 1)
 *   throttle DEV BITS                  clocks event reasons (NVML's bits)
 *   ecc DEV CORRECTED UNCORRECTED      volatile ECC error counts
 *   xid DEV CODE                       an XID event, delivered once
 *   minor DEV N                        its device file /dev/nvidiaN (default: DEV)
 *   mig DEV on                         the GPU is in MIG mode (its instances below)
 *   migdevice DEV SLOT GI UUID NAME TOTAL USED
 *                                      MIG instance SLOT of DEV, GPU instance GI
 *   migprocess DEV SLOT PID BYTES      a process on that instance
 *   gpm DEV GI PERCENT                 GPM graphics activity of GPU instance GI
 *   gpmmetric DEV GI ID VALUE          GPM metric ID (nvml.h's NVML_GPM_METRIC_*) over
 *                                      any pair of samples of the whole GPU (GI -1) or
 *                                      of GPU instance GI; a metric not given answers
 *                                      NOT_SUPPORTED in its entry, as on an older GPU
 *   gpmsupport DEV 0|1                 whether the GPU has GPM (default 1)
 *   pcie DEV TX_KB RX_KB               nvmlDeviceGetPcieThroughput's KB/s
 *   cost MICROSECONDS                  every device call (nvmlDevice*, nvmlEvent*, nvmlGpm*)
 *                                      spins that much of its thread's CPU first:
 *                                      a driver whose calls all cost the same, for
 *                                      the benchmark (gt-bench ... gpu-standin)
 * MIG instances answer NOT_SUPPORTED for the whole-GPU utilization and
 * per-process utilization, as the driver does.
 * Process lists answer NVML_ERROR_INSUFFICIENT_SIZE (with the count needed)
 * when the caller's buffer is too small, as the real library does. */
#define _GNU_SOURCE
/* The functions this library exports are the vendor's API, declared by a
 * header we do not have: no prototypes of our own to give them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEV 80 /* more than the tracker's 64: its limit is tested */
#define MAX_PROC 256
#define MAX_FAIL 16

typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
typedef void *nvmlDevice_t;

struct scenario {
    int init_code;
    long cost_us;
    int ndev;
    struct {
        char uuid[96], name[96];
        unsigned long long total, used;
        unsigned util;
    } dev[MAX_DEV];
    int nproc;
    struct {
        int dev, graphics;
        unsigned pid;
        unsigned long long bytes;
    } proc[MAX_PROC];
    int nfail;
    struct {
        char fn[96];
        int code;
    } fail[MAX_FAIL];
    int nutil;
    struct {
        int dev;
        unsigned pid, sm;
    } util[MAX_PROC];
    unsigned long long energy[MAX_DEV];
    int accounting[MAX_DEV];
    int nrec;
    struct {
        int dev, running;
        unsigned pid, util;
        unsigned long long max, start, time;
    } rec[MAX_PROC];
    int throttle_set[MAX_DEV];
    unsigned long long throttle[MAX_DEV];
    int ecc_set[MAX_DEV];
    unsigned long long ecc[MAX_DEV][2];
    int minor_set[MAX_DEV], minor[MAX_DEV];
    int mig[MAX_DEV];
    int nmig;
    struct {
        int dev, slot, gi;
        char uuid[96], name[96];
        unsigned long long total, used;
    } migdev[MAX_PROC];
    int nmigproc;
    struct {
        int dev, slot;
        unsigned pid;
        unsigned long long bytes;
    } migproc[MAX_PROC];
    int ngpm;
    struct {
        int dev, gi;
        unsigned id;
        double value;
    } gpm[MAX_PROC];
    int gpm_unsupported[MAX_DEV];
    int pcie_set[MAX_DEV];
    unsigned pcie[MAX_DEV][2];
    int nxid;
    struct {
        int dev;
        unsigned long long code;
    } xid[MAX_PROC];
};

static struct scenario sc;

static void load(void)
{
    memset(&sc, 0, sizeof sc);
    const char *path = getenv("FAKE_NVML_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char kind[32], a[96], b[96], g[16] = "";
        unsigned long long x, y;
        unsigned u;
        int dev, code;
        long long bits;
        if (sscanf(line, "%31s", kind) != 1 || kind[0] == '#')
            continue;
        if (!strcmp(kind, "init") && sscanf(line, "%*s %d", &code) == 1)
            sc.init_code = code;
        else if (!strcmp(kind, "cost") && sscanf(line, "%*s %llu", &x) == 1 && x <= 1000000)
            sc.cost_us = (long)x;
        else if (!strcmp(kind, "device") && sc.ndev < MAX_DEV &&
                 sscanf(line, "%*s %95s %95s %llu %llu %u", a, b, &x, &y, &u) == 5) {
            strcpy(sc.dev[sc.ndev].uuid, a);
            strcpy(sc.dev[sc.ndev].name, b);
            sc.dev[sc.ndev].total = x;
            sc.dev[sc.ndev].used = y;
            sc.dev[sc.ndev].util = u;
            sc.ndev++;
        } else if (!strcmp(kind, "process") && sc.nproc < MAX_PROC &&
                   sscanf(line, "%*s %d %u %llu %15s", &dev, &u, &x, g) >= 3) {
            sc.proc[sc.nproc].dev = dev;
            sc.proc[sc.nproc].pid = u;
            sc.proc[sc.nproc].bytes = x;
            sc.proc[sc.nproc].graphics = !strcmp(g, "graphics");
            sc.nproc++;
        } else if (!strcmp(kind, "procutil") && sc.nutil < MAX_PROC &&
                   sscanf(line, "%*s %d %u %u", &dev, &u, &code) == 3) {
            sc.util[sc.nutil].dev = dev;
            sc.util[sc.nutil].pid = u;
            sc.util[sc.nutil].sm = (unsigned)code;
            sc.nutil++;
        } else if (!strcmp(kind, "energy") && sscanf(line, "%*s %d %llu", &dev, &x) == 2 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.energy[dev] = x;
        } else if (!strcmp(kind, "accounting") && sscanf(line, "%*s %d %95s", &dev, a) == 2 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.accounting[dev] = !strcmp(a, "on");
        } else if (!strcmp(kind, "record") && sc.nrec < MAX_PROC) {
            unsigned long long start = 0, tm = 0;
            unsigned util = 0;
            int running = 0;
            if (sscanf(line, "%*s %d %u %llu %llu %d %u %llu", &dev, &u, &x, &start, &running,
                       &util, &tm) >= 5) {
                sc.rec[sc.nrec].dev = dev;
                sc.rec[sc.nrec].pid = u;
                sc.rec[sc.nrec].max = x;
                sc.rec[sc.nrec].start = start;
                sc.rec[sc.nrec].running = running;
                sc.rec[sc.nrec].util = util;
                sc.rec[sc.nrec].time = tm;
                sc.nrec++;
            }
        } else if (!strcmp(kind, "throttle") && sscanf(line, "%*s %d %lli", &dev, &bits) == 2 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.throttle_set[dev] = 1;
            sc.throttle[dev] = (unsigned long long)bits;
        } else if (!strcmp(kind, "ecc") && sscanf(line, "%*s %d %llu %llu", &dev, &x, &y) == 3 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.ecc_set[dev] = 1;
            sc.ecc[dev][0] = x;
            sc.ecc[dev][1] = y;
        } else if (!strcmp(kind, "mig") && sscanf(line, "%*s %d %95s", &dev, a) == 2 && dev >= 0 &&
                   dev < MAX_DEV) {
            sc.mig[dev] = !strcmp(a, "on");
        } else if (!strcmp(kind, "migdevice") && sc.nmig < MAX_PROC) {
            int slot, gi;
            if (sscanf(line, "%*s %d %d %d %95s %95s %llu %llu", &dev, &slot, &gi, a, b, &x, &y) ==
                7) {
                sc.migdev[sc.nmig].dev = dev;
                sc.migdev[sc.nmig].slot = slot;
                sc.migdev[sc.nmig].gi = gi;
                strcpy(sc.migdev[sc.nmig].uuid, a);
                strcpy(sc.migdev[sc.nmig].name, b);
                sc.migdev[sc.nmig].total = x;
                sc.migdev[sc.nmig].used = y;
                sc.nmig++;
            }
        } else if (!strcmp(kind, "migprocess") && sc.nmigproc < MAX_PROC) {
            int slot;
            if (sscanf(line, "%*s %d %d %u %llu", &dev, &slot, &u, &x) == 4) {
                sc.migproc[sc.nmigproc].dev = dev;
                sc.migproc[sc.nmigproc].slot = slot;
                sc.migproc[sc.nmigproc].pid = u;
                sc.migproc[sc.nmigproc].bytes = x;
                sc.nmigproc++;
            }
        } else if (!strcmp(kind, "gpm") && sc.ngpm < MAX_PROC) {
            int gi;
            double pct;
            if (sscanf(line, "%*s %d %d %lf", &dev, &gi, &pct) == 3) {
                sc.gpm[sc.ngpm].dev = dev;
                sc.gpm[sc.ngpm].gi = gi;
                sc.gpm[sc.ngpm].id = 1; /* graphics activity */
                sc.gpm[sc.ngpm].value = pct;
                sc.ngpm++;
            }
        } else if (!strcmp(kind, "gpmmetric") && sc.ngpm < MAX_PROC) {
            int gi;
            double value;
            if (sscanf(line, "%*s %d %d %u %lf", &dev, &gi, &u, &value) == 4) {
                sc.gpm[sc.ngpm].dev = dev;
                sc.gpm[sc.ngpm].gi = gi;
                sc.gpm[sc.ngpm].id = u;
                sc.gpm[sc.ngpm].value = value;
                sc.ngpm++;
            }
        } else if (!strcmp(kind, "gpmsupport") && sscanf(line, "%*s %d %d", &dev, &code) == 2 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.gpm_unsupported[dev] = !code;
        } else if (!strcmp(kind, "pcie") && sscanf(line, "%*s %d %llu %llu", &dev, &x, &y) == 3 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.pcie_set[dev] = 1;
            sc.pcie[dev][0] = (unsigned)x;
            sc.pcie[dev][1] = (unsigned)y;
        } else if (!strcmp(kind, "minor") && sscanf(line, "%*s %d %d", &dev, &code) == 2 &&
                   dev >= 0 && dev < MAX_DEV) {
            sc.minor_set[dev] = 1;
            sc.minor[dev] = code;
        } else if (!strcmp(kind, "xid") && sc.nxid < MAX_PROC &&
                   sscanf(line, "%*s %d %llu", &dev, &x) == 2) {
            sc.xid[sc.nxid].dev = dev;
            sc.xid[sc.nxid].code = x;
            sc.nxid++;
        } else if (!strcmp(kind, "fail") && sc.nfail < MAX_FAIL &&
                   sscanf(line, "%*s %95s %d", a, &code) == 2) {
            strcpy(sc.fail[sc.nfail].fn, a);
            sc.fail[sc.nfail].code = code;
            sc.nfail++;
        }
    }
    if (f)
        fclose(f);
}

/* Hangs if the scenario says fn blocks: until the FIFO's writer closes. */
static void maybe_block(const char *fn)
{
    const char *path = getenv("FAKE_NVML_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[512], name[96], fifo[400];
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "block %95s %399s", name, fifo) == 2 && !strcmp(name, fn)) {
            int fd = open(fifo, O_RDONLY);
            char c;
            while (fd >= 0 && read(fd, &c, 1) > 0)
                ;
            if (fd >= 0)
                close(fd);
        }
    }
    if (f)
        fclose(f);
}

/* Spins until this thread has run us microseconds more: CPU time, as a
 * driver's ioctls cost, not a sleep. */
static void spend(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

/* Reloads the scenario; the code the scenario makes fn return, or 0. */
static int enter(const char *fn)
{
    /* FAKE_NVML_CALLS=FILE: each call's name appended to FILE, for tests of
     * how often a call is made. */
    const char *log = getenv("FAKE_NVML_CALLS");
    FILE *calls = log ? fopen(log, "a") : NULL;
    if (calls) {
        fprintf(calls, "%s\n", fn);
        fclose(calls);
    }
    maybe_block(fn);
    load();
    if (sc.cost_us && (!strncmp(fn, "nvmlDevice", 10) || !strncmp(fn, "nvmlEvent", 9) ||
                       !strncmp(fn, "nvmlGpm", 7)))
        spend(sc.cost_us);
    for (int i = 0; i < sc.nfail; i++)
        if (!strcmp(sc.fail[i].fn, fn))
            return sc.fail[i].code;
    return 0;
}

static int device_index(nvmlDevice_t d)
{
    intptr_t i = (intptr_t)d - 1;
    return i >= 0 && i < sc.ndev ? (int)i : -1;
}

/* MIG instance handles: 1000 + 64 * DEV + SLOT. */
#define MIG_HANDLE_BASE 1000

/* The scenario's MIG instance a handle names, -1 when it names none. */
static int mig_index(nvmlDevice_t d)
{
    intptr_t h = (intptr_t)d - MIG_HANDLE_BASE;
    if (h < 0)
        return -1;
    for (int k = 0; k < sc.nmig; k++)
        if (sc.migdev[k].dev == (int)(h / 64) && sc.migdev[k].slot == (int)(h % 64))
            return k;
    return -1;
}

int nvmlInit_v2(void)
{
    int rc = enter("nvmlInit_v2");
    return rc ? rc : sc.init_code;
}

int nvmlShutdown(void)
{
    return 0;
}

const char *nvmlErrorString(int rc)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "fake NVML error %d", rc);
    return buf;
}

int nvmlDeviceGetCount_v2(unsigned *count)
{
    int rc = enter("nvmlDeviceGetCount_v2");
    if (!rc)
        *count = (unsigned)sc.ndev;
    return rc;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
    int rc = enter("nvmlDeviceGetHandleByIndex_v2");
    if (rc)
        return rc;
    if ((int)i >= sc.ndev)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *d = (nvmlDevice_t)(intptr_t)(i + 1);
    return 0;
}

int nvmlDeviceGetUUID(nvmlDevice_t d, char *out, unsigned len)
{
    int rc = enter("nvmlDeviceGetUUID");
    int i = device_index(d), m = mig_index(d);
    if (!rc && m >= 0) {
        snprintf(out, len, "%s", sc.migdev[m].uuid);
        return 0;
    }
    if (rc || i < 0)
        return rc ? rc : 2;
    snprintf(out, len, "%s", sc.dev[i].uuid);
    return 0;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    int rc = enter("nvmlDeviceGetMemoryInfo");
    int i = device_index(d), k = mig_index(d);
    if (!rc && k >= 0) {
        m->total = sc.migdev[k].total;
        m->used = sc.migdev[k].used;
        m->free = m->total - m->used;
        return 0;
    }
    if (rc || i < 0)
        return rc ? rc : 2;
    m->total = sc.dev[i].total;
    m->used = sc.dev[i].used;
    m->free = m->total - m->used;
    return 0;
}

#ifndef FAKE_NVML_MINIMAL
int nvmlDeviceGetName(nvmlDevice_t d, char *out, unsigned len)
{
    int rc = enter("nvmlDeviceGetName");
    int i = device_index(d), m = mig_index(d);
    if (!rc && m >= 0) {
        snprintf(out, len, "%s", sc.migdev[m].name);
        return 0;
    }
    if (rc || i < 0)
        return rc ? rc : 2;
    snprintf(out, len, "%s", sc.dev[i].name);
    return 0;
}

int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    int rc = enter("nvmlDeviceGetUtilizationRates");
    if (!rc && mig_index(d) >= 0)
        return 3; /* NOT_SUPPORTED on a MIG instance */
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    u->gpu = sc.dev[i].util;
    u->memory = 0;
    return 0;
}

static int processes(const char *fn, int graphics, nvmlDevice_t d, unsigned *count,
                     nvmlProcessInfo_t *infos)
{
    int rc = enter(fn);
    int k = mig_index(d);
    if (!rc && k >= 0) { /* a MIG instance's own processes (compute only) */
        unsigned n = 0;
        for (int p = 0; p < sc.nmigproc && !graphics; p++)
            n += sc.migproc[p].dev == sc.migdev[k].dev && sc.migproc[p].slot == sc.migdev[k].slot;
        if (n > *count) {
            *count = n;
            return 7;
        }
        n = 0;
        for (int p = 0; p < sc.nmigproc && !graphics; p++)
            if (sc.migproc[p].dev == sc.migdev[k].dev && sc.migproc[p].slot == sc.migdev[k].slot) {
                infos[n].pid = sc.migproc[p].pid;
                infos[n].usedGpuMemory = sc.migproc[p].bytes;
                infos[n].gpuInstanceId = (unsigned)sc.migdev[k].gi;
                infos[n].computeInstanceId = 0;
                n++;
            }
        *count = n;
        return 0;
    }
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    unsigned n = 0;
    for (int p = 0; p < sc.nproc; p++)
        if (sc.proc[p].dev == i && sc.proc[p].graphics == graphics)
            n++;
    if (n > *count) {
        *count = n;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    n = 0;
    for (int p = 0; p < sc.nproc; p++)
        if (sc.proc[p].dev == i && sc.proc[p].graphics == graphics) {
            infos[n].pid = sc.proc[p].pid;
            infos[n].usedGpuMemory = sc.proc[p].bytes;
            infos[n].gpuInstanceId = infos[n].computeInstanceId = 0xFFFFFFFFu;
            n++;
        }
    *count = n;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count,
                                            nvmlProcessInfo_t *infos)
{
    return processes("nvmlDeviceGetComputeRunningProcesses_v3", 0, d, count, infos);
}

int nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t d, unsigned *count,
                                             nvmlProcessInfo_t *infos)
{
    return processes("nvmlDeviceGetGraphicsRunningProcesses_v3", 1, d, count, infos);
}

typedef struct {
    unsigned int pid;
    unsigned long long timeStamp;
    unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

/* Each query's samples are newer than the previous query's. */
static unsigned long long clock_us = 1000;

int nvmlDeviceGetProcessUtilization(nvmlDevice_t d, nvmlProcessUtilizationSample_t *out,
                                    unsigned *count, unsigned long long last_seen)
{
    int rc = enter("nvmlDeviceGetProcessUtilization");
    if (!rc && mig_index(d) >= 0)
        return 3; /* NOT_SUPPORTED on a MIG instance */
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    (void)last_seen;
    unsigned n = 0;
    for (int k = 0; k < sc.nutil; k++)
        n += sc.util[k].dev == i;
    if (n == 0)
        return 6; /* NVML_ERROR_NOT_FOUND: no sample */
    if (!out || *count < n) {
        *count = n;
        return 7;
    }
    clock_us += 1000;
    n = 0;
    for (int k = 0; k < sc.nutil; k++)
        if (sc.util[k].dev == i) {
            memset(&out[n], 0, sizeof out[n]);
            out[n].pid = sc.util[k].pid;
            out[n].timeStamp = clock_us;
            out[n].smUtil = sc.util[k].sm;
            n++;
        }
    *count = n;
    return 0;
}

int nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *current, unsigned *pending)
{
    int rc = enter("nvmlDeviceGetMigMode");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    *current = *pending = (unsigned)sc.mig[i];
    return 0;
}

int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned *count)
{
    int rc = enter("nvmlDeviceGetMaxMigDeviceCount");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    *count = 7;
    return 0;
}

int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned slot, nvmlDevice_t *out)
{
    int rc = enter("nvmlDeviceGetMigDeviceHandleByIndex");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    for (int k = 0; k < sc.nmig; k++)
        if (sc.migdev[k].dev == i && sc.migdev[k].slot == (int)slot) {
            *out = (nvmlDevice_t)(intptr_t)(MIG_HANDLE_BASE + 64 * i + (int)slot);
            return 0;
        }
    return 6; /* NOT_FOUND: an empty slot */
}

int nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned *gi)
{
    int rc = enter("nvmlDeviceGetGpuInstanceId");
    int k = mig_index(d);
    if (rc || k < 0)
        return rc ? rc : 2;
    *gi = (unsigned)sc.migdev[k].gi;
    return 0;
}

typedef struct {
    unsigned int version, isSupportedDevice;
} nvmlGpmSupport_t;

int nvmlGpmQueryDeviceSupport(nvmlDevice_t d, nvmlGpmSupport_t *support)
{
    int rc = enter("nvmlGpmQueryDeviceSupport");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    if (support->version != 1)
        return 25; /* ARGUMENT_VERSION_MISMATCH */
    support->isSupportedDevice = !sc.gpm_unsupported[i];
    return 0;
}

/* A GPM sample: which GPU instance it was taken of, and when. */
struct fake_gpm_sample {
    int dev, gi;
    unsigned long long at;
};

int nvmlGpmSampleAlloc(struct fake_gpm_sample **s)
{
    int rc = enter("nvmlGpmSampleAlloc");
    if (rc)
        return rc;
    *s = calloc(1, sizeof **s);
    return *s ? 0 : 2;
}

int nvmlGpmSampleFree(struct fake_gpm_sample *s)
{
    free(s);
    return 0;
}

static unsigned long long gpm_clock;

int nvmlGpmMigSampleGet(nvmlDevice_t d, unsigned gi, struct fake_gpm_sample *s)
{
    int rc = enter("nvmlGpmMigSampleGet");
    int i = device_index(d);
    if (rc || i < 0 || !s)
        return rc ? rc : 2;
    s->dev = i;
    s->gi = (int)gi;
    s->at = ++gpm_clock;
    return 0;
}

/* A sample of the whole GPU: GPU instance -1. */
int nvmlGpmSampleGet(nvmlDevice_t d, struct fake_gpm_sample *s)
{
    int rc = enter("nvmlGpmSampleGet");
    int i = device_index(d);
    if (rc || i < 0 || !s)
        return rc ? rc : 2;
    if (sc.gpm_unsupported[i])
        return 3;
    s->dev = i;
    s->gi = -1;
    s->at = ++gpm_clock;
    return 0;
}

int nvmlDeviceGetPcieThroughput(nvmlDevice_t d, int counter, unsigned *value)
{
    int rc = enter("nvmlDeviceGetPcieThroughput");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    if (!sc.pcie_set[i] || counter < 0 || counter > 1)
        return 3;
    *value = sc.pcie[i][counter];
    return 0;
}

typedef struct {
    unsigned int metricId;
    int nvmlReturn;
    double value;
    struct {
        char *shortName, *longName, *unit;
    } metricInfo;
} nvmlGpmMetric_t;
typedef struct {
    unsigned int version, numMetrics;
    struct fake_gpm_sample *sample1, *sample2;
    nvmlGpmMetric_t metrics[210];
} nvmlGpmMetricsGet_t;

/* The scenario's metrics of the GPU or instance both samples are of; an
 * entry with no figure answers NOT_SUPPORTED. */
int nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *mg)
{
    int rc = enter("nvmlGpmMetricsGet");
    if (rc)
        return rc;
    if (mg->version != 1 || !mg->sample1 || !mg->sample2 || mg->sample1->at >= mg->sample2->at ||
        mg->sample1->dev != mg->sample2->dev || mg->sample1->gi != mg->sample2->gi)
        return 2;
    for (unsigned m = 0; m < mg->numMetrics && m < 210; m++) {
        mg->metrics[m].nvmlReturn = 3;
        for (int k = 0; k < sc.ngpm; k++)
            if (sc.gpm[k].dev == mg->sample2->dev && sc.gpm[k].gi == mg->sample2->gi &&
                sc.gpm[k].id == mg->metrics[m].metricId) {
                mg->metrics[m].value = sc.gpm[k].value;
                mg->metrics[m].nvmlReturn = 0;
            }
    }
    return 0;
}

int nvmlDeviceGetMinorNumber(nvmlDevice_t d, unsigned *minor)
{
    int rc = enter("nvmlDeviceGetMinorNumber");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    *minor = (unsigned)(sc.minor_set[i] ? sc.minor[i] : i);
    return 0;
}

int nvmlDeviceGetAccountingMode(nvmlDevice_t d, int *mode)
{
    int rc = enter("nvmlDeviceGetAccountingMode");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    *mode = sc.accounting[i];
    return 0;
}

int nvmlDeviceGetAccountingPids(nvmlDevice_t d, unsigned *count, unsigned *pids)
{
    int rc = enter("nvmlDeviceGetAccountingPids");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    if (!sc.accounting[i])
        return 3; /* NOT_SUPPORTED: the mode is off */
    unsigned n = 0;
    for (int k = 0; k < sc.nrec; k++)
        n += sc.rec[k].dev == i;
    if (n > *count) {
        *count = n;
        return 7;
    }
    n = 0;
    for (int k = 0; k < sc.nrec; k++)
        if (sc.rec[k].dev == i)
            pids[n++] = sc.rec[k].pid;
    *count = n;
    return 0;
}

typedef struct {
    unsigned int gpuUtilization, memoryUtilization;
    unsigned long long maxMemoryUsage, time, startTime;
    unsigned int isRunning;
    unsigned int reserved[5];
} nvmlAccountingStats_t;

/* The newest (last listed) record of pid on the device, as the driver does. */
int nvmlDeviceGetAccountingStats(nvmlDevice_t d, unsigned pid, nvmlAccountingStats_t *st)
{
    int rc = enter("nvmlDeviceGetAccountingStats");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    int found = -1;
    for (int k = 0; k < sc.nrec; k++)
        if (sc.rec[k].dev == i && sc.rec[k].pid == pid)
            found = k;
    if (found < 0)
        return 6; /* NOT_FOUND */
    memset(st, 0, sizeof *st);
    st->gpuUtilization = sc.rec[found].util;
    st->maxMemoryUsage = sc.rec[found].max;
    st->time = sc.rec[found].time;
    st->startTime = sc.rec[found].start;
    st->isRunning = (unsigned)sc.rec[found].running;
    return 0;
}

static int throttle_reasons(const char *fn, nvmlDevice_t d, unsigned long long *reasons)
{
    int rc = enter(fn);
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    if (!sc.throttle_set[i])
        return 3;
    *reasons = sc.throttle[i];
    return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *reasons)
{
    return throttle_reasons("nvmlDeviceGetCurrentClocksEventReasons", d, reasons);
}

int nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n)
{
    int rc = enter("nvmlDeviceGetTotalEccErrors");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    if (!sc.ecc_set[i] || counter != 0 || type < 0 || type > 1)
        return 3;
    *n = sc.ecc[i][type];
    return 0;
}

typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType, eventData;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

static int events_made, xid_delivered, xid_registered;

int nvmlEventSetCreate(void **set)
{
    int rc = enter("nvmlEventSetCreate");
    if (rc)
        return rc;
    *set = &events_made;
    events_made++;
    return 0;
}

int nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, void *set)
{
    int rc = enter("nvmlDeviceRegisterEvents");
    if (rc || device_index(d) < 0 || set != &events_made)
        return rc ? rc : 2;
    xid_registered |= (types & 0x8) != 0;
    return 0;
}

int nvmlEventSetWait_v2(void *set, nvmlEventData_t *data, unsigned timeout_ms)
{
    int rc = enter("nvmlEventSetWait_v2");
    (void)timeout_ms;
    if (rc || set != &events_made)
        return rc ? rc : 2;
    if (!xid_registered || xid_delivered >= sc.nxid)
        return 10; /* TIMEOUT: nothing queued */
    memset(data, 0, sizeof *data);
    data->device = (nvmlDevice_t)(intptr_t)(sc.xid[xid_delivered].dev + 1);
    data->eventType = 0x8;
    data->eventData = sc.xid[xid_delivered].code;
    xid_delivered++;
    return 0;
}

int nvmlEventSetFree(void *set)
{
    (void)set;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    int rc = enter("nvmlDeviceGetTotalEnergyConsumption");
    int i = device_index(d);
    if (rc || i < 0)
        return rc ? rc : 2;
    *mj = sc.energy[i];
    return 0;
}
#endif
