/* combine.c - resource_tracker's aggregate_stats(): several runs'
 * statistics as one (history for a recommendation). One rule, read from
 * its helpers.py: a mean or a duration is averaged (a plain sum() / len(),
 * left to right, nothing rounded), a max or a sum is the largest of the
 * runs' (the first of equal ones), any other aggregation is refused. It is
 * used field by field for gt_stats (gt_stats_combine, stats.c) and on
 * resource_tracker's dictionaries of any columns as JSON
 * (gt_stats_combine_json: the Python module's aggregate_stats). */
#include "stats/stats.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/json_write.h"

enum stats_combine stats_combine_rule(const char *aggregation)
{
    if (strcmp(aggregation, "mean") == 0 || strcmp(aggregation, "duration") == 0)
        return STATS_COMBINE_AVERAGE;
    if (strcmp(aggregation, "max") == 0 || strcmp(aggregation, "sum") == 0)
        return STATS_COMBINE_LARGEST;
    return STATS_COMBINE_NONE;
}

void stats_combined_init(struct stats_combined *c)
{
    memset(c, 0, sizeof *c);
}

void stats_combined_add(struct stats_combined *c, enum stats_combine rule, double v)
{
    if (rule == STATS_COMBINE_AVERAGE)
        c->sum += v;
    else if (c->n == 0 || v > c->largest)
        c->largest = v;
    c->n++;
}

double stats_combined_value(const struct stats_combined *c, enum stats_combine rule)
{
    if (rule == STATS_COMBINE_AVERAGE)
        return c->n ? c->sum / (double)c->n : 0;
    return c->largest;
}

/* The averaged aggregations in the order aggregate_stats() puts them, after
 * the largest ones of their column. */
static const char *const averaged[] = {"mean", "duration"};

/* A value of a dictionary: a JSON number (a bool is not one). */
static int is_number(json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* Adds run (a parsed document) to result, the largest values in place and
 * each averaged value to pending[column][aggregation] (an array, in the
 * runs' order). GT_OK, or the refusal. */
static gt_status combine_run(json_object *run, size_t index, json_object *result,
                             json_object *pending)
{
    if (!json_object_is_type(run, json_type_object))
        return error_set(GT_ERR_INVALID_ARGUMENT, "aggregate_stats: run %zu is not a dictionary "
                         "of {column: {aggregation: value}}", index);
    json_object_object_foreach(run, column, values) {
        if (!json_object_is_type(values, json_type_object))
            return error_set(GT_ERR_INVALID_ARGUMENT, "aggregate_stats: run %zu's '%s' is not a "
                             "dictionary of {aggregation: value}", index, column);
        json_object *largest = NULL;
        if (!json_object_object_get_ex(result, column, &largest)) {
            largest = json_object_new_object();
            json_object_object_add(result, column, largest);
        }
        json_object_object_foreach(values, aggregation, value) {
            enum stats_combine rule = stats_combine_rule(aggregation);
            if (rule == STATS_COMBINE_NONE)
                return error_set(GT_ERR_INVALID_ARGUMENT, "Unsupported aggregation type: %s",
                                 aggregation);
            if (!is_number(value))
                return error_set(GT_ERR_INVALID_ARGUMENT, "aggregate_stats: run %zu's '%s' '%s' "
                                 "is not a number", index, column, aggregation);
            if (rule == STATS_COMBINE_LARGEST) {
                json_object *kept = NULL;
                if (!json_object_object_get_ex(largest, aggregation, &kept) ||
                    json_object_get_double(value) > json_object_get_double(kept))
                    json_object_object_add(largest, aggregation, json_object_get(value));
                continue;
            }
            json_object *mine = NULL, *list = NULL;
            if (!json_object_object_get_ex(pending, column, &mine)) {
                mine = json_object_new_object();
                json_object_object_add(pending, column, mine);
            }
            if (!json_object_object_get_ex(mine, aggregation, &list)) {
                list = json_object_new_array();
                json_object_object_add(mine, aggregation, list);
            }
            json_object_array_add(list, json_object_get(value));
        }
    }
    return GT_OK;
}

gt_status gt_stats_combine_json(const char *const *runs, size_t n, char **out)
{
    error_clear();
    if (!out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_stats_combine_json: NULL out");
    *out = NULL;
    if (n > 0 && !runs)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_stats_combine_json: NULL runs");
    json_object *result = json_object_new_object();
    json_object *pending = json_object_new_object();
    gt_status st = GT_OK;
    for (size_t i = 0; i < n && st == GT_OK; i++) {
        json_object *run = runs[i] ? json_tokener_parse(runs[i]) : NULL;
        st = run ? combine_run(run, i, result, pending)
                 : error_set(GT_ERR_PARSE, "aggregate_stats: run %zu is not JSON", i);
        json_object_put(run);
    }
    if (st == GT_OK) {
        json_object_object_foreach(pending, column, aggregations) {
            json_object *into = NULL;
            json_object_object_get_ex(result, column, &into);
            for (size_t a = 0; a < sizeof averaged / sizeof averaged[0]; a++) {
                json_object *list = NULL;
                if (!json_object_object_get_ex(aggregations, averaged[a], &list))
                    continue;
                struct stats_combined c;
                stats_combined_init(&c);
                for (size_t k = 0; k < json_object_array_length(list); k++)
                    stats_combined_add(&c, STATS_COMBINE_AVERAGE,
                                       json_object_get_double(json_object_array_get_idx(list, k)));
                json_object_object_add(into, averaged[a],
                                       json_new_pyfloat(stats_combined_value(&c,
                                                                             STATS_COMBINE_AVERAGE)));
            }
        }
    }
    json_object_put(pending);
    if (st != GT_OK) {
        json_object_put(result);
        return st;
    }
    *out = json_pretty_text(result);
    return *out ? GT_OK : error_set(GT_ERR_NO_MEMORY, "out of memory");
}
