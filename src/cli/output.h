/* output.h - where the summary goes. */
#ifndef GT_CLI_OUTPUT_H
#define GT_CLI_OUTPUT_H

#include <stddef.h>

#include "gpu_tracker.h"

/* Checks, before anything runs, that path can be written, without changing
 * an existing file. Returns 0, or -1 with a one-line message in err. */
int output_check_writable(const char *path, char *err, size_t errcap);

/* Opens the CSV output of a series (option names it in messages): "-" is
 * standard output; a file is created or emptied, close-on-exec. Returns the
 * descriptor, or -1 with a one-line message in err. */
int output_open_csv(const char *path, const char *option, char *err, size_t errcap);

/* After a run: if writing a series to path failed on the way, says so on
 * standard error and writes the whole series, kept in memory, there
 * instead, so that no row is lost. Returns 1 when that happened. */
int output_rescue_series(const gt_series *series, gt_series_kind kind, const char *path);

#endif
