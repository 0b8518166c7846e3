/* json_span.c - finding the parts of a JSON text (see json_span.h). */
#include "common/json_span.h"

#include <stdio.h>
#include <string.h>

static size_t skip_blanks(const char *text, size_t len, size_t pos)
{
    while (pos < len &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
        pos++;
    return pos;
}

static int fail(char *err, size_t errcap, const char *what, size_t pos)
{
    snprintf(err, errcap, "%s at byte %zu", what, pos);
    return -1;
}

/* A string from its opening quote: the offset just past its closing one.
 * Escapes are skipped over here, checked by json-c when it is parsed. */
static int skip_string(const char *text, size_t len, size_t pos, size_t *end, char *err,
                       size_t errcap)
{
    size_t start = pos++;
    while (pos < len) {
        unsigned char c = (unsigned char)text[pos];
        if (c == '"') {
            *end = pos + 1;
            return 0;
        }
        if (c < 0x20)
            return fail(err, errcap, "a control character in a string", pos);
        pos += c == '\\' ? 2 : 1;
    }
    return fail(err, errcap, "a string that does not end", start);
}

/* Walks a container from its opening bracket to just past its closing one,
 * calling fn (objects) for each member when fn is given, counting the
 * elements (arrays) in *count when count is given. */
static int walk_container(const char *text, size_t len, size_t pos, int depth, json_member_fn fn,
                          void *ctx, size_t *count, size_t *end, char *err, size_t errcap)
{
    char open = text[pos], close = open == '{' ? '}' : ']';
    if (depth < 1)
        return fail(err, errcap, "nesting deeper than allowed", pos);
    size_t n = 0;
    pos = skip_blanks(text, len, pos + 1);
    if (pos < len && text[pos] == close) {
        if (count)
            *count = 0;
        *end = pos + 1;
        return 0;
    }
    for (;;) {
        struct json_span key = {0, 0}, value;
        if (open == '{') {
            if (pos >= len || text[pos] != '"')
                return fail(err, errcap, "an object key that is not a string", pos);
            if (skip_string(text, len, pos, &key.end, err, errcap) < 0)
                return -1;
            key.start = pos;
            pos = skip_blanks(text, len, key.end);
            if (pos >= len || text[pos] != ':')
                return fail(err, errcap, "a key without ':'", pos);
            pos++;
        }
        if (json_span_value(text, len, pos, depth - 1, &value, err, errcap) < 0)
            return -1;
        n++;
        if (fn) {
            int rc = fn(ctx, key, value);
            if (rc)
                return rc;
        }
        pos = skip_blanks(text, len, value.end);
        if (pos < len && text[pos] == ',') {
            pos = skip_blanks(text, len, pos + 1);
            continue;
        }
        if (pos < len && text[pos] == close) {
            if (count)
                *count = n;
            *end = pos + 1;
            return 0;
        }
        return fail(err, errcap, open == '{' ? "an object not closed" : "an array not closed",
                    pos);
    }
}

int json_span_value(const char *text, size_t len, size_t pos, int depth, struct json_span *value,
                    char *err, size_t errcap)
{
    pos = skip_blanks(text, len, pos);
    if (pos >= len)
        return fail(err, errcap, "a value missing", pos);
    value->start = pos;
    char c = text[pos];
    if (c == '{' || c == '[')
        return walk_container(text, len, pos, depth, NULL, NULL, NULL, &value->end, err, errcap);
    if (c == '"')
        return skip_string(text, len, pos, &value->end, err, errcap);
    /* A number or a literal: up to the next separator or blank. */
    while (pos < len && !strchr(",]}: \t\r\n\"[{", text[pos]))
        pos++;
    if (pos == value->start)
        return fail(err, errcap, "an unexpected character", pos);
    value->end = pos;
    return 0;
}

int json_span_rest_blank(const char *text, size_t len, size_t pos, char *err, size_t errcap)
{
    pos = skip_blanks(text, len, pos);
    return pos == len ? 0 : fail(err, errcap, "something after the end of the document", pos);
}

int json_span_members(const char *text, struct json_span object, int depth, json_member_fn fn,
                      void *ctx, char *err, size_t errcap)
{
    size_t pos = skip_blanks(text, object.end, object.start), end;
    if (pos >= object.end || text[pos] != '{')
        return fail(err, errcap, "not an object", pos);
    return walk_container(text, object.end, pos, depth, fn, ctx, NULL, &end, err, errcap);
}

/* The array in span walked: fn called for each element, its count in *n
 * (either may be NULL). */
static int walk_array(const char *text, struct json_span array, int depth, json_member_fn fn,
                      void *ctx, size_t *n, char *err, size_t errcap)
{
    size_t pos = skip_blanks(text, array.end, array.start), end;
    if (pos >= array.end || text[pos] != '[')
        return fail(err, errcap, "not an array", pos);
    return walk_container(text, array.end, pos, depth, fn, ctx, n, &end, err, errcap);
}

int json_span_array_length(const char *text, struct json_span array, int depth, size_t *n,
                           char *err, size_t errcap)
{
    return walk_array(text, array, depth, NULL, NULL, n, err, errcap);
}

int json_span_elements(const char *text, struct json_span array, int depth, json_member_fn fn,
                       void *ctx, char *err, size_t errcap)
{
    return walk_array(text, array, depth, fn, ctx, NULL, err, errcap);
}
