/* cgroup_own.h - a cgroup of the job's own (options.own_cgroup, --cgroup):
 * made beneath the tracker's own group, the tracked process moved into it
 * before it runs, removed at the end.
 *
 * cgroup v2 lets a group hand controllers (memory, cpu, io) to its
 * children only when it holds no processes itself. Where the tracker is
 * the only process of its group (systemd-run --scope -p Delegate=yes, a
 * container's init), it moves itself into a leaf beside the job's group
 * and enables them, and undoes both at the end. Where other processes
 * share its group the job's group is still made (CPU and pressure are
 * there without controllers) and memory_reason says why it has no memory
 * figures. cgroup v1: the job's group is made in the memory hierarchy
 * (required) and in cpu/cpuacct where they can be written. */
#ifndef GT_CGROUP_OWN_H
#define GT_CGROUP_OWN_H

#include <sys/types.h>

#define CGROUP_OWN_REASON_LEN 256
#define CGROUP_OWN_MAX_DIRS 3

struct cgroup_own {
    int made;                 /* the job's group exists and holds the process */
    int version;
    char reason[CGROUP_OWN_REASON_LEN];        /* made 0: why */
    char memory_reason[CGROUP_OWN_REASON_LEN]; /* made without memory: why */
    char name[64];            /* the job's group: "gpu-tracker-<our PID>" */
    /* Each hierarchy's parent group (ours) where the job's group was made:
     * v2 one, v1 up to three (memory, cpuacct, cpu when apart). */
    int parent_fd[CGROUP_OWN_MAX_DIRS];
    int nparents;
    /* v2, controllers enabled for the run: we moved into the leaf
     * "<name>-tracker" and wrote enabled ("+memory +cpu ...") to the
     * parent's cgroup.subtree_control; both are undone at removal. */
    int moved_self;
    char enabled[128];
};

/* Makes the job's group beneath the group of the calling process (found
 * from <proc_root>/self/cgroup, under <sys_root>/fs/cgroup) and moves pid
 * into it. 0 when made (o->memory_reason may still say the group has no
 * memory figures); -1 with o->reason naming the cause (not delegated,
 * read-only, controller not available) and nothing left behind. */
int cgroup_own_make(struct cgroup_own *o, const char *proc_root, const char *sys_root,
                    pid_t pid);

/* Removes what cgroup_own_make made: processes still in the job's group
 * (left running by the job) are moved back to our group first. 0, or -1
 * with the reason in why (the group stays; nothing else is changed).
 * Safe on a cgroup_own that made nothing, and again. */
int cgroup_own_remove(struct cgroup_own *o, char *why, size_t whycap);

#endif
