/* json_write.c - JSON values the library writes (see json_write.h). */
#include "common/json_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_internal.h"
#include "common/pyfloat.h"
#include "common/toolkit.h"

json_object *json_new_pyfloat(double v)
{
    if (!isfinite(v))
        return NULL; /* json-c writes a NULL member as null */
    char num[40];
    pyfloat_repr(v, num, sizeof num);
    return json_object_new_double_s(v, num);
}

/* The length of the valid UTF-8 character at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0 when it is not one. */
static size_t utf8_char(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        unsigned char lo = s[0] == 0xE0 ? 0xA0 : 0x80, hi = s[0] == 0xED ? 0x9F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        unsigned char lo = s[0] == 0xF0 ? 0x90 : 0x80, hi = s[0] == 0xF4 ? 0x8F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

size_t utf8_sanitize(const char *s, char *out, size_t cap)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    size_t n = 0;
    if (cap == 0)
        return 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        size_t len = utf8_char(p);
        const char *piece = len ? (const char *)p : replacement;
        size_t plen = len ? len : 3;
        if (n + plen >= cap)
            break;
        memcpy(out + n, piece, plen);
        n += plen;
        p += len ? len : 1;
    }
    out[n] = '\0';
    return n;
}

char *text_escape_untrusted(const char *s)
{
    s = s ? s : "";
    size_t cap = strlen(s) * 4 + 1, n = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t len = utf8_char(p);
        /* C1 controls are U+0080..U+009F: C2 80..C2 9F in UTF-8. */
        int control = len == 1 ? (*p < 0x20 || *p == 0x7f) : len == 2 && p[0] == 0xC2 && p[1] < 0xA0;
        if (len == 0 || control) {
            for (size_t i = 0; i < (len ? len : 1); i++)
                n += (size_t)snprintf(out + n, cap - n, "\\x%02x", p[i]);
            p += len ? len : 1;
        } else {
            memcpy(out + n, p, len);
            n += len;
            p += len;
        }
    }
    out[n] = '\0';
    return out;
}

char *text_escape(const char *s)
{
    return text_escape_untrusted(s);
}

const char *text_escape_into(const char *s, char *out, size_t cap)
{
    char *safe = text_escape_untrusted(s);
    const char *from = safe ? safe : "?";
    size_t n = strlen(from);
    if (n >= cap) {
        /* cut before the character the first byte left out belongs to */
        n = cap - 1;
        while (n > 0 && ((unsigned char)from[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(out, from, n);
    out[n] = '\0';
    free(safe);
    return out;
}

json_object *json_new_text(const char *s)
{
    s = s ? s : "";
    size_t len = strlen(s);
    /* Each invalid byte becomes 3: the worst case is 3x. */
    char small[512] = "";
    char *buf = len * 3 + 1 <= sizeof small ? small : malloc(len * 3 + 1);
    if (!buf)
        return NULL;
    size_t n = utf8_sanitize(s, buf, len * 3 + 1);
    json_object *o = json_object_new_string_len(buf, (int)n);
    if (buf != small)
        free(buf);
    return o;
}

char *json_pretty_text(json_object *o)
{
    const char *s = o ? json_object_to_json_string_ext(o, JSON_PEOPLE_FLAGS) : NULL;
    char *out = s ? strdup(s) : NULL;
    json_object_put(o);
    return out;
}
