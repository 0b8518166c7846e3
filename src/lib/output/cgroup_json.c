/* cgroup_json.c - see cgroup_json.h. */
#include "output/cgroup_json.h"

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

#define MAX_BYTES 1e18
#define MAX_SECONDS 1e12
#define MAX_COUNT 1000000000000000LL

struct reading {
    struct json_reader *r;
    const char *base;
    char path[96];
};

static const char *at(struct reading *x, const char *part)
{
    snprintf(x->path, sizeof x->path, "%s%s%s", x->base, *part ? "." : "", part);
    return x->path;
}

static json_object *part(struct reading *x, json_object *o, const char *key)
{
    return json_read_member(x->r, o, key, json_type_object, at(x, ""));
}

/* available, and the reason when not */
static int availability(struct reading *x, json_object *o, const char *where, char *reason)
{
    int available = json_read_bool(x->r, o, "available", at(x, where));
    reason[0] = '\0';
    if (o && !available)
        json_read_string(x->r, o, "reason", at(x, where), reason, GT_REASON_LEN);
    return available;
}

static void share(struct reading *x, json_object *p, const char *key, double *some, double *full)
{
    char where[32];
    snprintf(where, sizeof where, "pressure.%s", key);
    json_object *o = json_read_member(x->r, p, key, json_type_object, at(x, "pressure"));
    *some = json_read_number(x->r, o, "some", at(x, where), 0, 1);
    *full = json_read_number(x->r, o, "full", at(x, where), 0, 1);
}

void cgroup_json_read(struct json_reader *r, json_object *o, const char *path,
                      gt_cgroup_usage *c)
{
    size_t size = c->struct_size;
    memset(c, 0, sizeof *c);
    c->struct_size = size;
    struct reading x = {r, path, ""};
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    c->available = availability(&x, o, "", c->reason);
    c->version = (int)json_read_integer(r, o, "version", at(&x, ""), 0, 2);
    json_read_string(r, o, "path", at(&x, ""), c->path, sizeof c->path);
    c->created = json_read_bool(r, o, "created", at(&x, ""));
    json_object *cr = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "created_reason", &cr) && cr)
        json_read_string(r, o, "created_reason", at(&x, ""), c->created_reason,
                         sizeof c->created_reason);
    /* Since 0.4; an older document has neither. */
    json_object *inc = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "incomplete", &inc)) {
        c->incomplete = json_read_bool(r, o, "incomplete", at(&x, ""));
        json_object *ir = NULL;
        if (c->incomplete && r->status == GT_OK &&
            json_object_object_get_ex(o, "incomplete_reason", &ir) && ir)
            json_read_string(r, o, "incomplete_reason", at(&x, ""), c->incomplete_reason,
                             sizeof c->incomplete_reason);
    }

    json_object *m = part(&x, o, "memory");
    c->memory_available = availability(&x, m, "memory", c->memory_reason);
    c->memory_peak = json_read_number(r, m, "peak", at(&x, "memory"), 0, MAX_BYTES);
    char how[64] = "";
    json_read_string(r, m, "peak_measurement", at(&x, "memory"), how, sizeof how);
    if (r->status == GT_OK && strcmp(how, "sampled") != 0 &&
        strcmp(how, "kernel group high-water mark") != 0)
        json_read_fail(r, "\"%s.memory.peak_measurement\" is \"%s\"; valid: \"kernel group "
                       "high-water mark\", \"sampled\"", path, how);
    c->memory_peak_kernel = strcmp(how, "sampled") != 0;
    json_object *ap = json_read_member(r, m, "at_peak_sample", json_type_object, at(&x, "memory"));
    c->peak_anon = json_read_number(r, ap, "anon", at(&x, "memory.at_peak_sample"), 0, MAX_BYTES);
    c->peak_file = json_read_number(r, ap, "file", at(&x, "memory.at_peak_sample"), 0, MAX_BYTES);
    c->peak_shmem = json_read_number(r, ap, "shmem", at(&x, "memory.at_peak_sample"), 0,
                                     MAX_BYTES);
    c->memory_limit = json_read_number(r, m, "limit", at(&x, "memory"), 0, MAX_BYTES);
    c->oom_events = (long)json_read_integer(r, m, "oom_events", at(&x, "memory"), 0, MAX_COUNT);
    c->oom_kills = (long)json_read_integer(r, m, "oom_kills", at(&x, "memory"), 0, MAX_COUNT);
    c->first_oom_kill_time = json_read_number(r, m, "first_oom_kill_time", at(&x, "memory"), 0,
                                              MAX_SECONDS * 10);
    c->limit_hits = (long)json_read_integer(r, m, "limit_hits", at(&x, "memory"), 0, MAX_COUNT);

    json_object *cpu = part(&x, o, "cpu");
    c->cpu_available = availability(&x, cpu, "cpu", c->cpu_reason);
    c->cpu_seconds = json_read_number(r, cpu, "seconds", at(&x, "cpu"), 0, MAX_SECONDS);
    c->cpu_user_seconds = json_read_number(r, cpu, "user_seconds", at(&x, "cpu"), 0, MAX_SECONDS);
    c->cpu_system_seconds = json_read_number(r, cpu, "system_seconds", at(&x, "cpu"), 0,
                                             MAX_SECONDS);
    c->cpu_quota = json_read_number(r, cpu, "quota_cores", at(&x, "cpu"), 0, 1e7);
    c->throttle_periods = (long)json_read_integer(r, cpu, "throttle_periods", at(&x, "cpu"), 0,
                                                  MAX_COUNT);
    c->throttled_periods = (long)json_read_integer(r, cpu, "throttled_periods", at(&x, "cpu"), 0,
                                                   MAX_COUNT);
    c->throttled_seconds = json_read_number(r, cpu, "throttled_seconds", at(&x, "cpu"), 0,
                                            MAX_SECONDS);

    json_object *p = part(&x, o, "pressure");
    c->pressure_available = availability(&x, p, "pressure", c->pressure_reason);
    c->pressure_seconds = json_read_number(r, p, "seconds", at(&x, "pressure"), 0, MAX_SECONDS);
    share(&x, p, "cpu", &c->cpu_some, &c->cpu_full);
    share(&x, p, "memory", &c->memory_some, &c->memory_full);
    share(&x, p, "io", &c->io_some, &c->io_full);
}
