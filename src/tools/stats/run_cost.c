/* run_cost.c - what a run cost at an hourly price (resource_tracker's run
 * costs): on the server the Keeper recommends and on the instance the run
 * was on, and what the first saves; prices in dollars as clouds bill. */
#include <math.h>
#include <stdio.h>

#include "stats/stats.h"

void run_cost_of(double recommended_per_hour, double current_per_hour, double duration,
                 struct run_cost *c)
{
    double hours = duration > 0 && isfinite(duration) ? duration / 3600 : 0;
    *c = (struct run_cost){0};
    c->have_recommended = recommended_per_hour >= 0 && isfinite(recommended_per_hour);
    c->have_current = current_per_hour > 0 && isfinite(current_per_hour);
    if (c->have_recommended) {
        c->recommended_per_hour = recommended_per_hour;
        c->recommended_run = recommended_per_hour * hours;
    }
    if (c->have_current) {
        c->current_per_hour = current_per_hour;
        c->current_run = current_per_hour * hours;
    }
    if (c->have_recommended && c->have_current) {
        c->saving_run = (current_per_hour - recommended_per_hour) * hours;
        c->saving_percent = (current_per_hour - recommended_per_hour) / current_per_hour * 100;
    }
}

void usd_text(double usd, char *out, size_t cap)
{
    snprintf(out, cap, "$%.*f", usd < 0.01 ? 6 : usd < 10 ? 4 : 2, usd);
}
