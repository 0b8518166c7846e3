/* sinks.h - the sinks of a run, made from its options: the CSV streams
 * (always: a descriptor of -1 writes nothing), the crash backup file, gpu_
 * tracker's tracking file, the metrics exporter and the host's per-sample
 * callback (when asked), each
 * behind sink_interface.h, and the exporter's two newest points.
 *
 * Whoever samples owns them (the sampling thread, then the caller of
 * stop()); the tracker's lock is never held while they write. */
#ifndef GT_SINKS_H
#define GT_SINKS_H

#include "pipeline/pipeline.h"
#include "read/read.h"
#include "sink/backup_sink.h"
#include "sink/csv_sink.h"
#include "sink/metrics_sink.h"
#include "sink/push_sink.h"
#include "sink/sample_sink.h"
#include "sink/sink_interface.h"
#include "sink/tracking_file.h"
#include "common/warn.h"

struct sinks {
    struct csv_sink csv;
    struct backup_sink backup;     /* path NULL: no backup file */
    struct tracking_file tracking; /* fd -1, db NULL: none */
    int metrics_on;                /* the exporter runs */
    struct metrics_sink metrics;
    int push_on;                   /* the pusher runs */
    struct push_sink push;
    struct metrics_point points[2]; /* the newest two (the counters of one
                                       are raised to the other's) */
    int cur;
    struct sample_sink sample;     /* options.on_sample (fn NULL: none) */
    struct sink *list[6];
    int n;
};

/* What the sinks need to know of the run beyond its options. */
struct sinks_facts {
    pid_t pid;                     /* the tracked process */
    const char *proc_root;
    const struct usage_units *units;
    unsigned long long mem_total_kb;
    const struct gpu *gpu;         /* the GPUs open (nvendors 0: none) */
    const gt_job_info *job;        /* NULL: none */
    gt_tracker *tracker;           /* handed to options.on_sample */
};

/* Sinks with nothing open: safe to destroy. */
void sinks_init(struct sinks *k);

/* Opens the sinks o asks for, in the order they are fed: CSV, backup,
 * tracking file, exporter, the host's on_sample. o->resource_usage_file is the backup's path
 * ("": none). GT_ERR_* with the reason (a tracking file or an exporter
 * address that cannot be used: the run is not made). */
gt_status sinks_open(struct sinks *k, const gt_options *o, const struct sinks_facts *f,
                     struct warn_channel *w);

/* Whether the sample about to be taken (final: the stop's own) will show
 * each process's I/O counters, through the exporter or a push: the reader
 * reads them only then (metrics_sink.h, push_sink.h). No clock is read
 * when neither runs. */
int sinks_want_io(struct sinks *k, int final);

/* The exporter's point of sample s (NULL when it does not run). */
const struct metrics_point *sinks_take_point(struct sinks *k, const struct pipeline *p,
                                             const struct sample *s);

/* Hands each sink the rows of a sample, and the summary as of now to those
 * that want it: summary(ctx, now) fills it once, on the first sink that
 * does. */
void sinks_feed(struct sinks *k, const struct pipeline_rows *rows, double now,
                const gt_resource_usage *(*summary)(void *ctx, double now), void *ctx);

/* Sampling begins (the baseline taken at epoch_start) and ends (final:
 * the stop's sample; NULL: a stuck sampler still owns the sinks, or the
 * start failed): each sink's start and finish hooks, in order. */
void sinks_start(struct sinks *k, double epoch_start);
void sinks_finish(struct sinks *k, const struct pipeline_rows *final);

/* What the API tells of the sinks: the backup file's path (NULL: none),
 * where the exporter serves ("127.0.0.1:9101"; NULL: not serving), and
 * whether writing kind's CSV failed at some row. */
const char *sinks_backup_path(const struct sinks *k);
const char *sinks_metrics_address(const struct sinks *k);
int sinks_csv_failed(const struct sinks *k, gt_series_kind kind);

/* Closes what the owner closes (the tracking file, the exporter, the
 * backup's lock). */
void sinks_destroy(struct sinks *k);

/* Frees the memory of a copy in a child made by fork(), closing nothing of
 * the parent's. */
void sinks_forget(struct sinks *k);

#endif
