/* energy_usage.c - see energy_usage.h. */
#include "pipeline/energy_usage.h"

#include <stdio.h>
#include <string.h>

#include "util/hot_path.h"
#include "util/json_write.h"

void energy_acc_init(struct energy_acc *a)
{
    memset(a, 0, sizeof *a);
}

GT_HOT void energy_acc_step(struct energy_acc *a, const struct rapl_sample *s)
{
    if (!s->ok)
        return;
    if (!a->seen)
        a->first = *s;
    a->last = *s;
    a->seen = 1;
}

void energy_acc_fill(const struct energy_acc *a, const char *reason, int packages,
                     double job_share, gt_cpu_energy *out)
{
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    if (!a->seen) {
        snprintf(out->reason, sizeof out->reason, "%s",
                 reason && *reason ? reason : "the RAPL counters were not read");
        return;
    }
    out->available = 1;
    out->packages = packages;
    /* the reader's totals only grow: wraps are undone there */
    out->package_joules = (double)(a->last.package_uj - a->first.package_uj) / 1e6;
    out->dram_available = a->last.have_dram;
    out->dram_joules = (double)(a->last.dram_uj - a->first.dram_uj) / 1e6;
    out->job_share = job_share < 0 ? 0 : job_share > 1 ? 1 : job_share;
}

json_object *cpu_energy_json_object(const gt_cpu_energy *e)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "available", json_object_new_boolean(e->available));
    json_object_object_add(o, "reason", e->available ? NULL : json_new_text(e->reason));
    json_object_object_add(o, "packages", json_object_new_int(e->packages));
    json_object_object_add(o, "package_joules", json_new_pyfloat(e->package_joules));
    json_object_object_add(o, "dram_available", json_object_new_boolean(e->dram_available));
    json_object_object_add(o, "dram_joules", json_new_pyfloat(e->dram_joules));
    json_object_object_add(o, "job_share", json_new_pyfloat(e->job_share));
    json_object_object_add(o, "measurement",
                           json_new_text("the whole machine's (RAPL counts per socket); "
                                         "job_share, the job's part of the CPU time, is an "
                                         "estimate"));
    return o;
}

void cpu_energy_json_read(struct json_reader *r, json_object *o, const char *path,
                          gt_cpu_energy *e)
{
    size_t size = e->struct_size;
    memset(e, 0, sizeof *e);
    e->struct_size = size;
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    e->available = json_read_bool(r, o, "available", path);
    if (!e->available)
        json_read_string(r, o, "reason", path, e->reason, sizeof e->reason);
    e->packages = (int)json_read_integer(r, o, "packages", path, 0, 65536);
    e->package_joules = json_read_number(r, o, "package_joules", path, 0, 1e15);
    e->dram_available = json_read_bool(r, o, "dram_available", path);
    e->dram_joules = json_read_number(r, o, "dram_joules", path, 0, 1e15);
    e->job_share = json_read_number(r, o, "job_share", path, 0, 1);
}
