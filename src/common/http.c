/* http.c - libcurl loaded on first use (see http.h). */
#define _GNU_SOURCE
#include "common/http.h"

#include <dlfcn.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>

#include "common/dl_bind.h"

#define CURL_LIBRARY "libcurl.so.4"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct http_api api;
static int ready;
static char failure[256];

/* The libcurl calls we use, curl_global_init beside them (called once). */
struct curl_table {
    struct http_api api;
    CURLcode (*global_init)(long);
};

#define CURL_FN(field, name) {offsetof(struct curl_table, field), DL_NAMES(name), 1}
static const struct dl_symbol curl_symbols[] = {
    CURL_FN(global_init, "curl_global_init"),
    CURL_FN(api.easy_init, "curl_easy_init"),
    CURL_FN(api.easy_setopt, "curl_easy_setopt"),
    CURL_FN(api.easy_perform, "curl_easy_perform"),
    CURL_FN(api.easy_getinfo, "curl_easy_getinfo"),
    CURL_FN(api.easy_cleanup, "curl_easy_cleanup"),
    CURL_FN(api.easy_strerror, "curl_easy_strerror"),
    CURL_FN(api.slist_append, "curl_slist_append"),
    CURL_FN(api.slist_free_all, "curl_slist_free_all"),
    {0, NULL, 0},
};

static void load(void)
{
    void *lib = dlopen(CURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "cannot load %s (Debian package libcurl4): %s",
                 CURL_LIBRARY, dlerror());
        return;
    }
    struct curl_table table;
    const char *missing = NULL;
    dl_bind(lib, curl_symbols, &table, &missing);
    if (missing) {
        snprintf(failure, sizeof failure, "%s lacks %s, which gpu-tracker needs", CURL_LIBRARY,
                 missing);
        return; /* kept loaded: harmless, and dlclose of libcurl is not worth the risk */
    }
    api = table.api;
    if (table.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
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

CURLcode http_perform(const struct http_api *http, CURL *c, struct curl_slist *h, long *status)
{
    *status = 0;
    CURLcode rc = http->easy_perform(c);
    if (rc == CURLE_OK)
        http->easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    http->slist_free_all(h);
    http->easy_cleanup(c);
    return rc;
}

CURL *http_request(const struct http_api *http, const char *url)
{
    CURL *c = http->easy_init();
    if (!c)
        return NULL;
    http->easy_setopt(c, CURLOPT_URL, url);
    http->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    http->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    http->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    return c;
}
