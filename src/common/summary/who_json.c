/* who_json.c - who held the run's resources, as JSON both ways
 * (who_json.h). */
#include "common/summary/who_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_write.h"
#include "common/summary/summary_fields.h"

static json_object *breakdown_json(const gt_peak_breakdown *b, const char *bytes_key)
{
    int memory = strcmp(bytes_key, "rss_bytes") == 0;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "at_seconds", json_object_new_double(b->at_seconds));
    json_object_object_add(o, "total_bytes", json_object_new_double(b->total_bytes));
    json_object *list = json_object_new_array();
    for (int i = 0; i < b->nprocesses && i < GT_AT_PEAK_MAX; i++) {
        const gt_peak_process *p = &b->processes[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "pid", json_object_new_int(p->pid));
        json_object_object_add(x, "role", json_new_text(p->role == 1 ? "main" : "descendant"));
        json_object_object_add(x, "command", json_new_text(p->command));
        json_object_object_add(x, "cmdline", json_new_text(p->cmdline));
        json_object_object_add(x, bytes_key, json_object_new_double(p->bytes));
        if (memory)
            json_object_object_add(x, "private_bytes", p->private_bytes >= 0
                                   ? json_object_new_double(p->private_bytes) : NULL);
        json_object_object_add(x, "pss_bytes",
                               p->pss_bytes >= 0 ? json_object_new_double(p->pss_bytes) : NULL);
        json_object_object_add(x, "threads", json_object_new_int64(p->threads));
        json_object_array_add(list, x);
    }
    json_object_object_add(o, "processes", list);
    json_object *rest = json_object_new_object();
    json_object_object_add(rest, "count", json_object_new_int64(b->others));
    json_object_object_add(rest, bytes_key, json_object_new_double(b->others_bytes));
    if (memory) {
        json_object_object_add(rest, "private_bytes",
                               json_object_new_double(b->others_private_bytes));
        json_object_object_add(o, "shared_bytes", json_object_new_double(b->shared_bytes));
    }
    json_object_object_add(o, "others", rest);
    return o;
}

json_object *at_peak_json_object(const gt_peak_breakdown *peaks)
{
    json_object *o = json_object_new_object();
    if (peaks[GT_PEAK_MEMORY].available)
        json_object_object_add(o, "memory", breakdown_json(&peaks[GT_PEAK_MEMORY], "rss_bytes"));
    if (peaks[GT_PEAK_GPU_MEMORY].available)
        json_object_object_add(o, "gpu_memory",
                               breakdown_json(&peaks[GT_PEAK_GPU_MEMORY], "gpu_bytes"));
    const gt_peak_breakdown *m = &peaks[GT_PEAK_MEMORY];
    int holder = m->unseen_holder;
    if (holder >= GT_RSS_PEAK_MAIN && holder <= GT_RSS_PEAK_EITHER) {
        json_object *u = json_object_new_object();
        json_object_object_add(u, "holder", json_new_text(summary_peak_holder_names[holder]));
        json_object_object_add(u, "rss_bytes", json_object_new_double(m->unseen_bytes));
        json_object_object_add(o, "memory_unseen", u);
    }
    return o;
}

/* What the GPUs waited for (gt_gpu_wait): the figures, the thresholds
 * they were judged by, and the verdict's causes by name. */
static json_object *gpu_wait_json_object(const gt_gpu_wait *w)
{
    json_object *o = json_object_new_object();
    json_object *verdict = json_object_new_array();
    if (w->verdict & GT_GPU_WAIT_WORKERS)
        json_object_array_add(verdict, json_object_new_string("workers"));
    if (w->verdict & GT_GPU_WAIT_STORAGE_BOUND)
        json_object_array_add(verdict, json_object_new_string("storage"));
    if (w->verdict & GT_GPU_WAIT_THROTTLED)
        json_object_array_add(verdict, json_object_new_string("throttled"));
    if (w->verdict & GT_GPU_WAIT_SMS_IDLE)
        json_object_array_add(verdict, json_object_new_string("sms_idle"));
    if (w->verdict & GT_GPU_WAIT_SHARED)
        json_object_array_add(verdict, json_object_new_string("shared"));
    json_object_object_add(o, "verdict", verdict);
    json_object_object_add(o, "busy_threshold_percent",
                           json_object_new_double(GT_GPU_WAIT_BUSY_PERCENT));
    json_object_object_add(o, "share_threshold_percent",
                           json_object_new_double(GT_GPU_WAIT_SHARE_PERCENT));
    json_object_object_add(o, "gpu_seconds", json_object_new_double(w->gpu_seconds));
    json_object_object_add(o, "waiting_seconds", json_object_new_double(w->waiting_seconds));
    json_object_object_add(o, "waiting_busy_percent",
                           json_object_new_double(w->waiting_busy_percent));
    json_object *workers = json_object_new_object();
    json_object_object_add(workers, "seconds", json_object_new_double(w->worker_seconds));
    json_object_object_add(workers, "command",
                           w->worker_command[0] ? json_new_text(w->worker_command) : NULL);
    json_object_object_add(workers, "processes", json_object_new_double(w->worker_processes));
    json_object_object_add(workers, "cores_each", json_object_new_double(w->worker_cores));
    json_object_object_add(workers, "runnable_share",
                           json_object_new_double(w->worker_runnable));
    json_object_object_add(o, "workers", workers);
    json_object *storage = json_object_new_object();
    json_object_object_add(storage, "available", json_object_new_boolean(w->storage_available));
    if (w->storage_available)
        json_object_object_add(storage, "source", json_new_text(w->storage_source));
    else
        json_object_object_add(storage, "reason", json_new_text(w->storage_reason));
    json_object_object_add(storage, "seconds", json_object_new_double(w->storage_seconds));
    json_object_object_add(storage, "wait_share", json_object_new_double(w->storage_wait));
    json_object_object_add(o, "storage", storage);
    json_object *thr = json_object_new_object();
    json_object_object_add(thr, "read_seconds", json_object_new_double(w->throttle_read_seconds));
    json_object_object_add(thr, "throttled_seconds", json_object_new_double(w->throttled_seconds));
    json_object_object_add(thr, "power_seconds", json_object_new_double(w->power_seconds));
    json_object_object_add(thr, "thermal_seconds", json_object_new_double(w->thermal_seconds));
    json_object_object_add(o, "clocks", thr);
    json_object *sm = json_object_new_object();
    json_object_object_add(sm, "busy_threshold_percent",
                           json_object_new_double(GT_GPU_WAIT_SM_BUSY_PERCENT));
    json_object_object_add(sm, "idle_threshold_percent",
                           json_object_new_double(GT_GPU_WAIT_SM_IDLE_PERCENT));
    json_object_object_add(sm, "read_seconds", json_object_new_double(w->sm_read_seconds));
    json_object_object_add(sm, "idle_seconds", json_object_new_double(w->sm_idle_seconds));
    json_object_object_add(sm, "idle_utilization_percent",
                           json_object_new_double(w->sm_idle_util_percent));
    json_object_object_add(sm, "idle_sm_percent", json_object_new_double(w->sm_idle_sm_percent));
    json_object_object_add(o, "sm_activity", sm);
    json_object *sh = json_object_new_object();
    /* the GPU others took the most of; none when they took none */
    int named = w->shared_gpu >= 0 && w->shared_others_share > 0;
    json_object_object_add(sh, "gpu", named ? json_object_new_int(w->shared_gpu) : NULL);
    json_object_object_add(sh, "others_share", json_object_new_double(w->shared_others_share));
    json_object_object_add(o, "shared", sh);
    return o;
}

json_object *gpu_idle_json_object(const gt_gpu_idle *idle)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "threshold_percent", json_object_new_double(idle->threshold_percent));
    json_object_object_add(o, "idle_share_percent",
                           json_object_new_double(idle->idle_share_percent));
    json_object_object_add(o, "idle_gpus", json_object_new_int(idle->idle_count));
    json_object *list = json_object_new_array();
    for (int i = 0; i < idle->ndevices && i < 64; i++) {
        const gt_gpu_idle_device *d = &idle->devices[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "index", json_object_new_int(d->index));
        json_object_object_add(x, "uuid", json_new_text(d->uuid));
        json_object_object_add(x, "held_bytes", json_object_new_double(d->held_bytes));
        json_object_object_add(x, "held_samples", json_object_new_int64(d->held_samples));
        json_object_object_add(x, "idle_samples", json_object_new_int64(d->idle_samples));
        json_object_object_add(x, "idle_percent", json_object_new_double(d->idle_percent));
        json_object_object_add(x, "idle", json_object_new_boolean(d->idle));
        json_object_array_add(list, x);
    }
    json_object_object_add(o, "gpus", list);
    json_object_object_add(o, "requested", json_object_new_int(idle->requested));
    json_object_object_add(o, "requested_by",
                           idle->requested ? json_new_text(idle->requested_by) : NULL);
    json_object_object_add(o, "request_unused", json_object_new_boolean(idle->request_unused));
    json_object_object_add(o, "waiting", gpu_wait_json_object(&idle->wait));
    return o;
}

json_object *processes_json_object(const gt_command_groups *g)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "commands", json_object_new_int64(g->commands));
    json_object_object_add(o, "processes", json_object_new_int64(g->processes));
    json_object_object_add(o, "cpu_seconds", json_object_new_double(g->cpu_seconds));
    json_object_object_add(o, "unseen_cpu_seconds", g->unseen_cpu_seconds >= 0
                           ? json_object_new_double(g->unseen_cpu_seconds) : NULL);
    json_object *list = json_object_new_array();
    for (int i = 0; i < g->ngroups && i < GT_COMMAND_GROUPS_MAX; i++) {
        const gt_command_group *e = &g->groups[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "command", json_new_text(e->command));
        json_object_object_add(x, "processes", json_object_new_int64(e->processes));
        json_object_object_add(x, "peak_concurrent", json_object_new_int64(e->peak_concurrent));
        json_object_object_add(x, "cpu_seconds", json_object_new_double(e->cpu_seconds));
        json_object_object_add(x, "peak_pss_bytes", json_object_new_double(e->peak_pss_bytes));
        json_object_array_add(list, x);
    }
    json_object_object_add(o, "groups", list);
    json_object *rest = json_object_new_object();
    json_object_object_add(rest, "commands", json_object_new_int64(g->others));
    json_object_object_add(rest, "processes", json_object_new_int64(g->others_processes));
    json_object_object_add(rest, "cpu_seconds", json_object_new_double(g->others_cpu_seconds));
    json_object_object_add(o, "others", rest);
    json_object_object_add(o, "folded", json_object_new_int64(g->folded));
    json_object_object_add(o, "partial", json_object_new_boolean(g->partial));
    return o;
}

json_object *top_processes_json_object(const gt_top_process *top, size_t n)
{
    json_object *list = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_new_array();
        json_object_array_add(e, json_object_new_double(top[i].at));
        json_object_array_add(e, json_object_new_int(top[i].pid));
        json_object_array_add(e, json_new_text(top[i].command));
        json_object_array_add(list, e);
    }
    return list;
}

/* ---- reading ------------------------------------------------------------ */
