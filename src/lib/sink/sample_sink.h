/* sample_sink.h - the host's own sink: gt_options.on_sample, called after
 * every sample the schedule takes with that sample's series rows as CSV
 * lines (gt_sample), and after the stop's own sample (last), so that a program embedding a tracker can store or
 * export the figures itself. */
#ifndef GT_SAMPLE_SINK_H
#define GT_SAMPLE_SINK_H

#include "sink/sink_interface.h"

struct sample_sink {
    struct sink base;
    gt_sample_fn fn;
    void *data;
    gt_tracker *tracker; /* handed back to fn */
    int baseline_seen;
    double start;        /* the baseline sample's monotonic time */
};

/* A sink calling fn(tracker, sample, data) for each sample it is fed. */
void sample_sink_init(struct sample_sink *k, gt_sample_fn fn, void *data, gt_tracker *tracker);

#endif
