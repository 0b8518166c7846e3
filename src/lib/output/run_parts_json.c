/* run_parts_json.c - see run_parts_json.h. */
#include "output/run_parts_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_write.h"
#include "common/gpu_advice.h"

/* {"available": b, "reason": ...} with the reason only when not available. */
static json_object *part_object(int available, const char *reason)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(available));
    if (!available)
        json_object_object_add(o, "reason", json_new_text(reason));
    return o;
}

static json_object *shares_object(const double *share)
{
    json_object *o = json_object_new_object();
    for (int b = 0; b < GT_GPU_THROTTLE_REASONS; b++)
        json_object_object_add(o, gpu_throttle_name(b), json_new_pyfloat(share[b]));
    return o;
}

json_object *gpu_run_json_object(const gt_gpu_run *g)
{
    json_object *root = json_object_new_object();
    json_object *acc = part_object(g->accounting_available, g->accounting_reason);
    json_object_object_add(acc, "processes", json_object_new_int(g->accounting_processes));
    json_object_object_add(acc, "ended_unseen", json_object_new_int(g->accounting_unseen));
    json_object_object_add(acc, "unattributed", json_object_new_int(g->accounting_unattributed));
    json_object_object_add(acc, "main_peak_bytes", json_new_pyfloat(g->accounting_main_peak));
    json_object_object_add(acc, "descendants_peak_bytes",
                           json_new_pyfloat(g->accounting_descendants_peak));
    json_object_object_add(acc, "gpu_seconds", json_new_pyfloat(g->accounting_gpu_seconds));
    json_object_object_add(root, "accounting", acc);

    json_object *thr = part_object(g->throttle_available, g->throttle_reason);
    json_object_object_add(thr, "share", shares_object(g->throttle_share));
    json_object *devices = json_object_new_array();
    for (int d = 0; g->devices && d < g->ngpus; d++) {
        if (!g->devices[d].read)
            continue;
        json_object *dev = json_object_new_object();
        json_object_object_add(dev, "index", json_object_new_int(d));
        json_object_object_add(dev, "share", shares_object(g->devices[d].share));
        json_object_array_add(devices, dev);
    }
    json_object_object_add(thr, "devices", devices);
    json_object_object_add(root, "throttle", thr);

    json_object *ecc = part_object(g->ecc_available, g->ecc_reason);
    json_object_object_add(ecc, "corrected", json_new_pyfloat(g->ecc_corrected));
    json_object_object_add(ecc, "uncorrected", json_new_pyfloat(g->ecc_uncorrected));
    json_object_object_add(root, "ecc", ecc);

    json_object *xid = part_object(g->xid_available, g->xid_reason);
    json_object_object_add(xid, "events", json_object_new_int64(g->xid_events));
    json_object_object_add(xid, "last", json_object_new_int64(g->xid_last));
    json_object_object_add(xid, "last_gpu", json_object_new_int(g->xid_last_gpu));
    json_object_object_add(root, "xid", xid);

    json_object *en = part_object(g->job_energy_available, g->job_energy_reason);
    json_object_object_add(en, "share", json_new_pyfloat(g->job_energy_share));
    json_object_object_add(en, "joules", json_new_pyfloat(g->job_energy_joules));
    json_object_object_add(en, "measurement",
                           json_new_text("an estimate: the job's SM utilization over the "
                                         "selected GPUs' utilization, times their energy"));
    json_object_object_add(root, "job_energy", en);

    json_object *pids = json_object_new_object();
    json_object_object_add(pids, "pid_namespace", json_object_new_boolean(g->pid_namespace));
    json_object_object_add(pids, "translated", json_object_new_int(g->pids_translated));
    json_object_object_add(pids, "untranslated", json_object_new_int(g->pids_untranslated));
    if (g->pid_reason[0])
        json_object_object_add(pids, "reason", json_new_text(g->pid_reason));
    json_object_object_add(root, "process_ids", pids);

    json_object *mig = json_object_new_object();
    json_object_object_add(mig, "instances", json_object_new_int(g->mig_instances));
    json_object_object_add(mig, "utilization_available",
                           json_object_new_boolean(g->mig_utilization_available));
    if (g->mig_instances && !g->mig_utilization_available)
        json_object_object_add(mig, "reason", json_new_text(g->mig_utilization_reason));
    json_object_object_add(root, "mig", mig);
    return root;
}

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
    gt_gpu_throttle_device *table = NULL;
    g->devices = NULL;
    g->ngpus = 0;
    if (r->status == GT_OK && n > 0 && !(table = calloc(GT_MAX_GPUS, sizeof *table)))
        json_read_fail(r, "out of memory");
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        json_object *dev = json_object_array_get_idx(devices, i);
        char dpath[160];
        snprintf(dpath, sizeof dpath, "%s.devices[%zu]", sub, i);
        if (!json_object_is_type(dev, json_type_object)) {
            json_read_fail(r, "\"%s\" should be an object", dpath);
            break;
        }
        int d = (int)json_read_integer(r, dev, "index", dpath, 0, GT_MAX_GPUS - 1);
        if (r->status != GT_OK)
            break;
        table[d].read = 1;
        read_shares(r, dev, dpath, table[d].share);
        if (d + 1 > g->ngpus)
            g->ngpus = d + 1;
    }
    if (table && g->ngpus > 0) {
        gt_gpu_throttle_device *fit = realloc(table, (size_t)g->ngpus * sizeof *table);
        g->devices = fit ? fit : table; /* the caller frees it (snapshot_free_lists) */
    } else {
        free(table);
        g->ngpus = 0;
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
}

json_object *cpu_energy_json_object(const gt_cpu_energy *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(e->available));
    json_object_object_add(o, "reason", e->available ? NULL : json_new_text(e->reason));
    json_object_object_add(o, "packages", json_object_new_int(e->packages));
    json_object_object_add(o, "package_joules", json_new_pyfloat(e->package_joules));
    json_object_object_add(o, "dram_available", json_object_new_boolean(e->dram_available));
    json_object_object_add(o, "dram_joules", json_new_pyfloat(e->dram_joules));
    json_object_object_add(o, "job_share", json_new_pyfloat(e->job_share));
    json_object_object_add(o, "measurement",
                           json_new_text("the whole machine's (RAPL counts per socket); "
                                         "job_share, the job's part of the CPU time, is an "
                                         "estimate"));
    return o;
}

void cpu_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_cpu_energy *e)
{
    size_t size = e->struct_size;
    memset(e, 0, sizeof *e);
    e->struct_size = size;
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    e->available = json_read_bool(r, o, "available", path);
    if (!e->available)
        json_read_string(r, o, "reason", path, e->reason, sizeof e->reason);
    e->packages = (int)json_read_integer(r, o, "packages", path, 0, 65536);
    e->package_joules = json_read_number(r, o, "package_joules", path, 0, 1e15);
    e->dram_available = json_read_bool(r, o, "dram_available", path);
    e->dram_joules = json_read_number(r, o, "dram_joules", path, 0, 1e15);
    e->job_share = json_read_number(r, o, "job_share", path, 0, 1);
}
