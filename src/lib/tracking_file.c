/* tracking_file.c - see tracking_file.h. */
#define _GNU_SOURCE
#include "tracking_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "hot_path.h"
#include "options.h"
#include "pyfloat.h"

const char *const tracking_static_columns[TRACKING_STATIC_COLUMNS] = {
    "ram_unit", "gpu_ram_unit", "time_unit", "ram_system_capacity", "gpu_ram_system_capacity",
    "system_core_count", "n_expected_cores", "system_gpu_count", "n_expected_gpus",
};

const char *const tracking_timepoint_columns[TRACKING_TIMEPOINT_COLUMNS] = {
    "main_ram", "descendants_ram", "combined_ram", "system_ram",
    "main_gpu_ram", "descendants_gpu_ram", "combined_gpu_ram", "system_gpu_ram",
    "gpu_sum_utilization_percent", "gpu_hardware_utilization_percent",
    "main_n_threads", "descendants_n_threads", "combined_n_threads",
    "cpu_system_sum_utilization_percent", "cpu_system_hardware_utilization_percent",
    "cpu_main_sum_utilization_percent", "cpu_main_hardware_utilization_percent",
    "cpu_descendants_sum_utilization_percent", "cpu_descendants_hardware_utilization_percent",
    "cpu_combined_sum_utilization_percent", "cpu_combined_hardware_utilization_percent",
    "timestamp",
};

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n > m && strcmp(s + n - m, tail) == 0;
}


static double per(double x, int n)
{
    return n > 0 ? x / n : 0.0;
}

void tracking_timepoint_values(const struct tracking_static *st, const struct usage_timepoint *tp,
                               double wall, double v[TRACKING_TIMEPOINT_COLUMNS],
                               int is_int[TRACKING_TIMEPOINT_COLUMNS])
{
    double kb = 1024.0 / st->ram_divisor;
    double gpu = 1.0 / st->gpu_ram_divisor;
    double comb_cpu = tp->cpu_main_percent + tp->cpu_desc_percent;
    double cap = 100.0 * st->system_core_count;
    if (st->system_core_count > 0 && comb_cpu > cap)
        comb_cpu = cap; /* each part is capped; their sum is held to the machine too */
    double gpu_sum = tp->gpu_sum_percent;
    double values[TRACKING_TIMEPOINT_COLUMNS] = {
        (double)tp->main_kb * kb, (double)tp->desc_kb * kb, (double)tp->comb_kb * kb,
        (double)tp->system_kb * kb,
        (double)tp->main_gpu * gpu, (double)tp->desc_gpu * gpu,
        (double)(tp->main_gpu + tp->desc_gpu) * gpu, (double)tp->system_gpu * gpu,
        gpu_sum, per(gpu_sum, st->n_expected_gpus),
        (double)tp->main_threads, (double)tp->desc_threads,
        (double)(tp->main_threads + tp->desc_threads),
        tp->cpu_system_percent, per(tp->cpu_system_percent, st->system_core_count),
        tp->cpu_main_percent, per(tp->cpu_main_percent, st->n_expected_cores),
        tp->cpu_desc_percent, per(tp->cpu_desc_percent, st->n_expected_cores),
        comb_cpu, per(comb_cpu, st->n_expected_cores),
        wall,
    };
    memcpy(v, values, sizeof values);
    for (int i = 0; i < TRACKING_TIMEPOINT_COLUMNS; i++)
        is_int[i] = i >= 10 && i <= 12;
}

/* The static data's values: strings (NULL for a number) and numbers. */
static void static_values(const struct tracking_static *st,
                          const char *text[TRACKING_STATIC_COLUMNS],
                          double num[TRACKING_STATIC_COLUMNS], int is_int[TRACKING_STATIC_COLUMNS])
{
    const char *t[TRACKING_STATIC_COLUMNS] = {st->ram_unit, st->gpu_ram_unit, st->time_unit};
    double n[TRACKING_STATIC_COLUMNS] = {
        0, 0, 0,
        (double)st->ram_total_kb * 1024.0 / st->ram_divisor,
        (double)st->gpu_total_bytes / st->gpu_ram_divisor,
        st->system_core_count, st->n_expected_cores, st->system_gpu_count, st->n_expected_gpus,
    };
    memcpy(text, t, sizeof t);
    memcpy(num, n, sizeof n);
    for (int i = 0; i < TRACKING_STATIC_COLUMNS; i++)
        is_int[i] = i >= 5;
}

/* ---- CSV ----------------------------------------------------------------- */

/* Appends a number as Python's csv module writes it (str() of an int or a
 * float). */
static size_t put_number(char *out, size_t cap, double v, int is_int)
{
    if (is_int)
        return (size_t)snprintf(out, cap, "%lld", (long long)v);
    char f[32];
    pyfloat_repr(v, f, sizeof f);
    return (size_t)snprintf(out, cap, "%s", f);
}

static size_t put_header(char *out, size_t cap, const char *const *names, int n)
{
    size_t len = 0;
    for (int i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? "," : "", names[i]);
    if (len < cap)
        len += (size_t)snprintf(out + len, cap - len, "\r\n");
    return len < cap ? len : cap - 1;
}

static int csv_write_static(struct tracking_file *k)
{
    const char *text[TRACKING_STATIC_COLUMNS];
    double num[TRACKING_STATIC_COLUMNS];
    int is_int[TRACKING_STATIC_COLUMNS];
    static_values(&k->st, text, num, is_int);
    char buf[2048];
    size_t len = put_header(buf, sizeof buf, tracking_static_columns, TRACKING_STATIC_COLUMNS);
    for (int i = 0; i < TRACKING_STATIC_COLUMNS; i++) {
        if (i)
            buf[len++] = ',';
        if (text[i])
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s", text[i]);
        else
            len += put_number(buf + len, sizeof buf - len, num[i], is_int[i]);
    }
    len += (size_t)snprintf(buf + len, sizeof buf - len, "\r\n");
    len += put_header(buf + len, sizeof buf - len, tracking_timepoint_columns,
                      TRACKING_TIMEPOINT_COLUMNS);
    return fd_write_all(k->fd, buf, len);
}

GT_HOT static int csv_write_row(struct tracking_file *k, const double *v, const int *is_int)
{
    char line[TRACKING_TIMEPOINT_COLUMNS * 34 + 4];
    size_t len = 0;
    for (int i = 0; i < TRACKING_TIMEPOINT_COLUMNS; i++) {
        if (i)
            line[len++] = ',';
        len += put_number(line + len, sizeof line - len, v[i], is_int[i]);
    }
    line[len++] = '\r';
    line[len++] = '\n';
    return fd_write_all(k->fd, line, len);
}

/* ---- SQLite -------------------------------------------------------------- */

static int sql_exec(struct tracking_file *k, const char *sql)
{
    return sqlite3_exec(k->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* CREATE TABLE name (col TYPE, ...) with SQLAlchemy's names for the types
 * (VARCHAR, INTEGER, FLOAT), as gpu_tracker creates them. */
static int sql_create(struct tracking_file *k, const char *table, const char *const *names,
                      int n, const int *is_int, const char *const *text)
{
    char sql[4096];
    size_t len = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE %s (", table);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s %s", i ? ", " : "", names[i],
                                text && text[i] ? "VARCHAR" : is_int[i] ? "INTEGER" : "FLOAT");
    snprintf(sql + len, sizeof sql - len, ")");
    return sql_exec(k, sql);
}

static int sql_prepare_insert(struct tracking_file *k, const char *table, int n,
                              sqlite3_stmt **stmt)
{
    char sql[512];
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", table);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s?", i ? "," : "");
    snprintf(sql + len, sizeof sql - len, ")");
    return sqlite3_prepare_v2(k->db, sql, -1, stmt, NULL) == SQLITE_OK ? 0 : -1;
}

static int sql_bind_run(sqlite3_stmt *stmt, const double *num, const int *is_int,
                        const char *const *text, int n)
{
    sqlite3_reset(stmt);
    for (int i = 0; i < n; i++) {
        int rc = text && text[i] ? sqlite3_bind_text(stmt, i + 1, text[i], -1, SQLITE_STATIC)
                 : is_int[i]      ? sqlite3_bind_int64(stmt, i + 1, (sqlite3_int64)num[i])
                                  : sqlite3_bind_double(stmt, i + 1, num[i]);
        if (rc != SQLITE_OK)
            return -1;
    }
    return sqlite3_step(stmt) == SQLITE_DONE ? 0 : -1;
}

static int sqlite_write_static(struct tracking_file *k)
{
    const char *text[TRACKING_STATIC_COLUMNS];
    double num[TRACKING_STATIC_COLUMNS];
    int is_int[TRACKING_STATIC_COLUMNS];
    static_values(&k->st, text, num, is_int);
    double tv[TRACKING_TIMEPOINT_COLUMNS] = {0};
    int tint[TRACKING_TIMEPOINT_COLUMNS];
    struct usage_timepoint none = {0};
    tracking_timepoint_values(&k->st, &none, 0, tv, tint);
    sqlite3_stmt *stmt = NULL;
    int ok = sql_create(k, "static_data", tracking_static_columns, TRACKING_STATIC_COLUMNS,
                        is_int, text) == 0 &&
             sql_create(k, "data", tracking_timepoint_columns, TRACKING_TIMEPOINT_COLUMNS, tint,
                        NULL) == 0 &&
             sql_prepare_insert(k, "static_data", TRACKING_STATIC_COLUMNS, &stmt) == 0 &&
             sql_bind_run(stmt, num, is_int, text, TRACKING_STATIC_COLUMNS) == 0 &&
             sql_prepare_insert(k, "data", TRACKING_TIMEPOINT_COLUMNS, &k->insert) == 0;
    sqlite3_finalize(stmt);
    return ok ? 0 : -1;
}

/* ---- the sink ------------------------------------------------------------ */

GT_HOT static void tracking_rows(struct sink *s, const struct pipeline_rows *rows)
{
    struct tracking_file *k = (struct tracking_file *)s;
    if (!rows->have_timepoint || k->failed)
        return;
    double v[TRACKING_TIMEPOINT_COLUMNS];
    int is_int[TRACKING_TIMEPOINT_COLUMNS];
    tracking_timepoint_values(&k->st, &rows->timepoint, rows->timepoint_wall, v, is_int);
    int rc = k->db ? sql_bind_run(k->insert, v, is_int, NULL, TRACKING_TIMEPOINT_COLUMNS)
                   : csv_write_row(k, v, is_int);
    if (rc == 0)
        return;
    k->failed = 1;
    warn_once(k->warner, WARN_TRACKING_FILE,
              "cannot write the tracking file: %s; its later timepoints are lost (the summary "
              "and the series are kept)",
              k->db ? sqlite3_errmsg(k->db) : strerror(errno));
}

static const struct sink_ops tracking_ops = {.rows = tracking_rows};

static gt_status open_sqlite(struct tracking_file *k, const char *path)
{
    /* The file was made by gt_output_open (our rules for links and modes);
     * SQLite opens it, refusing a link put there since, and keeps its
     * rollback journal in memory: no side file is created beside it (in a
     * shared directory such a name could be planted). */
    int rc = sqlite3_open_v2(path, &k->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc == SQLITE_OK && sql_exec(k, "PRAGMA journal_mode=MEMORY") == 0 &&
        sql_exec(k, "PRAGMA synchronous=OFF") == 0 && sqlite_write_static(k) == 0)
        return GT_OK;
    gt_status st = gt_fail(GT_ERR_IO, "cannot write tracking file '%s': %s", path,
                           k->db ? sqlite3_errmsg(k->db) : sqlite3_errstr(rc));
    tracking_file_close(k);
    return st;
}

gt_status tracking_file_open(struct tracking_file *k, const char *path, int overwrite,
                             const struct tracking_static *st, struct warner *w)
{
    memset(k, 0, sizeof *k);
    k->fd = -1;
    k->base.ops = &tracking_ops;
    k->st = *st;
    k->warner = w;
    if (!options_tracking_file_name_ok(path))
        return gt_fail(GT_ERR_INVALID_ARGUMENT, "invalid tracking file name '%s': valid "
                       "extensions are .csv and .sqlite", path);
    struct stat sb;
    if (!overwrite && lstat(path, &sb) == 0)
        return gt_fail(GT_ERR_IO, "tracking file '%s' already exists: set overwrite "
                       "(--overwrite) to replace it, or give another name", path);
    int fd;
    if (gt_output_open(path, &fd) != GT_OK) {
        /* "cannot write 'PATH': WHY" becomes "cannot write tracking file ..." */
        static const char prefix[] = "cannot write '";
        char why[1024];
        snprintf(why, sizeof why, "%s", gt_last_error());
        if (strncmp(why, prefix, sizeof prefix - 1) == 0)
            return gt_fail(GT_ERR_IO, "cannot write tracking file '%s", why + sizeof prefix - 1);
        return gt_fail(GT_ERR_IO, "cannot write tracking file '%s': %s", path, why);
    }
    if (ends_with(path, ".sqlite")) {
        close(fd);
        return open_sqlite(k, path);
    }
    k->fd = fd;
    if (csv_write_static(k) < 0) {
        int e = errno;
        tracking_file_close(k);
        return gt_fail(GT_ERR_IO, "cannot write tracking file '%s': %s", path, strerror(e));
    }
    return GT_OK;
}

void tracking_file_close(struct tracking_file *k)
{
    if (k->insert)
        sqlite3_finalize(k->insert);
    if (k->db)
        sqlite3_close(k->db);
    if (k->fd >= 0)
        close(k->fd);
    k->insert = NULL;
    k->db = NULL;
    k->fd = -1;
}
