/* benchmark_tsv.h - --benchmark-tsv FILE: a run's row in Snakemake's
 * benchmark format (its `benchmark:` directive's TSV), appended as its
 * repeat() appends one per run, with GPU columns after Snakemake's ten
 * (docs/ci.md, "Snakemake"). */
#ifndef GT_CLI_BENCHMARK_TSV_H
#define GT_CLI_BENCHMARK_TSV_H

#include <stddef.h>

#include "gpu_tracker_tools.h"

/* The header line, without its newline: Snakemake 7's ten columns, then
 * max_gpu_ram and mean_gpu_load. */
extern const char benchmark_tsv_header[];

/* Checks before the command runs that path can take a row: a new file, or
 * one whose first line is benchmark_tsv_header; then holds it
 * (output_file_hold), so that the row goes where the path named now, whatever
 * is planted on the way during the run. 0, or -1 with the reason in err. */
int benchmark_tsv_check(const char *path, char *err, size_t errcap);

/* Appends the stopped tracker's row to path (the header first when the file
 * is new or empty): the file is read (at most 16 MiB, the name never
 * followed: output_file_read) and written back whole with the row,
 * atomically, under the output rules of every other output
 * (output_file_write). A link or another user's file put at the name during the
 * run is not read but replaced, with a warning on stderr: the row is kept.
 * 0, or -1 with the reason in err. */
int benchmark_tsv_append(gt_tracker *t, const char *path, char *err, size_t errcap);

#endif
