/* pandas_text.h - gpu_tracker 5's text layout for its sub-tracking results
 * and comparisons: nested titled keys indented with tabs, and tables laid
 * out as pandas prints a DataFrame with gpu_tracker's display options
 * (every row and column, floats rounded to 8 decimals then printed as
 * Python prints them, NaN as "NaN").
 *
 * The rules, taken from pandas' formatter and checked against its output:
 * the index column is left-justified to its longest label; every other
 * column is right-justified to the longest of its header and values, one
 * space between columns. A numeric column's header has a space before it;
 * in a column of mixed types (gpu_tracker's static data), strings and
 * integers have a space before them, floats none. */
#ifndef GT_PANDAS_TEXT_H
#define GT_PANDAS_TEXT_H

#include <json-c/json.h>
#include <stdio.h>

/* A table: rows of cells, each a json_object (double, int, string or NULL
 * for NaN). mixed: the columns hold mixed types (object dtype) rather than
 * numbers. index[r] labels row r ("" for a Series printed as one row). */
struct pandas_table {
    size_t nrows, ncols;
    const char *const *index;
    const char *const *columns;
    json_object *const *cells; /* nrows * ncols, row by row */
    int mixed;
};

/* Writes t, each line prefixed with indent tabs and ended with '\n'. */
void pandas_table_write(FILE *f, const struct pandas_table *t, int indent);

/* Writes a JSON object of scalars (a pandas Series) as gpu_tracker does:
 * a one-row table of its values with an empty index label. */
void pandas_series_write(FILE *f, json_object *series, int indent);

/* Writes a JSON object of row objects (a DataFrame in gpu_tracker's
 * to_json layout: {index: {column: value}}) as a table. */
void pandas_frame_write(FILE *f, json_object *frame, int indent);

/* A float as gpu_tracker's display option prints it: rounded to 8
 * decimals, then Python's repr ("0.5", "1e+20"); "NaN" for NaN. out needs
 * 40 bytes. */
void pandas_float_text(double v, char *out, size_t cap);

/* key as Python's key.replace('_', ' ').title() makes it, into out. */
void pandas_title(const char *key, char *out, size_t cap);

#endif
