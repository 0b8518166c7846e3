/* human.h - figures as a person reads them at a glance: binary units chosen
 * by size (B, KiB, MiB, GiB, TiB) and durations in s, m:ss or h:mm:ss. Used
 * by the live status line (live.c) and the -f human summary. */
#ifndef GT_CLI_HUMAN_H
#define GT_CLI_HUMAN_H

#include <stddef.h>

/* bytes as "812 B", "3.4 KiB", "512 MiB", "1.25 GiB": three significant
 * figures at most, the largest unit that keeps the number at least 1.
 * Negative or non-finite input is written as "-". Returns buf. */
char *human_bytes(char *buf, size_t cap, double bytes);

/* A length of time: "0.42 s" and "12.3 s" under a minute, "4:05" (m:ss)
 * under an hour, "3:02:11" (h:mm:ss) beyond; whole seconds truncated, as a
 * clock shows them. Negative or non-finite input is "-". Returns buf. */
char *human_duration(char *buf, size_t cap, double seconds);

/* A clock: "m:ss" under an hour, "h:mm:ss" beyond (never fractions: a
 * status line that changes once a second). Returns buf. */
char *human_clock(char *buf, size_t cap, double seconds);

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
};

/* The -f human summary of a run: one line per figure, units chosen by size.
 * u must be in bytes and seconds (ram_unit and gpu_ram_unit "bytes",
 * time_unit "seconds"); totals as gt_tracker_totals() gives them; x what
 * else to show (NULL: nothing). Returns a malloc'd text ending in a
 * newline, or NULL when out of memory. */
char *human_summary(const gt_resource_usage *u, const gt_totals *totals,
                    const struct human_extras *x);

#endif
