/* zlib_api.c - zlib loaded on first use (see zlib_api.h). */
#include "util/zlib_api.h"

#include "util/dl_bind.h"

#define ZLIB_FN(field) {offsetof(struct zlib_api, field), DL_NAMES(#field), 1}
static const struct dl_symbol zlib_symbols[] = {
    ZLIB_FN(deflateInit2_), ZLIB_FN(deflate), ZLIB_FN(deflateEnd),
    ZLIB_FN(inflateInit2_), ZLIB_FN(inflate), ZLIB_FN(inflateEnd),
    {0, NULL, 0},
};

/* The library, its Debian package, its name and what needs it, for
 * dl_load_table()'s messages. */
#define LIBRARY "libz.so.1"
#define PACKAGE "zlib1g"
#define NAME "zlib"
#define NEEDED_FOR "gzipped snapshots"

int zlib_api_load(const char *file, struct zlib_api *into, char *err, size_t errcap)
{
    return dl_load_table(file, PACKAGE, NAME, NEEDED_FOR, zlib_symbols, into, sizeof *into, err,
                         errcap);
}

static struct zlib_api api;
static struct dl_lazy lazy = DL_LAZY(LIBRARY, PACKAGE, NAME, NEEDED_FOR, zlib_symbols, &api);

const struct zlib_api *zlib_api(char *err, size_t errcap)
{
    return dl_lazy_get(&lazy, err, errcap);
}
