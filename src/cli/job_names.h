/* job_names.h - who this run is in a batch system (Slurm's environment),
 * and output file names made from it: "run-%j-%t.json.gz" gives each task
 * of `srun gpu-tracker --snapshot run-%j-%t.json.gz ...` its own file. */
#ifndef GT_CLI_JOB_NAMES_H
#define GT_CLI_JOB_NAMES_H

#include <stddef.h>
#include <sys/types.h>

#include "gpu_tracker_tools.h"

/* The run's identity: the job (gpu_tracker.h) and what names files beyond
 * it. An empty string: not set. */
struct job_identity {
    gt_job_info job;
    char host[256];      /* gethostname(), when it is a plain name; read at the first %h */
    pid_t pid;           /* gpu-tracker's own */
    char local_job[64];  /* %j outside a job: "local-YYYYMMDD-HHMMSS-PID", made at the first %j */
    /* Set by job_name_expand: the fields it filled without Slurm (JOB_FIELD_*). */
    unsigned stood_in;
};

enum { JOB_FIELD_J = 1, JOB_FIELD_A = 2, JOB_FIELD_T = 4 };

/* Reads the identity from the environment (gt_job_info_from_environ). */
void job_identity_read(struct job_identity *id);

/* The file name pattern with its fields replaced: %j job id, %a array task
 * id, %t task rank, %n node name, %h host name, %p gpu-tracker's PID, %%
 * a '%'. Outside Slurm, %j stands for local_job (unique on this host: the
 * start time and our PID), %a and %t for 0 (the one task there is), and
 * id->stood_in says which did. *out is malloc'd (pattern itself copied
 * when it has no '%'). 0, or -1 with a one-line message in err: an unknown
 * field (naming the valid ones), or %h on a host whose name is not a plain
 * one. what names the option in messages. */
int job_name_expand(const char *pattern, struct job_identity *id, const char *what, char **out,
                    char *err, size_t errcap);

/* The one line that says what stood in for Slurm's fields ("%j became
 * local-...-4242, %t 0"), into buf; "" when nothing did. */
void job_names_stood_in(const struct job_identity *id, char *buf, size_t cap);

#endif
