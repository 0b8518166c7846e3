/* table_file.h - a file of tables written a row at a time, as gpu_tracker
 * 5 writes its tracking and sub-tracking files: CSV (Python's csv module:
 * a header line per table, fields quoted only when they must be, \r\n line
 * ends, floats as Python prints them) or SQLite (a table per name, columns
 * typed as SQLAlchemy creates them: VARCHAR, INTEGER, FLOAT), chosen by the
 * file name's extension (.csv or .sqlite).
 *
 * Made under the library's output rules (no planted link followed, 0666
 * less the umask); SQLite keeps its rollback journal in memory, so no side
 * file is ever created beside the database. Each row is one write() (CSV)
 * or one committed INSERT (SQLite): a killed program keeps every row it
 * wrote, and a write that fails (a full disk) leaves no part of a row.
 * Not thread-safe: callers serialise. */
#ifndef GT_TABLE_FILE_H
#define GT_TABLE_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "common/internal.h"

enum table_type { TABLE_FLOAT, TABLE_INT, TABLE_TEXT };

struct table_value {
    enum table_type type;
    double num;       /* TABLE_FLOAT, TABLE_INT (an integer held exactly) */
    const char *text; /* TABLE_TEXT */
};

struct sqlite3;
struct sqlite3_stmt;

struct table_file {
    int fd;                       /* CSV; -1 otherwise */
    struct sqlite3 *db;           /* SQLite; NULL otherwise */
    struct sqlite3_stmt *insert;  /* into the newest table */
    long long whole;              /* CSV: bytes of whole rows written */
    char *path;                   /* as created, for table_file_discard */
    dev_t dev;                    /* the file created there */
    ino_t ino;
};

/* The format a name stands for: 1 ".sqlite", 0 ".csv", -1 any other. */
int table_file_kind(const char *path);

/* 1 when path names one of the formats: it ends in ".csv" or ".sqlite". */
int table_file_name_ok(const char *path);

/* Creates the file at path for writing (what: how errors name it, e.g.
 * "tracking file"). An existing file is an error unless overwrite (then it
 * is replaced). GT_OK, or a failure with gt_last_error() set. */
gt_status table_file_create(struct table_file *f, const char *path, int overwrite,
                            const char *what);

/* Starts table name with n columns, typed as types[i].type: CSV writes the
 * header line, SQLite creates the table. Rows then go to it. 0, or -1 with
 * errno (ERR_MALFORMED for an SQLite error: table_file_error says it). */
int table_file_table(struct table_file *f, const char *name, const char *const *columns,
                     const struct table_value *types, int n);

/* Appends one row to the newest table. 0, or -1 as table_file_table. A
 * CSV row that could not be written whole (a full disk) is taken back:
 * the file ends with its last whole row, never a torn one. */
int table_file_row(struct table_file *f, const struct table_value *values, int n);

/* Why the last call failed, for a message. */
const char *table_file_error(const struct table_file *f);

/* Closes the file (every row is in it already); safe twice. */
void table_file_close(struct table_file *f);

/* Closes the file and removes it, when its name still names the file
 * table_file_create made (a file that could not be set up is not left
 * behind, empty). */
void table_file_discard(struct table_file *f);

#endif
