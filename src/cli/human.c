/* human.c - figures in units a person reads at a glance. */
#include "human.h"

#include "gpu_tracker_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

char *human_bytes(char *buf, size_t cap, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (!isfinite(bytes) || bytes < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    size_t u = 0;
    while (bytes >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        bytes /= 1024.0;
        u++;
    }
    /* Three significant figures: 1.25 GiB, 12.5 GiB, 125 GiB. A value that
     * rounds up to 1024 stays in its unit (1023.6 MiB reads "1024 MiB"),
     * rather than jump to a "1.00 GiB" it has not reached. */
    if (u == 0)
        snprintf(buf, cap, "%.0f %s", bytes, units[u]);
    else if (bytes < 10)
        snprintf(buf, cap, "%.2f %s", bytes, units[u]);
    else if (bytes < 100)
        snprintf(buf, cap, "%.1f %s", bytes, units[u]);
    else
        snprintf(buf, cap, "%.0f %s", bytes, units[u]);
    return buf;
}

char *human_clock(char *buf, size_t cap, double seconds)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    unsigned long long s = (unsigned long long)seconds;
    if (s < 3600)
        snprintf(buf, cap, "%llu:%02llu", s / 60, s % 60);
    else
        snprintf(buf, cap, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

char *human_duration(char *buf, size_t cap, double seconds)
{
    if (!isfinite(seconds) || seconds < 0) {
        snprintf(buf, cap, "-");
        return buf;
    }
    if (seconds < 10)
        snprintf(buf, cap, "%.2f s", seconds);
    else if (seconds < 60)
        snprintf(buf, cap, "%.1f s", seconds);
    else
        human_clock(buf, cap, seconds);
    return buf;
}

/* "Label" padded to the value column, then the value. */
#define LABEL "%-16s"

/* A caveat of the figures (gt_measurement_caveats), on a line of its own. */
static void caveat_line(const char *sentence, void *file)
{
    fprintf(file, LABEL "%s\n", "Caveat", sentence);
}

static void line_bytes_split(FILE *f, const char *label, double total, double main_b,
                             double desc_b, const char *what)
{
    char t[32], m[32], d[32];
    fprintf(f, LABEL "%s (main %s, descendants %s)%s\n", label, human_bytes(t, sizeof t, total),
            human_bytes(m, sizeof m, main_b), human_bytes(d, sizeof d, desc_b), what);
}

/* The job's cgroup: its peak and split, OOM kills, throttling, pressure. */
static void cgroup_lines(FILE *f, const gt_cgroup_usage *cg, int asked, int command_sigkill,
                         pid_t command_pid)
{
    char a[32], b[32], c[32], d[32];
    if (!cg->available) {
        if (asked)
            fprintf(f, LABEL "none: %s\n", "Job cgroup",
                    cg->created_reason[0] ? cg->created_reason : cg->reason);
        return;
    }
    fprintf(f, LABEL "%s (v%d%s)\n", "Job cgroup", cg->path, cg->version,
            cg->created ? ", made for the run" : "");
    if (cg->incomplete)
        fprintf(f, LABEL "%s: its figures undercount the job\n", "", cg->incomplete_reason);
    if (cg->memory_available) {
        fprintf(f, LABEL "%s, %s (anon %s, file %s, shmem %s at the highest sample)", "Group peak",
                human_bytes(a, sizeof a, cg->memory_peak),
                cg->memory_peak_kernel ? "the kernel's mark" : "sampled",
                human_bytes(b, sizeof b, cg->peak_anon), human_bytes(c, sizeof c, cg->peak_file),
                human_bytes(d, sizeof d, cg->peak_shmem));
        if (cg->memory_limit > 0)
            fprintf(f, ", %.0f%% of its limit %s", 100.0 * cg->memory_peak / cg->memory_limit,
                    human_bytes(a, sizeof a, cg->memory_limit));
        fputc('\n', f);
        double cache = gt_cgroup_reclaimable(cg);
        if (cache > 0)
            fprintf(f, LABEL "%s of the group peak was page cache the kernel could reclaim: "
                    "a memory request needs %s\n", "", human_bytes(a, sizeof a, cache),
                    human_bytes(b, sizeof b, gt_cgroup_working_peak(cg)));
        if (cg->oom_kills > 0) {
            time_t when = (time_t)cg->first_oom_kill_time;
            struct tm tm;
            char at[32] = "";
            if (localtime_r(&when, &tm))
                strftime(at, sizeof at, "%H:%M:%S", &tm);
            fprintf(f, LABEL "%ld process%s killed by the OOM killer (first seen at %s)%s",
                    "OOM", cg->oom_kills, cg->oom_kills == 1 ? "" : "es", at,
                    command_sigkill ? "; " : "\n");
            if (command_sigkill) /* the kernel says how many, not which: ours died so */
                fprintf(f, "the command itself (PID %d) ended by SIGKILL\n", (int)command_pid);
        } else if (cg->oom_events > 0 || cg->limit_hits > 0) {
            fprintf(f, LABEL "none killed; the limit was reached %ld time%s\n", "OOM",
                    cg->limit_hits, cg->limit_hits == 1 ? "" : "s");
        }
    } else {
        fprintf(f, LABEL "not measured: %s\n", "Group peak", cg->memory_reason);
    }
    if (cg->cpu_available && cg->throttled_periods > 0)
        fprintf(f, LABEL "%s in %ld of %ld periods (quota %.2f cores)\n", "CPU throttled",
                human_duration(a, sizeof a, cg->throttled_seconds), cg->throttled_periods,
                cg->throttle_periods, cg->cpu_quota);
    if (cg->pressure_available)
        fprintf(f, LABEL "CPU %.1f%%, memory %.1f%% (all tasks %.1f%%), I/O %.1f%% (all "
                "tasks %.1f%%) of the run\n", "Stalled", 100 * cg->cpu_some,
                100 * cg->memory_some, 100 * cg->memory_full, 100 * cg->io_some,
                100 * cg->io_full);
}

/* What the GPU driver counted beyond samples: accounting, throttling,
 * errors, the job's share of the GPUs' energy. Lines for what is there
 * (and for accounting, why not: the peaks are then sampled only). */
static void gpu_run_lines(FILE *f, const gt_gpu_details *d, const gt_gpu_run *g)
{
    char a[32], b[32];
    if (g->accounting_available) {
        fprintf(f, LABEL "%d GPU process%s in the driver's records (main %s, largest "
                "descendant %s)", "GPU accounting", g->accounting_processes,
                g->accounting_processes == 1 ? "" : "es",
                human_bytes(a, sizeof a, g->accounting_main_peak),
                human_bytes(b, sizeof b, g->accounting_descendants_peak));
        if (g->accounting_unseen)
            fprintf(f, "; %d ended between samples, seen only there", g->accounting_unseen);
        if (g->accounting_unattributed)
            fprintf(f, "; %d ended unseen on a GPU others used too, not counted",
                    g->accounting_unattributed);
        fputc('\n', f);
    } else {
        fprintf(f, LABEL "peaks sampled only: %s\n", "GPU accounting", g->accounting_reason);
    }
    if (g->throttle_available) {
        int any = 0;
        for (int i = 0; i < GT_GPU_THROTTLE_REASONS; i++) {
            /* an idle GPU clocks down by design: not a slowdown */
            if (i == 0 || g->throttle_share[i] <= 0)
                continue;
            if (any)
                fputs(", ", f);
            else
                fprintf(f, LABEL, "GPU slowed");
            fprintf(f, "%s %.0f%%", gt_gpu_throttle_name(i), 100 * g->throttle_share[i]);
            any = 1;
        }
        if (any)
            fprintf(f, " of the run\n");
    }
    int ecc = g->ecc_available && (g->ecc_corrected > 0 || g->ecc_uncorrected > 0);
    int xid = g->xid_available && g->xid_events > 0;
    if (ecc)
        fprintf(f, LABEL "ECC corrected %.0f, uncorrected %.0f%s", "GPU errors", g->ecc_corrected,
                g->ecc_uncorrected, xid ? "; " : "\n");
    if (xid) {
        if (!ecc)
            fprintf(f, LABEL, "GPU errors");
        fprintf(f, "%ld XID event%s (the last XID %lld", g->xid_events,
                g->xid_events == 1 ? "" : "s", g->xid_last);
        if (g->xid_last_gpu >= 0)
            fprintf(f, " on GPU %d", g->xid_last_gpu);
        fprintf(f, ")\n");
    }
    if (d->energy_available) {
        fprintf(f, LABEL "%.0f J on the selected GPUs", "GPU energy", d->energy_joules);
        if (g->job_energy_available)
            fprintf(f, "; the job's share ~%.0f%% (~%.0f J, an estimate from SM utilization)",
                    100 * g->job_energy_share, g->job_energy_joules);
        fputc('\n', f);
    }
}

/* The unit an energy of joules reads best in: J, Wh or kWh (its size in
 * joules in *factor); figures shown together share one. */
static const char *energy_unit(double joules, double *factor)
{
    *factor = joules >= 3.6e6 ? 3.6e6 : joules >= 3600 ? 3600 : 1;
    return joules >= 3.6e6 ? "kWh" : joules >= 3600 ? "Wh" : "J";
}

/* "Energy  1 Wh (0.95 to 1.05 Wh): GPU 1 Wh +-5% (the GPUs' energy
 * counters), CPU not measured (why); CO2e 0.6 g (0.57 to 0.63) at 400 g/kWh,
 * PUE 1.5", or why there is none. */
static void job_energy_line(FILE *f, const gt_job_energy *e)
{
    if (!e->available) {
        fprintf(f, LABEL "not available: GPU: %s; CPU: %s\n", "Energy", e->gpu_reason,
                e->cpu_reason);
        return;
    }
    double k;
    const char *unit = energy_unit(e->joules, &k);
    fprintf(f, LABEL "%.3g %s (%.3g to %.3g %s):", "Energy", e->joules / k, unit,
            e->joules_low / k, e->joules_high / k, unit);
    if (e->gpu_available) {
        unit = energy_unit(e->gpu_joules, &k);
        fprintf(f, " GPU %.3g %s +-%.0f%% (the GPUs' energy counters)", e->gpu_joules / k, unit,
                e->gpu_uncertainty_percent);
    } else {
        fprintf(f, " GPU not measured (%s)", e->gpu_reason);
    }
    if (e->cpu_available) {
        unit = energy_unit(e->cpu_joules_high, &k);
        fprintf(f, ", CPU %.3g %s (up to %.3g %s: the job's CPU-time share of the sockets' "
                "RAPL energy, or all of it)", e->cpu_joules / k, unit, e->cpu_joules_high / k,
                unit);
    } else {
        fprintf(f, ", CPU not measured (%s)", e->cpu_reason);
    }
    if (e->co2e_available)
        fprintf(f, "; CO2e %.3g g (%.3g to %.3g) at %g g/kWh, PUE %g", e->co2e_grams,
                e->co2e_grams_low, e->co2e_grams_high, e->carbon_intensity, e->pue);
    fputc('\n', f);
}

/* "python train.py 3.1 GiB, 4 x pt_data_worker 1.6 GiB, 312 others 0.4 GiB":
 * who held a peak, processes of one name counted together (a command's
 * line when it is alone, cut at 40 bytes), largest first as listed. */
/* A process's name or command line, chosen by whoever started it:
 * escaped (a command line can hold terminal controls). */
static void print_name(FILE *f, const char *s)
{
    char *safe = gt_text_escape(s);
    for (const unsigned char *p = (const unsigned char *)(safe ? safe : s); *p; p++)
        fputc(safe || (*p >= 0x20 && *p < 0x7f) ? *p : '?', f);
    free(safe);
}

/* The processes by command: a heading line, then the top entries, one a
 * line, and the rest summed; nothing for a tree of one process. */
#define PROCESS_LINES 6
static void processes_lines(FILE *f, const gt_command_groups *g)
{
    /* One process: the figures above are its own already. */
    if (!g->available || g->ngroups <= 0 || g->processes <= 1)
        return;
    char a[32], b[32];
    fprintf(f, LABEL "%ld in %ld command%s, CPU as sampled", "Processes", g->processes,
            g->commands, g->commands == 1 ? "" : "s");
    if (g->unseen_cpu_seconds >= 0.05)
        fprintf(f, " (+%s unseen: after processes' last samples, or between two)",
                human_duration(a, sizeof a, g->unseen_cpu_seconds));
    fputs("\n", f);
    int n = g->ngroups < PROCESS_LINES ? g->ngroups : PROCESS_LINES;
    for (int i = 0; i < n; i++) {
        const gt_command_group *e = &g->groups[i];
        fputs("  ", f);
        print_name(f, e->command[0] ? e->command : "?");
        size_t w = strlen(e->command);
        fprintf(f, "%*s%ld process%s", w < 14 ? (int)(14 - w) : 1, "", e->processes,
                e->processes == 1 ? "" : "es");
        if (e->peak_concurrent > 1)
            fprintf(f, " (%ld at once)", e->peak_concurrent);
        fprintf(f, ", CPU %s, peak %s\n", human_duration(a, sizeof a, e->cpu_seconds),
                human_bytes(b, sizeof b, e->peak_pss_bytes));
    }
    long more = g->others + (g->ngroups - n);
    if (more > 0) {
        long procs = g->others_processes;
        double cpu = g->others_cpu_seconds;
        for (int i = n; i < g->ngroups; i++) {
            procs += g->groups[i].processes;
            cpu += g->groups[i].cpu_seconds;
        }
        fprintf(f, "  and %ld more command%s: %ld process%s, CPU %s\n", more,
                more == 1 ? "" : "s", procs, procs == 1 ? "" : "es",
                human_duration(a, sizeof a, cpu));
    }
}

static void at_peak_line(FILE *f, const char *label, const gt_peak_breakdown *b)
{
    if (!b->available || b->nprocesses <= 0)
        return;
    fprintf(f, LABEL, label);
    int done[GT_AT_PEAK_MAX] = {0};
    int n = b->nprocesses < GT_AT_PEAK_MAX ? b->nprocesses : GT_AT_PEAK_MAX;
    const char *sep = "";
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        const gt_peak_process *p = &b->processes[i];
        int count = 0;
        double bytes = 0;
        for (int k = i; k < n; k++)
            if (!done[k] && strcmp(b->processes[k].command, p->command) == 0) {
                done[k] = 1;
                count++;
                /* its own memory: shared pages are nobody's */
                bytes += b->processes[k].private_bytes >= 0 ? b->processes[k].private_bytes
                                                            : b->processes[k].bytes;
            }
        char size[32], name[41];
        human_bytes(size, sizeof size, bytes);
        snprintf(name, sizeof name, "%.40s", /* cut: the line is one of several */
                 count == 1 && *p->cmdline ? p->cmdline : *p->command ? p->command : "?");
        fputs(sep, f);
        if (count > 1)
            fprintf(f, "%d x ", count);
        print_name(f, name);
        fprintf(f, " %s", size);
        sep = ", ";
    }
    char size[32];
    if (b->others > 0)
        fprintf(f, "%s%ld other%s %s", sep, b->others, b->others == 1 ? "" : "s",
                human_bytes(size, sizeof size, b->others_private_bytes > 0
                                                   ? b->others_private_bytes : b->others_bytes));
    if (b->shared_bytes >= 1048576)
        fprintf(f, ", shared %s", human_bytes(size, sizeof size, b->shared_bytes));
    char when[32];
    fprintf(f, " (%s into the run)\n", human_duration(when, sizeof when, b->at_seconds));
}

char *human_summary(const gt_resource_usage *u, const gt_totals *totals,
                    const struct human_extras *x)
{
    const struct human_extras none = {0};
    if (!x)
        x = &none;
    const gt_cpu_energy *energy = x->energy;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    char a[32], b[32], c[32];
    const gt_cpu_utilization *cpu = &u->cpu_utilization;
    const gt_measurement *me = &u->measurement;

    static const char *const limit_names[GT_LIMIT_COUNT] = {"peak RAM", "peak GPU RAM",
                                                            "wall time", "CPU time"};
    for (int i = 0; x->limits && i < GT_LIMIT_COUNT; i++) {
        const gt_limit *l = &x->limits->figure[i];
        if (!l->set)
            continue;
        int mem = i == GT_LIMIT_RAM || i == GT_LIMIT_GPU_RAM;
        char *(*fmt)(char *, size_t, double) = mem ? human_bytes : human_duration;
        fprintf(f, LABEL "%s %s of %s", "Limit", limit_names[i], fmt(a, sizeof a, l->peak),
                fmt(b, sizeof b, l->limit));
        if (l->breached)
            fprintf(f, ": BREACHED %s into the run%s\n", human_duration(c, sizeof c, l->at),
                    x->limits->killed ? ", the command was ended" : "");
        else
            fprintf(f, ": within\n");
    }
    fprintf(f, LABEL "%s\n", "Wall time", human_duration(a, sizeof a, totals->wall_seconds));
    double cpu_total = totals->cpu_main_seconds + totals->cpu_descendants_seconds;
    fprintf(f, LABEL "%s (main %s, descendants %s)\n", "CPU time",
            human_duration(a, sizeof a, cpu_total),
            human_duration(b, sizeof b, totals->cpu_main_seconds),
            human_duration(c, sizeof c, totals->cpu_descendants_seconds));
    fprintf(f, LABEL "mean %.2f cores, peak %.2f, of %d\n", "CPU cores",
            cpu->combined.mean_sum_percent / 100.0, cpu->combined.max_sum_percent / 100.0,
            cpu->system_core_count);
    char starved[512];
    if (gt_cpu_contention(u, x->cg, totals->wall_seconds, starved, sizeof starved))
        fprintf(f, LABEL "%s\n", "CPU starved", starved);
    if (!me->unknown && me->rss_split_unknown)
        fprintf(f, LABEL "%s (main and descendants not told apart: the job ended before a "
                "sample saw it), RSS, shared pages once\n", "Peak RAM",
                human_bytes(a, sizeof a, u->max_ram.combined.total_rss));
    else
        line_bytes_split(f, "Peak RAM", u->max_ram.combined.total_rss, u->max_ram.main.total_rss,
                         u->max_ram.descendants.total_rss, ", RSS, shared pages once");
    gt_measurement_caveats(u, x->cg, caveat_line, f);
    if (x->at_peak)
        at_peak_line(f, "At the peak", &x->at_peak[GT_PEAK_MEMORY]);
    fprintf(f, LABEL "peak %s used of %s (the whole machine)\n", "System RAM",
            human_bytes(a, sizeof a, u->max_ram.system),
            human_bytes(b, sizeof b, u->max_ram.system_capacity));
    if (totals->io_available)
        fprintf(f, LABEL "read %s, written %s (storage)\n", "I/O",
                human_bytes(a, sizeof a, totals->read_bytes),
                human_bytes(b, sizeof b, totals->write_bytes));
    else
        fprintf(f, LABEL "not measured (only for a command gpu-tracker runs and reaps)\n", "I/O");
    if (me->unknown || me->gpu_available) {
        char of[64];
        snprintf(of, sizeof of, ", of %s",
                 human_bytes(a, sizeof a, u->max_gpu_ram.system_capacity));
        line_bytes_split(f, "Peak GPU RAM", u->max_gpu_ram.combined, u->max_gpu_ram.main,
                         u->max_gpu_ram.descendants, of);
        if (x->at_peak)
            at_peak_line(f, "At the GPU peak", &x->at_peak[GT_PEAK_GPU_MEMORY]);
        if (x->gpu_idle && x->gpu_idle->request_unused) {
            /* Who asked (a Slurm variable's value) comes from the environment. */
            fprintf(f, LABEL "%d GPU%s given (", "GPU request", x->gpu_idle->requested,
                    x->gpu_idle->requested == 1 ? "" : "s");
            print_name(f, x->gpu_idle->requested_by);
            fputs(") and none used: ask for none next time\n", f);
        }
        for (int i = 0; x->gpu_idle && i < x->gpu_idle->ndevices && i < 64; i++) {
            const gt_gpu_idle_device *d = &x->gpu_idle->devices[i];
            if (d->idle)
                fprintf(f, LABEL "GPU %d: %s held, idle (under %.0f%%) %.0f%% of the time it "
                        "was held: a GPU to give back\n", "GPU held idle", d->index,
                        human_bytes(a, sizeof a, d->held_bytes), x->gpu_idle->threshold_percent,
                        d->idle_percent);
        }
        const gt_gpu_utilization *g = &u->gpu_utilization;
        fprintf(f, LABEL "mean %.0f%%, peak %.0f%%, summed over %d GPU%s\n", "GPU utilization",
                g->gpu_percentages.mean_sum_percent, g->gpu_percentages.max_sum_percent,
                g->n_expected_gpus, g->n_expected_gpus == 1 ? "" : "s");
        if (x->gpu_run && !u->gpu_details.unknown)
            gpu_run_lines(f, &u->gpu_details, x->gpu_run);
    } else {
        fprintf(f, LABEL "none measured: %s\n", "GPU", me->gpu_reason[0] ? me->gpu_reason : "no GPU");
    }
    fprintf(f, LABEL "peak %d (main %d, descendants %d)\n", "Threads", cpu->combined_n_threads,
            cpu->main_n_threads, cpu->descendants_n_threads);
    if (x->processes)
        processes_lines(f, x->processes);
    if (energy && energy->available) {
        fprintf(f, LABEL "%.0f J in %d package%s", "CPU energy", energy->package_joules,
                energy->packages, energy->packages == 1 ? "" : "s");
        if (energy->dram_available)
            fprintf(f, ", DRAM %.0f J", energy->dram_joules);
        fprintf(f, ": the whole machine's; the job's share of its CPU time %.0f%% (~%.0f J)\n",
                100 * energy->job_share, energy->job_share * energy->package_joules);
    }
    if (x->job_energy)
        job_energy_line(f, x->job_energy);
    if (x->cg)
        cgroup_lines(f, x->cg, x->cgroup_asked, x->command_sigkill, x->command_pid);
    fprintf(f, LABEL "%ld, every %s\n", "Samples", me->samples,
            human_duration(a, sizeof a, me->sleep_time));
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
