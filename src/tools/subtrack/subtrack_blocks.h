/* subtrack_blocks.h - the code blocks of a sub-tracking file: its marks
 * paired into calls as gpu_tracker pairs them (by process, in time order,
 * a start still running at the end left out), for the analysis and for
 * the report's shaded spans. */
#ifndef GT_SUBTRACK_BLOCKS_H
#define GT_SUBTRACK_BLOCKS_H

#include <stddef.h>

#include "common/internal.h"

struct subtrack_interval {
    double start, stop; /* epoch seconds, both ends included */
};

struct subtrack_block {
    const char *name;
    struct subtrack_interval *calls; /* the pairs, in process then time order */
    size_t ncalls;
    struct subtrack_interval *merged; /* the calls' union, sorted, disjoint */
    size_t nmerged;
};

struct subtrack_blocks {
    struct subtrack_block *v; /* sorted by name */
    size_t n;
    char **names;             /* owned */
};

/* Reads and pairs the marks of the sub-tracking file path (.csv or
 * .sqlite). GT_OK, or GT_ERR_IO / GT_ERR_PARSE / GT_ERR_INVALID_ARGUMENT /
 * GT_ERR_NO_MEMORY with gt_last_error() naming the file, the record or the
 * block. Free with subtrack_blocks_free (also after a failure). */
gt_status subtrack_blocks_read(const char *path, struct subtrack_blocks *out);
void subtrack_blocks_free(struct subtrack_blocks *b);

/* 1 when t is inside one of b's calls. */
int subtrack_block_holds(const struct subtrack_block *b, double t);

#endif
