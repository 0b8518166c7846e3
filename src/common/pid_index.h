/* pid_index.h - where a process stands in an array, by its PID.
 *
 * The tree walk looks every listed process up among those it tracks, and the
 * GPU attribution looks up every process the driver names: with a linear
 * scan a walk was O(n^2) in the size of the tree (5 000 processes, 25
 * million comparisons a sample). This is an open-addressing hash table
 * (linear probing, deletion by backward shift, so no tombstones pile up over
 * a long run of process churn): lookups, insertions and removals take
 * constant time on average. It is kept at most half full and never shrinks:
 * its memory is 8 to 32 bytes per PID it held at its fullest (at least 64
 * slots). Not thread-safe: its owner's lock guards it. */
#ifndef GT_PID_INDEX_H
#define GT_PID_INDEX_H

#include <stddef.h>
#include <sys/types.h>

struct pid_index_slot;

struct pid_index {
    struct pid_index_slot *slots; /* NULL until the first put */
    size_t cap;                   /* a power of two, or 0 */
    size_t count;
};

/* An empty index (no memory until the first put). */
void pid_index_init(struct pid_index *ix);
void pid_index_free(struct pid_index *ix);

/* Maps pid (> 0) to value, replacing the value it had. 0, or -1 with errno
 * ENOMEM (the index is unchanged). */
int pid_index_put(struct pid_index *ix, pid_t pid, size_t value);

/* 1 and *value when pid is in the index, 0 when it is not. */
int pid_index_get(const struct pid_index *ix, pid_t pid, size_t *value);

/* Removes pid; nothing when it is not there. */
void pid_index_remove(struct pid_index *ix, pid_t pid);

#endif
