/* pipeline/gpu_idle.c - see gpu_idle.h. */
#include "pipeline/gpu_idle.h"

#include <stdio.h>
#include <string.h>

void gpu_idle_step(struct gpu_idle_acc *a, const struct gpu_sample *s, int ndevices,
                   const struct pid_roles *roles)
{
    if (ndevices > GPU_MAX_DEVICES)
        ndevices = GPU_MAX_DEVICES;
    if (ndevices > a->ndevices)
        a->ndevices = ndevices;
    unsigned long long held[GPU_MAX_DEVICES] = {0};
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gpu_process *p = &s->procs[i];
        if (!p->bytes || !p->memory_devices || !pid_roles_get(roles, p->pid))
            continue;
        /* A process on several GPUs: its memory split evenly, as the
         * driver's per-process figure does not say where each byte is. */
        int on = __builtin_popcountll(p->memory_devices);
        for (int d = 0; d < ndevices; d++)
            if (p->memory_devices & (1ULL << d))
                held[d] += p->bytes / (unsigned long long)on;
    }
    for (int d = 0; d < ndevices; d++) {
        if (!held[d])
            continue;
        a->held[d]++;
        if (s->device_util[d] >= 0 && s->device_util[d] < GT_GPU_IDLE_PERCENT)
            a->idle[d]++;
        if (held[d] > a->held_max[d])
            a->held_max[d] = held[d];
    }
}

void gpu_idle_report(const struct gpu_idle_acc *a, const char *const *uuids, gt_gpu_idle *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    out->threshold_percent = GT_GPU_IDLE_PERCENT;
    out->idle_share_percent = GT_GPU_IDLE_SHARE_PERCENT;
    for (int d = 0; d < a->ndevices && d < GPU_MAX_DEVICES; d++) {
        if (!a->held[d])
            continue;
        gt_gpu_idle_device *g = &out->devices[out->ndevices++];
        g->index = d;
        snprintf(g->uuid, sizeof g->uuid, "%s", uuids && uuids[d] ? uuids[d] : "");
        g->held_samples = a->held[d];
        g->idle_samples = a->idle[d];
        g->held_bytes = (double)a->held_max[d];
        g->idle_percent = 100.0 * (double)a->idle[d] / (double)a->held[d];
        g->idle = g->idle_percent >= GT_GPU_IDLE_SHARE_PERCENT;
        out->idle_count += g->idle;
    }
}
