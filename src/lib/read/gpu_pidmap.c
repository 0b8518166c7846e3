/* gpu_pidmap.c - see gpu_pidmap.h. */
#include "read/gpu_pidmap.h"

/* Whether every GPU in devices has no more unmatched claims than unused
 * holders (holders[0..navail)). */
static int all_closed(unsigned long long devices, const struct gpu_claim *claims, size_t nclaims,
                      const struct gpu_holder *holders, size_t navail)
{
    for (int d = 0; d < 64; d++) {
        if (!(devices >> d & 1))
            continue;
        size_t want = 0, have = 0;
        for (size_t i = 0; i < nclaims; i++)
            want += !claims[i].ours && (claims[i].devices >> d & 1);
        for (size_t h = 0; h < navail; h++)
            have += holders[h].devices >> d & 1;
        if (want > have)
            return 0;
    }
    return 1;
}

/* Moves holder h out of the unused ones. */
static void use_holder(struct gpu_holder *holders, size_t h, size_t *navail)
{
    struct gpu_holder tmp = holders[h];
    holders[h] = holders[*navail - 1];
    holders[*navail - 1] = tmp;
    (*navail)--;
}

size_t gpu_pid_match(struct gpu_claim *claims, size_t nclaims, struct gpu_holder *holders,
                     size_t nholders)
{
    size_t navail = nholders;
    for (size_t i = 0; i < nclaims; i++)
        claims[i].ours = 0;
    /* The driver's PID is one of ours, and that process holds its GPUs. */
    for (size_t i = 0; i < nclaims; i++)
        for (size_t h = 0; h < navail; h++)
            if (holders[h].pid == claims[i].host_pid &&
                (holders[h].devices & claims[i].devices) == claims[i].devices) {
                claims[i].ours = holders[h].pid;
                use_holder(holders, h, &navail);
                break;
            }
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t i = 0; i < nclaims; i++) {
            struct gpu_claim *c = &claims[i];
            if (c->ours || !c->devices || !all_closed(c->devices, claims, nclaims, holders, navail))
                continue;
            size_t found = 0, first = 0;
            int role = -1, same_role = 1;
            for (size_t h = 0; h < navail; h++) {
                if ((holders[h].devices & c->devices) != c->devices)
                    continue;
                if (!found++)
                    first = h;
                if (role >= 0 && holders[h].role != role)
                    same_role = 0;
                role = holders[h].role;
            }
            if (found == 0 || (found > 1 && !same_role))
                continue;
            c->ours = holders[first].pid;
            use_holder(holders, first, &navail);
            progress = 1;
        }
    }
    size_t left = 0;
    for (size_t i = 0; i < nclaims; i++)
        left += !claims[i].ours;
    return left;
}
