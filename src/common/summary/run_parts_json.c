/* run_parts_json.c - see run_parts_json.h. */
#include "common/summary/run_parts_json.h"

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

/* {"sm": {"mean_percent": .., "peak_percent": ..}, ...}: the counters read. */
static json_object *counters_object(unsigned read, const double *mean, const double *peak)
{
    json_object *o = json_object_new_object();
    for (int m = 0; m < GT_GPU_ACTIVITY_METRICS; m++) {
        if (!(read >> m & 1))
            continue;
        json_object *c = json_object_new_object();
        json_object_object_add(c, "mean_percent", json_new_pyfloat(mean[m]));
        json_object_object_add(c, "peak_percent", json_new_pyfloat(peak[m]));
        json_object_object_add(o, gpu_activity_name(m), c);
    }
    return o;
}

static json_object *pcie_object(double tx, double rx, double tx_peak, double rx_peak)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "tx_bytes_per_second", json_new_pyfloat(tx));
    json_object_object_add(o, "rx_bytes_per_second", json_new_pyfloat(rx));
    json_object_object_add(o, "tx_peak_bytes_per_second", json_new_pyfloat(tx_peak));
    json_object_object_add(o, "rx_peak_bytes_per_second", json_new_pyfloat(rx_peak));
    return o;
}

/* One GPU's activity, PCIe, share and energy (each null when not read). */
static json_object *activity_device_object(int d, const gt_gpu_run_device *x)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "index", json_object_new_int(d));
    json_object_object_add(o, "seconds", json_new_pyfloat(x->activity_seconds));
    json_object_object_add(o, "counters",
                           counters_object(x->activity_read, x->activity_mean, x->activity_peak));
    json_object_object_add(o, "pcie", x->pcie_read ? pcie_object(x->pcie_tx_mean, x->pcie_rx_mean,
                                                                 x->pcie_tx_peak, x->pcie_rx_peak)
                                                   : NULL);
    json_object *sh = NULL;
    if (x->share_read) {
        sh = json_object_new_object();
        json_object_object_add(sh, "seconds", json_new_pyfloat(x->share_seconds));
        json_object_object_add(sh, "job_sm_share", json_new_pyfloat(x->job_sm_share));
        json_object_object_add(sh, "others_sm_share", json_new_pyfloat(x->others_sm_share));
    }
    json_object_object_add(o, "share", sh);
    json_object *en = NULL;
    if (x->energy_read) {
        en = json_object_new_object();
        json_object_object_add(en, "joules", json_new_pyfloat(x->energy_joules));
        json_object_object_add(en, "job_joules", json_new_pyfloat(x->job_energy_joules));
    }
    json_object_object_add(o, "energy", en);
    return o;
}

/* What the GPUs did while the job used them (gt_gpu_run's activity, PCIe
 * and share parts, and their GPUs). */
static json_object *activity_object(const gt_gpu_run *g)
{
    json_object *o = part_object(g->activity_available, g->activity_reason);
    json_object_object_add(o, "counters",
                           counters_object(g->activity_read, g->activity_mean, g->activity_peak));
    json_object *pcie = g->pcie_available ? pcie_object(g->pcie_tx_mean, g->pcie_rx_mean,
                                                        g->pcie_tx_peak, g->pcie_rx_peak)
                                          : NULL;
    json_object_object_add(o, "pcie", pcie);
    json_object *sh = part_object(g->share_available, g->share_reason);
    json_object_object_add(sh, "job_sm_share", json_new_pyfloat(g->job_sm_share));
    json_object_object_add(sh, "others_sm_share", json_new_pyfloat(g->others_sm_share));
    json_object_object_add(sh, "shared_gpus", json_object_new_int(g->shared_gpus));
    json_object_object_add(o, "share", sh);
    json_object *list = json_object_new_array();
    for (int d = 0; g->devices && d < g->ngpus; d++) {
        const gt_gpu_run_device *x = &g->devices[d];
        if (x->activity_read || x->pcie_read || x->share_read || x->energy_read)
            json_object_array_add(list, activity_device_object(d, x));
    }
    json_object_object_add(o, "gpus", list);
    json_object_object_add(o, "measurement",
                           json_new_text("the GPUs' own counters while the job used them; the "
                                         "job's energy on a GPU is its part of the SM time "
                                         "used there times the GPU's energy, an estimate"));
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
        if (!g->devices[d].throttle_read)
            continue;
        json_object *dev = json_object_new_object();
        json_object_object_add(dev, "index", json_object_new_int(d));
        json_object_object_add(dev, "share", shares_object(g->devices[d].throttle_share));
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
    json_object_object_add(root, "activity", activity_object(g));
    return root;
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
