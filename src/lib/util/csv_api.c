/* csv_api.c - libcsv loaded on first use (see csv_api.h). */
#include "util/csv_api.h"

#include <pthread.h>
#include <stdio.h>

#include "util/dl_bind.h"

#define CSV_FN(field) {offsetof(struct csv_api, field), DL_NAMES("csv_" #field), 1}
static const struct dl_symbol csv_symbols[] = {
    CSV_FN(init),  CSV_FN(parse),    CSV_FN(fini),           CSV_FN(free),
    CSV_FN(error), CSV_FN(strerror), CSV_FN(set_space_func), CSV_FN(set_realloc_func),
    {0, NULL, 0},
};

int csv_api_load(const char *file, struct csv_api *into, char *err, size_t errcap)
{
    return dl_load_table(file, "libcsv3", "libcsv", "CSV files", csv_symbols, into,
                         sizeof *into, err, errcap);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct csv_api api;
static int ready;
static char failure[512];

static void load(void)
{
    ready = csv_api_load("libcsv.so.3", &api, failure, sizeof failure) == 0;
}

const struct csv_api *csv_api(char *err, size_t errcap)
{
    pthread_once(&once, load);
    if (!ready && err && errcap)
        snprintf(err, errcap, "%s", failure);
    return ready ? &api : NULL;
}
