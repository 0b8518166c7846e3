/* json_stream.h - JSON text written a piece at a time, through zlib into an
 * output file or into a string in memory: what the snapshot writers
 * (snapshot.c, snapshot_rt.c) stream a long run's rows through. The first
 * failure is kept; later pieces are dropped. */
#ifndef GT_JSON_STREAM_H
#define GT_JSON_STREAM_H

#include <json-c/json.h>
#include <stddef.h>
#include "common/buf.h"
#include "common/file_io.h"
#include <zlib.h>

/* Where the text goes: zlib into a file, or a string in memory. (Not a
 * sink of sink/: those take a run's rows while it is sampled.) */
struct json_stream {
    int failed;    /* errno of the first failure, 0 while all is well */
    int (*put)(struct json_stream *k, const void *data, size_t len);
    /* the file */
    struct output_stream *stream;
    z_stream z;
    unsigned char zbuf[65536];
    /* the string */
    struct buf text;
};

/* Appends len bytes (nothing after a failure). */
void stream_put(struct json_stream *k, const void *data, size_t len);
void stream_puts(struct json_stream *k, const char *s);
/* A json-c object as compact text (NULL: null), then freed. */
void stream_put_object(struct json_stream *k, json_object *o);

/* The two kinds of stream's put: deflate into k->stream, or grow k->text. */
int put_gzip(struct json_stream *k, const void *data, size_t len);
int put_memory(struct json_stream *k, const void *data, size_t len);
/* Ends the gzip stream: 0, or -1 with errno. */
int finish_gzip(struct json_stream *k);

#endif
