/* internal.h - helpers shared by the library's modules (not installed). */
#ifndef GT_INTERNAL_H
#define GT_INTERNAL_H

#include "gpu_tracker_internal.h"

#if defined(__GNUC__)
#define GT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GT_PRINTF(a, b)
#endif

/* The library's error convention.
 *
 * Inside, a function that fails returns -1 (or NULL) with errno set, and
 * lets its caller decide what it means; only the function that answers the
 * public API turns it into a gt_status and a message, with error_set() (and
 * status_of_errno() for an errno). Modules that collect a message as they go
 * (json_reader, a backend's reason) keep it in their own struct and hand it
 * to error_set() at that boundary.
 *
 * A file whose contents do not parse sets errno to ERR_MALFORMED, never
 * EINVAL: a caller must be able to tell "the kernel refused" from "the text
 * was not what we expected" (the first may be retried or reported as I/O,
 * the second is GT_ERR_PARSE). No read of /proc or /sys returns EBADMSG. */
#include <errno.h>
#define ERR_MALFORMED EBADMSG

/* What errno e means to a reader: strerror(e), or "malformed contents" for
 * ERR_MALFORMED. */
const char *errno_text(int e);

/* The gt_status an errno stands for: GT_ERR_PARSE (ERR_MALFORMED),
 * GT_ERR_NO_MEMORY (ENOMEM), GT_ERR_NO_PROCESS (ESRCH), else GT_ERR_IO. */
gt_status status_of_errno(int e);

/* Records a one-line message for gt_last_error() and returns status, so that
 * a failing path reads `return error_set(GT_ERR_IO, "cannot read %s", p);`. */
gt_status error_set(gt_status status, const char *fmt, ...) GT_PRINTF(2, 3);

#include <stdarg.h>

/* error_set() with the message "PREFIX: " and fmt's text, for helpers that
 * name where a failure is (a file, a document) and take their callers'
 * formats. */
gt_status error_set_prefixed(gt_status status, const char *prefix, const char *fmt, va_list ap)
    GT_PRINTF(3, 0);

/* Clears the message of gt_last_error(). */
void error_clear(void);

/* A struct handed to the public API (to be filled or read) whose first
 * member is struct_size: GT_OK when p is not NULL and its struct_size is at
 * least need (the 0.4 size of type: every later release keeps that
 * minimum); else GT_ERR_INVALID_ARGUMENT naming call and type. */
gt_status check_struct_size(const char *call, const char *type, const void *p, size_t need);
#define GT_CHECK_STRUCT(call, type, p) check_struct_size(call, #type, p, sizeof(type))
/* A plain struct handed to a tool (no struct_size: the tools promise no
 * ABI): GT_OK when p is not NULL, else GT_ERR_INVALID_ARGUMENT naming call
 * and type. */
gt_status check_not_null(const char *call, const char *type, const void *p);
#define GT_CHECK_NOT_NULL(call, type, p) check_not_null(call, #type, p)
/* gt_job_info as 1.0 had it (1.1 appended the request fields): the least a
 * caller's struct_size may be. */
#define GT_JOB_INFO_SIZE_1_0 offsetof(gt_job_info, cpus_per_task)

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

/* src into dst (cap bytes, cap > 0), cut to fit and always terminated:
 * snprintf(dst, cap, "%s", src) without the format machinery, for copies
 * made at every sample. */
static inline void text_copy(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memmove(dst, src, n);
    dst[n] = '\0';
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

/* The longest GPU name the results keep (gt_server_info.gpu_names, read
 * back from a file or taken from a driver), as gt_gpu_device.name holds. */
#define GT_GPU_NAME_MAX 95

#endif
