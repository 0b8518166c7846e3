/* sqlite_api.c - SQLite loaded on first use (see sqlite_api.h). */
#define _GNU_SOURCE
#include "util/sqlite_api.h"

#include "util/dl_bind.h"

#define SQLITE_FN(field) {offsetof(struct sqlite_api, field), DL_NAMES("sqlite3_" #field), 1}
static const struct dl_symbol sqlite_symbols[] = {
    SQLITE_FN(open_v2),      SQLITE_FN(close),          SQLITE_FN(exec),
    SQLITE_FN(errmsg),       SQLITE_FN(errstr),         SQLITE_FN(limit),
    SQLITE_FN(db_config),    SQLITE_FN(progress_handler), SQLITE_FN(memory_used),
    SQLITE_FN(prepare_v2),   SQLITE_FN(step),           SQLITE_FN(reset),
    SQLITE_FN(finalize),     SQLITE_FN(clear_bindings), SQLITE_FN(bind_text),
    SQLITE_FN(bind_int64),   SQLITE_FN(bind_double),    SQLITE_FN(column_count),
    SQLITE_FN(column_name),  SQLITE_FN(column_type),    SQLITE_FN(column_int),
    SQLITE_FN(column_int64), SQLITE_FN(column_double),  SQLITE_FN(column_text),
    SQLITE_FN(column_bytes), {0, NULL, 0},
};

/* The library, its Debian package, its name and what needs it, for
 * dl_load_table()'s messages. */
#define LIBRARY "libsqlite3.so.0"
#define PACKAGE "libsqlite3-0"
#define NAME "SQLite"
#define NEEDED_FOR ".sqlite files"

int sqlite_api_load(const char *file, struct sqlite_api *into, char *err, size_t errcap)
{
    return dl_load_table(file, PACKAGE, NAME, NEEDED_FOR, sqlite_symbols, into, sizeof *into, err,
                         errcap);
}

static struct sqlite_api api;
static struct dl_lazy lazy = DL_LAZY(LIBRARY, PACKAGE, NAME, NEEDED_FOR, sqlite_symbols, &api);

const struct sqlite_api *sqlite_api(char *err, size_t errcap)
{
    return dl_lazy_get(&lazy, err, errcap);
}
