/* write_json.c - the summary as JSON (gpu_tracker's to_json() keys and
 * nesting, plus "measurement"), and reading it back. json-c does the JSON;
 * floats are given to it as Python's repr() so that numbers print as
 * gpu_tracker's do (shortest round-trip digits, "5.0" not "5"). */
#include "internal.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_io.h"
#include "json_float.h"

/* ---- writing ---------------------------------------------------------- */

static void add_float(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_new_pyfloat(v));
}

static void add_int(json_object *o, const char *key, long v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static json_object *rss_object(const gt_rss_values *v)
{
    json_object *o = json_object_new_object();
    add_float(o, "total_rss", v->total_rss);
    add_float(o, "private_rss", v->private_rss);
    add_float(o, "shared_rss", v->shared_rss);
    return o;
}

static json_object *percent_object(const gt_pu_percentages *p)
{
    json_object *o = json_object_new_object();
    add_float(o, "max_sum_percent", p->max_sum_percent);
    add_float(o, "max_hardware_percent", p->max_hardware_percent);
    add_float(o, "mean_sum_percent", p->mean_sum_percent);
    add_float(o, "mean_hardware_percent", p->mean_hardware_percent);
    return o;
}

static json_object *string_array(const char *const *items)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; items[i]; i++)
        json_object_array_add(a, json_object_new_string(items[i]));
    return a;
}

/* {"available": true, ...} or {"available": false, "reason": "..."}. */
static json_object *optional_object(int available, const char *reason)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(available));
    if (!available)
        json_object_object_add(o, "reason", json_object_new_string(reason));
    return o;
}

static json_object *gpu_details_object(const gt_gpu_details *d)
{
    json_object *g = json_object_new_object();
    json_object *devices = json_object_new_array();
    for (int i = 0; i < d->ndevices && i < GT_MAX_GPUS; i++) {
        json_object *dev = json_object_new_object();
        add_int(dev, "index", i);
        json_object_object_add(dev, "uuid", json_object_new_string(d->devices[i].uuid));
        json_object_object_add(dev, "name", json_object_new_string(d->devices[i].name));
        add_float(dev, "memory_total", d->devices[i].memory_total);
        json_object_object_add(dev, "selected", json_object_new_boolean(d->devices[i].selected));
        json_object_array_add(devices, dev);
    }
    json_object_object_add(g, "devices", devices);
    json_object_object_add(g, "process_memory", optional_object(d->process_memory_available,
                                                                 d->process_memory_reason));
    json_object *util = optional_object(d->process_utilization_available,
                                        d->process_utilization_reason);
    if (d->process_utilization_available) {
        json_object_object_add(util, "main", percent_object(&d->main));
        json_object_object_add(util, "descendants", percent_object(&d->descendants));
        json_object_object_add(util, "combined", percent_object(&d->combined));
    }
    json_object_object_add(g, "process_utilization", util);
    json_object *energy = optional_object(d->energy_available, d->energy_reason);
    if (d->energy_available)
        add_float(energy, "joules", d->energy_joules);
    json_object_object_add(g, "energy", energy);
    return g;
}

/* Which figures are exact and which sampled (docs/metrics.md says why). */
static const char *const exact_fields[] = {
    "compute_time.time",
    "cpu_utilization.*.mean_sum_percent",
    "cpu_utilization.*.mean_hardware_percent",
    NULL,
};
static const char *const high_water_fields[] = {
    "max_ram.main.total_rss",
    "max_ram.descendants.total_rss",
    "max_ram.combined.total_rss",
    NULL,
};
static const char *const sampled_fields[] = {
    "max_ram.system",
    "max_ram.*.private_rss",
    "max_ram.*.shared_rss",
    "cpu_utilization.*.max_sum_percent",
    "cpu_utilization.*.max_hardware_percent",
    "cpu_utilization.*_n_threads",
    "max_gpu_ram.*",
    "gpu_utilization.*",
    "gpu_details.process_utilization.*",
    NULL,
};

char *gt_usage_to_json(const gt_resource_usage *u)
{
    json_object *root = json_object_new_object();

    json_object *ram = json_object_new_object();
    json_object_object_add(ram, "unit", json_object_new_string(u->max_ram.unit));
    add_float(ram, "system_capacity", u->max_ram.system_capacity);
    add_float(ram, "system", u->max_ram.system);
    json_object_object_add(ram, "main", rss_object(&u->max_ram.main));
    json_object_object_add(ram, "descendants", rss_object(&u->max_ram.descendants));
    json_object_object_add(ram, "combined", rss_object(&u->max_ram.combined));
    json_object_object_add(root, "max_ram", ram);

    json_object *gram = json_object_new_object();
    json_object_object_add(gram, "unit", json_object_new_string(u->max_gpu_ram.unit));
    add_float(gram, "system_capacity", u->max_gpu_ram.system_capacity);
    add_float(gram, "system", u->max_gpu_ram.system);
    add_float(gram, "main", u->max_gpu_ram.main);
    add_float(gram, "descendants", u->max_gpu_ram.descendants);
    add_float(gram, "combined", u->max_gpu_ram.combined);
    json_object_object_add(root, "max_gpu_ram", gram);

    const gt_cpu_utilization *c = &u->cpu_utilization;
    json_object *cpu = json_object_new_object();
    add_int(cpu, "system_core_count", c->system_core_count);
    add_int(cpu, "n_expected_cores", c->n_expected_cores);
    json_object_object_add(cpu, "system", percent_object(&c->system));
    json_object_object_add(cpu, "main", percent_object(&c->main));
    json_object_object_add(cpu, "descendants", percent_object(&c->descendants));
    json_object_object_add(cpu, "combined", percent_object(&c->combined));
    add_int(cpu, "main_n_threads", c->main_n_threads);
    add_int(cpu, "descendants_n_threads", c->descendants_n_threads);
    add_int(cpu, "combined_n_threads", c->combined_n_threads);
    json_object_object_add(root, "cpu_utilization", cpu);

    json_object *gpu = json_object_new_object();
    add_int(gpu, "system_gpu_count", u->gpu_utilization.system_gpu_count);
    add_int(gpu, "n_expected_gpus", u->gpu_utilization.n_expected_gpus);
    json_object_object_add(gpu, "gpu_percentages",
                           percent_object(&u->gpu_utilization.gpu_percentages));
    json_object_object_add(root, "gpu_utilization", gpu);

    json_object *time = json_object_new_object();
    json_object_object_add(time, "unit", json_object_new_string(u->compute_time.unit));
    add_float(time, "time", u->compute_time.time);
    json_object_object_add(root, "compute_time", time);

    json_object_object_add(root, "gpu_details", gpu_details_object(&u->gpu_details));

    json_object *m = json_object_new_object();
    json_object_object_add(m, "complete", json_object_new_boolean(u->measurement.complete));
    add_int(m, "samples", u->measurement.samples);
    add_float(m, "sleep_time", u->measurement.sleep_time);
    json_object_object_add(m, "exact", string_array(exact_fields));
    json_object_object_add(m, "at_least_kernel_high_water_mark", string_array(high_water_fields));
    json_object_object_add(m, "sampled", string_array(sampled_fields));
    json_object *g = json_object_new_object();
    json_object_object_add(g, "available", json_object_new_boolean(u->measurement.gpu_available));
    json_object_object_add(g, "reason", u->measurement.gpu_available
                           ? NULL : json_object_new_string(u->measurement.gpu_reason));
    json_object_object_add(m, "gpu", g);
    json_object *sched = json_object_new_object();
    add_float(sched, "lateness_mean_ms", u->measurement.lateness_mean_ms);
    add_float(sched, "lateness_max_ms", u->measurement.lateness_max_ms);
    json_object_object_add(m, "schedule", sched);
    if (u->measurement.sampled_only)
        json_object_object_add(m, "sampled_only", json_object_new_boolean(1));
    json_object_object_add(root, "measurement", m);

    const char *s = json_object_to_json_string_ext(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *out = s ? strdup(s) : NULL;
    json_object_put(root);
    return out;
}

/* ---- reading ---------------------------------------------------------- */

/* A reader that remembers the first problem, so that each field is one line. */
struct reader {
    gt_status status;
};

static json_object *member(struct reader *r, json_object *o, const char *path, const char *key,
                           json_type want)
{
    json_object *v = NULL;
    if (r->status != GT_OK)
        return NULL;
    if (!o || !json_object_object_get_ex(o, key, &v)) {
        r->status = gt_fail(GT_ERR_PARSE, "missing key \"%s%s%s\"", path, *path ? "." : "", key);
        return NULL;
    }
    json_type t = json_object_get_type(v);
    int ok = t == want || (want == json_type_double && t == json_type_int);
    if (!ok) {
        r->status = gt_fail(GT_ERR_PARSE, "key \"%s%s%s\" should be a %s", path, *path ? "." : "",
                            key, json_type_to_name(want));
        return NULL;
    }
    return v;
}

static double get_double(struct reader *r, json_object *o, const char *path, const char *key)
{
    json_object *v = member(r, o, path, key, json_type_double);
    return v ? json_object_get_double(v) : 0.0;
}

static int get_int(struct reader *r, json_object *o, const char *path, const char *key)
{
    json_object *v = member(r, o, path, key, json_type_int);
    return v ? json_object_get_int(v) : 0;
}

static void get_unit(struct reader *r, json_object *o, const char *path, char *out)
{
    json_object *v = member(r, o, path, "unit", json_type_string);
    snprintf(out, GT_UNIT_LEN, "%s", v ? json_object_get_string(v) : "");
}

/* "descendants", or gpu_tracker's older spelling "descendents". */
static const char *descendants_key(json_object *o)
{
    return o && json_object_object_get_ex(o, "descendents", NULL) &&
                   !json_object_object_get_ex(o, "descendants", NULL)
               ? "descendents"
               : "descendants";
}

static void get_rss(struct reader *r, json_object *o, const char *path, const char *key,
                    gt_rss_values *v)
{
    char sub[64];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    json_object *x = member(r, o, path, key, json_type_object);
    v->total_rss = get_double(r, x, sub, "total_rss");
    v->private_rss = get_double(r, x, sub, "private_rss");
    v->shared_rss = get_double(r, x, sub, "shared_rss");
}

static void get_percent(struct reader *r, json_object *o, const char *path, const char *key,
                        gt_pu_percentages *p)
{
    char sub[64];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    json_object *x = member(r, o, path, key, json_type_object);
    p->max_sum_percent = get_double(r, x, sub, "max_sum_percent");
    p->max_hardware_percent = get_double(r, x, sub, "max_hardware_percent");
    p->mean_sum_percent = get_double(r, x, sub, "mean_sum_percent");
    p->mean_hardware_percent = get_double(r, x, sub, "mean_hardware_percent");
}

/* Reads {"available": ..., "reason": ...}; returns the object, or NULL. */
static json_object *read_optional(struct reader *r, json_object *o, const char *key, int *available,
                                  char *reason)
{
    char path[64];
    snprintf(path, sizeof path, "gpu_details.%s", key);
    json_object *x = member(r, o, "gpu_details", key, json_type_object);
    json_object *v = member(r, x, path, "available", json_type_boolean);
    *available = v ? json_object_get_boolean(v) : 0;
    json_object *why;
    if (x && json_object_object_get_ex(x, "reason", &why) && json_object_is_type(why, json_type_string))
        snprintf(reason, GT_REASON_LEN, "%s", json_object_get_string(why));
    return x;
}

static void read_gpu_details(struct reader *r, json_object *gd, gt_gpu_details *d)
{
    json_object *devices = member(r, gd, "gpu_details", "devices", json_type_array);
    size_t n = devices ? json_object_array_length(devices) : 0;
    for (size_t i = 0; i < n && i < GT_MAX_GPUS; i++) {
        json_object *dev = json_object_array_get_idx(devices, i), *v;
        gt_gpu_device *out = &d->devices[d->ndevices++];
        if (json_object_object_get_ex(dev, "uuid", &v))
            snprintf(out->uuid, sizeof out->uuid, "%s", json_object_get_string(v));
        if (json_object_object_get_ex(dev, "name", &v))
            snprintf(out->name, sizeof out->name, "%s", json_object_get_string(v));
        out->memory_total = get_double(r, dev, "gpu_details.devices[]", "memory_total");
        if (json_object_object_get_ex(dev, "selected", &v))
            out->selected = json_object_get_boolean(v);
    }
    read_optional(r, gd, "process_memory", &d->process_memory_available, d->process_memory_reason);
    json_object *util = read_optional(r, gd, "process_utilization", &d->process_utilization_available,
                                      d->process_utilization_reason);
    if (d->process_utilization_available) {
        get_percent(r, util, "gpu_details.process_utilization", "main", &d->main);
        get_percent(r, util, "gpu_details.process_utilization", "descendants", &d->descendants);
        get_percent(r, util, "gpu_details.process_utilization", "combined", &d->combined);
    }
    json_object *energy = read_optional(r, gd, "energy", &d->energy_available, d->energy_reason);
    if (d->energy_available)
        d->energy_joules = get_double(r, energy, "gpu_details.energy", "joules");
}

gt_status gt_usage_from_json(const char *json, gt_resource_usage *u)
{
    gt_clear_error();
    memset(u, 0, sizeof *u);
    enum json_tokener_error jerr = json_tokener_success;
    json_object *root = json_tokener_parse_verbose(json, &jerr);
    if (!root)
        return gt_fail(GT_ERR_PARSE, "not valid JSON: %s", json_tokener_error_desc(jerr));
    struct reader r = {GT_OK};
    if (json_object_get_type(root) != json_type_object)
        r.status = gt_fail(GT_ERR_PARSE, "not a resource usage document: the top level is not an object");

    json_object *ram = member(&r, root, "", "max_ram", json_type_object);
    get_unit(&r, ram, "max_ram", u->max_ram.unit);
    u->max_ram.system_capacity = get_double(&r, ram, "max_ram", "system_capacity");
    u->max_ram.system = get_double(&r, ram, "max_ram", "system");
    get_rss(&r, ram, "max_ram", "main", &u->max_ram.main);
    get_rss(&r, ram, "max_ram", descendants_key(ram), &u->max_ram.descendants);
    get_rss(&r, ram, "max_ram", "combined", &u->max_ram.combined);

    json_object *gram = member(&r, root, "", "max_gpu_ram", json_type_object);
    get_unit(&r, gram, "max_gpu_ram", u->max_gpu_ram.unit);
    u->max_gpu_ram.system_capacity = get_double(&r, gram, "max_gpu_ram", "system_capacity");
    u->max_gpu_ram.system = get_double(&r, gram, "max_gpu_ram", "system");
    u->max_gpu_ram.main = get_double(&r, gram, "max_gpu_ram", "main");
    u->max_gpu_ram.descendants = get_double(&r, gram, "max_gpu_ram", descendants_key(gram));
    u->max_gpu_ram.combined = get_double(&r, gram, "max_gpu_ram", "combined");

    json_object *cpu = member(&r, root, "", "cpu_utilization", json_type_object);
    gt_cpu_utilization *c = &u->cpu_utilization;
    c->system_core_count = get_int(&r, cpu, "cpu_utilization", "system_core_count");
    c->n_expected_cores = get_int(&r, cpu, "cpu_utilization", "n_expected_cores");
    get_percent(&r, cpu, "cpu_utilization", "system", &c->system);
    get_percent(&r, cpu, "cpu_utilization", "main", &c->main);
    get_percent(&r, cpu, "cpu_utilization", descendants_key(cpu), &c->descendants);
    get_percent(&r, cpu, "cpu_utilization", "combined", &c->combined);
    c->main_n_threads = get_int(&r, cpu, "cpu_utilization", "main_n_threads");
    int old = cpu && json_object_object_get_ex(cpu, "descendents_n_threads", NULL);
    c->descendants_n_threads =
        get_int(&r, cpu, "cpu_utilization", old ? "descendents_n_threads" : "descendants_n_threads");
    c->combined_n_threads = get_int(&r, cpu, "cpu_utilization", "combined_n_threads");

    json_object *gpu = member(&r, root, "", "gpu_utilization", json_type_object);
    u->gpu_utilization.system_gpu_count = get_int(&r, gpu, "gpu_utilization", "system_gpu_count");
    u->gpu_utilization.n_expected_gpus = get_int(&r, gpu, "gpu_utilization", "n_expected_gpus");
    get_percent(&r, gpu, "gpu_utilization", "gpu_percentages", &u->gpu_utilization.gpu_percentages);

    json_object *time = member(&r, root, "", "compute_time", json_type_object);
    get_unit(&r, time, "compute_time", u->compute_time.unit);
    u->compute_time.time = get_double(&r, time, "compute_time", "time");

    /* "gpu_details" and "measurement" are ours; gpu_tracker's documents lack
     * them (and are complete). */
    json_object *gd = NULL;
    if (r.status == GT_OK && json_object_object_get_ex(root, "gpu_details", &gd))
        read_gpu_details(&r, gd, &u->gpu_details);
    u->measurement.complete = 1;
    json_object *m = NULL;
    if (r.status == GT_OK && json_object_object_get_ex(root, "measurement", &m) &&
        json_object_get_type(m) == json_type_object) {
        json_object *v;
        if (json_object_object_get_ex(m, "complete", &v))
            u->measurement.complete = json_object_get_boolean(v);
        if (json_object_object_get_ex(m, "samples", &v))
            u->measurement.samples = json_object_get_int64(v);
        if (json_object_object_get_ex(m, "sleep_time", &v))
            u->measurement.sleep_time = json_object_get_double(v);
        json_object *sched;
        if (json_object_object_get_ex(m, "schedule", &sched) &&
            json_object_is_type(sched, json_type_object)) {
            if (json_object_object_get_ex(sched, "lateness_mean_ms", &v))
                u->measurement.lateness_mean_ms = json_object_get_double(v);
            if (json_object_object_get_ex(sched, "lateness_max_ms", &v))
                u->measurement.lateness_max_ms = json_object_get_double(v);
        }
        if (json_object_object_get_ex(m, "sampled_only", &v))
            u->measurement.sampled_only = json_object_get_boolean(v);
        json_object *g;
        if (json_object_object_get_ex(m, "gpu", &g)) {
            if (json_object_object_get_ex(g, "available", &v))
                u->measurement.gpu_available = json_object_get_boolean(v);
            if (json_object_object_get_ex(g, "reason", &v) && json_object_is_type(v, json_type_string))
                snprintf(u->measurement.gpu_reason, sizeof u->measurement.gpu_reason, "%s",
                         json_object_get_string(v));
        }
    }
    json_object_put(root);
    return r.status;
}

/* A summary is a few kilobytes; this leaves room for any GPU list. */
#define SUMMARY_MAX_BYTES (16u << 20)

gt_status gt_usage_read_file(const char *path, gt_resource_usage *usage)
{
    gt_clear_error();
    char *doc;
    size_t len;
    gt_status st = read_regular_file(path, SUMMARY_MAX_BYTES, "summary", &doc, &len);
    if (st != GT_OK)
        return st;
    if (len == 0 || strlen(doc) != len) {
        free(doc);
        return gt_fail(GT_ERR_PARSE, "'%s' is not a gpu-tracker summary: %s", path,
                       len == 0 ? "it is empty" : "it holds a NUL byte");
    }
    st = gt_usage_from_json(doc, usage);
    free(doc);
    if (st != GT_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", gt_last_error());
        return gt_fail(st, "'%s' is not a gpu-tracker summary: %s", path, why);
    }
    return GT_OK;
}
