/* stats/contention.c - was the job starved of CPU? (cpu_contention,
 * stats/stats.h; the command reaches it as gt_cpu_contention,
 * gpu_tracker_tools.h).
 *
 * A job's mean CPU is what it got, not what it wanted. Starvation is time
 * spent runnable and waiting for a CPU; a machine kept busy by others is
 * no sign of it by itself (a job that sleeps never waits for a CPU,
 * however busy the machine). Three signs, each counted by the kernel:
 *   - the job's cgroup cpu.pressure: the share of the run in which some of
 *     its tasks waited for a CPU, at least a quarter;
 *   - without it, the run-queue delay of the job's processes (schedstat of
 *     each one's main thread): waited at least a quarter of the time they
 *     wanted a CPU, and at least a tenth of a second and a twentieth of the
 *     run in all (a few milliseconds of wake-up latency are no verdict);
 *   - the cgroup's CPU quota throttling it in over 5 % of its periods.
 * Any of them makes the CPU figures a floor, not a measure of need. A run
 * with none of these figures gets no verdict. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats.h"
#include "common/num.h"

#define WAIT_SHARE 0.25        /* of the time runnable (or of the run) */
#define WAIT_MIN_SECONDS 0.1
#define WAIT_MIN_OF_RUN 0.05

int cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg, double wall_seconds,
                   char *why, size_t cap)
{
    if (cap)
        why[0] = '\0';
    if (!u || !(wall_seconds > 0))
        return 0;
    double job = u->cpu_utilization.combined.mean_sum_percent / 100.0;
    int group = cg && cg->struct_size && cg->available;
    if (group && cg->pressure_available) {
        if (cg->cpu_some >= WAIT_SHARE) {
            snprintf(why, cap, "tasks of the job's cgroup waited for a CPU %.0f %% of the run "
                     "(cpu.pressure); the job got %.2f cores, so its CPU figures (and a CPU "
                     "request made from them) may be low", cg->cpu_some * 100.0, job);
            return 1;
        }
    } else if (u->measurement.cpu_wait_available) {
        const gt_measurement *m = &u->measurement;
        double wanted = m->cpu_wait_seconds + m->cpu_run_seconds;
        if (wanted > 0 && m->cpu_wait_seconds >= WAIT_SHARE * wanted &&
            m->cpu_wait_seconds >= max_d(WAIT_MIN_SECONDS, WAIT_MIN_OF_RUN * wall_seconds)) {
            snprintf(why, cap, "the job's processes waited for a CPU %.2f s while runnable, "
                     "%.0f %% of the time they wanted one (run-queue delay); the job got %.2f "
                     "cores, so its CPU figures (and a CPU request made from them) may be low",
                     m->cpu_wait_seconds, m->cpu_wait_seconds / wanted * 100.0, job);
            return 1;
        }
    }
    if (group && cg->cpu_available && cg->throttle_periods > 0 &&
        cg->throttled_periods * 20 > cg->throttle_periods) {
        snprintf(why, cap, "the job's CPU quota of %.2f cores throttled it in %ld of %ld "
                 "periods: it wanted more CPU than it was allowed, so a CPU request made from "
                 "its mean (%.2f cores) may be low", cg->cpu_quota, cg->throttled_periods,
                 cg->throttle_periods, job);
        return 1;
    }
    return 0;
}

/* The command's way to it (gpu_tracker_tools.h). */
int gt_cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg, double wall_seconds,
                      char *why, size_t cap)
{
    return cpu_contention(u, cg, wall_seconds, why, cap);
}
