/* series_columns.h - the columns of the process and system rows, described
 * once: name, type, where in the row struct, and the range a value read
 * from a file may have (anything outside is refused where it is loaded). */
#ifndef GT_SERIES_COLUMNS_H
#define GT_SERIES_COLUMNS_H

#include <stddef.h>

#include "gpu_tracker_internal.h"

enum column_type { COLUMN_DOUBLE, COLUMN_INT, COLUMN_LONG, COLUMN_ULL };

struct series_column {
    const char *name;
    enum column_type type;
    size_t offset; /* in gt_process_row or gt_system_row */
    double max;    /* every column is >= 0 */
};

struct series_columns {
    const struct series_column *columns;
    size_t ncolumns;
    size_t row_size;
    /* The first rt_ncolumns are resource_tracker's (its CSV and snapshot
     * formats have those alone); the rest are ours (0.3), optional when a
     * snapshot is read (older ones lack them). */
    size_t rt_ncolumns;
};

/* The columns of a series, in resource_tracker's order. */
const struct series_columns *series_columns(gt_series_kind kind);

/* The value of column c in row as a double (counts past 2^53 rounded). */
double series_column_value(const struct series_column *c, const void *row);

/* Sets column c of row to v (a double column) or u (the others); within
 * the column's range. */
void series_column_set(const struct series_column *c, void *row, double v, unsigned long long u);

#endif
