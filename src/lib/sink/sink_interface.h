/* sink_interface.h - where the pipeline's output goes: one small interface.
 *
 * After each sample the tracker hands every sink the rows that sample made
 * and the summary so far. A sink does its own I/O and its own error policy
 * (a failing sink warns once and stops; it never stops sampling). The
 * sinks: the CSV streams (csv_sink.h), the crash backup file
 * (backup_sink.h), the tracking file (tracking_file.h), the metrics
 * exporter and textfile (metrics_sink.h) and the host's callback
 * (sample_sink.h).
 * Every call comes from whoever samples (one thread at a time), after the
 * tracker's lock is let go. */
#ifndef GT_SINK_H
#define GT_SINK_H

#include "gpu_tracker_internal.h"
#include "pipeline/pipeline.h"

struct sink;

struct sink_ops {
    /* Sampling begins: the baseline sample was taken at epoch_start (the
     * time the rows count from), before its rows are handed over. NULL:
     * nothing to do. */
    void (*start)(struct sink *s, double epoch_start);
    /* The rows a sample made (either may be absent). NULL: not wanted. */
    void (*rows)(struct sink *s, const struct pipeline_rows *rows);
    /* Asks whether the summary should be handed over for a sample taken at
     * now (monotonic seconds): 0 saves the caller from filling one. NULL:
     * always. */
    int (*wants_summary)(struct sink *s, double now);
    /* The summary so far (measurement.complete 0), as of now. NULL: not
     * wanted. */
    void (*summary)(struct sink *s, const gt_resource_usage *usage, double now);
    /* Sampling has ended: final is the stop's own sample (off the
     * schedule: a timepoint, no series rows), or NULL when the sampling
     * thread is stuck and still owns the sinks (only what the caller owns
     * may be finished) or the start failed. NULL: nothing to do. */
    void (*finish)(struct sink *s, const struct pipeline_rows *final);
};

struct sink {
    const struct sink_ops *ops;
};

#endif
