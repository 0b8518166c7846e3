/* usage.h - running aggregates of samples, and the final ResourceUsage.
 *
 * Means are exact: the CPU time counted between the first and the last sample
 * (in nanoseconds where the processes' CPU clocks can be read) over the wall
 * time between them, never above every core. Maxima are over sampling
 * intervals; an interval shorter than half the sleep time (the final partial
 * one) is left out of the maxima. RAM peaks are the highest sampled values,
 * never below the kernel's high-water marks. Where that cannot hold (a
 * process whose children the kernel reaps, a main process that waited for
 * children before any sample saw it), the accumulator says so and the
 * measurement carries it (gt_measurement's corners). */
#ifndef GT_USAGE_H
#define GT_USAGE_H

#include "gpu_tracker_internal.h"
#include "sample.h"


struct rss_peak {
    unsigned long long total_kb, private_kb, shared_kb;
};

/* What one sample saw, as a row of gpu_tracker 5's tracking file has it
 * (its _TimepointUsage): memory in kB, GPU memory in bytes, CPU as the sum
 * percent over the interval since the previous sample (100 = one core,
 * capped at every core), GPU utilization as the selected GPUs' sum percent.
 * The tracking file's sink turns them into the run's units. */
struct usage_timepoint {
    unsigned long long main_kb, desc_kb, comb_kb; /* RSS, shared pages once */
    unsigned long long system_kb;                 /* MemTotal - MemAvailable */
    unsigned long long main_gpu, desc_gpu, system_gpu;
    double gpu_sum_percent;
    long main_threads, desc_threads;
    double cpu_system_percent, cpu_main_percent, cpu_desc_percent, cpu_comb_percent;
};

struct usage_acc {
    int sampled_only;              /* no kernel high-water marks (comparison mode) */
    double sleep_time;
    long samples;

    int have_tree;                 /* a tree sample has been taken */
    double tree_t0, tree_tprev;
    unsigned long long main0, desc0, main_prev, desc_prev; /* CPU, nanoseconds */

    int have_sys;
    double sys_t0, sys_tprev;
    struct sys_cpu sys0, sys_prev;

    int have_max;                  /* some interval was long enough */
    double max_main, max_desc, max_comb, max_sys; /* sum percent */

    struct rss_peak main_pk, desc_pk, comb_pk;
    unsigned long long sys_used_max_kb, sys_total_kb;
    long main_threads, desc_threads, comb_threads;
    /* main's reaped-children fault counters as last seen: both 0 means main
     * reaped no child, so its wait4 ru_maxrss is its own high-water mark. */
    int main_seen;
    unsigned long long main_cminflt, main_cmajflt;
    unsigned long long reaped_main_kb;   /* main's own wait4 maxrss */
    unsigned long long reaped_any_kb;    /* any reaped process's maxrss */
    unsigned long long reaped_desc_kb;   /* a reaped descendant's maxrss */
    /* main was reaped with a maxrss above what samples saw of main and of
     * its descendants (and above gpu-tracker's fork's, which exec carries
     * into it), having reaped children of its own: the figure is the
     * larger of its own peak and theirs, and which is not known: by how
     * much it is above all that (kB; 0: the split is known). */
    unsigned long long unattributed_kb;
    unsigned long long fork_hwm_kb;      /* tree_sample's */
    /* What main's own peak can be at most, from the samples that read its
     * VmHWM (usage.c, own_peak_bound): the image it runs now as of the
     * last live sample (its VmHWM, its faults and name then), the largest
     * bound of an image it exec'd away from, and its faults as a zombie. */
    int image_seen;
    unsigned long long image_hwm_kb, image_faults;
    char image_comm[16];
    unsigned long long left_images_bound_kb;
    int final_faults_seen;
    unsigned long long final_faults;
    /* The kernel's peak of main's reaped record, and whose the combined
     * peak above every sample was: a GT_RSS_PEAK_* (usage_add_reaped). */
    unsigned long long reaped_main_any_kb;
    int peak_holder;
    /* main had no child and its record is no more than gpu-tracker's fork
     * held before the exec: the job's own peak is at most this (kB), and
     * no sample saw it. */
    unsigned long long unseen_at_most_kb;
    /* The first tracked process seen ignoring SIGCHLD (0: none). */
    pid_t sigchld_ignorer;
    char sigchld_ignorer_comm[16];
    /* The coarsest resolution of a live process's CPU seen (ns). */
    unsigned long long cpu_resolution_ns;
    /* The tree's run-queue figures as last sampled (tree_sample's). */
    int sched_ok;
    unsigned long long sched_run_ns, sched_wait_ns;
    /* Storage I/O of the reaped processes (wait4's ru_inblock/ru_oublock:
     * each its own and that of the children it waited for), in 512-byte
     * blocks; main_reaped: the tracked process itself was among them. */
    int main_reaped;
    unsigned long long reaped_in_blocks, reaped_out_blocks;

    /* GPUs: what is there (set once), and peaks and sums of samples. */
    unsigned long long gpu_capacity;
    int gpu_count, gpu_expected;
    unsigned long long gpu_system_max, gpu_main_max, gpu_desc_max, gpu_comb_max;
    double gpu_util_max, gpu_util_total;
    long gpu_util_samples;
    double gpu_sm_max[3], gpu_sm_total[3]; /* main, descendants, combined */
    long gpu_sm_samples;
    unsigned long long gpu_energy_mj;

    /* The newest sample raised the sampled combined RSS peak / the tree's
     * GPU memory peak (the tracker then keeps who made it up). */
    int new_rss_peak, new_gpu_peak;

    /* The newest sample's figures, for a look while the run goes on
     * (the status line's figures: gt_tracker_figure); the peaks are above. */
    struct usage_latest {
        int have_cores;            /* an interval long enough has been seen */
        double cores;              /* the tree's CPU over it, cores (capped
                                      as the maxima are) */
        unsigned long long rss_kb; /* the tree's RSS, shared pages once */
        int have_gpu;              /* a GPU sample after the baseline */
        unsigned long long gpu_bytes; /* the tree's GPU memory */
        double gpu_util_percent;   /* the selected GPUs', summed */
        int have_timepoint;        /* the newest sample made timepoint (not
                                      the baseline, and the tree was read) */
        struct usage_timepoint timepoint;
    } latest;
};

void usage_init(struct usage_acc *a, double sleep_time);

/* Adds one sample taken at monotonic time t (seconds). tree, sys or gpu may
 * be NULL when that part could not be read (or there are no GPUs). The first sample is the baseline:
 * it anchors the CPU counters and contributes no RAM or thread figures (in
 * the CLI it sees gpu-tracker's own fork before the command runs). */
void usage_add(struct usage_acc *a, double t, const struct tree_sample *tree,
               const struct sys_cpu *cpu, const struct meminfo *mem,
               const struct gpu_tree_sample *gpu);

/* The GPUs there are: total memory (bytes), how many, how many selected. */
void usage_set_gpus(struct usage_acc *a, unsigned long long capacity, int count, int expected);

/* A reaped process's ru_maxrss (kB). For main (whose wait4 maxrss is the
 * larger of its own peak and its reaped children's) it is main's own when
 * main reaped no child; a descendant's when it is above what main's own
 * can be (its VmHWM as sampled and the page faults it made since); and
 * either, not told apart, otherwise. A figure no larger than gpu-tracker's
 * fork's high-water mark before the exec is nobody's of the job. */
void usage_add_reaped(struct usage_acc *a, int is_main, unsigned long long maxrss_kb);

/* A reaped process's storage I/O (wait4's block counts, 512 bytes each). */
void usage_add_reaped_io(struct usage_acc *a, int is_main, unsigned long long in_blocks,
                         unsigned long long out_blocks);

/* CPU seconds of main and of its descendants between the first and the
 * last tree sample (the span the CPU means are taken over). */
void usage_cpu_seconds(const struct usage_acc *a, double *main_s, double *desc_s);

/* The RSS peaks so far (kB) of main, descendants and both, as
 * usage_result() gives them: the high-water marks of reaped processes
 * bound them from below; a sum's peak is at least the peak of any of its
 * parts. */
void usage_rss_peaks(const struct usage_acc *a, struct rss_peak *main_pk,
                     struct rss_peak *desc_pk, struct rss_peak *comb_pk);

/* The tree's combined RSS peak so far (kB), as usage_result() gives it:
 * never below a reaped process's high-water mark. */
unsigned long long usage_combined_peak_kb(const struct usage_acc *a);

/* The units a result is given in (already validated). */
struct usage_units {
    const char *ram_unit, *gpu_ram_unit, *time_unit;
    double ram_divisor, gpu_ram_divisor, time_divisor;
    int system_core_count, n_expected_cores;
};
/* Fills *out in the given units, the GPU list left empty for the caller
 * to point at its own (the accumulator knows no devices). */
void usage_result(const struct usage_acc *a, const struct usage_units *u,
                  double compute_seconds, gt_resource_usage *out);

/* The totals (gt_totals) but the wall time: the tree's CPU
 * seconds, and the I/O of the reaped processes when the main one was
 * reaped (io_available). */
void usage_totals(const struct usage_acc *a, gt_totals *r);

#endif
