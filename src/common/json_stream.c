/* json_stream.c - JSON text a piece at a time (json_stream.h). */
#define _GNU_SOURCE
#include "common/json_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void stream_put(struct json_stream *k, const void *data, size_t len)
{
    if (!k->failed && len && k->put(k, data, len) < 0 && !k->failed)
        k->failed = errno ? errno : EIO;
}

void stream_puts(struct json_stream *k, const char *s)
{
    stream_put(k, s, strlen(s));
}

int put_gzip(struct json_stream *k, const void *data, size_t len)
{
    k->z.next_in = (Bytef *)data;
    k->z.avail_in = (uInt)len;
    while (k->z.avail_in > 0) {
        k->z.next_out = k->zbuf;
        k->z.avail_out = sizeof k->zbuf;
        if (deflate(&k->z, Z_NO_FLUSH) == Z_STREAM_ERROR) {
            errno = EIO;
            return -1;
        }
        if (output_stream_write(k->stream, k->zbuf, sizeof k->zbuf - k->z.avail_out) < 0)
            return -1;
    }
    return 0;
}

/* Ends the gzip stream. */
int finish_gzip(struct json_stream *k)
{
    int rc;
    do {
        k->z.next_out = k->zbuf;
        k->z.avail_out = sizeof k->zbuf;
        rc = deflate(&k->z, Z_FINISH);
        if (rc == Z_STREAM_ERROR ||
            output_stream_write(k->stream, k->zbuf, sizeof k->zbuf - k->z.avail_out) < 0)
            return -1;
    } while (rc != Z_STREAM_END);
    return 0;
}

int put_memory(struct json_stream *k, const void *data, size_t len)
{
    buf_add(&k->text, data, len);
    if (k->text.failed) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* A json-c object as compact text, then freed. */
void stream_put_object(struct json_stream *k, json_object *o)
{
    const char *s = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE)
                      : "null";
    if (!s)
        k->failed = ENOMEM;
    else
        stream_puts(k, s);
    json_object_put(o);
}
