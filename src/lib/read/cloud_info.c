/* cloud_info.c - cloud metadata discovery with libcurl (see cloud_info.h). */
#define _GNU_SOURCE
#include "read/cloud_info.h"
#include "common/internal.h"


#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/background.h"
#include "common/http.h"

#define REQUEST_TIMEOUT_MS 1000L
#define ANSWER_MAX 65536

/* A discovery: the background job and where it writes its answer. */
/* A discovery's input and answer, owned by its background job. */
struct discovery_job {
    char *base_url; /* NULL: the real services */
    gt_cloud_info info;
};

struct cloud_discovery {
    struct background *job;
    struct discovery_job *info;
};

struct answer {
    char data[ANSWER_MAX];
    size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
    struct answer *a = arg;
    size_t bytes = size * n;
    if (a->len + bytes >= sizeof a->data)
        return 0; /* too big for metadata: fail the request */
    memcpy(a->data + a->len, p, bytes);
    a->len += bytes;
    a->data[a->len] = '\0';
    return bytes;
}

/* One request; 0 with the body in a when the answer is 200, else -1. */
static int request(const char *url, const char *method, const char *header1,
                   const char *header2, struct answer *a)
{
    const struct http_api *http = http_api(NULL);
    if (!http)
        return -1;
    CURL *c = http_request(http, url);
    if (!c)
        return -1;
    a->len = 0;
    a->data[0] = '\0';
    struct curl_slist *h = NULL;
    if (header1)
        h = http->slist_append(h, header1);
    if (header2)
        h = http->slist_append(h, header2);
    http->easy_setopt(c, CURLOPT_TIMEOUT_MS, REQUEST_TIMEOUT_MS);
    http->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, REQUEST_TIMEOUT_MS);
    http->easy_setopt(c, CURLOPT_NOPROXY, "*"); /* metadata is never behind a proxy */
    http->easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    http->easy_setopt(c, CURLOPT_WRITEDATA, a);
    if (h)
        http->easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (method)
        http->easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    long status;
    CURLcode rc = http_perform(http, c, h, &status);
    return rc == CURLE_OK && status == 200 ? 0 : -1;
}

/* Copies src (or "unknown" when empty) into dst, cut to fit. */
static void set(char *dst, size_t cap, const char *src)
{
    if (!src || !*src)
        src = "unknown";
    size_t len = strlen(src);
    if (len >= cap)
        len = cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static int check_aws(const char *base, struct answer *a, gt_cloud_info *out)
{
    char url[1024], token_header[1024];
    int found = 0;
    snprintf(url, sizeof url, "%s/latest/api/token", base);
    if (request(url, "PUT", "X-aws-ec2-metadata-token-ttl-seconds: 21600", NULL, a) == 0 &&
        a->len < 512) {
        snprintf(token_header, sizeof token_header, "X-aws-ec2-metadata-token: %.512s", a->data);
        snprintf(url, sizeof url, "%s/latest/meta-data/services/domain", base);
        /* another cloud may offer a compatible service: it must say AWS */
        if (request(url, NULL, token_header, NULL, a) == 0 && strcmp(a->data, "amazonaws.com") == 0) {
            found = 1;
            set(out->vendor, sizeof out->vendor, "aws");
            snprintf(url, sizeof url, "%s/latest/meta-data/instance-type", base);
            set(out->instance_type, sizeof out->instance_type,
                request(url, NULL, token_header, NULL, a) == 0 ? a->data : NULL);
            snprintf(url, sizeof url, "%s/latest/meta-data/placement/region", base);
            set(out->region, sizeof out->region,
                request(url, NULL, token_header, NULL, a) == 0 ? a->data : NULL);
        }
    }
    return found;
}

/* The last '/'-separated part of s. */
static const char *last_part(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static int check_gcp(const char *base, struct answer *a, gt_cloud_info *out)
{
    char url[1024];
    int found = 0;
    snprintf(url, sizeof url, "%s/computeMetadata/v1/instance/machine-type", base);
    if (request(url, NULL, "Metadata-Flavor: Google", NULL, a) == 0 && a->len > 0) {
        found = 1;
        set(out->vendor, sizeof out->vendor, "gcp");
        set(out->instance_type, sizeof out->instance_type, last_part(a->data));
        snprintf(url, sizeof url, "%s/computeMetadata/v1/instance/zone", base);
        if (request(url, NULL, "Metadata-Flavor: Google", NULL, a) == 0) {
            /* projects/N/zones/us-central1-a: the region is the zone less its last part */
            char zone[96];
            set(zone, sizeof zone, last_part(a->data));
            char *dash = strrchr(zone, '-');
            if (dash)
                *dash = '\0';
            set(out->region, sizeof out->region, zone);
        } else {
            set(out->region, sizeof out->region, NULL);
        }
    }
    return found;
}

static int check_azure(const char *base, struct answer *a, gt_cloud_info *out)
{
    char url[1024];
    int found = 0;
    snprintf(url, sizeof url, "%s/metadata/instance?api-version=2021-02-01", base);
    if (request(url, NULL, "Metadata: true", NULL, a) == 0) {
        json_object *root = json_tokener_parse(a->data), *compute, *v;
        if (root && json_object_object_get_ex(root, "compute", &compute) &&
            json_object_is_type(compute, json_type_object)) {
            found = 1;
            set(out->vendor, sizeof out->vendor, "azure");
            set(out->instance_type, sizeof out->instance_type,
                json_object_object_get_ex(compute, "vmSize", &v) ? json_object_get_string(v) : NULL);
            set(out->region, sizeof out->region,
                json_object_object_get_ex(compute, "location", &v) ? json_object_get_string(v) : NULL);
        }
        if (root)
            json_object_put(root);
    }
    return found;
}

static void discover(const char *base_url, gt_cloud_info *out)
{
    double t0 = monotonic_now();
    memset(out, 0, sizeof *out);
    out->asked = 1;
    const char *link_local = base_url ? base_url : "http://169.254.169.254";
    const char *google = base_url ? base_url : "http://metadata.google.internal";
    /* One answer buffer for every request: too big for a thread's stack. */
    struct answer *a = malloc(sizeof *a);
    if (a && http_api(NULL))
        out->found = check_aws(link_local, a, out) || check_gcp(google, a, out) ||
                     check_azure(link_local, a, out);
    free(a);
    if (!out->found) {
        set(out->vendor, sizeof out->vendor, NULL);
        set(out->instance_type, sizeof out->instance_type, NULL);
        set(out->region, sizeof out->region, NULL);
    }
    out->discovery_time = monotonic_now() - t0;
}

static void discover_run(void *arg)
{
    struct discovery_job *j = arg;
    discover(j->base_url, &j->info);
}

static void discovery_job_free(void *arg)
{
    struct discovery_job *j = arg;
    if (j)
        free(j->base_url);
    free(j);
}

struct cloud_discovery *cloud_discovery_start(const char *base_url)
{
    struct cloud_discovery *d = calloc(1, sizeof *d);
    struct discovery_job *info = calloc(1, sizeof *info);
    int failed = 0;
    if (info && base_url && *base_url)
        info->base_url = dup_or_null(base_url, &failed);
    struct background *job = d && info && !failed
        ? background_start("gt:cloud", discover_run, info, discovery_job_free) : NULL;
    if (!job) {
        free(d);
        discovery_job_free(info);
        return NULL;
    }
    d->job = job;
    d->info = info;
    return d;
}

int cloud_discovery_ready(struct cloud_discovery *d)
{
    return !d || background_done(d->job);
}

void cloud_discovery_finish(struct cloud_discovery *d, double max_wait, gt_cloud_info *out)
{
    memset(out, 0, sizeof *out);
    out->asked = 1;
    set(out->vendor, sizeof out->vendor, NULL);
    set(out->instance_type, sizeof out->instance_type, NULL);
    set(out->region, sizeof out->region, NULL);
    if (!d)
        return;
    if (background_wait(d->job, max_wait)) {
        *out = d->info->info;
        discovery_job_free(d->info);
    } /* else the job frees its answer when it ends */
    free(d);
}
