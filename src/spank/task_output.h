/* task_output.h - where the SPANK plugin leaves a task's snapshot, and how,
 * from slurmstepd running as root beside other users' jobs:
 *
 *   task_output_expand    the site's template (output=...) for one task
 *   task_output_prepare   its directories: the site's part must exist (or
 *                         is made root's, 0711); from the first directory
 *                         named by a task field on, each is the job user's
 *                         (made 0700 and given to them; an existing one must
 *                         be theirs or root's); no link is followed
 *   task_output_run_as    a function run in a child with the job user's
 *                         identity and umask 077, so that what it writes is
 *                         theirs, mode 0600, under the rules of any output
 *
 * None of them prints or exits: each says what went wrong in why. */
#ifndef GT_TASK_OUTPUT_H
#define GT_TASK_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

/* What a template's fields stand for. */
struct task_names {
    const char *user;  /* %u */
    const char *job;   /* %j: the job id */
    const char *step;  /* %s: the step id, or "batch", "extern", "interactive" */
    const char *task;  /* %t: the task's rank in the step */
    const char *node;  /* %n */
};

/* The step id's name in a path (buf: at least 16 bytes): the number, or
 * what Slurm's special steps are called. */
const char *task_step_name(unsigned long step, char *buf, size_t cap);

/* Expands tmpl (an absolute path) into out: %u %j %s %t %n and %% (a
 * field's value may not hold '/' or be "." or ".."). *fixed: how many bytes
 * of out come before the first field (the site's part). 0, or -1 with the
 * reason in why: not absolute, an unknown %X, a field without a value,
 * too long. */
int task_output_expand(const char *tmpl, const struct task_names *n, char *out, size_t cap,
                       size_t *fixed, char *why, size_t whycap);

/* Makes the directories of path (all its components but the last) as the
 * file comment says, for uid:gid. 0, or -1 with the reason. Needs root
 * where a directory must be given to uid. */
int task_output_prepare(const char *path, size_t fixed, uid_t uid, gid_t gid, char *why,
                        size_t whycap);

/* Runs fn(arg, why, whycap) in a child process with uid, gid (and no other
 * group; a caller that is that user already keeps its identity) and umask
 * 077, and waits for it. fn returns 0 or -1 with its
 * reason in why, which comes back here. 0, or -1 with the reason. */
int task_output_run_as(uid_t uid, gid_t gid, int (*fn)(void *arg, char *why, size_t whycap),
                       void *arg, char *why, size_t whycap);

#endif
