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

/* A metadata service's address. A request that gets no HTTP answer at all
 * (no route, refused, timed out) marks it down, and no vendor asks it
 * again: off the clouds the discovery costs one timeout per address, not
 * one per vendor. */
struct metadata_host {
    const char *base;
    int down;
};

/* GET (or method) base + path; 0 with the body in a when the answer is
 * 200, else -1. */
static int request(struct metadata_host *host, const char *path, const char *method,
                   const char *header1, const char *header2, struct answer *a)
{
    a->len = 0;
    a->data[0] = '\0';
    const struct http_api *http = http_api(NULL);
    if (!http || host->down)
        return -1;
    char url[1024];
    snprintf(url, sizeof url, "%s%s", host->base, path);
    CURL *c = http_request(http, url);
    if (!c)
        return -1;
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
    if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
        host->down = 1; /* a too-big answer is an answer: the host is up */
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

/* The three fields; NULL (or "") gives "unknown". */
static void found_at(gt_cloud_info *out, const char *vendor, const char *instance_type,
                     const char *region)
{
    set(out->vendor, sizeof out->vendor, vendor);
    set(out->instance_type, sizeof out->instance_type, instance_type);
    set(out->region, sizeof out->region, region);
}

/* The string member key of a JSON object, or NULL. */
static const char *json_text(json_object *obj, const char *key)
{
    json_object *v;
    if (!obj || !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* The body of a request (GET base + path) as a JSON object, or NULL; the
 * caller puts it. */
static json_object *request_json(struct metadata_host *host, const char *path, const char *header,
                                 struct answer *a)
{
    if (request(host, path, NULL, header, NULL, a) != 0)
        return NULL;
    json_object *root = json_tokener_parse(a->data);
    if (root && !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        root = NULL;
    }
    return root;
}

/* An IMDSv2-style service (AWS, Alibaba Cloud): a token from PUT
 * /latest/api/token with ttl_header, then GETs with token_name: TOKEN.
 * Fills token_header; 0 when a token came. */
static int imds_token(struct metadata_host *host, const char *ttl_header, const char *token_name,
                      struct answer *a, char *token_header, size_t cap)
{
    if (request(host, "/latest/api/token", "PUT", ttl_header, NULL, a) != 0 || a->len == 0 ||
        a->len >= 512 || strpbrk(a->data, "\r\n"))
        return -1;
    snprintf(token_header, cap, "%s: %.511s", token_name, a->data);
    return 0;
}

static int check_aws(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    char token[600], type[96];
    if (imds_token(host, "X-aws-ec2-metadata-token-ttl-seconds: 21600", "X-aws-ec2-metadata-token",
                   a, token, sizeof token) != 0)
        return 0;
    /* another cloud may offer a compatible service: it must say AWS */
    if (request(host, "/latest/meta-data/services/domain", NULL, token, NULL, a) != 0 ||
        strcmp(a->data, "amazonaws.com") != 0)
        return 0;
    set(type, sizeof type,
        request(host, "/latest/meta-data/instance-type", NULL, token, NULL, a) == 0 ? a->data : NULL);
    found_at(out, "aws", type,
             request(host, "/latest/meta-data/placement/region", NULL, token, NULL, a) == 0 ? a->data
                                                                                            : NULL);
    return 1;
}

/* The last '/'-separated part of s. */
static const char *last_part(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static int check_gcp(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    const char *flavor = "Metadata-Flavor: Google";
    if (request(host, "/computeMetadata/v1/instance/machine-type", NULL, flavor, NULL, a) != 0 ||
        a->len == 0)
        return 0;
    char type[96], zone[96];
    set(type, sizeof type, last_part(a->data));
    const char *region = NULL;
    if (request(host, "/computeMetadata/v1/instance/zone", NULL, flavor, NULL, a) == 0) {
        /* projects/N/zones/us-central1-a: the region is the zone less its last part */
        set(zone, sizeof zone, last_part(a->data));
        char *dash = strrchr(zone, '-');
        if (dash)
            *dash = '\0';
        region = zone;
    }
    found_at(out, "gcp", type, region);
    return 1;
}

static int check_azure(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    json_object *root = request_json(host, "/metadata/instance?api-version=2021-02-01",
                                     "Metadata: true", a);
    json_object *compute;
    int found = root && json_object_object_get_ex(root, "compute", &compute) &&
                json_object_is_type(compute, json_type_object);
    if (found)
        found_at(out, "azure", json_text(compute, "vmSize"), json_text(compute, "location"));
    if (root)
        json_object_put(root);
    return found;
}

/* Hetzner Cloud: /hetzner/v1/metadata, YAML of "key: value" lines; it
 * must carry instance-id. The region is its "region" (eu-central); the
 * service gives no server type. */
static int check_hetzner(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    if (request(host, "/hetzner/v1/metadata", NULL, NULL, NULL, a) != 0)
        return 0;
    int has_id = 0;
    char region[96] = "";
    for (char *line = a->data, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *colon = strchr(line, ':');
        if (!colon || line[0] == ' ' || line[0] == '-')
            continue; /* a nested or list line */
        *colon = '\0';
        char *value = colon + 1;
        value += strspn(value, " \t");
        size_t len = strcspn(value, "\r");
        if (len >= 2 && (value[0] == '\'' || value[0] == '"') && value[len - 1] == value[0]) {
            value++;
            len -= 2;
        }
        value[len] = '\0';
        if (!strcmp(line, "instance-id") && *value)
            has_id = 1;
        else if (!strcmp(line, "region"))
            set(region, sizeof region, value);
    }
    if (has_id)
        found_at(out, "hcloud", NULL, region);
    return has_id;
}

/* UpCloud: /metadata/v1.json with cloud_name "upcloud"; no plan given. */
static int check_upcloud(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    json_object *root = request_json(host, "/metadata/v1.json", NULL, a);
    const char *name = json_text(root, "cloud_name");
    int found = name && !strcmp(name, "upcloud");
    if (found)
        found_at(out, "upcloud", NULL, json_text(root, "region"));
    if (root)
        json_object_put(root);
    return found;
}

/* Vultr: /v1.json with instanceid or instance-v2-id; the region is
 * region.regioncode (EWR); no plan given. */
static int check_vultr(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    json_object *root = request_json(host, "/v1.json", NULL, a), *region;
    int found = json_text(root, "instanceid") || json_text(root, "instance-v2-id");
    if (found)
        found_at(out, "vultr", NULL,
                 json_object_object_get_ex(root, "region", &region) ? json_text(region, "regioncode")
                                                                    : NULL);
    if (root)
        json_object_put(root);
    return found;
}

/* Alibaba Cloud ECS at 100.100.100.200, in its hardened mode: a token,
 * then instance/instance-type and region-id. */
static int check_alicloud(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    char token[600], type[96];
    if (imds_token(host, "X-aliyun-ecs-metadata-token-ttl-seconds: 21600",
                   "X-aliyun-ecs-metadata-token", a, token, sizeof token) != 0)
        return 0;
    if (request(host, "/latest/meta-data/instance/instance-type", NULL, token, NULL, a) != 0)
        return 0;
    set(type, sizeof type, a->data);
    found_at(out, "alicloud", type,
             request(host, "/latest/meta-data/region-id", NULL, token, NULL, a) == 0 ? a->data : NULL);
    return 1;
}

/* OVHcloud Public Cloud (OpenStack): network_data.json must list OVH's
 * resolver 213.186.33.99 as its DNS service; the region is meta_data.json's
 * availability_zone (not OpenStack's default "nova"), the flavor
 * /latest/meta-data/instance-type. */
static int check_ovh(struct metadata_host *host, struct answer *a, gt_cloud_info *out)
{
    json_object *net = request_json(host, "/openstack/latest/network_data.json", NULL, a), *services;
    int found = 0;
    if (net && json_object_object_get_ex(net, "services", &services) &&
        json_object_is_type(services, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(services); i++) {
            json_object *svc = json_object_array_get_idx(services, i);
            const char *type = json_text(svc, "type"), *address = json_text(svc, "address");
            if (type && address && !strcmp(type, "dns") && !strcmp(address, "213.186.33.99"))
                found = 1;
        }
    }
    if (net)
        json_object_put(net);
    if (!found)
        return 0;
    char region[96] = "";
    json_object *meta = request_json(host, "/openstack/latest/meta_data.json", NULL, a);
    const char *zone = json_text(meta, "availability_zone");
    if (zone && strcmp(zone, "nova") != 0)
        set(region, sizeof region, zone);
    if (meta)
        json_object_put(meta);
    found_at(out, "ovh",
             request(host, "/latest/meta-data/instance-type", NULL, NULL, NULL, a) == 0 ? a->data : NULL,
             region);
    return 1;
}

/* The vendors in the order they are asked, and which address each asks. */
enum metadata_address { LINK_LOCAL, GOOGLE, ALIBABA, ADDRESSES };
static const struct vendor_probe {
    enum metadata_address address;
    int (*check)(struct metadata_host *, struct answer *, gt_cloud_info *);
} vendor_probes[] = {
    {LINK_LOCAL, check_aws},     {GOOGLE, check_gcp},     {LINK_LOCAL, check_azure},
    {LINK_LOCAL, check_hetzner}, {LINK_LOCAL, check_upcloud}, {LINK_LOCAL, check_vultr},
    {ALIBABA, check_alicloud},   {LINK_LOCAL, check_ovh},
};

static void discover(const char *base_url, gt_cloud_info *out)
{
    double t0 = monotonic_now();
    memset(out, 0, sizeof *out);
    out->asked = 1;
    /* With base_url (tests) every vendor asks that one address. */
    struct metadata_host hosts[ADDRESSES] = {
        {base_url ? base_url : "http://169.254.169.254", 0},
        {base_url ? base_url : "http://metadata.google.internal", 0},
        {base_url ? base_url : "http://100.100.100.200", 0},
    };
    struct metadata_host *host_of[ADDRESSES] = {&hosts[0], base_url ? &hosts[0] : &hosts[1],
                                                base_url ? &hosts[0] : &hosts[2]};
    /* One answer buffer for every request: too big for a thread's stack. */
    struct answer *a = malloc(sizeof *a);
    if (a && http_api(NULL))
        for (size_t i = 0; !out->found && i < sizeof vendor_probes / sizeof vendor_probes[0]; i++)
            out->found = vendor_probes[i].check(host_of[vendor_probes[i].address], a, out);
    free(a);
    if (!out->found)
        found_at(out, NULL, NULL, NULL);
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
