/* usage_json.c - the summary as JSON (gpu_tracker's to_json() keys and
 * nesting, plus "measurement"); the tools read it back
 * (tools/snapshot/usage_read.c). json-c does the JSON;
 * floats are given to it as Python's repr() so that numbers print as
 * gpu_tracker's do (shortest round-trip digits, "5.0" not "5"). */
#include "common/internal.h"

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/file_io.h"
#include "common/json_write.h"
#include "common/units.h"
#include "common/summary/summary_fields.h"
#include "common/summary/usage_json.h"
#include "common/summary/usage_write.h"

static double double_of(const void *base, const struct summary_double_field *f)
{
    double v;
    memcpy(&v, (const char *)base + f->offset, sizeof v);
    return v;
}

/* ---- writing ---------------------------------------------------------- */

static void add_float(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_new_pyfloat(v));
}

static void add_int(json_object *o, const char *key, long v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

/* An object of the doubles fields names in the struct at base. */
static json_object *doubles_object(const void *base, const struct summary_double_field *fields)
{
    json_object *o = json_object_new_object();
    for (const struct summary_double_field *f = fields; f->key; f++)
        add_float(o, f->key, double_of(base, f));
    return o;
}

static json_object *rss_object(const gt_rss_values *v)
{
    return doubles_object(v, summary_rss_fields);
}

static json_object *percent_object(const gt_pu_percentages *p)
{
    return doubles_object(p, summary_percent_fields);
}

/* {"available": true, ...} or {"available": false, "reason": "..."}. */
static json_object *optional_object(int available, const char *reason)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(available));
    if (!available)
        json_object_object_add(o, "reason", json_new_text(reason));
    return o;
}

static json_object *gpu_details_object(const gt_gpu_details *d)
{
    json_object *g = json_object_new_object();
    json_object *devices = json_object_new_array();
    for (int i = 0; d->devices && i < d->ndevices; i++) {
        json_object *dev = json_object_new_object();
        add_int(dev, "index", i);
        json_object_object_add(dev, "uuid", json_new_text(d->devices[i].uuid));
        json_object_object_add(dev, "name", json_new_text(d->devices[i].name));
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

static json_object *measurement_object(const gt_measurement *me);

/* Which figures are exact, which at least the kernel's high-water marks
 * and which sampled (docs/metrics.md says why), as a run without corners
 * has them; field_class() moves those a corner makes less. */
enum field_class {
    FIELD_EXACT, FIELD_HIGH_WATER, FIELD_SAMPLED, FIELD_MAY_BE_LOW, FIELD_AT_MOST, FIELD_CLASSES
};
static const char *const class_keys[FIELD_CLASSES] = {
    "exact", "at_least_kernel_high_water_mark", "sampled", "may_be_low", "at_most",
};
enum field_corner {
    CORNER_NONE,
    CORNER_CPU,       /* CPU time of children the kernel reaps is lost */
    CORNER_RSS_MAIN,  /* main's and descendants' peaks, told apart */
    CORNER_RSS,       /* the combined peak */
};
static const struct classed_field {
    const char *name;
    enum field_class usual;
    enum field_corner corner;
} classed_fields[] = {
    {"compute_time.time", FIELD_EXACT, CORNER_NONE},
    {"cpu_utilization.*.mean_sum_percent", FIELD_EXACT, CORNER_CPU},
    {"cpu_utilization.*.mean_hardware_percent", FIELD_EXACT, CORNER_CPU},
    {"max_ram.main.total_rss", FIELD_HIGH_WATER, CORNER_RSS_MAIN},
    {"max_ram.descendants.total_rss", FIELD_HIGH_WATER, CORNER_RSS_MAIN},
    {"max_ram.combined.total_rss", FIELD_HIGH_WATER, CORNER_RSS},
    {"max_ram.system", FIELD_SAMPLED, CORNER_NONE},
    {"max_ram.*.private_rss", FIELD_SAMPLED, CORNER_NONE},
    {"max_ram.*.shared_rss", FIELD_SAMPLED, CORNER_NONE},
    {"cpu_utilization.*.max_sum_percent", FIELD_SAMPLED, CORNER_NONE},
    {"cpu_utilization.*.max_hardware_percent", FIELD_SAMPLED, CORNER_NONE},
    {"cpu_utilization.*_n_threads", FIELD_SAMPLED, CORNER_NONE},
    {"max_gpu_ram.*", FIELD_SAMPLED, CORNER_NONE},
    {"gpu_utilization.*", FIELD_SAMPLED, CORNER_NONE},
    {"gpu_details.process_utilization.*", FIELD_SAMPLED, CORNER_NONE},
};

/* The class of f in the run me describes: children the kernel reaps make
 * the CPU means and every RAM peak possibly low; a main process whose
 * peak cannot be told from its children's leaves main's and descendants'
 * peaks sampled (the combined one keeps the kernel's mark). */
static enum field_class field_class(const gt_measurement *me, const struct classed_field *f)
{
    if (me->unseen_children_pid > 0 && f->corner != CORNER_NONE)
        return FIELD_MAY_BE_LOW;
    if (me->rss_split_unknown && f->corner == CORNER_RSS_MAIN) {
        /* a side no sample saw carries its bound */
        int main_side = strncmp(f->name, "max_ram.main.", 13) == 0;
        double seen = main_side ? me->rss_main_sampled_bytes : me->rss_descendants_sampled_bytes;
        return seen > 0 ? FIELD_SAMPLED : FIELD_AT_MOST;
    }
    if (me->rss_peak_holder == GT_RSS_PEAK_UNSEEN && f->corner == CORNER_RSS)
        return FIELD_SAMPLED; /* the kernel's figure was our fork's: not used */
    return f->usual;
}

json_object *usage_json_object(const gt_resource_usage *u)
{
    json_object *root = json_object_new_object();

    json_object *ram = json_object_new_object();
    json_object_object_add(ram, "unit", json_new_text(u->max_ram.unit));
    add_float(ram, "system_capacity", u->max_ram.system_capacity);
    add_float(ram, "system", u->max_ram.system);
    json_object_object_add(ram, "main", rss_object(&u->max_ram.main));
    json_object_object_add(ram, "descendants", rss_object(&u->max_ram.descendants));
    json_object_object_add(ram, "combined", rss_object(&u->max_ram.combined));
    json_object_object_add(root, "max_ram", ram);

    json_object *gram = json_object_new_object();
    json_object_object_add(gram, "unit", json_new_text(u->max_gpu_ram.unit));
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
    json_object_object_add(time, "unit", json_new_text(u->compute_time.unit));
    add_float(time, "time", u->compute_time.time);
    json_object_object_add(root, "compute_time", time);

    if (!u->gpu_details.unknown)
        json_object_object_add(root, "gpu_details", gpu_details_object(&u->gpu_details));
    if (!u->measurement.unknown)
        json_object_object_add(root, "measurement", measurement_object(&u->measurement));
    return root;
}

char *usage_to_json(const gt_resource_usage *u)
{
    error_clear();
    if (GT_CHECK_STRUCT("usage_to_json", gt_resource_usage, u) != GT_OK)
        return NULL;
    return json_pretty_text(usage_json_object(u));
}

/* measurement.rss_peak_held_by (GT_RSS_PEAK_*) and the parts whose
 * private and shared RSS are not known (rss_parts_unknown's bits). */

static json_object *measurement_object(const gt_measurement *me)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "complete", json_object_new_boolean(me->complete));
    add_int(m, "samples", me->samples);
    add_float(m, "sleep_time", me->sleep_time);
    for (int c = 0; c < FIELD_CLASSES; c++) {
        json_object *list = json_object_new_array();
        for (size_t i = 0; i < sizeof classed_fields / sizeof classed_fields[0]; i++)
            if (field_class(me, &classed_fields[i]) == (enum field_class)c)
                json_object_array_add(list, json_new_text(classed_fields[i].name));
        if ((c == FIELD_MAY_BE_LOW || c == FIELD_AT_MOST) && json_object_array_length(list) == 0)
            json_object_put(list); /* only a run with a corner has it */
        else
            json_object_object_add(m, class_keys[c], list);
    }
    if (me->unseen_children_pid > 0) {
        json_object *who = json_object_new_object();
        add_int(who, "pid", me->unseen_children_pid);
        json_object_object_add(who, "command", json_new_text(me->unseen_children_command));
        json_object_object_add(m, "children_reaped_by_kernel", who);
    }
    if (me->rss_split_unknown) {
        json_object_object_add(m, "main_descendants_split_unknown", json_object_new_boolean(1));
        add_float(m, "unattributed_rss_bytes", me->rss_unattributed_bytes);
        json_object *seen = json_object_new_object();
        add_float(seen, "main", me->rss_main_sampled_bytes);
        add_float(seen, "descendants", me->rss_descendants_sampled_bytes);
        json_object_object_add(m, "sampled_rss_bytes", seen);
        json_object *most = json_object_new_object();
        add_float(most, "main", me->rss_main_at_most_bytes);
        add_float(most, "descendants", me->rss_descendants_at_most_bytes);
        json_object_object_add(m, "at_most_rss_bytes", most);
    }
    if (me->rss_peak_holder > GT_RSS_PEAK_SAMPLED && me->rss_peak_holder <= GT_RSS_PEAK_UNSEEN)
        json_object_object_add(m, "rss_peak_held_by",
                               json_new_text(summary_peak_holder_names[me->rss_peak_holder]));
    if (me->rss_peak_holder == GT_RSS_PEAK_UNSEEN)
        add_float(m, "unseen_rss_at_most_bytes", me->rss_unseen_at_most_bytes);
    if (me->rss_parts_unknown) {
        json_object *parts = json_object_new_array();
        for (int i = 0; i < 3; i++)
            if (me->rss_parts_unknown >> i & 1)
                json_object_array_add(parts, json_new_text(summary_rss_part_names[i]));
        json_object_object_add(m, "private_shared_unknown", parts);
    }
    if (me->cpu_resolution_seconds > 1e-6)
        add_float(m, "cpu_resolution_seconds", me->cpu_resolution_seconds);
    if (me->cpu_wait_available) {
        json_object *rq = json_object_new_object();
        add_float(rq, "wait_seconds", me->cpu_wait_seconds);
        add_float(rq, "run_seconds", me->cpu_run_seconds);
        json_object_object_add(m, "run_queue", rq);
    }
    json_object *g = json_object_new_object();
    json_object_object_add(g, "available", json_object_new_boolean(me->gpu_available));
    json_object_object_add(g, "reason", me->gpu_available ? NULL : json_new_text(me->gpu_reason));
    json_object_object_add(m, "gpu", g);
    json_object *sched = json_object_new_object();
    add_float(sched, "lateness_mean_ms", me->lateness_mean_ms);
    add_float(sched, "lateness_max_ms", me->lateness_max_ms);
    add_int(sched, "skipped", me->skipped);
    json_object_object_add(m, "schedule", sched);
    if (me->sampled_only)
        json_object_object_add(m, "sampled_only", json_object_new_boolean(1));
    return m;
}
