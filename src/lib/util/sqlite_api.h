/* sqlite_api.h - SQLite, loaded with dlopen at its first use (the sqlite
 * sink, reading a .sqlite series file), not linked: linking it made every
 * start of every program that uses the library resolve SQLite's 1,600
 * relocations (it is built with BIND_NOW), about 0.35 ms of CPU on the
 * development VM, for a file format most runs never touch
 * (docs/performance.md, "Start-up"). The library's Debian package depends
 * on libsqlite3-0 by name, as it did through the link. */
#ifndef GT_SQLITE_API_H
#define GT_SQLITE_API_H

#include <sqlite3.h>
#include <stddef.h>

/* The SQLite calls we make, each named as in sqlite3.h less the prefix. */
struct sqlite_api {
    int (*open_v2)(const char *, sqlite3 **, int, const char *);
    int (*close)(sqlite3 *);
    int (*exec)(sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *,
                char **);
    const char *(*errmsg)(sqlite3 *);
    const char *(*errstr)(int);
    int (*limit)(sqlite3 *, int, int);
    int (*db_config)(sqlite3 *, int, ...);
    void (*progress_handler)(sqlite3 *, int, int (*)(void *), void *);
    sqlite3_int64 (*memory_used)(void);
    int (*prepare_v2)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
    int (*step)(sqlite3_stmt *);
    int (*reset)(sqlite3_stmt *);
    int (*finalize)(sqlite3_stmt *);
    int (*clear_bindings)(sqlite3_stmt *);
    int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
    int (*bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
    int (*bind_double)(sqlite3_stmt *, int, double);
    int (*column_count)(sqlite3_stmt *);
    const char *(*column_name)(sqlite3_stmt *, int);
    int (*column_type)(sqlite3_stmt *, int);
    int (*column_int)(sqlite3_stmt *, int);
    sqlite3_int64 (*column_int64)(sqlite3_stmt *, int);
    double (*column_double)(sqlite3_stmt *, int);
    const unsigned char *(*column_text)(sqlite3_stmt *, int);
    int (*column_bytes)(sqlite3_stmt *, int);
};

/* libsqlite3.so.0's functions, loaded the first time (thread-safe; kept
 * loaded for the process's life). NULL when it cannot be loaded: err (of
 * errcap bytes) then says why, in one line naming the library and the
 * Debian package. */
const struct sqlite_api *sqlite_api(char *err, size_t errcap);

/* What sqlite_api() does once, from a library file of the caller's choice
 * into *into (for the tests: a library that is not there, or lacks a
 * function). 0 on success; -1 with the reason in err. */
int sqlite_api_load(const char *file, struct sqlite_api *into, char *err, size_t errcap);

#endif
