/* snapshot_parts.c - see snapshot_parts.h. */
#define _GNU_SOURCE
#include "common/summary/snapshot_parts.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/array_copy.h"
#include "common/internal.h"
#include "common/json_write.h"
#include "common/pyfloat.h"

void snapshot_add_text(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, json_new_text(v));
}

json_object *snapshot_cloud_object(const gt_cloud_info *c)
{
    if (!c->asked)
        return NULL;
    json_object *o = json_object_new_object();
    snapshot_add_text(o, "vendor", c->vendor);
    snapshot_add_text(o, "instance_type", c->instance_type);
    snapshot_add_text(o, "region", c->region);
    json_object_object_add(o, "discovery_time", json_new_pyfloat(c->discovery_time));
    return o;
}

void snapshot_init(gt_snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->struct_size = sizeof *s;
    s->server.struct_size = sizeof s->server;
    s->cloud.struct_size = sizeof s->cloud;
    s->usage.struct_size = sizeof s->usage;
    s->series.struct_size = sizeof s->series;
    s->job.struct_size = sizeof s->job;
}

int snapshot_take_lists(gt_snapshot *s)
{
    gt_gpu_details *d = &s->usage.gpu_details;
    gt_server_info *si = &s->server;
    gt_gpu_run *g = &s->gpu_run;
    size_t nd = d->devices && d->ndevices > 0 ? (size_t)d->ndevices : 0;
    size_t nn = si->gpu_names && si->ngpu_names > 0 ? (size_t)si->ngpu_names : 0;
    size_t ng = g->devices && g->ngpus > 0 ? (size_t)g->ngpus : 0;
    gt_gpu_device *devices = mem_dup(d->devices, nd * sizeof *devices);
    char **names = strings_dup(si->gpu_names, nn, GT_GPU_NAME_MAX);
    gt_gpu_run_device *throttle = mem_dup(g->devices, ng * sizeof *throttle);
    size_t nt = s->top_processes ? s->ntop_processes : 0;
    gt_top_process *top = mem_dup(s->top_processes, nt * sizeof *top);
    s->top_processes = top;
    s->ntop_processes = top ? nt : 0;
    d->devices = devices;
    d->ndevices = devices ? (int)nd : 0;
    si->gpu_names = (const char *const *)names;
    si->ngpu_names = names ? (int)nn : 0;
    g->devices = throttle;
    g->ngpus = throttle ? (int)ng : 0;
    if ((nd && !devices) || (nn && !names) || (ng && !throttle) || (nt && !top)) {
        snapshot_free_lists(s);
        return -1;
    }
    return 0;
}

void snapshot_free_lists(gt_snapshot *s)
{
    free((void *)(uintptr_t)s->usage.gpu_details.devices);
    free((void *)(uintptr_t)s->server.gpu_names);
    free((void *)(uintptr_t)s->gpu_run.devices);
    s->usage.gpu_details.devices = NULL;
    s->usage.gpu_details.ndevices = 0;
    s->server.gpu_names = NULL;
    s->server.ngpu_names = 0;
    s->gpu_run.devices = NULL;
    s->gpu_run.ngpus = 0;
    free(s->top_processes);
    s->top_processes = NULL;
    s->ntop_processes = 0;
}

void gt_snapshot_free(gt_snapshot *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nother_tasks; i++)
        gt_snapshot_free(s->other_tasks[i]);
    free(s->other_tasks);
    snapshot_free_lists(s);
    free(s->command);
    free(s->filesystems);
    free((void *)s->series.process);
    free((void *)s->series.system);
    free(s);
}
