/* snapshot.c - a run as gzipped JSON: written with json-c and zlib, read
 * back with every key and type checked (docs/snapshot.md has the format). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "file_io.h"
#include "internal.h"
#include "json_float.h"
#include "snapshot.h"

#define SNAPSHOT_MAX_BYTES (2ULL << 30) /* uncompressed: ~10 M rows, far past any run */
#define SNAPSHOT_MAX_FILE_BYTES ((size_t)256 << 20) /* as stored (gzipped, or not) */

/* ---- the series' columns ------------------------------------------------ */

enum col_type { COL_DOUBLE, COL_INT, COL_LONG, COL_ULL };

struct column {
    const char *name;
    enum col_type type;
    size_t offset;
};

#define PCOL(n, t) {#n, t, offsetof(gt_process_row, n)}
static const struct column process_columns[] = {
    PCOL(timestamp, COL_DOUBLE), PCOL(pid, COL_INT),          PCOL(children, COL_LONG),
    PCOL(utime, COL_DOUBLE),     PCOL(stime, COL_DOUBLE),     PCOL(cpu_usage, COL_DOUBLE),
    PCOL(memory, COL_ULL),       PCOL(read_bytes, COL_ULL),   PCOL(write_bytes, COL_ULL),
    PCOL(gpu_usage, COL_DOUBLE), PCOL(gpu_vram, COL_DOUBLE),  PCOL(gpu_utilized, COL_INT),
};

#define SCOL(n, t) {#n, t, offsetof(gt_system_row, n)}
static const struct column system_columns[] = {
    SCOL(timestamp, COL_DOUBLE),           SCOL(processes, COL_LONG),
    SCOL(utime, COL_DOUBLE),               SCOL(stime, COL_DOUBLE),
    SCOL(cpu_usage, COL_DOUBLE),           SCOL(memory_free, COL_ULL),
    SCOL(memory_used, COL_ULL),            SCOL(memory_buffers, COL_ULL),
    SCOL(memory_cached, COL_ULL),          SCOL(memory_active, COL_ULL),
    SCOL(memory_inactive, COL_ULL),        SCOL(disk_read_bytes, COL_ULL),
    SCOL(disk_write_bytes, COL_ULL),       SCOL(disk_space_total_gb, COL_DOUBLE),
    SCOL(disk_space_used_gb, COL_DOUBLE),  SCOL(disk_space_free_gb, COL_DOUBLE),
    SCOL(net_recv_bytes, COL_ULL),         SCOL(net_sent_bytes, COL_ULL),
    SCOL(gpu_usage, COL_DOUBLE),           SCOL(gpu_vram, COL_DOUBLE),
    SCOL(gpu_utilized, COL_INT),
};

#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

static json_object *columns_object(const void *rows, size_t n, size_t row_size,
                                   const struct column *cols, size_t ncols)
{
    json_object *o = json_object_new_object();
    for (size_t c = 0; c < ncols; c++) {
        json_object *a = json_object_new_array_ext((int)n);
        for (size_t i = 0; i < n; i++) {
            const char *field = (const char *)rows + i * row_size + cols[c].offset;
            json_object *v = NULL;
            switch (cols[c].type) {
            case COL_DOUBLE: v = json_new_pyfloat(*(const double *)field); break;
            case COL_INT: v = json_object_new_int64(*(const int *)field); break;
            case COL_LONG: v = json_object_new_int64(*(const long *)field); break;
            case COL_ULL: v = json_object_new_uint64(*(const unsigned long long *)field); break;
            }
            json_object_array_add(a, v);
        }
        json_object_object_add(o, cols[c].name, a);
    }
    return o;
}

static void add_string(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, json_object_new_string(v));
}

static json_object *server_object(const gt_server_info *si)
{
    json_object *o = json_object_new_object();
    add_string(o, "os", si->os);
    add_string(o, "kernel", si->kernel);
    add_string(o, "hostname", si->hostname);
    add_string(o, "cpu_model", si->cpu_model);
    json_object_object_add(o, "vcpus", json_object_new_int(si->vcpus));
    json_object_object_add(o, "vcpus_usable", json_new_pyfloat(si->vcpus_usable));
    json_object_object_add(o, "memory_mib", json_new_pyfloat(si->memory_mib));
    json_object_object_add(o, "memory_limit_mib", json_new_pyfloat(si->memory_limit_mib));
    json_object_object_add(o, "gpu_count", json_object_new_int(si->gpu_count));
    json_object *names = json_object_new_array();
    for (int i = 0; i < si->ngpu_names && i < GT_MAX_GPUS; i++)
        json_object_array_add(names, json_object_new_string(si->gpu_names[i]));
    json_object_object_add(o, "gpu_names", names);
    json_object_object_add(o, "gpu_memory_mib", json_new_pyfloat(si->gpu_memory_mib));
    add_string(o, "allocation", si->allocation);
    return o;
}

char *gt_snapshot_to_json(const gt_snapshot *s)
{
    json_object *root = json_object_new_object();
    json_object *m = json_object_new_object();
    json_object_object_add(m, "format_version", json_object_new_int(s->format_version));
    json_object *tr = json_object_new_object();
    add_string(tr, "name", "gpu-tracker");
    add_string(tr, "version", s->tracker_version);
    json_object_object_add(m, "tracker", tr);
    add_string(m, "command", s->command);
    json_object_object_add(m, "pid", json_object_new_int(s->pid));
    json_object_object_add(m, "interval", json_new_pyfloat(s->interval));
    json_object_object_add(m, "start_time", json_new_pyfloat(s->start_time));
    json_object_object_add(m, "stop_time", json_new_pyfloat(s->stop_time));
    json_object_object_add(m, "duration", json_new_pyfloat(s->duration));
    json_object_object_add(m, "exit_status",
                           s->exit_status >= 0 ? json_object_new_int(s->exit_status) : NULL);
    add_string(m, "host", s->host);
    json_object_object_add(root, "metadata", m);
    json_object_object_add(root, "server_info", server_object(&s->server));
    json_object *cloud = NULL;
    if (s->cloud.asked) {
        cloud = json_object_new_object();
        add_string(cloud, "vendor", s->cloud.vendor);
        add_string(cloud, "instance_type", s->cloud.instance_type);
        add_string(cloud, "region", s->cloud.region);
        json_object_object_add(cloud, "discovery_time",
                               json_new_pyfloat(s->cloud.discovery_time));
    }
    json_object_object_add(root, "cloud_info", cloud);
    char *summary = gt_usage_to_json(&s->usage);
    json_object *sj = summary ? json_tokener_parse(summary) : NULL;
    free(summary);
    json_object_object_add(root, "summary", sj);
    json_object_object_add(root, "process_metrics",
                           columns_object(s->series.process, s->series.nprocess,
                                          sizeof(gt_process_row), process_columns,
                                          NCOLS(process_columns)));
    json_object_object_add(root, "system_metrics",
                           columns_object(s->series.system, s->series.nsystem,
                                          sizeof(gt_system_row), system_columns,
                                          NCOLS(system_columns)));
    const char *text = sj ? json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
                                                                     JSON_C_TO_STRING_NOSLASHESCAPE)
                          : NULL;
    char *out = text ? strdup(text) : NULL;
    json_object_put(root);
    return out;
}

/* gzip (RFC 1952) of len bytes; *out malloc'd. */
static int gzip_bytes(const char *data, size_t len, unsigned char **out, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, (uLong)len) + 64;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *outlen = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

gt_status gt_snapshot_write(const gt_snapshot *s, const char *path)
{
    gt_clear_error();
    char *json = gt_snapshot_to_json(s);
    if (!json)
        return gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    gt_status st;
    if (strlen(json) > 0xFFFFFFFFu || gzip_bytes(json, strlen(json), &gz, &gzlen) < 0)
        st = gt_fail(GT_ERR_NO_MEMORY, "cannot write '%s': compressing failed", path);
    else
        st = write_file_atomic(path, gz, gzlen);
    free(gz);
    free(json);
    return st;
}

/* ---- reading -------------------------------------------------------------- */

/* The text of a snapshot's bytes: gunzipped when they are gzip, as they
 * are when plain JSON. *text is malloc'd and NUL-terminated. */
static gt_status decode_text(const unsigned char *raw, size_t got, const char *path, char **text)
{
    *text = NULL;
    if (got < 2 || raw[0] != 0x1f || raw[1] != 0x8b) {
        /* Plain JSON is accepted too (a snapshot someone gunzipped). */
        size_t i = 0;
        while (i < got && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r'))
            i++;
        if (i == got || raw[i] != '{')
            return gt_fail(GT_ERR_PARSE, "'%s' is not a snapshot: neither gzip nor JSON%s", path,
                           got == 0 ? " (it is empty)" : "");
        char *copy = malloc(got + 1);
        if (!copy)
            return gt_fail(GT_ERR_NO_MEMORY, "cannot read '%s': out of memory", path);
        memcpy(copy, raw, got);
        copy[got] = '\0';
        *text = copy;
        return GT_OK;
    }
    if (got > 0xFFFFFFFFu)
        return gt_fail(GT_ERR_PARSE, "cannot read '%s': too big", path);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return gt_fail(GT_ERR_NO_MEMORY, "cannot read '%s': out of memory", path);
    size_t cap = got * 4 + 4096, n = 0;
    char *out = malloc(cap);
    z.next_in = (Bytef *)raw;
    z.avail_in = (uInt)got;
    int rc = Z_OK;
    while (out && rc == Z_OK) {
        if (cap - n < 4096) {
            if (cap >= SNAPSHOT_MAX_BYTES) {
                rc = Z_MEM_ERROR;
                break;
            }
            char *more = realloc(out, cap * 2);
            if (!more) {
                rc = Z_MEM_ERROR;
                break;
            }
            out = more;
            cap *= 2;
        }
        z.next_out = (Bytef *)out + n;
        z.avail_out = (uInt)(cap - n - 1);
        rc = inflate(&z, Z_NO_FLUSH);
        n = z.total_out;
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
            break; /* the input ended before the stream did */
        if (rc == Z_BUF_ERROR)
            rc = Z_OK; /* more room needed */
    }
    inflateEnd(&z);
    if (!out || rc != Z_STREAM_END) {
        free(out);
        if (!out || rc == Z_MEM_ERROR)
            return gt_fail(GT_ERR_PARSE, "cannot read '%s': too big or out of memory", path);
        return gt_fail(GT_ERR_PARSE, "'%s' is not a whole snapshot: %s", path,
                       rc == Z_DATA_ERROR ? "the gzip data is corrupt"
                                          : "the gzip data is truncated");
    }
    out[n] = '\0';
    *text = out;
    return GT_OK;
}

/* A reader that keeps the first problem (with its key path) only. */
struct reader {
    gt_status status;
    const char *file;
};

static void bad(struct reader *r, const char *fmt, ...) GT_PRINTF(2, 3);
static void bad(struct reader *r, const char *fmt, ...)
{
    if (r->status != GT_OK)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->status = gt_fail(GT_ERR_PARSE, "'%s' is not a valid snapshot: %s", r->file, msg);
}

static json_object *get(struct reader *r, json_object *o, const char *key, json_type type,
                        const char *where)
{
    json_object *v = NULL;
    if (!o || r->status != GT_OK)
        return NULL;
    char path[256];
    snprintf(path, sizeof path, "%s%s%s", where, *where ? "." : "", key);
    if (!json_object_object_get_ex(o, key, &v)) {
        bad(r, "missing key \"%s\"%s", path, "");
        return NULL;
    }
    int ok = json_object_is_type(v, type) ||
             (type == json_type_double && json_object_is_type(v, json_type_int));
    if (!ok) {
        bad(r, "\"%s\" should be %s", path, json_type_to_name(type));
        return NULL;
    }
    return v;
}

static void get_str(struct reader *r, json_object *o, const char *key, const char *where,
                    char *out, size_t cap)
{
    json_object *v = get(r, o, key, json_type_string, where);
    if (v)
        snprintf(out, cap, "%s", json_object_get_string(v));
}

static double get_num(struct reader *r, json_object *o, const char *key, const char *where)
{
    json_object *v = get(r, o, key, json_type_double, where);
    return v ? json_object_get_double(v) : 0;
}

static long get_int(struct reader *r, json_object *o, const char *key, const char *where)
{
    json_object *v = get(r, o, key, json_type_int, where);
    return v ? (long)json_object_get_int64(v) : 0;
}

/* Reads a series' columns into n rows of row_size; *rows malloc'd. */
static size_t read_columns(struct reader *r, json_object *o, const char *where,
                           const struct column *cols, size_t ncols, size_t row_size, void **rows)
{
    *rows = NULL;
    if (!o || r->status != GT_OK)
        return 0;
    size_t n = 0;
    for (size_t c = 0; c < ncols; c++) {
        json_object *a = get(r, o, cols[c].name, json_type_array, where);
        if (!a)
            return 0;
        size_t len = json_object_array_length(a);
        if (c == 0) {
            n = len;
            *rows = calloc(n ? n : 1, row_size);
            if (!*rows) {
                r->status = gt_fail(GT_ERR_NO_MEMORY, "out of memory");
                return 0;
            }
        } else if (len != n) {
            char detail[128];
            snprintf(detail, sizeof detail, " has %zu values, \"%s\" %zu", len, cols[0].name, n);
            char path[128];
            snprintf(path, sizeof path, "%s.%s", where, cols[c].name);
            bad(r, "\"%s\"%s", path, detail);
            return 0;
        }
        for (size_t i = 0; i < n; i++) {
            json_object *v = json_object_array_get_idx(a, i);
            char *field = (char *)*rows + i * row_size + cols[c].offset;
            int is_int = json_object_is_type(v, json_type_int);
            if (!is_int && !(cols[c].type == COL_DOUBLE && json_object_is_type(v, json_type_double))) {
                char path[160];
                snprintf(path, sizeof path, "%s.%s[%zu]", where, cols[c].name, i);
                bad(r, "\"%s\" should be %s", path,
                    cols[c].type == COL_DOUBLE ? "a number" : "an integer");
                return 0;
            }
            switch (cols[c].type) {
            case COL_DOUBLE: *(double *)field = json_object_get_double(v); break;
            case COL_INT: *(int *)field = (int)json_object_get_int64(v); break;
            case COL_LONG: *(long *)field = (long)json_object_get_int64(v); break;
            case COL_ULL:
                if (json_object_get_int64(v) < 0) {
                    char path[160];
                    snprintf(path, sizeof path, "%s.%s[%zu]", where, cols[c].name, i);
                    bad(r, "\"%s\" should be %s", path, "a count (not negative)");
                    return 0;
                }
                *(unsigned long long *)field = json_object_get_uint64(v);
                break;
            }
        }
    }
    return n;
}

static void read_server(struct reader *r, json_object *o, gt_server_info *si)
{
    const char *w = "server_info";
    get_str(r, o, "os", w, si->os, sizeof si->os);
    get_str(r, o, "kernel", w, si->kernel, sizeof si->kernel);
    get_str(r, o, "hostname", w, si->hostname, sizeof si->hostname);
    get_str(r, o, "cpu_model", w, si->cpu_model, sizeof si->cpu_model);
    si->vcpus = (int)get_int(r, o, "vcpus", w);
    si->vcpus_usable = get_num(r, o, "vcpus_usable", w);
    si->memory_mib = get_num(r, o, "memory_mib", w);
    si->memory_limit_mib = get_num(r, o, "memory_limit_mib", w);
    si->gpu_count = (int)get_int(r, o, "gpu_count", w);
    json_object *names = get(r, o, "gpu_names", json_type_array, w);
    for (size_t i = 0; names && i < json_object_array_length(names) && i < GT_MAX_GPUS; i++) {
        json_object *v = json_object_array_get_idx(names, i);
        if (!json_object_is_type(v, json_type_string)) {
            bad(r, "\"%s\" should be %s", "server_info.gpu_names", "a list of strings");
            return;
        }
        snprintf(si->gpu_names[si->ngpu_names++], sizeof si->gpu_names[0], "%s",
                 json_object_get_string(v));
    }
    si->gpu_memory_mib = get_num(r, o, "gpu_memory_mib", w);
    get_str(r, o, "allocation", w, si->allocation, sizeof si->allocation);
}

static void read_snapshot(struct reader *r, json_object *root, gt_snapshot *s)
{
    if (!json_object_is_type(root, json_type_object)) {
        bad(r, "%s%s", "the top level is not an object", "");
        return;
    }
    json_object *m = get(r, root, "metadata", json_type_object, "");
    s->format_version = (int)get_int(r, m, "format_version", "metadata");
    if (r->status == GT_OK && s->format_version != GT_SNAPSHOT_FORMAT) {
        char v[64];
        snprintf(v, sizeof v, "%d", s->format_version);
        char detail[96];
        snprintf(detail, sizeof detail, "; this gpu-tracker reads version %d", GT_SNAPSHOT_FORMAT);
        bad(r, "format version %s%s", v, detail);
        return;
    }
    json_object *tr = get(r, m, "tracker", json_type_object, "metadata");
    get_str(r, tr, "version", "metadata.tracker", s->tracker_version, sizeof s->tracker_version);
    get_str(r, m, "command", "metadata", s->command, sizeof s->command);
    s->pid = (int)get_int(r, m, "pid", "metadata");
    s->interval = get_num(r, m, "interval", "metadata");
    s->start_time = get_num(r, m, "start_time", "metadata");
    s->stop_time = get_num(r, m, "stop_time", "metadata");
    s->duration = get_num(r, m, "duration", "metadata");
    json_object *es = NULL;
    s->exit_status = -1;
    if (m && r->status == GT_OK && json_object_object_get_ex(m, "exit_status", &es) && es)
        s->exit_status = (int)get_int(r, m, "exit_status", "metadata");
    get_str(r, m, "host", "metadata", s->host, sizeof s->host);
    if (r->status == GT_OK && !(s->interval > 0))
        bad(r, "\"%s\" should be %s", "metadata.interval", "a positive number of seconds");

    read_server(r, get(r, root, "server_info", json_type_object, ""), &s->server);

    json_object *cloud = NULL;
    if (r->status == GT_OK && !json_object_object_get_ex(root, "cloud_info", &cloud))
        bad(r, "missing key \"%s\"%s", "cloud_info", "");
    if (r->status == GT_OK && cloud) {
        if (!json_object_is_type(cloud, json_type_object)) {
            bad(r, "\"%s\" should be %s", "cloud_info", "an object or null");
        } else {
            s->cloud.asked = 1;
            get_str(r, cloud, "vendor", "cloud_info", s->cloud.vendor, sizeof s->cloud.vendor);
            get_str(r, cloud, "instance_type", "cloud_info", s->cloud.instance_type,
                    sizeof s->cloud.instance_type);
            get_str(r, cloud, "region", "cloud_info", s->cloud.region, sizeof s->cloud.region);
            s->cloud.discovery_time = get_num(r, cloud, "discovery_time", "cloud_info");
            s->cloud.found = strcmp(s->cloud.vendor, "unknown") != 0;
        }
    }

    json_object *summary = get(r, root, "summary", json_type_object, "");
    if (summary && gt_usage_from_json(json_object_to_json_string(summary), &s->usage) != GT_OK) {
        char why[300];
        snprintf(why, sizeof why, "%s", gt_last_error());
        bad(r, "\"summary\": %s%s", why, "");
    }

    void *rows;
    s->series.interval = s->interval;
    s->series.start_time = s->start_time;
    s->series.nprocess = read_columns(r, get(r, root, "process_metrics", json_type_object, ""),
                                      "process_metrics", process_columns, NCOLS(process_columns),
                                      sizeof(gt_process_row), &rows);
    s->series.process = rows;
    s->series.nsystem = read_columns(r, get(r, root, "system_metrics", json_type_object, ""),
                                     "system_metrics", system_columns, NCOLS(system_columns),
                                     sizeof(gt_system_row), &rows);
    s->series.system = rows;
}

gt_status snapshot_read_memory(const void *data, size_t len, const char *name, gt_snapshot **out)
{
    gt_clear_error();
    *out = NULL;
    char *text;
    gt_status st = decode_text(data, len, name, &text);
    if (st != GT_OK)
        return st;
    enum json_tokener_error jerr = json_tokener_success;
    json_object *root = json_tokener_parse_verbose(text, &jerr);
    free(text);
    if (!root)
        return gt_fail(GT_ERR_PARSE, "'%s' is not a valid snapshot: not JSON (%s)", name,
                       json_tokener_error_desc(jerr));
    gt_snapshot *s = calloc(1, sizeof *s);
    if (!s) {
        json_object_put(root);
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    }
    struct reader r = {GT_OK, name};
    read_snapshot(&r, root, s);
    json_object_put(root);
    if (r.status != GT_OK) {
        gt_snapshot_free(s);
        return r.status;
    }
    *out = s;
    return GT_OK;
}

gt_status gt_snapshot_read(const char *path, gt_snapshot **out)
{
    gt_clear_error();
    *out = NULL;
    char *raw = NULL;
    size_t len = 0;
    gt_status st = read_regular_file(path, SNAPSHOT_MAX_FILE_BYTES, "snapshot", &raw, &len);
    if (st != GT_OK)
        return st;
    st = snapshot_read_memory(raw, len, path, out);
    free(raw);
    return st;
}

void gt_snapshot_free(gt_snapshot *s)
{
    if (!s)
        return;
    free((void *)s->series.process);
    free((void *)s->series.system);
    free(s);
}
