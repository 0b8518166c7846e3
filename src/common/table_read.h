/* table_read.h - reading the tables of a tracking or sub-tracking file that
 * anyone may have written (gpu_tracker, gpu-tracker, a script): CSV through
 * libcsv, SQLite through libsqlite3, a row at a time, so that memory does
 * not grow with the file.
 *
 * What a file may cost is bounded: only regular files are opened (a FIFO is
 * an error, never a wait), a CSV field is at most TABLE_READ_MAX_FIELD bytes
 * and a record at most TABLE_READ_MAX_COLUMNS fields; an SQLite file is
 * opened read-only, its schema untrusted (no views, triggers or functions
 * it declares run), its schema only the plain tables "data" and
 * "static_data" (a view, a trigger, a virtual table, an index or a
 * generated column is refused before anything is read), SQLite's limits
 * set (a value or row of at most 2 MiB, short and shallow SQL), and a
 * query cut off after a bounded amount of work, time (120 s) and SQLite
 * heap (64 MiB).
 * Which of the two a name is: table_file_kind() (table_file.h). */
#ifndef GT_TABLE_READ_H
#define GT_TABLE_READ_H

#include <stddef.h>

#include "common/internal.h"

#define TABLE_READ_MAX_FIELD (1u << 20)
#define TABLE_READ_MAX_COLUMNS 1024

/* One field of a record. A CSV field is text; an SQLite value keeps its
 * type. An empty CSV field and an SQLite NULL are missing. */
struct table_cell {
    const char *text; /* NUL-terminated ("" when missing); an SQLite number's too */
    double num;       /* when is_num */
    int is_num;       /* an SQLite INTEGER or REAL */
    int is_int;       /* an SQLite INTEGER */
    int missing;
};

/* Called for each record in order: record 1 is the first line of a CSV file
 * (its header) and the column names of an SQLite table, the rows follow.
 * record: that number (a CSV record is a line unless a quoted field holds a
 * line break). Returns GT_OK to go
 * on, or the status of its error_set() to stop the read with it. */
typedef gt_status (*table_record_fn)(void *ctx, size_t record, const struct table_cell *cells, size_t n);

/* Reads every record of the CSV file path. what names the file in messages
 * ("tracking file"). GT_OK; GT_ERR_IO (cannot be read, not a regular file),
 * GT_ERR_PARSE (a field or record over the bounds, an unterminated quote),
 * GT_ERR_NO_MEMORY, or fn's failure, with gt_last_error() set. A last
 * record with no line end that fn refuses (GT_ERR_PARSE: its writer
 * stopped in the middle of it) is left out instead, and a one-line
 * warning saying so goes to torn (torncap bytes; "" when none; torn NULL:
 * such a record fails the read). fn must refuse a record before it counts
 * any of it. */
gt_status table_read_csv(const char *path, const char *what, table_record_fn fn, void *ctx,
                         char *torn, size_t torncap);

/* Reads the table named table of the SQLite file path: the column names,
 * then every row. Errors as table_read_csv (GT_ERR_PARSE also when the file
 * is not a database or has no such table). */
gt_status table_read_sqlite(const char *path, const char *what, const char *table,
                            table_record_fn fn, void *ctx);

/* Opens the SQLite file path as table_read_sqlite() does and checks its
 * schema, reading no row: for a reader of its own (the Python package's
 * pandas) that then reads the file's plain tables. Errors as
 * table_read_sqlite. */
gt_status table_read_sqlite_check(const char *path, const char *what);

/* For tests: the wall-time and SQLite-heap bounds of an SQLite read
 * (seconds, bytes; 0 or less: the defaults). Not thread-safe. */
void table_read_set_sqlite_bounds(double seconds, long long heap);

/* The number in a cell: 0 with *v set, 1 when the cell is missing, -1 when
 * it is not a number. Text is read as pandas reads a CSV number: decimal or
 * exponent notation, "nan" and "inf" included, with nothing after it. */
int table_cell_number(const struct table_cell *c, double *v);

#endif
