/* usage.c - aggregates of samples and the ResourceUsage they give. */
#include "pipeline/usage.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/internal.h"

void usage_init(struct usage_acc *a, double sleep_time)
{
    memset(a, 0, sizeof *a);
    a->sleep_time = sleep_time;
}

static void raise_ull(unsigned long long *peak, unsigned long long v)
{
    if (v > *peak)
        *peak = v;
}
static void raise_long(long *peak, long v)
{
    if (v > *peak)
        *peak = v;
}
static void raise_double(double *peak, double v)
{
    if (v > *peak)
        *peak = v;
}

/* Percent of one core that a CPU delta (nanoseconds) over dt seconds is. */
static double ns_percent(unsigned long long now, unsigned long long before, double dt)
{
    if (now <= before || dt <= 0)
        return 0.0;
    return (double)(now - before) / 1e9 / dt * 100.0;
}

/* What the machine can give over an interval: every core busy (0: the
 * core count is not known yet, no cap). */
static double cpu_cap(const struct usage_acc *a)
{
    return a->sys_prev.ncpu > 0 ? 100.0 * a->sys_prev.ncpu : 0.0;
}

static double capped(double percent, double cap)
{
    return cap > 0 && percent > cap ? cap : percent;
}

static double sys_percent(const struct sys_cpu *now, const struct sys_cpu *before)
{
    if (now->total <= before->total || now->busy < before->busy)
        return 0.0;
    double busy = (double)(now->busy - before->busy);
    double total = (double)(now->total - before->total);
    return busy / total * 100.0 * now->ncpu;
}

static void add_memory(struct usage_acc *a, const struct tree_sample *s)
{
    /* Descendants and combined count shared pages once: see docs/metrics.md.
     * The union of the shared pages is at least the largest one process
     * maps and at least the sum of the processes' shares of them
     * (Pss - Private); we take the larger of these two lower bounds. */
    unsigned long long main_pss_shared =
        s->main_pss_kb > s->main_private_kb ? s->main_pss_kb - s->main_private_kb : 0;

    unsigned long long desc_shared = s->desc_shared_max_kb;
    raise_ull(&desc_shared, s->desc_pss_shared_kb);

    unsigned long long comb_private = s->main_private_kb + s->desc_private_kb;
    unsigned long long comb_shared = s->main_shared_kb;
    raise_ull(&comb_shared, s->desc_shared_max_kb);
    raise_ull(&comb_shared, main_pss_shared + s->desc_pss_shared_kb);

    raise_ull(&a->main_pk.total_kb, s->main_rss_kb);
    raise_ull(&a->main_pk.total_kb, s->main_hwm_kb);
    raise_ull(&a->main_pk.private_kb, s->main_private_kb);
    raise_ull(&a->main_pk.shared_kb, s->main_shared_kb);

    raise_ull(&a->desc_pk.total_kb, s->desc_private_kb + desc_shared);
    raise_ull(&a->desc_pk.total_kb, s->desc_hwm_max_kb);
    raise_ull(&a->desc_pk.private_kb, s->desc_private_kb);
    raise_ull(&a->desc_pk.shared_kb, desc_shared);

    a->latest.rss_kb = comb_private + comb_shared;
    struct usage_timepoint *tp = &a->latest.timepoint;
    tp->main_kb = s->main_rss_kb;
    tp->desc_kb = s->desc_private_kb + desc_shared;
    tp->comb_kb = comb_private + comb_shared;
    tp->main_threads = s->main_threads;
    tp->desc_threads = s->desc_threads;
    /* A sampled peak: the tracker keeps who made it up (at_peak). */
    a->new_rss_peak = comb_private + comb_shared > a->comb_pk.total_kb;
    raise_ull(&a->comb_pk.total_kb, comb_private + comb_shared);
    raise_ull(&a->comb_pk.private_kb, comb_private);
    raise_ull(&a->comb_pk.shared_kb, comb_shared);

    raise_long(&a->main_threads, s->main_threads);
    raise_long(&a->desc_threads, s->desc_threads);
    raise_long(&a->comb_threads, s->main_threads + s->desc_threads);
}

void usage_set_gpus(struct usage_acc *a, unsigned long long capacity, int count, int expected)
{
    a->gpu_capacity = capacity;
    a->gpu_count = count;
    a->gpu_expected = expected;
}

/* GPU memory peaks (main, descendants, their sum, the whole system) and the
 * utilization of the selected GPUs, both sampled. */
static void add_gpu(struct usage_acc *a, const struct gpu_tree_sample *g)
{
    raise_ull(&a->gpu_system_max, g->system_used);
    raise_ull(&a->gpu_main_max, g->main_bytes);
    raise_ull(&a->gpu_desc_max, g->desc_bytes);
    a->new_gpu_peak = g->main_bytes + g->desc_bytes > a->gpu_comb_max;
    raise_ull(&a->gpu_comb_max, g->main_bytes + g->desc_bytes);
    a->latest.have_gpu = 1;
    a->latest.gpu_bytes = g->main_bytes + g->desc_bytes;
    a->latest.timepoint.main_gpu = g->main_bytes;
    a->latest.timepoint.desc_gpu = g->desc_bytes;
    a->latest.timepoint.system_gpu = g->system_used;
    a->latest.timepoint.gpu_sum_percent = g->util_sum_percent;
    a->latest.gpu_util_percent = g->util_sum_percent;
    raise_double(&a->gpu_util_max, g->util_sum_percent);
    a->gpu_util_total += g->util_sum_percent;
    a->gpu_util_samples++;
    if (g->proc_util_ok) {
        double sm[3] = {g->main_sm, g->desc_sm, g->main_sm + g->desc_sm};
        for (int i = 0; i < 3; i++) {
            raise_double(&a->gpu_sm_max[i], sm[i]);
            a->gpu_sm_total[i] += sm[i];
        }
        a->gpu_sm_samples++;
    }
    if (g->energy_ok)
        raise_ull(&a->gpu_energy_mj, g->energy_mj);
}

/* The most one page fault can add to a process's RSS, kB: a transparent
 * huge page (a file fault maps at most 64 KiB around it). */
#define FAULT_MAX_KB 2048ULL

static unsigned long long fault_growth_kb(unsigned long long faults)
{
    return faults > ULLONG_MAX / FAULT_MAX_KB ? ULLONG_MAX : faults * FAULT_MAX_KB;
}

static unsigned long long add_sat(unsigned long long x, unsigned long long y)
{
    return x > ULLONG_MAX - y ? ULLONG_MAX : x + y;
}

/* What a live sample read of main's own VmHWM: the image it runs now, and
 * when it has exec'd since the last one (a new name, or a VmHWM lower than
 * the old image's, which only grows), the bound of the image it left: its
 * VmHWM then plus what the faults since can have added. A zombie's faults
 * are the last it made. */
static void note_main_image(struct usage_acc *a, const struct tree_sample *tree)
{
    if (tree->main_zombie) {
        a->final_faults_seen = 1;
        a->final_faults = tree->main_faults;
        return;
    }
    if (tree->main_hwm_kb == 0)
        return; /* a high-water mark from before tracking: not ours to bound */
    if (a->image_seen && (tree->main_hwm_kb < a->image_hwm_kb ||
                          strncmp(tree->main_comm, a->image_comm, sizeof a->image_comm) != 0)) {
        unsigned long long since =
            tree->main_faults > a->image_faults ? tree->main_faults - a->image_faults : 0;
        raise_ull(&a->left_images_bound_kb, add_sat(a->image_hwm_kb, fault_growth_kb(since)));
    }
    a->image_seen = 1;
    a->image_hwm_kb = tree->main_hwm_kb;
    a->image_faults = tree->main_faults;
    memcpy(a->image_comm, tree->main_comm, sizeof a->image_comm);
}

/* The most main's own peak can be (kB), from what samples read of it:
 * ULLONG_MAX where they cannot bound it (no live sample read its VmHWM,
 * or its faults at the end were not read). The images main ran before
 * the first such sample are taken to be the one it showed there (an exec
 * before the first sample into another image that then shrank is the
 * corner docs/metrics.md names). */
static unsigned long long own_peak_bound(const struct usage_acc *a)
{
    if (!a->image_seen || !a->final_faults_seen)
        return ULLONG_MAX;
    unsigned long long since =
        a->final_faults > a->image_faults ? a->final_faults - a->image_faults : 0;
    unsigned long long bound = add_sat(a->image_hwm_kb, fault_growth_kb(since));
    return bound > a->left_images_bound_kb ? bound : a->left_images_bound_kb;
}

void usage_add(struct usage_acc *a, double t, const struct tree_sample *tree,
               const struct sys_cpu *cpu, const struct meminfo *mem,
               const struct gpu_tree_sample *gpu)
{
    a->samples++;
    int baseline = a->samples == 1;
    /* A part not read this time shows 0 in the timepoint, as gpu_tracker
     * leaves it. */
    memset(&a->latest.timepoint, 0, sizeof a->latest.timepoint);
    a->latest.have_timepoint = 0;
    if (gpu && !baseline)
        add_gpu(a, gpu);
    if (mem) {
        a->sys_total_kb = mem->total_kb;
        if (!baseline && mem->total_kb >= mem->available_kb) {
            raise_ull(&a->sys_used_max_kb, mem->total_kb - mem->available_kb);
            a->latest.timepoint.system_kb = mem->total_kb - mem->available_kb;
        }
    }
    if (cpu) {
        if (!a->have_sys) {
            a->have_sys = 1;
            a->sys_t0 = a->sys_tprev = t;
            a->sys0 = a->sys_prev = *cpu;
        } else {
            double pct = sys_percent(cpu, &a->sys_prev);
            a->latest.timepoint.cpu_system_percent = pct;
            if (t - a->sys_tprev >= a->sleep_time / 2)
                raise_double(&a->max_sys, pct);
            a->sys_tprev = t;
            a->sys_prev = *cpu;
        }
    }
    if (!tree)
        return;
    raise_ull(&a->cpu_resolution_ns, tree->cpu_resolution_ns);
    raise_ull(&a->fork_hwm_kb, tree->fork_hwm_kb);
    a->sched_ok = tree->sched_ok;
    a->sched_run_ns = tree->sched_run_ns;
    a->sched_wait_ns = tree->sched_wait_ns;
    if (tree->sigchld_ignorer && !a->sigchld_ignorer) {
        a->sigchld_ignorer = tree->sigchld_ignorer;
        memcpy(a->sigchld_ignorer_comm, tree->sigchld_ignorer_comm,
               sizeof a->sigchld_ignorer_comm);
    }
    if (tree->main_alive) {
        a->main_seen = 1;
        a->main_cminflt = tree->main_cminflt;
        a->main_cmajflt = tree->main_cmajflt;
        if (!baseline)
            note_main_image(a, tree);
    }
    if (!a->have_tree) {
        a->have_tree = 1;
        a->tree_t0 = a->tree_tprev = t;
        a->main0 = a->main_prev = tree->main_ns;
        a->desc0 = a->desc_prev = tree->desc_ns;
        if (!baseline) {
            add_memory(a, tree);
        } else if (tree->main_alive) {
            /* The baseline is read before the command's exec: its memory and
             * threads are gpu-tracker's fork's (a sanitizer's runtime adds
             * one of its own there), not the command's. What it does say is
             * that the command's process is there, with a thread: a job
             * shorter than an interval, whose only other sample finds a
             * zombie, would otherwise report 0 threads. */
            raise_long(&a->main_threads, 1);
            raise_long(&a->comb_threads, 1);
        }
        return;
    }
    double dt = t - a->tree_tprev;
    double m = ns_percent(tree->main_ns, a->main_prev, dt);
    double d = ns_percent(tree->desc_ns, a->desc_prev, dt);
    double c = m + d;
    /* Where a process's CPU is in whole clock ticks (its clock could not
     * be read, or it was reaped), an interval can show a tick more per
     * process than it ran; and the clocks are read a few microseconds
     * apart from the sample's time: no rate exceeds every core. */
    double cap = cpu_cap(a);
    m = capped(m, cap);
    d = capped(d, cap);
    c = capped(c, cap);
    a->latest.timepoint.cpu_main_percent = m;
    a->latest.timepoint.cpu_desc_percent = d;
    a->latest.timepoint.cpu_comb_percent = c;
    if (dt >= a->sleep_time / 2) {
        raise_double(&a->max_main, m);
        raise_double(&a->max_desc, d);
        raise_double(&a->max_comb, c);
        a->have_max = 1;
        a->latest.have_cores = 1;
        a->latest.cores = c / 100.0;
    }
    a->tree_tprev = t;
    if (tree->main_ns > a->main_prev)
        a->main_prev = tree->main_ns;
    if (tree->desc_ns > a->desc_prev)
        a->desc_prev = tree->desc_ns;
    add_memory(a, tree);
    a->latest.have_timepoint = 1;
}

void usage_add_reaped(struct usage_acc *a, int is_main, unsigned long long maxrss_kb)
{
    if (a->sampled_only)
        return;
    struct rss_peak m, d, c;
    usage_rss_peaks(a, &m, &d, &c);
    if (!is_main) {
        /* An orphan we reaped as the subreaper. */
        if (maxrss_kb > c.total_kb) {
            a->peak_holder = GT_RSS_PEAK_DESCENDANT;
            a->unseen_at_most_kb = 0;
        }
        raise_ull(&a->reaped_any_kb, maxrss_kb);
        raise_ull(&a->reaped_desc_kb, maxrss_kb);
        return;
    }
    raise_ull(&a->reaped_main_any_kb, maxrss_kb);
    if (maxrss_kb <= a->fork_hwm_kb) {
        /* What exec carried over from our fork: nobody's of the job. Where
         * no sample saw the job either, its peak is at most this. */
        if (c.total_kb == 0) {
            a->unseen_at_most_kb = maxrss_kb;
            a->peak_holder = GT_RSS_PEAK_UNSEEN;
        }
        return;
    }
    a->unseen_at_most_kb = 0;
    if (a->peak_holder == GT_RSS_PEAK_UNSEEN)
        a->peak_holder = GT_RSS_PEAK_SAMPLED;
    int own_only = a->main_seen && a->main_cminflt == 0 && a->main_cmajflt == 0;
    int above_samples = maxrss_kb > c.total_kb;
    raise_ull(&a->reaped_any_kb, maxrss_kb);
    if (own_only) {
        raise_ull(&a->reaped_main_kb, maxrss_kb);
        if (above_samples)
            a->peak_holder = GT_RSS_PEAK_MAIN;
        return;
    }
    if (own_peak_bound(a) < maxrss_kb) {
        /* Beyond what main itself can have reached: a child's that main
         * reaped (its wait4 maxrss is the larger of the two). */
        raise_ull(&a->reaped_desc_kb, maxrss_kb);
        if (above_samples)
            a->peak_holder = GT_RSS_PEAK_DESCENDANT;
        return;
    }
    /* Its own peak or a child's: a part no sample accounts for, beyond
     * what our fork held before the exec. */
    unsigned long long known = m.total_kb > d.total_kb ? m.total_kb : d.total_kb;
    raise_ull(&known, a->fork_hwm_kb);
    if (maxrss_kb > known) {
        raise_ull(&a->unattributed_kb, maxrss_kb - known);
        a->peak_holder = GT_RSS_PEAK_EITHER;
    }
}

void usage_add_reaped_io(struct usage_acc *a, int is_main, unsigned long long in_blocks,
                         unsigned long long out_blocks)
{
    if (is_main)
        a->main_reaped = 1;
    a->reaped_in_blocks += in_blocks;
    a->reaped_out_blocks += out_blocks;
}

void usage_cpu_seconds(const struct usage_acc *a, double *main_s, double *desc_s)
{
    *main_s = a->main_prev > a->main0 ? (double)(a->main_prev - a->main0) / 1e9 : 0;
    *desc_s = a->desc_prev > a->desc0 ? (double)(a->desc_prev - a->desc0) / 1e9 : 0;
}

static void set_percentages(gt_pu_percentages *p, double max_sum, double mean_sum,
                            int denominator)
{
    p->max_sum_percent = max_sum;
    p->mean_sum_percent = mean_sum;
    p->max_hardware_percent = denominator > 0 ? max_sum / denominator : 0.0;
    p->mean_hardware_percent = denominator > 0 ? mean_sum / denominator : 0.0;
}

static void set_rss(gt_rss_values *v, const struct rss_peak *pk, double divisor)
{
    v->total_rss = (double)pk->total_kb * 1024.0 / divisor;
    v->private_rss = (double)pk->private_kb * 1024.0 / divisor;
    v->shared_rss = (double)pk->shared_kb * 1024.0 / divisor;
}

void usage_rss_peaks(const struct usage_acc *a, struct rss_peak *main_pk,
                     struct rss_peak *desc_pk, struct rss_peak *comb_pk)
{
    *main_pk = a->main_pk;
    *desc_pk = a->desc_pk;
    *comb_pk = a->comb_pk;
    raise_ull(&main_pk->total_kb, a->reaped_main_kb);
    raise_ull(&desc_pk->total_kb, a->reaped_desc_kb);
    raise_ull(&comb_pk->total_kb, main_pk->total_kb);
    raise_ull(&comb_pk->total_kb, desc_pk->total_kb);
    raise_ull(&comb_pk->total_kb, a->reaped_any_kb);
    if (a->peak_holder == GT_RSS_PEAK_EITHER) {
        /* Not told apart: a side no sample saw gets its bound, never 0 B
         * for a process that ran. */
        unsigned long long bound = own_peak_bound(a);
        if (main_pk->total_kb == 0)
            main_pk->total_kb = bound < a->reaped_main_any_kb ? bound : a->reaped_main_any_kb;
        if (desc_pk->total_kb == 0)
            desc_pk->total_kb = a->reaped_main_any_kb;
    }
}

unsigned long long usage_combined_peak_kb(const struct usage_acc *a)
{
    struct rss_peak m, d, c;
    usage_rss_peaks(a, &m, &d, &c);
    return c.total_kb;
}

void usage_result(const struct usage_acc *a, const struct usage_units *u,
                  double compute_seconds, gt_resource_usage *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;

    struct rss_peak main_pk, desc_pk, comb_pk;
    usage_rss_peaks(a, &main_pk, &desc_pk, &comb_pk);

    gt_max_ram *ram = &out->max_ram;
    text_copy(ram->unit, sizeof ram->unit, u->ram_unit);
    ram->system_capacity = (double)a->sys_total_kb * 1024.0 / u->ram_divisor;
    ram->system = (double)a->sys_used_max_kb * 1024.0 / u->ram_divisor;
    set_rss(&ram->main, &main_pk, u->ram_divisor);
    set_rss(&ram->descendants, &desc_pk, u->ram_divisor);
    set_rss(&ram->combined, &comb_pk, u->ram_divisor);

    gt_max_gpu_ram *gram = &out->max_gpu_ram;
    text_copy(gram->unit, sizeof gram->unit, u->gpu_ram_unit);
    gram->system_capacity = (double)a->gpu_capacity / u->gpu_ram_divisor;
    gram->system = (double)a->gpu_system_max / u->gpu_ram_divisor;
    gram->main = (double)a->gpu_main_max / u->gpu_ram_divisor;
    gram->descendants = (double)a->gpu_desc_max / u->gpu_ram_divisor;
    gram->combined = (double)a->gpu_comb_max / u->gpu_ram_divisor;

    gt_gpu_utilization *gpu = &out->gpu_utilization;
    gpu->system_gpu_count = a->gpu_count;
    gpu->n_expected_gpus = a->gpu_expected;
    double gpu_mean = a->gpu_util_samples ? a->gpu_util_total / (double)a->gpu_util_samples : 0.0;
    set_percentages(&gpu->gpu_percentages, a->gpu_util_max, gpu_mean, a->gpu_expected);

    gt_gpu_details *d = &out->gpu_details;
    gt_pu_percentages *sm[3] = {&d->main, &d->descendants, &d->combined};
    for (int i = 0; i < 3; i++)
        set_percentages(sm[i], a->gpu_sm_max[i],
                        a->gpu_sm_samples ? a->gpu_sm_total[i] / (double)a->gpu_sm_samples : 0.0,
                        a->gpu_expected);
    d->energy_joules = (double)a->gpu_energy_mj / 1000.0;

    gt_cpu_utilization *cpu = &out->cpu_utilization;
    cpu->system_core_count = u->system_core_count;
    cpu->n_expected_cores = u->n_expected_cores;
    double span = a->tree_tprev - a->tree_t0;
    /* Means are capped as the intervals are: over a window of a few
     * milliseconds, a CPU figure in ticks (a reaped child's) could
     * otherwise exceed what every core could give. */
    double cap = cpu_cap(a);
    double mean_main = capped(ns_percent(a->main_prev, a->main0, span), cap);
    double mean_desc = capped(ns_percent(a->desc_prev, a->desc0, span), cap);
    if (cap > 0 && mean_main + mean_desc > cap)
        mean_desc = cap - mean_main;
    double mean_sys = a->have_sys ? sys_percent(&a->sys_prev, &a->sys0) : 0.0;
    /* A run shorter than half an interval has no interval to take a maximum
     * over; its one figure is then both the mean and the max. */
    double max_main = a->have_max ? a->max_main : mean_main;
    double max_desc = a->have_max ? a->max_desc : mean_desc;
    double max_comb = a->have_max ? a->max_comb : mean_main + mean_desc;
    double max_sys = a->max_sys;
    if (max_main < mean_main) max_main = mean_main;
    if (max_desc < mean_desc) max_desc = mean_desc;
    if (max_comb < mean_main + mean_desc) max_comb = mean_main + mean_desc;
    if (max_sys < mean_sys) max_sys = mean_sys;
    set_percentages(&cpu->system, max_sys, mean_sys, u->system_core_count);
    set_percentages(&cpu->main, max_main, mean_main, u->n_expected_cores);
    set_percentages(&cpu->descendants, max_desc, mean_desc, u->n_expected_cores);
    set_percentages(&cpu->combined, max_comb, mean_main + mean_desc, u->n_expected_cores);
    cpu->main_n_threads = (int)a->main_threads;
    cpu->descendants_n_threads = (int)a->desc_threads;
    cpu->combined_n_threads = (int)a->comb_threads;

    text_copy(out->compute_time.unit, sizeof out->compute_time.unit, u->time_unit);
    out->compute_time.time = compute_seconds / u->time_divisor;

    out->measurement.samples = a->samples;
    out->measurement.sleep_time = a->sleep_time;
    out->measurement.unseen_children_pid = (int)a->sigchld_ignorer;
    memcpy(out->measurement.unseen_children_command, a->sigchld_ignorer_comm,
           sizeof out->measurement.unseen_children_command);
    out->measurement.unseen_children_command[sizeof out->measurement.unseen_children_command - 1] =
        '\0';
    gt_measurement *me = &out->measurement;
    me->rss_split_unknown = a->peak_holder == GT_RSS_PEAK_EITHER;
    me->rss_unattributed_bytes = (double)a->unattributed_kb * 1024.0;
    me->rss_peak_holder = a->peak_holder;
    if (me->rss_split_unknown) {
        me->rss_main_sampled_bytes = (double)a->main_pk.total_kb * 1024.0;
        me->rss_descendants_sampled_bytes = (double)a->desc_pk.total_kb * 1024.0;
        unsigned long long bound = own_peak_bound(a);
        me->rss_main_at_most_bytes =
            (double)(bound < a->reaped_main_any_kb ? bound : a->reaped_main_any_kb) * 1024.0;
        me->rss_descendants_at_most_bytes = (double)a->reaped_main_any_kb * 1024.0;
    }
    if (me->rss_peak_holder == GT_RSS_PEAK_UNSEEN)
        me->rss_unseen_at_most_bytes = (double)a->unseen_at_most_kb * 1024.0;
    /* A peak from a kernel record, above every sample, has no private and
     * shared parts: theirs are a sample's, not the peak's. */
    unsigned long long seen_comb = a->comb_pk.total_kb;
    raise_ull(&seen_comb, a->main_pk.total_kb);
    raise_ull(&seen_comb, a->desc_pk.total_kb);
    const unsigned long long totals[3] = {main_pk.total_kb, desc_pk.total_kb, comb_pk.total_kb};
    const unsigned long long seen[3] = {a->main_pk.total_kb, a->desc_pk.total_kb, seen_comb};
    for (int i = 0; i < 3; i++)
        if (totals[i] > seen[i])
            me->rss_parts_unknown |= 1 << i;
    out->measurement.cpu_resolution_seconds = (double)a->cpu_resolution_ns / 1e9;
    out->measurement.cpu_wait_available = a->sched_ok;
    out->measurement.cpu_wait_seconds = (double)a->sched_wait_ns / 1e9;
    out->measurement.cpu_run_seconds = (double)a->sched_run_ns / 1e9;
}

void usage_totals(const struct usage_acc *a, gt_totals *r)
{
    usage_cpu_seconds(a, &r->cpu_main_seconds, &r->cpu_descendants_seconds);
    r->io_available = a->main_reaped;
    if (r->io_available) {
        r->read_bytes = (double)a->reaped_in_blocks * 512.0;
        r->write_bytes = (double)a->reaped_out_blocks * 512.0;
    }
}
