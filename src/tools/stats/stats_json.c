/* stats_json.c - resource_tracker's stats() dictionary and its
 * recommendation as JSON, with the library's one float policy (Python's
 * repr, json_write.h), so that every JSON the library and the command write
 * prints a number alike. */
#include "common/internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "common/json_write.h"
#include "stats/stats.h"

/* {"K1": v1[, "K2": v2]}: resource_tracker's per-figure dictionaries. */
static json_object *figure(const char *k1, double v1, const char *k2, double v2)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, k1, json_new_pyfloat(v1));
    if (k2)
        json_object_object_add(o, k2, json_new_pyfloat(v2));
    return o;
}

/* Pretty text of o (usage_to_json's layout), o released; NULL when out
 * of memory. */
static char *pretty_text(json_object *o)
{
    char *out = json_pretty_text(o);
    if (!out)
        error_set(GT_ERR_NO_MEMORY, "out of memory");
    return out;
}

json_object *stats_json_object(const gt_stats *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "process_cpu_usage",
                           figure("mean", s->cpu_usage_mean, "max", s->cpu_usage_max));
    json_object_object_add(o, "process_memory", figure("mean", s->memory_mean, "max", s->memory_max));
    json_object_object_add(o, "process_gpu_usage",
                           figure("mean", s->gpu_usage_mean, "max", s->gpu_usage_max));
    json_object_object_add(o, "process_gpu_vram",
                           figure("mean", s->gpu_vram_mean, "max", s->gpu_vram_max));
    json_object_object_add(o, "process_gpu_utilized",
                           figure("mean", s->gpu_utilized_mean, "max", s->gpu_utilized_max));
    json_object_object_add(o, "system_disk_space_used_gb",
                           figure("max", s->disk_space_used_max_gb, NULL, 0));
    json_object_object_add(o, "system_net_recv_bytes", figure("sum", s->net_recv_bytes_sum, NULL, 0));
    json_object_object_add(o, "system_net_sent_bytes", figure("sum", s->net_sent_bytes_sum, NULL, 0));
    json_object_object_add(o, "timestamp", figure("duration", s->duration, NULL, 0));
    return o;
}

char *gt_stats_to_json(const gt_stats *s)
{
    error_clear();
    if (GT_CHECK_NOT_NULL("gt_stats_to_json", gt_stats, s) != GT_OK)
        return NULL;
    return pretty_text(stats_json_object(s));
}

char *gt_recommendation_to_json(const gt_recommendation *r, const char *server_json)
{
    error_clear();
    if (GT_CHECK_NOT_NULL("gt_recommendation_to_json", gt_recommendation, r) != GT_OK)
        return NULL;
    json_object *server = NULL;
    if (server_json) {
        server = json_tokener_parse(server_json);
        if (!json_object_is_type(server, json_type_object)) {
            json_object_put(server);
            error_set(GT_ERR_PARSE, "the server description is not a JSON object");
            return NULL;
        }
    }
    json_object *res = json_object_new_object();
    json_object_object_add(res, "cpu", json_object_new_int(r->cpu));
    json_object_object_add(res, "memory", json_object_new_int(r->memory_mib));
    json_object_object_add(res, "gpu", json_object_new_int(r->gpu));
    json_object_object_add(res, "vram", json_object_new_int(r->vram_mib));
    if (!server)
        return pretty_text(res);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "resources", res);
    json_object_object_add(o, "server", server);
    return pretty_text(o);
}
