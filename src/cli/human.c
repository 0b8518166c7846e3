/* human.c - figures in units a person reads at a glance. */
#include "human.h"

#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* "Label" padded to the value column, then the value. */
#define LABEL "%-16s"

/* A caveat of the figures (gt_measurement_caveats), on a line of its own. */
static void caveat_line(const char *sentence, void *file)
{
    fprintf(file, LABEL "%s\n", "Caveat", sentence);
}

/* "Label  3.00 GiB WHAT (main 2.00 GiB, descendants 1.00 GiB)" */
static void line_bytes_split(FILE *f, const char *label, double total, double main_b,
                             double desc_b, const char *what)
{
    char t[32], m[32], d[32];
    fprintf(f, LABEL "%s%s (main %s, descendants %s)\n", label,
            human_bytes(t, sizeof t, total), what, human_bytes(m, sizeof m, main_b),
            human_bytes(d, sizeof d, desc_b));
}

/* One side of a peak not told apart: "3.1 MiB to 409 MiB", or "at most
 * 409 MiB" where no sample saw it. */
static void split_side(char *out, size_t cap, double seen, double at_most)
{
    char x[32], y[32];
    if (seen > 0)
        snprintf(out, cap, "%s to %s", human_bytes(x, sizeof x, seen),
                 human_bytes(y, sizeof y, at_most));
    else
        snprintf(out, cap, "at most %s", human_bytes(y, sizeof y, at_most));
}

/* Why a figure is missing: in full with --verbose, else its first clause
 * ("no GPU driver found", not the device files it looked for), which keeps
 * the line within a screen's width; the JSON always has it in full. */
static const char *why(char *buf, size_t cap, const char *reason, int verbose)
{
    if (verbose || !reason)
        return reason ? reason : "";
    size_t n = strlen(reason);
    static const char *const ends[] = {" (", ": ", "; "};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        const char *e = strstr(reason, ends[i]);
        if (e && (size_t)(e - reason) < n)
            n = (size_t)(e - reason);
    }
    snprintf(buf, cap, "%.*s", (int)n, reason);
    return buf;
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

/* gpu_activity_phrase() of the counters onto f; 1 when it said any. */
static int activity_text(FILE *f, unsigned read, const double *mean, const double *peak)
{
    char phrase[256];
    int any = gpu_activity_phrase(read, mean, peak, phrase, sizeof phrase);
    fputs(phrase, f);
    return any;
}

/* What the GPUs did while the job used them: their activity counters, PCIe
 * rates, and the job's own share of each GPU and of its energy. */
static void gpu_activity_lines(FILE *f, const gt_gpu_run *g)
{
    char a[32], b[32];
    if (g->activity_available) {
        fprintf(f, LABEL, "GPU activity");
        activity_text(f, g->activity_read, g->activity_mean, g->activity_peak);
        fputs(" of the GPU time the job used\n", f);
    }
    if (g->pcie_available)
        fprintf(f, LABEL "%s/s out, %s/s in (mean, all GPUs)\n", "GPU PCIe",
                human_bytes(a, sizeof a, g->pcie_tx_mean), human_bytes(b, sizeof b, g->pcie_rx_mean));
    if (g->share_available)
        fprintf(f, LABEL "the job's processes %.0f%% of the SM time of the GPUs it used, "
                "others' %.0f%%\n", "GPU share", 100 * g->job_sm_share, 100 * g->others_sm_share);
    for (int d = 0; g->devices && d < g->ngpus; d++) {
        const gt_gpu_run_device *x = &g->devices[d];
        if (!x->activity_read && !(x->share_read && x->others_sm_share > 0))
            continue;
        fprintf(f, "    GPU %d: ", d);
        int any = activity_text(f, x->activity_read, x->activity_mean, x->activity_peak);
        if (x->share_read)
            fprintf(f, "%sthe job %.0f%% of its time, others %.0f%%", any ? "; " : "",
                    100 * x->job_sm_share, 100 * x->others_sm_share);
        if (x->energy_read && x->share_read && x->others_sm_share > 0)
            fprintf(f, "; the job's energy there ~%s of the GPU's %s (an estimate)",
                    human_energy(a, sizeof a, x->job_energy_joules),
                    human_energy(b, sizeof b, x->energy_joules));
        fputc('\n', f);
    }
}

/* What the GPU driver counted beyond samples: accounting, throttling,
 * errors, the job's share of the GPUs' energy. Lines for what is there
 * (and for accounting, why not: the peaks are then sampled only). */
static void gpu_run_lines(FILE *f, const gt_gpu_details *d, const gt_gpu_run *g, int verbose)
{
    char a[32], b[32], reason[GT_REASON_LEN];
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
        fprintf(f, LABEL "peaks sampled only: %s\n", "GPU accounting",
                why(reason, sizeof reason, g->accounting_reason, verbose));
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
            fprintf(f, "%s %.0f%%", gpu_throttle_name(i), 100 * g->throttle_share[i]);
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
        fprintf(f, LABEL "%s on the selected GPUs", "GPU energy",
                human_energy(a, sizeof a, d->energy_joules));
        if (g->job_energy_available)
            fprintf(f, "; the job's share ~%.0f%% (~%s, an estimate from SM utilization)",
                    100 * g->job_energy_share, human_energy(b, sizeof b, g->job_energy_joules));
        fputc('\n', f);
    }
    gpu_activity_lines(f, g);
}

/* "Energy  1.20 kJ = 0.33 Wh (1.14 kJ to 1.26 kJ): GPU 1.20 kJ +-5%, CPU none
 * (no RAPL counters); CO2e 0.13 g (0.13 to 0.14) at 400 g/kWh, PUE 1", or
 * why there is none, and that CO2e could not be given when it was asked. */
static void job_energy_line(FILE *f, const gt_job_energy *e, int verbose)
{
    char a[GT_REASON_LEN], b[GT_REASON_LEN], lo[32], hi[32], wh[32];
    if (!e->available) {
        fprintf(f, LABEL "none (GPU: %s; CPU: %s)", "Energy",
                why(a, sizeof a, e->gpu_reason, verbose), why(b, sizeof b, e->cpu_reason, verbose));
        if (e->carbon_intensity > 0)
            fputs("; CO2e not given: no energy counter", f);
        fputc('\n', f);
        return;
    }
    fprintf(f, LABEL "%s = %s (%s to %s):", "Energy", human_energy(a, sizeof a, e->joules),
            human_watt_hours(wh, sizeof wh, e->joules),
            human_energy(lo, sizeof lo, e->joules_low),
            human_energy(hi, sizeof hi, e->joules_high));
    if (e->gpu_available)
        fprintf(f, " GPU %s +-%.0f%%%s", human_energy(a, sizeof a, e->gpu_joules),
                e->gpu_uncertainty_percent, verbose ? " (the GPUs' energy counters)" : "");
    else
        fprintf(f, " GPU none (%s)", why(a, sizeof a, e->gpu_reason, verbose));
    if (e->cpu_available)
        fprintf(f, ", CPU %s (up to %s%s)", human_energy(a, sizeof a, e->cpu_joules),
                human_energy(b, sizeof b, e->cpu_joules_high),
                verbose ? ": the job's CPU-time share of the sockets' RAPL energy, or all of it"
                        : "");
    else
        fprintf(f, ", CPU none (%s)", why(a, sizeof a, e->cpu_reason, verbose));
    if (e->co2e_available)
        fprintf(f, "; CO2e %.3g g (%.3g to %.3g) at %g g/kWh, PUE %g", e->co2e_grams,
                e->co2e_grams_low, e->co2e_grams_high, e->carbon_intensity, e->pue);
    fputc('\n', f);
}

/* A process's name or command line, chosen by whoever started it:
 * escaped (a command line can hold terminal controls). */
static void print_name(FILE *f, const char *s)
{
    char *safe = text_escape(s);
    for (const unsigned char *p = (const unsigned char *)(safe ? safe : s); *p; p++)
        fputc(safe || (*p >= 0x20 && *p < 0x7f) ? *p : '?', f);
    free(safe);
}

/* The processes by command: a heading line, then the top entries, one a
 * line, and the rest summed; nothing for a tree of one process. */
#define PROCESS_LINES 6
static void processes_lines(FILE *f, const gt_command_groups *g, int verbose)
{
    /* One process: the figures above are its own already. */
    if (!g->available || g->ngroups <= 0 || g->processes <= 1)
        return;
    char a[32], b[32];
    fprintf(f, LABEL "%ld in %ld command%s, CPU as sampled", "Processes", g->processes,
            g->commands, g->commands == 1 ? "" : "s");
    if (g->unseen_cpu_seconds >= 0.05)
        fprintf(f, " (+%s unseen%s)", human_duration(a, sizeof a, g->unseen_cpu_seconds),
                verbose ? ": after processes' last samples, or between two" : "");
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

/* "python train.py (main) 3.1 GiB, 4 x python3 1.6 GiB, 312 others 0.4 GiB":
 * who held a peak, processes of one name counted together but the main
 * process apart, marked (main) (a command's line when it is alone, cut at
 * 40 bytes), largest first as listed. */
static void at_peak_line(FILE *f, const char *label, const gt_peak_breakdown *b)
{
    static const char *const unseen[] = {
        [GT_RSS_PEAK_MAIN] = "the main process (no sample saw it at its peak)",
        [GT_RSS_PEAK_DESCENDANT] = "a descendant (no sample saw it at its peak)",
        [GT_RSS_PEAK_EITHER] = "the main process or a child of its own (not told apart)"};
    int sampled = b->available && b->nprocesses > 0;
    if (b->unseen_holder >= GT_RSS_PEAK_MAIN && b->unseen_holder <= GT_RSS_PEAK_EITHER) {
        char size[32];
        fprintf(f, LABEL "%s, %s (the kernel's record of it)\n", label, unseen[b->unseen_holder],
                human_bytes(size, sizeof size, b->unseen_bytes));
        label = "Largest sample";
    }
    if (!sampled)
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
        /* the main process apart from its namesakes: "python3 (main), 2 x python3" */
        for (int k = i; k < n; k++)
            if (!done[k] && (b->processes[k].role == 1) == (p->role == 1) &&
                strcmp(b->processes[k].command, p->command) == 0) {
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
        fprintf(f, "%s %s", p->role == 1 ? " (main)" : "", size);
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
    if (!me->unknown && me->rss_split_unknown) {
        /* Each side between what samples saw and the most it can have held. */
        char main_side[80], desc_side[80];
        split_side(main_side, sizeof main_side, me->rss_main_sampled_bytes,
                   me->rss_main_at_most_bytes);
        split_side(desc_side, sizeof desc_side, me->rss_descendants_sampled_bytes,
                   me->rss_descendants_at_most_bytes);
        fprintf(f, LABEL "%s RSS, shared once (main and descendants not told apart: main %s, "
                "descendants %s)\n", "Peak RAM",
                human_bytes(a, sizeof a, u->max_ram.combined.total_rss), main_side, desc_side);
    } else if (!me->unknown && me->rss_peak_holder == GT_RSS_PEAK_UNSEEN) {
        fprintf(f, LABEL "at most %s RSS (no sample saw the job, and the kernel's figure is no "
                "more than gpu-tracker's own fork held before the exec)\n", "Peak RAM",
                human_bytes(a, sizeof a, me->rss_unseen_at_most_bytes));
    } else
        line_bytes_split(f, "Peak RAM", u->max_ram.combined.total_rss, u->max_ram.main.total_rss,
                         u->max_ram.descendants.total_rss, " RSS, shared once");
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
        fprintf(f, LABEL "not measured (%s)\n", "I/O",
                x->from_file ? "a saved summary does not keep it"
                             : "only for a command gpu-tracker runs and reaps");
    if (me->unknown || me->gpu_available) {
        char of[64];
        snprintf(of, sizeof of, " of %s",
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
        char waited[800];
        if (x->gpu_idle && gpu_wait_advice(&x->gpu_idle->wait, waited, sizeof waited)) {
            /* The workers' command is the job's text: escaped. */
            fprintf(f, LABEL, "GPU waited");
            print_name(f, waited);
            fputc('\n', f);
        }
        const gt_gpu_utilization *g = &u->gpu_utilization;
        fprintf(f, LABEL "mean %.0f%%, peak %.0f%%, summed over %d GPU%s\n", "GPU utilization",
                g->gpu_percentages.mean_sum_percent, g->gpu_percentages.max_sum_percent,
                g->n_expected_gpus, g->n_expected_gpus == 1 ? "" : "s");
        if (x->gpu_run && !u->gpu_details.unknown)
            gpu_run_lines(f, &u->gpu_details, x->gpu_run, x->verbose);
    } else {
        char reason[GT_REASON_LEN];
        fprintf(f, LABEL "none: %s\n", "GPU",
                me->gpu_reason[0] ? why(reason, sizeof reason, me->gpu_reason, x->verbose)
                                  : "no GPU");
    }
    fprintf(f, LABEL "peak %d (main %d, descendants %d)\n", "Threads", cpu->combined_n_threads,
            cpu->main_n_threads, cpu->descendants_n_threads);
    if (x->processes)
        processes_lines(f, x->processes, x->verbose);
    if (energy && energy->available) {
        fprintf(f, LABEL "%s in %d package%s", "CPU energy",
                human_energy(a, sizeof a, energy->package_joules), energy->packages,
                energy->packages == 1 ? "" : "s");
        if (energy->dram_available)
            fprintf(f, ", DRAM %s", human_energy(a, sizeof a, energy->dram_joules));
        fprintf(f, ": the whole machine's; the job's share of its CPU time %.0f%% (~%s)\n",
                100 * energy->job_share,
                human_energy(a, sizeof a, energy->job_share * energy->package_joules));
    }
    if (x->job_energy)
        job_energy_line(f, x->job_energy, x->verbose);
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

char *human_wrap(const char *text, int width)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return NULL;
    const int label = 16; /* LABEL's width */
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        /* "Label           value": continued at the value; a listed entry
         * ("  python3 ..."), two columns further in than it starts. */
        int indent = n > (size_t)label && line[0] != ' ' && line[label - 1] == ' ' ? label : 4;
        const char *p = line, *end = line + n;
        int col = 0, first = 1;
        while (p < end) {
            const char *word = p;
            while (word < end && *word == ' ' && !first)
                word++; /* spaces where a line breaks are dropped */
            const char *stop = word;
            while (stop < end && *stop != ' ')
                stop++;
            int w = (int)(stop - word), gap = (int)(word - p);
            if (first) {
                /* the line's own start (padding included) is kept as it is */
                stop = word;
                while (stop < end && *stop == ' ')
                    stop++;
                while (stop < end && *stop != ' ')
                    stop++;
                fwrite(p, 1, (size_t)(stop - p), f);
                col = (int)(stop - p);
                first = 0;
            } else if (col + gap + w <= width || col <= indent) {
                fwrite(p, 1, (size_t)(stop - p), f);
                col += gap + w;
            } else {
                fprintf(f, "\n%*s", indent, "");
                fwrite(word, 1, (size_t)w, f);
                col = indent + w;
            }
            p = stop;
        }
        fputc('\n', f);
        line = nl ? nl + 1 : end;
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    /* the text's own end: a last line without a newline stays without */
    size_t tl = strlen(text);
    if (len > 0 && (tl == 0 || text[tl - 1] != '\n'))
        out[len - 1] = '\0';
    return out;
}

int human_width(int fd)
{
    const char *columns = getenv("COLUMNS");
    char *end;
    long c = columns ? strtol(columns, &end, 10) : 0;
    if (columns && *columns && !*end && c >= 40 && c <= 1000)
        return (int)c;
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 80;
}
