/* dl_bind.h - binding a table of functions from a library loaded with
 * dlopen (NVML, ROCm SMI, libcurl): one description per function, so that
 * each vendor's module lists what it calls and nothing else. */
#ifndef GT_DL_BIND_H
#define GT_DL_BIND_H

#include <pthread.h>
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

/* A library of Debian's that only some runs need (SQLite, zlib, libcsv),
 * loaded at its first use rather than linked: file is dlopen'ed
 * (RTLD_NOW | RTLD_LOCAL, kept loaded) and table bound into the struct at
 * into (size bytes, written only when every required function is there).
 * 0, or -1 with one line in err naming the library, its Debian package and
 * what needs it ("cannot load zlib, which snapshots need (libz.so.1, Debian
 * package zlib1g): ..."; "libz.so.1 lacks inflate, which gpu-tracker needs
 * for snapshots"). what is the library's name, needed_for what needs it. */
int dl_load_table(const char *file, const char *package, const char *what,
                  const char *needed_for, const struct dl_symbol *table, void *into, size_t size,
                  char *err, size_t errcap);

/* Such a library loaded once, at the first dl_lazy_get(), for the life of
 * the process: a static struct per library, made with DL_LAZY(). */
struct dl_lazy {
    const char *file, *package, *what, *needed_for;
    const struct dl_symbol *table;
    void *into;
    size_t size;
    pthread_mutex_t lock;
    int tried, ready;
    char failure[512];
};
#define DL_LAZY(file, package, what, needed_for, table, into)                                  \
    {(file), (package), (what), (needed_for), (table), (into), sizeof *(into),                 \
     PTHREAD_MUTEX_INITIALIZER, 0, 0, ""}

/* The bound table (l->into) once l's library is loaded (thread-safe; the
 * first call loads it, later ones answer at once). NULL when it cannot be
 * loaded: err (errcap bytes; may be NULL) then says why, in one line. */
const void *dl_lazy_get(struct dl_lazy *l, char *err, size_t errcap);

#endif
