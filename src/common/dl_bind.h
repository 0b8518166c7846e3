/* dl_bind.h - binding a table of functions from a library loaded with
 * dlopen (NVML, ROCm SMI, libcurl): one description per function, so that
 * each vendor's module lists what it calls and nothing else. */
#ifndef GT_DL_BIND_H
#define GT_DL_BIND_H

#include <stddef.h>

/* One function pointer to bind: its place in the caller's table struct,
 * the names to try in order (the first the library exports wins: a newer
 * _v2 before the old name), and whether the library is unusable without
 * it. A table ends with an entry whose names is NULL. */
struct dl_symbol {
    size_t offset;
    const char *const *names;
    int required;
};

/* A NULL-terminated list of names, for struct dl_symbol.names. */
#define DL_NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Binds every symbol of table from lib into the struct at base (a missing
 * one is set to NULL). Returns how many required ones are missing; the
 * first of them is named in *first_missing when that is not NULL. */
int dl_bind(void *lib, const struct dl_symbol *table, void *base, const char **first_missing);

#endif
