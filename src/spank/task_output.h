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
 *   task_output_open_as   the file made new by a child with the job user's
 *                         identity and umask 077 and handed back: theirs,
 *                         mode 0600, where they could write themselves;
 *                         the child is given TASK_OUTPUT_OPEN_DEADLINE_MS
 *                         and then killed (it runs as the job's user, who
 *                         may stop it)
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

/* How long slurmstepd waits for the opener, from its fork to its answer;
 * reaping it afterwards may add TASK_OUTPUT_REAP_MS where the kernel holds
 * it. */
#define TASK_OUTPUT_OPEN_DEADLINE_MS 2000
#define TASK_OUTPUT_REAP_MS 500

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
 * identity) and umask 077 makes it anew (mode 0600: whatever was at the
 * name, a file, a link or a FIFO, is removed, never followed or kept; a
 * directory there is refused) and hands the descriptor back, so that the
 * file is theirs and lies only where they could write, while the caller
 * streams into it (a snapshot's rows are not all held in memory). The
 * child is waited for TASK_OUTPUT_OPEN_DEADLINE_MS at most
 * (task_output_finish_opener). 0 and *fd (close-on-exec), or -1 with the
 * reason in why. */
int task_output_open_as(uid_t uid, gid_t gid, const char *path, int *fd, char *why,
                        size_t whycap);

/* task_output_open_as in two halves, so that slurmstepd can do other work
 * while the opener works: start forks it (0, or -1 with the reason);
 * finish waits for its answer until deadline_ms after the start at most,
 * then kills the opener (a process of the job's uid may have stopped it,
 * before or after its answer) and reaps it (TASK_OUTPUT_REAP_MS more at
 * most). finish: 0 and *fd, or -1 with the reason: the opener's message,
 * or that it did not answer in time. Each start is followed by one
 * finish. */
struct task_opener {
    pid_t pid;
    int sock;            /* our end of the socket pair */
    long long started_ms; /* task_output_now_ms() at the fork */
};
int task_output_start_opener(uid_t uid, gid_t gid, const char *path, struct task_opener *o,
                             char *why, size_t whycap);
int task_output_finish_opener(struct task_opener *o, int deadline_ms, int *fd, char *why,
                              size_t whycap);

/* Milliseconds on the monotonic clock. */
long long task_output_now_ms(void);

#endif
