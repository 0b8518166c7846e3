/* run_results.c - a stopped tracker's results as structs, read back from
 * the library's public results (gt_tracker_to_json, gt_tracker_figure:
 * gpu_tracker_tools.h). The readers are the snapshot's, which read the
 * same sections in a snapshot's metadata. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/json_read.h"
#include "snapshot/parts_read.h"

/* The results with the storage of their parts. */
struct results_store {
    gt_run_results pub;
    gt_cgroup_usage cgroup;
    gt_cpu_energy cpu_energy;
    gt_gpu_run gpu_run;
    gt_peak_breakdown at_peak[2];
    gt_gpu_idle gpu_idle;
    gt_job_energy job_energy;
    gt_command_groups processes;
};

/* The section key of root, or NULL when the document leaves it out. */
static json_object *section(const struct json_reader *r, json_object *root, const char *key)
{
    json_object *o = NULL;
    if (r->status != GT_OK || !root || !json_object_object_get_ex(root, key, &o))
        return NULL;
    return o;
}

static void read_sections(struct json_reader *r, json_object *root, struct results_store *s)
{
    gt_run_results *p = &s->pub;
    usage_json_read(r, root, "", &p->usage);
    json_object *o;
    if ((o = section(r, root, "cgroup"))) {
        s->cgroup.struct_size = sizeof s->cgroup;
        cgroup_json_read(r, o, "cgroup", &s->cgroup);
        p->cgroup = &s->cgroup;
    }
    if ((o = section(r, root, "cpu_energy"))) {
        s->cpu_energy.struct_size = sizeof s->cpu_energy;
        cpu_energy_json_read(r, o, "cpu_energy", &s->cpu_energy);
        p->cpu_energy = &s->cpu_energy;
    }
    if ((o = section(r, root, "gpu_run"))) {
        s->gpu_run.struct_size = sizeof s->gpu_run;
        gpu_run_json_read(r, o, "gpu_run", &s->gpu_run);
        p->gpu_run = &s->gpu_run;
    }
    if ((o = section(r, root, "at_peak"))) {
        at_peak_json_read(r, o, "at_peak", s->at_peak);
        p->at_peak = s->at_peak;
    }
    if ((o = section(r, root, "gpu_idle"))) {
        gpu_idle_json_read(r, o, "gpu_idle", &s->gpu_idle);
        p->gpu_idle = &s->gpu_idle;
    }
    if ((o = section(r, root, "energy"))) {
        s->job_energy.struct_size = sizeof s->job_energy;
        job_energy_json_read(r, o, "energy", &s->job_energy);
        p->job_energy = &s->job_energy;
    }
    if ((o = section(r, root, "processes"))) {
        processes_json_read(r, o, "processes", &s->processes);
        p->processes = &s->processes;
    }
}

/* The totals through the public figures: block I/O only where the run
 * counted it (GT_ERR_UNAVAILABLE otherwise). */
static void read_totals(gt_tracker *t, gt_totals *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    (void)gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &out->wall_seconds);
    (void)gt_tracker_figure(t, GT_FIGURE_CPU_MAIN_SECONDS, &out->cpu_main_seconds);
    (void)gt_tracker_figure(t, GT_FIGURE_CPU_DESCENDANTS_SECONDS, &out->cpu_descendants_seconds);
    out->io_available = gt_tracker_figure(t, GT_FIGURE_READ_BYTES, &out->read_bytes) == GT_OK &&
                        gt_tracker_figure(t, GT_FIGURE_WRITE_BYTES, &out->write_bytes) == GT_OK;
    if (!out->io_available)
        out->read_bytes = out->write_bytes = 0;
}

gt_status gt_run_results_read(gt_tracker *t, gt_run_results **out)
{
    *out = NULL;
    if (!t)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_run_results_read: NULL tracker");
    /* NULL with the library's message when it refuses the results (not
     * STOPPED), without one when out of memory. */
    char *json = gt_tracker_to_json(t);
    if (!json)
        return *gt_last_error() ? GT_ERR_STATE : error_set(GT_ERR_NO_MEMORY, "out of memory");
    struct results_store *s = calloc(1, sizeof *s);
    if (!s) {
        free(json);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    s->pub.usage.struct_size = sizeof s->pub.usage;
    struct json_reader r = {GT_OK, "the tracker's results do not read back"};
    json_object *root = json_read_parse(&r, json, strlen(json), "");
    read_sections(&r, root, s);
    json_object_put(root);
    free(json);
    if (r.status != GT_OK) {
        gt_run_results_free(&s->pub);
        return r.status;
    }
    read_totals(t, &s->pub.totals);
    error_clear(); /* an unavailable figure is not this call's failure */
    *out = &s->pub;
    return GT_OK;
}

void gt_run_results_free(gt_run_results *r)
{
    if (!r)
        return;
    struct results_store *s = (struct results_store *)r; /* pub is its first member */
    usage_json_release(&s->pub.usage);
    free((void *)(uintptr_t)s->gpu_run.devices);
    free(s);
}
