/* task_output.h - where the SPANK plugin leaves a task's snapshot, and how,
 * from slurmstepd running as root beside other users' jobs:
 *
 *   task_output_expand    the site's template (output=...) for one task
 *   task_output_prepare   its directories: the site's part is root's (made
 *                         0711 when missing; one of another user's is
 *                         refused); from the first directory
 *                         named by a task field on, each is the job user's
 *                         (made 0700 and given to them; an existing one must
 *                         be theirs or root's); no link is followed
 *   task_output_open_as   the file opened by a child with the job user's
 *                         identity and umask 077 and handed back: theirs,
 *                         mode 0600, where they could write themselves
 *
 * None of them prints or exits: each says what went wrong in why. */
#ifndef GT_TASK_OUTPUT_H
#define GT_TASK_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

/* Slurm's special step ids (slurm.h: SLURM_EXTERN_CONT, SLURM_BATCH_SCRIPT,
 * SLURM_INTERACTIVE_STEP), here so that this part needs no Slurm header. */
#define STEP_EXTERN 0xfffffffcUL
#define STEP_BATCH 0xfffffffbUL
#define STEP_INTERACTIVE 0xfffffffaUL

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

/* Opens path for writing as the job's user: a child process with uid, gid
 * (and no other group; a caller that is that user already keeps its
 * identity) and umask 077 creates or truncates it (mode 0600; a link at
 * the name is not followed, only a regular file is taken) and hands the
 * descriptor back, so that the file is theirs and lies only where they
 * could write, while the caller streams into it (a snapshot's rows are
 * not all held in memory). 0 and *fd (close-on-exec), or -1 with the
 * reason in why. */
int task_output_open_as(uid_t uid, gid_t gid, const char *path, int *fd, char *why,
                        size_t whycap);

#endif
