/* json_write.h - values for the JSON the library writes (the summary, the
 * snapshot): numbers as Python prints floats, and text that is always valid
 * JSON for any reader. */
#ifndef GT_JSON_WRITE_H
#define GT_JSON_WRITE_H

#include <json-c/json.h>
#include <stddef.h>

/* A number printed as Python prints the float (json-c's own "%.17g" writes
 * 0.1 as 0.10000000000000001); NaN and infinities, which are not JSON,
 * become null. */
json_object *json_new_pyfloat(double v);

/* json-c's flags for the library's JSON for people (json_pretty_text). */
#define JSON_PEOPLE_FLAGS \
    (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The text of o as the library lays out JSON for people (json-c's pretty
 * form, two-space indents, "/" unescaped), o released. Caller frees; NULL
 * (o released too) when o is NULL or memory runs out. */
char *json_pretty_text(json_object *o);

/* A string with every invalid UTF-8 sequence replaced by U+FFFD (a command
 * line may hold any bytes; another reader of the file must still be able to
 * parse it). NULL s is "". */
json_object *json_new_text(const char *s);

/* s, which came from outside (a file, a server), for a terminal: control
 * characters (C0, DEL, C1: escape sequences, a carriage return, a screen
 * clear among them) and bytes that are not UTF-8 as \xNN. malloc'd; NULL
 * when memory runs out. NULL s is "". (text_escape() for programs.) */
char *text_escape_untrusted(const char *s);

/* s as valid UTF-8 into out (cap bytes; invalid sequences become U+FFFD,
 * the result cut at a character boundary to fit). Returns its length. */
size_t utf8_sanitize(const char *s, char *out, size_t cap);

#endif
