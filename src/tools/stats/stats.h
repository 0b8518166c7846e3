/* stats.h - statistics and recommendations of a run (the public part is in
 * gpu_tracker.h: gt_snapshot_stats, gt_stats_combine, gt_recommend,
 * gt_round_memory_mib), over any row source. */
#ifndef GT_STATS_H
#define GT_STATS_H

#include "gpu_tracker_tools.h"
#include "common/row_source.h"

/* Whether the job was starved of CPU, waiting for one (contention.c says how
 * it is judged): 1 with a sentence for a person in why, 0 (why "") when
 * not or when the figures cannot say. cg may be NULL. */
int cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg, double wall_seconds,
                   char *why, size_t cap);

/* resource_tracker's stats() of the rows (gt_snapshot_stats' rules);
 * interval is the run's. GT_ERR_INVALID_ARGUMENT when there is no row pair,
 * GT_ERR_IO when the source cannot be read. */
gt_status stats_of_rows(const struct row_source *rows, double interval, gt_stats *out);

/* resource_tracker's aggregate_stats() rule (combine.c): how runs' values
 * of one aggregation become one. */
enum stats_combine {
    STATS_COMBINE_AVERAGE, /* "mean", "duration": sum() / len(), left to right */
    STATS_COMBINE_LARGEST, /* "max", "sum": the largest of the runs' (the first
                              of equal ones) */
    STATS_COMBINE_NONE     /* any other: "Unsupported aggregation type" */
};
enum stats_combine stats_combine_rule(const char *aggregation);

/* The runs' values of one aggregation, added one by one in the runs'
 * order (init, then add for each, then value). */
struct stats_combined {
    double sum, largest;
    size_t n;
};
void stats_combined_init(struct stats_combined *c);
void stats_combined_add(struct stats_combined *c, enum stats_combine rule, double v);
double stats_combined_value(const struct stats_combined *c, enum stats_combine rule);

/* What a run of duration seconds cost at an hourly price in USD
 * (run_cost.c): on the recommended server (a price below 0 or not finite:
 * none known) and on the instance it ran on (0 or below: none known), and
 * what the first saves beside the second. */
struct run_cost {
    int have_recommended, have_current;
    double recommended_per_hour, recommended_run;
    double current_per_hour, current_run;
    double saving_run, saving_percent; /* both known: current - recommended */
};
void run_cost_of(double recommended_per_hour, double current_per_hour, double duration,
                 struct run_cost *c);

/* A price in USD as "$0.0123": cents and their fractions, as clouds bill
 * (six decimals under a cent, four under $10, two beyond). */
void usd_text(double usd, char *out, size_t cap);

/* gt_stats_to_json's document as an object, to put in a larger one (the
 * job view's tasks); json-c's, released by the caller. */
struct json_object;
struct json_object *stats_json_object(const gt_stats *s);

#endif
