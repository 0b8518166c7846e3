/* tracker_config.c - --tconfig FILE.json (tracker_config.h). */
#define _GNU_SOURCE
#include "tracker_config.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

/* A config is a handful of keys; anything bigger is not one. */
#define MAX_CONFIG (1u << 20)

enum kind { NUMBER, INTEGER, TEXT, FLAG, TEXT_LIST, IGNORED };

/* gpu_tracker's Tracker keyword arguments and the option each stands for. */
static const struct {
    const char *key, *option;
    enum kind kind;
} keys[] = {
    {"sleep_time", "--st", NUMBER},
    {"ram_unit", "--ru", TEXT},
    {"gpu_ram_unit", "--gru", TEXT},
    {"time_unit", "--tu", TEXT},
    {"n_expected_cores", "--nec", INTEGER},
    {"gpu_uuids", "--guuids", TEXT_LIST},
    {"disable_logs", "--disable-logs", FLAG},
    {"gpu_brand", "--gb", TEXT},
    {"tracking_file", "--tf", TEXT},
    {"overwrite", "--overwrite", FLAG},
    /* How gpu_tracker waits for its tracking process to end: nothing to
     * tune in ours (the sampling thread is joined at once). */
    {"n_join_attempts", NULL, IGNORED},
    {"join_timeout", NULL, IGNORED},
    {"resource_usage_file", NULL, IGNORED},
};

static const char *kind_text(enum kind k)
{
    switch (k) {
    case NUMBER: return "a number";
    case INTEGER: return "an integer";
    case FLAG: return "true or false";
    case TEXT_LIST: return "a list of strings (or one string, comma separated)";
    default: return "a string";
    }
}

void tracker_config_free(char **args)
{
    for (size_t i = 0; args && args[i]; i++)
        free(args[i]);
    free(args);
}

/* "--option=text" for a string value; NULL with *bad set otherwise. */
static char *text_option(const char *option, json_object *v, int *bad)
{
    char *s = NULL;
    if (!json_object_is_type(v, json_type_string)) {
        *bad = 1;
        return NULL;
    }
    return asprintf(&s, "%s=%s", option, json_object_get_string(v)) < 0 ? NULL : s;
}

/* The option for value of the key at index k ("--st=0.5"); *none set when
 * the key adds nothing (a false flag, an ignored key); NULL with *bad set
 * when the value is of the wrong type. */
static char *option_for(size_t k, json_object *v, int *none, int *bad)
{
    char *s = NULL;
    *none = *bad = 0;
    switch (keys[k].kind) {
    case IGNORED:
        *none = 1;
        return NULL;
    case FLAG:
        if (!json_object_is_type(v, json_type_boolean)) {
            *bad = 1;
            return NULL;
        }
        *none = !json_object_get_boolean(v);
        return *none ? NULL : strdup(keys[k].option);
    case NUMBER:
        if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) {
            *bad = 1;
            return NULL;
        }
        return asprintf(&s, "%s=%.17g", keys[k].option, json_object_get_double(v)) < 0 ? NULL : s;
    case INTEGER:
        if (!json_object_is_type(v, json_type_int)) {
            *bad = 1;
            return NULL;
        }
        return asprintf(&s, "%s=%lld", keys[k].option, (long long)json_object_get_int64(v)) < 0
                   ? NULL : s;
    case TEXT_LIST:
        if (json_object_is_type(v, json_type_array)) {
            size_t n = json_object_array_length(v), len = 0;
            if (n == 0) {
                *none = 1; /* no GPUs named: all, as without the key */
                return NULL;
            }
            FILE *f = open_memstream(&s, &len);
            if (!f)
                return NULL;
            fprintf(f, "%s=", keys[k].option);
            for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(v, i);
                if (!json_object_is_type(e, json_type_string))
                    *bad = 1;
                fprintf(f, "%s%s", i ? "," : "", json_object_get_string(e));
            }
            fclose(f);
            if (*bad) {
                free(s);
                return NULL;
            }
            return s;
        }
        return text_option(keys[k].option, v, bad);
    case TEXT:
        return text_option(keys[k].option, v, bad);
    }
    return NULL;
}


int tracker_config_args(const char *path, char ***args, int *nargs, char *err, size_t errcap)
{
    *args = NULL;
    *nargs = 0;
    char *text = NULL;
    if (input_file_read(path, MAX_CONFIG, "config file", &text, NULL) != GT_OK) {
        snprintf(err, errcap, "--tconfig: %s", gt_last_error());
        return -1;
    }
    json_tokener *tok = json_tokener_new_ex(8);
    if (!tok) {
        free(text);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    json_object *doc = json_tokener_parse_ex(tok, text, (int)strlen(text));
    enum json_tokener_error e = json_tokener_get_error(tok);
    json_tokener_free(tok);
    free(text);
    if (e != json_tokener_success || !json_object_is_type(doc, json_type_object)) {
        snprintf(err, errcap, "config file '%s' is not a JSON object of Tracker arguments (%s)",
                 path, e != json_tokener_success ? json_tokener_error_desc(e) : "not an object");
        json_object_put(doc);
        return -1;
    }
    size_t n = (size_t)json_object_object_length(doc);
    char **out = calloc(n + 1, sizeof *out);
    int count = 0, failed = !out;
    if (failed)
        snprintf(err, errcap, "out of memory");
    json_object_object_foreach(doc, key, value) {
        if (failed)
            break;
        size_t k = 0;
        while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k].key, key) != 0)
            k++;
        if (k == sizeof keys / sizeof keys[0]) {
            size_t used = (size_t)snprintf(err, errcap, "config file '%s': unknown key '%s'%s; "
                                           "valid keys are", path, key,
                                           strcmp(key, "process_id") == 0
                                               ? " (the command run is the process tracked; "
                                                 "--pid tracks another)" : "");
            for (size_t i = 0; i < sizeof keys / sizeof keys[0] && used < errcap; i++)
                used += (size_t)snprintf(err + used, errcap - used, "%s %s", i ? "," : "",
                                         keys[i].key);
            failed = 1;
            break;
        }
        int none, bad;
        char *option = option_for(k, value, &none, &bad);
        if (bad) {
            snprintf(err, errcap, "config file '%s': %s should be %s", path, key,
                     kind_text(keys[k].kind));
            failed = 1;
        } else if (!option && !none) {
            snprintf(err, errcap, "out of memory");
            failed = 1;
        } else if (option) {
            out[count++] = option;
        }
    }
    json_object_put(doc);
    if (failed) {
        tracker_config_free(out);
        return -1;
    }
    *args = out;
    *nargs = count;
    return 0;
}
