/* table_read.c - records of a CSV or SQLite table file, read under bounds
 * (table_read.h). */
#define _GNU_SOURCE
#include "common/table_read.h"

#include "common/buf.h"
#include "common/file_io.h"

#include <csv.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Opens path for reading under the library's reading rules (file_io.h):
 * a regular file only, a FIFO never waited on, no other user's link followed. */
static int open_regular(const char *path, const char *what)
{
    struct stat st;
    gt_status status;
    return input_open(path, what, 0, &st, &status);
}

int table_cell_number(const struct table_cell *c, double *v)
{
    if (c->missing)
        return 1;
    if (c->is_num) {
        *v = c->num;
        return 0;
    }
    const char *s = c->text;
    while (*s == ' ')
        s++;
    if (!*s)
        return 1;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s)
        return -1;
    while (*end == ' ')
        end++;
    if (*end)
        return -1;
    /* strtod also reads hexadecimal ("0x10"), which pandas does not. */
    if (strpbrk(s, "xX"))
        return -1;
    *v = d;
    return 0;
}

/* ---- CSV ------------------------------------------------------------------- */

struct csv_state {
    table_record_fn fn;
    void *ctx;
    const char *path, *what;
    struct buf text;      /* the record's fields, each NUL-terminated */
    size_t *offsets;      /* where each field starts in text */
    int *missing;
    size_t nfields;
    size_t record;        /* records seen, the header included */
    gt_status failed;     /* fn or a bound stopped the read (error_set() was called) */
    int unterminated;     /* the record csv_fini hands over has no line end */
    char *torn;           /* where to say the cut-short last record was left out */
    size_t torncap;
};

/* libcsv grows its field buffer through this: a field past the bound is
 * refused (the parse fails with CSV_ENOMEM, reported as the bound). */
static void *bounded_realloc(void *p, size_t n)
{
    if (n > TABLE_READ_MAX_FIELD + 64)
        return NULL;
    return realloc(p, n);
}

static int keep_spaces(unsigned char c)
{
    (void)c;
    return 0; /* pandas keeps a field's spaces, and so do we */
}

static void csv_field(void *field, size_t len, void *data)
{
    struct csv_state *s = data;
    if (s->failed)
        return;
    if (s->nfields >= TABLE_READ_MAX_COLUMNS) {
        error_set(GT_ERR_PARSE, "%s '%s' record %zu: more than %d fields", s->what, s->path,
                  s->record + 1, TABLE_READ_MAX_COLUMNS);
        s->failed = GT_ERR_PARSE;
        return;
    }
    s->offsets[s->nfields] = s->text.len;
    s->missing[s->nfields] = field == NULL || len == 0;
    buf_add(&s->text, field ? field : "", len);
    buf_add(&s->text, "", 1); /* the field's NUL, then the next field */
    if (s->text.failed) {
        s->failed = error_set(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", s->what, s->path);
        return;
    }
    s->nfields++;
}

static void csv_record(int c, void *data)
{
    (void)c;
    struct csv_state *s = data;
    if (s->failed)
        return;
    struct table_cell cells[TABLE_READ_MAX_COLUMNS];
    for (size_t i = 0; i < s->nfields; i++)
        cells[i] = (struct table_cell){.text = s->text.data + s->offsets[i],
                                       .missing = s->missing[i]};
    s->record++;
    s->failed = s->fn(s->ctx, s->record, cells, s->nfields);
    if (s->failed == GT_ERR_PARSE && s->unterminated && s->torn && s->record > 1) {
        /* The last record has no line end and is not whole: its writer
         * stopped in the middle of it (a full disk, a kill). The records
         * before it are good; it is left out, and the caller says so. */
        snprintf(s->torn, s->torncap, "%s '%s' ends with record %zu cut short (no line end, "
                 "and %s): left out, the %zu records before it read", s->what, s->path,
                 s->record, gt_last_error(), s->record - 1);
        s->failed = GT_OK;
    }
    s->nfields = 0;
    buf_clear(&s->text);
}

gt_status table_read_csv(const char *path, const char *what, table_record_fn fn, void *ctx,
                         char *torn, size_t torncap)
{
    if (torn && torncap)
        torn[0] = '\0';
    int fd = open_regular(path, what);
    if (fd < 0)
        return GT_ERR_IO;
    struct csv_state s = {.fn = fn, .ctx = ctx, .path = path, .what = what, .torn = torn,
                          .torncap = torncap};
    buf_init(&s.text, 4096);
    char last = '\n'; /* the file's last byte */
    s.offsets = malloc(TABLE_READ_MAX_COLUMNS * sizeof *s.offsets);
    s.missing = malloc(TABLE_READ_MAX_COLUMNS * sizeof *s.missing);
    struct csv_parser p;
    if (!s.offsets || !s.missing || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        free(s.offsets);
        free(s.missing);
        close(fd);
        return error_set(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", what, path);
    }
    csv_set_space_func(&p, keep_spaces);
    csv_set_realloc_func(&p, bounded_realloc);
    gt_status st = GT_OK;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = error_set(GT_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(errno));
            break;
        }
        if (n == 0) {
            s.unterminated = last != '\n' && last != '\r';
            if (csv_fini(&p, csv_field, csv_record, &s) != 0 && !s.failed)
                st = error_set(GT_ERR_PARSE, "%s '%s' is not valid CSV after record %zu: %s",
                               what, path, s.record,
                               csv_error(&p) == CSV_EPARSE ? "a quoted field is not closed"
                                                          : csv_strerror(csv_error(&p)));
            break;
        }
        last = chunk[n - 1];
        if (csv_parse(&p, chunk, (size_t)n, csv_field, csv_record, &s) != (size_t)n &&
            !s.failed) {
            int e = csv_error(&p);
            st = error_set(GT_ERR_PARSE, "%s '%s' is not valid CSV in record %zu: %s", what, path,
                           s.record + 1,
                           e == CSV_ENOMEM ? "a field is longer than 1 MiB"
                           : e == CSV_EPARSE ? "a quote inside a field that is not quoted, or "
                                             "text after a closing quote"
                                           : csv_strerror(e));
            break;
        }
        if (s.failed)
            break;
    }
    if (s.failed && st == GT_OK)
        st = s.failed; /* fn, or a bound met in a callback, has said why */
    csv_free(&p);
    buf_free(&s.text);
    free(s.offsets);
    free(s.missing);
    close(fd);
    return st;
}

/* ---- SQLite ------------------------------------------------------------------ */

/* What reading one untrusted SQLite file may cost (docs/tracking-file.md,
 * "What a file may cost"): the work is cut off after SQLITE_MAX_STEPS
 * virtual-machine steps or sqlite_deadline seconds, and when SQLite's heap
 * has grown by SQLITE_MAX_HEAP since the file was opened (its schema
 * included); a value or a row is at most SQLITE_MAX_LENGTH bytes. Reading a
 * table of a hundred million rows is about as many steps. */
#define SQLITE_MAX_STEPS 100000000000LL
#define SQLITE_PROGRESS_STEPS 1000
#define SQLITE_MAX_LENGTH (2 * TABLE_READ_MAX_FIELD)
#define SQLITE_DEADLINE 120.0
#define SQLITE_MAX_HEAP (64LL << 20)
#define SQLITE_CACHE_KIB 2048

static double sqlite_deadline = SQLITE_DEADLINE;
static long long sqlite_max_heap = SQLITE_MAX_HEAP;

void table_read_set_sqlite_bounds(double seconds, long long heap)
{
    sqlite_deadline = seconds > 0 ? seconds : SQLITE_DEADLINE;
    sqlite_max_heap = heap > 0 ? heap : SQLITE_MAX_HEAP;
}

/* The tables a tracking or sub-tracking file has: nothing else may be in
 * its schema (a view, a trigger, a virtual table, an index, a table of
 * another name), whatever the file claims. */
static const char *const expected_tables[] = {"data", "static_data"};

struct sqlite_budget {
    long long steps_left;  /* progress calls left */
    double deadline;       /* monotonic seconds */
    long long heap_start;  /* sqlite3_memory_used() when the file was opened */
    long long heap_max;
    int why;               /* 1 steps, 2 time, 3 memory: why it was interrupted */
};

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SQLite's progress handler: non-zero interrupts the statement, the
 * schema's own parsing included. */
static int progress_budget(void *arg)
{
    struct sqlite_budget *b = arg;
    if (--b->steps_left < 0)
        b->why = 1;
    else if (monotonic_seconds() > b->deadline)
        b->why = 2;
    else if ((long long)sqlite3_memory_used() - b->heap_start > b->heap_max)
        b->why = 3;
    return b->why;
}

static const char *budget_text(const struct sqlite_budget *b, char *buf, size_t cap)
{
    if (b->why == 2)
        snprintf(buf, cap, "reading it takes more than %g s (a file is read for at most that "
                 "long)", sqlite_deadline);
    else if (b->why == 3)
        snprintf(buf, cap, "reading it takes more than %lld MiB of memory (a file may take at "
                 "most that)", sqlite_max_heap >> 20);
    else
        snprintf(buf, cap, "reading it takes too much work (a table of more than a hundred "
                 "million rows?)");
    return buf;
}

/* SQLite's own limits for another user's file: no value or row beyond
 * SQLITE_MAX_LENGTH (a zeroblob of 200 MB is refused, not made), short and
 * shallow SQL, nothing attached, no worker threads. */
static void sqlite_limits(sqlite3 *db)
{
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, (int)SQLITE_MAX_LENGTH);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100000);
    sqlite3_limit(db, SQLITE_LIMIT_COLUMN, TABLE_READ_MAX_COLUMNS);
    sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 50);
    sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 2);
    sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);
    sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
    sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 8);
    sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
}

/* Refuses a schema that is not plain tables of the expected names, and a
 * table whose columns are computed (generated columns, virtual tables:
 * their expressions would run as we read). GT_OK, or GT_ERR_PARSE with
 * the reason. */
static gt_status check_schema(sqlite3 *db, const char *path, const char *what,
                              const struct sqlite_budget *b)
{
    sqlite3_stmt *q = NULL;
    gt_status st = GT_OK;
    int rc = sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_master", -1, &q, NULL);
    while (rc == SQLITE_OK && st == GT_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(q, 0);
        const char *name = (const char *)sqlite3_column_text(q, 1);
        const char *sql = (const char *)sqlite3_column_text(q, 2);
        type = type ? type : "";
        name = name ? name : "";
        int expected = 0;
        for (size_t i = 0; i < sizeof expected_tables / sizeof expected_tables[0]; i++)
            expected |= strcmp(name, expected_tables[i]) == 0;
        /* The type and name are the file's text: escaped for the message
         * (a view may be named with a terminal's escapes). */
        char shown_type[32], shown_name[128];
        if (strcmp(type, "table") != 0 || !expected)
            st = error_set(GT_ERR_PARSE, "%s '%s' has a %s '%s': a tracking or sub-tracking "
                           "file has only the plain tables 'data' and 'static_data', and nothing "
                           "else is read", what, path,
                           text_escape_into(type, shown_type, sizeof shown_type),
                           text_escape_into(name, shown_name, sizeof shown_name));
        else if (!sql || strncasecmp(sql, "CREATE TABLE", 12) != 0)
            st = error_set(GT_ERR_PARSE, "%s '%s': table '%s' is not a plain table (a virtual "
                           "table runs code of its own as it is read)", what, path, name);
        rc = SQLITE_OK;
    }
    if (st == GT_OK && rc != SQLITE_OK && rc != SQLITE_DONE) {
        char why[200];
        st = rc == SQLITE_INTERRUPT
                 ? error_set(GT_ERR_PARSE, "%s '%s': cannot read its schema: %s", what, path,
                             budget_text(b, why, sizeof why))
                 : error_set(GT_ERR_PARSE, "%s '%s' is not an SQLite database: %s", what, path,
                             sqlite3_errmsg(db));
    }
    sqlite3_finalize(q);
    /* Generated columns: table_xinfo says hidden 2 (virtual) or 3 (stored). */
    for (size_t i = 0; st == GT_OK && i < sizeof expected_tables / sizeof expected_tables[0];
         i++) {
        char sql[96];
        snprintf(sql, sizeof sql, "SELECT name, hidden FROM pragma_table_xinfo('%s')",
                 expected_tables[i]);
        q = NULL;
        rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
        while (rc == SQLITE_OK && st == GT_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
            if (sqlite3_column_int(q, 1) != 0) {
                const char *col = (const char *)sqlite3_column_text(q, 0);
                st = error_set(GT_ERR_PARSE, "%s '%s': column '%.100s' of table '%s' is computed "
                               "(a generated column): its expression would run as the file is "
                               "read; a tracking file's columns hold values only", what, path,
                               col ? col : "", expected_tables[i]);
            }
            rc = SQLITE_OK;
        }
        if (st == GT_OK && rc != SQLITE_OK && rc != SQLITE_DONE)
            st = error_set(GT_ERR_PARSE, "%s '%s': cannot read the columns of '%s': %s", what,
                           path, expected_tables[i], sqlite3_errmsg(db));
        sqlite3_finalize(q);
    }
    return st;
}

gt_status table_read_sqlite(const char *path, const char *what, const char *table,
                            table_record_fn fn, void *ctx)
{
    int fd = open_regular(path, what);
    if (fd < 0)
        return GT_ERR_IO;
    /* SQLite opens the file we checked, through our descriptor: a name
     * swapped for a FIFO since cannot make it wait. immutable: read-only,
     * no locks taken, no journal looked for. */
    char uri[64];
    snprintf(uri, sizeof uri, "file:/proc/self/fd/%d?immutable=1", fd);
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    gt_status st = GT_OK;
    struct sqlite_budget budget = {
        .steps_left = SQLITE_MAX_STEPS / SQLITE_PROGRESS_STEPS,
        .deadline = monotonic_seconds() + sqlite_deadline,
        .heap_start = (long long)sqlite3_memory_used(),
        .heap_max = sqlite_max_heap,
    };
    char why[200];
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        st = error_set(GT_ERR_IO, "cannot read %s '%s': %s", what, path,
                       db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        goto out;
    }
    /* An untrusted schema runs nothing of its own, within limits. */
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
    sqlite_limits(db);
    sqlite3_progress_handler(db, SQLITE_PROGRESS_STEPS, progress_budget, &budget);
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA cache_size=-%d; PRAGMA mmap_size=0; "
             "PRAGMA temp_store=MEMORY", SQLITE_CACHE_KIB);
    sqlite3_exec(db, pragmas, NULL, NULL, NULL);

    st = check_schema(db, path, what, &budget);
    if (st != GT_OK || !table)
        goto out;
    rc = sqlite3_prepare_v2(db, "SELECT type FROM sqlite_master WHERE name = ?1", -1, &q, NULL);
    if (rc == SQLITE_OK)
        sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    rc = rc == SQLITE_OK ? sqlite3_step(q) : rc;
    if (rc == SQLITE_DONE)
        st = error_set(GT_ERR_PARSE, "%s '%s' has no table '%s'", what, path, table);
    else if (rc != SQLITE_ROW)
        st = error_set(GT_ERR_PARSE, "%s '%s' is not an SQLite database: %s", what, path,
                       sqlite3_errmsg(db));
    sqlite3_finalize(q);
    q = NULL;
    if (st != GT_OK)
        goto out;

    char sql[128];
    /* The name is one of ours ("data", "static_data"), never the file's. */
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        st = error_set(GT_ERR_PARSE, "%s '%s': cannot read table '%s': %s", what, path, table,
                       sqlite3_errmsg(db));
        goto out;
    }
    int n = sqlite3_column_count(q);
    if (n > TABLE_READ_MAX_COLUMNS) {
        st = error_set(GT_ERR_PARSE, "%s '%s': table '%s' has more than %d columns", what, path,
                       table, TABLE_READ_MAX_COLUMNS);
        goto out;
    }
    struct table_cell *cells = calloc((size_t)n + 1, sizeof *cells);
    if (!cells) {
        st = error_set(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", what, path);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(q, i);
        cells[i] = (struct table_cell){.text = name ? name : "", .missing = name == NULL};
    }
    size_t row = 1;
    st = fn(ctx, row, cells, (size_t)n);
    while (st == GT_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        row++;
        for (int i = 0; i < n; i++) {
            int type = sqlite3_column_type(q, i);
            struct table_cell *c = &cells[i];
            *c = (struct table_cell){.text = ""};
            if (type == SQLITE_NULL) {
                c->missing = 1;
            } else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
                c->is_num = 1;
                c->is_int = type == SQLITE_INTEGER;
                c->num = c->is_int ? (double)sqlite3_column_int64(q, i)
                                   : sqlite3_column_double(q, i);
                /* Its text too, for a column read as text (a code block
                 * named 42) and for messages. */
                const unsigned char *t = sqlite3_column_text(q, i);
                c->text = t ? (const char *)t : "";
            } else {
                const unsigned char *t = sqlite3_column_text(q, i);
                if (sqlite3_column_bytes(q, i) > (int)TABLE_READ_MAX_FIELD) {
                    st = error_set(GT_ERR_PARSE, "%s '%s' row %zu: a value is longer than 1 MiB",
                                   what, path, row - 1);
                    break;
                }
                c->text = t ? (const char *)t : "";
                c->missing = t == NULL;
            }
        }
        if (st == GT_OK)
            st = fn(ctx, row, cells, (size_t)n);
    }
    if (st == GT_OK && rc != SQLITE_DONE)
        st = error_set(rc == SQLITE_INTERRUPT || rc == SQLITE_TOOBIG ? GT_ERR_PARSE : GT_ERR_IO,
                       "%s '%s': cannot read table '%s': %s", what, path, table,
                       rc == SQLITE_INTERRUPT ? budget_text(&budget, why, sizeof why)
                       : rc == SQLITE_TOOBIG  ? "a row or a value is larger than 2 MiB"
                                            : sqlite3_errmsg(db));
    free(cells);
out:
    if (q)
        sqlite3_finalize(q);
    if (db)
        sqlite3_close(db);
    close(fd);
    return st;
}

gt_status table_read_sqlite_check(const char *path, const char *what)
{
    return table_read_sqlite(path, what, NULL, NULL, NULL);
}
