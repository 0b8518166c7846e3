/* job_names.c - the run's identity and output names made from it
 * (job_names.h). */
#define _GNU_SOURCE
#include "job_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void job_identity_read(struct job_identity *id)
{
    memset(id, 0, sizeof *id);
    id->job.struct_size = sizeof id->job;
    gt_job_info_from_environ(NULL, &id->job);
    id->pid = getpid();
    /* host and local_job are made when a name asks for them (%h, %j):
     * most runs name no file so, and the time zone file is 10 µs. */
}

/* id->host, read when first asked for ("" when it is not a plain name). */
static const char *identity_host(struct job_identity *id)
{
    if (!id->host[0]) {
        char host[256] = "";
        if (gethostname(host, sizeof host - 1) != 0)
            host[0] = '\0';
        /* A host name is used in file names: only the bytes a name has. */
        static const char name_bytes[] =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
        if (host[strspn(host, name_bytes)] == '\0')
            memcpy(id->host, host, sizeof id->host);
    }
    return id->host;
}

/* id->local_job, made when first asked for: the start of the run (this
 * moment, local time) and our PID. */
static const char *identity_local_job(struct job_identity *id)
{
    if (!id->local_job[0]) {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32] = "0";
        if (localtime_r(&now, &tm))
            strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(id->local_job, sizeof id->local_job, "local-%s-%ld", stamp, (long)id->pid);
    }
    return id->local_job;
}

void job_names_stood_in(const struct job_identity *id, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!id->stood_in)
        return;
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n, "not in a Slurm job step: ");
    if ((id->stood_in & JOB_FIELD_J) && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%%j became %s", id->local_job);
    if ((id->stood_in & JOB_FIELD_A) && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%s%%a 0", id->stood_in & JOB_FIELD_J ? ", " : "");
    if ((id->stood_in & JOB_FIELD_T) && n < cap)
        snprintf(buf + n, cap - n, "%s%%t 0", id->stood_in & (JOB_FIELD_J | JOB_FIELD_A) ? ", " : "");
}

int job_name_expand(const char *pattern, struct job_identity *id, const char *what, char **out,
                    char *err, size_t errcap)
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
        /* Outside Slurm a field stands for what keeps names apart there. */
        switch (p[1]) {
        case '%': value = "%"; break;
        case 'j':
            value = id->job.job_id;
            if (!*value) {
                value = identity_local_job(id);
                id->stood_in |= JOB_FIELD_J;
            }
            break;
        case 'a':
            value = id->job.array_task_id;
            if (!*value) {
                value = "0";
                id->stood_in |= JOB_FIELD_A;
            }
            break;
        case 't':
            value = id->job.task_rank;
            if (!*value) {
                value = "0";
                id->stood_in |= JOB_FIELD_T;
            }
            break;
        case 'n': value = id->job.node; missing = "the node's name is not known"; break;
        case 'h': value = identity_host(id); missing = "the host name is not known"; break;
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
            snprintf(err, errcap, "%s '%s': %%%c has no value here (%s); use %%p", what,
                     pattern, p[1], missing);
            failed = 1;
            continue;
        }
        /* The environment's word ("SLURMD_NODENAME=.."): a field that is
         * a directory's name would climb out of the path given. */
        if (strcmp(value, ".") == 0 || strcmp(value, "..") == 0) {
            snprintf(err, errcap, "%s '%s': %%%c is '%s' here, a directory's name, not one a "
                     "file may take (from the environment); use %%p", what, pattern, p[1],
                     value);
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
