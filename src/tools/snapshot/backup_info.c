/* backup_info.c - who wrote a backup file and whether that run still goes
 * on (gt_backup_read_info): the "backup" object the library's backup sink
 * puts beside the summary (sink/backup_identity.c writes it; docs/api.md,
 * "The backup file"). "Still going" is the writer's PID and start time on
 * this machine: a PID alone may have been reused since. */
#define _GNU_SOURCE
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file_io.h"
#include "common/internal.h"
#include "common/json_write.h"
#include "common/proc_start.h"
#include "gpu_tracker_tools.h"

/* The members of the identity object o, checked; GT_ERR_PARSE naming the
 * first bad one. */
static gt_status read_identity(json_object *o, const char *path, gt_backup_info *out)
{
    static const char *const ints[] = {"tracker_pid", "pid"};
    int *int_out[] = {&out->tracker_pid, &out->pid};
    for (size_t i = 0; i < 2; i++) {
        json_object *v = json_object_object_get(o, ints[i]);
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) <= 0 ||
            json_object_get_int64(v) > 0x7fffffff)
            return error_set(GT_ERR_PARSE, "'%s': backup.%s is missing or not a process ID", path,
                             ints[i]);
        *int_out[i] = (int)json_object_get_int64(v);
    }
    static const char *const times[] = {"start_time", "updated"};
    double *time_out[] = {&out->start_time, &out->updated};
    for (size_t i = 0; i < 2; i++) {
        json_object *v = json_object_object_get(o, times[i]);
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
            return error_set(GT_ERR_PARSE, "'%s': backup.%s is missing or not a number", path,
                             times[i]);
        double d = json_object_get_double(v);
        if (!(d >= 0 && d < 1e11))
            return error_set(GT_ERR_PARSE, "'%s': backup.%s %g is not an epoch time", path,
                             times[i], d);
        *time_out[i] = d;
    }
    json_object *host = json_object_object_get(o, "host");
    json_object *command = json_object_object_get(o, "command");
    json_object *start = json_object_object_get(o, "tracker_start");
    if (!json_object_is_type(host, json_type_string) ||
        (command && !json_object_is_type(command, json_type_string)) ||
        !json_object_is_type(start, json_type_int))
        return error_set(GT_ERR_PARSE, "'%s': backup.host, backup.command or backup.tracker_start "
                         "is missing or mistyped", path);
    text_copy(out->host, sizeof out->host, json_object_get_string(host));
    text_copy(out->command, sizeof out->command, command ? json_object_get_string(command) : "");
    /* Running: this machine, and the writer's PID started when it did. */
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    unsigned long long ticks = (unsigned long long)json_object_get_uint64(start);
    out->running = strcmp(here, out->host) == 0 && ticks != 0 &&
                   proc_start_ticks(out->tracker_pid) == ticks;
    out->present = 1;
    return GT_OK;
}

gt_status gt_backup_read_info(const char *path, gt_backup_info *out)
{
    error_clear();
    if (!path || !out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_backup_read_info: NULL argument");
    memset(out, 0, sizeof *out);
    char *doc;
    size_t len;
    gt_status st = read_regular_file(path, 16u << 20, "backup", &doc, &len);
    if (st != GT_OK)
        return st;
    json_tokener *tok = json_tokener_new_ex(16);
    json_object *root = tok ? json_tokener_parse_ex(tok, doc, (int)len) : NULL;
    int ok = tok && json_tokener_get_error(tok) == json_tokener_success;
    if (tok)
        json_tokener_free(tok);
    free(doc);
    if (!ok || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return error_set(GT_ERR_PARSE, "'%s' is not a JSON object", path);
    }
    json_object *identity = json_object_object_get(root, "backup");
    st = GT_OK;
    if (identity && !json_object_is_type(identity, json_type_object))
        st = error_set(GT_ERR_PARSE, "'%s': backup is not an object", path);
    else if (identity)
        st = read_identity(identity, path, out);
    if (st != GT_OK)
        memset(out, 0, sizeof *out);
    json_object_put(root);
    return st;
}
