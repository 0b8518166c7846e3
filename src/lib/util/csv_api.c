/* csv_api.c - libcsv loaded on first use (see csv_api.h). */
#include "util/csv_api.h"

#include "util/dl_bind.h"

#define CSV_FN(field) {offsetof(struct csv_api, field), DL_NAMES("csv_" #field), 1}
static const struct dl_symbol csv_symbols[] = {
    CSV_FN(init),  CSV_FN(parse),    CSV_FN(fini),           CSV_FN(free),
    CSV_FN(error), CSV_FN(strerror), CSV_FN(set_space_func), CSV_FN(set_realloc_func),
    {0, NULL, 0},
};

/* The library, its Debian package, its name and what needs it, for
 * dl_load_table()'s messages. */
#define LIBRARY "libcsv.so.3"
#define PACKAGE "libcsv3"
#define NAME "libcsv"
#define NEEDED_FOR "CSV files"

int csv_api_load(const char *file, struct csv_api *into, char *err, size_t errcap)
{
    return dl_load_table(file, PACKAGE, NAME, NEEDED_FOR, csv_symbols, into, sizeof *into, err,
                         errcap);
}

static struct csv_api api;
static struct dl_lazy lazy = DL_LAZY(LIBRARY, PACKAGE, NAME, NEEDED_FOR, csv_symbols, &api);

const struct csv_api *csv_api(char *err, size_t errcap)
{
    return dl_lazy_get(&lazy, err, errcap);
}
