/* parts_read.c - a snapshot's and a summary's parts read back: the job's
 * cgroup, the GPU driver's run figures, the CPUs' energy and the job's, the
 * server's GPU names and the cloud, a part parsed within its bounds. The
 * library writes them (common/summary/cgroup_json.c, run_parts_json.c,
 * snapshot_parts.c; the job's energy lib/output/results.c). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array_copy.h"
#include "common/internal.h"
#include "common/gpu_advice.h"
#include "common/json_read.h"
#include "snapshot/parts_read.h"

/* ---- the job's cgroup ---------------------------------------------------- */

#define MAX_BYTES 1e18
#define MAX_SECONDS 1e12
#define MAX_COUNT 1000000000000000LL

struct reading {
    struct json_reader *r;
    const char *base;
    char path[96];
};

static const char *at(struct reading *x, const char *part)
{
    snprintf(x->path, sizeof x->path, "%s%s%s", x->base, *part ? "." : "", part);
    return x->path;
}

static json_object *part(struct reading *x, json_object *o, const char *key)
{
    return json_read_member(x->r, o, key, json_type_object, at(x, ""));
}

/* available, and the reason when not */
static int availability(struct reading *x, json_object *o, const char *where, char *reason)
{
    int available = json_read_bool(x->r, o, "available", at(x, where));
    reason[0] = '\0';
    if (o && !available)
        json_read_string(x->r, o, "reason", at(x, where), reason, GT_REASON_LEN);
    return available;
}

static void share(struct reading *x, json_object *p, const char *key, double *some, double *full)
{
    char where[32];
    snprintf(where, sizeof where, "pressure.%s", key);
    json_object *o = json_read_member(x->r, p, key, json_type_object, at(x, "pressure"));
    *some = json_read_number(x->r, o, "some", at(x, where), 0, 1);
    *full = json_read_number(x->r, o, "full", at(x, where), 0, 1);
}

void cgroup_json_read(struct json_reader *r, json_object *o, const char *path,
                      gt_cgroup_usage *c)
{
    size_t size = c->struct_size;
    memset(c, 0, sizeof *c);
    c->struct_size = size;
    struct reading x = {r, path, ""};
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    c->available = availability(&x, o, "", c->reason);
    c->version = (int)json_read_integer(r, o, "version", at(&x, ""), 0, 2);
    json_read_string(r, o, "path", at(&x, ""), c->path, sizeof c->path);
    c->created = json_read_bool(r, o, "created", at(&x, ""));
    json_object *cr = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "created_reason", &cr) && cr)
        json_read_string(r, o, "created_reason", at(&x, ""), c->created_reason,
                         sizeof c->created_reason);
    /* Since 0.4; an older document has neither. */
    json_object *inc = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "incomplete", &inc)) {
        c->incomplete = json_read_bool(r, o, "incomplete", at(&x, ""));
        json_object *ir = NULL;
        if (c->incomplete && r->status == GT_OK &&
            json_object_object_get_ex(o, "incomplete_reason", &ir) && ir)
            json_read_string(r, o, "incomplete_reason", at(&x, ""), c->incomplete_reason,
                             sizeof c->incomplete_reason);
    }

    json_object *m = part(&x, o, "memory");
    c->memory_available = availability(&x, m, "memory", c->memory_reason);
    c->memory_peak = json_read_number(r, m, "peak", at(&x, "memory"), 0, MAX_BYTES);
    char how[64] = "";
    json_read_string(r, m, "peak_measurement", at(&x, "memory"), how, sizeof how);
    if (r->status == GT_OK && strcmp(how, "sampled") != 0 &&
        strcmp(how, "kernel group high-water mark") != 0)
        json_read_fail(r, "\"%s.memory.peak_measurement\" is \"%s\"; valid: \"kernel group "
                       "high-water mark\", \"sampled\"", path, how);
    c->memory_peak_kernel = strcmp(how, "sampled") != 0;
    json_object *ap = json_read_member(r, m, "at_peak_sample", json_type_object, at(&x, "memory"));
    c->peak_anon = json_read_number(r, ap, "anon", at(&x, "memory.at_peak_sample"), 0, MAX_BYTES);
    c->peak_file = json_read_number(r, ap, "file", at(&x, "memory.at_peak_sample"), 0, MAX_BYTES);
    c->peak_shmem = json_read_number(r, ap, "shmem", at(&x, "memory.at_peak_sample"), 0,
                                     MAX_BYTES);
    c->memory_limit = json_read_number(r, m, "limit", at(&x, "memory"), 0, MAX_BYTES);
    c->oom_events = (long)json_read_integer(r, m, "oom_events", at(&x, "memory"), 0, MAX_COUNT);
    c->oom_kills = (long)json_read_integer(r, m, "oom_kills", at(&x, "memory"), 0, MAX_COUNT);
    c->first_oom_kill_time = json_read_number(r, m, "first_oom_kill_time", at(&x, "memory"), 0,
                                              MAX_SECONDS * 10);
    c->limit_hits = (long)json_read_integer(r, m, "limit_hits", at(&x, "memory"), 0, MAX_COUNT);

    json_object *cpu = part(&x, o, "cpu");
    c->cpu_available = availability(&x, cpu, "cpu", c->cpu_reason);
    c->cpu_seconds = json_read_number(r, cpu, "seconds", at(&x, "cpu"), 0, MAX_SECONDS);
    c->cpu_user_seconds = json_read_number(r, cpu, "user_seconds", at(&x, "cpu"), 0, MAX_SECONDS);
    c->cpu_system_seconds = json_read_number(r, cpu, "system_seconds", at(&x, "cpu"), 0,
                                             MAX_SECONDS);
    c->cpu_quota = json_read_number(r, cpu, "quota_cores", at(&x, "cpu"), 0, 1e7);
    c->throttle_periods = (long)json_read_integer(r, cpu, "throttle_periods", at(&x, "cpu"), 0,
                                                  MAX_COUNT);
    c->throttled_periods = (long)json_read_integer(r, cpu, "throttled_periods", at(&x, "cpu"), 0,
                                                   MAX_COUNT);
    c->throttled_seconds = json_read_number(r, cpu, "throttled_seconds", at(&x, "cpu"), 0,
                                            MAX_SECONDS);

    json_object *p = part(&x, o, "pressure");
    c->pressure_available = availability(&x, p, "pressure", c->pressure_reason);
    c->pressure_seconds = json_read_number(r, p, "seconds", at(&x, "pressure"), 0, MAX_SECONDS);
    share(&x, p, "cpu", &c->cpu_some, &c->cpu_full);
    share(&x, p, "memory", &c->memory_some, &c->memory_full);
    share(&x, p, "io", &c->io_some, &c->io_full);
}

/* ---- what the GPU driver counted, the CPUs' energy ----------------------- */

/* A part's "available" and, when not, its "reason"; the part's object (or
 * NULL after a problem). */
static json_object *read_part(struct json_reader *r, json_object *o, const char *key,
                              const char *path, int *available, char *reason)
{
    char sub[128];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    json_object *p = json_read_member(r, o, key, json_type_object, path);
    if (!p)
        return NULL;
    *available = json_read_bool(r, p, "available", sub);
    if (!*available)
        json_read_string(r, p, "reason", sub, reason, GT_REASON_LEN);
    return p;
}

static void read_shares(struct json_reader *r, json_object *o, const char *path, double *share)
{
    json_object *sh = json_read_member(r, o, "share", json_type_object, path);
    char sub[160];
    snprintf(sub, sizeof sub, "%s.share", path);
    for (int b = 0; sh && b < GT_GPU_THROTTLE_REASONS; b++)
        share[b] = json_read_number(r, sh, gpu_throttle_name(b), sub, 0, 1);
}

/* Entry i of a list of GPUs (named where), an object with its GPU's
 * "index" in *d; NULL (recorded in r) when it is not one. */
static json_object *gpu_entry(struct json_reader *r, json_object *list, size_t i,
                              const char *where, int *d)
{
    json_object *dev = json_object_array_get_idx(list, i);
    if (!json_object_is_type(dev, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", where);
        return NULL;
    }
    *d = (int)json_read_integer(r, dev, "index", where, 0, GT_MAX_GPUS - 1);
    return r->status == GT_OK ? dev : NULL;
}

/* The counters read of {"sm": {"mean_percent", "peak_percent"}, ...} into
 * mean and peak; their bits. */
static unsigned counters_read(struct json_reader *r, json_object *o, const char *path,
                              double *mean, double *peak)
{
    json_object *c = json_read_member(r, o, "counters", json_type_object, path);
    unsigned read = 0;
    char sub[200];
    if (!c)
        return 0;
    json_object_object_foreach(c, key, value) {
        int m = 0;
        while (m < GT_GPU_ACTIVITY_METRICS && strcmp(gpu_activity_name(m), key) != 0)
            m++;
        snprintf(sub, sizeof sub, "%s.counters.%s", path, key);
        if (m == GT_GPU_ACTIVITY_METRICS) {
            json_read_fail(r, "\"%.120s\" is not a counter (valid: sm, sm_occupancy, tensor, "
                           "dram, fp64, fp32, fp16, gfx)", sub);
            return 0;
        }
        (void)value;
        json_object *x = json_read_member(r, c, key, json_type_object, path);
        mean[m] = json_read_number(r, x, "mean_percent", sub, 0, 100);
        peak[m] = json_read_number(r, x, "peak_percent", sub, mean[m], 100);
        read |= 1u << m;
    }
    return read;
}

/* A "pcie" member (null: not read): 1 when read. */
static int pcie_read(struct json_reader *r, json_object *o, const char *path, double *tx,
                     double *rx, double *tx_peak, double *rx_peak)
{
    json_object *p = NULL;
    char sub[200];
    if (!json_object_object_get_ex(o, "pcie", &p) || !p)
        return 0;
    snprintf(sub, sizeof sub, "%s.pcie", path);
    p = json_read_member(r, o, "pcie", json_type_object, path);
    *tx = json_read_number(r, p, "tx_bytes_per_second", sub, 0, 1e15);
    *rx = json_read_number(r, p, "rx_bytes_per_second", sub, 0, 1e15);
    *tx_peak = json_read_number(r, p, "tx_peak_bytes_per_second", sub, 0, 1e15);
    *rx_peak = json_read_number(r, p, "rx_peak_bytes_per_second", sub, 0, 1e15);
    return 1;
}

/* One GPU of the activity part into t. */
static void activity_device_read(struct json_reader *r, json_object *o, const char *path,
                                 gt_gpu_run_device *t)
{
    char sub[260];
    json_object *x = NULL;
    t->activity_seconds = json_read_number(r, o, "seconds", path, 0, 1e12);
    t->activity_read = counters_read(r, o, path, t->activity_mean, t->activity_peak);
    t->pcie_read = pcie_read(r, o, path, &t->pcie_tx_mean, &t->pcie_rx_mean, &t->pcie_tx_peak,
                             &t->pcie_rx_peak);
    if (json_object_object_get_ex(o, "share", &x) && x) {
        snprintf(sub, sizeof sub, "%s.share", path);
        x = json_read_member(r, o, "share", json_type_object, path);
        t->share_read = 1;
        t->share_seconds = json_read_number(r, x, "seconds", sub, 0, 1e12);
        t->job_sm_share = json_read_number(r, x, "job_sm_share", sub, 0, 1);
        t->others_sm_share = json_read_number(r, x, "others_sm_share", sub, 0, 1);
    }
    if (json_object_object_get_ex(o, "energy", &x) && x) {
        snprintf(sub, sizeof sub, "%s.energy", path);
        x = json_read_member(r, o, "energy", json_type_object, path);
        t->energy_read = 1;
        t->energy_joules = json_read_number(r, x, "joules", sub, 0, 1e15);
        t->job_energy_joules = json_read_number(r, x, "job_joules", sub, 0, t->energy_joules);
    }
}

/* gpu_run's "activity" part into g, its GPUs into *table (GT_MAX_GPUS
 * entries, made when NULL). */
static void activity_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_run *g,
                          gt_gpu_run_device **table)
{
    char sub[200];
    if (!o)
        return;
    g->activity_available = json_read_bool(r, o, "available", path);
    if (!g->activity_available)
        json_read_string(r, o, "reason", path, g->activity_reason, GT_REASON_LEN);
    g->activity_read = counters_read(r, o, path, g->activity_mean, g->activity_peak);
    g->pcie_available = pcie_read(r, o, path, &g->pcie_tx_mean, &g->pcie_rx_mean,
                                  &g->pcie_tx_peak, &g->pcie_rx_peak);
    snprintf(sub, sizeof sub, "%s.share", path);
    json_object *sh = read_part(r, o, "share", path, &g->share_available, g->share_reason);
    g->job_sm_share = json_read_number(r, sh, "job_sm_share", sub, 0, 1);
    g->others_sm_share = json_read_number(r, sh, "others_sm_share", sub, 0, 1);
    g->shared_gpus = (int)json_read_integer(r, sh, "shared_gpus", sub, 0, GT_MAX_GPUS);
    json_object *gpus = json_read_member(r, o, "gpus", json_type_array, path);
    size_t n = gpus ? json_object_array_length(gpus) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(r, "\"%s.gpus\" lists %zu GPUs; at most %d", path, n, GT_MAX_GPUS);
    if (r->status == GT_OK && n > 0 && !*table && !(*table = calloc(GT_MAX_GPUS, sizeof **table)))
        json_read_fail(r, "out of memory");
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        char dpath[200];
        snprintf(dpath, sizeof dpath, "%s.gpus[%zu]", path, i);
        int d;
        json_object *dev = gpu_entry(r, gpus, i, dpath, &d);
        if (!dev)
            break;
        activity_device_read(r, dev, dpath, &(*table)[d]);
        if (d + 1 > g->ngpus)
            g->ngpus = d + 1;
    }
    json_read_string(r, o, "measurement", path, sub, sizeof sub);
}

void gpu_run_json_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_run *g)
{
    size_t size = g->struct_size;
    memset(g, 0, sizeof *g);
    g->struct_size = size;
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    char sub[128];
    snprintf(sub, sizeof sub, "%s.accounting", path);
    json_object *p = read_part(r, o, "accounting", path, &g->accounting_available,
                               g->accounting_reason);
    g->accounting_processes = (int)json_read_integer(r, p, "processes", sub, 0, 1 << 30);
    g->accounting_unseen = (int)json_read_integer(r, p, "ended_unseen", sub, 0, 1 << 30);
    g->accounting_unattributed = (int)json_read_integer(r, p, "unattributed", sub, 0, 1 << 30);
    g->accounting_main_peak = json_read_number(r, p, "main_peak_bytes", sub, 0, 1e18);
    g->accounting_descendants_peak =
        json_read_number(r, p, "descendants_peak_bytes", sub, 0, 1e18);
    g->accounting_gpu_seconds = json_read_number(r, p, "gpu_seconds", sub, 0, 1e12);

    snprintf(sub, sizeof sub, "%s.throttle", path);
    p = read_part(r, o, "throttle", path, &g->throttle_available, g->throttle_reason);
    if (p)
        read_shares(r, p, sub, g->throttle_share);
    json_object *devices = json_read_member(r, p, "devices", json_type_array, sub);
    size_t n = devices ? json_object_array_length(devices) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(r, "\"%s.devices\" lists %zu GPUs; at most %d", sub, n, GT_MAX_GPUS);
    /* Indexed by GPU: room for the highest index, trimmed once read. */
    gt_gpu_run_device *table = NULL;
    g->devices = NULL;
    g->ngpus = 0;
    if (r->status == GT_OK && n > 0 && !(table = calloc(GT_MAX_GPUS, sizeof *table)))
        json_read_fail(r, "out of memory");
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        char dpath[160];
        snprintf(dpath, sizeof dpath, "%s.devices[%zu]", sub, i);
        int d;
        json_object *dev = gpu_entry(r, devices, i, dpath, &d);
        if (!dev)
            break;
        table[d].throttle_read = 1;
        read_shares(r, dev, dpath, table[d].throttle_share);
        if (d + 1 > g->ngpus)
            g->ngpus = d + 1;
    }

    snprintf(sub, sizeof sub, "%s.ecc", path);
    p = read_part(r, o, "ecc", path, &g->ecc_available, g->ecc_reason);
    g->ecc_corrected = json_read_number(r, p, "corrected", sub, 0, 1e18);
    g->ecc_uncorrected = json_read_number(r, p, "uncorrected", sub, 0, 1e18);

    snprintf(sub, sizeof sub, "%s.xid", path);
    p = read_part(r, o, "xid", path, &g->xid_available, g->xid_reason);
    g->xid_events = (long)json_read_integer(r, p, "events", sub, 0, 1LL << 40);
    g->xid_last = json_read_integer(r, p, "last", sub, 0, 1LL << 40);
    g->xid_last_gpu = (int)json_read_integer(r, p, "last_gpu", sub, -1, GT_MAX_GPUS - 1);

    snprintf(sub, sizeof sub, "%s.job_energy", path);
    p = read_part(r, o, "job_energy", path, &g->job_energy_available, g->job_energy_reason);
    g->job_energy_share = json_read_number(r, p, "share", sub, 0, 1);
    g->job_energy_joules = json_read_number(r, p, "joules", sub, 0, 1e15);

    snprintf(sub, sizeof sub, "%s.process_ids", path);
    p = json_read_member(r, o, "process_ids", json_type_object, path);
    g->pid_namespace = json_read_bool(r, p, "pid_namespace", sub);
    g->pids_translated = (int)json_read_integer(r, p, "translated", sub, 0, 1 << 30);
    g->pids_untranslated = (int)json_read_integer(r, p, "untranslated", sub, 0, 1 << 30);
    json_object *reason;
    if (p && json_object_object_get_ex(p, "reason", &reason))
        json_read_string(r, p, "reason", sub, g->pid_reason, sizeof g->pid_reason);

    snprintf(sub, sizeof sub, "%s.mig", path);
    p = json_read_member(r, o, "mig", json_type_object, path);
    g->mig_instances = (int)json_read_integer(r, p, "instances", sub, 0, GT_MAX_GPUS);
    g->mig_utilization_available = json_read_bool(r, p, "utilization_available", sub);
    if (p && json_object_object_get_ex(p, "reason", &reason))
        json_read_string(r, p, "reason", sub, g->mig_utilization_reason,
                         sizeof g->mig_utilization_reason);

    json_object *activity = NULL; /* (snapshots before it have none) */
    if (json_object_object_get_ex(o, "activity", &activity)) {
        snprintf(sub, sizeof sub, "%s.activity", path);
        activity_read(r, json_read_member(r, o, "activity", json_type_object, path), sub, g,
                      &table);
    }
    if (table && g->ngpus > 0 && r->status == GT_OK) {
        gt_gpu_run_device *fit = realloc(table, (size_t)g->ngpus * sizeof *table);
        g->devices = fit ? fit : table; /* the caller frees it (snapshot_free_lists) */
    } else {
        free(table);
        g->devices = NULL;
        g->ngpus = 0;
    }
}

/* A part's struct emptied but for its struct_size (its first member), and
 * whether o is the object it is read from (else recorded in r). */
static int part_begin(struct json_reader *r, json_object *o, const char *path, void *out,
                      size_t size)
{
    size_t struct_size;
    memcpy(&struct_size, out, sizeof struct_size);
    memset(out, 0, size);
    memcpy(out, &struct_size, sizeof struct_size);
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return 0;
    }
    return 1;
}

void cpu_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_cpu_energy *e)
{
    if (!part_begin(r, o, path, e, sizeof *e))
        return;
    e->available = json_read_bool(r, o, "available", path);
    if (!e->available)
        json_read_string(r, o, "reason", path, e->reason, sizeof e->reason);
    e->packages = (int)json_read_integer(r, o, "packages", path, 0, 65536);
    e->package_joules = json_read_number(r, o, "package_joules", path, 0, 1e15);
    e->dram_available = json_read_bool(r, o, "dram_available", path);
    e->dram_joules = json_read_number(r, o, "dram_joules", path, 0, 1e15);
    e->job_share = json_read_number(r, o, "job_share", path, 0, 1);
}

/* ---- the job's energy ------------------------------------------------------ */

#define MAX_JOULES 1e15

/* One part of the job's energy: available, then its figures or its reason. */
static int energy_part(struct json_reader *r, json_object *o, const char *key, const char *path,
                       json_object **part, char *reason)
{
    char sub[96];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    *part = json_read_member(r, o, key, json_type_object, path);
    int available = json_read_bool(r, *part, "available", sub);
    if (*part && !available)
        json_read_string(r, *part, "reason", sub, reason, GT_REASON_LEN);
    return available;
}

void job_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_job_energy *e)
{
    if (!part_begin(r, o, path, e, sizeof *e))
        return;
    char sub[96];
    e->available = json_read_bool(r, o, "available", path);
    if (e->available) {
        e->joules = json_read_number(r, o, "joules", path, 0, MAX_JOULES);
        e->joules_low = json_read_number(r, o, "joules_low", path, 0, MAX_JOULES);
        e->joules_high = json_read_number(r, o, "joules_high", path, 0, MAX_JOULES);
    } else {
        json_read_string(r, o, "reason", path, e->reason, sizeof e->reason);
    }
    json_object *p;
    snprintf(sub, sizeof sub, "%s.gpu", path);
    e->gpu_available = energy_part(r, o, "gpu", path, &p, e->gpu_reason);
    if (e->gpu_available) {
        e->gpu_joules = json_read_number(r, p, "joules", sub, 0, MAX_JOULES);
        e->gpu_uncertainty_percent = json_read_number(r, p, "uncertainty_percent", sub, 0, 100);
    }
    snprintf(sub, sizeof sub, "%s.cpu", path);
    e->cpu_available = energy_part(r, o, "cpu", path, &p, e->cpu_reason);
    if (e->cpu_available) {
        e->cpu_joules = json_read_number(r, p, "joules", sub, 0, MAX_JOULES);
        e->cpu_joules_low = json_read_number(r, p, "joules_low", sub, 0, MAX_JOULES);
        e->cpu_joules_high = json_read_number(r, p, "joules_high", sub, 0, MAX_JOULES);
    }
    p = NULL;
    e->co2e_available = o && json_object_object_get_ex(o, "co2e", &p) && p;
    if (e->co2e_available) {
        snprintf(sub, sizeof sub, "%s.co2e", path);
        p = json_read_member(r, o, "co2e", json_type_object, path);
        e->co2e_grams = json_read_number(r, p, "grams", sub, 0, MAX_JOULES);
        e->co2e_grams_low = json_read_number(r, p, "grams_low", sub, 0, MAX_JOULES);
        e->co2e_grams_high = json_read_number(r, p, "grams_high", sub, 0, MAX_JOULES);
        e->carbon_intensity = json_read_number(r, p, "carbon_intensity_g_per_kwh", sub, 0, 1e6);
        e->pue = json_read_number(r, p, "pue", sub, 1, 100);
    }
}

/* ---- the server's GPU names, the cloud, a part ---------------------------- */

/* Parses one part, which may have at most max bytes. */
json_object *snapshot_parse_part(struct json_reader *r, const char *text, struct json_span span,
                                 const char *name, size_t max)
{
    if (r->status != GT_OK)
        return NULL;
    if (span.end - span.start > max) {
        json_read_fail(r, "\"%s\" holds %zu bytes; at most %zu may", name, span.end - span.start,
                       max);
        return NULL;
    }
    return json_read_parse(r, text + span.start, span.end - span.start, name);
}

void snapshot_read_gpu_names(struct json_reader *r, json_object *o, gt_server_info *si)
{
    json_object *names = json_read_member(r, o, "gpu_names", json_type_array, "server_info");
    size_t n = names ? json_object_array_length(names) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(r, "\"server_info.gpu_names\" lists %zu GPUs; this gpu-tracker keeps at "
                          "most %d", n, GT_MAX_GPUS);
    const char *texts[GT_MAX_GPUS];
    size_t got = 0;
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        json_object *v = json_object_array_get_idx(names, i);
        size_t len = json_object_is_type(v, json_type_string)
                         ? (size_t)json_object_get_string_len(v) : GT_GPU_NAME_MAX + 1;
        if (len > GT_GPU_NAME_MAX || strlen(json_object_get_string(v)) != len) {
            json_read_fail(r, "\"server_info.gpu_names[%zu]\" should be a string of at most %d "
                              "bytes", i, GT_GPU_NAME_MAX);
            break;
        }
        texts[got++] = json_object_get_string(v);
    }
    if (r->status != GT_OK || got == 0)
        return;
    si->gpu_names = (const char *const *)strings_dup(texts, got, GT_GPU_NAME_MAX);
    if (!si->gpu_names)
        json_read_fail(r, "out of memory");
    else
        si->ngpu_names = (int)got;
}

void snapshot_read_cloud(struct json_reader *r, json_object *cloud, gt_cloud_info *c)
{
    if (!cloud || r->status != GT_OK)
        return; /* null: not asked */
    const char *w = "cloud_info";
    if (!json_object_is_type(cloud, json_type_object)) {
        json_read_fail(r, "\"cloud_info\" should be an object or null");
        return;
    }
    c->asked = 1;
    json_read_string(r, cloud, "vendor", w, c->vendor, sizeof c->vendor);
    json_read_string(r, cloud, "instance_type", w, c->instance_type, sizeof c->instance_type);
    json_read_string(r, cloud, "region", w, c->region, sizeof c->region);
    c->discovery_time = json_read_number(r, cloud, "discovery_time", w, 0, 1e6);
    c->found = strcmp(c->vendor, "unknown") != 0;
}
