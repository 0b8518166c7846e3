/* job_names.h - who this run is in a batch system (Slurm's environment),
 * and output file names made from it: "run-%j-%t.json.gz" gives each task
 * of `srun gpu-tracker --snapshot run-%j-%t.json.gz ...` its own file. */
#ifndef GT_CLI_JOB_NAMES_H
#define GT_CLI_JOB_NAMES_H

#include <stddef.h>
#include <sys/types.h>

/* The run's identity. An empty string: not set (not in a Slurm job, not an
 * array job). */
struct job_identity {
    char job[32];        /* SLURM_JOB_ID */
    char array_job[32];  /* SLURM_ARRAY_JOB_ID */
    char array_task[32]; /* SLURM_ARRAY_TASK_ID */
    char step[32];       /* SLURM_STEP_ID */
    char task[32];       /* SLURM_PROCID: the task's rank in the job step */
    char node[256];      /* SLURMD_NODENAME, else the host name up to its first dot */
    char host[256];      /* gethostname() */
    pid_t pid;           /* gpu-tracker's own */
};

/* Reads the identity from the environment. A Slurm variable whose value is
 * not what Slurm sets (digits for the ids; letters, digits, '.', '-' and
 * '_' for the node name) is left out, so that it can never put a '/' into
 * a file name. */
void job_identity_read(struct job_identity *id);

/* The file name pattern with its fields replaced: %j job id, %a array task
 * id, %t task rank, %n node name, %h host name, %p gpu-tracker's PID, %%
 * a '%'. *out is malloc'd (pattern itself copied when it has no '%').
 * 0, or -1 with a one-line message in err: an unknown field (naming the
 * valid ones), or a field this run does not have (%j outside a Slurm job,
 * %a outside an array job). what names the option in messages. */
int job_name_expand(const char *pattern, const struct job_identity *id, const char *what,
                    char **out, char *err, size_t errcap);

#endif
