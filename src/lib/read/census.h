/* census.h - who was in the tracked tree over the run: its processes
 * grouped by command (the data loader workers, the compiler jobs of
 * `make -j`), and which process held the most memory at each sample.
 *
 * Fed by tree_walk() from what the walk already read (stat's comm and
 * ticks, the PSS estimate it sums), so it reads no file of its own. Per
 * process and walk it costs a 16-byte compare and a few additions: a
 * process keeps the slot of its group until its comm changes (an exec),
 * when the group is looked up again by a hash of the name. It allocates
 * only when a new command or a change of the top process appears, never
 * for a sample that brings neither.
 *
 * Bounds: at most CENSUS_MAX_GROUPS commands are told apart (the rest are
 * counted together as "(others)", and said to be), and at most
 * CENSUS_MAX_CHANGES changes of the top process are kept: past that the
 * timeline is thinned (a holder of less than the current resolution is
 * forgotten) and the resolution doubled, so a week of flapping costs what a
 * minute does.
 *
 * The tree's walk writes it on the sampling thread while callers read it on
 * theirs: every call takes its mutex. */
#ifndef GT_CENSUS_H
#define GT_CENSUS_H

#include <pthread.h>
#include <stddef.h>

#include "gpu_tracker_internal.h"
#include "sample.h"

#define CENSUS_MAX_GROUPS 1024
#define CENSUS_MAX_CHANGES 4096
#define CENSUS_OTHER_NAME "(others)"

struct census_group {
    char name[16];
    long processes;            /* distinct processes seen under this name */
    long live, peak_live;      /* at this walk; the most at one walk */
    unsigned long long ticks;  /* CPU ticks its processes were seen to use */
    unsigned long long pss_kb, peak_pss_kb; /* this walk's sum; the most at one walk */
    unsigned stamp;            /* the walk live and pss_kb belong to */
    /* This walk's workers (descendants) of the group: how many were live,
     * the ticks credited to them, their main threads' runnable time. */
    long walk_workers;
    unsigned long long walk_ticks, walk_runnable_ns;
};

struct census_change {
    double mono;               /* the walk's monotonic time */
    int pid;
    char name[16];
};

/* What a tracked process carries for the census (in struct tracked_proc). */
struct census_slot {
    int group;                 /* index + 1 in groups; 0: not placed yet */
    char comm[16];             /* the name it was placed by */
    unsigned long long in_group; /* ticks counted in that group */
    unsigned long long credited; /* its own ticks already counted */
};

struct census {
    pthread_mutex_t lock;
    int ready;                 /* census_init() was called: lock exists */
    struct census_group *groups;
    size_t ngroups, capgroups;
    int *hash;                 /* open addressing: index + 1, 0 empty */
    size_t hashcap;
    size_t *touched;           /* groups with live processes this walk */
    size_t ntouched, captouched;
    long folded;               /* processes counted under CENSUS_OTHER_NAME
                                  for want of room */
    unsigned stamp;            /* walks begun */
    int failed;                /* out of memory once: the figures are partial */
    /* The top process by PSS at each walk, as changes. */
    struct census_change *changes;
    size_t nchanges, capchanges;
    double resolution;         /* seconds; 0 until the first thinning */
    int top_pid;
    char top_name[16];
    unsigned long long top_kb;
    /* The busiest worker group of the last walk (census_end), by the
     * larger of its CPU time and its runnable time; tick_ns converts. */
    unsigned long long tick_ns;
    struct worker_load busiest;
};

void census_init(struct census *c);
/* Frees what c holds; a zeroed census (never initialised) is a no-op. */
void census_free(struct census *c);

/* One walk: begin, one add per live process, end. Called by tree_walk()
 * only (the walk's lock is taken at begin and given back at end); after
 * the end, busiest says the walk's busiest worker group (read on the
 * walking thread only). */
void census_begin(struct census *c);
void census_add(struct census *c, struct census_slot *slot, int pid, const char *comm,
                unsigned long long own_ticks, unsigned long long pss_kb, int alive);
/* census_add() for a descendant (a worker): runnable_ns is what its main
 * thread ran and waited for a CPU since the last walk (0: not known). */
void census_add_worker(struct census *c, struct census_slot *slot, int pid, const char *comm,
                       unsigned long long own_ticks, unsigned long long pss_kb, int alive,
                       unsigned long long runnable_ns);
void census_end(struct census *c, double mono);

/* The groups, largest CPU time first (then largest peak), at most
 * GT_COMMAND_GROUPS_MAX, the rest summed; ticks converted with
 * ticks_per_second. out->struct_size is the caller's. */
void census_groups(struct census *c, double ticks_per_second, gt_command_groups *out);

/* The top process's changes as a snapshot keeps them (malloc'd; *n
 * entries), each time in seconds after mono_start. NULL with *n 0 when
 * there are none or out of memory. */
gt_top_process *census_top_changes(struct census *c, double mono_start, size_t *n);

#endif
