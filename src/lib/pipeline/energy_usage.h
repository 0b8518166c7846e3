/* energy_usage.h - the machine's CPU energy over a run (gt_cpu_energy),
 * from the RAPL readings of its samples (sample.h), and the job's energy
 * and CO2e from its parts (gt_job_energy): pure, as usage.h is. */
#ifndef GT_ENERGY_USAGE_H
#define GT_ENERGY_USAGE_H


#include "gpu_tracker_internal.h"
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

/* The job's energy (docs/metrics.md, "The job's energy") into *out (its
 * struct_size kept): the GPUs' from u's gpu_details, the CPU sockets'
 * share from e, and with a carbon intensity (g CO2e per kWh; 0: none) and
 * PUE (0: 1) the CO2e, each with its bounds. */
void energy_job(const gt_resource_usage *u, const gt_cpu_energy *e, double carbon_intensity,
                double pue, gt_job_energy *out);

#endif
