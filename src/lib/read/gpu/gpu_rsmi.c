/* gpu_rsmi.c - AMD GPUs through ROCm SMI (librocm_smi64.so), declared here by
 * hand from AMD's documented API and loaded with dlopen at run time.
 *
 * A GPU's UUID is its 64-bit unique id in hex (rsmi_dev_unique_id_get), the
 * same string gpu-tracker lists and --guuids takes. Per-process memory is the
 * process's VRAM summed over GPUs (rsmi_compute_process_info_get). ROCm SMI
 * reports compute-unit occupancy rather than a utilization percent per
 * process: where it gives each GPU's PCI address, the kernel's DRM figures
 * of the tree's processes give their utilization (drm_clients.h). */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"
#include "common/dl_bind.h"
#include "read/gpu/drm_clients.h"
#include "read/gpu/gpu.h"
#include "read/gpu/gpu_lists.h"
#include "read/gpu/kfd.h"

typedef int rsmi_status_t;
#define RSMI_STATUS_SUCCESS 0
#define RSMI_STATUS_NOT_SUPPORTED 2
#define RSMI_STATUS_INSUFFICIENT_SIZE 11
#define RSMI_MEM_TYPE_VRAM 0
typedef struct {
    uint64_t correctable_err, uncorrectable_err;
} rsmi_error_count_t;
/* The GPU blocks whose ECC errors are counted: rsmi_gpu_block_t's bits,
 * UMC (memory) through FUSE. */
#define RSMI_GPU_BLOCK_FIRST 0x1u
#define RSMI_GPU_BLOCK_LAST 0x2000u
/* rsmi_activity_metric_counter_t: percent, 0xFFFF where not given. */
typedef struct {
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
} rsmi_activity_metric_counter_t;
#define RSMI_ACTIVITY_GFX 1u
#define RSMI_ACTIVITY_UMC 2u
#define RSMI_ACTIVITY_NONE 0xFFFFu
typedef struct {
    uint32_t process_id;
    uint32_t pasid;
    uint64_t vram_usage;
    uint64_t sdma_usage;
    uint32_t cu_occupancy;
} rsmi_process_info_t;

struct rsmi {
    rsmi_status_t (*init)(uint64_t);
    rsmi_status_t (*shut_down)(void);
    rsmi_status_t (*status_string)(rsmi_status_t, const char **);         /* optional */
    rsmi_status_t (*count)(uint32_t *);
    rsmi_status_t (*memory_total)(uint32_t, int, uint64_t *);
    rsmi_status_t (*memory_usage)(uint32_t, int, uint64_t *);
    rsmi_status_t (*unique_id)(uint32_t, uint64_t *);
    rsmi_status_t (*name)(uint32_t, char *, size_t);                      /* optional */
    rsmi_status_t (*busy_percent)(uint32_t, uint32_t *);                  /* optional */
    rsmi_status_t (*processes)(rsmi_process_info_t *, uint32_t *);        /* optional */
    rsmi_status_t (*energy)(uint32_t, uint64_t *, float *, uint64_t *);   /* optional */
    rsmi_status_t (*ecc)(uint32_t, unsigned, rsmi_error_count_t *);        /* optional */
    rsmi_status_t (*pci_id)(uint32_t, uint64_t *);                        /* optional */
    rsmi_status_t (*activity)(uint32_t, unsigned, rsmi_activity_metric_counter_t *); /* optional */
    rsmi_status_t (*throttle)(uint32_t, uint64_t *);                      /* optional */
    double activity_at;        /* monotonic, of the last activity read (0: none) */
    /* Per-process utilization, which ROCm SMI lacks, from the kernel's DRM
     * figures of the GPUs it lists (found by their PCI address). */
    int drm_fill;
    struct drm_clients drm;
    /* Where ROCm SMI lists no process (no rsmi_compute_process_info_get,
     * or NOT_SUPPORTED), the KFD driver's per-process memory (kfd.h) of
     * the GPUs whose PCI address it gave. */
    struct kfd_gpus kfd;
    int procs_listed;          /* the last sample's list came from ROCm SMI */
    rsmi_process_info_t *infos;
    uint32_t capinfos;
    double energy_base_uj[GPU_MAX_DEVICES];
    /* The counter as last read, when gpu_energy_due() says (the run's
     * energy is last minus first). */
    double energy_last_uj[GPU_MAX_DEVICES];
};

#define RSMI_FN(field, required, name) {offsetof(struct rsmi, field), DL_NAMES(name), required}
static const struct dl_symbol rsmi_symbols[] = {
    RSMI_FN(init, 1, "rsmi_init"),
    RSMI_FN(shut_down, 1, "rsmi_shut_down"),
    RSMI_FN(status_string, 0, "rsmi_status_string"),
    RSMI_FN(count, 1, "rsmi_num_monitor_devices"),
    RSMI_FN(memory_total, 1, "rsmi_dev_memory_total_get"),
    RSMI_FN(memory_usage, 1, "rsmi_dev_memory_usage_get"),
    RSMI_FN(unique_id, 1, "rsmi_dev_unique_id_get"),
    RSMI_FN(name, 0, "rsmi_dev_name_get"),
    RSMI_FN(busy_percent, 0, "rsmi_dev_busy_percent_get"),
    RSMI_FN(processes, 0, "rsmi_compute_process_info_get"),
    RSMI_FN(energy, 0, "rsmi_dev_energy_count_get"),
    RSMI_FN(ecc, 0, "rsmi_dev_ecc_count_get"),
    RSMI_FN(pci_id, 0, "rsmi_dev_pci_id_get"),
    RSMI_FN(activity, 0, "rsmi_dev_activity_metric_get"),
    RSMI_FN(throttle, 0, "rsmi_dev_metrics_indep_throttle_status_get"),
    {0, NULL, 0},
};

static const char *rsmi_error(struct rsmi *r, rsmi_status_t rc)
{
    const char *s = NULL;
    if (r->status_string && r->status_string(rc, &s) == RSMI_STATUS_SUCCESS && s)
        return s;
    static _Thread_local char buf[32];
    snprintf(buf, sizeof buf, "ROCm SMI status %d", rc);
    return buf;
}

/* Energy of one GPU since the driver loaded, in microjoules. */
static int energy_uj(struct rsmi *r, uint32_t i, double *uj, rsmi_status_t *rc)
{
    uint64_t counter = 0, timestamp = 0;
    float resolution = 0;
    *rc = r->energy(i, &counter, &resolution, &timestamp);
    if (*rc != RSMI_STATUS_SUCCESS)
        return -1;
    *uj = (double)counter * (double)resolution;
    return 0;
}

static int rsmi_open(struct gpu_vendor *g)
{
    struct rsmi *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(g->reason, sizeof g->reason, "out of memory");
        return -1;
    }
    g->state = r;
    snprintf(g->accounting_reason, sizeof g->accounting_reason,
             "ROCm SMI keeps no records of exited processes");
    snprintf(g->xid_reason, sizeof g->xid_reason, "XID errors are NVIDIA's");
    int missing = dl_bind(g->lib, rsmi_symbols, r, NULL);
    if (!r->throttle)
        snprintf(g->throttle_reason, sizeof g->throttle_reason,
                 "the ROCm SMI library has no rsmi_dev_metrics_indep_throttle_status_get "
                 "(ROCm 6.1 or later)");
    if (!r->activity)
        snprintf(g->activity_reason, sizeof g->activity_reason,
                 "the ROCm SMI library has no rsmi_dev_activity_metric_get (ROCm 5.5 or later)");
    if (!r->ecc)
        snprintf(g->ecc_reason, sizeof g->ecc_reason,
                 "the ROCm SMI library has no rsmi_dev_ecc_count_get");
    if (missing) {
        snprintf(g->reason, sizeof g->reason,
                 "the ROCm SMI library lacks rsmi_init, rsmi_num_monitor_devices, "
                 "rsmi_dev_unique_id_get or rsmi_dev_memory_*_get");
        r->shut_down = NULL;
        return -1;
    }
    snprintf(g->proc_util_reason, sizeof g->proc_util_reason,
             "ROCm SMI reports compute-unit occupancy, not utilization, per process");
    if (!r->processes)
        snprintf(g->proc_memory_reason, sizeof g->proc_memory_reason,
                 "the ROCm SMI library cannot list GPU processes");
    if (!r->energy)
        snprintf(g->energy_reason, sizeof g->energy_reason,
                 "the ROCm SMI library has no rsmi_dev_energy_count_get");

    rsmi_status_t rc = r->init(0);
    if (rc != RSMI_STATUS_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "ROCm SMI could not start: %s", rsmi_error(r, rc));
        r->shut_down = NULL;
        return -1;
    }
    uint32_t count = 0;
    if ((rc = r->count(&count)) != RSMI_STATUS_SUCCESS) {
        snprintf(g->reason, sizeof g->reason, "ROCm SMI cannot count GPUs: %s", rsmi_error(r, rc));
        return -1;
    }
    g->found = (int)(count > 1000000u ? 1000000u : count); /* a sane bound for an int */
    if (count > (unsigned)g->capacity)
        count = (unsigned)g->capacity;
    for (uint32_t i = 0; i < count; i++) {
        struct gpu_device *d = &g->devices[i];
        uint64_t id = 0, total = 0;
        if ((rc = r->unique_id(i, &id)) != RSMI_STATUS_SUCCESS ||
            (rc = r->memory_total(i, RSMI_MEM_TYPE_VRAM, &total)) != RSMI_STATUS_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "ROCm SMI cannot read GPU %u: %s", i,
                     rsmi_error(r, rc));
            return -1;
        }
        snprintf(d->uuid, sizeof d->uuid, "%016llx", (unsigned long long)id);
        if (!r->name || r->name(i, d->name, sizeof d->name) != RSMI_STATUS_SUCCESS)
            snprintf(d->name, sizeof d->name, "unknown");
        d->minor = -1; /* AMD device files are DRM render nodes: no NVIDIA minor */
        d->memory_total = total;
        if (r->energy && !*g->energy_reason && energy_uj(r, i, &r->energy_base_uj[i], &rc) < 0)
            snprintf(g->energy_reason, sizeof g->energy_reason,
                     "GPU %u does not report its energy: %s", i, rsmi_error(r, rc));
        r->energy_last_uj[i] = r->energy_base_uj[i];
        /* BDF: domain in bits 63-32, bus 15-8, device 7-3, function 2-0,
         * written as the kernel's drm-pdev writes a PCI address */
        uint64_t bdf = 0;
        if (r->pci_id && r->pci_id(i, &bdf) == RSMI_STATUS_SUCCESS) {
            snprintf(r->drm.pdev[i], DRM_NAME_LEN, "%04x:%02x:%02x.%x",
                     (unsigned)(bdf >> 32) & 0xffffffffu, (unsigned)(bdf >> 8) & 0xffu,
                     (unsigned)(bdf >> 3) & 0x1fu, (unsigned)bdf & 0x7u);
            snprintf(r->drm.driver[i], DRM_NAME_LEN, "amdgpu");
            r->drm.ndevices = (int)i + 1;
        }
    }
    /* With every GPU's PCI address known, the kernel's DRM figures give each
     * process's utilization. */
    r->drm_fill = count > 0 && r->drm.ndevices == (int)count;
    g->needs_tree_pids = r->drm_fill; /* the DRM figures of the tree's processes */
    if (r->drm_fill) {
        g->proc_util_reason[0] = '\0';
        kfd_gpus_find(&r->kfd, g->sys_root, (const char (*)[DRM_NAME_LEN])r->drm.pdev,
                      (int)count);
        if (!r->processes && r->kfd.n > 0)
            g->proc_memory_reason[0] = '\0'; /* KFD gives it */
    }
    g->ndevices = (int)count;
    return 0;
}

/* Adds every process's VRAM (over all GPUs) to g->procs. ROCm SMI wants the
 * count first (a NULL buffer), then a buffer; if the list grew in between,
 * the second call fills what fits and says so (INSUFFICIENT_SIZE, with the
 * count it filled, not the count it needed): then count again. */
static int add_processes(struct gpu_vendor *g, struct rsmi *r)
{
    r->procs_listed = 0;
    if (!r->processes)
        return 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        uint32_t count = 0;
        rsmi_status_t rc = r->processes(NULL, &count);
        if (rc == RSMI_STATUS_SUCCESS && count > 0) {
            if (count + 16 > r->capinfos) {
                rsmi_process_info_t *p = realloc(r->infos, (count + 16) * sizeof *p);
                if (!p)
                    return -1;
                r->infos = p;
                r->capinfos = count + 16;
            }
            count = r->capinfos;
            rc = r->processes(r->infos, &count);
        }
        if (rc == RSMI_STATUS_INSUFFICIENT_SIZE)
            continue; /* it grew meanwhile */
        if (rc == RSMI_STATUS_NOT_SUPPORTED)
            return 0;
        if (rc != RSMI_STATUS_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "ROCm SMI cannot list GPU processes: %s",
                     rsmi_error(r, rc));
            return -1;
        }
        for (uint32_t i = 0; i < count && i < r->capinfos; i++)
            if (gpu_add_process(g, (pid_t)r->infos[i].process_id, -1,
                                r->infos[i].vram_usage, 0.0) < 0)
                return -1;
        r->procs_listed = 1;
        return 0;
    }
    return 0; /* it kept growing: count it next time */
}

/* GPU i's ECC error counts, summed over the blocks that keep them, into s;
 * the reason when no block does. */
static void read_ecc(struct gpu_vendor *g, struct rsmi *r, int i, struct gpu_sample *s)
{
    if (!r->ecc || *g->ecc_reason)
        return;
    int any = 0;
    rsmi_status_t rc = RSMI_STATUS_NOT_SUPPORTED;
    unsigned long long corrected = 0, uncorrected = 0;
    for (unsigned block = RSMI_GPU_BLOCK_FIRST; block <= RSMI_GPU_BLOCK_LAST; block <<= 1) {
        rsmi_error_count_t ec = {0, 0};
        rsmi_status_t brc = r->ecc((uint32_t)i, block, &ec);
        if (brc != RSMI_STATUS_SUCCESS) {
            rc = brc;
            continue;
        }
        any = 1;
        corrected += ec.correctable_err;
        uncorrected += ec.uncorrectable_err;
    }
    if (!any) {
        snprintf(g->ecc_reason, sizeof g->ecc_reason,
                 "GPU %d does not count ECC errors (ECC off, or not supported): %s", i,
                 rsmi_error(r, rc));
        return;
    }
    s->ecc_corrected[i] = corrected;
    s->ecc_uncorrected[i] = uncorrected;
    s->ecc_read |= 1ULL << i;
}

/* The SMU's ASIC-independent throttler bits (the kernel's amdgpu_smu.h,
 * SMU_THROTTLER_*) as enum gpu_throttle's: power limits (PPT, SPL, ...:
 * bits 0-15) a power cap, current limits (TDC, EDC: 16-31) and the others
 * (PPM, FIT: 48-63) a hardware slowdown, temperatures (32-45) thermal, and
 * PROCHOT (46-47) the hardware's thermal signal. */
static unsigned throttle_from_smu(uint64_t bits)
{
    unsigned out = 0;
    if (bits & 0xFFFFull)
        out |= 1u << GPU_THROTTLE_SW_POWER_CAP;
    if (bits & (0xFFFFull << 16 | 0xFFFFull << 48))
        out |= 1u << GPU_THROTTLE_HW_SLOWDOWN;
    if (bits & (0x3FFFull << 32))
        out |= 1u << GPU_THROTTLE_SW_THERMAL;
    if (bits & (0x3ull << 46))
        out |= 1u << GPU_THROTTLE_HW_THERMAL;
    return out;
}

/* GPU i's throttle status and GFX and memory-controller activity (the
 * SMU's averages) into s, on the devices the figures are wanted for; the
 * first failure of each stops its calls, with the reason. */
static void read_smu_figures(struct gpu_vendor *g, struct rsmi *r, int i, double since,
                             struct gpu_sample *s)
{
    rsmi_status_t rc;
    if (r->throttle && !*g->throttle_reason) {
        uint64_t bits = 0;
        if ((rc = r->throttle((uint32_t)i, &bits)) != RSMI_STATUS_SUCCESS) {
            snprintf(g->throttle_reason, sizeof g->throttle_reason,
                     "GPU %d does not report why its clocks are lowered: %s", i, rsmi_error(r, rc));
        } else {
            s->throttle_read |= 1ULL << i;
            s->device_throttle[i] = throttle_from_smu(bits);
        }
    }
    if (!r->activity || !(r->activity_at > 0))
        return; /* (the first reading only starts the interval) */
    rsmi_activity_metric_counter_t c = {RSMI_ACTIVITY_NONE, RSMI_ACTIVITY_NONE,
                                        RSMI_ACTIVITY_NONE};
    if ((rc = r->activity((uint32_t)i, RSMI_ACTIVITY_GFX | RSMI_ACTIVITY_UMC, &c)) !=
        RSMI_STATUS_SUCCESS) {
        snprintf(g->activity_reason, sizeof g->activity_reason,
                 "GPU %d does not report its GFX and memory activity: %s", i, rsmi_error(r, rc));
        r->activity = NULL;
        return;
    }
    struct gpu_activity *a = &s->activity[i];
    if (c.average_gfx_activity <= 100) {
        a->read |= 1u << GPU_ACTIVITY_GFX;
        a->percent[GPU_ACTIVITY_GFX] = c.average_gfx_activity;
    }
    if (c.average_umc_activity <= 100) {
        a->read |= 1u << GPU_ACTIVITY_DRAM;
        a->percent[GPU_ACTIVITY_DRAM] = c.average_umc_activity;
    }
    a->seconds = a->read ? since : 0;
}

static int rsmi_sample(struct gpu_vendor *g, struct gpu_sample *s)
{
    struct rsmi *r = g->state;
    double energy = 0;
    double now = monotonic_now();
    int read_energy = gpu_energy_due(g, now);
    double since = r->activity_at > 0 ? now - r->activity_at : 0;
    for (int i = 0; i < g->ndevices; i++) {
        uint64_t used = 0;
        rsmi_status_t rc = r->memory_usage((uint32_t)i, RSMI_MEM_TYPE_VRAM, &used);
        if (rc != RSMI_STATUS_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "ROCm SMI cannot read GPU %d memory: %s", i,
                     rsmi_error(r, rc));
            return -1;
        }
        s->memory_used += used;
        s->device_memory_used[i] = used;
        uint32_t busy;
        s->device_util[i] = -1;
        if (r->busy_percent && r->busy_percent((uint32_t)i, &busy) == RSMI_STATUS_SUCCESS) {
            s->device_util[i] = busy;
            if (g->devices[i].selected)
                s->util_sum_percent += busy;
        }
        if (g->devices[i].selected && r->energy && !*g->energy_reason) {
            if (read_energy && energy_uj(r, (uint32_t)i, &r->energy_last_uj[i], &rc) < 0)
                snprintf(g->energy_reason, sizeof g->energy_reason,
                         "GPU %d does not report its energy: %s", i, rsmi_error(r, rc));
            double uj = r->energy_last_uj[i];
            double mine = uj > r->energy_base_uj[i] ? uj - r->energy_base_uj[i] : 0;
            energy += mine;
            s->device_energy_mj[i] = (unsigned long long)(mine / 1000.0 + 0.5);
            if (!*g->energy_reason)
                s->device_energy_read |= 1ULL << i;
        }
        if (g->exact || g->details || (g->tree_devices >> i & 1))
            read_smu_figures(g, r, i, since, s);
    }
    r->activity_at = now;
    if (g->exact) /* the run's errors: last minus first */
        for (int i = 0; i < g->ndevices; i++)
            read_ecc(g, r, i, s);
    if (add_processes(g, r) < 0)
        return -1;
    if (r->drm_fill && (drm_clients_sample(&r->drm, g, 0) < 0 ||
                        (!r->procs_listed && kfd_sample(&r->kfd, g) < 0))) {
        snprintf(g->reason, sizeof g->reason, "out of memory for the GPU clients");
        return -1;
    }
    s->energy_ok = !*g->energy_reason;
    s->energy_mj = (unsigned long long)(energy / 1000.0 + 0.5);
    s->proc_util_ok = r->drm_fill;
    return 0;
}

static void rsmi_close(struct gpu_vendor *g)
{
    struct rsmi *r = g->state;
    if (r && r->shut_down)
        r->shut_down();
}

static void rsmi_release(struct gpu_vendor *g)
{
    struct rsmi *r = g->state;
    if (!r)
        return;
    free(r->infos);
    drm_clients_free(&r->drm);
}

const struct gpu_backend gpu_rsmi_backend = {
    .brand = "amd",
    .library = "librocm_smi64.so",
    .init = rsmi_open,
    .sample = rsmi_sample,
    .shutdown = rsmi_close,
    .release = rsmi_release,
};
