/* table_file.c - see table_file.h. */
#define _GNU_SOURCE
#include "common/table_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file_io.h"
#include "common/pyfloat.h"
#include <sqlite3.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n > m && strcmp(s + n - m, tail) == 0;
}

int table_file_kind(const char *path)
{
    if (ends_with(path, ".sqlite"))
        return 1;
    return ends_with(path, ".csv") ? 0 : -1;
}

int table_file_name_ok(const char *path)
{
    return table_file_kind(path) >= 0;
}

/* ---- CSV ------------------------------------------------------------------ */

/* A text field as Python's csv module writes it (QUOTE_MINIMAL): in double
 * quotes, its quotes doubled, when it holds a comma, a quote or a line
 * break. */
static void put_text(struct buf *l, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        buf_add(l, s, strlen(s));
        return;
    }
    buf_add(l, "\"", 1);
    for (const char *q = s; *q; q++) {
        if (*q == '"')
            buf_add(l, "\"\"", 2);
        else
            buf_add(l, q, 1);
    }
    buf_add(l, "\"", 1);
}

static void put_value(struct buf *l, const struct table_value *v)
{
    char num[40];
    switch (v->type) {
    case TABLE_TEXT:
        put_text(l, v->text ? v->text : "");
        return;
    case TABLE_INT:
        snprintf(num, sizeof num, "%lld", (long long)v->num);
        break;
    case TABLE_FLOAT:
        pyfloat_repr(v->num, num, sizeof num);
        break;
    }
    buf_add(l, num, strlen(num));
}

static int csv_line(struct table_file *f, const char *const *names,
                    const struct table_value *values, int n)
{
    char block[1024]; /* a longer row (a long code block name) grows on the heap */
    struct buf l;
    buf_init_in(&l, block, sizeof block);
    for (int i = 0; i < n; i++) {
        if (i)
            buf_add(&l, ",", 1);
        if (names)
            put_text(&l, names[i]);
        else
            put_value(&l, &values[i]);
    }
    buf_add(&l, "\r\n", 2);
    int rc = l.failed ? (errno = ENOMEM, -1) : fd_write_all(f->fd, l.data, l.len);
    if (rc == 0) {
        f->whole += (long long)l.len;
    } else if (!l.failed) {
        /* Part of the row may be in the file: cut it back to the last
         * whole row (a pipe cannot be, and keeps what it took). */
        int e = errno;
        if (ftruncate(f->fd, (off_t)f->whole) == 0)
            lseek(f->fd, (off_t)f->whole, SEEK_SET);
        errno = e;
    }
    buf_free(&l);
    return rc;
}

/* ---- SQLite --------------------------------------------------------------- */

static int sql_fail(void)
{
    errno = ERR_MALFORMED;
    return -1;
}

static int sql_create(struct table_file *f, const char *name, const char *const *columns,
                      const struct table_value *types, int n)
{
    static const char *const type_names[] = {"FLOAT", "INTEGER", "VARCHAR"};
    char block[1024]; /* a longer row (a long code block name) grows on the heap */
    struct buf l;
    buf_init_in(&l, block, sizeof block);
    buf_add(&l, "CREATE TABLE ", 13);
    buf_add(&l, name, strlen(name));
    buf_add(&l, " (", 2);
    for (int i = 0; i < n; i++) {
        if (i)
            buf_add(&l, ", ", 2);
        buf_add(&l, columns[i], strlen(columns[i]));
        buf_add(&l, " ", 1);
        buf_add(&l, type_names[types[i].type], strlen(type_names[types[i].type]));
    }
    buf_add(&l, ")", 1);
    int ok = !l.failed && sqlite3_exec(f->db, l.data, NULL, NULL, NULL) == SQLITE_OK;
    buf_free(&l);
    if (!ok)
        return sql_fail();
    buf_init_in(&l, block, sizeof block);
    buf_add(&l, "INSERT INTO ", 12);
    buf_add(&l, name, strlen(name));
    buf_add(&l, " VALUES (", 9);
    for (int i = 0; i < n; i++)
        buf_add(&l, i ? ",?" : "?", i ? 2 : 1);
    buf_add(&l, ")", 1);
    sqlite3_finalize(f->insert);
    f->insert = NULL;
    ok = !l.failed && sqlite3_prepare_v2(f->db, l.data, -1, &f->insert, NULL) == SQLITE_OK;
    buf_free(&l);
    return ok ? 0 : sql_fail();
}

static int sql_row(struct table_file *f, const struct table_value *v, int n)
{
    sqlite3_stmt *s = f->insert;
    if (!s)
        return sql_fail();
    sqlite3_reset(s);
    for (int i = 0; i < n; i++) {
        int rc = v[i].type == TABLE_TEXT  ? sqlite3_bind_text(s, i + 1, v[i].text ? v[i].text : "",
                                                              -1, SQLITE_STATIC)
                 : v[i].type == TABLE_INT ? sqlite3_bind_int64(s, i + 1, (sqlite3_int64)v[i].num)
                                          : sqlite3_bind_double(s, i + 1, v[i].num);
        if (rc != SQLITE_OK)
            return sql_fail();
    }
    int rc = sqlite3_step(s);
    sqlite3_clear_bindings(s); /* no pointer to the caller's text is kept */
    return rc == SQLITE_DONE ? 0 : sql_fail();
}

/* ---- the file ------------------------------------------------------------- */

gt_status table_file_create(struct table_file *f, const char *path, int overwrite,
                            const char *what)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    int sqlite = table_file_kind(path) == 1;
    if (!table_file_name_ok(path))
        return error_set(GT_ERR_INVALID_ARGUMENT,
                         "invalid %s name '%s': valid extensions are .csv and .sqlite", what, path);
    struct stat sb;
    if (!overwrite && lstat(path, &sb) == 0)
        return error_set(GT_ERR_IO, "%s '%s' already exists: set overwrite (--overwrite) to "
                         "replace it, or give another name", what, path);
    /* A FIFO's open would wait for a reader, here while the command is held
     * with its signals blocked: a table file is a file. */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return error_set(GT_ERR_IO, "cannot write %s '%s': it is not a regular file (a FIFO, a "
                         "device or a directory); give a file's name", what, path);
    int fd;
    if (!(f->path = strdup(path)))
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    if (output_file_open(path, &fd) != GT_OK) {
        free(f->path);
        f->path = NULL;
        /* "cannot write 'PATH': WHY" becomes "cannot write <what> 'PATH': WHY" */
        static const char prefix[] = "cannot write '";
        char why[1024];
        snprintf(why, sizeof why, "%s", gt_last_error());
        if (strncmp(why, prefix, sizeof prefix - 1) == 0)
            return error_set(GT_ERR_IO, "cannot write %s '%s", what, why + sizeof prefix - 1);
        return error_set(GT_ERR_IO, "cannot write %s '%s': %s", what, path, why);
    }
    struct stat made;
    if (fstat(fd, &made) == 0) {
        f->dev = made.st_dev;
        f->ino = made.st_ino;
    }
    if (!sqlite) {
        f->fd = fd;
        return GT_OK;
    }
    /* output_file_open made the file under our rules; SQLite opens it,
     * refusing a link put there since, with its journal in memory. */
    close(fd);
    int rc = sqlite3_open_v2(path, &f->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc == SQLITE_OK &&
        sqlite3_exec(f->db, "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF", NULL, NULL,
                     NULL) == SQLITE_OK)
        return GT_OK;
    gt_status st = error_set(GT_ERR_IO, "cannot write %s '%s': %s", what, path,
                             f->db ? sqlite3_errmsg(f->db) : sqlite3_errstr(rc));
    table_file_discard(f);
    return st;
}

int table_file_table(struct table_file *f, const char *name, const char *const *columns,
                     const struct table_value *types, int n)
{
    return f->db ? sql_create(f, name, columns, types, n) : csv_line(f, columns, NULL, n);
}

int table_file_row(struct table_file *f, const struct table_value *values, int n)
{
    return f->db ? sql_row(f, values, n) : csv_line(f, NULL, values, n);
}

const char *table_file_error(const struct table_file *f)
{
    return f->db ? sqlite3_errmsg(f->db) : errno_text(errno);
}

void table_file_close(struct table_file *f)
{
    if (f->insert)
        sqlite3_finalize(f->insert);
    if (f->db)
        sqlite3_close(f->db);
    if (f->fd >= 0)
        close(f->fd);
    f->insert = NULL;
    f->db = NULL;
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}

void table_file_discard(struct table_file *f)
{
    char *path = f->path;
    f->path = NULL;
    table_file_close(f);
    struct stat now;
    if (path && lstat(path, &now) == 0 && S_ISREG(now.st_mode) && now.st_dev == f->dev &&
        now.st_ino == f->ino)
        unlink(path);
    free(path);
}
