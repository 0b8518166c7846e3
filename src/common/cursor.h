/* cursor.h - the cursor the text parsers share (proc_parse.c, sys_parse.c):
 * a position in [p, end) that reading numbers moves along. No sscanf or
 * atoi: every number is checked for overflow. */
#ifndef GT_CURSOR_H
#define GT_CURSOR_H

#include <limits.h>

struct cursor {
    const char *p;
    const char *end;
};

static inline void skip_blanks(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

/* Reads an unsigned decimal after blanks; -1 when there is no digit or it
 * overflows 64 bits. */
static inline int read_u64(struct cursor *c, unsigned long long *out)
{
    skip_blanks(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return -1;
    unsigned long long v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        c->p++;
    }
    *out = v;
    return 0;
}

/* Reads an unsigned hexadecimal (no 0x) after blanks, as /proc prints
 * signal masks; -1 when there is no digit or it overflows 64 bits. */
static inline int read_hex64(struct cursor *c, unsigned long long *out)
{
    skip_blanks(c);
    unsigned long long v = 0;
    int digits = 0;
    while (c->p < c->end) {
        char ch = *c->p;
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            d = (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            d = (unsigned)(ch - 'A' + 10);
        else
            break;
        if (v >> 60)
            return -1;
        v = v << 4 | d;
        digits++;
        c->p++;
    }
    if (!digits)
        return -1;
    *out = v;
    return 0;
}

#endif
