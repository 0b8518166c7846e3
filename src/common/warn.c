/* warn.c - see warn.h. */
#include "common/warn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void warner_init(struct warner *w, gt_warning_fn fn, void *data, int disabled)
{
    memset(w, 0, sizeof *w);
    w->fn = disabled ? NULL : fn;
    w->data = data;
}

static void say(struct warner *w, const char *fmt, va_list ap) GT_PRINTF(2, 0);
static void say(struct warner *w, const char *fmt, va_list ap)
{
    if (!w->fn)
        return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    w->fn(msg, w->data);
}

void warn_always(struct warner *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(w, fmt, ap);
    va_end(ap);
}

int warn_once(struct warner *w, enum warn_id id, const char *fmt, ...)
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
