/* keeper.c - the cheapest matching cloud server, from the Spare Cores
 * Keeper API (resource_tracker's recommend_server), over libcurl. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "internal.h"

#define KEEPER_TIMEOUT_MS 10000L
#define KEEPER_ANSWER_MAX (4u << 20)

struct body {
    char *data;
    size_t len;
    int too_big;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    struct body *b = arg;
    size_t bytes = size * n;
    if (b->len + bytes + 1 > KEEPER_ANSWER_MAX) {
        b->too_big = 1;
        return 0;
    }
    char *nd = realloc(b->data, b->len + bytes + 1);
    if (!nd)
        return 0;
    b->data = nd;
    memcpy(b->data + b->len, p, bytes);
    b->len += bytes;
    b->data[b->len] = '\0';
    return bytes;
}

gt_status gt_recommend_server(const gt_recommendation *r, char **json_out)
{
    return gt_recommend_server_at(r, NULL, json_out);
}

gt_status gt_recommend_server_at(const gt_recommendation *r, const char *base_url,
                                 char **json_out)
{
    gt_clear_error();
    *json_out = NULL;
    const char *why = "";
    const struct http_api *http = http_api(&why);
    if (!http)
        return gt_fail(GT_ERR_IO, "cannot ask the Keeper API: %s", why);
    const char *base = base_url && *base_url ? base_url : GT_KEEPER_URL;
    /* The API takes memory in GiB (Python's round: half to even) and GPU
     * memory in GiB. */
    char url[2048];
    int n = snprintf(url, sizeof url,
                     "%s/servers?vcpus_min=%d&memory_min=%d&order_by=min_price_ondemand"
                     "&order_dir=asc&limit=1",
                     base, r->cpu, (int)rint((double)r->memory_mib / 1024.0));
    if (r->gpu > 0)
        n += snprintf(url + n, sizeof url - (size_t)n, "&gpu_min=%d", r->gpu);
    if (r->vram_mib > 0)
        snprintf(url + n, sizeof url - (size_t)n, "&gpu_memory_total=%d",
                 (int)ceil((double)r->vram_mib / 1024.0));

    CURL *c = http->easy_init();
    if (!c)
        return gt_fail(GT_ERR_NO_MEMORY, "out of memory");
    struct body b = {0};
    struct curl_slist *h = http->slist_append(NULL, "X-Application-ID: gpu-tracker");
    char curl_err[CURL_ERROR_SIZE] = "";
    http->easy_setopt(c, CURLOPT_URL, url);
    http->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    http->easy_setopt(c, CURLOPT_TIMEOUT_MS, KEEPER_TIMEOUT_MS);
    http->easy_setopt(c, CURLOPT_HTTPHEADER, h);
    http->easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    http->easy_setopt(c, CURLOPT_WRITEDATA, &b);
    http->easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    http->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    CURLcode rc = http->easy_perform(c);
    long status = 0;
    if (rc == CURLE_OK)
        http->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    http->slist_free_all(h);
    http->easy_cleanup(c);

    gt_status st = GT_OK;
    if (rc != CURLE_OK) {
        st = gt_fail(GT_ERR_IO, "cannot reach the Keeper API at %s: %s", base,
                     b.too_big ? "the answer is too big" : curl_err[0] ? curl_err : http->easy_strerror(rc));
    } else if (status != 200) {
        st = gt_fail(GT_ERR_IO, "the Keeper API at %s answered HTTP %ld", base, status);
    } else {
        json_object *root = b.data ? json_tokener_parse(b.data) : NULL;
        if (!root || !json_object_is_type(root, json_type_array)) {
            st = gt_fail(GT_ERR_PARSE, "the Keeper API at %s did not answer a JSON list of servers",
                         base);
        } else if (json_object_array_length(root) == 0) {
            st = gt_fail(GT_ERR_PARSE, "the Keeper API knows no server with at least %d vCPUs, "
                         "%d MiB of memory, %d GPUs and %d MiB of GPU memory",
                         r->cpu, r->memory_mib, r->gpu, r->vram_mib);
        } else {
            json_object *first = json_object_array_get_idx(root, 0);
            const char *s = json_object_is_type(first, json_type_object)
                                ? json_object_to_json_string_ext(first, JSON_C_TO_STRING_PRETTY |
                                                                            JSON_C_TO_STRING_SPACED)
                                : NULL;
            if (!s)
                st = gt_fail(GT_ERR_PARSE, "the Keeper API at %s answered a list without a server",
                             base);
            else if (!(*json_out = strdup(s)))
                st = gt_fail(GT_ERR_NO_MEMORY, "out of memory");
        }
        if (root)
            json_object_put(root);
    }
    free(b.data);
    return st;
}
