/* usage_text.c - the summary as gpu_tracker prints it (str(tracker)):
 * its section order, labels and 3-space indentation, each float rounded to
 * 3 decimals and printed as Python prints a float. */
#define _GNU_SOURCE
#include "gpu_tracker_internal.h"
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/pyfloat.h"
#include "common/summary/usage_write.h"

static void put_float(FILE *f, int indent, const char *label, double v)
{
    char num[40];
    pyfloat_repr(pyfloat_round3(v), num, sizeof num);
    fprintf(f, "\n%*s%s: %s", indent, "", label, num);
}

static void put_int(FILE *f, int indent, const char *label, long v)
{
    fprintf(f, "\n%*s%s: %ld", indent, "", label, v);
}

static void put_str(FILE *f, int indent, const char *label, const char *v)
{
    fprintf(f, "\n%*s%s: %s", indent, "", label, v);
}

static void put_heading(FILE *f, int indent, const char *label)
{
    fprintf(f, "\n%*s%s:", indent, "", label);
}

/* parts_known 0: the total is a kernel record no sample saw at its peak,
 * whose private and shared parts are not known (said, not printed as 0.0). */
static void put_rss(FILE *f, const char *label, const gt_rss_values *v, int parts_known)
{
    put_heading(f, 3, label);
    put_float(f, 6, "Total RSS", v->total_rss);
    if (parts_known) {
        put_float(f, 6, "Private RSS", v->private_rss);
        put_float(f, 6, "Shared RSS", v->shared_rss);
    } else {
        put_str(f, 6, "Private RSS", "not known (the peak is a kernel record no sample saw)");
        put_str(f, 6, "Shared RSS", "not known");
    }
}

static void put_percentages(FILE *f, const char *label, const gt_pu_percentages *p)
{
    put_heading(f, 3, label);
    put_float(f, 6, "Max sum percent", p->max_sum_percent);
    put_float(f, 6, "Max hardware percent", p->max_hardware_percent);
    put_float(f, 6, "Mean sum percent", p->mean_sum_percent);
    put_float(f, 6, "Mean hardware percent", p->mean_hardware_percent);
}

char *usage_to_text(const gt_resource_usage *u)
{
    error_clear();
    if (GT_CHECK_STRUCT("usage_to_text", gt_resource_usage, u) != GT_OK)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;

    const gt_max_ram *ram = &u->max_ram;
    fputs("Max RAM:", f);
    put_str(f, 3, "Unit", ram->unit);
    put_float(f, 3, "System capacity", ram->system_capacity);
    put_float(f, 3, "System", ram->system);
    int unknown = u->measurement.unknown ? 0 : u->measurement.rss_parts_unknown;
    put_rss(f, "Main", &ram->main, !(unknown & 1));
    put_rss(f, "Descendants", &ram->descendants, !(unknown & 2));
    put_rss(f, "Combined", &ram->combined, !(unknown & 4));

    const gt_max_gpu_ram *gram = &u->max_gpu_ram;
    fputs("\nMax GPU RAM:", f);
    put_str(f, 3, "Unit", gram->unit);
    put_float(f, 3, "System capacity", gram->system_capacity);
    put_float(f, 3, "System", gram->system);
    put_float(f, 3, "Main", gram->main);
    put_float(f, 3, "Descendants", gram->descendants);
    put_float(f, 3, "Combined", gram->combined);

    const gt_cpu_utilization *cpu = &u->cpu_utilization;
    fputs("\nCPU utilization:", f);
    put_int(f, 3, "System core count", cpu->system_core_count);
    put_int(f, 3, "Number of expected cores", cpu->n_expected_cores);
    put_percentages(f, "System", &cpu->system);
    put_percentages(f, "Main", &cpu->main);
    put_percentages(f, "Descendants", &cpu->descendants);
    put_percentages(f, "Combined", &cpu->combined);
    put_int(f, 3, "Main number of threads", cpu->main_n_threads);
    put_int(f, 3, "Descendants number of threads", cpu->descendants_n_threads);
    put_int(f, 3, "Combined number of threads", cpu->combined_n_threads);

    const gt_gpu_utilization *gpu = &u->gpu_utilization;
    fputs("\nGPU utilization:", f);
    put_int(f, 3, "System GPU count", gpu->system_gpu_count);
    put_int(f, 3, "Number of expected GPUs", gpu->n_expected_gpus);
    put_percentages(f, "GPU percentages", &gpu->gpu_percentages);

    fputs("\nCompute time:", f);
    put_str(f, 3, "Unit", u->compute_time.unit);
    put_float(f, 3, "Time", u->compute_time.time);

    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
