/* job_cmd.c - `gpu-tracker job JOBID | DIR | SNAPSHOT...`: a Slurm job's
 * efficiency in one command, from its tasks' snapshots (the SPANK plugin's,
 * or any gpu-tracker --snapshot of the job's tasks): what seff shows (CPU
 * and memory asked for against used) and what it cannot (the exact peaks
 * and who held them, the GPUs given and whether they worked, energy), and
 * the request for the next submission. docs/slurm.md, "A job's efficiency".
 *
 * A JOBID is found where the SPANK plugin leaves its snapshots: the
 * output= template of spank_gputracker.so in plugstack.conf (read under
 * the rules of a trusted config file), with %u the user (--user, else
 * whoever runs this), %j the job, and every step, task and node. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <json-c/json.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker_internal.h"
#include "output.h"
#include "snapshot_cmd.h"
#include "common/toolkit.h"

#define PLUGSTACK_DEFAULT "/etc/slurm/plugstack.conf"
#define PLUGSTACK_MAX (1 << 20)    /* bytes a plugstack file may have */
#define PLUGSTACK_DEPTH 4          /* include levels followed */
#define PLUGIN_FILE "spank_gputracker.so"
#define MIB (1024.0 * 1024.0)

static const char usage[] = "usage: gpu-tracker job JOBID|DIR|SNAPSHOT... [-f text|human|json] "
                            "[--user NAME] [--plugstack FILE] [--max-rows N]";

/* --help: the usage and the options, within 80 columns. */
static const char help[] =
    "Usage: gpu-tracker job JOBID|DIR|SNAPSHOT... [-f text|human|json] [--user NAME]\n"
    "                       [--plugstack FILE] [--max-rows N]\n"
    "\n"
    "Merges a Slurm job's task snapshots (a directory of them, the files, or a job\n"
    "ID looked up where the SPANK plugin leaves them) and prints the CPUs, memory\n"
    "and GPUs asked for against used, who held the peaks, idle GPUs, energy and\n"
    "the request for next time (docs/slurm.md).\n"
    "\n"
    "    -f --format=<format>    'text' (the default), 'human' or 'json'.\n"
    "    --user=<name>           Whose job a JOBID is (default: yours).\n"
    "    --plugstack=<file>      Where the plugin's output= is set (default\n"
    "                            /etc/slurm/plugstack.conf).\n"
    "    --max-rows=<n>          Read at most N rows of the snapshots together.\n"
    "    -h --help               Show this help and exit.\n";

enum job_format { JOB_TEXT, JOB_HUMAN, JOB_JSON };

struct job_args {
    enum job_format format;
    const char *user, *plugstack;
    size_t max_rows;
    char **targets;
    int ntargets;
};

/* A growing list of file names (malloc'd). */
struct names {
    char **v;
    size_t n, cap;
};

static int names_add(struct names *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(s)))
        return -1;
    l->n++;
    return 0;
}

static void names_free(struct names *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_snapshot_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && ((n > 8 && strcmp(name + n - 8, ".json.gz") == 0) ||
                              (n > 5 && strcmp(name + n - 5, ".json") == 0));
}

/* A job has at most GT_MERGE_MAX_TASKS tasks: names past one more are not
 * kept (a directory of millions of files costs no memory to refuse). */
#define NAMES_MAX (GT_MERGE_MAX_TASKS + 1)

/* The snapshots of a directory (its *.json.gz and *.json, sorted). */
static int list_directory(const char *dir, struct names *out, char *err, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, cap, "cannot read the directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && out->n < NAMES_MAX && (e = readdir(d)) != NULL) {
        if (!is_snapshot_name(e->d_name))
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path ||
            names_add(out, path) < 0) {
            snprintf(err, cap, "out of memory or a name too long in '%s'", dir);
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

/* The output= template of spank_gputracker.so in a plugstack file (and
 * the files it includes), into tmpl; 1 found, 0 not, -1 with err. */
static int plugstack_template(const char *file, int depth, char *tmpl, size_t cap, char *err,
                              size_t errcap)
{
    char *text = NULL;
    if (input_file_read_private(file, PLUGSTACK_MAX, "plugstack file", &text, NULL) != GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        return -1;
    }
    int found = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *words[64];
        int n = 0;
        char *wsave = NULL;
        for (char *w = strtok_r(line, " \t", &wsave); w && n < 64; w = strtok_r(NULL, " \t", &wsave))
            words[n++] = w;
        if (n >= 2 && strcmp(words[0], "include") == 0 && depth < PLUGSTACK_DEPTH) {
            glob_t g;
            if (glob(words[1], 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc && !found; i++) {
                    int r = plugstack_template(g.gl_pathv[i], depth + 1, tmpl, cap, err, errcap);
                    if (r < 0) {
                        globfree(&g);
                        free(text);
                        return -1;
                    }
                    found = r;
                }
            globfree(&g);
            continue;
        }
        if (n < 2 || (strcmp(words[0], "required") != 0 && strcmp(words[0], "optional") != 0))
            continue;
        size_t len = strlen(words[1]);
        if (len < strlen(PLUGIN_FILE) || strcmp(words[1] + len - strlen(PLUGIN_FILE), PLUGIN_FILE))
            continue;
        for (int i = 2; i < n && !found; i++)
            if (strncmp(words[i], "output=", 7) == 0 && strlen(words[i] + 7) < cap) {
                snprintf(tmpl, cap, "%s", words[i] + 7);
                found = 1;
            }
        if (!found) {
            snprintf(err, errcap, "'%s' loads %s without output=: it leaves no snapshots to "
                     "read", file, PLUGIN_FILE);
            free(text);
            return -1;
        }
    }
    free(text);
    return found;
}

/* The glob pattern of a job's snapshots from the plugin's template: %u the
 * user, %j the job, * for the step, task and node; glob's own characters
 * in the rest taken as they are. */
static int job_pattern(const char *tmpl, const char *user, const char *job, char *out, size_t cap)
{
    size_t len = 0;
    for (const char *c = tmpl; *c; c++) {
        char one[3] = {*c, '\0', '\0'};
        const char *add = one;
        if (*c == '%' && c[1]) {
            c++;
            add = *c == 'u' ? user : *c == 'j' ? job : *c == '%' ? "%" : "*";
        } else if (strchr("*?[\\", *c)) {
            one[0] = '\\';
            one[1] = *c;
        }
        size_t k = strlen(add);
        if (len + k + 1 > cap)
            return -1;
        memcpy(out + len, add, k);
        len += k;
    }
    out[len] = '\0';
    return 0;
}

static int all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 20;
}

/* The snapshot files a target names: a job id, a directory, a file. */
static int find_files(const struct job_args *a, const char *target, struct names *out, char *err,
                      size_t cap)
{
    if (all_digits(target) && access(target, F_OK) != 0) {
        const char *file = a->plugstack ? a->plugstack : PLUGSTACK_DEFAULT;
        char tmpl[4096], pattern[8192];
        int r = plugstack_template(file, 0, tmpl, sizeof tmpl, err, cap);
        if (r == 0)
            snprintf(err, cap, "'%s' does not load %s: give the directory of the job's "
                     "snapshots instead of its id (or --plugstack FILE)", file, PLUGIN_FILE);
        if (r <= 0)
            return -1;
        char user[256];
        if (a->user) {
            snprintf(user, sizeof user, "%s", a->user);
        } else {
            struct passwd pw, *found = NULL;
            char buf[4096];
            if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) != 0 || !found) {
                snprintf(err, cap, "who you are is not known here: give --user NAME");
                return -1;
            }
            snprintf(user, sizeof user, "%s", pw.pw_name);
        }
        if (strchr(user, '/') || job_pattern(tmpl, user, target, pattern, sizeof pattern) < 0) {
            snprintf(err, cap, "invalid --user '%s'", user);
            return -1;
        }
        glob_t g;
        int gr = glob(pattern, 0, NULL, &g), added = 0;
        for (size_t i = 0; gr == 0 && i < g.gl_pathc && out->n < NAMES_MAX; i++) {
            if (names_add(out, g.gl_pathv[i]) < 0) {
                snprintf(err, cap, "out of memory");
                globfree(&g);
                return -1;
            }
            added++;
        }
        if (gr == 0 || gr == GLOB_NOMATCH)
            globfree(&g);
        if (!added) {
            snprintf(err, cap, "no snapshot of job %.20s of user %.200s where the plugin leaves "
                     "them (%.1500s): the job did not run with --gpu-track, or not on this "
                     "machine's filesystem (give --user for another user's job)", target, user,
                     pattern);
            return -1;
        }
        return 0;
    }
    DIR *d = opendir(target);
    if (d) {
        closedir(d);
        size_t before = out->n;
        if (list_directory(target, out, err, cap) < 0)
            return -1;
        if (out->n == before) {
            snprintf(err, cap, "'%s' holds no snapshot (*.json.gz or *.json)", target);
            return -1;
        }
        return 0;
    }
    if (errno != ENOTDIR && errno != ENOENT) {
        snprintf(err, cap, "cannot read '%s': %s", target, strerror(errno));
        return -1;
    }
    if (errno == ENOENT) {
        snprintf(err, cap, "no job, directory or snapshot '%s': give a job id, the directory of "
                 "its task snapshots, or the snapshots", target);
        return -1;
    }
    return names_add(out, target) < 0 ? -1 : 0;
}

/* The job: its snapshots read and merged. NULL after saying why. */
static gt_snapshot *load_job(const struct job_args *a)
{
    struct names files = {0};
    char err[2048];
    for (int i = 0; i < a->ntargets && files.n < NAMES_MAX; i++)
        if (find_files(a, a->targets[i], &files, err, sizeof err) < 0) {
            cli_fail(err, 1);
            names_free(&files);
            return NULL;
        }
    /* A job has at most GT_MERGE_MAX_TASKS tasks: a directory of more is
     * refused before any is read (each may hold a million rows). */
    if (files.n > GT_MERGE_MAX_TASKS) {
        snprintf(err, sizeof err, "more than %d snapshots, a job's most tasks: give the "
                 "directory of one job", GT_MERGE_MAX_TASKS);
        cli_fail(err, 1);
        names_free(&files);
        return NULL;
    }
    qsort(files.v, files.n, sizeof *files.v, by_name);
    gt_snapshot **runs = calloc(files.n, sizeof *runs);
    gt_snapshot *job = NULL;
    int ok = runs != NULL;
    gt_snapshot_load load; /* one allowance for the job's files together */
    gt_snapshot_load_init(&load, a->max_rows);
    load.distinct_tasks = 1;
    for (size_t i = 0; ok && i < files.n; i++)
        if (gt_snapshot_load_read(&load, files.v[i], &runs[i]) != GT_OK) {
            cli_fail(gt_last_error(), 1);
            ok = 0;
        }
    gt_snapshot_load_done(&load);
    if (ok && gt_snapshot_merge(runs, files.n, (const char *const *)files.v, &job) != GT_OK) {
        cli_fail(gt_last_error(), 1);
        ok = 0;
    }
    for (size_t i = 0; runs && i < files.n; i++)
        gt_snapshot_free(runs[i]); /* NULL once merged */
    free(runs);
    names_free(&files);
    if (!ok && !runs)
        cli_fail("out of memory", 1);
    return ok ? job : NULL;
}

/* What was asked for and what was used, the tasks together. 0: not known. */
struct efficiency {
    int cpus_requested;
    double cpu_mean, cpu_peak;        /* cores */
    double mem_requested_mib;
    double mem_peak_mib;              /* the tasks' peaks summed (a bound) */
    int gpus_requested;
    double gpu_mean, gpus_busy_peak;
    int gpus_idle;                    /* GPUs held but idle, over the tasks */
    int gpus_unused_request;          /* tasks given GPUs that held none */
    int energy_available;
    double energy_joules;
    char energy_reason[256];
    int exit_status;                  /* the largest; -1 not known */
};

/* The run of task i of a merged job (0: the job snapshot itself). */
static const gt_snapshot *task_run(const gt_snapshot *job, size_t i)
{
    return i == 0 ? job : job->other_tasks[i - 1];
}

static void measure(const gt_snapshot *job, const gt_job_summary *j, struct efficiency *e)
{
    memset(e, 0, sizeof *e);
    const gt_job_info *ji = &j->job;
    int tasks = (int)j->ntasks;
    if (ji->cpus_per_task > 0)
        e->cpus_requested = tasks * ji->cpus_per_task;
    else if (ji->cpus_on_node > 0)
        e->cpus_requested = ji->cpus_on_node * j->nnodes;
    if (ji->mem_per_node_mib > 0)
        e->mem_requested_mib = (double)ji->mem_per_node_mib * j->nnodes;
    else if (ji->mem_per_cpu_mib > 0 && e->cpus_requested > 0)
        e->mem_requested_mib = (double)ji->mem_per_cpu_mib * e->cpus_requested;
    e->gpus_requested = ji->gpus_requested * j->nnodes;
    e->cpu_mean = j->total.cpu_usage_mean;
    e->cpu_peak = j->total.cpu_usage_max;
    e->gpu_mean = j->total.gpu_usage_mean;
    e->gpus_busy_peak = j->total.gpu_utilized_max;
    e->exit_status = -1;
    e->energy_available = 1;
    for (size_t i = 0; i < j->ntasks && i <= job->nother_tasks; i++) {
        const gt_task_summary *t = gt_job_summary_task(j, i);
        const gt_snapshot *run = task_run(job, i);
        e->mem_peak_mib += t->peak_rss_mib;
        if (t->exit_status > e->exit_status)
            e->exit_status = t->exit_status;
        e->gpus_idle += run->gpu_idle.idle_count;
        e->gpus_unused_request += run->gpu_idle.request_unused;
        if (run->gpu_run.struct_size && run->gpu_run.job_energy_available) {
            e->energy_joules += run->gpu_run.job_energy_joules;
        } else if (e->energy_available) {
            e->energy_available = 0;
            snprintf(e->energy_reason, sizeof e->energy_reason, "%s",
                     run->gpu_run.struct_size && run->gpu_run.job_energy_reason[0]
                         ? run->gpu_run.job_energy_reason
                         : "the snapshots hold no energy figure");
        }
    }
}

static double percent(double used, double asked)
{
    return asked > 0 ? 100.0 * used / asked : -1;
}

/* A size in MiB as this format writes it. */
static const char *mib_text(double mib, int human, char *buf, size_t cap)
{
    if (human)
        return human_bytes(buf, cap, mib * MIB);
    snprintf(buf, cap, "%.1f MiB", mib);
    return buf;
}

/* The request for next time, as sbatch options. */
static void next_request(const gt_job_summary *j, char *out, size_t cap)
{
    int n = snprintf(out, cap, "--ntasks=%zu --cpus-per-task=%d --mem-per-cpu=%dM", j->ntasks,
                     j->cpus_per_task, j->mem_per_cpu_mib);
    if (j->gpus_per_task > 0 && n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, " --gres=gpu:%d",
                 j->gpus_per_task * j->max_tasks_per_node);
}

/* What task run's GPUs waited for, as advice into out (1), or 0 when its
 * snapshot has no such verdict (docs/metrics.md, "What the GPU waited
 * for"). */
static int task_gpu_waited(const gt_snapshot *run, char *out, size_t cap)
{
    out[0] = '\0';
    return run->gpu_idle.struct_size && gpu_wait_advice(&run->gpu_idle.wait, out, cap);
}

/* Who held the memory peak of a task: its largest processes then. */
static void peak_holders(const gt_snapshot *run, int human)
{
    const gt_peak_breakdown *b = &run->at_peak[GT_PEAK_MEMORY];
    if (!b->struct_size || !b->available || b->nprocesses == 0)
        return;
    printf(", held by");
    for (int k = 0; k < b->nprocesses && k < 3; k++) {
        char size[32];
        printf("%s ", k ? "," : "");
        output_print_untrusted(stdout, b->processes[k].command);
        printf(" (pid %d) %s", b->processes[k].pid,
               mib_text(b->processes[k].bytes / MIB, human, size, sizeof size));
    }
    if (b->others > 0)
        printf(" and %ld more", b->others);
}

static void print_text(const gt_snapshot *job, const gt_job_summary *j, const struct efficiency *e,
                       int human)
{
    char a[32], b[32], req[256];
    const char *id = j->job.array_job_id[0] ? j->job.array_job_id : j->job.job_id;
    printf(human ? "Job %s\n" : "Job ID: %s\n", id);
    printf("Tasks: %zu on %d node%s\n", j->ntasks, j->nnodes, j->nnodes == 1 ? "" : "s");
    if (e->exit_status >= 0)
        printf("Exit status: %d%s\n", e->exit_status, j->ntasks > 1 ? " (the largest)" : "");
    char dur[32];
    if (human)
        printf("Wall time: %s\n", human_duration(dur, sizeof dur, j->stop_time - j->start_time));
    else
        printf("Wall time: %.3f s (first start to last stop)\n", j->stop_time - j->start_time);
    if (e->cpus_requested > 0)
        printf("CPUs: %d requested; %.2f cores on average, %.2f at the peak: CPU efficiency "
               "%.1f %%\n", e->cpus_requested, e->cpu_mean, e->cpu_peak,
               percent(e->cpu_mean, e->cpus_requested));
    else
        printf("CPUs: not said; %.2f cores on average, %.2f at the peak\n", e->cpu_mean,
               e->cpu_peak);
    if (e->mem_requested_mib > 0)
        printf("Memory: %s requested; %s at the peak (the tasks' peaks summed): memory "
               "efficiency %.1f %%\n", mib_text(e->mem_requested_mib, human, a, sizeof a),
               mib_text(e->mem_peak_mib, human, b, sizeof b),
               percent(e->mem_peak_mib, e->mem_requested_mib));
    else
        printf("Memory: not said; %s at the peak (the tasks' peaks summed)\n",
               mib_text(e->mem_peak_mib, human, b, sizeof b));
    if (e->gpus_requested > 0 || e->gpus_busy_peak > 0)
        printf("GPUs: %d given; %.2f GPUs' worth busy on average, %.0f busy at once at most%s\n",
               e->gpus_requested, e->gpu_mean, e->gpus_busy_peak,
               e->gpus_requested > 0 && e->gpus_busy_peak == 0 ? ": the GPUs given were not used"
                                                               : "");
    else
        printf("GPUs: none given, none used\n");
    if (e->gpus_idle > 0)
        printf("Idle GPUs: %d held but idle (memory taken, under %.0f %% busy in %.0f %% of the "
               "samples)\n", e->gpus_idle, GT_GPU_IDLE_PERCENT, GT_GPU_IDLE_SHARE_PERCENT);
    if (e->energy_available) {
        char en[48];
        printf("GPU energy (the job's share): %s\n", human_energy(en, sizeof en,
                                                                     e->energy_joules));
    } else {
        printf("Energy: not measured: ");
        output_print_untrusted(stdout, e->energy_reason);
        printf("\n");
    }
    printf("Tasks:\n");
    for (size_t i = 0; i < j->ntasks && i <= job->nother_tasks; i++) {
        const gt_task_summary *t = gt_job_summary_task(j, i);
        printf("  task %s", t->job.task_rank[0] ? t->job.task_rank : "?");
        if (t->job.step_id[0]) {
            printf(" of step ");
            output_print_untrusted(stdout, t->job.step_id);
        }
        printf(" (");
        output_print_untrusted(stdout, t->job.node[0] ? t->job.node : t->host);
        printf("): exit %d, CPU %.2f cores on average, peak RSS %s", t->exit_status,
               t->stats.cpu_usage_mean, mib_text(t->peak_rss_mib, human, a, sizeof a));
        peak_holders(task_run(job, i), human);
        printf("\n");
        char waited[800];
        if (task_gpu_waited(task_run(job, i), waited, sizeof waited)) {
            printf("    GPU waited: "); /* the workers' command is the job's text */
            output_print_untrusted(stdout, waited);
            printf("\n");
        }
    }
    next_request(j, req, sizeof req);
    printf("Next time: %s (or per node: --mem=%dM)\n", req, j->mem_per_node_mib);
}

static json_object *number_or_null(double v, int known)
{
    return known ? json_object_new_double(v) : NULL;
}

static int print_json(const gt_snapshot *job, const gt_job_summary *j, const struct efficiency *e)
{
    char *text = gt_job_summary_to_json(j);
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    if (!o)
        return cli_fail("out of memory", 1);
    json_object *req = json_object_new_object(), *used = json_object_new_object(),
                *eff = json_object_new_object();
    json_object_object_add(req, "cpus", e->cpus_requested ? json_object_new_int(e->cpus_requested)
                                                          : NULL);
    json_object_object_add(req, "memory_mib", number_or_null(e->mem_requested_mib,
                                                             e->mem_requested_mib > 0));
    json_object_object_add(req, "gpus", json_object_new_int(e->gpus_requested));
    json_object_object_add(used, "cpu_cores_mean", json_object_new_double(e->cpu_mean));
    json_object_object_add(used, "cpu_cores_peak", json_object_new_double(e->cpu_peak));
    json_object_object_add(used, "memory_peak_mib", json_object_new_double(e->mem_peak_mib));
    json_object_object_add(used, "gpus_mean", json_object_new_double(e->gpu_mean));
    json_object_object_add(used, "gpus_busy_peak", json_object_new_double(e->gpus_busy_peak));
    json_object_object_add(used, "gpus_idle", json_object_new_int(e->gpus_idle));
    json_object_object_add(used, "gpu_energy_joules", number_or_null(e->energy_joules,
                                                                     e->energy_available));
    json_object_object_add(eff, "cpu_percent", number_or_null(percent(e->cpu_mean,
                                                                      e->cpus_requested),
                                                              e->cpus_requested > 0));
    json_object_object_add(eff, "memory_percent",
                           number_or_null(percent(e->mem_peak_mib, e->mem_requested_mib),
                                          e->mem_requested_mib > 0));
    json_object_object_add(o, "requested", req);
    json_object_object_add(o, "used", used);
    json_object_object_add(o, "efficiency", eff);
    char next[256];
    next_request(j, next, sizeof next);
    json_object_object_add(o, "next_request", json_object_new_string(next));
    json_object *tasks;
    if (json_object_object_get_ex(o, "tasks", &tasks))
        for (size_t i = 0; i < json_object_array_length(tasks) && i <= job->nother_tasks; i++) {
            const gt_peak_breakdown *b = &task_run(job, i)->at_peak[GT_PEAK_MEMORY];
            json_object *held = json_object_new_array();
            for (int k = 0; b->struct_size && b->available && k < b->nprocesses; k++) {
                json_object *p = json_object_new_object();
                json_object_object_add(p, "pid", json_object_new_int(b->processes[k].pid));
                json_object_object_add(p, "command",
                                       json_object_new_string(b->processes[k].command));
                json_object_object_add(p, "bytes", json_object_new_double(b->processes[k].bytes));
                json_object_array_add(held, p);
            }
            json_object_object_add(json_object_array_get_idx(tasks, i), "memory_peak_held_by", held);
            char waited[800];
            json_object_object_add(json_object_array_get_idx(tasks, i), "gpu_waited",
                                   task_gpu_waited(task_run(job, i), waited, sizeof waited)
                                       ? json_object_new_string(waited) : NULL);
        }
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_SPACED |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return 0;
}

static int parse_args(int argc, char **argv, struct job_args *a)
{
    memset(a, 0, sizeof *a);
    a->targets = calloc((size_t)argc, sizeof *a->targets);
    if (!a->targets)
        return cli_fail("out of memory", 1);
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0) {
            fputs(help, stdout);
            free(a->targets);
            a->targets = NULL;
            return -1; /* said: exit 0 */
        } else if (strcmp(w, "-f") == 0 || strcmp(w, "--format") == 0) {
            if (v && strcmp(v, "text") == 0)
                a->format = JOB_TEXT;
            else if (v && strcmp(v, "human") == 0)
                a->format = JOB_HUMAN;
            else if (v && strcmp(v, "json") == 0)
                a->format = JOB_JSON;
            else {
                cli_error("unknown format '%s' for job; valid formats: text, human, json\n",
                          v ? v : "");
                return 2;
            }
            i++;
        } else if ((strcmp(w, "--user") == 0 || strcmp(w, "--plugstack") == 0) && v && *v) {
            *(strcmp(w, "--user") == 0 ? &a->user : &a->plugstack) = v;
            i++;
        } else if (strcmp(w, "--max-rows") == 0 && v) {
            char *end;
            unsigned long long n = strtoull(v, &end, 10);
            if (*end || !*v || n == 0 || v[0] == '-') {
                cli_error("invalid --max-rows '%s': a positive number of rows\n", v);
                return 2;
            }
            a->max_rows = (size_t)n;
            i++;
        } else if (w[0] == '-' && w[1]) {
            cli_error("unknown option '%s' for job; %s\n", w, usage);
            return 2;
        } else {
            a->targets[a->ntargets++] = argv[i];
        }
    }
    if (a->ntargets == 0) {
        cli_error("%s\n", usage);
        return 2;
    }
    return 0;
}

int job_command(int argc, char **argv)
{
    struct job_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0) {
        free(a.targets);
        return rc < 0 ? 0 : rc; /* -1: the help was asked for and shown */
    }
    gt_snapshot *job = load_job(&a);
    free(a.targets);
    if (!job)
        return 1;
    gt_job_summary *j = NULL;
    if (gt_job_summarize(job, &j) != GT_OK) {
        gt_snapshot_free(job);
        return cli_fail(gt_last_error(), 1);
    }
    struct efficiency e;
    measure(job, j, &e);
    if (a.format == JOB_JSON)
        rc = print_json(job, j, &e);
    else
        print_text(job, j, &e, a.format == JOB_HUMAN);
    gt_job_summary_free(j);
    gt_snapshot_free(job);
    return rc;
}
