/* snapshot.c - a run as gzipped JSON (docs/snapshot.md has the format).
 *
 * Writing streams: the small parts (metadata, server, cloud, summary) are
 * built with json-c, the series are written a column at a time from a row
 * source, and the text goes through zlib into the file as it is made, so a
 * long run's snapshot costs no more memory than a short one's.
 *
 * Reading is bounded before anything is built (docs/snapshot.md, "Limits"):
 * the file's size, its gunzipped size, the nesting depth, every array's
 * length (counted by json_span.c without parsing) and the rows; unknown
 * keys are skipped, never parsed; each known part is parsed on its own, a
 * series one column at a time; every value is checked against its range. */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/file_io.h"
#include "common/internal.h"
#include "common/json_read.h"
#include "common/json_span.h"
#include "common/json_stream.h"
#include "common/json_write.h"
#include "common/pyfloat.h"
#include "common/row_source.h"
#include "common/series_columns.h"
#include "snapshot/snapshot.h"
#include "common/summary/cgroup_json.h"
#include "common/summary/run_parts_json.h"
#include "common/summary/snapshot_parts.h"
#include "common/summary/usage_json.h"
#include "common/summary/who_json.h"
#include "snapshot/parts_read.h"
#include "snapshot/snapshot_rt.h"

/* ---- limits of a read ----------------------------------------------------- */

/* What a row of both series takes as JSON text, with room to spare (ours:
 * about 250 bytes), and what everything but the rows may take. */
#define BYTES_PER_ROW 512
#define FIXED_BYTES ((size_t)32 << 20)
#define METADATA_MAX ((size_t)8 << 20) /* a command line of up to 4 MiB */
#define COMMAND_MAX ((size_t)4 << 20)
#define SERVER_INFO_MAX ((size_t)1 << 20)
#define CLOUD_INFO_MAX ((size_t)64 << 10)
#define SUMMARY_MAX ((size_t)16 << 20)

/* The most text (and file) a snapshot of max_rows rows may have. */
static size_t text_limit(size_t max_rows)
{
    return FIXED_BYTES + max_rows * BYTES_PER_ROW;
}

/* ---- writing ---------------------------------------------------------------- */

static json_object *server_object(const gt_server_info *si, const char *filesystems)
{
    json_object *o = json_object_new_object();
    snapshot_add_text(o, "os", si->os);
    snapshot_add_text(o, "kernel", si->kernel);
    snapshot_add_text(o, "hostname", si->hostname);
    snapshot_add_text(o, "cpu_model", si->cpu_model);
    json_object_object_add(o, "vcpus", json_object_new_int(si->vcpus));
    json_object_object_add(o, "vcpus_usable", json_new_pyfloat(si->vcpus_usable));
    json_object_object_add(o, "memory_mib", json_new_pyfloat(si->memory_mib));
    json_object_object_add(o, "memory_limit_mib", json_new_pyfloat(si->memory_limit_mib));
    json_object_object_add(o, "gpu_count", json_object_new_int(si->gpu_count));
    json_object *names = json_object_new_array();
    for (int i = 0; si->gpu_names && i < si->ngpu_names; i++)
        json_object_array_add(names, json_new_text(si->gpu_names[i]));
    json_object_object_add(o, "gpu_names", names);
    json_object_object_add(o, "gpu_memory_mib", json_new_pyfloat(si->gpu_memory_mib));
    /* Only the three values readers take: a struct filled by hand may
     * have left it empty. */
    const char *a = si->allocation;
    snapshot_add_text(o, "allocation", strcmp(a, "dedicated") && strcmp(a, "shared") ? "unknown" : a);
    if (filesystems) /* 0.3: absent from older snapshots */
        snapshot_add_text(o, "filesystems", filesystems);
    return o;
}

/* The run's job (gt_job_info): ids as Slurm's text, null when not set. */
static json_object *job_object(const gt_job_info *j)
{
    json_object *o = json_object_new_object();
    const struct {
        const char *key, *value;
    } ids[] = {
        {"scheduler", j->scheduler}, {"job_id", j->job_id}, {"array_job_id", j->array_job_id},
        {"array_task_id", j->array_task_id}, {"step_id", j->step_id},
        {"task_rank", j->task_rank},
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        json_object_object_add(o, ids[i].key, ids[i].value[0] ? json_new_text(ids[i].value) : NULL);
    json_object_object_add(o, "ntasks", j->ntasks > 0 ? json_object_new_int(j->ntasks) : NULL);
    json_object_object_add(o, "node", j->node[0] ? json_new_text(j->node) : NULL);
    /* what Slurm gave the step (format 1.1's keys; null: not said) */
    json_object_object_add(o, "cpus_per_task",
                           j->cpus_per_task > 0 ? json_object_new_int(j->cpus_per_task) : NULL);
    json_object_object_add(o, "cpus_on_node",
                           j->cpus_on_node > 0 ? json_object_new_int(j->cpus_on_node) : NULL);
    json_object_object_add(o, "mem_per_node_mib", j->mem_per_node_mib > 0
                                                      ? json_object_new_int64(j->mem_per_node_mib)
                                                      : NULL);
    json_object_object_add(o, "mem_per_cpu_mib", j->mem_per_cpu_mib > 0
                                                     ? json_object_new_int64(j->mem_per_cpu_mib)
                                                     : NULL);
    return o;
}

static json_object *metadata_object(const gt_snapshot *s)
{
    json_object *m = json_object_new_object();
    json_object_object_add(m, "format_version", json_object_new_int(s->format_version));
    json_object *tr = json_object_new_object();
    snapshot_add_text(tr, "name", "gpu-tracker");
    snapshot_add_text(tr, "version", s->tracker_version);
    json_object_object_add(m, "tracker", tr);
    snapshot_add_text(m, "command", s->command);
    json_object_object_add(m, "pid", json_object_new_int(s->pid));
    json_object_object_add(m, "interval", json_new_pyfloat(s->interval));
    json_object_object_add(m, "start_time", json_new_pyfloat(s->start_time));
    json_object_object_add(m, "stop_time", json_new_pyfloat(s->stop_time));
    json_object_object_add(m, "duration", json_new_pyfloat(s->duration));
    json_object_object_add(m, "exit_status",
                           s->exit_status >= 0 ? json_object_new_int(s->exit_status) : NULL);
    snapshot_add_text(m, "host", s->host);
    if (s->job.scheduler[0] || s->job.job_id[0]) /* 0.3: only for a run in a batch job */
        json_object_object_add(m, "job", job_object(&s->job));
    if (s->cgroup.struct_size) /* 0.3 */
        json_object_object_add(m, "cgroup", cgroup_json_object(&s->cgroup));
    if (s->cpu_energy.struct_size) /* 0.3 */
        json_object_object_add(m, "cpu_energy", cpu_energy_json_object(&s->cpu_energy));
    if (s->gpu_run.struct_size) /* 0.3 */
        json_object_object_add(m, "gpu_run", gpu_run_json_object(&s->gpu_run));
    /* 0.5: who held it */
    if (s->at_peak[0].available || s->at_peak[1].available || s->at_peak[0].unseen_holder)
        json_object_object_add(m, "at_peak", at_peak_json_object(s->at_peak));
    if (s->gpu_idle.struct_size && (s->gpu_idle.ndevices > 0 || s->gpu_idle.requested > 0))
        json_object_object_add(m, "gpu_idle", gpu_idle_json_object(&s->gpu_idle));
    if (s->processes.available)
        json_object_object_add(m, "processes", processes_json_object(&s->processes));
    if (s->ntop_processes)
        json_object_object_add(m, "top_processes",
                               top_processes_json_object(s->top_processes, s->ntop_processes));
    return m;
}


/* One value of a column as JSON text. */
static size_t format_value(const struct series_column *c, const void *row, char *out, size_t cap)
{
    const char *field = (const char *)row + c->offset;
    switch (c->type) {
    case COLUMN_DOUBLE: {
        double v = *(const double *)field;
        if (!isfinite(v))
            return (size_t)snprintf(out, cap, "null");
        pyfloat_repr(v, out, cap);
        return strlen(out);
    }
    case COLUMN_INT: return (size_t)snprintf(out, cap, "%d", *(const int *)field);
    case COLUMN_LONG: return (size_t)snprintf(out, cap, "%ld", *(const long *)field);
    case COLUMN_ULL: return (size_t)snprintf(out, cap, "%llu", *(const unsigned long long *)field);
    }
    return 0;
}

/* A series, column by column: {"name":[v,v,...],...}. Each column is a pass
 * over the rows, a batch at a time. */
static void put_series(struct json_stream *k, const struct row_source *rows, gt_series_kind kind)
{
    const struct series_columns *cols = series_columns(kind);
    size_t n = rows->count[kind];
    char *batch = malloc(ROW_BATCH * cols->row_size);
    if (!batch) {
        k->failed = ENOMEM;
        return;
    }
    stream_puts(k, "{");
    for (size_t c = 0; c < cols->ncolumns && !k->failed; c++) {
        const struct series_column *col = &cols->columns[c];
        char head[64];
        snprintf(head, sizeof head, "%s\"%s\":[", c ? "," : "", col->name);
        stream_puts(k, head);
        for (size_t first = 0; first < n && !k->failed; first += ROW_BATCH) {
            size_t take = n - first < ROW_BATCH ? n - first : ROW_BATCH;
            if (rows->read(rows, kind, first, take, batch) < 0) {
                k->failed = errno ? errno : EIO;
                break;
            }
            char text[ROW_BATCH * 26];
            size_t len = 0;
            for (size_t i = 0; i < take; i++) {
                if (first + i > 0)
                    text[len++] = ',';
                len += format_value(col, batch + i * cols->row_size, text + len, 25);
            }
            stream_put(k, text, len);
        }
        stream_puts(k, "]");
    }
    stream_puts(k, "}");
    free(batch);
}

/* The whole document into k, in format f. */
static void put_snapshot(struct json_stream *k, const gt_snapshot *s, const struct row_source *rows,
                         gt_snapshot_format f)
{
    if (f != GT_SNAPSHOT_GPU_TRACKER) {
        snapshot_rt_put(k, s, rows, f);
        return;
    }
    stream_puts(k, "{\"metadata\":");
    stream_put_object(k, metadata_object(s));
    stream_puts(k, ",\"server_info\":");
    stream_put_object(k, server_object(&s->server, s->filesystems));
    stream_puts(k, ",\"cloud_info\":");
    stream_put_object(k, snapshot_cloud_object(&s->cloud));
    stream_puts(k, ",\"summary\":");
    json_object *summary = usage_json_object(&s->usage);
    if (!summary)
        k->failed = ENOMEM;
    stream_put_object(k, summary);
    stream_puts(k, ",\"process_metrics\":");
    put_series(k, rows, GT_SERIES_KIND_PROCESS);
    stream_puts(k, ",\"system_metrics\":");
    put_series(k, rows, GT_SERIES_KIND_SYSTEM);
    if (s->nother_tasks) {
        /* A merged job: the other tasks, each a whole snapshot. */
        stream_puts(k, ",\"tasks\":[");
        for (size_t i = 0; i < s->nother_tasks; i++) {
            struct row_source task_rows;
            row_source_from_series(&task_rows, &s->other_tasks[i]->series);
            if (i)
                stream_puts(k, ",");
            put_snapshot(k, s->other_tasks[i], &task_rows, f);
        }
        stream_puts(k, "]");
    }
    stream_puts(k, "}");
}

gt_status snapshot_write_rows(const gt_snapshot *s, const struct row_source *rows,
                              gt_snapshot_format format, const char *path)
{
    if (format != GT_SNAPSHOT_GPU_TRACKER && format != GT_SNAPSHOT_RESOURCE_TRACKER &&
        format != GT_SNAPSHOT_RESOURCE_TRACKER_05)
        return error_set(GT_ERR_INVALID_ARGUMENT, "unknown snapshot format %d; valid: "
                         "GT_SNAPSHOT_GPU_TRACKER, GT_SNAPSHOT_RESOURCE_TRACKER(_05)", (int)format);
    struct output_target t;
    gt_status st = output_resolve(path, &t);
    struct output_stream stream;
    if (st == GT_OK)
        st = output_stream_begin(&t, path, &stream);
    if (st != GT_OK) {
        output_target_close(&t);
        return st;
    }
    struct json_stream *k = calloc(1, sizeof *k);
    if (!k || deflateInit2(&k->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(k);
        output_stream_abort(&stream);
        output_target_close(&t);
        return error_set(GT_ERR_NO_MEMORY, "cannot write '%s': out of memory", path);
    }
    k->put = put_gzip;
    k->stream = &stream;
    put_snapshot(k, s, rows, format);
    if (!k->failed && finish_gzip(k) < 0)
        k->failed = errno ? errno : EIO;
    deflateEnd(&k->z);
    if (k->failed) {
        int e = k->failed;
        output_stream_abort(&stream);
        st = error_set(e == ENOMEM ? GT_ERR_NO_MEMORY : GT_ERR_IO, "cannot write '%s': %s", path,
                       strerror(e));
    } else {
        st = output_stream_commit(&stream);
    }
    free(k);
    output_target_close(&t);
    return st;
}

gt_status gt_snapshot_write(const gt_snapshot *s, gt_snapshot_format format, const char *path)
{
    error_clear();
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    return snapshot_write_rows(s, &rows, format, path);
}

char *gt_snapshot_to_json(const gt_snapshot *s, gt_snapshot_format format)
{
    if (format != GT_SNAPSHOT_GPU_TRACKER && format != GT_SNAPSHOT_RESOURCE_TRACKER &&
        format != GT_SNAPSHOT_RESOURCE_TRACKER_05)
        return NULL;
    struct json_stream k;
    memset(&k, 0, sizeof k);
    buf_init(&k.text, 65536);
    k.put = put_memory;
    struct row_source rows;
    row_source_from_series(&rows, &s->series);
    put_snapshot(&k, s, &rows, format);
    if (k.failed) {
        buf_free(&k.text);
        return NULL;
    }
    return buf_take(&k.text);
}

/* ---- reading ---------------------------------------------------------------- */

/* The text of a snapshot's bytes: gunzipped when they are gzip (one
 * member, nothing after it), as they are when plain JSON. *text is
 * malloc'd, NUL-terminated, *len bytes, no NUL inside. raw is taken. */
static gt_status decode_text(struct json_reader *r, char *raw, size_t got, size_t max,
                             char **text, size_t *len)
{
    *text = NULL;
    const unsigned char *u = (const unsigned char *)raw;
    if (got < 2 || u[0] != 0x1f || u[1] != 0x8b) {
        /* Plain JSON is accepted too (a snapshot someone gunzipped). */
        size_t i = 0;
        while (i < got && (raw[i] == ' ' || raw[i] == '\n' || raw[i] == '\t' || raw[i] == '\r'))
            i++;
        if (i == got || raw[i] != '{') {
            free(raw);
            json_read_fail(r, "%s", got == 0 ? "it is empty" : "neither gzip nor JSON");
            return r->status;
        }
        *text = raw;
        *len = got;
    } else {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 15 + 16) != Z_OK) {
            free(raw);
            return r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
        }
        size_t cap = got * 4 + 4096 < max + 1 ? got * 4 + 4096 : max + 1, n = 0;
        char *out = malloc(cap + 1);
        z.next_in = (Bytef *)raw;
        z.avail_in = got > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uInt)got;
        int rc = Z_OK;
        while (out && rc == Z_OK) {
            if (n == cap) {
                if (cap > max)
                    break; /* more than may come out */
                size_t ncap = cap * 2 < max + 1 ? cap * 2 : max + 1;
                char *more = realloc(out, ncap + 1);
                if (!more) {
                    rc = Z_MEM_ERROR;
                    break;
                }
                out = more;
                cap = ncap;
            }
            size_t room = cap - n > 0x40000000u ? 0x40000000u : cap - n;
            z.next_out = (Bytef *)out + n;
            z.avail_out = (uInt)room;
            rc = inflate(&z, Z_NO_FLUSH);
            n += room - z.avail_out;
            if (rc == Z_BUF_ERROR && z.avail_in > 0)
                rc = Z_OK; /* more room needed */
        }
        size_t trailing = z.avail_in;
        inflateEnd(&z);
        free(raw);
        const char *why = !out || rc == Z_MEM_ERROR ? "out of memory"
                          : n > max                 ? NULL
                          : rc == Z_DATA_ERROR      ? "the gzip data is corrupt"
                          : rc != Z_STREAM_END      ? "the gzip data is truncated (not a whole file)"
                          : trailing                ? "something follows the gzip data (another "
                                                      "member or garbage)"
                                                    : "";
        if (!why) {
            free(out);
            json_read_fail(r, "it holds more than %zu bytes of JSON, the most a snapshot of "
                              "this many rows may (docs/snapshot.md, \"Limits\")", max);
            return r->status;
        }
        if (*why) {
            free(out);
            if (!out || rc == Z_MEM_ERROR)
                return r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
            json_read_fail(r, "%s", why);
            return r->status;
        }
        out[n] = '\0';
        *text = out;
        *len = n;
    }
    if (strlen(*text) != *len) {
        free(*text);
        *text = NULL;
        json_read_fail(r, "it holds a NUL byte");
    }
    return r->status;
}

/* The top-level parts, found by json_span (see the file comment). */
enum part { METADATA, SERVER_INFO, CLOUD_INFO, SUMMARY, PROCESS_METRICS, SYSTEM_METRICS, NPARTS };
static const char *const part_names[NPARTS] = {"metadata",   "server_info",     "cloud_info",
                                               "summary",    "process_metrics", "system_metrics"};

struct parts {
    const char *text;
    const char *const *names;
    size_t nnames;
    struct json_span spans[32];
    int seen[32];
    const char *duplicate;
};

/* Matches a member's key against the names we want (keys are compared as
 * written: ours have no escapes); a name seen twice is refused. */
static int on_member(void *ctx, struct json_span key, struct json_span value)
{
    struct parts *p = ctx;
    const char *k = p->text + key.start + 1;
    size_t klen = key.end - key.start - 2;
    for (size_t i = 0; i < p->nnames; i++)
        if (strlen(p->names[i]) == klen && memcmp(p->names[i], k, klen) == 0) {
            if (p->seen[i]) {
                p->duplicate = p->names[i];
                return 1;
            }
            p->seen[i] = 1;
            p->spans[i] = value;
        }
    return 0; /* unknown keys: skipped, never parsed */
}

/* Finds the named members of the object at span, the first nrequired of
 * them required (the rest may be absent: p->seen says); 0, or -1 after a
 * failure. */
static int find_members_some(struct json_reader *r, const char *text, struct json_span object,
                             const char *where, const char *const *names, size_t nnames,
                             size_t nrequired, struct parts *p)
{
    memset(p, 0, sizeof *p);
    p->text = text;
    p->names = names;
    p->nnames = nnames;
    char err[160];
    int rc = json_span_members(text, object, JSON_READ_MAX_DEPTH, on_member, p, err, sizeof err);
    if (rc < 0)
        json_read_fail(r, "%s%smalformed JSON (%s)", where, *where ? " is " : "", err);
    else if (rc > 0)
        json_read_fail(r, "key \"%s%s%s\" appears twice", where, *where ? "." : "", p->duplicate);
    for (size_t i = 0; r->status == GT_OK && i < nrequired; i++)
        if (!p->seen[i])
            json_read_fail(r, "missing key \"%s%s%s\"", where, *where ? "." : "", names[i]);
    return r->status == GT_OK ? 0 : -1;
}

/* Finds the named members, every one required. */
static int find_members(struct json_reader *r, const char *text, struct json_span object,
                        const char *where, const char *const *names, size_t nnames,
                        struct parts *p)
{
    return find_members_some(r, text, object, where, names, nnames, nnames, p);
}


/* One id of metadata.job: null, or a string of the characters allowed
 * (what Slurm sets; a file from another user can put nothing else there). */
static void read_job_text(struct json_reader *r, json_object *job, const char *key,
                          const char *allowed, char *out, size_t cap)
{
    json_object *v = NULL;
    out[0] = '\0';
    if (r->status != GT_OK || !json_object_object_get_ex(job, key, &v) || !v)
        return;
    const char *text = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (!text || strlen(text) >= cap || text[strspn(text, allowed)] != '\0') {
        json_read_fail(r, "\"metadata.job.%s\" should be null or a string of at most %zu of "
                          "these characters: %s", key, cap - 1, allowed);
        return;
    }
    memcpy(out, text, strlen(text) + 1);
}

/* metadata.job (0.3): optional; absent or null for a run outside a batch
 * job. */
static void read_job(struct json_reader *r, json_object *m, gt_job_info *j)
{
    memset(j, 0, sizeof *j);
    j->struct_size = sizeof *j;
    json_object *job = NULL;
    if (r->status != GT_OK || !m || !json_object_object_get_ex(m, "job", &job) || !job)
        return;
    if (!json_object_is_type(job, json_type_object)) {
        json_read_fail(r, "\"metadata.job\" should be an object or null");
        return;
    }
    static const char digits[] = "0123456789";
    static const char name[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
    read_job_text(r, job, "scheduler", "abcdefghijklmnopqrstuvwxyz", j->scheduler,
                  sizeof j->scheduler);
    read_job_text(r, job, "job_id", digits, j->job_id, sizeof j->job_id);
    read_job_text(r, job, "array_job_id", digits, j->array_job_id, sizeof j->array_job_id);
    read_job_text(r, job, "array_task_id", digits, j->array_task_id, sizeof j->array_task_id);
    /* a number, or Slurm's special steps by name (batch, extern, interactive) */
    read_job_text(r, job, "step_id", "0123456789abcdefghijklmnopqrstuvwxyz", j->step_id,
                  sizeof j->step_id);
    read_job_text(r, job, "task_rank", digits, j->task_rank, sizeof j->task_rank);
    read_job_text(r, job, "node", name, j->node, sizeof j->node);
    json_object *n = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(job, "ntasks", &n) && n)
        j->ntasks = (int)json_read_integer(r, job, "ntasks", "metadata.job", 1, 1000000);
    if (r->status == GT_OK && json_object_object_get_ex(job, "cpus_per_task", &n) && n)
        j->cpus_per_task = (int)json_read_integer(r, job, "cpus_per_task", "metadata.job", 1,
                                                  1000000);
    if (r->status == GT_OK && json_object_object_get_ex(job, "cpus_on_node", &n) && n)
        j->cpus_on_node = (int)json_read_integer(r, job, "cpus_on_node", "metadata.job", 1,
                                                 1000000);
    if (r->status == GT_OK && json_object_object_get_ex(job, "mem_per_node_mib", &n) && n)
        j->mem_per_node_mib = (long long)json_read_integer(r, job, "mem_per_node_mib",
                                                           "metadata.job", 1, 1LL << 30);
    if (r->status == GT_OK && json_object_object_get_ex(job, "mem_per_cpu_mib", &n) && n)
        j->mem_per_cpu_mib = (long long)json_read_integer(r, job, "mem_per_cpu_mib",
                                                          "metadata.job", 1, 1LL << 30);
}

/* metadata.cgroup (0.3): optional. */
static void read_cgroup(struct json_reader *r, json_object *m, gt_cgroup_usage *c)
{
    memset(c, 0, sizeof *c);
    json_object *o = NULL;
    if (r->status != GT_OK || !m || !json_object_object_get_ex(m, "cgroup", &o) || !o)
        return;
    c->struct_size = sizeof *c;
    cgroup_json_read(r, o, "metadata.cgroup", c);
}

/* metadata.gpu_run (0.3): optional. */
static void read_gpu_run(struct json_reader *r, json_object *m, gt_gpu_run *g)
{
    json_object *o;
    g->struct_size = 0;
    if (r->status != GT_OK || !m || !json_object_object_get_ex(m, "gpu_run", &o) || !o)
        return;
    g->struct_size = sizeof *g;
    gpu_run_json_read(r, o, "metadata.gpu_run", g);
}

/* metadata.cpu_energy (0.3): optional. */
static void read_cpu_energy(struct json_reader *r, json_object *m, gt_cpu_energy *e)
{
    memset(e, 0, sizeof *e);
    json_object *o = NULL;
    if (r->status != GT_OK || !m || !json_object_object_get_ex(m, "cpu_energy", &o) || !o)
        return;
    e->struct_size = sizeof *e;
    cpu_energy_json_read(r, o, "metadata.cpu_energy", e);
}

/* metadata's who-held-it parts (0.5): each optional. */
static void read_who(struct json_reader *r, json_object *m, gt_snapshot *s)
{
    json_object *o = NULL;
    if (r->status == GT_OK && m && json_object_object_get_ex(m, "at_peak", &o) && o)
        at_peak_json_read(r, o, "metadata.at_peak", s->at_peak);
    if (r->status == GT_OK && m && json_object_object_get_ex(m, "gpu_idle", &o) && o)
        gpu_idle_json_read(r, o, "metadata.gpu_idle", &s->gpu_idle);
    if (r->status == GT_OK && m && json_object_object_get_ex(m, "processes", &o) && o)
        processes_json_read(r, o, "metadata.processes", &s->processes);
    if (r->status == GT_OK && m && json_object_object_get_ex(m, "top_processes", &o) && o)
        s->top_processes = top_processes_json_read(r, o, "metadata.top_processes",
                                                   &s->ntop_processes);
}

static void read_metadata(struct json_reader *r, json_object *m, gt_snapshot *s)
{
    const char *w = "metadata";
    if (r->status == GT_OK && !json_object_is_type(m, json_type_object)) {
        json_read_fail(r, "\"metadata\" should be an object");
        return;
    }
    /* The version first: a file of another version is not read further. */
    json_object *v = json_read_member(r, m, "format_version", json_type_int, w);
    if (v && !(json_object_get_int64(v) == GT_SNAPSHOT_FORMAT &&
               json_object_get_uint64(v) == GT_SNAPSHOT_FORMAT)) {
        json_read_fail(r, "format version %s; this gpu-tracker reads version %d",
                       json_object_get_string(v), GT_SNAPSHOT_FORMAT);
        return;
    }
    s->format_version = GT_SNAPSHOT_FORMAT;
    json_object *tr = json_read_member(r, m, "tracker", json_type_object, w);
    json_read_string(r, tr, "version", "metadata.tracker", s->tracker_version,
                     sizeof s->tracker_version);
    s->command = json_read_strdup(r, m, "command", w, COMMAND_MAX);
    s->pid = (int)json_read_integer(r, m, "pid", w, 0, 4194304);
    s->interval = json_read_number(r, m, "interval", w, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
    s->start_time = json_read_number(r, m, "start_time", w, 0, 1e10);
    s->stop_time = json_read_number(r, m, "stop_time", w, 0, 1e10);
    s->duration = json_read_number(r, m, "duration", w, 0, 1e10);
    json_object *es = NULL;
    s->exit_status = -1;
    if (m && json_object_object_get_ex(m, "exit_status", &es) && es)
        s->exit_status = (int)json_read_integer(r, m, "exit_status", w, 0, 255);
    else if (m && !json_object_object_get_ex(m, "exit_status", NULL))
        json_read_fail(r, "missing key \"metadata.exit_status\"");
    json_read_string(r, m, "host", w, s->host, sizeof s->host);
    read_job(r, m, &s->job);
    read_cgroup(r, m, &s->cgroup);
    read_cpu_energy(r, m, &s->cpu_energy);
    read_gpu_run(r, m, &s->gpu_run);
    read_who(r, m, s);
}


static void read_server(struct json_reader *r, json_object *o, gt_server_info *si)
{
    const char *w = "server_info";
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"server_info\" should be an object");
        return;
    }
    json_read_string(r, o, "os", w, si->os, sizeof si->os);
    json_read_string(r, o, "kernel", w, si->kernel, sizeof si->kernel);
    json_read_string(r, o, "hostname", w, si->hostname, sizeof si->hostname);
    json_read_string(r, o, "cpu_model", w, si->cpu_model, sizeof si->cpu_model);
    si->vcpus = (int)json_read_integer(r, o, "vcpus", w, 0, 1 << 22);
    si->vcpus_usable = json_read_number(r, o, "vcpus_usable", w, 0, 1 << 22);
    si->memory_mib = json_read_number(r, o, "memory_mib", w, 0, 1e12);
    si->memory_limit_mib = json_read_number(r, o, "memory_limit_mib", w, 0, 1e12);
    si->gpu_count = (int)json_read_integer(r, o, "gpu_count", w, 0, 65536);
    snapshot_read_gpu_names(r, o, si);
    si->gpu_memory_mib = json_read_number(r, o, "gpu_memory_mib", w, 0, 1e12);
    json_read_string(r, o, "allocation", w, si->allocation, sizeof si->allocation);
    if (r->status == GT_OK && strcmp(si->allocation, "dedicated") &&
        strcmp(si->allocation, "shared") && strcmp(si->allocation, "unknown"))
        json_read_fail(r, "\"server_info.allocation\" should be dedicated, shared or unknown");
}

/* server_info.filesystems (0.3): optional, a string of at most 64 KiB. */
static void read_filesystems(struct json_reader *r, json_object *si, gt_snapshot *s)
{
    json_object *v = NULL;
    if (r->status != GT_OK || !json_object_is_type(si, json_type_object) ||
        !json_object_object_get_ex(si, "filesystems", &v) || !v)
        return;
    if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) > 65536) {
        json_read_fail(r, "\"server_info.filesystems\" should be a string of at most 64 KiB");
        return;
    }
    s->filesystems = strdup(json_object_get_string(v));
    if (!s->filesystems)
        json_read_fail(r, "out of memory");
}


/* One column's values into n rows. */
static void read_column(struct json_reader *r, const char *text, struct json_span span,
                        const char *where, const struct series_column *col, size_t n,
                        size_t row_size, char *rows)
{
    char path[96];
    snprintf(path, sizeof path, "%s.%s", where, col->name);
    json_object *a = json_read_parse(r, text + span.start, span.end - span.start, path);
    for (size_t i = 0; a && r->status == GT_OK && i < n; i++) {
        json_object *v = json_object_array_get_idx(a, i);
        void *row = rows + i * row_size;
        if (col->type == COLUMN_DOUBLE) {
            series_column_set(col, row, json_read_number_in(r, v, path, i, NULL, 0, col->max), 0);
        } else {
            long long x = json_read_integer_in(r, v, path, i, NULL, 0, (long long)col->max);
            series_column_set(col, row, 0, (unsigned long long)x);
        }
    }
    json_object_put(a);
}

/* A series: every column counted first (all the same length, at most
 * max_rows), then parsed one at a time into the rows. */
static size_t read_series(struct json_reader *r, const char *text, struct json_span span,
                          gt_series_kind kind, size_t max_rows, void **out)
{
    /* max_rows is what is left of the file's allowance: a merged job's
     * tasks share it. */
    *out = NULL;
    const char *where = kind == GT_SERIES_KIND_PROCESS ? "process_metrics" : "system_metrics";
    const struct series_columns *cols = series_columns(kind);
    const char *names[32];
    for (size_t c = 0; c < cols->ncolumns; c++)
        names[c] = cols->columns[c].name;
    struct parts p;
    /* resource_tracker's columns are required; ours since 0.3 not (an
     * older snapshot's rows have them 0) */
    if (r->status != GT_OK ||
        find_members_some(r, text, span, where, names, cols->ncolumns, cols->rt_ncolumns, &p) < 0)
        return 0;
    size_t n = 0;
    for (size_t c = 0; c < cols->ncolumns; c++) {
        if (!p.seen[c])
            continue;
        size_t len;
        char err[160];
        if (json_span_array_length(text, p.spans[c], 1, &len, err, sizeof err) < 0) {
            json_read_fail(r, "\"%s.%s\" should be a list of numbers (%s)", where, names[c], err);
            return 0;
        }
        if (c == 0 && len > max_rows) {
            json_read_fail(r, "\"%s\" has %zu rows; at most %zu are read (docs/snapshot.md, "
                              "\"Limits\": gpu-tracker stats --max-rows)", where, len, max_rows);
            return 0;
        }
        if (c == 0)
            n = len;
        else if (len != n) {
            json_read_fail(r, "\"%s.%s\" has %zu values, \"%s\" %zu", where, names[c], len,
                           names[0], n);
            return 0;
        }
    }
    char *rows = calloc(n ? n : 1, cols->row_size);
    if (!rows) {
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory for %zu rows", r->what, n);
        return 0;
    }
    for (size_t c = 0; c < cols->ncolumns && r->status == GT_OK; c++)
        if (p.seen[c])
            read_column(r, text, p.spans[c], where, &cols->columns[c], n, cols->row_size, rows);
    *out = rows;
    return n;
}

/* The elements of an array, as json_span_elements finds them. */
struct element_spans {
    struct json_span *spans; /* room for every element (counted before) */
    size_t n;
};

static int collect_element(void *ctx, struct json_span key, struct json_span value)
{
    (void)key;
    struct element_spans *es = ctx;
    es->spans[es->n++] = value;
    return 0;
}

/* The members of the snapshot object at root into s (a task of a merged
 * job when nested; its tasks refused then). left[kind]: the rows the file
 * may still have in each series, lowered by what s has. */
/* A look at a snapshot's identity (its metadata, read before its rows):
 * non-GT_OK refuses the file with the message set. */
struct identity_check {
    gt_status (*fn)(void *ctx, const gt_snapshot *s);
    void *ctx;
};

static void read_object(struct json_reader *r, const char *text, struct json_span root,
                        size_t left[2], int nested, gt_snapshot *s,
                        const struct identity_check *check);

/* A merged job's "tasks": at most GT_MERGE_MAX_TASKS snapshots, each read
 * as the top one is, sharing its row allowance. */
static void read_tasks(struct json_reader *r, const char *text, struct json_span object,
                       size_t left[2], gt_snapshot *s)
{
    static const char *const names[] = {"tasks"};
    struct parts p;
    memset(&p, 0, sizeof p);
    p.text = text;
    p.names = names;
    p.nnames = 1;
    char err[160];
    if (json_span_members(text, object, JSON_READ_MAX_DEPTH, on_member, &p, err, sizeof err) != 0) {
        json_read_fail(r, "key \"tasks\" appears twice");
        return;
    }
    if (!p.seen[0])
        return; /* a single run */
    size_t n;
    if (text[p.spans[0].start] != '[' ||
        json_span_array_length(text, p.spans[0], JSON_READ_MAX_DEPTH, &n, err, sizeof err) < 0) {
        json_read_fail(r, "\"tasks\" should be a list of snapshots");
        return;
    }
    if (n == 0 || n > GT_MERGE_MAX_TASKS - 1) {
        json_read_fail(r, "\"tasks\" lists %zu snapshots; a merged job has 1 to %d besides "
                          "its first", n, GT_MERGE_MAX_TASKS - 1);
        return;
    }
    s->other_tasks = calloc(n, sizeof *s->other_tasks);
    if (!s->other_tasks) {
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
        return;
    }
    /* Each element's span, then each read with messages naming it. */
    struct element_spans es = {calloc(n, sizeof(struct json_span)), 0};
    if (!es.spans) {
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
        return;
    }
    json_span_elements(text, p.spans[0], JSON_READ_MAX_DEPTH, collect_element, &es, err,
                       sizeof err);
    const char *outer = r->what;
    for (size_t i = 0; i < es.n && r->status == GT_OK; i++) {
        char what[4300];
        snprintf(what, sizeof what, "%s: in tasks[%zu]", outer, i);
        r->what = what;
        gt_snapshot *task = malloc(sizeof *task);
        if (task)
            snapshot_init(task);
        if (!task) {
            r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", outer);
        } else {
            s->other_tasks[s->nother_tasks++] = task;
            if (text[es.spans[i].start] != '{')
                json_read_fail(r, "a task should be a snapshot object");
            else
                read_object(r, text, es.spans[i], left, 1, task, NULL);
        }
        r->what = outer;
    }
    free(es.spans);
}

static void read_object(struct json_reader *r, const char *text, struct json_span root,
                        size_t left[2], int nested, gt_snapshot *s,
                        const struct identity_check *check)
{
    struct parts p;
    if (find_members(r, text, root, "", part_names, NPARTS, &p) < 0)
        return;
    /* metadata first: a file of another format version is not read on. */
    json_object *m = snapshot_parse_part(r, text, p.spans[METADATA], "metadata", METADATA_MAX);
    read_metadata(r, m, s);
    json_object_put(m);
    if (check && r->status == GT_OK) {
        gt_status refused = check->fn(check->ctx, s);
        if (refused != GT_OK) {
            r->status = refused; /* before any row is parsed */
            return;
        }
    }
    json_object *si = snapshot_parse_part(r, text, p.spans[SERVER_INFO], "server_info", SERVER_INFO_MAX);
    read_server(r, si, &s->server);
    read_filesystems(r, si, s);
    json_object_put(si);
    json_object *cloud = snapshot_parse_part(r, text, p.spans[CLOUD_INFO], "cloud_info", CLOUD_INFO_MAX);
    snapshot_read_cloud(r, cloud, &s->cloud);
    json_object_put(cloud);
    json_object *summary = snapshot_parse_part(r, text, p.spans[SUMMARY], "summary", SUMMARY_MAX);
    if (summary)
        usage_json_read(r, summary, "summary", &s->usage);
    json_object_put(summary);

    void *rows;
    s->series.interval = s->interval;
    s->series.start_time = s->start_time;
    s->series.nprocess = read_series(r, text, p.spans[PROCESS_METRICS], GT_SERIES_KIND_PROCESS,
                                     left[GT_SERIES_KIND_PROCESS], &rows);
    s->series.process = rows;
    left[GT_SERIES_KIND_PROCESS] -= s->series.nprocess;
    s->series.nsystem = read_series(r, text, p.spans[SYSTEM_METRICS], GT_SERIES_KIND_SYSTEM,
                                    left[GT_SERIES_KIND_SYSTEM], &rows);
    s->series.system = rows;
    left[GT_SERIES_KIND_SYSTEM] -= s->series.nsystem;
    if (r->status != GT_OK)
        return;
    if (!nested) {
        read_tasks(r, text, root, left, s);
    } else {
        struct parts t;
        static const char *const tasks_name[] = {"tasks"};
        memset(&t, 0, sizeof t);
        t.text = text;
        t.names = tasks_name;
        t.nnames = 1;
        char err[160];
        if (json_span_members(text, root, JSON_READ_MAX_DEPTH, on_member, &t, err, sizeof err) == 0 &&
            t.seen[0])
            json_read_fail(r, "a task of a merged job holds tasks of its own");
    }
}

static void read_snapshot(struct json_reader *r, const char *text, size_t len, size_t max_rows,
                          gt_snapshot *s, const struct identity_check *check)
{
    struct json_span root;
    char err[160];
    if (json_span_value(text, len, 0, JSON_READ_MAX_DEPTH, &root, err, sizeof err) < 0 ||
        json_span_rest_blank(text, len, root.end, err, sizeof err) < 0) {
        json_read_fail(r, "not JSON (%s)", err);
        return;
    }
    if (text[root.start] != '{') {
        json_read_fail(r, "the top level is not an object");
        return;
    }
    if (snapshot_rt_detect(text, root)) {
        snapshot_rt_read(r, text, root, max_rows, s);
        return;
    }
    size_t left[2] = {max_rows, max_rows};
    read_object(r, text, root, left, 0, s, check);
}

/* raw (len bytes, malloc'd) is taken; its text may have text_max bytes
 * (*text_len: how many it had). */
static gt_status read_bytes_within(char *raw, size_t len, const char *name, size_t max_rows,
                                   size_t text_max, size_t *text_len,
                                   const struct identity_check *check, gt_snapshot **out)
{
    char what[4200];
    snprintf(what, sizeof what, "'%s' is not a valid snapshot", name);
    struct json_reader r = {GT_OK, what};
    char *text = NULL;
    size_t tlen = 0;
    if (decode_text(&r, raw, len, text_max, &text, &tlen) != GT_OK)
        return r.status;
    if (text_len)
        *text_len = tlen;
    gt_snapshot *s = malloc(sizeof *s);
    if (s)
        snapshot_init(s);
    if (!s) {
        free(text);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    read_snapshot(&r, text, tlen, max_rows, s, check);
    free(text);
    if (r.status != GT_OK) {
        gt_snapshot_free(s);
        return r.status;
    }
    *out = s;
    return GT_OK;
}

static gt_status read_bytes(char *raw, size_t len, const char *name, size_t max_rows,
                            gt_snapshot **out)
{
    return read_bytes_within(raw, len, name, max_rows, text_limit(max_rows), NULL, NULL, out);
}

/* The rows a reader was asked to allow (0: the default), checked so that
 * the byte limit they give cannot overflow. */
static gt_status rows_allowed(size_t *max_rows)
{
    if (*max_rows == 0)
        *max_rows = GT_SNAPSHOT_MAX_ROWS;
    if (*max_rows > (SIZE_MAX - FIXED_BYTES) / BYTES_PER_ROW)
        return error_set(GT_ERR_INVALID_ARGUMENT, "at most %zu rows may be asked for",
                         (SIZE_MAX - FIXED_BYTES) / BYTES_PER_ROW);
    return GT_OK;
}

gt_status gt_snapshot_from_memory(const void *data, size_t len, const char *name,
                                  size_t max_rows, gt_snapshot **out)
{
    error_clear();
    *out = NULL;
    gt_status allowed = rows_allowed(&max_rows);
    if (allowed != GT_OK)
        return allowed;
    if (len > text_limit(max_rows))
        return error_set(GT_ERR_IO, "'%s' is not a valid snapshot: it has %zu bytes, more than "
                         "a snapshot of %zu rows may (docs/snapshot.md, \"Limits\")",
                         name ? name : "snapshot", len, max_rows);
    char *copy = malloc(len + 1);
    if (!copy)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    memcpy(copy, data, len);
    copy[len] = '\0';
    return read_bytes(copy, len, name ? name : "snapshot", max_rows, out);
}

gt_status snapshot_read_memory(const void *data, size_t len, const char *name, gt_snapshot **out)
{
    return gt_snapshot_from_memory(data, len, name, GT_SNAPSHOT_MAX_ROWS, out);
}

gt_status gt_snapshot_read(const char *path, size_t max_rows, gt_snapshot **out)
{
    error_clear();
    *out = NULL;
    gt_status allowed = rows_allowed(&max_rows);
    if (allowed != GT_OK)
        return allowed;
    char *raw;
    size_t len;
    gt_status st = read_regular_file(path, text_limit(max_rows), "snapshot", &raw, &len);
    if (st != GT_OK)
        return st;
    return read_bytes(raw, len, path, max_rows, out);
}


/* ---- a load of many files under one allowance ---------------------------- */

void gt_snapshot_load_init(gt_snapshot_load *l, size_t max_rows)
{
    memset(l, 0, sizeof *l);
    l->max_rows = max_rows ? max_rows : GT_SNAPSHOT_MAX_ROWS;
    l->rows_left = l->max_rows;
    l->bytes_left = text_limit(l->max_rows <= (SIZE_MAX - FIXED_BYTES) / BYTES_PER_ROW
                                   ? l->max_rows : 0);
    l->text_left = l->bytes_left;
}

void gt_snapshot_load_done(gt_snapshot_load *l)
{
    for (size_t i = 0; i < l->nseen; i++)
        free(l->seen[i].name);
    free(l->seen);
    l->seen = NULL;
    l->nseen = 0;
}

/* The rows of s's largest series, its merged tasks' added. */
static size_t rows_of(const gt_snapshot *s)
{
    size_t n = s->series.nprocess > s->series.nsystem ? s->series.nprocess : s->series.nsystem;
    for (size_t i = 0; i < s->nother_tasks; i++)
        n += rows_of(s->other_tasks[i]);
    return n;
}

/* The same task of the same job (as gt_snapshot_merge says): a Slurm job's
 * ids, array task, step and rank. */
static int same_task(const gt_job_info *a, const gt_job_info *b)
{
    const char *ka = a->array_job_id[0] ? a->array_job_id : a->job_id;
    const char *kb = b->array_job_id[0] ? b->array_job_id : b->job_id;
    return a->job_id[0] && strcmp(ka, kb) == 0 && strcmp(a->array_task_id, b->array_task_id) == 0 &&
           strcmp(a->step_id, b->step_id) == 0 && strcmp(a->task_rank, b->task_rank) == 0;
}

struct load_check {
    const gt_snapshot_load *l;
    const char *path;
};

/* A task read already, refused from its metadata before its rows. */
static gt_status once_a_task(void *ctx, const gt_snapshot *s)
{
    const struct load_check *c = ctx;
    for (size_t i = 0; i < c->l->nseen; i++)
        if (same_task(&c->l->seen[i].job, &s->job)) {
            const gt_job_info *j = &s->job;
            return error_set(GT_ERR_INVALID_ARGUMENT, "'%s' and '%s' are both task %s%s%s%s%s of "
                             "job %s: each task once", c->l->seen[i].name, c->path,
                             j->task_rank[0] ? j->task_rank : "(no rank)",
                             j->step_id[0] ? " of step " : "", j->step_id,
                             j->array_task_id[0] ? " of array task " : "", j->array_task_id,
                             j->array_job_id[0] ? j->array_job_id : j->job_id);
        }
    return GT_OK;
}

static gt_status remember(gt_snapshot_load *l, dev_t dev, ino_t ino, const char *path)
{
    void *grown = realloc(l->seen, (l->nseen + 1) * sizeof *l->seen);
    if (!grown)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    l->seen = grown;
    l->seen[l->nseen].dev = dev;
    l->seen[l->nseen].ino = ino;
    l->seen[l->nseen].name = strdup(path);
    if (!l->seen[l->nseen].name)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    l->nseen++;
    return GT_OK;
}

gt_status gt_snapshot_load_read(gt_snapshot_load *l, const char *path, gt_snapshot **out)
{
    error_clear();
    *out = NULL;
    gt_status status = rows_allowed(&l->max_rows);
    if (status != GT_OK)
        return status;
    struct stat st;
    int fd = input_open(path, NULL, 0, &st, &status);
    if (fd < 0)
        return status;
    for (size_t i = 0; i < l->nseen; i++)
        if (l->seen[i].dev == st.st_dev && l->seen[i].ino == st.st_ino) {
            close(fd);
            return error_set(GT_ERR_INVALID_ARGUMENT, "'%s' is '%s' again (another name of the "
                             "same file): each snapshot is read once", path, l->seen[i].name);
        }
    if ((unsigned long long)st.st_size > l->bytes_left) {
        close(fd);
        return error_set(GT_ERR_IO, "cannot read '%s': the snapshots of this command would hold "
                         "more than %zu bytes together, all that %zu rows allow (docs/snapshot.md, "
                         "\"Limits\"; --max-rows)", path, text_limit(l->max_rows), l->max_rows);
    }
    char *raw = NULL;
    size_t n = 0;
    status = read_open_file(fd, &st, path, l->bytes_left < SIZE_MAX ? (size_t)l->bytes_left
                                                                   : SIZE_MAX,
                            "snapshot", &raw, &n);
    if (status != GT_OK)
        return status;
    size_t text_len = 0;
    gt_snapshot *s = NULL;
    struct load_check lc = {l, path};
    struct identity_check check = {once_a_task, &lc};
    status = read_bytes_within(raw, n, path, l->rows_left,
                               l->text_left < SIZE_MAX ? (size_t)l->text_left : SIZE_MAX,
                               &text_len, l->distinct_tasks ? &check : NULL, &s);
    if (status != GT_OK) {
        if (l->rows_left < l->max_rows && strstr(gt_last_error(), " rows; at most "))
            error_set(status, "cannot read '%s': with the snapshots before it, this command would "
                      "read more than its allowance of %zu rows a series (docs/snapshot.md, "
                      "\"Limits\"; --max-rows raises it)", path, l->max_rows);
        return status;
    }
    status = remember(l, st.st_dev, st.st_ino, path);
    if (status != GT_OK) {
        gt_snapshot_free(s);
        return status;
    }
    l->seen[l->nseen - 1].job = s->job;
    size_t rows = rows_of(s);
    l->rows_left = rows < l->rows_left ? l->rows_left - rows : 0;
    l->bytes_left -= n;
    l->text_left = text_len < l->text_left ? l->text_left - text_len : 0;
    *out = s;
    return GT_OK;
}
