/* json_c_loader.c - see json_c_loader.h.
 *
 * Every json-c function that the command and the library objects it links
 * call is defined here under json-c's own name, so that no call site
 * changes: each goes through a table bound at the first call (pthread_once;
 * after it a call costs an atomic load more). The definitions are hidden:
 * the executable exports nothing, so json-c's own calls between its
 * functions, once it is loaded, still bind to json-c.
 *
 * A function added to a call site elsewhere and not listed here fails the
 * link of gpu-tracker (an undefined reference): the list cannot fall
 * behind silently. */
#define _GNU_SOURCE
#include "json_c_loader.h"

#include <dlfcn.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The functions with a result: X(type, name, what it gives without json-c,
 * (parameters), (arguments)). What they give then is what json-c gives for
 * a NULL object or when it is out of memory, which the callers handle: no
 * object is made and no text parsed, and a summary's text is "null". */
#define JSON_C_RETURNING(X)                                                                    \
    X(int, json_object_array_add, -1, (struct json_object * obj, struct json_object * val),    \
      (obj, val))                                                                              \
    X(struct json_object *, json_object_array_get_idx, NULL,                                   \
      (const struct json_object *obj, size_t idx), (obj, idx))                                 \
    X(size_t, json_object_array_length, 0, (const struct json_object *obj), (obj))             \
    X(struct json_object *, json_object_get, NULL, (struct json_object * obj), (obj))          \
    X(json_bool, json_object_get_boolean, 0, (const struct json_object *obj), (obj))           \
    X(double, json_object_get_double, 0, (const struct json_object *obj), (obj))               \
    X(int64_t, json_object_get_int64, 0, (const struct json_object *obj), (obj))               \
    X(struct lh_table *, json_object_get_object, NULL, (const struct json_object *obj), (obj)) \
    X(const char *, json_object_get_string, NULL, (struct json_object * obj), (obj))           \
    X(int, json_object_get_string_len, 0, (const struct json_object *obj), (obj))              \
    X(enum json_type, json_object_get_type, json_type_null, (const struct json_object *obj),   \
      (obj))                                                                                   \
    X(uint64_t, json_object_get_uint64, 0, (const struct json_object *obj), (obj))             \
    X(int, json_object_is_type, 0, (const struct json_object *obj, enum json_type type),       \
      (obj, type))                                                                             \
    X(struct json_object *, json_object_new_array, NULL, (void), ())                           \
    X(struct json_object *, json_object_new_boolean, NULL, (json_bool b), (b))                 \
    X(struct json_object *, json_object_new_double, NULL, (double d), (d))                     \
    X(struct json_object *, json_object_new_double_s, NULL, (double d, const char *ds),        \
      (d, ds))                                                                                 \
    X(struct json_object *, json_object_new_int, NULL, (int32_t i), (i))                       \
    X(struct json_object *, json_object_new_int64, NULL, (int64_t i), (i))                     \
    X(struct json_object *, json_object_new_object, NULL, (void), ())                          \
    X(struct json_object *, json_object_new_string, NULL, (const char *s), (s))                \
    X(struct json_object *, json_object_new_string_len, NULL, (const char *s, const int len),  \
      (s, len))                                                                                \
    X(struct json_object *, json_object_new_uint64, NULL, (uint64_t i), (i))                   \
    X(int, json_object_object_add, -1,                                                         \
      (struct json_object * obj, const char *key, struct json_object *val), (obj, key, val))   \
    X(struct json_object *, json_object_object_get, NULL,                                      \
      (const struct json_object *obj, const char *key), (obj, key))                            \
    X(int, json_object_object_length, 0, (const struct json_object *obj), (obj))               \
    X(int, json_object_put, 0, (struct json_object * obj), (obj))                              \
    X(const char *, json_object_to_json_string_ext, "null", (struct json_object * obj,        \
      int flags), (obj, flags))                                                                \
    X(const char *, json_tokener_error_desc, "json-c is not loaded",                           \
      (enum json_tokener_error jerr), (jerr))                                                  \
    X(enum json_tokener_error, json_tokener_get_error, json_tokener_error_parse_unexpected,   \
      (struct json_tokener * tok), (tok))                                                      \
    X(size_t, json_tokener_get_parse_end, 0, (struct json_tokener * tok), (tok))               \
    X(struct json_tokener *, json_tokener_new_ex, NULL, (int depth), (depth))                  \
    X(struct json_object *, json_tokener_parse, NULL, (const char *str), (str))                \
    X(struct json_object *, json_tokener_parse_ex, NULL,                                       \
      (struct json_tokener * tok, const char *str, int len), (tok, str, len))                  \
    X(struct lh_table *, lh_kchar_table_new, NULL, (int size, lh_entry_free_fn *free_fn),      \
      (size, free_fn))                                                                         \
    X(int, lh_table_insert, -1, (struct lh_table * t, const void *k, const void *v),           \
      (t, k, v))

/* The functions without one: X(name, (parameters), (arguments)). */
#define JSON_C_VOID(X)                                                                         \
    X(json_object_object_del, (struct json_object * obj, const char *key), (obj, key))         \
    X(json_tokener_free, (struct json_tokener * tok), (tok))                                   \
    X(json_tokener_set_flags, (struct json_tokener * tok, int flags), (tok, flags))            \
    X(lh_table_free, (struct lh_table * t), (t))

/* Written by hand below: it also clears its out-parameters when it fails. */
#define JSON_C_BY_HAND(X)                                                                      \
    X(json_object_object_get_ex)                                                               \
    X(lh_table_lookup_ex)

static struct {
#define FIELD(type, name, fails, params, args) type(*name) params;
#define FIELD_VOID(name, params, args) void(*name) params;
    JSON_C_RETURNING(FIELD)
    JSON_C_VOID(FIELD_VOID)
#undef FIELD
#undef FIELD_VOID
    json_bool (*json_object_object_get_ex)(const struct json_object *, const char *,
                                           struct json_object **);
    json_bool (*lh_table_lookup_ex)(struct lh_table *, const void *, void **);
} api;

static const struct {
    const char *name;
    size_t offset;
} symbols[] = {
#define SYMBOL(type, name, fails, params, args) {#name, offsetof(__typeof__(api), name)},
#define SYMBOL_VOID(name, params, args) {#name, offsetof(__typeof__(api), name)},
#define SYMBOL_BY_HAND(name) {#name, offsetof(__typeof__(api), name)},
    JSON_C_RETURNING(SYMBOL) JSON_C_VOID(SYMBOL_VOID) JSON_C_BY_HAND(SYMBOL_BY_HAND)
#undef SYMBOL
#undef SYMBOL_VOID
#undef SYMBOL_BY_HAND
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static const char *library_file = JSON_C_LIBRARY;

void json_c_loader_use(const char *file)
{
    library_file = file;
}

/* Binds the table (all or nothing), or says in one line why it cannot. */
static void load(void)
{
    void *lib = dlopen(library_file, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        fprintf(stderr, "gpu-tracker: error: cannot load %s (%s), which JSON input and output "
                "need; install Debian's libjson-c5 package\n", library_file,
                why ? why : "not found");
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *f = dlsym(lib, symbols[i].name);
        if (!f) {
            fprintf(stderr, "gpu-tracker: error: %s lacks %s, which JSON input and output need; "
                    "install Debian's libjson-c5 package\n", library_file, symbols[i].name);
            dlclose(lib);
            memset(&api, 0, sizeof api);
            return;
        }
        /* POSIX guarantees that a function's address survives this. */
        memcpy((char *)&api + symbols[i].offset, &f, sizeof f);
    }
    loaded = 1; /* kept loaded for the life of the process */
}

int json_c_loader_ready(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

#define HIDDEN __attribute__((visibility("hidden")))
#define DEFINE(type, name, fails, params, args)                                                \
    HIDDEN type name params                                                                    \
    {                                                                                          \
        return json_c_loader_ready() ? api.name args : (fails);                                \
    }
#define DEFINE_VOID(name, params, args)                                                        \
    HIDDEN void name params                                                                    \
    {                                                                                          \
        if (json_c_loader_ready())                                                             \
            api.name args;                                                                     \
    }
JSON_C_RETURNING(DEFINE)
JSON_C_VOID(DEFINE_VOID)

HIDDEN json_bool json_object_object_get_ex(const struct json_object *obj, const char *key,
                                           struct json_object **value)
{
    if (json_c_loader_ready())
        return api.json_object_object_get_ex(obj, key, value);
    if (value)
        *value = NULL;
    return 0;
}

HIDDEN json_bool lh_table_lookup_ex(struct lh_table *t, const void *k, void **v)
{
    if (json_c_loader_ready())
        return api.lh_table_lookup_ex(t, k, v);
    if (v)
        *v = NULL;
    return 0;
}
