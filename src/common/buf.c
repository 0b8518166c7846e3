/* buf.c - see buf.h. */
#include "common/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t first)
{
    memset(b, 0, sizeof *b);
    b->first = first;
}

void buf_init_in(struct buf *b, char *block, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->stack = b->data = block;
    b->cap = b->stack_cap = cap;
    block[0] = '\0';
}

int buf_reserve(struct buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (n < b->cap - b->len && b->data)
        return 0;
    size_t need = b->len + n + 1;
    if (need < n) { /* overflow */
        b->failed = ENOMEM;
        return -1;
    }
    size_t cap = b->cap ? b->cap : (b->first ? b->first : 256);
    while (cap < need)
        cap *= 2;
    char *p = b->data && b->data != b->stack ? realloc(b->data, cap) : malloc(cap);
    if (!p) {
        b->failed = ENOMEM;
        return -1;
    }
    if (b->data == b->stack && b->stack)
        memcpy(p, b->stack, b->len + 1);
    else if (!b->data)
        p[0] = '\0';
    b->data = p;
    b->cap = cap;
    return 0;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_add(b, small, (size_t)n);
        return;
    }
    if (buf_reserve(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_clear(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

/* Back to what buf_init or buf_init_in made, the failure forgotten. */
static void reset(struct buf *b)
{
    b->data = b->stack;
    b->cap = b->stack_cap;
    b->len = 0;
    b->failed = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *buf_take(struct buf *b)
{
    char *out = NULL;
    if (!b->failed && b->data && b->data != b->stack) {
        out = b->data; /* handed over as it is */
    } else if (!b->failed) {
        out = malloc(b->len + 1);
        if (out) {
            if (b->len)
                memcpy(out, b->data, b->len);
            out[b->len] = '\0';
        }
    } else if (b->data != b->stack) {
        free(b->data);
    }
    reset(b);
    return out;
}

void buf_free(struct buf *b)
{
    if (b->data != b->stack)
        free(b->data);
    reset(b);
}

int grow_array(void *array, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : (first ? first : 16);
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) {
            errno = ENOMEM;
            return -1;
        }
        ncap *= 2;
    }
    if (elem && ncap > SIZE_MAX / elem) {
        errno = ENOMEM;
        return -1;
    }
    void *old;
    memcpy(&old, array, sizeof old); /* *array, whatever its element type */
    void *p = realloc(old, ncap * elem);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(array, &p, sizeof p);
    *cap = ncap;
    return 0;
}
