/* backup_identity.c - see backup_identity.h.
 *
 * "Is that run still going?" is answered by its writer's PID and start
 * time (the ticks after boot in /proc/<pid>/stat): a PID alone may have
 * been reused since, by a process that has nothing to do with the run. */
#define _GNU_SOURCE
#include "sink/backup_identity.h"

#include "common/internal.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file_io.h"
#include "common/json_write.h"
#include "common/file_read.h"
#include "common/parse/proc_parse.h"

/* The start time (ticks after boot) of process pid on this machine; 0 when
 * it does not exist, cannot be read, or has ended (a zombie waiting for its
 * parent still has its stat). */
static unsigned long long start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    size_t n;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    struct proc_stat st;
    if (file_read_at(AT_FDCWD, path, buf, sizeof buf, &n) < 0 || n == 0 ||
        proc_parse_stat(buf, n, &st) < 0 || st.state == 'Z' || st.state == 'X')
        return 0;
    return st.starttime;
}

char *backup_identity_make(pid_t pid, const char *command)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "tracker_pid", json_object_new_int((int)getpid()));
    json_object_object_add(o, "tracker_start", json_object_new_uint64(start_ticks(getpid())));
    json_object_object_add(o, "pid", json_object_new_int((int)pid));
    json_object_object_add(o, "host", json_new_text(host));
    json_object_object_add(o, "command", command ? json_new_text(command) : NULL);
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    /* The members without the braces: start_time and updated follow. */
    size_t len = text ? strlen(text) : 0;
    char *members = len >= 2 ? strndup(text + 1, len - 2) : NULL;
    json_object_put(o);
    return members;
}

char *backup_identity_attach(const char *summary_json, const char *identity, double start_time,
                             double updated)
{
    size_t len = strlen(summary_json);
    while (len > 0 && (summary_json[len - 1] == '\n' || summary_json[len - 1] == ' '))
        len--;
    if (len == 0 || summary_json[len - 1] != '}')
        return NULL;
    char *out = NULL;
    if (asprintf(&out, "%.*s,\n  \"backup\": {%s,\"start_time\":%.3f,\"updated\":%.3f}\n}\n",
                 (int)(len - 1), summary_json, identity, start_time, updated) < 0)
        return NULL;
    return out;
}

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
            return gt_fail(GT_ERR_PARSE, "'%s': backup.%s is missing or not a process ID", path,
                           ints[i]);
        *int_out[i] = (int)json_object_get_int64(v);
    }
    static const char *const times[] = {"start_time", "updated"};
    double *time_out[] = {&out->start_time, &out->updated};
    for (size_t i = 0; i < 2; i++) {
        json_object *v = json_object_object_get(o, times[i]);
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
            return gt_fail(GT_ERR_PARSE, "'%s': backup.%s is missing or not a number", path,
                           times[i]);
        double d = json_object_get_double(v);
        if (!(d >= 0 && d < 1e11))
            return gt_fail(GT_ERR_PARSE, "'%s': backup.%s %g is not an epoch time", path,
                           times[i], d);
        *time_out[i] = d;
    }
    json_object *host = json_object_object_get(o, "host");
    json_object *command = json_object_object_get(o, "command");
    json_object *start = json_object_object_get(o, "tracker_start");
    if (!json_object_is_type(host, json_type_string) ||
        (command && !json_object_is_type(command, json_type_string)) ||
        !json_object_is_type(start, json_type_int))
        return gt_fail(GT_ERR_PARSE, "'%s': backup.host, backup.command or backup.tracker_start "
                       "is missing or mistyped", path);
    text_copy(out->host, sizeof out->host, json_object_get_string(host));
    text_copy(out->command, sizeof out->command, command ? json_object_get_string(command) : "");
    /* Running: this machine, and the writer's PID started when it did. */
    char here[256] = "";
    gethostname(here, sizeof here - 1);
    unsigned long long ticks = (unsigned long long)json_object_get_uint64(start);
    out->running = strcmp(here, out->host) == 0 && ticks != 0 &&
                   start_ticks(out->tracker_pid) == ticks;
    out->present = 1;
    return GT_OK;
}

gt_status gt_backup_read_info(const char *path, gt_backup_info *out)
{
    gt_clear_error();
    gt_status st = gt_check_out_struct("gt_backup_read_info", path, out, "gt_backup_info",
                                       out ? out->struct_size : 0, sizeof(gt_backup_info));
    if (st != GT_OK)
        return st;
    size_t size = out->struct_size;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    char *doc;
    size_t len;
    st = read_regular_file(path, 16u << 20, "backup", &doc, &len);
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
        return gt_fail(GT_ERR_PARSE, "'%s' is not a JSON object", path);
    }
    json_object *identity = json_object_object_get(root, "backup");
    st = GT_OK;
    if (identity && !json_object_is_type(identity, json_type_object))
        st = gt_fail(GT_ERR_PARSE, "'%s': backup is not an object", path);
    else if (identity)
        st = read_identity(identity, path, out);
    if (st != GT_OK) {
        memset(out, 0, sizeof *out);
        out->struct_size = size;
    }
    json_object_put(root);
    return st;
}
