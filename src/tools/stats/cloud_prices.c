/* cloud_prices.c - the cheapest matching cloud server, from the Spare Cores
 * Keeper API (resource_tracker's recommend_server), over libcurl. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "gpu_tracker_tools.h"
#include "common/http.h"
#include "common/internal.h"

#define KEEPER_TIMEOUT_MS 10000L
#define KEEPER_ANSWER_MAX (4u << 20)

struct body {
    struct buf text;
    int too_big;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    struct body *b = arg;
    size_t bytes = size * n;
    if (b->text.len + bytes + 1 > KEEPER_ANSWER_MAX) {
        b->too_big = 1;
        return 0;
    }
    buf_add(&b->text, p, bytes);
    return b->text.failed ? 0 : bytes;
}

/* GETs url from the Keeper API at base into *body (malloc'd, NUL
 * terminated; the caller frees). GT_ERR_IO (cannot reach it, an HTTP
 * error, an answer over KEEPER_ANSWER_MAX) with the reason. */
static gt_status price_api_get(const struct http_api *http, const char *base, const char *url,
                            char **body)
{
    *body = NULL;
    CURL *c = http_request(http, url);
    if (!c)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    struct body b = {.too_big = 0};
    buf_init(&b.text, 0);
    struct curl_slist *h = http->slist_append(NULL, "X-Application-ID: gpu-tracker");
    char curl_err[CURL_ERROR_SIZE] = "";
    http->easy_setopt(c, CURLOPT_TIMEOUT_MS, KEEPER_TIMEOUT_MS);
    http->easy_setopt(c, CURLOPT_HTTPHEADER, h);
    http->easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    http->easy_setopt(c, CURLOPT_WRITEDATA, &b);
    http->easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    http->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    long status;
    CURLcode rc = http_perform(http, c, h, &status);
    gt_status st = GT_OK;
    if (rc != CURLE_OK)
        st = error_set(GT_ERR_IO, "cannot reach the Keeper API at %s: %s", base,
                       b.too_big ? "the answer is too big" : curl_err[0] ? curl_err : http->easy_strerror(rc));
    else if (status != 200)
        st = error_set(GT_ERR_IO, "the Keeper API at %s answered HTTP %ld", base, status);
    if (st != GT_OK) {
        buf_free(&b.text);
        return st;
    }
    if (b.text.failed)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    *body = b.text.data ? buf_take(&b.text) : NULL; /* NULL: an empty answer, as before */
    return GT_OK;
}

/* libcurl, loaded, and the API's base address (base_url, or the default).
 * GT_ERR_IO when libcurl cannot be loaded. */
static gt_status price_api_open(const char *base_url, const struct http_api **http,
                             const char **base)
{
    const char *why = "";
    *http = http_api(&why);
    if (!*http)
        return error_set(GT_ERR_IO, "cannot ask the Keeper API: %s", why);
    *base = base_url && *base_url ? base_url : GT_KEEPER_URL;
    return GT_OK;
}

gt_status gt_recommend_server(const gt_recommendation *r, const char *base_url,
                                 char **json_out)
{
    error_clear();
    *json_out = NULL;
    gt_status checked = GT_CHECK_NOT_NULL("gt_recommend_server", gt_recommendation, r);
    if (checked != GT_OK)
        return checked;
    const struct http_api *http = NULL;
    const char *base = GT_KEEPER_URL;
    if (price_api_open(base_url, &http, &base) != GT_OK)
        return GT_ERR_IO;
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

    char *data = NULL;
    gt_status st = price_api_get(http, base, url, &data);
    if (st == GT_OK) {
        json_object *root = data ? json_tokener_parse(data) : NULL;
        if (!root || !json_object_is_type(root, json_type_array)) {
            st = error_set(GT_ERR_PARSE, "the Keeper API at %s did not answer a JSON list of servers",
                           base);
        } else if (json_object_array_length(root) == 0) {
            st = error_set(GT_ERR_PARSE, "the Keeper API knows no server with at least %d vCPUs, "
                           "%d MiB of memory, %d GPUs and %d MiB of GPU memory",
                           r->cpu, r->memory_mib, r->gpu, r->vram_mib);
        } else {
            json_object *first = json_object_array_get_idx(root, 0);
            const char *s = json_object_is_type(first, json_type_object)
                                ? json_object_to_json_string_ext(first, JSON_C_TO_STRING_PRETTY |
                                                                            JSON_C_TO_STRING_SPACED)
                                : NULL;
            if (!s)
                st = error_set(GT_ERR_PARSE, "the Keeper API at %s answered a list without a server",
                               base);
            else if (!(*json_out = strdup(s)))
                st = error_set(GT_ERR_NO_MEMORY, "out of memory");
        }
        if (root)
            json_object_put(root);
    }
    free(data);
    return st;
}

/* The "price" of the first item of list that is on demand, for Linux, and
 * (region non-NULL) in region; -1 when none is. */
static double price_in(json_object *list, const char *region)
{
    size_t n = json_object_array_length(list);
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(list, i);
        json_object *alloc = json_object_object_get(it, "allocation");
        json_object *os = json_object_object_get(it, "operating_system");
        json_object *reg = json_object_object_get(it, "region_id");
        json_object *price = json_object_object_get(it, "price");
        if (!json_object_is_type(alloc, json_type_string) ||
            strcmp(json_object_get_string(alloc), "ondemand") != 0 ||
            !json_object_is_type(os, json_type_string) ||
            strcmp(json_object_get_string(os), "Linux") != 0)
            continue;
        if (region && (!json_object_is_type(reg, json_type_string) ||
                       strcmp(json_object_get_string(reg), region) != 0))
            continue;
        if (!json_object_is_type(price, json_type_double) &&
            !json_object_is_type(price, json_type_int))
            continue;
        double p = json_object_get_double(price);
        if (isfinite(p) && p >= 0)
            return p;
    }
    return -1;
}

/* Path segments from a snapshot (another user's file): letters, digits and
 * . _ - only, so that nothing else reaches the URL. */
static int safe_segment(const char *s)
{
    if (!s || !*s || strlen(s) > 96)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

gt_status gt_instance_price_at(const char *vendor, const char *region, const char *instance_type,
                               const char *base_url, double *price_per_hour)
{
    error_clear();
    *price_per_hour = 0;
    if (!safe_segment(vendor) || !safe_segment(instance_type))
        return error_set(GT_ERR_INVALID_ARGUMENT, "cannot look up the price of '%s' at '%s': a "
                         "vendor and an instance type are letters, digits, '.', '_' and '-'",
                         instance_type ? instance_type : "", vendor ? vendor : "");
    const struct http_api *http = NULL;
    const char *base = GT_KEEPER_URL;
    if (price_api_open(base_url, &http, &base) != GT_OK)
        return GT_ERR_IO;
    char url[2048];
    snprintf(url, sizeof url, "%s/server/%s/%s/prices", base, vendor, instance_type);
    char *data = NULL;
    gt_status st = price_api_get(http, base, url, &data);
    if (st != GT_OK)
        return st;
    json_object *root = data ? json_tokener_parse(data) : NULL;
    free(data);
    if (!root || !json_object_is_type(root, json_type_array)) {
        json_object_put(root);
        return error_set(GT_ERR_PARSE, "the Keeper API at %s did not answer a JSON list of prices "
                         "for %s %s", base, vendor, instance_type);
    }
    /* resource_tracker's rule: the run's region, or else any region's. */
    double p = region && *region ? price_in(root, region) : -1;
    if (p < 0)
        p = price_in(root, NULL);
    json_object_put(root);
    *price_per_hour = p > 0 ? p : 0;
    return GT_OK;
}
