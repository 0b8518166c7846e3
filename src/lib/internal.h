/* internal.h - helpers shared by the library's modules (not installed). */
#ifndef GT_INTERNAL_H
#define GT_INTERNAL_H

#include "gpu_tracker.h"

#if defined(__GNUC__)
#define GT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GT_PRINTF(a, b)
#endif

/* Records a one-line message for gt_last_error() and returns status, so that
 * a failing path reads `return gt_fail(GT_ERR_IO, "cannot read %s", p);`. */
gt_status gt_fail(gt_status status, const char *fmt, ...) GT_PRINTF(2, 3);

#include <stdarg.h>

/* gt_fail() with the message "PREFIX: " and fmt's text, for helpers that
 * name where a failure is (a file, a document) and take their callers'
 * formats. */
gt_status gt_fail_at(gt_status status, const char *prefix, const char *fmt, va_list ap)
    GT_PRINTF(3, 0);

/* Clears the message of gt_last_error(). */
void gt_clear_error(void);

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A copy of s (NULL for NULL); sets *failed when out of memory, so that a
 * run of copies is checked once. */
static inline char *dup_or_null(const char *s, int *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = 1;
    return d;
}

/* Makes room for one more element in *arr (n in use, *cap allocated, elem
 * bytes each): the capacity doubles, from 16. -1 with errno ENOMEM. */
static inline int array_reserve(void **arr, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * elem);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    *arr = p;
    *cap = ncap;
    return 0;
}

#endif
