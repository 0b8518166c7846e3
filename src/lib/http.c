/* http.c - libcurl loaded on first use (see http.h). */
#define _GNU_SOURCE
#include "http.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define CURL_LIBRARY "libcurl.so.4"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct http_api api;
static int ready;
static char failure[256];

static void *sym(void *lib, const char *name, int *missing)
{
    void *p = dlsym(lib, name);
    if (!p)
        *missing = 1;
    return p;
}

static void load(void)
{
    void *lib = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "cannot load %s (Debian package libcurl4): %s",
                 CURL_LIBRARY, dlerror());
        return;
    }
    int missing = 0;
    CURLcode (*global_init)(long) = (CURLcode(*)(long))sym(lib, "curl_global_init", &missing);
    api.easy_init = (CURL * (*)(void)) sym(lib, "curl_easy_init", &missing);
    api.easy_setopt = (CURLcode(*)(CURL *, CURLoption, ...))sym(lib, "curl_easy_setopt", &missing);
    api.easy_perform = (CURLcode(*)(CURL *))sym(lib, "curl_easy_perform", &missing);
    api.easy_getinfo = (CURLcode(*)(CURL *, CURLINFO, ...))sym(lib, "curl_easy_getinfo", &missing);
    api.easy_cleanup = (void (*)(CURL *))sym(lib, "curl_easy_cleanup", &missing);
    api.easy_strerror = (const char *(*)(CURLcode))sym(lib, "curl_easy_strerror", &missing);
    api.slist_append =
        (struct curl_slist * (*)(struct curl_slist *, const char *)) sym(lib, "curl_slist_append",
                                                                        &missing);
    api.slist_free_all = (void (*)(struct curl_slist *))sym(lib, "curl_slist_free_all", &missing);
    if (missing) {
        snprintf(failure, sizeof failure, "%s lacks a function gpu-tracker needs", CURL_LIBRARY);
        return; /* kept loaded: harmless, and dlclose of libcurl is not worth the risk */
    }
    if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(failure, sizeof failure, "libcurl failed to initialize");
        return;
    }
    ready = 1;
}

const struct http_api *http_api(const char **why)
{
    pthread_once(&once, load);
    if (!ready && why)
        *why = failure;
    return ready ? &api : NULL;
}
