/* http.h - libcurl for the library's HTTP clients (cloud metadata, the
 * Keeper API), loaded with dlopen on first use: the tracker itself never
 * pays for it (libcurl brings some thirty libraries and megabytes of
 * resident memory into every process that links it). */
#ifndef GT_HTTP_H
#define GT_HTTP_H

#include <curl/curl.h>
#include <stddef.h>

/* The libcurl calls we use. */
struct http_api {
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

/* Loads libcurl.so.4 and initializes it, the first time (thread-safe).
 * NULL when it cannot: *why (may be NULL) then says why. */
const struct http_api *http_api(const char **why);

/* A new request to url (NULL when out of memory) that may speak http and
 * https only, also after a redirect (never file://, ftp:// or the others
 * libcurl knows: a URL from a variable must not make a root run read a
 * file for its caller), without signals (the library's threads). Every
 * request of the library starts here. */
CURL *http_request(const struct http_api *http, const char *url);

/* Performs the request c set up by the caller (h: its header list, or
 * NULL), then frees both. Returns libcurl's code; *status is the HTTP
 * status of the answer (0 when none came). */
CURLcode http_perform(const struct http_api *http, CURL *c, struct curl_slist *h, long *status);

#endif
