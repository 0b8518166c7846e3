/* snapshot_parts.c - see snapshot_parts.h. */
#define _GNU_SOURCE
#include "output/snapshot_parts.h"

#include <string.h>

#include "util/json_write.h"
#include "util/pyfloat.h"

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
    for (size_t i = 0; r->status == GT_OK && i < n; i++) {
        json_object *v = json_object_array_get_idx(names, i);
        size_t len = json_object_is_type(v, json_type_string)
                         ? (size_t)json_object_get_string_len(v) : sizeof si->gpu_names[0];
        if (len >= sizeof si->gpu_names[0] || strlen(json_object_get_string(v)) != len) {
            json_read_fail(r, "\"server_info.gpu_names[%zu]\" should be a string of at most %zu "
                              "bytes", i, sizeof si->gpu_names[0] - 1);
            break;
        }
        memcpy(si->gpu_names[si->ngpu_names++], json_object_get_string(v), len + 1);
    }
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
