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
#include "common/proc_start.h"

char *backup_identity_make(pid_t pid, const char *command)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    json_object_object_add(o, "tracker_pid", json_object_new_int((int)getpid()));
    json_object_object_add(o, "tracker_start", json_object_new_uint64(proc_start_ticks(getpid())));
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
