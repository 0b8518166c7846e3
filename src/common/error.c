/* error.c - status texts and the per-thread last-error message. */
#include "common/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];

const char *gt_strerror(gt_status status)
{
    switch (status) {
    case GT_OK: return "success";
    case GT_ERR_INVALID_ARGUMENT: return "invalid argument";
    case GT_ERR_STATE: return "operation not valid in the tracker's state";
    case GT_ERR_NO_PROCESS: return "no such process";
    case GT_ERR_IO: return "input/output error";
    case GT_ERR_PARSE: return "malformed input";
    case GT_ERR_NO_MEMORY: return "out of memory";
    case GT_ERR_SYSTEM: return "system call failed";
    case GT_ERR_UNAVAILABLE: return "not measured in this run";
    }
    return "unknown status";
}

const char *errno_text(int e)
{
    return e == ERR_MALFORMED ? "malformed contents" : strerror(e);
}

gt_status status_of_errno(int e)
{
    switch (e) {
    case ERR_MALFORMED: return GT_ERR_PARSE;
    case ENOMEM: return GT_ERR_NO_MEMORY;
    case ESRCH: return GT_ERR_NO_PROCESS;
    default: return GT_ERR_IO;
    }
}

const char *gt_last_error(void) { return last_error; }

const char *gt_version(void) { return GT_VERSION_STRING; }

void error_clear(void) { last_error[0] = '\0'; }

gt_status error_set_prefixed(gt_status status, const char *prefix, const char *fmt, va_list ap)
{
    int n = snprintf(last_error, sizeof last_error, "%s: ", prefix);
    if (n >= 0 && (size_t)n < sizeof last_error - 1)
        vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    return status; /* a message too long for the buffer is cut, never overrun */
}

gt_status error_set(gt_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

gt_status check_not_null(const char *call, const char *type, const void *p)
{
    if (!p)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: NULL %s", call, type);
    return GT_OK;
}

gt_status check_struct_size(const char *call, const char *type, const void *p, size_t need)
{
    if (!p)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: NULL %s", call, type);
    size_t given;
    memcpy(&given, p, sizeof given); /* struct_size, the first member */
    if (given < need)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s: invalid %s.struct_size %zu: set it to "
                         "sizeof(%s)", call, type, given, type);
    return GT_OK;
}

