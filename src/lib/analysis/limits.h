/* analysis/limits.h - limits on a run (gt_options.max_ram, max_gpu_ram,
 * max_time, max_cpu_time): which figure passed its limit, when, and by how
 * much. Pure bookkeeping: the tracker hands it the run's figures after each
 * sample and acts on what it says (warns, or ends the tree when
 * on_limit is GT_ON_LIMIT_KILL); docs/limits.md says what each figure is. */
#ifndef GT_LIMITS_H
#define GT_LIMITS_H

#include <stddef.h>

#include "gpu_tracker_tools.h"

/* The figures a limit may be put on, in the order of gt_limits.figure. */
struct limit_figures {
    double value[GT_LIMIT_COUNT]; /* bytes (RAM, GPU RAM) or seconds */
};

struct limit_state {
    double limit[GT_LIMIT_COUNT]; /* 0: none */
    double peak[GT_LIMIT_COUNT];  /* the highest value observed */
    double at[GT_LIMIT_COUNT];    /* seconds into the run when first seen past; < 0: not */
    int nset;                     /* limits given */
    unsigned warned;              /* bit i: figure i's breach was warned of */
    int on_limit;                 /* GT_ON_LIMIT_* */
    /* Ending the tree (GT_ON_LIMIT_KILL): when TERM went, whether KILL did. */
    int term_sent, kill_sent;
    double term_at;
    double kill_again; /* monotonic: SIGKILL again to what is left (a process
                          forked as its parent was killed) */
};

/* Sets up s from the options' limits. */
void limits_init(struct limit_state *s, const gt_options *o);

/* Records the figures of a sample taken elapsed seconds into the run.
 * Returns a mask of the figures (bit GT_LIMIT_*) that passed their limit
 * for the first time at this sample. */
unsigned limits_observe(struct limit_state *s, const struct limit_figures *f, double elapsed);

/* One line for a person about figure i's breach: "peak RAM 212 MB passed
 * the limit of 100 MB (--max-ram) 0.5 s into the run". */
void limits_describe(const struct limit_state *s, int i, char *out, size_t cap);

/* What gt_tracker_limits() returns, from s. */
void limits_report(const struct limit_state *s, gt_limits *out);

/* The figure's name in option form ("max_ram") and its unit ("bytes",
 * "seconds"). */
const char *limits_option_name(int i);
const char *limits_unit(int i);

#endif
