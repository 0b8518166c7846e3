/* cgroup_parse.c - see cgroup_parse.h. */
#include "common/parse/cgroup_parse.h"

#include <string.h>

/* A decimal count of at most 20 digits that fits 64 bits: its length, or
 * 0 when p does not start with one. */
static size_t count_at(const char *p, const char *end, unsigned long long *out)
{
    unsigned long long v = 0;
    size_t n = 0;
    while (p + n < end && p[n] >= '0' && p[n] <= '9') {
        unsigned d = (unsigned)(p[n] - '0');
        if (v > (~0ULL - d) / 10)
            return 0; /* overflows 64 bits */
        v = v * 10 + d;
        n++;
    }
    if (n)
        *out = v;
    return n;
}

/* Whether a path may be joined to a mount point: absolute, no "..". */
static int path_ok(const char *p, size_t n)
{
    if (n == 0 || p[0] != '/' || n >= CGROUP_PATH_LEN || memchr(p, '\0', n))
        return 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
            (i + 2 == n || p[i + 2] == '/'))
            return 0;
    return 1;
}

/* Whether the comma-separated list [p, p + n) names controller c. */
static int names(const char *p, size_t n, const char *c)
{
    size_t cn = strlen(c);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && p[j] != ',')
            j++;
        if (j - i == cn && memcmp(p + i, c, cn) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

int cgroup_parse_membership(const char *buf, size_t len, struct cgroup_membership *out)
{
    memset(out, 0, sizeof *out);
    const char *end = buf + len;
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        /* "ID:CONTROLLERS:PATH"; the path may itself hold ':' */
        const char *c1 = memchr(line, ':', (size_t)(le - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(le - c1 - 1)) : NULL;
        if (le > line) {
            if (!c2)
                return -1;
            const char *ctl = c1 + 1, *path = c2 + 1;
            size_t nctl = (size_t)(c2 - ctl), npath = (size_t)(le - path);
            if (!path_ok(path, npath))
                return -1;
            struct {
                const char *name;
                char *dst;
                int *have;
            } want[] = {{"memory", out->memory, &out->have_memory},
                        {"cpu", out->cpu, &out->have_cpu},
                        {"cpuacct", out->cpuacct, &out->have_cpuacct}};
            if (nctl == 0 && c1 - line == 1 && line[0] == '0') {
                memcpy(out->unified, path, npath);
                out->unified[npath] = '\0';
                out->have_unified = 1;
            }
            for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
                if (names(ctl, nctl, want[i].name)) {
                    memcpy(want[i].dst, path, npath);
                    want[i].dst[npath] = '\0';
                    *want[i].have = 1;
                }
        }
        line = nl ? nl + 1 : end;
    }
    return out->have_unified || out->have_memory || out->have_cpu || out->have_cpuacct ? 0 : -1;
}

int cgroup_parse_value(const char *buf, size_t len, unsigned long long *out, int *is_max)
{
    *out = 0;
    *is_max = 0;
    if (len && buf[len - 1] == '\n')
        len--;
    if (len == 3 && memcmp(buf, "max", 3) == 0) {
        *is_max = 1;
        return 0;
    }
    return len && count_at(buf, buf + len, out) == len ? 0 : -1;
}

int cgroup_parse_keyed(const char *buf, size_t len, const char *const *keys, size_t nkeys,
                       unsigned long long *values, unsigned *found)
{
    *found = 0;
    const char *end = buf + len;
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        const char *sp = memchr(line, ' ', (size_t)(le - line));
        for (size_t k = 0; sp && k < nkeys && k < 32; k++) {
            size_t kn = strlen(keys[k]);
            if ((size_t)(sp - line) != kn || memcmp(line, keys[k], kn) != 0)
                continue;
            unsigned long long v = 0;
            if (count_at(sp + 1, le, &v) != (size_t)(le - sp - 1))
                return -1;
            values[k] = v;
            *found |= 1u << k;
        }
        line = nl ? nl + 1 : end;
    }
    return 0;
}

/* "total=N" in the line [p, le): N into *out. */
static int total_of(const char *p, const char *le, unsigned long long *out)
{
    *out = 0;
    for (const char *q = p; q + 6 <= le; q++)
        if ((q == p || q[-1] == ' ') && memcmp(q, "total=", 6) == 0) {
            size_t n = count_at(q + 6, le, out);
            return n && (q + 6 + n == le || q[6 + n] == ' ') ? 0 : -1;
        }
    return -1;
}

int cgroup_parse_pressure(const char *buf, size_t len, struct psi_totals *out)
{
    memset(out, 0, sizeof *out);
    int have_some = 0;
    const char *end = buf + len;
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - line);
        if (n > 5 && memcmp(line, "some ", 5) == 0) {
            if (total_of(line + 5, le, &out->some_us) < 0)
                return -1;
            have_some = 1;
        } else if (n > 5 && memcmp(line, "full ", 5) == 0) {
            if (total_of(line + 5, le, &out->full_us) < 0)
                return -1;
            out->have_full = 1;
        } else if (n) {
            return -1;
        }
        line = nl ? nl + 1 : end;
    }
    return have_some ? 0 : -1;
}
