/* output.h - where the summary, the series, the snapshot and the report
 * go: checked and opened under the library's file rules (gpu_tracker.h,
 * "Output files"). */
#ifndef GT_CLI_OUTPUT_H
#define GT_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "gpu_tracker_internal.h"

/* Checks, before anything runs, that path can be written, changing nothing
 * (a FIFO is not opened). Returns 0, or -1 with a one-line message naming
 * the output (what: "output file", "--snapshot file") in err. */
int output_check_writable(const char *path, const char *what, char *err, size_t errcap);

/* output_check_writable(), and path held from now on (output_file_hold):
 * written at the end into the directory resolved now. The caller lets it
 * go with output_file_release(path). */
int output_hold(const char *path, const char *what, char *err, size_t errcap);

/* Opens the CSV output of a series (option names it in messages): "-" is
 * standard output; a file is created or emptied, close-on-exec. Returns the
 * descriptor, or -1 with a one-line message in err. */
int output_open_csv(const char *path, const char *option, char *err, size_t errcap);

/* An output (or input) path and the option that gave it. */
struct output_use {
    const char *option; /* "-o", "--snapshot", ... */
    const char *path;   /* NULL when not given; "-" is standard output */
};

/* The --tf file: an existing one is refused without overwrite (as
 * gpu_tracker does), and it must be writable. -1 with the message in err. */
int output_check_tracking_file(const char *path, int overwrite, char *err, size_t errcap);

/* Refuses two of uses that would write the same file (or an output that
 * would overwrite an input): -1 with a one-line message in err, else 0.
 * The null device may take any number of them (it keeps nothing). */
int output_find_same(const struct output_use *uses, size_t n, char *err, size_t errcap);

/* Prints "gpu-tracker: " and the line fmt makes on standard error, that
 * line through the one escaper (text_escape): an error or a warning may
 * carry untrusted text (a name from a file, a library message quoting
 * one), and a terminal must not act on it. A "\n" at the end of the line
 * is its end; one is added when missing. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_error("%s", msg), returning status: for `return cli_fail(err, 2);`. */
int cli_fail(const char *msg, int status);

/* Prints s, which came from outside (a server's answer, a file), to f for
 * a terminal: control characters (C0, DEL, C1: escape sequences among
 * them) and bytes that are not UTF-8 are shown as \xNN instead of being
 * acted on. */
void output_print_untrusted(FILE *f, const char *s);

/* After a run: if writing a series to path failed on the way, says so on
 * standard error and writes the whole series, kept by the tracker, there
 * instead (streamed: however many rows), so that no row is lost. Returns 1
 * when that happened. */
int output_rescue_series(gt_tracker *t, gt_series_kind kind, const char *path);

#endif
