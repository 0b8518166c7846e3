/* job_info.c - who a run is in a batch system, from Slurm's environment
 * (gt_job_info_from_environ in gpu_tracker.h). */
#define _GNU_SOURCE
#include "common/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The value of name in envp (an environ-style array), or NULL. */
static const char *env_value(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = envp; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* value into out when every byte is one of allowed and it fits; else "". */
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

/* A task count Slurm set: 1 to a million (Slurm's own limit is lower). */
static int task_count(const char *value)
{
    char n[16];
    copy_checked(n, sizeof n, value, digits);
    long v = n[0] ? strtol(n, NULL, 10) : 0;
    return v > 0 && v <= 1000000 ? (int)v : 0;
}

/* How many GPUs a list such as "0,1" or "GPU-a1b2...,GPU-c3d4..." names
 * (CUDA_VISIBLE_DEVICES, SLURM_JOB_GPUS); 0 for none ("", "-1",
 * "NoDevFiles") and for anything but indices and UUIDs. */
static int gpu_list_count(const char *value)
{
    static const char allowed[] = "0123456789abcdefABCDEFGIMPU-,/";
    if (!value || !*value || strcmp(value, "-1") == 0 || strcmp(value, "NoDevFiles") == 0 ||
        strlen(value) > 4096 || value[strspn(value, allowed)] != '\0')
        return 0;
    int n = 1;
    for (const char *c = value; *c; c++)
        n += *c == ',';
    return n <= 1024 ? n : 0;
}

/* The GPUs the job was given, from the first variable that says. */
static void gpus_requested(char *const *envp, gt_job_info *out)
{
    static const char *const lists[] = {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS",
                                        "CUDA_VISIBLE_DEVICES"};
    int n = task_count(env_value(envp, "SLURM_GPUS_ON_NODE"));
    const char *by = "SLURM_GPUS_ON_NODE";
    for (size_t i = 0; !n && i < sizeof lists / sizeof lists[0]; i++) {
        n = gpu_list_count(env_value(envp, lists[i]));
        by = lists[i];
    }
    if (n > 0) {
        out->gpus_requested = n;
        snprintf(out->gpus_requested_by, sizeof out->gpus_requested_by, "%s", by);
    }
}

/* A size Slurm set in MiB ("4096", or with a unit: "4G", "512M"), up to a
 * pebibyte; 0 when not set or not understood. */
static long long mem_mib(const char *value)
{
    char n[32];
    copy_checked(n, sizeof n, value, "0123456789KMGTkmgt");
    if (!n[0] || n[0] < '0' || n[0] > '9')
        return 0;
    char *end;
    long long v = strtoll(n, &end, 10);
    switch (*end) {
    case '\0': case 'M': case 'm': break;
    case 'K': case 'k': v /= 1024; break;
    case 'G': case 'g': v *= 1024; break;
    case 'T': case 't': v *= 1024 * 1024; break;
    default: return 0;
    }
    return *end && end[1] ? 0 : (v > 0 && v <= 1024LL * 1024 * 1024 ? v : 0);
}

/* The 1.1 fields: what Slurm gave the step. */
static void requested(char *const *envp, gt_job_info *out)
{
    out->cpus_per_task = task_count(env_value(envp, "SLURM_CPUS_PER_TASK"));
    out->cpus_on_node = task_count(env_value(envp, "SLURM_CPUS_ON_NODE"));
    out->mem_per_node_mib = mem_mib(env_value(envp, "SLURM_MEM_PER_NODE"));
    out->mem_per_cpu_mib = mem_mib(env_value(envp, "SLURM_MEM_PER_CPU"));
}

gt_status gt_job_info_from_environ(char *const *envp, gt_job_info *caller)
{
    error_clear();
    gt_status st = check_struct_size("gt_job_info_from_environ", "gt_job_info", caller,
                                     GT_JOB_INFO_SIZE_1_0);
    if (st != GT_OK)
        return st;
    if (!envp)
        envp = environ;
    /* Filled whole here, then as much of it as the caller's struct holds
     * (a 1.0 program's ends before the 1.1 fields). */
    size_t size = caller->struct_size < sizeof *caller ? caller->struct_size : sizeof *caller;
    gt_job_info whole;
    gt_job_info *out = &whole;
    memset(out, 0, sizeof *out);
    out->struct_size = size;
    copy_checked(out->job_id, sizeof out->job_id, env_value(envp, "SLURM_JOB_ID"), digits);
    copy_checked(out->array_job_id, sizeof out->array_job_id,
                 env_value(envp, "SLURM_ARRAY_JOB_ID"), digits);
    copy_checked(out->array_task_id, sizeof out->array_task_id,
                 env_value(envp, "SLURM_ARRAY_TASK_ID"), digits);
    copy_checked(out->step_id, sizeof out->step_id, env_value(envp, "SLURM_STEP_ID"), digits);
    copy_checked(out->task_rank, sizeof out->task_rank, env_value(envp, "SLURM_PROCID"), digits);
    out->ntasks = task_count(env_value(envp, "SLURM_STEP_NUM_TASKS"));
    if (!out->ntasks)
        out->ntasks = task_count(env_value(envp, "SLURM_NTASKS"));
    if (out->job_id[0])
        snprintf(out->scheduler, sizeof out->scheduler, "slurm");
    gpus_requested(envp, out);
    copy_checked(out->node, sizeof out->node, env_value(envp, "SLURMD_NODENAME"), name_chars);
    if (!out->node[0]) {
        /* Outside Slurm: the host name up to its first dot, as Slurm names
         * nodes (a host name of other bytes is left out). */
        char host[256] = "";
        if (gethostname(host, sizeof host - 1) != 0)
            host[0] = '\0';
        host[strcspn(host, ".")] = '\0';
        copy_checked(out->node, sizeof out->node, host, name_chars);
    }
    requested(envp, out);
    memcpy(caller, out, size);
    return GT_OK;
}
