/* write_csv.h - the time series as CSV (the library's own use: the
 * tracker streams one row at a time; gt_series_to_csv() is the public
 * whole-series form). */
#ifndef GT_WRITE_CSV_H
#define GT_WRITE_CSV_H

#include <stddef.h>

#include "gpu_tracker_internal.h"
#include "common/row_source.h"

/* CSV as Python's csv module writes it with QUOTE_NONNUMERIC: the header's
 * names quoted, numbers bare (floats as Python's repr), "\r\n" line ends. */
extern const char series_process_csv_header[];
extern const char series_system_csv_header[];
#define SERIES_CSV_ROW_MAX 1024
/* Writes one row and its line end into buf (SERIES_CSV_ROW_MAX bytes);
 * returns its length. */
size_t series_process_csv_row(const gt_process_row *row, char *buf);
size_t series_system_csv_row(const gt_system_row *row, char *buf);

/* The header and every row of kind from rows, to the descriptor fd, a
 * batch at a time. GT_ERR_IO (writing, or reading the rows, failed),
 * GT_ERR_NO_MEMORY; the message says which. */
gt_status write_csv_rows(const struct row_source *rows, gt_series_kind kind, int fd);

#endif
