/* who_read.c - who held a run's resources, read back from a summary or a
 * snapshot (at_peak, gpu_idle, processes, top_processes): every list
 * bounded, every number checked. The library writes them
 * (common/summary/who_json.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"
#include "common/json_read.h"
#include "common/summary/summary_fields.h"
#include "snapshot/parts_read.h"

#define BYTES_MAX 1e18
#define COUNT_MAX 1000000000000LL
#define PID_MAX 4194304

/* A number that may be null (-1 then); missing is a problem. */
static double nullable_number(struct json_reader *r, json_object *o, const char *key,
                              const char *path, double max)
{
    json_object *v = NULL;
    if (r->status != GT_OK || !o)
        return -1;
    if (!json_object_object_get_ex(o, key, &v)) {
        json_read_fail(r, "missing key \"%s.%s\"", path, key);
        return -1;
    }
    return v ? json_read_number(r, o, key, path, 0, max) : -1;
}

/* The elements of a list of at most max entries (0 after a problem). */
static size_t list_length(struct json_reader *r, json_object *list, const char *path, size_t max)
{
    if (r->status != GT_OK || !list)
        return 0;
    size_t n = json_object_array_length(list);
    if (n > max) {
        json_read_fail(r, "\"%s\" has %zu entries; at most %zu are valid", path, n, max);
        return 0;
    }
    return n;
}

/* Element i of list, named item ("WHERE[i]"), when it is an object; NULL
 * after recording that it should be one. */
static json_object *list_object(struct json_reader *r, json_object *list, const char *where,
                                size_t i, char *item, size_t cap)
{
    json_object *x = json_object_array_get_idx(list, i);
    snprintf(item, cap, "%s[%zu]", where, i);
    if (!json_object_is_type(x, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", item);
        return NULL;
    }
    return x;
}

static void breakdown_read(struct json_reader *r, json_object *o, const char *path, int memory,
                           gt_peak_breakdown *b)
{
    const char *bytes_key = memory ? "rss_bytes" : "gpu_bytes";
    char where[160], item[200];
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    if (r->status == GT_OK && !json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    b->available = 1;
    b->at_seconds = json_read_number(r, o, "at_seconds", path, 0, 1e10);
    b->total_bytes = json_read_number(r, o, "total_bytes", path, 0, BYTES_MAX);
    snprintf(where, sizeof where, "%s.processes", path);
    json_object *list = json_read_member(r, o, "processes", json_type_array, path);
    size_t n = list_length(r, list, where, GT_AT_PEAK_MAX);
    for (size_t i = 0; i < n && r->status == GT_OK; i++) {
        json_object *x = list_object(r, list, where, i, item, sizeof item);
        if (!x)
            return;
        gt_peak_process *p = &b->processes[i];
        p->pid = (int)json_read_integer(r, x, "pid", item, 0, PID_MAX);
        char role[16];
        json_read_string(r, x, "role", item, role, sizeof role);
        if (r->status == GT_OK && strcmp(role, "main") && strcmp(role, "descendant"))
            json_read_fail(r, "\"%s.role\" is \"%s\"; valid: main, descendant", item, role);
        p->role = strcmp(role, "main") == 0 ? 1 : 2;
        json_read_string(r, x, "command", item, p->command, sizeof p->command);
        json_read_string(r, x, "cmdline", item, p->cmdline, sizeof p->cmdline);
        p->bytes = json_read_number(r, x, bytes_key, item, 0, BYTES_MAX);
        p->private_bytes = memory ? nullable_number(r, x, "private_bytes", item, BYTES_MAX) : -1;
        p->pss_bytes = nullable_number(r, x, "pss_bytes", item, BYTES_MAX);
        p->threads = (long)json_read_integer(r, x, "threads", item, 0, 1 << 22);
    }
    b->nprocesses = (int)n;
    snprintf(where, sizeof where, "%s.others", path);
    json_object *rest = json_read_member(r, o, "others", json_type_object, path);
    b->others = (long)json_read_integer(r, rest, "count", where, 0, COUNT_MAX);
    b->others_bytes = json_read_number(r, rest, bytes_key, where, 0, BYTES_MAX);
    if (memory) {
        b->others_private_bytes = json_read_number(r, rest, "private_bytes", where, 0, BYTES_MAX);
        b->shared_bytes = json_read_number(r, o, "shared_bytes", path, 0, BYTES_MAX);
    }
    if (r->status != GT_OK)
        b->available = 0;
}

void at_peak_json_read(struct json_reader *r, json_object *o, const char *path,
                       gt_peak_breakdown out[2])
{
    memset(out, 0, 2 * sizeof *out);
    out[0].struct_size = out[1].struct_size = sizeof *out;
    if (r->status != GT_OK)
        return;
    if (!json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    static const char *const keys[2] = {"memory", "gpu_memory"};
    for (int k = 0; k < 2; k++) {
        json_object *part = NULL;
        char where[128];
        snprintf(where, sizeof where, "%s.%s", path, keys[k]);
        if (json_object_object_get_ex(o, keys[k], &part) && part)
            breakdown_read(r, part, where, k == GT_PEAK_MEMORY, &out[k]);
    }
    json_object *u = NULL;
    if (r->status != GT_OK || !json_object_object_get_ex(o, "memory_unseen", &u))
        return;
    char where[128], holder[32];
    snprintf(where, sizeof where, "%s.memory_unseen", path);
    json_read_string(r, u, "holder", where, holder, sizeof holder);
    for (int h = GT_RSS_PEAK_MAIN; h <= GT_RSS_PEAK_EITHER; h++)
        if (!strcmp(holder, summary_peak_holder_names[h]))
            out[GT_PEAK_MEMORY].unseen_holder = h;
    if (r->status == GT_OK && !out[GT_PEAK_MEMORY].unseen_holder)
        json_read_fail(r, "\"%s.holder\" is \"%s\"; valid: main, descendant, main or "
                       "descendant", where, holder);
    out[GT_PEAK_MEMORY].unseen_bytes = json_read_number(r, u, "rss_bytes", where, 0, BYTES_MAX);
}

/* What the GPU itself was held back by: the clocks, the SMs and other
 * processes (snapshots before them have none of the three: zeros, no GPU). */
static void gpu_itself_json_read(struct json_reader *r, json_object *o, const char *path,
                                 gt_gpu_wait *w)
{
    char where[200];
    json_object *x = NULL;
    w->shared_gpu = -1;
    if (json_object_object_get_ex(o, "clocks", &x)) {
        snprintf(where, sizeof where, "%s.clocks", path);
        x = json_read_member(r, o, "clocks", json_type_object, path);
        w->throttle_read_seconds = json_read_number(r, x, "read_seconds", where, 0,
                                                    w->gpu_seconds);
        w->throttled_seconds = json_read_number(r, x, "throttled_seconds", where, 0,
                                                w->throttle_read_seconds);
        w->power_seconds = json_read_number(r, x, "power_seconds", where, 0,
                                            w->throttled_seconds);
        w->thermal_seconds = json_read_number(r, x, "thermal_seconds", where, 0,
                                              w->throttled_seconds);
    }
    if (json_object_object_get_ex(o, "sm_activity", &x)) {
        snprintf(where, sizeof where, "%s.sm_activity", path);
        x = json_read_member(r, o, "sm_activity", json_type_object, path);
        json_read_number(r, x, "busy_threshold_percent", where, 0, 100);
        json_read_number(r, x, "idle_threshold_percent", where, 0, 100);
        w->sm_read_seconds = json_read_number(r, x, "read_seconds", where, 0, w->gpu_seconds);
        w->sm_idle_seconds = json_read_number(r, x, "idle_seconds", where, 0,
                                              w->sm_read_seconds);
        w->sm_idle_util_percent = json_read_number(r, x, "idle_utilization_percent", where, 0,
                                                   100);
        w->sm_idle_sm_percent = json_read_number(r, x, "idle_sm_percent", where, 0, 100);
    }
    if (json_object_object_get_ex(o, "shared", &x)) {
        snprintf(where, sizeof where, "%s.shared", path);
        x = json_read_member(r, o, "shared", json_type_object, path);
        json_object *gpu = NULL;
        if (x && json_object_object_get_ex(x, "gpu", &gpu) && gpu)
            w->shared_gpu = (int)json_read_integer(r, x, "gpu", where, 0, GT_MAX_GPUS - 1);
        w->shared_others_share = json_read_number(r, x, "others_share", where, 0, 1);
    }
}

/* The "waiting" part of a snapshot's gpu_idle (older ones have none: it
 * stays zero, no verdict). The verdict is read back, not judged again, and
 * each of its causes must have its time. */
static void gpu_wait_json_read(struct json_reader *r, json_object *o, const char *path,
                               gt_gpu_wait *w)
{
    if (!json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    char where[200], item[240];
    w->gpu_seconds = json_read_number(r, o, "gpu_seconds", path, 0, 1e12);
    w->waiting_seconds = json_read_number(r, o, "waiting_seconds", path, 0, w->gpu_seconds);
    w->waiting_busy_percent = json_read_number(r, o, "waiting_busy_percent", path, 0, 100);
    snprintf(where, sizeof where, "%s.workers", path);
    json_object *workers = json_read_member(r, o, "workers", json_type_object, path);
    json_object *storage = json_read_member(r, o, "storage", json_type_object, path);
    json_object *verdict = json_read_member(r, o, "verdict", json_type_array, path);
    if (r->status != GT_OK)
        return;
    w->worker_seconds = json_read_number(r, workers, "seconds", where, 0, w->waiting_seconds);
    json_object *command = NULL;
    if (json_object_object_get_ex(workers, "command", &command) && command)
        json_read_string(r, workers, "command", where, w->worker_command,
                         sizeof w->worker_command);
    w->worker_processes = json_read_number(r, workers, "processes", where, 0, 1e9);
    w->worker_cores = json_read_number(r, workers, "cores_each", where, 0, 1e6);
    w->worker_runnable = json_read_number(r, workers, "runnable_share", where, 0, 1);
    snprintf(where, sizeof where, "%s.storage", path);
    w->storage_available = json_read_bool(r, storage, "available", where);
    if (r->status == GT_OK && w->storage_available)
        json_read_string(r, storage, "source", where, w->storage_source,
                         sizeof w->storage_source);
    else if (r->status == GT_OK)
        json_read_string(r, storage, "reason", where, w->storage_reason,
                         sizeof w->storage_reason);
    w->storage_seconds = json_read_number(r, storage, "seconds", where, 0, w->waiting_seconds);
    w->storage_wait = json_read_number(r, storage, "wait_share", where, 0, 1);
    gpu_itself_json_read(r, o, path, w);
    snprintf(where, sizeof where, "%s.verdict", path);
    size_t n = list_length(r, verdict, where, 5);
    for (size_t i = 0; i < n && r->status == GT_OK; i++) {
        const char *cause = json_object_get_string(json_object_array_get_idx(verdict, i));
        snprintf(item, sizeof item, "%s[%zu]", where, i);
        if (cause && strcmp(cause, "workers") == 0 && w->worker_seconds > 0)
            w->verdict |= GT_GPU_WAIT_WORKERS;
        else if (cause && strcmp(cause, "storage") == 0 && w->storage_seconds > 0)
            w->verdict |= GT_GPU_WAIT_STORAGE_BOUND;
        else if (cause && strcmp(cause, "throttled") == 0 && w->throttled_seconds > 0)
            w->verdict |= GT_GPU_WAIT_THROTTLED;
        else if (cause && strcmp(cause, "sms_idle") == 0 && w->sm_idle_seconds > 0)
            w->verdict |= GT_GPU_WAIT_SMS_IDLE;
        else if (cause && strcmp(cause, "shared") == 0 && w->shared_gpu >= 0)
            w->verdict |= GT_GPU_WAIT_SHARED;
        else
            json_read_fail(r, "\"%s\" should be \"workers\", \"storage\", \"throttled\", "
                           "\"sms_idle\" or \"shared\", with its figures there", item);
    }
}

void gpu_idle_json_read(struct json_reader *r, json_object *o, const char *path, gt_gpu_idle *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (r->status != GT_OK)
        return;
    if (!json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    char where[160], item[200];
    out->threshold_percent = json_read_number(r, o, "threshold_percent", path, 0, 100);
    out->idle_share_percent = json_read_number(r, o, "idle_share_percent", path, 0, 100);
    snprintf(where, sizeof where, "%s.gpus", path);
    json_object *list = json_read_member(r, o, "gpus", json_type_array, path);
    size_t n = list_length(r, list, where, 64);
    for (size_t i = 0; i < n && r->status == GT_OK; i++) {
        json_object *x = list_object(r, list, where, i, item, sizeof item);
        if (!x)
            return;
        gt_gpu_idle_device *d = &out->devices[i];
        d->index = (int)json_read_integer(r, x, "index", item, 0, 65535);
        json_read_string(r, x, "uuid", item, d->uuid, sizeof d->uuid);
        d->held_bytes = json_read_number(r, x, "held_bytes", item, 0, BYTES_MAX);
        d->held_samples = (long)json_read_integer(r, x, "held_samples", item, 0, COUNT_MAX);
        d->idle_samples = (long)json_read_integer(r, x, "idle_samples", item, 0, d->held_samples);
        d->idle_percent = json_read_number(r, x, "idle_percent", item, 0, 100);
        d->idle = json_read_bool(r, x, "idle", item);
        out->idle_count += d->idle;
    }
    out->ndevices = (int)n;
    out->requested = (int)json_read_integer(r, o, "requested", path, 0, 65536);
    json_object *by = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "requested_by", &by) && by)
        json_read_string(r, o, "requested_by", path, out->requested_by,
                         sizeof out->requested_by);
    out->request_unused = json_read_bool(r, o, "request_unused", path);
    (void)json_read_integer(r, o, "idle_gpus", path, out->idle_count, out->idle_count);
    json_object *waiting = NULL;
    if (r->status == GT_OK && json_object_object_get_ex(o, "waiting", &waiting) && waiting) {
        snprintf(where, sizeof where, "%s.waiting", path);
        gpu_wait_json_read(r, waiting, where, &out->wait);
    }
}

void processes_json_read(struct json_reader *r, json_object *o, const char *path,
                         gt_command_groups *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (r->status != GT_OK)
        return;
    if (!json_object_is_type(o, json_type_object)) {
        json_read_fail(r, "\"%s\" should be an object", path);
        return;
    }
    char where[160], item[200];
    out->commands = (long)json_read_integer(r, o, "commands", path, 0, COUNT_MAX);
    out->processes = (long)json_read_integer(r, o, "processes", path, 0, COUNT_MAX);
    out->cpu_seconds = json_read_number(r, o, "cpu_seconds", path, 0, 1e12);
    out->unseen_cpu_seconds = nullable_number(r, o, "unseen_cpu_seconds", path, 1e12);
    snprintf(where, sizeof where, "%s.groups", path);
    json_object *list = json_read_member(r, o, "groups", json_type_array, path);
    size_t n = list_length(r, list, where, GT_COMMAND_GROUPS_MAX);
    for (size_t i = 0; i < n && r->status == GT_OK; i++) {
        json_object *x = list_object(r, list, where, i, item, sizeof item);
        if (!x)
            return;
        gt_command_group *g = &out->groups[i];
        json_read_string(r, x, "command", item, g->command, sizeof g->command);
        g->processes = (long)json_read_integer(r, x, "processes", item, 0, COUNT_MAX);
        g->peak_concurrent = (long)json_read_integer(r, x, "peak_concurrent", item, 0, COUNT_MAX);
        g->cpu_seconds = json_read_number(r, x, "cpu_seconds", item, 0, 1e12);
        g->peak_pss_bytes = json_read_number(r, x, "peak_pss_bytes", item, 0, BYTES_MAX);
    }
    out->ngroups = (int)n;
    snprintf(where, sizeof where, "%s.others", path);
    json_object *rest = json_read_member(r, o, "others", json_type_object, path);
    out->others = (long)json_read_integer(r, rest, "commands", where, 0, COUNT_MAX);
    out->others_processes = (long)json_read_integer(r, rest, "processes", where, 0, COUNT_MAX);
    out->others_cpu_seconds = json_read_number(r, rest, "cpu_seconds", where, 0, 1e12);
    out->folded = (long)json_read_integer(r, o, "folded", path, 0, COUNT_MAX);
    out->partial = json_read_bool(r, o, "partial", path);
    out->available = r->status == GT_OK && out->commands > 0;
}

gt_top_process *top_processes_json_read(struct json_reader *r, json_object *o, const char *path,
                                        size_t *n)
{
    *n = 0;
    if (r->status != GT_OK)
        return NULL;
    if (!json_object_is_type(o, json_type_array)) {
        json_read_fail(r, "\"%s\" should be a list", path);
        return NULL;
    }
    size_t len = list_length(r, o, path, TOP_PROCESSES_MAX);
    gt_top_process *top = len ? calloc(len, sizeof *top) : NULL;
    if (len && !top) {
        json_read_fail(r, "out of memory");
        return NULL;
    }
    char item[200];
    for (size_t i = 0; i < len && r->status == GT_OK; i++) {
        json_object *e = json_object_array_get_idx(o, i);
        snprintf(item, sizeof item, "%s[%zu]", path, i);
        if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 3 ||
            !json_object_is_type(json_object_array_get_idx(e, 2), json_type_string)) {
            json_read_fail(r, "\"%s\" should be [seconds, pid, command]", item);
            break;
        }
        top[i].at = json_read_number_value(r, json_object_array_get_idx(e, 0), item, 0, 1e10);
        top[i].pid = (int)json_read_integer_value(r, json_object_array_get_idx(e, 1), item, 0,
                                                  PID_MAX);
        const char *name = json_object_get_string(json_object_array_get_idx(e, 2));
        if (strlen(name) >= sizeof top[i].command)
            json_read_fail(r, "\"%s\": a command name of at most %zu bytes is valid", item,
                           sizeof top[i].command - 1);
        else
            memcpy(top[i].command, name, strlen(name) + 1);
        if (i > 0 && top[i].at < top[i - 1].at)
            json_read_fail(r, "\"%s\": the times go backwards", item);
    }
    if (r->status != GT_OK) {
        free(top);
        return NULL;
    }
    *n = len;
    return top;
}
