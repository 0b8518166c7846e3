/* job_names.c - the run's identity and output names made from it
 * (job_names.h). */
#define _GNU_SOURCE
#include "job_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* value into out when every byte is one of allowed (and it fits). */
static void copy_checked(char *out, size_t cap, const char *value, const char *allowed)
{
    out[0] = '\0';
    if (!value || !*value || strlen(value) >= cap || value[strspn(value, allowed)] != '\0')
        return;
    memcpy(out, value, strlen(value) + 1);
}

static const char digits[] = "0123456789";
static const char name_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";

void job_identity_read(struct job_identity *id)
{
    memset(id, 0, sizeof *id);
    copy_checked(id->job, sizeof id->job, getenv("SLURM_JOB_ID"), digits);
    copy_checked(id->array_job, sizeof id->array_job, getenv("SLURM_ARRAY_JOB_ID"), digits);
    copy_checked(id->array_task, sizeof id->array_task, getenv("SLURM_ARRAY_TASK_ID"), digits);
    copy_checked(id->step, sizeof id->step, getenv("SLURM_STEP_ID"), digits);
    copy_checked(id->task, sizeof id->task, getenv("SLURM_PROCID"), digits);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    copy_checked(id->host, sizeof id->host, host, name_chars);
    copy_checked(id->node, sizeof id->node, getenv("SLURMD_NODENAME"), name_chars);
    if (!id->node[0] && id->host[0]) {
        /* Outside Slurm: the host name up to its first dot, as Slurm names
         * nodes. */
        snprintf(id->node, sizeof id->node, "%.*s", (int)strcspn(id->host, "."), id->host);
    }
    id->pid = getpid();
}

int job_name_expand(const char *pattern, const struct job_identity *id, const char *what,
                    char **out, char *err, size_t errcap)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    int failed = 0;
    for (const char *p = pattern; *p && !failed; p++) {
        if (*p != '%') {
            fputc(*p, f);
            continue;
        }
        const char *value = NULL, *missing = NULL;
        char pid[32];
        switch (p[1]) {
        case '%': value = "%"; break;
        case 'j': value = id->job; missing = "SLURM_JOB_ID is not set: not in a Slurm job"; break;
        case 'a':
            value = id->array_task;
            missing = "SLURM_ARRAY_TASK_ID is not set: not a task of a Slurm job array";
            break;
        case 't':
            value = id->task;
            missing = "SLURM_PROCID is not set: not a task of a Slurm job step (srun)";
            break;
        case 'n': value = id->node; missing = "the node's name is not known"; break;
        case 'h': value = id->host; missing = "the host name is not known"; break;
        case 'p':
            snprintf(pid, sizeof pid, "%ld", (long)id->pid);
            value = pid;
            break;
        default:
            snprintf(err, errcap, "%s '%s': unknown field '%%%.1s' in the name; valid fields "
                     "are %%j (job), %%a (array task), %%t (task rank), %%n (node), %%h "
                     "(host), %%p (gpu-tracker's PID) and %%%% (a '%%')", what, pattern,
                     p[1] ? p + 1 : "");
            failed = 1;
            continue;
        }
        if (!*value) {
            snprintf(err, errcap, "%s '%s': %%%c has no value here (%s); use %%p or %%h "
                     "outside Slurm", what, pattern, p[1], missing);
            failed = 1;
            continue;
        }
        fputs(value, f);
        p++;
    }
    if (fclose(f) != 0 && !failed) {
        snprintf(err, errcap, "out of memory");
        failed = 1;
    }
    if (failed) {
        free(text);
        return -1;
    }
    *out = text;
    return 0;
}
