/* warn.c - see warn.h. */
#include "common/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void warn_channel_init(struct warn_channel *w, gt_warning_fn fn, void *data, int disabled)
{
    memset(w, 0, sizeof *w);
    w->fn = disabled ? NULL : fn;
    w->data = data;
}

static void say(struct warn_channel *w, const char *fmt, va_list ap) GT_PRINTF(2, 0);
static void say(struct warn_channel *w, const char *fmt, va_list ap)
{
    if (!w->fn)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    w->fn(msg, w->data);
}

void warn_always(struct warn_channel *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(w, fmt, ap);
    va_end(ap);
}

int warn_once(struct warn_channel *w, enum warn_id id, const char *fmt, ...)
{
    /* Atomic: the backup's writer thread warns beside the sampling thread. */
    if (__atomic_exchange_n(&w->said[id], 1, __ATOMIC_ACQ_REL))
        return 0;
    va_list ap;
    va_start(ap, fmt);
    say(w, fmt, ap);
    va_end(ap);
    return 1;
}
