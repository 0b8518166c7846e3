/* tracking_file.h - gpu_tracker 5's tracking file: every sample appended as
 * it is taken (gt_options.tracking_file), so that gpu_tracker's sub-tracking
 * analyzer can cut a run's timepoints into code blocks
 * (docs/tracking-file.md).
 *
 * Two formats, chosen by the name's extension, both laid out as
 * gpu_tracker writes them:
 *  - .csv: the static data's header and values (two lines), then the
 *    timepoints' header and a line per sample, as Python's csv.DictWriter
 *    writes them (\r\n line ends, floats as Python prints them);
 *  - .sqlite: a table static_data (one row) and a table data (a row per
 *    sample), columns typed as SQLAlchemy creates them.
 * The file is written by whoever samples (a row per sample, one write() or
 * one INSERT: table_file.h), the final row by gt_tracker_stop(). A failing
 * write warns once and stops the file; sampling goes on. */
#ifndef GT_TRACKING_FILE_H
#define GT_TRACKING_FILE_H

#include "sink/sink_interface.h"
#include "common/table_file.h"
#include "pipeline/pipeline.h"
#include "common/warn.h"

/* The static data's columns and the timepoints' (gpu_tracker's order). */
#define TRACKING_STATIC_COLUMNS 9
#define TRACKING_TIMEPOINT_COLUMNS 22
extern const char *const tracking_static_columns[TRACKING_STATIC_COLUMNS];
extern const char *const tracking_timepoint_columns[TRACKING_TIMEPOINT_COLUMNS];

/* What stays the same through a run (gpu_tracker's _StaticData), and the
 * units the timepoints are written in. */
struct tracking_static {
    const char *ram_unit, *gpu_ram_unit, *time_unit;
    double ram_divisor, gpu_ram_divisor; /* bytes per unit */
    unsigned long long ram_total_kb;     /* the machine's memory */
    unsigned long long gpu_total_bytes;  /* every GPU's memory */
    int system_core_count, n_expected_cores;
    int system_gpu_count, n_expected_gpus;
};

struct tracking_file {
    struct sink base;
    struct table_file file;
    int failed;               /* a write failed (warned): no more rows */
    struct tracking_static st;
    struct warn_channel *warn_channel;
};

/* Creates the tracking file at path and writes its static data. An
 * existing file is an error unless overwrite (then it is replaced); the
 * library's output rules apply (docs/cli.md "Output files"). st's strings
 * must outlive the sink. Returns GT_OK or a failure with gt_last_error()
 * naming the file and why. */
gt_status tracking_file_open(struct tracking_file *k, const char *path, int overwrite,
                             const struct tracking_static *st, struct warn_channel *w);

/* Closes the file (every row is in it already). Safe on a sink never
 * opened or closed twice. */
void tracking_file_close(struct tracking_file *k);

/* The timepoint's values in the file's units and types, in
 * tracking_timepoint_columns order (wall: its epoch time). */
void tracking_timepoint_values(const struct tracking_static *st, const struct usage_timepoint *tp,
                               double wall, struct table_value values[TRACKING_TIMEPOINT_COLUMNS]);

#endif
