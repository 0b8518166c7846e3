/* stats/contention.c - was the job starved of CPU by other work?
 * (cpu_contention, stats/stats.h; the command reaches it as
 * gt_cpu_contention, gpu_tracker_internal.h).
 *
 * A job's mean CPU is what it got, not what it wanted. On a machine that
 * other work kept busy, or in a cgroup whose CPU quota others used up, a
 * parallel job gets a fraction of a core and its mean reads as a job that
 * needs one: a request sized on it would starve the job again. Two signs,
 * from figures every run has:
 *   - the machine: busy over 90 % of its cores on average, and at least a
 *     quarter of them (half a core at least) by other processes than the
 *     job's;
 *   - the job's cgroup: its CPU quota used over 90 % on average, most of
 *     it by others (a shared group), or the quota throttling the group in
 *     over 5 % of its periods (the job wanted more than it was allowed).
 * Either makes the CPU figures a floor, not a measure of need. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats.h"
#include "util/num.h"

int cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg, double wall_seconds,
                   char *why, size_t cap)
{
    if (cap)
        why[0] = '\0';
    if (!u || !(wall_seconds > 0))
        return 0;
    const gt_cpu_utilization *c = &u->cpu_utilization;
    double cores = c->system_core_count;
    double busy = c->system.mean_sum_percent / 100.0;
    double job = c->combined.mean_sum_percent / 100.0;
    double others = busy > job ? busy - job : 0;
    if (cores > 0 && busy >= 0.9 * cores && others >= max_d(0.5, 0.25 * cores)) {
        snprintf(why, cap, "the machine was saturated by other work: %.2f of its %.0f cores busy "
                 "on average, %.2f of them not this job's; the job got %.2f cores, so its CPU "
                 "figures (and a CPU request made from them) may be low", busy, cores, others,
                 job);
        return 1;
    }
    if (!cg || !cg->struct_size || !cg->available || !cg->cpu_available || !(cg->cpu_quota > 0))
        return 0;
    double group = cg->cpu_seconds / wall_seconds;
    double group_others = group > job ? group - job : 0;
    if (group >= 0.9 * cg->cpu_quota && group_others >= max_d(0.5, 0.25 * cg->cpu_quota)) {
        snprintf(why, cap, "the job's CPU quota of %.2f cores was used up, %.2f of it by other "
                 "processes of its cgroup; the job got %.2f cores, so its CPU figures (and a CPU "
                 "request made from them) may be low", cg->cpu_quota, group_others, job);
        return 1;
    }
    if (cg->throttle_periods > 0 && cg->throttled_periods * 20 > cg->throttle_periods) {
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
