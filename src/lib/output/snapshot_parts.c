/* snapshot_parts.c - see snapshot_parts.h. */
#define _GNU_SOURCE
#include "output/snapshot_parts.h"

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

/* Parses one part, which may have at most max bytes. */
json_object *snapshot_parse_part(struct json_reader *r, const char *text, struct json_span span,
                                 const char *name, size_t max)
{
    if (r->status != GT_OK)
        return NULL;
    if (span.end - span.start > max) {
        json_read_fail(r, "\"%s\" holds %zu bytes; at most %zu may", name, span.end - span.start,
                       max);
        return NULL;
    }
    return json_read_parse(r, text + span.start, span.end - span.start, name);
}

void snapshot_read_gpu_names(struct json_reader *r, json_object *o, gt_server_info *si)
{
    json_object *names = json_read_member(r, o, "gpu_names", json_type_array, "server_info");
    size_t n = names ? json_object_array_length(names) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(r, "\"server_info.gpu_names\" lists %zu GPUs; this gpu-tracker keeps at "
                          "most %d", n, GT_MAX_GPUS);
    const char *texts[GT_MAX_GPUS];
    size_t got = 0;
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        json_object *v = json_object_array_get_idx(names, i);
        size_t len = json_object_is_type(v, json_type_string)
                         ? (size_t)json_object_get_string_len(v) : GT_GPU_NAME_MAX + 1;
        if (len > GT_GPU_NAME_MAX || strlen(json_object_get_string(v)) != len) {
            json_read_fail(r, "\"server_info.gpu_names[%zu]\" should be a string of at most %d "
                              "bytes", i, GT_GPU_NAME_MAX);
            break;
        }
        texts[got++] = json_object_get_string(v);
    }
    if (r->status != GT_OK || got == 0)
        return;
    si->gpu_names = (const char *const *)strings_dup(texts, got, GT_GPU_NAME_MAX);
    if (!si->gpu_names)
        json_read_fail(r, "out of memory");
    else
        si->ngpu_names = (int)got;
}

void snapshot_read_cloud(struct json_reader *r, json_object *cloud, gt_cloud_info *c)
{
    if (!cloud || r->status != GT_OK)
        return; /* null: not asked */
    const char *w = "cloud_info";
    if (!json_object_is_type(cloud, json_type_object)) {
        json_read_fail(r, "\"cloud_info\" should be an object or null");
        return;
    }
    c->asked = 1;
    json_read_string(r, cloud, "vendor", w, c->vendor, sizeof c->vendor);
    json_read_string(r, cloud, "instance_type", w, c->instance_type, sizeof c->instance_type);
    json_read_string(r, cloud, "region", w, c->region, sizeof c->region);
    c->discovery_time = json_read_number(r, cloud, "discovery_time", w, 0, 1e6);
    c->found = strcmp(c->vendor, "unknown") != 0;
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
    gt_gpu_throttle_device *throttle = mem_dup(g->devices, ng * sizeof *throttle);
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
