/* cgroup_usage.h - the job's cgroup figures over a run, from its samples
 * (sample.h): pure, as usage.h is. Whether the group is the job's is
 * decided here: every member must be a process of the tracked tree (or the
 * tracker itself). A PID the walk has not seen (and whose parent it has
 * not seen either: the reader leaves those out) is given two more samples,
 * since processes being born or dying are in the group before they are in
 * the tree and after they have left it; one still an outsider at the third
 * sample in a row makes the group shared, and a shared group's figures are
 * never used. An outsider at the baseline sample (nothing of the job is
 * being born yet) counts as seen twice: a run of two samples still finds
 * a shared group. */
#ifndef GT_CGROUP_USAGE_H
#define GT_CGROUP_USAGE_H

#include "gpu_tracker_internal.h"
#include "sample.h"

/* Outsiders remembered from one sample to the next. More new PIDs than
 * this between two samples (a burst of forks) leaves the rest unchecked
 * for that sample: never a false "shared". */
#define CGROUP_PENDING_MAX 1024

struct cgroup_acc {
    int seen;                 /* a sample read the group */
    int version;
    char path[CGROUP_PATH_LEN];
    int shared;
    pid_t outsider;           /* the first member found outside the tree */
    int left;                 /* the tracked process was found out of the group */
    pid_t left_pid;
    char left_path[CGROUP_PATH_LEN]; /* where it was then */
    pid_t pending[2][CGROUP_PENDING_MAX]; /* outsiders at the last sample
                                 ([0]: there once in a row, [1]: twice) */
    size_t npending[2];
    int mem_seen, kernel_peak_seen, split_ok;
    unsigned long long peak_sampled, kernel_peak;
    unsigned long long anon, file, shmem; /* at the sample of peak_sampled */
    int limit_ok;
    unsigned long long limit;
    int events_seen;
    struct cgroup_sample events_first, events_last;
    double first_kill_wall;
    int cpu_seen;             /* first and last hold CPU figures */
    struct cgroup_sample cpu_first, cpu_last;
    int psi_seen[CGROUP_PSI_N];
    struct psi_totals psi_first[CGROUP_PSI_N], psi_last[CGROUP_PSI_N];
    double psi_first_time[CGROUP_PSI_N], psi_last_time[CGROUP_PSI_N];
};

/* Why parts are missing, as the reader found (any may be "" or NULL). */
struct cgroup_reasons {
    const char *group, *memory, *cpu, *pressure;
    int created;              /* options.own_cgroup made the group */
    const char *created_reason; /* own_cgroup asked and none was made */
};

void cgroup_acc_init(struct cgroup_acc *a);

/* Adds one reading s, taken at now (monotonic) and wall (epoch seconds),
 * with the tree's roles of the same sample (NULL: the walk failed, the
 * members are not checked); baseline: the first sample of the run. */
void cgroup_acc_step(struct cgroup_acc *a, const struct cgroup_sample *s,
                     const struct pid_roles *roles, int baseline, double now, double wall);

/* The figures so far into *out (its struct_size kept). */
void cgroup_acc_fill(const struct cgroup_acc *a, const struct cgroup_reasons *why,
                     gt_cgroup_usage *out);

#endif
