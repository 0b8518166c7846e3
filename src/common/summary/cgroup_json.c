/* cgroup_json.c - see cgroup_json.h. */
#include "common/summary/cgroup_json.h"

#include <stdio.h>
#include <string.h>

#include "common/json_write.h"

static void add_float(json_object *o, const char *key, double v)
{
    json_object_object_add(o, key, json_new_pyfloat(v));
}

static void add_int(json_object *o, const char *key, long v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static void add_bool(json_object *o, const char *key, int v)
{
    json_object_object_add(o, key, json_object_new_boolean(v != 0));
}

/* A reason, or null when the part is there. */
static void add_reason(json_object *o, int available, const char *reason)
{
    json_object_object_add(o, "reason", available ? NULL : json_new_text(reason));
}

static json_object *share_object(double some, double full)
{
    json_object *o = json_object_new_object();
    add_float(o, "some", some);
    add_float(o, "full", full);
    return o;
}

json_object *cgroup_json_object(const gt_cgroup_usage *c)
{
    json_object *root = json_object_new_object();
    add_bool(root, "available", c->available);
    add_reason(root, c->available, c->reason);
    add_int(root, "version", c->version);
    json_object_object_add(root, "path", json_new_text(c->path));
    add_bool(root, "created", c->created);
    json_object_object_add(root, "created_reason",
                           c->created_reason[0] ? json_new_text(c->created_reason) : NULL);
    add_bool(root, "incomplete", c->incomplete);
    json_object_object_add(root, "incomplete_reason",
                           c->incomplete ? json_new_text(c->incomplete_reason) : NULL);

    json_object *m = json_object_new_object();
    add_bool(m, "available", c->memory_available);
    add_reason(m, c->memory_available, c->memory_reason);
    add_float(m, "peak", c->memory_peak);
    json_object_object_add(m, "peak_measurement",
                           json_new_text(c->memory_peak_kernel ? "kernel group high-water mark"
                                                               : "sampled"));
    json_object *at = json_object_new_object();
    add_float(at, "anon", c->peak_anon);
    add_float(at, "file", c->peak_file);
    add_float(at, "shmem", c->peak_shmem);
    json_object_object_add(m, "at_peak_sample", at);
    add_float(m, "limit", c->memory_limit);
    add_int(m, "oom_events", c->oom_events);
    add_int(m, "oom_kills", c->oom_kills);
    add_float(m, "first_oom_kill_time", c->first_oom_kill_time);
    add_int(m, "limit_hits", c->limit_hits);
    json_object_object_add(root, "memory", m);

    json_object *cpu = json_object_new_object();
    add_bool(cpu, "available", c->cpu_available);
    add_reason(cpu, c->cpu_available, c->cpu_reason);
    add_float(cpu, "seconds", c->cpu_seconds);
    add_float(cpu, "user_seconds", c->cpu_user_seconds);
    add_float(cpu, "system_seconds", c->cpu_system_seconds);
    add_float(cpu, "quota_cores", c->cpu_quota);
    add_int(cpu, "throttle_periods", c->throttle_periods);
    add_int(cpu, "throttled_periods", c->throttled_periods);
    add_float(cpu, "throttled_seconds", c->throttled_seconds);
    json_object_object_add(root, "cpu", cpu);

    json_object *p = json_object_new_object();
    add_bool(p, "available", c->pressure_available);
    add_reason(p, c->pressure_available, c->pressure_reason);
    add_float(p, "seconds", c->pressure_seconds);
    json_object_object_add(p, "cpu", share_object(c->cpu_some, c->cpu_full));
    json_object_object_add(p, "memory", share_object(c->memory_some, c->memory_full));
    json_object_object_add(p, "io", share_object(c->io_some, c->io_full));
    json_object_object_add(root, "pressure", p);
    return root;
}

/* ---- reading ---------------------------------------------------------- */
