/* gpu_advice.c - what to ask for next time about GPUs, from the GPUs a run
 * held but left idle and a request it never used (gt_gpu_idle). */
#include "analysis/analysis.h"

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

/* The command's way to it (gpu_tracker_tools.h). */
int gt_gpu_advice(const gt_gpu_idle *g, char *out, size_t cap)
{
    return gpu_advice(g, out, cap);
}
