/* snapshot_rt.c - resource_tracker's snapshot format (snapshot_rt.h).
 *
 * Reading keeps snapshot.c's bounds: the rows are counted before anything
 * is parsed, and each row's object is parsed on its own (at most
 * ROW_TEXT_MAX bytes), so a file's cost follows from its row count. */
#define _GNU_SOURCE
#include "snapshot/snapshot_rt.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/json_write.h"
#include "common/pyfloat.h"
#include "common/series_columns.h"
#include "common/summary/snapshot_parts.h"
#include "snapshot/parts_read.h"

#define ROW_TEXT_MAX 4096
#define PART_MAX ((size_t)1 << 20)
#define GIB_PER_GB (1e9 / 1073741824.0) /* 0.5 counts disk space in decimal GB */

/* How a column of ours is named and scaled in each shape: a value in the
 * file is ours * scale (0.4 has our names and units). */
struct rt_name {
    const char *ours, *v05;
    double scale05;
    int decimals; /* resource_tracker rounds the converted value so */
};

static const struct rt_name rt_names[] = {
    {"memory", "memory_mib", 1.0 / 1024, 4},
    {"read_bytes", "disk_read_bytes", 1, 0},
    {"write_bytes", "disk_write_bytes", 1, 0},
    {"gpu_vram", "gpu_vram_mib", 1, 4},
    {"memory_free", "memory_free_mib", 1.0 / 1024, 4},
    {"memory_used", "memory_used_mib", 1.0 / 1024, 4},
    {"memory_buffers", "memory_buffers_mib", 1.0 / 1024, 4},
    {"memory_cached", "memory_cached_mib", 1.0 / 1024, 4},
    {"memory_active", "memory_active_mib", 1.0 / 1024, 4},
    {"memory_inactive", "memory_inactive_mib", 1.0 / 1024, 4},
    {"disk_space_total_gb", "disk_space_total_gb", 1 / GIB_PER_GB, 2},
    {"disk_space_used_gb", "disk_space_used_gb", 1 / GIB_PER_GB, 2},
    {"disk_space_free_gb", "disk_space_free_gb", 1 / GIB_PER_GB, 2},
};

/* The name of column c in a shape, with the factor from our unit to the
 * file's and the decimals resource_tracker rounds it to (-1: as it is).
 * The names are unique across both series (the system's I/O and memory
 * columns are named apart from the process's). */
static const char *rt_column(const struct series_column *c, int v05, double *scale,
                             int *decimals)
{
    *scale = 1;
    *decimals = -1;
    for (size_t i = 0; v05 && i < sizeof rt_names / sizeof rt_names[0]; i++)
        if (!strcmp(rt_names[i].ours, c->name)) {
            *scale = rt_names[i].scale05;
            *decimals = rt_names[i].decimals;
            return rt_names[i].v05;
        }
    return c->name;
}

/* ---- detecting -------------------------------------------------------------- */

struct detect {
    const char *text;
    int metadata, summary;
};

static int key_is(const char *text, struct json_span key, const char *name)
{
    size_t n = strlen(name);
    return key.end - key.start == n + 2 && memcmp(text + key.start + 1, name, n) == 0;
}

static int on_top_key(void *ctx, struct json_span key, struct json_span value)
{
    (void)value;
    struct detect *d = ctx;
    d->metadata |= key_is(d->text, key, "metadata");
    d->summary |= key_is(d->text, key, "summary");
    return 0;
}

int snapshot_rt_detect(const char *text, struct json_span root)
{
    struct detect d = {text, 0, 0};
    char err[160];
    if (json_span_members(text, root, JSON_READ_MAX_DEPTH, on_top_key, &d, err, sizeof err) < 0)
        return 0; /* malformed: the main reader says why */
    return d.metadata && !d.summary;
}

/* ---- reading ---------------------------------------------------------------- */

struct top {
    const char *text;
    struct json_span metadata, server, cloud, process, system;
    int seen[5];
};

static int on_part(void *ctx, struct json_span key, struct json_span value)
{
    struct top *t = ctx;
    static const char *const names[] = {"metadata", "server_info", "cloud_info",
                                        "process_metrics", "system_metrics"};
    struct json_span *spans[] = {&t->metadata, &t->server, &t->cloud, &t->process, &t->system};
    for (int i = 0; i < 5; i++)
        if (key_is(t->text, key, names[i])) {
            *spans[i] = value;
            t->seen[i] = 1;
        }
    return 0;
}

static void read_metadata(struct json_reader *r, json_object *m, gt_snapshot *s)
{
    const char *w = "metadata";
    if (r->status == GT_OK && !json_object_is_type(m, json_type_object)) {
        json_read_fail(r, "\"metadata\" should be an object");
        return;
    }
    json_object *tr = json_read_member(r, m, "resource_tracker", json_type_object, w);
    char version[15] = ""; /* fits "resource_tracker <version>" in tracker_version */
    json_read_string(r, tr, "version", "metadata.resource_tracker", version, sizeof version);
    snprintf(s->tracker_version, sizeof s->tracker_version, "resource_tracker %s", version);
    s->pid = (int)json_read_integer(r, m, "pid", w, 0, 4194304);
    s->interval = json_read_number(r, m, "interval", w, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
    s->start_time = json_read_number(r, m, "start_time", w, 0, 1e10);
    s->stop_time = json_read_number(r, m, "stop_time", w, 0, 1e10);
    if (r->status == GT_OK && s->stop_time < s->start_time)
        json_read_fail(r, "\"metadata.stop_time\" is before \"metadata.start_time\"");
    /* Its duration counts one interval more than the rows span (the
     * baseline's); ours is stop - start. */
    s->duration = s->stop_time - s->start_time;
    s->exit_status = -1;
    s->format_version = GT_SNAPSHOT_FORMAT;
    json_object *children;
    if (m && json_object_object_get_ex(m, "children", &children) && children)
        s->main_only = !json_read_bool(r, m, "children", w);
}

/* An optional string member ("" when absent or null). */
static void optional_string(struct json_reader *r, json_object *o, const char *key,
                            const char *path, char *out, size_t cap)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && v)
        json_read_string(r, o, key, path, out, cap);
}

static double optional_number(struct json_reader *r, json_object *o, const char *key,
                              const char *path, double max, double fallback)
{
    json_object *v;
    if (o && json_object_object_get_ex(o, key, &v) && v)
        return json_read_number(r, o, key, path, 0, max);
    return fallback;
}

static void read_server(struct json_reader *r, json_object *o, gt_server_info *si)
{
    snprintf(si->allocation, sizeof si->allocation, "unknown");
    if (!o || r->status != GT_OK)
        return; /* null: not discovered */
    const char *w = "server_info";
    if (!json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"server_info\" should be an object or null");
        return;
    }
    /* Ours travel in extra keys; resource_tracker's "os" is the system's
     * name ("Linux"). */
    optional_string(r, o, "os_release", w, si->os, sizeof si->os);
    if (!si->os[0])
        optional_string(r, o, "os", w, si->os, sizeof si->os);
    optional_string(r, o, "kernel", w, si->kernel, sizeof si->kernel);
    optional_string(r, o, "hostname", w, si->hostname, sizeof si->hostname);
    optional_string(r, o, "cpu_model", w, si->cpu_model, sizeof si->cpu_model);
    si->vcpus = (int)json_read_integer(r, o, "vcpus", w, 0, 1 << 22);
    si->vcpus_usable = optional_number(r, o, "vcpus_usable", w, 1 << 22, si->vcpus);
    int v05 = json_object_object_get_ex(o, "memory_mib", NULL);
    si->memory_mib = json_read_number(r, o, v05 ? "memory_mib" : "memory_mb", w, 0, 1e12);
    si->memory_limit_mib = optional_number(r, o, "memory_limit_mib", w, 1e12, 0);
    si->gpu_count = (int)json_read_integer(r, o, "gpu_count", w, 0, 65536);
    snapshot_read_gpu_names(r, o, si);
    si->gpu_memory_mib =
        json_read_number(r, o, v05 ? "gpu_memory_mib" : "gpu_memory_mb", w, 0, 1e12);
    char allocation[16] = "";
    optional_string(r, o, "allocation", w, allocation, sizeof allocation);
    if (!strcmp(allocation, "dedicated") || !strcmp(allocation, "shared"))
        snprintf(si->allocation, sizeof si->allocation, "%s", allocation);
}

struct row_reader {
    struct json_reader *r;
    const char *text;
    const char *where;
    gt_series_kind kind;
    const struct series_columns *cols;
    int v05;          /* decided by the first row */
    size_t n;
    char *rows;
};

/* One row's object into row i. */
static int on_row(void *ctx, struct json_span key, struct json_span value)
{
    (void)key;
    struct row_reader *rr = ctx;
    struct json_reader *r = rr->r;
    char at[64];
    snprintf(at, sizeof at, "%s[%zu]", rr->where, rr->n);
    json_object *o = snapshot_parse_part(r, rr->text, value, at, ROW_TEXT_MAX);
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object))
        json_read_fail(r, "\"%s\" should be an object (a row)", at);
    if (r->status == GT_OK && rr->n == 0)
        rr->v05 = json_object_object_get_ex(o, rr->kind == GT_SERIES_KIND_PROCESS ? "memory_mib"
                                                                                  : "memory_used_mib",
                                            NULL);
    void *row = rr->rows + rr->n * rr->cols->row_size;
    for (size_t c = 0; r->status == GT_OK && c < rr->cols->rt_ncolumns; c++) {
        const struct series_column *col = &rr->cols->columns[c];
        double scale;
        int decimals;
        const char *name = rt_column(col, rr->v05, &scale, &decimals);
        json_object *v;
        if (!json_object_object_get_ex(o, name, &v)) {
            json_read_fail(r, "missing key \"%s.%s\"", at, name);
            break;
        }
        if (!v) {
            /* children is null when resource_tracker was not asked to
             * count them; anything else must be there. */
            if (strcmp(col->name, "children"))
                json_read_fail(r, "\"%s.%s\" should be a number, not null", at, name);
            continue;
        }
        if (col->type != COLUMN_DOUBLE && scale == 1) { /* a count: never through a double */
            long long x = json_read_integer_in(r, v, at, 0, name, 0, (long long)col->max);
            series_column_set(col, row, 0, (unsigned long long)x);
            continue;
        }
        double x = json_read_number_in(r, v, at, 0, name, 0, col->max * scale) / scale;
        if (col->type == COLUMN_DOUBLE)
            series_column_set(col, row, x, 0);
        else /* kB from MiB: whole kB */
            series_column_set(col, row, 0, (unsigned long long)llround(x));
    }
    json_object_put(o);
    rr->n++;
    return r->status == GT_OK ? 0 : 1;
}

/* A series (a list of row objects; null or absent: none). */
static size_t read_rows(struct json_reader *r, const char *text, struct json_span span, int seen,
                        gt_series_kind kind, size_t max_rows, void **out)
{
    *out = NULL;
    const char *where = kind == GT_SERIES_KIND_PROCESS ? "process_metrics" : "system_metrics";
    const struct series_columns *cols = series_columns(kind);
    size_t n = 0;
    char err[160];
    int null = seen && span.end - span.start == 4 && !memcmp(text + span.start, "null", 4);
    if (r->status != GT_OK)
        return 0;
    if (seen && !null &&
        json_span_array_length(text, span, JSON_READ_MAX_DEPTH, &n, err, sizeof err) < 0) {
        json_read_fail(r, "\"%s\" should be a list of rows (%s)", where, err);
        return 0;
    }
    if (n > max_rows) {
        json_read_fail(r, "\"%s\" has %zu rows; at most %zu are read (docs/snapshot.md, "
                          "\"Limits\": gpu-tracker stats --max-rows)", where, n, max_rows);
        return 0;
    }
    struct row_reader rr = {r, text, where, kind, cols, 0, 0, calloc(n ? n : 1, cols->row_size)};
    if (!rr.rows) {
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory for %zu rows", r->what, n);
        return 0;
    }
    if (n)
        json_span_elements(text, span, JSON_READ_MAX_DEPTH, on_row, &rr, err, sizeof err);
    *out = rr.rows;
    return rr.n;
}

void snapshot_rt_read(struct json_reader *r, const char *text, struct json_span root,
                      size_t max_rows, gt_snapshot *s)
{
    struct top t;
    memset(&t, 0, sizeof t);
    t.text = text;
    char err[160];
    if (json_span_members(text, root, JSON_READ_MAX_DEPTH, on_part, &t, err, sizeof err) < 0) {
        json_read_fail(r, "malformed JSON (%s)", err);
        return;
    }
    s->no_summary = 1;
    s->command = strdup("");
    if (!s->command) {
        r->status = error_set(GT_ERR_NO_MEMORY, "out of memory");
        return;
    }
    json_object *m = snapshot_parse_part(r, text, t.metadata, "metadata", PART_MAX);
    read_metadata(r, m, s);
    json_object_put(m);
    json_object *si = t.seen[1] ? snapshot_parse_part(r, text, t.server, "server_info", PART_MAX) : NULL;
    read_server(r, si, &s->server);
    json_object_put(si);
    snprintf(s->host, sizeof s->host, "%s", s->server.hostname);
    json_object *cloud = t.seen[2] ? snapshot_parse_part(r, text, t.cloud, "cloud_info", PART_MAX) : NULL;
    snapshot_read_cloud(r, cloud, &s->cloud);
    json_object_put(cloud);
    void *rows;
    s->series.interval = s->interval;
    s->series.start_time = s->start_time;
    s->series.nprocess = read_rows(r, text, t.process, t.seen[3], GT_SERIES_KIND_PROCESS,
                                   max_rows, &rows);
    s->series.process = rows;
    s->series.nsystem = read_rows(r, text, t.system, t.seen[4], GT_SERIES_KIND_SYSTEM, max_rows,
                                  &rows);
    s->series.system = rows;
}

/* ---- writing ---------------------------------------------------------------- */

static json_object *metadata_object(const gt_snapshot *s, int v05)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "version", json_object_new_int(1));
    json_object *tr = json_object_new_object();
    /* The shape written, as resource_tracker's own version would say it;
     * the writer in a key of its own. */
    snapshot_add_text(tr, "version", v05 ? "0.5.0" : "0.4.2");
    snapshot_add_text(tr, "implementation", "procfs");
    char writer[64];
    snprintf(writer, sizeof writer, "gpu-tracker %s", s->tracker_version);
    snapshot_add_text(tr, "writer", writer);
    json_object_object_add(m, "resource_tracker", tr);
    json_object_object_add(m, "pid", json_object_new_int(s->pid));
    json_object_object_add(m, "children", json_object_new_boolean(!s->main_only));
    json_object_object_add(m, "interval", json_new_pyfloat(s->interval));
    json_object_object_add(m, "method", NULL);
    json_object_object_add(m, "autostart", json_object_new_boolean(1));
    json_object_object_add(m, "track_processes", json_object_new_boolean(1));
    json_object_object_add(m, "track_system", json_object_new_boolean(1));
    json_object_object_add(m, "discover_server", json_object_new_boolean(1));
    json_object_object_add(m, "discover_cloud", json_object_new_boolean(s->cloud.asked));
    json_object_object_add(m, "start_time", json_new_pyfloat(s->start_time));
    json_object_object_add(m, "stop_time", json_new_pyfloat(s->stop_time));
    /* resource_tracker's: stop - start + one interval, to 2 decimals. */
    double d = s->stop_time - s->start_time + s->interval;
    json_object_object_add(m, "duration", json_new_pyfloat(pyfloat_round(d, 2)));
    return m;
}

static json_object *server_object(const gt_snapshot *s, int v05)
{
    const gt_server_info *si = &s->server;
    json_object *o = json_object_new_object();
    snapshot_add_text(o, "os", "Linux");
    json_object_object_add(o, "vcpus", json_object_new_int(si->vcpus));
    json_object_object_add(o, v05 ? "memory_mib" : "memory_mb",
                           json_new_pyfloat(pyfloat_round(si->memory_mib, 2)));
    json_object_object_add(o, "gpu_count", json_object_new_int(si->gpu_count));
    json_object *names = json_object_new_array();
    for (int i = 0; si->gpu_names && i < si->ngpu_names; i++)
        json_object_array_add(names, json_new_text(si->gpu_names[i]));
    json_object_object_add(o, "gpu_names", names);
    /* Its gpu_name: the most common name. */
    int best = -1, best_n = 0;
    for (int i = 0; si->gpu_names && i < si->ngpu_names; i++) {
        int n = 0;
        for (int j = 0; j < si->ngpu_names; j++)
            n += !strcmp(si->gpu_names[i], si->gpu_names[j]);
        if (n > best_n) {
            best = i;
            best_n = n;
        }
    }
    snapshot_add_text(o, "gpu_name", best >= 0 ? si->gpu_names[best] : "");
    json_object_object_add(o, v05 ? "gpu_memory_mib" : "gpu_memory_mb",
                           json_new_pyfloat(si->gpu_memory_mib));
    const char *a = si->allocation;
    snapshot_add_text(o, "allocation", strcmp(a, "dedicated") && strcmp(a, "shared") ? "unknown" : a);
    /* What we know beyond it, under names it does not use. */
    snapshot_add_text(o, "os_release", si->os);
    snapshot_add_text(o, "kernel", si->kernel);
    snapshot_add_text(o, "hostname", si->hostname);
    snapshot_add_text(o, "cpu_model", si->cpu_model);
    json_object_object_add(o, "vcpus_usable", json_new_pyfloat(si->vcpus_usable));
    json_object_object_add(o, "memory_limit_mib", json_new_pyfloat(si->memory_limit_mib));
    return o;
}

/* One value as JSON text: a column in the shape's unit. */
static size_t format_value(const struct series_column *c, const void *row, double scale,
                           int decimals, char *out, size_t cap)
{
    double v = series_column_value(c, row);
    if (c->type == COLUMN_DOUBLE || scale != 1) {
        v *= scale;
        if (!isfinite(v))
            return (size_t)snprintf(out, cap, "null");
        /* A converted value is rounded as resource_tracker rounds it (4
         * decimals for MiB, 2 for GB). */
        if (decimals >= 0)
            v = pyfloat_round(v, decimals);
        pyfloat_repr(v, out, cap);
        return strlen(out);
    }
    switch (c->type) {
    case COLUMN_INT: return (size_t)snprintf(out, cap, "%d", (int)v);
    case COLUMN_LONG: return (size_t)snprintf(out, cap, "%.0f", v);
    default: {
        const char *field = (const char *)row + c->offset;
        return (size_t)snprintf(out, cap, "%llu", *(const unsigned long long *)field);
    }
    }
}

/* A series as a list of row objects, a batch of rows at a time. */
static void put_rows(struct json_stream *k, const struct row_source *rows, gt_series_kind kind, int v05)
{
    const struct series_columns *cols = series_columns(kind);
    size_t n = rows->count[kind];
    char *batch = malloc(ROW_BATCH * cols->row_size);
    if (!batch) {
        k->failed = ENOMEM;
        return;
    }
    stream_puts(k, "[");
    for (size_t first = 0; first < n && !k->failed; first += ROW_BATCH) {
        size_t take = n - first < ROW_BATCH ? n - first : ROW_BATCH;
        if (rows->read(rows, kind, first, take, batch) < 0) {
            k->failed = errno ? errno : EIO;
            break;
        }
        for (size_t i = 0; i < take; i++) {
            char text[2048];
            size_t len = 0;
            text[len++] = first + i ? ',' : ' ';
            text[len++] = '{';
            for (size_t c = 0; c < cols->rt_ncolumns; c++) {
                double scale;
                int decimals;
                const char *name = rt_column(&cols->columns[c], v05, &scale, &decimals);
                len += (size_t)snprintf(text + len, sizeof text - len, "%s\"%s\":", c ? "," : "",
                                        name);
                len += format_value(&cols->columns[c], batch + i * cols->row_size, scale,
                                    decimals, text + len, 32);
            }
            text[len++] = '}';
            stream_put(k, text + (first + i ? 0 : 1), len - (first + i ? 0 : 1));
        }
    }
    stream_puts(k, "]");
    free(batch);
}

void snapshot_rt_put(struct json_stream *k, const gt_snapshot *s, const struct row_source *rows,
                     gt_snapshot_format shape)
{
    int v05 = shape == GT_SNAPSHOT_RESOURCE_TRACKER_05;
    stream_puts(k, "{\"metadata\":");
    stream_put_object(k, metadata_object(s, v05));
    stream_puts(k, ",\"server_info\":");
    stream_put_object(k, server_object(s, v05));
    stream_puts(k, ",\"cloud_info\":");
    stream_put_object(k, snapshot_cloud_object(&s->cloud));
    stream_puts(k, ",\"process_metrics\":");
    put_rows(k, rows, GT_SERIES_KIND_PROCESS, v05);
    stream_puts(k, ",\"system_metrics\":");
    put_rows(k, rows, GT_SERIES_KIND_SYSTEM, v05);
    stream_puts(k, "}");
}
