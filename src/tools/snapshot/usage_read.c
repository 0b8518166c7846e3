/* usage_read.c - a summary document read back into a gt_resource_usage
 * (gt_usage_from_json, gt_usage_read_file; and the summary inside a
 * snapshot, usage_json_read): every key checked, every number bounded,
 * problems named by their key path. The library writes the document
 * (common/summary/usage_json.c); the tables of its objects of doubles are both's
 * (common/summary_fields.h). */
#include "common/internal.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/file_io.h"
#include "common/json_read.h"
#include "common/summary/summary_fields.h"
#include "snapshot/parts_read.h"

static double *double_at(void *base, const struct summary_double_field *f)
{
    return (double *)(void *)((char *)base + f->offset);
}

/* Bounds of what a summary may hold: far past any machine, near enough
 * that every figure converts to any type the writers use. */
#define MAX_AMOUNT 1e18  /* bytes, seconds, percents: in any unit */
#define MAX_COUNT 1073741824LL

/* Paths in messages: prefix + part ("summary." + "max_ram"). */
struct usage_reader {
    struct json_reader *r;
    const char *prefix;
    char path[128];
};

/* The path of part (a dotted key path, or "" for the top level). */
static const char *at(struct usage_reader *u, const char *part)
{
    snprintf(u->path, sizeof u->path, "%s%s%s", u->prefix, *u->prefix && *part ? "." : "", part);
    return u->path;
}

static json_object *object_at(struct usage_reader *u, json_object *o, const char *parent,
                              const char *key)
{
    return json_read_member(u->r, o, key, json_type_object, at(u, parent));
}

static double amount(struct usage_reader *u, json_object *o, const char *parent, const char *key)
{
    return json_read_number(u->r, o, key, at(u, parent), 0, MAX_AMOUNT);
}

static int count(struct usage_reader *u, json_object *o, const char *parent, const char *key)
{
    return (int)json_read_integer(u->r, o, key, at(u, parent), 0, MAX_COUNT);
}

/* A unit, which must be one of the valid ones (the divisors come from it). */
static void read_unit(struct usage_reader *u, json_object *o, const char *parent, int time_unit,
                      char *out)
{
    json_read_string(u->r, o, "unit", at(u, parent), out, GT_UNIT_LEN);
    if (u->r->status == GT_OK &&
        (time_unit ? units_time_divisor(out) : units_ram_divisor(out)) == 0)
        json_read_fail(u->r, "\"%s.unit\" should be one of %s", at(u, parent),
                       time_unit ? GT_TIME_UNITS : GT_RAM_UNITS);
}

/* "descendants", or gpu_tracker's older spelling "descendents". */
static const char *descendants_key(json_object *o)
{
    return o && json_object_object_get_ex(o, "descendents", NULL) &&
                   !json_object_object_get_ex(o, "descendants", NULL)
               ? "descendents"
               : "descendants";
}

/* Object parent.key of o into the struct at base, one amount per field. */
static void read_doubles(struct usage_reader *u, json_object *o, const char *parent,
                         const char *key, const struct summary_double_field *fields, void *base)
{
    char sub[96];
    snprintf(sub, sizeof sub, "%s.%s", parent, key);
    json_object *x = object_at(u, o, parent, key);
    for (const struct summary_double_field *f = fields; f->key; f++)
        *double_at(base, f) = amount(u, x, sub, f->key);
}

static void read_rss(struct usage_reader *u, json_object *o, const char *parent, const char *key,
                     gt_rss_values *v)
{
    read_doubles(u, o, parent, key, summary_rss_fields, v);
}

static void read_percent(struct usage_reader *u, json_object *o, const char *parent,
                         const char *key, gt_pu_percentages *p)
{
    read_doubles(u, o, parent, key, summary_percent_fields, p);
}

/* {"available": true, ...} or {"available": false, "reason": "..."}:
 * returns the object. */
static json_object *read_optional(struct usage_reader *u, json_object *gd, const char *key,
                                  int *available, char *reason)
{
    char sub[64];
    snprintf(sub, sizeof sub, "gpu_details.%s", key);
    json_object *x = object_at(u, gd, "gpu_details", key);
    *available = json_read_bool(u->r, x, "available", at(u, sub));
    reason[0] = '\0';
    if (x && !*available && json_object_object_get_ex(x, "reason", NULL))
        json_read_string(u->r, x, "reason", at(u, sub), reason, GT_REASON_LEN);
    return x;
}

static void read_gpu_details(struct usage_reader *u, json_object *gd, gt_gpu_details *d)
{
    json_object *devices = json_read_member(u->r, gd, "devices", json_type_array,
                                            at(u, "gpu_details"));
    size_t n = devices ? json_object_array_length(devices) : 0;
    if (n > GT_MAX_GPUS)
        json_read_fail(u->r, "\"%s\" lists %zu GPUs; this gpu-tracker keeps at most %d",
                       at(u, "gpu_details.devices"), n, GT_MAX_GPUS);
    gt_gpu_device *list = NULL;
    if (u->r->status == GT_OK && n > 0 && !(list = calloc(n, sizeof *list)))
        json_read_fail(u->r, "out of memory");
    d->devices = list; /* the reader's caller frees it (usage_json_release) */
    for (size_t i = 0; u->r->status == GT_OK && i < n; i++) {
        char sub[64];
        snprintf(sub, sizeof sub, "gpu_details.devices[%zu]", i);
        json_object *dev = json_object_array_get_idx(devices, i);
        if (!json_object_is_type(dev, json_type_object)) {
            json_read_fail(u->r, "\"%s\" should be an object", at(u, sub));
            break;
        }
        gt_gpu_device *out = &list[d->ndevices++];
        json_read_string(u->r, dev, "uuid", at(u, sub), out->uuid, sizeof out->uuid);
        json_read_string(u->r, dev, "name", at(u, sub), out->name, sizeof out->name);
        out->memory_total = amount(u, dev, sub, "memory_total");
        out->selected = json_read_bool(u->r, dev, "selected", at(u, sub));
    }
    read_optional(u, gd, "process_memory", &d->process_memory_available,
                  d->process_memory_reason);
    json_object *util = read_optional(u, gd, "process_utilization",
                                      &d->process_utilization_available,
                                      d->process_utilization_reason);
    if (d->process_utilization_available) {
        read_percent(u, util, "gpu_details.process_utilization", "main", &d->main);
        read_percent(u, util, "gpu_details.process_utilization", "descendants", &d->descendants);
        read_percent(u, util, "gpu_details.process_utilization", "combined", &d->combined);
    }
    json_object *energy = read_optional(u, gd, "energy", &d->energy_available, d->energy_reason);
    if (d->energy_available)
        d->energy_joules = amount(u, energy, "gpu_details.energy", "joules");
}

static void read_measurement(struct usage_reader *u, json_object *m, gt_measurement *out)
{
    const char *w = "measurement";
    out->complete = json_read_bool(u->r, m, "complete", at(u, w));
    out->samples = (long)json_read_integer(u->r, m, "samples", at(u, w), 0, 1000000000000000LL);
    out->sleep_time = json_read_number(u->r, m, "sleep_time", at(u, w), 0, GT_SLEEP_TIME_MAX);
    json_object *g = object_at(u, m, w, "gpu");
    out->gpu_available = json_read_bool(u->r, g, "available", at(u, "measurement.gpu"));
    if (g && !out->gpu_available)
        json_read_string(u->r, g, "reason", at(u, "measurement.gpu"), out->gpu_reason,
                         sizeof out->gpu_reason);
    json_object *sched = object_at(u, m, w, "schedule");
    out->lateness_mean_ms = amount(u, sched, "measurement.schedule", "lateness_mean_ms");
    out->lateness_max_ms = amount(u, sched, "measurement.schedule", "lateness_max_ms");
    /* Written since skipped slots were counted; older files lack it. */
    if (sched && json_object_object_get_ex(sched, "skipped", NULL))
        out->skipped = (long)json_read_integer(u->r, sched, "skipped",
                                               at(u, "measurement.schedule"), 0,
                                               1000000000000000LL);
    if (m && json_object_object_get_ex(m, "sampled_only", NULL))
        out->sampled_only = json_read_bool(u->r, m, "sampled_only", at(u, w));
    /* The corners (written only where a run met one). */
    json_object *who = NULL;
    if (m && json_object_object_get_ex(m, "children_reaped_by_kernel", &who)) {
        const char *where = "measurement.children_reaped_by_kernel";
        out->unseen_children_pid =
            (int)json_read_integer(u->r, who, "pid", at(u, where), 1, 4194304);
        json_read_string(u->r, who, "command", at(u, where), out->unseen_children_command,
                         sizeof out->unseen_children_command);
    }
    if (m && json_object_object_get_ex(m, "main_descendants_split_unknown", NULL)) {
        out->rss_split_unknown =
            json_read_bool(u->r, m, "main_descendants_split_unknown", at(u, w));
        out->rss_unattributed_bytes = amount(u, m, "measurement", "unattributed_rss_bytes");
        json_object *seen = NULL, *most = NULL;
        if (json_object_object_get_ex(m, "sampled_rss_bytes", &seen)) {
            out->rss_main_sampled_bytes = amount(u, seen, "measurement.sampled_rss_bytes", "main");
            out->rss_descendants_sampled_bytes =
                amount(u, seen, "measurement.sampled_rss_bytes", "descendants");
        }
        if (json_object_object_get_ex(m, "at_most_rss_bytes", &most)) {
            out->rss_main_at_most_bytes = amount(u, most, "measurement.at_most_rss_bytes", "main");
            out->rss_descendants_at_most_bytes =
                amount(u, most, "measurement.at_most_rss_bytes", "descendants");
        }
    }
    json_object *held = NULL;
    if (m && json_object_object_get_ex(m, "rss_peak_held_by", &held)) {
        char name[32];
        json_read_string(u->r, m, "rss_peak_held_by", at(u, w), name, sizeof name);
        for (int h = GT_RSS_PEAK_MAIN; h <= GT_RSS_PEAK_UNSEEN; h++)
            if (!strcmp(name, summary_peak_holder_names[h]))
                out->rss_peak_holder = h;
        if (u->r->status == GT_OK && !out->rss_peak_holder)
            json_read_fail(u->r, "\"measurement.rss_peak_held_by\" is \"%s\"; valid: main, "
                           "descendant, main or descendant, unseen", name);
    }
    if (m && json_object_object_get_ex(m, "unseen_rss_at_most_bytes", NULL))
        out->rss_unseen_at_most_bytes = amount(u, m, "measurement", "unseen_rss_at_most_bytes");
    json_object *parts = NULL;
    if (m && json_object_object_get_ex(m, "private_shared_unknown", &parts)) {
        if (!json_object_is_type(parts, json_type_array) || json_object_array_length(parts) > 3) {
            json_read_fail(u->r, "\"measurement.private_shared_unknown\" should be a list of "
                           "at most 3 of max_ram.main, max_ram.descendants, max_ram.combined");
        } else {
            for (size_t i = 0; i < json_object_array_length(parts); i++) {
                const char *name = json_object_get_string(json_object_array_get_idx(parts, i));
                int bit = -1;
                for (int k = 0; k < 3; k++)
                    if (name && !strcmp(name, summary_rss_part_names[k]))
                        bit = k;
                if (bit < 0) {
                    json_read_fail(u->r, "\"measurement.private_shared_unknown\" names \"%s\"; "
                                   "valid: max_ram.main, max_ram.descendants, max_ram.combined",
                                   name ? name : "?");
                    break;
                }
                out->rss_parts_unknown |= 1 << bit;
            }
        }
    }
    if (m && json_object_object_get_ex(m, "cpu_resolution_seconds", NULL))
        out->cpu_resolution_seconds = json_read_number(u->r, m, "cpu_resolution_seconds",
                                                       at(u, w), 0, 1);
    json_object *rq = NULL;
    if (m && json_object_object_get_ex(m, "run_queue", &rq)) {
        out->cpu_wait_available = 1;
        out->cpu_wait_seconds = amount(u, rq, "measurement.run_queue", "wait_seconds");
        out->cpu_run_seconds = amount(u, rq, "measurement.run_queue", "run_seconds");
    }
}

void usage_json_read(struct json_reader *r, json_object *root, const char *prefix,
                     gt_resource_usage *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    struct usage_reader u = {r, prefix, ""};
    if (r->status == GT_OK && !json_object_is_type(root, json_type_object)) {
        json_read_fail(r, "%s", *prefix ? "\"summary\" should be an object"
                                        : "the top level is not an object");
        return;
    }
    json_object *ram = object_at(&u, root, "", "max_ram");
    read_unit(&u, ram, "max_ram", 0, out->max_ram.unit);
    out->max_ram.system_capacity = amount(&u, ram, "max_ram", "system_capacity");
    out->max_ram.system = amount(&u, ram, "max_ram", "system");
    read_rss(&u, ram, "max_ram", "main", &out->max_ram.main);
    read_rss(&u, ram, "max_ram", descendants_key(ram), &out->max_ram.descendants);
    read_rss(&u, ram, "max_ram", "combined", &out->max_ram.combined);

    json_object *gram = object_at(&u, root, "", "max_gpu_ram");
    read_unit(&u, gram, "max_gpu_ram", 0, out->max_gpu_ram.unit);
    out->max_gpu_ram.system_capacity = amount(&u, gram, "max_gpu_ram", "system_capacity");
    out->max_gpu_ram.system = amount(&u, gram, "max_gpu_ram", "system");
    out->max_gpu_ram.main = amount(&u, gram, "max_gpu_ram", "main");
    out->max_gpu_ram.descendants = amount(&u, gram, "max_gpu_ram", descendants_key(gram));
    out->max_gpu_ram.combined = amount(&u, gram, "max_gpu_ram", "combined");

    json_object *cpu = object_at(&u, root, "", "cpu_utilization");
    gt_cpu_utilization *c = &out->cpu_utilization;
    c->system_core_count = count(&u, cpu, "cpu_utilization", "system_core_count");
    c->n_expected_cores = count(&u, cpu, "cpu_utilization", "n_expected_cores");
    read_percent(&u, cpu, "cpu_utilization", "system", &c->system);
    read_percent(&u, cpu, "cpu_utilization", "main", &c->main);
    read_percent(&u, cpu, "cpu_utilization", descendants_key(cpu), &c->descendants);
    read_percent(&u, cpu, "cpu_utilization", "combined", &c->combined);
    c->main_n_threads = count(&u, cpu, "cpu_utilization", "main_n_threads");
    int old = cpu && json_object_object_get_ex(cpu, "descendents_n_threads", NULL) &&
              !json_object_object_get_ex(cpu, "descendants_n_threads", NULL);
    c->descendants_n_threads = count(&u, cpu, "cpu_utilization",
                                     old ? "descendents_n_threads" : "descendants_n_threads");
    c->combined_n_threads = count(&u, cpu, "cpu_utilization", "combined_n_threads");

    json_object *gpu = object_at(&u, root, "", "gpu_utilization");
    out->gpu_utilization.system_gpu_count = count(&u, gpu, "gpu_utilization", "system_gpu_count");
    out->gpu_utilization.n_expected_gpus = count(&u, gpu, "gpu_utilization", "n_expected_gpus");
    read_percent(&u, gpu, "gpu_utilization", "gpu_percentages",
                 &out->gpu_utilization.gpu_percentages);

    json_object *time = object_at(&u, root, "", "compute_time");
    read_unit(&u, time, "compute_time", 1, out->compute_time.unit);
    out->compute_time.time = amount(&u, time, "compute_time", "time");

    /* "gpu_details" and "measurement" are ours; gpu_tracker's documents lack
     * them (and are complete runs): then nothing of them is known. */
    out->gpu_details.unknown = !root || !json_object_object_get_ex(root, "gpu_details", NULL);
    if (!out->gpu_details.unknown)
        read_gpu_details(&u, object_at(&u, root, "", "gpu_details"), &out->gpu_details);
    out->measurement.unknown = !root || !json_object_object_get_ex(root, "measurement", NULL);
    out->measurement.complete = 1;
    if (!out->measurement.unknown)
        read_measurement(&u, object_at(&u, root, "", "measurement"), &out->measurement);
}

/* A summary's text, read with messages prefixed by what. */
static gt_status parse_usage(const char *json, size_t len, const char *what, gt_resource_usage *u)
{
    struct json_reader r = {GT_OK, what};
    json_object *root = json_read_parse(&r, json, len, "");
    usage_json_read(&r, root, "", u);
    json_object_put(root);
    if (r.status != GT_OK)
        usage_json_release(u);
    return r.status;
}

void usage_json_release(gt_resource_usage *u)
{
    free((void *)(uintptr_t)u->gpu_details.devices);
    u->gpu_details.devices = NULL;
    u->gpu_details.ndevices = 0;
}

void gt_usage_release(gt_resource_usage *u)
{
    if (u)
        usage_json_release(u);
}

gt_status gt_usage_from_json(const char *json, gt_resource_usage *u)
{
    error_clear();
    gt_status st = GT_CHECK_STRUCT("gt_usage_from_json", gt_resource_usage, u);
    if (st != GT_OK)
        return st;
    return parse_usage(json ? json : "", json ? strlen(json) : 0, "not a resource usage document",
                       u);
}

/* A summary is a few kilobytes; this leaves room for any GPU list. */
#define SUMMARY_MAX_BYTES (16u << 20)

gt_status gt_usage_read_file(const char *path, gt_resource_usage *usage)
{
    error_clear();
    gt_status checked = GT_CHECK_STRUCT("gt_usage_read_file", gt_resource_usage, usage);
    if (checked != GT_OK)
        return checked;
    char *doc;
    size_t len;
    gt_status st = read_regular_file(path, SUMMARY_MAX_BYTES, "summary", &doc, &len);
    if (st != GT_OK)
        return st;
    char what[4200];
    snprintf(what, sizeof what, "'%s' is not a gpu-tracker summary", path);
    /* A snapshot given where a summary was expected is a likely mix-up:
     * say which command reads it. */
    int gzip = len >= 2 && (unsigned char)doc[0] == 0x1f && (unsigned char)doc[1] == 0x8b;
    if (len == 0 || gzip || strlen(doc) != len) {
        free(doc);
        return error_set(GT_ERR_PARSE, "%s: %s", what,
                         len == 0 ? "it is empty"
                         : gzip   ? "it is gzip data (a snapshot? gpu-tracker show reads one whose "
                                  "name ends in .gz; stats, recommend and report read those)"
                                : "it holds a NUL byte");
    }
    st = parse_usage(doc, len, what, usage);
    free(doc);
    return st;
}
