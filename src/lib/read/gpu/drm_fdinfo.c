/* drm_fdinfo.c - see drm_fdinfo.h. */
#include "read/gpu/drm_fdinfo.h"

#include <stdlib.h>
#include <string.h>

/* Copies [s, e) into out (cap bytes), cut to fit. */
static void copy_span(char *out, size_t cap, const char *s, const char *e)
{
    size_t n = (size_t)(e - s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

/* The value of a "<number>[ <unit>]" field, in bytes for a memory unit
 * (none: bytes; KiB, MiB, GiB); 0 when it is not a number. */
static int parse_amount(const char *s, const char *e, unsigned long long *out)
{
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    if (s == e || *s < '0' || *s > '9')
        return 0;
    unsigned long long v = 0;
    while (s < e && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s++ - '0');
        if (v > (~0ULL - d) / 10)
            return 0; /* too large to be a real counter */
        v = v * 10 + d;
    }
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    unsigned long long mult = 1;
    size_t unit = (size_t)(e - s);
    if (unit == 3 && !memcmp(s, "KiB", 3))
        mult = 1024;
    else if (unit == 3 && !memcmp(s, "MiB", 3))
        mult = 1024 * 1024;
    else if (unit == 3 && !memcmp(s, "GiB", 3))
        mult = 1024ULL * 1024 * 1024;
    else if (unit != 0 && !(unit == 2 && !memcmp(s, "ns", 2)))
        return 0;
    if (mult > 1 && v > ~0ULL / mult)
        return 0;
    *out = v * mult;
    return 1;
}

static int starts(const char *key, size_t klen, const char *prefix)
{
    size_t n = strlen(prefix);
    return klen > n && !memcmp(key, prefix, n);
}

static struct drm_engine *engine(struct drm_fdinfo *info, const char *name, size_t len)
{
    for (int i = 0; i < info->nengines; i++)
        if (strlen(info->engines[i].name) == len && !memcmp(info->engines[i].name, name, len))
            return &info->engines[i];
    if (info->nengines == DRM_MAX_ENGINES || len >= DRM_NAME_LEN)
        return NULL;
    struct drm_engine *e = &info->engines[info->nengines++];
    memset(e, 0, sizeof *e);
    copy_span(e->name, sizeof e->name, name, name + len);
    e->capacity = 1;
    return e;
}

/* Device memory or memory the GPU maps from the system; 0: neither (the
 * amdgpu "cpu" domain, or an unknown region). */
static int region_kind(const char *r, size_t len)
{
    if ((len >= 4 && !memcmp(r, "vram", 4)) || (len >= 5 && !memcmp(r, "local", 5)))
        return 1;
    if ((len >= 6 && !memcmp(r, "system", 6)) || (len >= 3 && !memcmp(r, "gtt", 3)))
        return 2;
    return 0;
}

int drm_fdinfo_parse(const char *text, size_t len, struct drm_fdinfo *out)
{
    memset(out, 0, sizeof *out);
    /* drm-resident-* wins over the older drm-memory-* of the same file */
    unsigned long long legacy[3] = {0, 0, 0}, resident[3] = {0, 0, 0};
    int have_resident = 0;
    const char *end = text + len;
    for (const char *line = text; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        const char *colon = memchr(line, ':', (size_t)(le - line));
        if (colon) {
            const char *key = line, *val = colon + 1;
            size_t klen = (size_t)(colon - line);
            while (val < le && (*val == ' ' || *val == '\t'))
                val++;
            const char *ve = le;
            while (ve > val && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
                ve--;
            unsigned long long v;
            if (klen == 10 && !memcmp(key, "drm-driver", 10)) {
                copy_span(out->driver, sizeof out->driver, val, ve);
            } else if (klen == 8 && !memcmp(key, "drm-pdev", 8)) {
                copy_span(out->pdev, sizeof out->pdev, val, ve);
            } else if (klen == 13 && !memcmp(key, "drm-client-id", 13)) {
                out->has_client_id = parse_amount(val, ve, &out->client_id);
            } else if (starts(key, klen, "drm-engine-capacity-")) {
                struct drm_engine *e = engine(out, key + 20, klen - 20);
                if (e && parse_amount(val, ve, &v) && v > 0 && v < 1024)
                    e->capacity = (unsigned)v;
            } else if (starts(key, klen, "drm-engine-")) {
                struct drm_engine *e = engine(out, key + 11, klen - 11);
                if (e && parse_amount(val, ve, &v)) {
                    e->ns = v;
                    e->has_ns = 1;
                }
            } else if (starts(key, klen, "drm-total-cycles-")) {
                struct drm_engine *e = engine(out, key + 17, klen - 17);
                if (e && parse_amount(val, ve, &v))
                    e->total_cycles = v;
            } else if (starts(key, klen, "drm-cycles-")) {
                struct drm_engine *e = engine(out, key + 11, klen - 11);
                if (e && parse_amount(val, ve, &v)) {
                    e->cycles = v;
                    e->has_cycles = 1;
                }
            } else if (starts(key, klen, "drm-resident-") || starts(key, klen, "drm-memory-")) {
                int is_resident = key[4] == 'r';
                size_t skip = is_resident ? 13 : 11;
                int kind = region_kind(key + skip, klen - skip);
                if (kind == 1)
                    out->has_local = 1;
                if (kind && parse_amount(val, ve, &v)) {
                    unsigned long long *sum = is_resident ? resident : legacy;
                    sum[kind] += v;
                    have_resident |= is_resident;
                }
            } else if (starts(key, klen, "drm-total-")) {
                /* a device-memory region named only by its total still
                 * makes the GPU a discrete one */
                if (region_kind(key + 10, klen - 10) == 1)
                    out->has_local = 1;
            }
        }
        line = nl ? nl + 1 : end;
    }
    const unsigned long long *use = have_resident ? resident : legacy;
    out->local_bytes = use[1];
    out->system_bytes = use[2];
    /* an xe engine with cycles only has no ns counter */
    return out->driver[0] != '\0';
}

double drm_engine_percent(const struct drm_engine *before, const struct drm_engine *after,
                          unsigned long long wall_ns)
{
    double cap = after->capacity ? (double)after->capacity : 1.0;
    double pct;
    if (after->has_cycles && before->has_cycles) {
        if (after->cycles < before->cycles || after->total_cycles <= before->total_cycles)
            return -1;
        pct = 100.0 * (double)(after->cycles - before->cycles) /
              (double)(after->total_cycles - before->total_cycles);
    } else if (after->has_ns && before->has_ns) {
        if (after->ns < before->ns || wall_ns == 0)
            return -1;
        pct = 100.0 * (double)(after->ns - before->ns) / (double)wall_ns;
    } else {
        return -1;
    }
    pct /= cap;
    return pct > 100.0 ? 100.0 : pct;
}

