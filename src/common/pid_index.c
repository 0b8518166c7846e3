/* pid_index.c - see pid_index.h. */
#include "common/pid_index.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define INITIAL_CAP 64

struct pid_index_slot {
    pid_t pid; /* 0: empty (no process has PID 0) */
    uint32_t value;
};

/* Fibonacci hashing: PIDs are mostly consecutive numbers, which the
 * multiplication spreads over the whole table. */
static size_t home_of(pid_t pid, size_t cap)
{
    uint32_t h = (uint32_t)pid * 2654435769u;
    return (size_t)h & (cap - 1);
}

void pid_index_init(struct pid_index *ix)
{
    ix->slots = NULL;
    ix->cap = ix->count = 0;
}

void pid_index_free(struct pid_index *ix)
{
    free(ix->slots);
    pid_index_init(ix);
}

/* The slot holding pid, or the empty slot where it would go. */
static size_t probe(const struct pid_index *ix, pid_t pid)
{
    size_t i = home_of(pid, ix->cap);
    while (ix->slots[i].pid != 0 && ix->slots[i].pid != pid)
        i = (i + 1) & (ix->cap - 1);
    return i;
}

static int grow(struct pid_index *ix)
{
    size_t ncap = ix->cap ? ix->cap * 2 : INITIAL_CAP;
    if (ncap > (size_t)UINT32_MAX || ncap > SIZE_MAX / sizeof *ix->slots) {
        errno = ENOMEM;
        return -1;
    }
    struct pid_index_slot *old = ix->slots;
    size_t oldcap = ix->cap;
    ix->slots = calloc(ncap, sizeof *ix->slots);
    if (!ix->slots) {
        ix->slots = old;
        errno = ENOMEM;
        return -1;
    }
    ix->cap = ncap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].pid != 0)
            ix->slots[probe(ix, old[i].pid)] = old[i];
    free(old);
    return 0;
}

int pid_index_put(struct pid_index *ix, pid_t pid, size_t value)
{
    if (pid <= 0 || value > UINT32_MAX) {
        errno = EINVAL;
        return -1;
    }
    /* At most half full: probes stay short. */
    if ((ix->count + 1) * 2 > ix->cap && grow(ix) < 0)
        return -1;
    size_t i = probe(ix, pid);
    if (ix->slots[i].pid == 0)
        ix->count++;
    ix->slots[i].pid = pid;
    ix->slots[i].value = (uint32_t)value;
    return 0;
}

int pid_index_get(const struct pid_index *ix, pid_t pid, size_t *value)
{
    if (ix->cap == 0 || pid <= 0)
        return 0;
    size_t i = probe(ix, pid);
    if (ix->slots[i].pid == 0)
        return 0;
    *value = ix->slots[i].value;
    return 1;
}

void pid_index_remove(struct pid_index *ix, pid_t pid)
{
    if (ix->cap == 0 || pid <= 0)
        return;
    size_t hole = probe(ix, pid);
    if (ix->slots[hole].pid == 0)
        return;
    ix->count--;
    /* Backward shift: move up every later entry of the run that may live
     * in the hole (its home is not between the hole and itself), so that
     * no probe ever stops early at the emptied slot. */
    size_t mask = ix->cap - 1;
    for (size_t j = (hole + 1) & mask; ix->slots[j].pid != 0; j = (j + 1) & mask) {
        size_t home = home_of(ix->slots[j].pid, ix->cap);
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays)
            continue;
        ix->slots[hole] = ix->slots[j];
        hole = j;
    }
    ix->slots[hole].pid = 0;
}
