/* json_read.c - parsing and reading untrusted JSON (see json_read.h). */
#include "common/json_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/internal.h"

void json_read_fail(struct json_reader *r, const char *fmt, ...)
{
    if (r->status != GT_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    r->status = error_set_prefixed(GT_ERR_PARSE, r->what, fmt, ap);
    va_end(ap);
}

json_object *json_read_parse(struct json_reader *r, const char *text, size_t len,
                             const char *where)
{
    if (r->status != GT_OK)
        return NULL;
    if (len > (size_t)0x7fffffff) {
        json_read_fail(r, "%s%stoo big to parse (%zu bytes)", where, *where ? " is " : "", len);
        return NULL;
    }
    struct json_tokener *tok = json_tokener_new_ex(JSON_READ_MAX_DEPTH);
    if (!tok) {
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
        return NULL;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    if (!o && e == json_tokener_continue) {
        /* A number at the very end: the end of the text ends it. */
        o = json_tokener_parse_ex(tok, "", 1);
        e = json_tokener_get_error(tok);
    }
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (e != json_tokener_success) {
        json_read_fail(r, "%s%snot JSON (%s, at byte %zu)", where, *where ? " is " : "",
                       json_tokener_error_desc(e), end);
        json_object_put(o);
        return NULL;
    }
    return o; /* NULL for a JSON null: the caller checks the type it wants */
}

static const char *type_name(json_type type)
{
    switch (type) {
    case json_type_double: return "a number";
    case json_type_int: return "an integer";
    case json_type_boolean: return "true or false";
    case json_type_string: return "a string";
    case json_type_array: return "a list";
    case json_type_object: return "an object";
    default: return "null";
    }
}

json_object *json_read_member(struct json_reader *r, json_object *o, const char *key,
                              json_type type, const char *path)
{
    json_object *v = NULL;
    if (!o || r->status != GT_OK)
        return NULL;
    if (!json_object_object_get_ex(o, key, &v)) {
        json_read_fail(r, "missing key \"%s%s%s\"", path, *path ? "." : "", key);
        return NULL;
    }
    json_type t = json_object_get_type(v);
    if (t != type && !(type == json_type_double && t == json_type_int)) {
        json_read_fail(r, "\"%s%s%s\" should be %s", path, *path ? "." : "", key, type_name(type));
        return NULL;
    }
    return v;
}

double json_read_number_value(struct json_reader *r, json_object *v, const char *path, double min,
                              double max)
{
    if (!v || r->status != GT_OK)
        return 0;
    json_type t = json_object_get_type(v);
    if (t != json_type_double && t != json_type_int) {
        json_read_fail(r, "\"%s\" should be a number", path);
        return 0;
    }
    double x = t == json_type_int && json_object_get_int64(v) >= 0
                   ? (double)json_object_get_uint64(v)
                   : json_object_get_double(v);
    if (!(x >= min && x <= max)) {
        /* NaN and infinities land here too. */
        json_read_fail(r, "\"%s\" should be a number from %g to %g, not %g", path, min, max, x);
        return 0;
    }
    return x;
}

long long json_read_integer_value(struct json_reader *r, json_object *v, const char *path,
                                  long long min, long long max)
{
    if (!v || r->status != GT_OK)
        return 0;
    if (json_object_get_type(v) != json_type_int) {
        json_read_fail(r, "\"%s\" should be an integer", path);
        return 0;
    }
    /* json-c saturates what does not fit in 64 bits; every bound here is
     * far from those limits, so a saturated value is out of range too. */
    long long x = (long long)json_object_get_int64(v);
    unsigned long long ux = json_object_get_uint64(v);
    int above = x >= 0 && ux > (unsigned long long)max;
    if (above || x < min || x > max) {
        if (above)
            json_read_fail(r, "\"%s\" should be an integer from %lld to %lld, not %llu", path, min,
                           max, ux);
        else
            json_read_fail(r, "\"%s\" should be an integer from %lld to %lld, not %lld", path, min,
                           max, x);
        return 0;
    }
    return x;
}

static void element_path(char *out, size_t cap, const char *path, size_t index, const char *key)
{
    if (key)
        snprintf(out, cap, "%s.%s", path, key);
    else
        snprintf(out, cap, "%s[%zu]", path, index);
}

double json_read_number_in(struct json_reader *r, json_object *v, const char *path, size_t index,
                           const char *key, double min, double max)
{
    if (!v || r->status != GT_OK)
        return 0;
    json_type t = json_object_get_type(v);
    if (t == json_type_double || (t == json_type_int && json_object_get_int64(v) >= 0)) {
        double x = t == json_type_int ? (double)json_object_get_uint64(v)
                                      : json_object_get_double(v);
        if (x >= min && x <= max)
            return x;
    }
    char at[256];
    element_path(at, sizeof at, path, index, key);
    return json_read_number_value(r, v, at, min, max);
}

long long json_read_integer_in(struct json_reader *r, json_object *v, const char *path,
                               size_t index, const char *key, long long min, long long max)
{
    if (!v || r->status != GT_OK)
        return 0;
    if (json_object_get_type(v) == json_type_int) {
        long long x = (long long)json_object_get_int64(v);
        if (x >= min && x <= max && !(x >= 0 && json_object_get_uint64(v) > (unsigned long long)max))
            return x;
    }
    char at[256];
    element_path(at, sizeof at, path, index, key);
    return json_read_integer_value(r, v, at, min, max);
}

/* "path.key", for a member's messages. */
static void member_path(char *out, size_t cap, const char *path, const char *key)
{
    snprintf(out, cap, "%s%s%s", path, *path ? "." : "", key);
}

double json_read_number(struct json_reader *r, json_object *o, const char *key, const char *path,
                        double min, double max)
{
    char full[256];
    member_path(full, sizeof full, path, key);
    return json_read_number_value(r, json_read_member(r, o, key, json_type_double, path), full,
                                  min, max);
}

long long json_read_integer(struct json_reader *r, json_object *o, const char *key,
                            const char *path, long long min, long long max)
{
    char full[256];
    member_path(full, sizeof full, path, key);
    return json_read_integer_value(r, json_read_member(r, o, key, json_type_int, path), full, min,
                                   max);
}

int json_read_bool(struct json_reader *r, json_object *o, const char *key, const char *path)
{
    json_object *v = json_read_member(r, o, key, json_type_boolean, path);
    return v ? json_object_get_boolean(v) : 0;
}

void json_read_string(struct json_reader *r, json_object *o, const char *key, const char *path,
                      char *out, size_t cap)
{
    out[0] = '\0';
    json_object *v = json_read_member(r, o, key, json_type_string, path);
    if (!v)
        return;
    size_t len = (size_t)json_object_get_string_len(v);
    if (len >= cap || strlen(json_object_get_string(v)) != len) {
        json_read_fail(r, "\"%s%s%s\" should be a string of at most %zu bytes without NUL", path,
                       *path ? "." : "", key, cap - 1);
        return;
    }
    memcpy(out, json_object_get_string(v), len + 1);
}

char *json_read_strdup(struct json_reader *r, json_object *o, const char *key, const char *path,
                       size_t max)
{
    json_object *v = json_read_member(r, o, key, json_type_string, path);
    if (!v)
        return NULL;
    size_t len = (size_t)json_object_get_string_len(v);
    if (len > max || strlen(json_object_get_string(v)) != len) {
        json_read_fail(r, "\"%s%s%s\" should be a string of at most %zu bytes without NUL", path,
                       *path ? "." : "", key, max);
        return NULL;
    }
    char *copy = strdup(json_object_get_string(v));
    if (!copy)
        r->status = error_set(GT_ERR_NO_MEMORY, "%s: out of memory", r->what);
    return copy;
}
