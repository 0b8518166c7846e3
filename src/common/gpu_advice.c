/* gpu_advice.c - what to ask for next time about GPUs, from the GPUs a run
 * held but left idle and a request it never used (gt_gpu_idle). */
#include "common/gpu_advice.h"

#include <stdio.h>
#include <string.h>

int gpu_advice(const gt_gpu_idle *g, char *out, size_t cap)
{
    out[0] = '\0';
    if (!g || !g->struct_size)
        return 0;
    if (g->request_unused) {
        snprintf(out, cap, "%d GPU%s given (%s) and none used: ask for none", g->requested,
                 g->requested == 1 ? "" : "s", g->requested_by[0] ? g->requested_by : "request");
        return 1;
    }
    if (g->idle_count <= 0)
        return 0;
    int held = g->ndevices, busy = g->ndevices - g->idle_count;
    int n = snprintf(out, cap, "%d of the %d GPU%s the run held %s idle (", g->idle_count, held,
                     held == 1 ? "" : "s", g->idle_count == 1 ? "was" : "were");
    const char *sep = "";
    for (int i = 0; i < g->ndevices && i < 64 && n > 0 && (size_t)n < cap; i++) {
        const gt_gpu_idle_device *d = &g->devices[i];
        if (!d->idle)
            continue;
        n += snprintf(out + n, cap - (size_t)n, "%sGPU %d %.0f%% of the time", sep, d->index,
                      d->idle_percent);
        sep = ", ";
    }
    if (n > 0 && (size_t)n < cap)
    {
        if (busy > 0)
            snprintf(out + n, cap - (size_t)n, "): ask for %d", busy);
        else
            snprintf(out + n, cap - (size_t)n, "): it may need none");
    }
    return 1;
}

int gpu_wait_advice(const gt_gpu_wait *w, char *out, size_t cap)
{
    out[0] = '\0';
    if (!w || !w->verdict || !(w->gpu_seconds > 0))
        return 0;
    size_t n = 0;
    if (w->verdict & GT_GPU_WAIT_WORKERS) {
        int k = snprintf(out, cap, "more CPU cores per GPU: the GPU waited (%.0f%% busy) on "
                         "%.0f saturated %s worker%s at %.2f cores each %.0f%% of the time it "
                         "was in use", w->waiting_busy_percent, w->worker_processes,
                         w->worker_command, w->worker_processes >= 1.5 ? "s" : "",
                         w->worker_cores, 100 * w->worker_seconds / w->gpu_seconds);
        n = k > 0 ? (size_t)k : 0;
    }
    if ((w->verdict & GT_GPU_WAIT_STORAGE_BOUND) && n < cap)
        snprintf(out + n, cap - n, "%sfaster storage: the GPU waited (%.0f%% busy) while the job "
                 "waited on storage (%s) %.0f%% of the time, %.0f%% of the time it was in use",
                 n ? "; " : "", w->waiting_busy_percent, w->storage_source,
                 100 * w->storage_wait, 100 * w->storage_seconds / w->gpu_seconds);
    n = strlen(out);
    if ((w->verdict & GT_GPU_WAIT_THROTTLED) && n < cap && w->throttle_read_seconds > 0) {
        int power = w->power_seconds >= w->thermal_seconds;
        snprintf(out + n, cap - n, "%sa cooler or less power-capped GPU: its clocks were held "
                 "down by %s %.0f%% of the time it was in use (%s); the run was slower than "
                 "the GPU can go", n ? "; " : "", power ? "its power cap" : "heat",
                 100 * w->throttled_seconds / w->throttle_read_seconds,
                 power ? "power cap or hardware slowdown; ask whether the cap is set below the "
                         "card's default"
                       : "thermal slowdown; the node's cooling or airflow");
        n = strlen(out);
    }
    if ((w->verdict & GT_GPU_WAIT_SMS_IDLE) && n < cap && w->sm_read_seconds > 0)
        n += (size_t)snprintf(out + n, cap - n, "%sa look at what the kernels wait for: the GPU "
                              "read %.0f%% busy while %.0f%% of its SMs were active, %.0f%% of "
                              "the time it was in use (a kernel stalled or waiting, as in a "
                              "collective; more GPUs will not help)", n ? "; " : "",
                              w->sm_idle_util_percent, w->sm_idle_sm_percent,
                              100 * w->sm_idle_seconds / w->sm_read_seconds);
    if ((w->verdict & GT_GPU_WAIT_SHARED) && n < cap)
        snprintf(out + n, cap - n, "%sa GPU of its own: other processes took %.0f%% of GPU %d's "
                 "time while the job used it", n ? "; " : "", 100 * w->shared_others_share,
                 w->shared_gpu);
    return w->verdict;
}

static const char *const throttle_names[GT_GPU_THROTTLE_REASONS] = {
    "gpu_idle",   "applications_clocks", "sw_power_cap",   "hw_slowdown",    "sync_boost",
    "sw_thermal", "hw_thermal",          "hw_power_brake", "display_clocks",
};

const char *gpu_throttle_name(int i)
{
    return i >= 0 && i < GT_GPU_THROTTLE_REASONS ? throttle_names[i] : NULL;
}

static const char *const activity_names[GT_GPU_ACTIVITY_METRICS] = {
    "sm", "sm_occupancy", "tensor", "dram", "fp64", "fp32", "fp16", "gfx",
};

const char *gpu_activity_name(int i)
{
    return i >= 0 && i < GT_GPU_ACTIVITY_METRICS ? activity_names[i] : NULL;
}

int gpu_activity_phrase(unsigned read, const double *mean, const double *peak, char *out,
                        size_t cap)
{
    static const int shown[] = {0, 2, 3, 7}; /* sm, tensor, dram, gfx */
    static const char *const label[] = {"SM", "tensor", "DRAM", "GFX"};
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < sizeof shown / sizeof shown[0] && n < cap; k++) {
        int m = shown[k];
        if (!(read >> m & 1))
            continue;
        int w = snprintf(out + n, cap - n, "%s%s %.0f%% (peak %.0f%%)", n ? ", " : "",
                         label[k], mean[m], peak[m]);
        n += w > 0 ? (size_t)w : 0;
    }
    return out[0] != '\0';
}

const char *gpu_brand_name(size_t i)
{
    static const char *const brands[] = {"nvidia", "amd", "intel", "drm"};
    return i < sizeof brands / sizeof brands[0] ? brands[i] : NULL;
}
