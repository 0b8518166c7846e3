/* array_copy.c - see array_copy.h. */
#include "common/array_copy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void *mem_dup(const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    void *q = malloc(n);
    if (!q) {
        errno = ENOMEM;
        return NULL;
    }
    return memcpy(q, p, n);
}

char **strings_dup(const char *const *src, size_t n, size_t maxlen)
{
    if (n == 0)
        return NULL;
    size_t text = 0;
    for (size_t i = 0; i < n; i++)
        text += strnlen(src[i] ? src[i] : "", maxlen) + 1;
    char **out = malloc(n * sizeof *out + text);
    if (!out) {
        errno = ENOMEM;
        return NULL;
    }
    char *at = (char *)(out + n);
    for (size_t i = 0; i < n; i++) {
        const char *s = src[i] ? src[i] : "";
        size_t len = strnlen(s, maxlen);
        memcpy(at, s, len);
        at[len] = '\0';
        out[i] = at;
        at += len + 1;
    }
    return out;
}
