/* table_read.c - records of a CSV or SQLite table file, read under bounds
 * (table_read.h). */
#define _GNU_SOURCE
#include "table_read.h"

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
#include <unistd.h>

/* Opens path for reading: a regular file only, a FIFO never waited on. */
static int open_regular(const char *path, const char *what)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        gt_fail(GT_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        gt_fail(GT_ERR_IO, "cannot read %s '%s': %s", what, path,
                S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    return fd;
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
    char *text;           /* the record's fields, each NUL-terminated */
    size_t len, cap;
    size_t *offsets;      /* where each field starts in text */
    int *missing;
    size_t nfields;
    size_t record;        /* records seen, the header included */
    gt_status failed;     /* fn or a bound stopped the read (gt_fail() was called) */
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
        gt_fail(GT_ERR_PARSE, "%s '%s' record %zu: more than %d fields", s->what, s->path,
                s->record + 1, TABLE_READ_MAX_COLUMNS);
        s->failed = GT_ERR_PARSE;
        return;
    }
    if (s->len + len + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len + 1)
            cap *= 2;
        char *t = realloc(s->text, cap);
        if (!t) {
            s->failed = gt_fail(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", s->what,
                                s->path);
            return;
        }
        s->text = t;
        s->cap = cap;
    }
    s->offsets[s->nfields] = s->len;
    s->missing[s->nfields] = field == NULL || len == 0;
    if (len)
        memcpy(s->text + s->len, field, len);
    s->len += len;
    s->text[s->len++] = '\0';
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
        cells[i] = (struct table_cell){.text = s->text + s->offsets[i], .missing = s->missing[i]};
    s->record++;
    s->failed = s->fn(s->ctx, s->record, cells, s->nfields);
    s->nfields = 0;
    s->len = 0;
}

gt_status table_read_csv(const char *path, const char *what, table_record_fn fn, void *ctx)
{
    int fd = open_regular(path, what);
    if (fd < 0)
        return GT_ERR_IO;
    struct csv_state s = {.fn = fn, .ctx = ctx, .path = path, .what = what};
    s.offsets = malloc(TABLE_READ_MAX_COLUMNS * sizeof *s.offsets);
    s.missing = malloc(TABLE_READ_MAX_COLUMNS * sizeof *s.missing);
    struct csv_parser p;
    if (!s.offsets || !s.missing || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        free(s.offsets);
        free(s.missing);
        close(fd);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", what, path);
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
            st = gt_fail(GT_ERR_IO, "cannot read %s '%s': %s", what, path, strerror(errno));
            break;
        }
        if (n == 0) {
            if (csv_fini(&p, csv_field, csv_record, &s) != 0 && !s.failed)
                st = gt_fail(GT_ERR_PARSE, "%s '%s' is not valid CSV after record %zu: %s",
                             what, path, s.record,
                             csv_error(&p) == CSV_EPARSE ? "a quoted field is not closed"
                                                         : csv_strerror(csv_error(&p)));
            break;
        }
        if (csv_parse(&p, chunk, (size_t)n, csv_field, csv_record, &s) != (size_t)n && !s.failed) {
            int e = csv_error(&p);
            st = gt_fail(GT_ERR_PARSE, "%s '%s' is not valid CSV in record %zu: %s", what, path,
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
    free(s.text);
    free(s.offsets);
    free(s.missing);
    close(fd);
    return st;
}

/* ---- SQLite ------------------------------------------------------------------ */

/* A query that takes more virtual-machine steps than this (a file made to
 * be slow) is cut off: reading a table of a hundred million rows is about
 * as many. */
#define SQLITE_MAX_STEPS 100000000000LL
#define SQLITE_PROGRESS_STEPS 1000

static int progress_budget(void *arg)
{
    long long *left = arg;
    return --*left < 0; /* non-zero interrupts the query */
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
    int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK) {
        st = gt_fail(GT_ERR_IO, "cannot read %s '%s': %s", what, path,
                     db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        goto out;
    }
    /* A stranger's schema runs nothing of its own. */
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
    long long budget = SQLITE_MAX_STEPS / SQLITE_PROGRESS_STEPS; /* calls of the handler */
    sqlite3_progress_handler(db, SQLITE_PROGRESS_STEPS, progress_budget, &budget);

    rc = sqlite3_prepare_v2(db, "SELECT type FROM sqlite_master WHERE name = ?1", -1, &q, NULL);
    if (rc == SQLITE_OK)
        sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    rc = rc == SQLITE_OK ? sqlite3_step(q) : rc;
    if (rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(q, 0), "table") != 0)
        st = gt_fail(GT_ERR_PARSE, "%s '%s': '%s' is a %s, not a table", what, path, table,
                     (const char *)sqlite3_column_text(q, 0));
    else if (rc == SQLITE_DONE)
        st = gt_fail(GT_ERR_PARSE, "%s '%s' has no table '%s'", what, path, table);
    else if (rc != SQLITE_ROW)
        st = gt_fail(GT_ERR_PARSE, "%s '%s' is not an SQLite database: %s", what, path,
                     sqlite3_errmsg(db));
    sqlite3_finalize(q);
    q = NULL;
    if (st != GT_OK)
        goto out;

    char sql[128];
    /* The name is one of ours ("data", "static_data"), never the file's. */
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
        st = gt_fail(GT_ERR_PARSE, "%s '%s': cannot read table '%s': %s", what, path, table,
                     sqlite3_errmsg(db));
        goto out;
    }
    int n = sqlite3_column_count(q);
    if (n > TABLE_READ_MAX_COLUMNS) {
        st = gt_fail(GT_ERR_PARSE, "%s '%s': table '%s' has more than %d columns", what, path,
                     table, TABLE_READ_MAX_COLUMNS);
        goto out;
    }
    struct table_cell *cells = calloc((size_t)n + 1, sizeof *cells);
    if (!cells) {
        st = gt_fail(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", what, path);
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
                    st = gt_fail(GT_ERR_PARSE, "%s '%s' row %zu: a value is longer than 1 MiB",
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
        st = gt_fail(rc == SQLITE_INTERRUPT ? GT_ERR_PARSE : GT_ERR_IO,
                     "%s '%s': cannot read table '%s': %s", what, path, table,
                     rc == SQLITE_INTERRUPT ? "reading it takes too long (a table of more "
                                              "than a hundred million rows?)"
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
