/* zlib_api.h - zlib, loaded with dlopen at its first use (writing or
 * reading a gzipped snapshot), not linked: most runs make no snapshot, and
 * a linked zlib was mapped and relocated at every start (84 KiB of every
 * run's RSS and about 0.05 ms of its CPU: docs/performance.md, "Start-up").
 * The Debian packages depend on zlib1g by name. */
#ifndef GT_ZLIB_API_H
#define GT_ZLIB_API_H

#include <stddef.h>
#include <zlib.h>

/* The zlib calls we make, named as in zlib.h (the *Init2_ functions are
 * what its deflateInit2 and inflateInit2 macros call). */
struct zlib_api {
    int (*deflateInit2_)(z_streamp, int, int, int, int, int, const char *, int);
    int (*deflate)(z_streamp, int);
    int (*deflateEnd)(z_streamp);
    int (*inflateInit2_)(z_streamp, int, const char *, int);
    int (*inflate)(z_streamp, int);
    int (*inflateEnd)(z_streamp);
};

/* libz.so.1's functions, loaded the first time (thread-safe; kept loaded).
 * NULL when it cannot be loaded: err (errcap bytes) says why in one line. */
const struct zlib_api *zlib_api(char *err, size_t errcap);

/* What zlib_api() does once, from a file of the caller's choice (tests). */
int zlib_api_load(const char *file, struct zlib_api *into, char *err, size_t errcap);

/* zlib.h's deflateInit2 and inflateInit2, through the table. */
#define ZLIB_DEFLATE_INIT2(z, strm, level, method, bits, mem, strategy)                       \
    ((z)->deflateInit2_((strm), (level), (method), (bits), (mem), (strategy), ZLIB_VERSION,   \
                        (int)sizeof(z_stream)))
#define ZLIB_INFLATE_INIT2(z, strm, bits)                                                     \
    ((z)->inflateInit2_((strm), (bits), ZLIB_VERSION, (int)sizeof(z_stream)))

#endif
