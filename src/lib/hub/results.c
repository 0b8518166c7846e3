/* results.c - the prologue of every call that reads a tracker
 * (tracker_call_begin), its summary and gpu_tracker's text of it (the
 * public face's), and the who-held-it parts of the moment. Each takes the
 * tracker's lock and lets output/ and pipeline/ assemble; nothing here
 * samples or formats. */
#define _GNU_SOURCE
#include "hub/tracker_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"
#include "common/buf.h"
#include "output/output.h"
#include "pipeline/pipeline.h"
#include "common/json_write.h"
#include "analysis/analysis.h"
#include "common/summary/usage_write.h"

gt_status tracker_call_begin(gt_tracker *t, const char *fn, const char *type, const void *out,
                             size_t given, size_t need, int stopped, const char *what)
{
    error_clear();
    if (!t)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: NULL tracker", fn);
    if (type && !out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: NULL %s", fn, type);
    if (type && given < need)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: invalid %s.struct_size %zu: set it to "
                         "sizeof(%s)", fn, type, given, type);
    if (!tracker_owned_here(t))
        return tracker_forked_copy_error(t);
    if (stopped < 0)
        return GT_OK;
    if (t->state == STATE_NEW)
        return error_set(GT_ERR_STATE, "no %s: the tracker has not been started", what);
    if (stopped && t->state != STATE_STOPPED)
        return error_set(GT_ERR_STATE, "no %s yet: the tracker has not been stopped", what);
    return GT_OK;
}

const gt_resource_usage *gt_tracker_usage(gt_tracker *t)
{
    if (tracker_call_begin(t, "gt_tracker_usage", NULL, NULL, 0, 0, 1, "results") != GT_OK)
        return NULL;
    pthread_mutex_lock(&t->lock);
    results_usage(&t->res, &t->pipe, t->stop_time, 1, &t->usage);
    pthread_mutex_unlock(&t->lock);
    return &t->usage;
}

char *gt_tracker_to_text(gt_tracker *t)
{
    const gt_resource_usage *u = gt_tracker_usage(t);
    char *text = u ? usage_to_text(u) : NULL;
    if (!text)
        return text;
    /* gpu_tracker's text, then the GPUs it held idle: a section of our own,
     * only when there is something to say (gpu_tracker's text stays as it
     * is otherwise). */
    gt_gpu_idle *idle = calloc(1, sizeof *idle);
    gt_gpu_run *run = calloc(1, sizeof *run);
    pthread_mutex_lock(&t->lock);
    if (idle) {
        idle->struct_size = sizeof *idle;
        tracker_gpu_idle_now(t, idle);
    }
    if (run) {
        run->struct_size = sizeof *run;
        results_gpu_run(&t->res, &t->pipe, u, run, t->res.gpu_run_list);
    }
    pthread_mutex_unlock(&t->lock);
    struct buf extra;
    buf_init(&extra, 512);
    gpu_idle_text(idle, &extra);
    if (run)
        gpu_activity_text(run, &extra);
    else
        extra.failed = 1;
    free(idle);
    free(run);
    if (!extra.failed && extra.len == 0) {
        buf_free(&extra);
        return text;
    }
    struct buf b;
    buf_init(&b, strlen(text) + extra.len + 2);
    buf_puts(&b, text);
    buf_puts(&b, "\n");
    if (extra.data)
        buf_add(&b, extra.data, extra.len);
    if (extra.failed)
        b.failed = extra.failed;
    buf_free(&extra);
    free(text);
    if (b.failed) {
        buf_free(&b);
        return NULL;
    }
    if (b.len && b.data[b.len - 1] == '\n')
        b.data[--b.len] = '\0'; /* ends as usage_to_text's does */
    return buf_take(&b);
}

/* GPUs held but idle, under the lock. */
void tracker_gpu_idle_now(gt_tracker *t, gt_gpu_idle *out)
{
    const char *uuids[GPU_MAX_DEVICES];
    int n = t->reader.gpu.ndevices < GPU_MAX_DEVICES ? t->reader.gpu.ndevices : GPU_MAX_DEVICES;
    for (int d = 0; d < GPU_MAX_DEVICES; d++)
        uuids[d] = d < n ? t->reader.gpu.devices[d].uuid : NULL; /* set once, at the open */
    gpu_idle_report(&t->pipe.gpu_idle, uuids, out);
    /* The group's io.pressure is the job's only while the group holds only
     * the job (cgroup_usage.c finds outsiders, and a job that left it). */
    gpu_wait_report(&t->pipe.gpu_wait, !t->pipe.cg.shared && !t->pipe.cg.left,
                    &t->pipe.gpu_activity, &out->wait);
    out->requested = t->job.gpus_requested;
    snprintf(out->requested_by, sizeof out->requested_by, "%s", t->job.gpus_requested_by);
    /* Unused only where the GPUs could be read: no GPU library is no verdict. */
    out->request_unused = out->requested > 0 && t->reader.gpu.nvendors > 0 &&
                          t->pipe.acc.gpu_comb_max == 0 && out->ndevices == 0;
}

void tracker_at_peak_now(gt_tracker *t, gt_peak_breakdown out[2])
{
    memcpy(out, t->at_peak, 2 * sizeof *out);
    const struct usage_acc *a = &t->pipe.acc;
    unsigned long long peak_kb = usage_combined_peak_kb(a);
    gt_peak_breakdown *m = &out[GT_PEAK_MEMORY];
    m->unseen_holder = 0;
    m->unseen_bytes = 0;
    if (peak_kb > a->comb_pk.total_kb) {
        m->unseen_holder = a->peak_holder;
        m->unseen_bytes = (double)peak_kb * 1024.0;
    }
}

/* The processes by command (census.c), and the run's CPU time no sample
 * saw; the census takes its own lock, the totals t's. */
void tracker_processes_now(gt_tracker *t, gt_command_groups *out)
{
    struct tree *tree = &t->reader.tree;
    census_groups(&tree->census, 1e9 / (double)(tree->tick_ns ? tree->tick_ns : 10000000),
                  out);
    gt_totals totals;
    memset(&totals, 0, sizeof totals);
    pthread_mutex_lock(&t->lock);
    usage_totals(&t->pipe.acc, &totals);
    pthread_mutex_unlock(&t->lock);
    double run = totals.cpu_main_seconds + totals.cpu_descendants_seconds;
    out->unseen_cpu_seconds = run > out->cpu_seconds ? run - out->cpu_seconds : 0;
}

