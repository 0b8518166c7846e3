/* dl_bind.c - see dl_bind.h. */
#define _GNU_SOURCE
#include "common/dl_bind.h"

#include <dlfcn.h>
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
