/* dl_bind.c - see dl_bind.h. */
#define _GNU_SOURCE
#include "util/dl_bind.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dl_bind(void *lib, const struct dl_symbol *table, void *base, const char **first_missing)
{
    int missing = 0;
    if (first_missing)
        *first_missing = NULL;
    for (const struct dl_symbol *s = table; s->names; s++) {
        void *p = NULL;
        for (const char *const *name = s->names; *name && !p; name++)
            p = dlsym(lib, *name);
        /* POSIX lets a data pointer from dlsym stand for a function's. */
        memcpy((char *)base + s->offset, &p, sizeof p);
        if (!p && s->required && missing++ == 0 && first_missing)
            *first_missing = s->names[0];
    }
    return missing;
}

int dl_load_table(const char *file, const char *package, const char *what,
                  const char *needed_for, const struct dl_symbol *table, void *into, size_t size,
                  char *err, size_t errcap)
{
    void *lib = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errcap, "cannot load %s, which %s need (%s, Debian package %s): %s", what,
                 needed_for, file, package, dlerror());
        return -1;
    }
    void *table_copy = calloc(1, size);
    const char *missing = NULL;
    if (!table_copy) {
        snprintf(err, errcap, "out of memory loading %s", file);
        dlclose(lib);
        return -1;
    }
    dl_bind(lib, table, table_copy, &missing);
    if (missing) {
        snprintf(err, errcap, "%s lacks %s, which gpu-tracker needs for %s", file, missing,
                 needed_for);
        free(table_copy);
        dlclose(lib);
        return -1;
    }
    memcpy(into, table_copy, size);
    free(table_copy);
    return 0;
}

const void *dl_lazy_get(struct dl_lazy *l, char *err, size_t errcap)
{
    pthread_mutex_lock(&l->lock);
    if (!l->tried) {
        l->tried = 1;
        l->ready = dl_load_table(l->file, l->package, l->what, l->needed_for, l->table, l->into,
                                 l->size, l->failure, sizeof l->failure) == 0;
    }
    int ready = l->ready;
    pthread_mutex_unlock(&l->lock);
    if (!ready && err && errcap)
        snprintf(err, errcap, "%s", l->failure);
    return ready ? l->into : NULL;
}
