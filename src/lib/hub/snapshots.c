/* snapshots.c - a tracker's run as the parts of a snapshot and a source
 * over its rows, for the tools that write it (a snapshot in memory or a
 * file, a report), and the machine and cloud instance it ran on: what
 * output/ assembles from the summary, the rows and the run's record. */
#define _GNU_SOURCE
#include "gpu_tracker_internal.h"
#include "hub/tracker_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"

/* At most this long for the cloud discovery to end: its requests time out
 * after 1 s each, and AWS asks up to four. */
#define CLOUD_WAIT_SECONDS 8.0

gt_status gt_tracker_server_info(gt_tracker *t, gt_server_info *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_server_info", gt_server_info, out, 0,
                                      "server info");
    if (st != GT_OK)
        return st;
    run_record_describe(&t->run);
    *out = t->run.server; /* described once: read-only since */
    out->struct_size = sizeof *out;
    struct row_source rows;
    tracker_live_rows(t, &rows);
    snprintf(out->allocation, sizeof out->allocation, "%s", allocation_of_rows(&rows));
    return GT_OK;
}

int gt_tracker_cloud_info(gt_tracker *t, double max_wait, gt_cloud_info *out)
{
    gt_status st = TRACKER_FILL_BEGIN(t, "gt_tracker_cloud_info", gt_cloud_info, out, 0,
                                      "cloud info");
    if (st == GT_ERR_INVALID_ARGUMENT)
        return -1;
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (st != GT_OK || !t->cfg.o.discover_cloud) {
        error_clear(); /* not asked for, or not yet: 0 says so */
        return 0;
    }
    if (t->cloud) {
        if (max_wait <= 0 && !cloud_discovery_ready(t->cloud))
            return 0;
        cloud_discovery_finish(t->cloud, max_wait, &t->run.cloud);
        t->cloud = NULL;
    }
    *out = t->run.cloud;
    out->struct_size = sizeof *out;
    return 1;
}

/* Who held it, into a snapshot of t: the peaks, the idle GPUs, the
 * processes by command, and the top process's timeline (which the
 * snapshot owns; left out when out of memory). */
static void snapshot_who(gt_tracker *t, gt_snapshot *s)
{
    s->processes.struct_size = sizeof s->processes;
    tracker_processes_now(t, &s->processes);
    s->gpu_idle.struct_size = sizeof s->gpu_idle;
    pthread_mutex_lock(&t->lock);
    tracker_at_peak_now(t, s->at_peak);
    tracker_gpu_idle_now(t, &s->gpu_idle);
    double start = t->res.start_time;
    pthread_mutex_unlock(&t->lock);
    s->top_processes = census_top_changes(&t->reader.tree.census, start, &s->ntop_processes);
}

gt_status gt_tracker_snapshot_parts(gt_tracker *t, const char *command, int exit_status,
                                 gt_snapshot *s, struct row_source *rows, gt_resource_usage **live)
{
    memset(s, 0, sizeof *s);
    *live = NULL;
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (t->state != STATE_NEW) /* begun: described at the first need */
        run_record_describe(&t->run);
    struct run_record run = t->run; /* a copy to fill in: its lock is not used */
    const gt_resource_usage *u;
    if (t->state == STATE_STARTED) {
        u = *live = calloc(1, sizeof **live);
        if (!*live)
            return error_set(GT_ERR_NO_MEMORY, "out of memory");
        pthread_mutex_lock(&t->lock);
        int begun = t->baseline_taken;
        if (begun)
            results_usage(&t->res, &t->pipe, monotonic_now(), 0, *live);
        run.epoch_start = t->run.epoch_start;
        pthread_mutex_unlock(&t->lock);
        if (!begun)
            return error_set(GT_ERR_STATE, "no snapshot yet: sampling begins at %.3f (start_at)",
                             t->delayed_start);
        run.epoch_stop = epoch_now();
        tracker_live_rows(t, rows);
    } else {
        u = gt_tracker_usage(t);
        if (!u)
            return GT_ERR_STATE;
        row_store_source(&t->store, rows);
    }
    if (t->cfg.o.discover_cloud && t->cloud) {
        cloud_discovery_finish(t->cloud, CLOUD_WAIT_SECONDS, &t->run.cloud);
        t->cloud = NULL;
    }
    run.cloud = t->run.cloud;
    gt_status st = run_record_snapshot(&run, command, exit_status, u, rows, s);
    s->main_only = t->cfg.o.main_only != 0;
    s->cgroup.struct_size = sizeof s->cgroup;
    s->cpu_energy.struct_size = sizeof s->cpu_energy;
    s->gpu_run.struct_size = sizeof s->gpu_run;
    /* The snapshot owns its per-GPU figures, as it owns its other lists. */
    gt_gpu_run_device *table =
        t->res.ngpu_list > 0 ? calloc((size_t)t->res.ngpu_list, sizeof *table) : NULL;
    if (st == GT_OK && t->res.ngpu_list > 0 && !table)
        st = error_set(GT_ERR_NO_MEMORY, "out of memory");
    pthread_mutex_lock(&t->lock);
    results_cgroup(&t->res, &t->pipe, &s->cgroup);
    results_energy(&t->res, &t->pipe, u, &s->cpu_energy);
    results_gpu_run(&t->res, &t->pipe, u, &s->gpu_run, table);
    pthread_mutex_unlock(&t->lock);
    if (s->gpu_run.devices != table)
        free(table);
    if (st == GT_OK)
        snapshot_who(t, s);
    return st;
}

void gt_tracker_snapshot_parts_release(gt_snapshot *s, gt_resource_usage *live)
{
    free(live);
    free(s->command);
    free(s->filesystems);
    snapshot_free_lists(s);
}
