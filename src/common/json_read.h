/* json_read.h - reading JSON documents that others wrote: one parser
 * setting and one set of value readers for the summary, the snapshot and
 * whatever else the library reads.
 *
 * A reader keeps the first problem only (so that a document gets one line,
 * naming the key path) and every later call on it does nothing. Values are
 * checked where they are read: numbers finite and within the range the
 * caller gives (never truncated into a smaller type), strings valid UTF-8
 * (json-c checks) that fit. */
#ifndef GT_JSON_READ_H
#define GT_JSON_READ_H

#include <json-c/json.h>
#include <stddef.h>

#include "gpu_tracker_internal.h"

/* How deep any document we read nests (ours: 6 levels). */
#define JSON_READ_MAX_DEPTH 16

struct json_reader {
    gt_status status; /* GT_OK until the first problem */
    const char *what; /* prefixed to messages: "'run.json.gz' is not a valid snapshot" */
};

/* Records a problem (the first only) as GT_ERR_PARSE: "<what>: <message>". */
void json_read_fail(struct json_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parses text[0..len) as one JSON value in json-c's strict mode (no NaN or
 * Infinity, no trailing commas or garbage, valid UTF-8), at most
 * JSON_READ_MAX_DEPTH deep. where names the part in a message (may be "").
 * The caller puts the result; NULL after a failure, and for a JSON null
 * (then r->status is still GT_OK). */
json_object *json_read_parse(struct json_reader *r, const char *text, size_t len,
                             const char *where);

/* The member key of o (path: its dotted name, for messages) when it is
 * there and of the type (json_type_double also takes an integer); NULL
 * after recording "missing key" or "should be". NULL o: NULL, nothing
 * recorded (the problem with o was). */
json_object *json_read_member(struct json_reader *r, json_object *o, const char *key,
                              json_type type, const char *path);

/* A number from min to max (a finite double, or an integer). 0 after a
 * failure. */
double json_read_number(struct json_reader *r, json_object *o, const char *key, const char *path,
                        double min, double max);

/* An integer from min to max (no fraction, no truncation). */
long long json_read_integer(struct json_reader *r, json_object *o, const char *key,
                            const char *path, long long min, long long max);

/* A value (not a member) read as json_read_number/json_read_integer do;
 * path names it. */
double json_read_number_value(struct json_reader *r, json_object *v, const char *path, double min,
                              double max);
long long json_read_integer_value(struct json_reader *r, json_object *v, const char *path,
                                  long long min, long long max);

/* The two above for an element of a long list (a series' column, its rows),
 * the path built only when there is something to say: "PATH[INDEX]", or
 * "PATH.KEY" when key is not NULL. Reading a million rows no longer formats
 * a million paths. */
double json_read_number_in(struct json_reader *r, json_object *v, const char *path, size_t index,
                           const char *key, double min, double max);
long long json_read_integer_in(struct json_reader *r, json_object *v, const char *path,
                               size_t index, const char *key, long long min, long long max);

int json_read_bool(struct json_reader *r, json_object *o, const char *key, const char *path);

/* A string that must fit in out (cap bytes with its NUL). */
void json_read_string(struct json_reader *r, json_object *o, const char *key, const char *path,
                      char *out, size_t cap);

/* A string of at most max bytes, malloc'd (NULL after a failure). */
char *json_read_strdup(struct json_reader *r, json_object *o, const char *key, const char *path,
                       size_t max);

#endif
