/* human.h - the -f human summary: one line per figure, in the units of
 * human_bytes() and its kin, wrapped to the terminal's width. */
#ifndef GT_CLI_HUMAN_H
#define GT_CLI_HUMAN_H

#include "gpu_tracker_tools.h"

/* What the -f human summary shows beyond the summary itself. */
struct human_extras {
    const gt_cgroup_usage *cg;    /* the job's cgroup (NULL: none); shown when
                                     available, or when cgroup_asked */
    int cgroup_asked;             /* --cgroup */
    const gt_cpu_energy *energy;  /* NULL or not available: no line */
    const gt_gpu_run *gpu_run;    /* the GPU driver's figures (NULL: none) */
    int command_sigkill;          /* the command died of SIGKILL */
    const gt_limits *limits;      /* the run's limits (NULL or none set: no line) */
    const gt_gpu_idle *gpu_idle;  /* GPUs held but idle (NULL: no line) */
    const gt_job_energy *job_energy; /* the job's energy (NULL: no line) */
    const gt_peak_breakdown *at_peak; /* [GT_PEAK_MEMORY], [GT_PEAK_GPU_MEMORY]: who
                                     held them (NULL, or not available: no line) */
    const gt_command_groups *processes; /* by command (NULL: no section) */
    pid_t command_pid;
    int verbose;                  /* --verbose: why a figure is missing, in full */
    int from_file;                /* a summary read back (show): I/O was not kept */
};

/* The -f human summary of a run: one line per figure, units chosen by size.
 * u must be in bytes and seconds (ram_unit and gpu_ram_unit "bytes",
 * time_unit "seconds"); totals as gt_run_results_read() gives them; x what
 * else to show (NULL: nothing). Returns a malloc'd text ending in a
 * newline, or NULL when out of memory. */
char *human_summary(const gt_resource_usage *u, const gt_totals *totals,
                    const struct human_extras *x);

/* text with every line longer than width broken at spaces into lines of at
 * most width columns (a word longer than that stays whole on a line of its
 * own: never cut mid-word); the continuation of a "Label   value" line is
 * indented to the value's column. Returns a malloc'd text, NULL when out of
 * memory. */
char *human_wrap(const char *text, int width);

/* The width -f human is wrapped to: $COLUMNS when it is a number from 40 to
 * 1000, else the terminal's when fd is one, else 80. */
int human_width(int fd);

#endif
