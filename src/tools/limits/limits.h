/* limits/limits.h - limits on a run (gt_limit_options: max_ram,
 * max_gpu_ram, max_time, max_cpu_time): which figure passed its limit,
 * when, and by how much, and what the run is to do about it. A state
 * machine without I/O: the watch (watch.c) hands it the run's figures after
 * each sample and at its deadlines (limits_step) and does what it returns
 * (warns; with on_limit GT_ON_LIMIT_KILL, signals the tree); docs/limits.md
 * says what each figure is. */
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
    double kill_after;            /* seconds from SIGTERM to SIGKILL */
    /* Ending the tree (GT_ON_LIMIT_KILL): when TERM went, whether KILL did. */
    int term_sent, kill_sent;
    double term_at;    /* seconds into the run */
    double term_mono;  /* monotonic time SIGTERM went */
    double kill_again; /* monotonic: SIGKILL again to what is left (a process
                          forked as its parent was killed) */
};

/* Sets up s from the limits given. */
void limits_init(struct limit_state *s, const gt_limit_options *o);

/* Records the figures of a sample taken elapsed seconds into the run.
 * Returns a mask of the figures (bit GT_LIMIT_*) that passed their limit
 * for the first time at this sample. */
unsigned limits_observe(struct limit_state *s, const struct limit_figures *f, double elapsed);

/* What the run is to do after a look at its limits. */
struct limit_action {
    int nmsgs;                        /* breaches first seen now, worded */
    char msgs[GT_LIMIT_COUNT][256];
    int signal;                       /* to the tree: 0, SIGTERM or SIGKILL */
    int again;                        /* 1: a SIGKILL sent before, sent again
                                         to what is left (nothing to say) */
};

/* One step of the state machine: the figures at monotonic time now
 * (f->value[GT_LIMIT_TIME] the seconds since the baseline) in, what to do
 * in *a. With on_limit GT_ON_LIMIT_KILL: SIGTERM at the first breach,
 * SIGKILL kill_after seconds later, and SIGKILL again every 0.2 s to a
 * process forked as its parent was killed. Only for a run with limits
 * (nset > 0): a run without has nothing to step. */
void limits_step(struct limit_state *s, const struct limit_figures *f, double now,
                 struct limit_action *a);

/* When the limits need a look between two samples (monotonic seconds):
 * the moment max_time passes (start: the baseline's monotonic time; < 0:
 * not taken yet), or the next SIGKILL; INFINITY when neither. Acting then,
 * not at the next sample, keeps --max-time and --kill-after as exact as
 * timeout(1)'s, whatever the sleep time. */
double limits_deadline(const struct limit_state *s, double start);

/* One line for a person about figure i's breach: "peak RAM 212 MB passed
 * the limit of 100 MB (--max-ram) 0.5 s into the run". */
void limits_describe(const struct limit_state *s, int i, char *out, size_t cap);

/* What gt_limit_watch_report() returns, from s. */
void limits_report(const struct limit_state *s, gt_limits *out);

/* The figure's name in option form ("max_ram") and its unit ("bytes",
 * "seconds"). */
const char *limits_option_name(int i);
const char *limits_unit(int i);

#endif
