/* array_copy.h - copies of the counted arrays the public structs point at (a
 * snapshot owns its GPU list, its GPU names and its per-GPU throttle
 * figures; the tracker lends its own): each copy is one allocation, freed
 * with free(). */
#ifndef GT_ARRAY_COPY_H
#define GT_ARRAY_COPY_H

#include <stddef.h>

/* A malloc'd copy of n bytes at p; NULL when n is 0 or memory runs out
 * (errno ENOMEM then). */
void *mem_dup(const void *p, size_t n);

/* A copy of the n strings of src, each cut to at most maxlen bytes, as one
 * allocation (the pointers, then the texts): free() frees all. NULL when n
 * is 0 or memory runs out (errno ENOMEM then). A NULL string is copied as
 * "". */
char **strings_dup(const char *const *src, size_t n, size_t maxlen);

#endif
