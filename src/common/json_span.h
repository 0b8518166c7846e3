/* json_span.h - the parts of a JSON text, found without parsing them.
 *
 * A reader of an untrusted document must bound what it costs before it
 * builds anything: json-c turns every value into an object of ~80 bytes, so
 * a 100 KB gzip of a 52-million-element array would cost gigabytes. These
 * functions walk the text and only say where things are: the members of an
 * object (each key and its value's byte span) and how many elements an
 * array has. The reader then parses, with json-c, only the parts it wants,
 * one at a time and after checking their size; the rest is never parsed.
 *
 * The walk checks the structure it crosses (brackets, quotes, separators,
 * nesting depth); the contents of a value are json-c's to check when that
 * value is parsed. Offsets are into text; a span is [start, end). */
#ifndef GT_JSON_SPAN_H
#define GT_JSON_SPAN_H

#include <stddef.h>

struct json_span {
    size_t start, end;
};

/* The value that starts at text[pos] (after blanks): its span. depth is how
 * deep it may nest (1: a scalar, or an array or object of scalars). 0, or
 * -1 with a one-line reason (at most errcap bytes) in err. */
int json_span_value(const char *text, size_t len, size_t pos, int depth, struct json_span *value,
                    char *err, size_t errcap);

/* Checks that only blanks are in text[pos..len): 0, or -1 with the reason. */
int json_span_rest_blank(const char *text, size_t len, size_t pos, char *err, size_t errcap);

/* Calls fn for each member of the object in span (which must be one), in
 * order: key is the span of the key string, quotes included (parse it to
 * unescape it), value the span of its value, which may nest depth - 1
 * deep. Stops at the first nonzero return of fn and returns it; -1 with the
 * reason in err when the object is malformed. */
typedef int (*json_member_fn)(void *ctx, struct json_span key, struct json_span value);
int json_span_members(const char *text, struct json_span object, int depth, json_member_fn fn,
                      void *ctx, char *err, size_t errcap);

/* The number of elements of the array in span, each nesting at most
 * depth - 1 deep. 0, or -1 with the reason (not an array, malformed). */
int json_span_array_length(const char *text, struct json_span array, int depth, size_t *n,
                           char *err, size_t errcap);

/* Calls fn for each element of the array in span, in order (key is
 * {0, 0}; value the element's span, nesting at most depth - 1 deep). Stops
 * at the first nonzero return of fn and returns it; -1 with the reason when
 * the array is malformed. */
int json_span_elements(const char *text, struct json_span array, int depth, json_member_fn fn,
                       void *ctx, char *err, size_t errcap);

#endif
