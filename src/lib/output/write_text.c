/* write_text.c - the summary as gpu_tracker prints it (str(tracker)):
 * its section order, labels and 3-space indentation, each float rounded to
 * 3 decimals and printed as Python prints a float. */
#define _GNU_SOURCE
#include "gpu_tracker.h"
#include "util/internal.h"

#include <stdlib.h>

#include "util/buf.h"
#include "util/num.h"
#include "util/pyfloat.h"

/* The text is put together in a buffer by hand rather than with fprintf:
 * the command prints it at the end of every run, and its fifty-odd lines
 * through printf's format parsing were 120,000 instructions (callgrind),
 * a fifth of all that a wrapped /bin/true ran of ours. */

/* The deepest indentation of a line (a section's section) */
#define TEXT_MAX_INDENT 6

/* "\n", indent spaces, the label and ": " (":" alone without a value) */
static void put_label(struct buf *b, int indent, const char *label, int has_value)
{
    static const char spaces[TEXT_MAX_INDENT] = {' ', ' ', ' ', ' ', ' ', ' '};
    buf_add(b, "\n", 1);
    buf_add(b, spaces, (size_t)(indent < TEXT_MAX_INDENT ? indent : TEXT_MAX_INDENT));
    buf_puts(b, label);
    buf_add(b, ": ", has_value ? 2 : 1);
}

static void put_float(struct buf *b, int indent, const char *label, double v)
{
    char num[40];
    pyfloat_repr(pyfloat_round3(v), num, sizeof num);
    put_label(b, indent, label, 1);
    buf_puts(b, num);
}

static void put_int(struct buf *b, int indent, const char *label, long v)
{
    char num[24];
    put_label(b, indent, label, 1);
    buf_add(b, num, num_i64_digits(v, num));
}

static void put_str(struct buf *b, int indent, const char *label, const char *v)
{
    put_label(b, indent, label, 1);
    buf_puts(b, v);
}

static void put_heading(struct buf *b, int indent, const char *label)
{
    put_label(b, indent, label, 0);
}

static void put_rss(struct buf *b, const char *label, const gt_rss_values *v)
{
    put_heading(b, 3, label);
    put_float(b, 6, "Total RSS", v->total_rss);
    put_float(b, 6, "Private RSS", v->private_rss);
    put_float(b, 6, "Shared RSS", v->shared_rss);
}

static void put_percentages(struct buf *b, const char *label, const gt_pu_percentages *p)
{
    put_heading(b, 3, label);
    put_float(b, 6, "Max sum percent", p->max_sum_percent);
    put_float(b, 6, "Max hardware percent", p->max_hardware_percent);
    put_float(b, 6, "Mean sum percent", p->mean_sum_percent);
    put_float(b, 6, "Mean hardware percent", p->mean_hardware_percent);
}

char *gt_usage_to_text(const gt_resource_usage *u)
{
    gt_clear_error();
    if (GT_CHECK_STRUCT("gt_usage_to_text", gt_resource_usage, u) != GT_OK)
        return NULL;
    struct buf text;
    buf_init(&text, 2048); /* the whole text at once: about 1,400 bytes */
    struct buf *b = &text;

    const gt_max_ram *ram = &u->max_ram;
    buf_puts(b, "Max RAM:");
    put_str(b, 3, "Unit", ram->unit);
    put_float(b, 3, "System capacity", ram->system_capacity);
    put_float(b, 3, "System", ram->system);
    put_rss(b, "Main", &ram->main);
    put_rss(b, "Descendants", &ram->descendants);
    put_rss(b, "Combined", &ram->combined);

    const gt_max_gpu_ram *gram = &u->max_gpu_ram;
    buf_puts(b, "\nMax GPU RAM:");
    put_str(b, 3, "Unit", gram->unit);
    put_float(b, 3, "System capacity", gram->system_capacity);
    put_float(b, 3, "System", gram->system);
    put_float(b, 3, "Main", gram->main);
    put_float(b, 3, "Descendants", gram->descendants);
    put_float(b, 3, "Combined", gram->combined);

    const gt_cpu_utilization *cpu = &u->cpu_utilization;
    buf_puts(b, "\nCPU utilization:");
    put_int(b, 3, "System core count", cpu->system_core_count);
    put_int(b, 3, "Number of expected cores", cpu->n_expected_cores);
    put_percentages(b, "System", &cpu->system);
    put_percentages(b, "Main", &cpu->main);
    put_percentages(b, "Descendants", &cpu->descendants);
    put_percentages(b, "Combined", &cpu->combined);
    put_int(b, 3, "Main number of threads", cpu->main_n_threads);
    put_int(b, 3, "Descendants number of threads", cpu->descendants_n_threads);
    put_int(b, 3, "Combined number of threads", cpu->combined_n_threads);

    const gt_gpu_utilization *gpu = &u->gpu_utilization;
    buf_puts(b, "\nGPU utilization:");
    put_int(b, 3, "System GPU count", gpu->system_gpu_count);
    put_int(b, 3, "Number of expected GPUs", gpu->n_expected_gpus);
    put_percentages(b, "GPU percentages", &gpu->gpu_percentages);

    buf_puts(b, "\nCompute time:");
    put_str(b, 3, "Unit", u->compute_time.unit);
    put_float(b, 3, "Time", u->compute_time.time);

    return buf_take(&text); /* NULL when memory ran out */
}
