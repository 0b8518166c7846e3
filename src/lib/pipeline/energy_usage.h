/* energy_usage.h - the machine's CPU energy over a run (gt_cpu_energy),
 * from the RAPL readings of its samples (sample.h): pure, as usage.h is;
 * and the "cpu_energy" object of the JSON and of snapshots, both ways. */
#ifndef GT_ENERGY_USAGE_H
#define GT_ENERGY_USAGE_H


#include "gpu_tracker.h"
#include "sample.h"

struct energy_acc {
    int seen;                 /* a sample read the counters */
    struct rapl_sample first, last;
};

void energy_acc_init(struct energy_acc *a);

/* Adds one reading (s->ok 0: nothing). */
void energy_acc_step(struct energy_acc *a, const struct rapl_sample *s);

/* The run's figures into *out (its struct_size kept): reason is why the
 * counters could not be read (the reader's), packages how many package
 * zones it reads, job_share the tracked tree's share of the machine's CPU
 * time (0 to 1). */
void energy_acc_fill(const struct energy_acc *a, const char *reason, int packages,
                     double job_share, gt_cpu_energy *out);

#endif
