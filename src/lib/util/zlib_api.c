/* zlib_api.c - zlib loaded on first use (see zlib_api.h). */
#include "util/zlib_api.h"

#include <pthread.h>
#include <stdio.h>

#include "util/dl_bind.h"

#define ZLIB_FN(field) {offsetof(struct zlib_api, field), DL_NAMES(#field), 1}
static const struct dl_symbol zlib_symbols[] = {
    ZLIB_FN(deflateInit2_), ZLIB_FN(deflate), ZLIB_FN(deflateEnd),
    ZLIB_FN(inflateInit2_), ZLIB_FN(inflate), ZLIB_FN(inflateEnd),
    {0, NULL, 0},
};

int zlib_api_load(const char *file, struct zlib_api *into, char *err, size_t errcap)
{
    return dl_load_table(file, "zlib1g", "zlib", "gzipped snapshots", zlib_symbols, into,
                         sizeof *into, err, errcap);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct zlib_api api;
static int ready;
static char failure[512];

static void load(void)
{
    ready = zlib_api_load("libz.so.1", &api, failure, sizeof failure) == 0;
}

const struct zlib_api *zlib_api(char *err, size_t errcap)
{
    pthread_once(&once, load);
    if (!ready && err && errcap)
        snprintf(err, errcap, "%s", failure);
    return ready ? &api : NULL;
}
