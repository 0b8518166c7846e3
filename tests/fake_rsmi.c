/* fake_rsmi.c - a stand-in for librocm_smi64.so: exports the ROCm SMI
 * functions gpu-tracker calls, answering from a scenario file named by
 * FAKE_RSMI_SCENARIO, re-read at every call.
 *
 * Scenario lines ('#' starts a comment):
 *   init CODE                            rsmi_init returns CODE
 *   device HEXID NAME TOTAL USED BUSY    a GPU (bytes, bytes, percent)
 *   process PID BYTES                    a process's VRAM over all GPUs
 *   energy DEV COUNTER RESOLUTION        energy counter (x resolution = uJ)
 *   ecc DEV BLOCK CORRECTED UNCORRECTED  a block's ECC error counts (the block's
 *                                        bit, e.g. 1 UMC, 4 GFX); others: not
 *                                        supported
 *   pci DEV BDFID                        rsmi_dev_pci_id_get's answer (hex;
 *                                        none: NOT_SUPPORTED)
 *   activity DEV GFX UMC                 rsmi_dev_activity_metric_get's averages
 *                                        (percent; 65535: not given; none: NOT_SUPPORTED)
 *   throttle DEV BITS                    rsmi_dev_metrics_indep_throttle_status_get's
 *                                        SMU throttler bits (none: NOT_SUPPORTED)
 *   fail FUNCTION CODE                   FUNCTION returns CODE
 *   grows N AT                           the process list grows by N, for good,
 *                                        just before the AT-th fill (1-based)
 * rsmi_compute_process_info_get answers RSMI_STATUS_INSUFFICIENT_SIZE (11)
 * when the caller's buffer is too small, after filling what fits. */
#define _GNU_SOURCE
/* The functions this library exports are the vendor's API, declared by a
 * header we do not have: no prototypes of our own to give them. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEV 8
#define MAX_PROC 512

typedef struct {
    uint32_t process_id, pasid;
    uint64_t vram_usage, sdma_usage;
    uint32_t cu_occupancy;
} rsmi_process_info_t;

static struct {
    int init_code, ndev, nproc, nfail, grows, grows_at;
    struct {
        unsigned long long id, total, used, counter;
        char name[64];
        unsigned busy;
        float resolution;
    } dev[MAX_DEV];
    struct {
        unsigned pid;
        unsigned long long bytes;
    } proc[MAX_PROC];
    struct {
        char fn[96];
        int code;
    } fail[16];
    int activity_set[MAX_DEV], throttle_set[MAX_DEV];
    unsigned activity[MAX_DEV][2];
    unsigned long long throttle[MAX_DEV];
    int pci_set[MAX_DEV];
    unsigned long long pci[MAX_DEV];
    int necc;
    struct {
        int dev;
        unsigned block;
        unsigned long long corrected, uncorrected;
    } ecc[32];
} sc;

static int enter(const char *fn)
{
    memset(&sc, 0, sizeof sc);
    const char *path = getenv("FAKE_RSMI_SCENARIO");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char kind[32], a[96];
        unsigned long long x, y, z;
        unsigned u;
        int d;
        float res;
        if (sscanf(line, "%31s", kind) != 1 || kind[0] == '#')
            continue;
        if (!strcmp(kind, "init"))
            sscanf(line, "%*s %d", &sc.init_code);
        else if (!strcmp(kind, "grows"))
            sscanf(line, "%*s %d %d", &sc.grows, &sc.grows_at);
        else if (!strcmp(kind, "device") && sc.ndev < MAX_DEV &&
                 sscanf(line, "%*s %llx %63s %llu %llu %u", &x, a, &y, &z, &u) == 5) {
            sc.dev[sc.ndev].id = x;
            strcpy(sc.dev[sc.ndev].name, a);
            sc.dev[sc.ndev].total = y;
            sc.dev[sc.ndev].used = z;
            sc.dev[sc.ndev].busy = u;
            sc.ndev++;
        } else if (!strcmp(kind, "process") && sc.nproc < MAX_PROC &&
                   sscanf(line, "%*s %u %llu", &u, &x) == 2) {
            sc.proc[sc.nproc].pid = u;
            sc.proc[sc.nproc].bytes = x;
            sc.nproc++;
        } else if (!strcmp(kind, "energy") && sscanf(line, "%*s %d %llu %f", &d, &x, &res) == 3 &&
                   d >= 0 && d < MAX_DEV) {
            sc.dev[d].counter = x;
            sc.dev[d].resolution = res;
        } else if (!strcmp(kind, "activity") &&
                   sscanf(line, "%*s %d %llu %llu", &d, &x, &y) == 3 && d >= 0 && d < MAX_DEV) {
            sc.activity_set[d] = 1;
            sc.activity[d][0] = (unsigned)x;
            sc.activity[d][1] = (unsigned)y;
        } else if (!strcmp(kind, "throttle") && sscanf(line, "%*s %d %llx", &d, &x) == 2 &&
                   d >= 0 && d < MAX_DEV) {
            sc.throttle_set[d] = 1;
            sc.throttle[d] = x;
        } else if (!strcmp(kind, "pci") && sscanf(line, "%*s %d %llx", &d, &x) == 2 && d >= 0 &&
                   d < MAX_DEV) {
            sc.pci_set[d] = 1;
            sc.pci[d] = x;
        } else if (!strcmp(kind, "ecc") && sc.necc < 32 &&
                   sscanf(line, "%*s %d %u %llu %llu", &d, &u, &x, &y) == 4) {
            sc.ecc[sc.necc].dev = d;
            sc.ecc[sc.necc].block = u;
            sc.ecc[sc.necc].corrected = x;
            sc.ecc[sc.necc].uncorrected = y;
            sc.necc++;
        } else if (!strcmp(kind, "fail") && sc.nfail < 16 &&
                   sscanf(line, "%*s %95s %d", a, &d) == 2) {
            strcpy(sc.fail[sc.nfail].fn, a);
            sc.fail[sc.nfail].code = d;
            sc.nfail++;
        }
    }
    if (f)
        fclose(f);
    for (int i = 0; i < sc.nfail; i++)
        if (!strcmp(sc.fail[i].fn, fn))
            return sc.fail[i].code;
    return 0;
}

#define DEVICE_OR_FAIL(fn, i)                                                                      \
    int rc = enter(fn);                                                                            \
    if (rc)                                                                                        \
        return rc;                                                                                 \
    if ((int)(i) >= sc.ndev)                                                                       \
        return 1 /* RSMI_STATUS_INVALID_ARGS */

int rsmi_init(uint64_t flags)
{
    (void)flags;
    int rc = enter("rsmi_init");
    return rc ? rc : sc.init_code;
}

int rsmi_shut_down(void)
{
    return 0;
}

int rsmi_status_string(int status, const char **out)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "fake ROCm SMI error %d", status);
    *out = buf;
    return 0;
}

int rsmi_num_monitor_devices(uint32_t *n)
{
    int rc = enter("rsmi_num_monitor_devices");
    if (!rc)
        *n = (uint32_t)sc.ndev;
    return rc;
}

int rsmi_dev_unique_id_get(uint32_t i, uint64_t *id)
{
    DEVICE_OR_FAIL("rsmi_dev_unique_id_get", i);
    *id = sc.dev[i].id;
    return 0;
}

int rsmi_dev_name_get(uint32_t i, char *name, size_t len)
{
    DEVICE_OR_FAIL("rsmi_dev_name_get", i);
    snprintf(name, len, "%s", sc.dev[i].name);
    return 0;
}

int rsmi_dev_memory_total_get(uint32_t i, int type, uint64_t *total)
{
    DEVICE_OR_FAIL("rsmi_dev_memory_total_get", i);
    *total = type == 0 ? sc.dev[i].total : 0;
    return 0;
}

int rsmi_dev_memory_usage_get(uint32_t i, int type, uint64_t *used)
{
    DEVICE_OR_FAIL("rsmi_dev_memory_usage_get", i);
    *used = type == 0 ? sc.dev[i].used : 0;
    return 0;
}

int rsmi_dev_busy_percent_get(uint32_t i, uint32_t *busy)
{
    DEVICE_OR_FAIL("rsmi_dev_busy_percent_get", i);
    *busy = sc.dev[i].busy;
    return 0;
}

int rsmi_dev_energy_count_get(uint32_t i, uint64_t *counter, float *resolution, uint64_t *ts)
{
    DEVICE_OR_FAIL("rsmi_dev_energy_count_get", i);
    *counter = sc.dev[i].counter;
    *resolution = sc.dev[i].resolution;
    *ts = 0;
    return 0;
}

typedef struct {
    uint64_t correctable_err, uncorrectable_err;
} rsmi_error_count_t;

int rsmi_dev_ecc_count_get(uint32_t i, unsigned block, rsmi_error_count_t *ec)
{
    DEVICE_OR_FAIL("rsmi_dev_ecc_count_get", i);
    for (int k = 0; k < sc.necc; k++)
        if (sc.ecc[k].dev == (int)i && sc.ecc[k].block == block) {
            ec->correctable_err = sc.ecc[k].corrected;
            ec->uncorrectable_err = sc.ecc[k].uncorrected;
            return 0;
        }
    return 2; /* RSMI_STATUS_NOT_SUPPORTED */
}

typedef struct {
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
} rsmi_activity_metric_counter_t;

int rsmi_dev_activity_metric_get(uint32_t i, unsigned which, rsmi_activity_metric_counter_t *c)
{
    DEVICE_OR_FAIL("rsmi_dev_activity_metric_get", i);
    if (!sc.activity_set[i])
        return 2;
    c->average_gfx_activity = (which & 1) ? (uint16_t)sc.activity[i][0] : 0xFFFF;
    c->average_umc_activity = (which & 2) ? (uint16_t)sc.activity[i][1] : 0xFFFF;
    c->average_mm_activity = 0xFFFF;
    return 0;
}

int rsmi_dev_metrics_indep_throttle_status_get(uint32_t i, uint64_t *bits)
{
    DEVICE_OR_FAIL("rsmi_dev_metrics_indep_throttle_status_get", i);
    if (!sc.throttle_set[i])
        return 2;
    *bits = sc.throttle[i];
    return 0;
}

int rsmi_dev_pci_id_get(uint32_t i, uint64_t *bdfid)
{
    DEVICE_OR_FAIL("rsmi_dev_pci_id_get", i);
    if (!sc.pci_set[i])
        return 2; /* NOT_SUPPORTED */
    *bdfid = sc.pci[i];
    return 0;
}

int rsmi_compute_process_info_get(rsmi_process_info_t *procs, uint32_t *n)
{
    int rc = enter("rsmi_compute_process_info_get");
    if (rc)
        return rc;
    /* With "grows", the AT-th fill finds more processes than the count
     * before it said, and they stay. */
    static int fills, grown;
    if (procs && sc.grows && ++fills == sc.grows_at)
        grown = 1;
    for (int k = 0; grown && k < sc.grows && sc.nproc < MAX_PROC; k++, sc.nproc++) {
        sc.proc[sc.nproc].pid = 60000u + (unsigned)k;
        sc.proc[sc.nproc].bytes = 1;
    }
    if (!procs) {
        *n = (uint32_t)sc.nproc;
        return 0;
    }
    uint32_t fit = *n < (uint32_t)sc.nproc ? *n : (uint32_t)sc.nproc;
    for (uint32_t k = 0; k < fit; k++) {
        memset(&procs[k], 0, sizeof procs[k]);
        procs[k].process_id = sc.proc[k].pid;
        procs[k].vram_usage = sc.proc[k].bytes;
    }
    int short_buffer = *n < (uint32_t)sc.nproc;
    *n = fit;
    return short_buffer ? 11 : 0;
}
