/* sample.c - the helpers of sample.h: what both the readers, which fill a
 * sample, and the pipeline, which consumes it, need. */
#include "sample.h"

#include <stdlib.h>
#include <string.h>

int pid_roles_get(const struct pid_roles *roles, pid_t pid)
{
    size_t slot;
    if (!roles->index || !pid_index_get(roles->index, pid, &slot))
        return 0;
    return roles->role[slot];
}

void system_series_sample_free(struct system_series_sample *s)
{
    free(s->disks);
    free(s->nets);
    memset(s, 0, sizeof *s);
}

void system_series_sample_swap(struct system_series_sample *a,
                               struct system_series_sample *b)
{
    struct system_series_sample t = *a;
    *a = *b;
    *b = t;
}
