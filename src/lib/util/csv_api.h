/* csv_api.h - libcsv, loaded with dlopen at its first use (reading a CSV
 * tracking or sub-tracking file), not linked: most runs read no CSV file,
 * and a linked libcsv was mapped and relocated at every start
 * (docs/performance.md, "Start-up"). The Debian packages depend on libcsv3
 * by name. */
#ifndef GT_CSV_API_H
#define GT_CSV_API_H

#include <csv.h>
#include <stddef.h>

/* The libcsv calls we make, named as in csv.h less the prefix. */
struct csv_api {
    int (*init)(struct csv_parser *, unsigned char);
    size_t (*parse)(struct csv_parser *, const void *, size_t, void (*)(void *, size_t, void *),
                    void (*)(int, void *), void *);
    int (*fini)(struct csv_parser *, void (*)(void *, size_t, void *), void (*)(int, void *),
                void *);
    void (*free)(struct csv_parser *);
    int (*error)(struct csv_parser *);
    char *(*strerror)(int);
    void (*set_space_func)(struct csv_parser *, int (*)(unsigned char));
    void (*set_realloc_func)(struct csv_parser *, void *(*)(void *, size_t));
};

/* libcsv.so.3's functions, loaded the first time (thread-safe; kept
 * loaded). NULL when it cannot be loaded: err (errcap bytes) says why in
 * one line. */
const struct csv_api *csv_api(char *err, size_t errcap);

/* What csv_api() does once, from a file of the caller's choice (tests). */
int csv_api_load(const char *file, struct csv_api *into, char *err, size_t errcap);

#endif
