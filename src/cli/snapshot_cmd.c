/* snapshot_cmd.c - saving a run, and reading saved runs back: stats,
 * recommend (and --server), report. */
#define _GNU_SOURCE
#include "snapshot_cmd.h"

#include "environment.h"
#include "human.h"
#include "gpu_tracker_internal.h"
#include "output.h"
#include "shlex.h"
#include "common/toolkit.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int save_run(gt_tracker *t, const char *command, int exit_status, const char *snapshot_path,
             gt_snapshot_format format, const char *report_path, const char *stf)
{
    /* Streamed from where the tracker keeps the rows: a long run's
     * snapshot and report cost no more memory than a short one's. */
    int failed = 0;
    if (snapshot_path &&
        gt_tracker_write_snapshot(t, command, exit_status, format, snapshot_path) != GT_OK)
        failed = cli_fail(gt_last_error(), 1);
    /* Rows are samples less the baseline: a snapshot past what the readers
     * take by default needs saying how to read it. */
    double samples = 0;
    if (snapshot_path && !failed && gt_tracker_figure(t, GT_FIGURE_SAMPLES, &samples) == GT_OK &&
        samples - 1 > GT_SNAPSHOT_MAX_ROWS)
        cli_error("note: '%s' has up to %.0f rows per series, more than stats, "
                  "recommend and report read by default (%d): give them --max-rows %.0f\n",
                  snapshot_path, samples - 1, GT_SNAPSHOT_MAX_ROWS, samples - 1);
    if (report_path) {
        gt_report_extras extras;
        memset(&extras, 0, sizeof extras);
        extras.sub_tracking_file = stf;
        gt_status st = gt_tracker_write_report(t, command, exit_status, NULL, &extras,
                                                  report_path);
        if (st != GT_OK && stf) {
            /* The program's marks are bad or gone: the run's report is
             * still worth having, without its code blocks. */
            char why[1024];
            snprintf(why, sizeof why, "%s", gt_last_error());
            extras.sub_tracking_file = NULL;
            st = gt_tracker_write_report(t, command, exit_status, NULL, &extras, report_path);
            if (st == GT_OK)
                cli_error("warning: '%s' has no code blocks: %s\n",
                          report_path, why);
        }
        if (st != GT_OK)
            failed = cli_fail(gt_last_error(), 1);
    }
    return failed;
}

/* ---- arguments shared by the subcommands -------------------------------- */

struct sub_args {
    const char *files[GT_MERGE_MAX_TASKS]; /* merge takes a job's tasks */
    int nfiles;
    int json;        /* -f json */
    int server;      /* --server */
    const char *out; /* -o */
    size_t max_rows; /* --max-rows, 0: the library's default */
    const char *history[256]; /* report --history OLD...: earlier runs */
    int nhistory;
    const char *stf; /* report --stf FILE: the run's sub-tracking file */
};

/* Parses [-f text|json] [--server] [-o FILE] FILE...; allowed says which
 * of 'f', 's', 'o' this subcommand takes. -1 after printing the error. */
static int parse_sub(int argc, char **argv, const char *allowed, const char *usage,
                     struct sub_args *a)
{
    memset(a, 0, sizeof *a);
    int in_history = 0; /* after --history, files are earlier runs */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = NULL;
        if (strchr(allowed, 'H') && !strcmp(arg, "--history")) {
            in_history = 1;
            continue;
        }
        if (arg[0] == '-' && arg[1])
            in_history = 0;
        if (in_history) {
            if (a->nhistory == (int)(sizeof a->history / sizeof a->history[0])) {
                cli_error("too many --history snapshots: at most %zu\n",
                          sizeof a->history / sizeof a->history[0]);
                return -1;
            }
            a->history[a->nhistory++] = arg;
            continue;
        }
        if (strchr(allowed, 'f') && (!strcmp(arg, "-f") || !strcmp(arg, "--format"))) {
            if (i + 1 >= argc) {
                cli_fail(usage, 2);
                return -1;
            }
            val = argv[++i];
        } else if (strchr(allowed, 'f') && !strncmp(arg, "--format=", 9)) {
            val = arg + 9;
        }
        if (val) {
            if (strcmp(val, "text") && strcmp(val, "json")) {
                cli_error("unknown format '%s'; valid formats: text, json\n", val);
                return -1;
            }
            a->json = !strcmp(val, "json");
        } else if (strchr(allowed, 's') && !strcmp(arg, "--server")) {
            a->server = 1;
        } else if (!strcmp(arg, "--max-rows") || !strncmp(arg, "--max-rows=", 11)) {
            const char *n = arg[10] == '=' ? arg + 11 : i + 1 < argc ? argv[++i] : NULL;
            char *end;
            errno = 0;
            unsigned long long v = n ? strtoull(n, &end, 10) : 0;
            if (!n || errno || end == n || *end || v == 0 || v > 1000000000ULL || *n == '-') {
                cli_error("invalid --max-rows '%s': the most rows per series "
                          "to read, from 1 to 1000000000 (default %d)\n", n ? n : "",
                          GT_SNAPSHOT_MAX_ROWS);
                return -1;
            }
            a->max_rows = (size_t)v;
        } else if (strchr(allowed, 'o') && (!strcmp(arg, "-o") || !strcmp(arg, "--output"))) {
            if (i + 1 >= argc) {
                cli_fail(usage, 2);
                return -1;
            }
            a->out = argv[++i];
        } else if (strchr(allowed, 'o') && !strncmp(arg, "--output=", 9)) {
            a->out = arg + 9;
        } else if (strchr(allowed, 'S') && !strcmp(arg, "--stf")) {
            if (i + 1 >= argc) {
                cli_fail(usage, 2);
                return -1;
            }
            a->stf = argv[++i];
        } else if (strchr(allowed, 'S') && !strncmp(arg, "--stf=", 6)) {
            a->stf = arg + 6;
        } else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            /* within 80 columns, continued under the arguments */
            char *text = human_wrap(usage + strlen("usage: "), 80);
            printf("%s\n", text ? text : usage + strlen("usage: "));
            free(text);
            exit(0);
        } else if (arg[0] == '-' && arg[1]) {
            cli_error("unknown option '%s'; %s\n", arg, usage);
            return -1;
        } else if (a->nfiles < (int)(sizeof a->files / sizeof a->files[0])) {
            a->files[a->nfiles++] = arg;
        } else {
            cli_error("too many snapshots: at most %zu at once\n",
                      sizeof a->files / sizeof a->files[0]);
            return -1;
        }
    }
    if (a->nfiles == 0) {
        cli_fail(usage, 2);
        return -1;
    }
    return 0;
}

/* Reads every file; NULL after printing the error. */
static gt_snapshot **load_all(const struct sub_args *a, int distinct_tasks)
{
    gt_snapshot **snaps = calloc((size_t)a->nfiles, sizeof *snaps);
    if (!snaps) {
        cli_fail("out of memory", 1);
        return NULL;
    }
    /* The files share one allowance (a directory's worth of hard links
     * costs what one file does). */
    gt_snapshot_load load;
    gt_snapshot_load_init(&load, a->max_rows);
    load.distinct_tasks = distinct_tasks; /* merge: a job's tasks, each once */
    for (int i = 0; i < a->nfiles; i++)
        if (gt_snapshot_load_read(&load, a->files[i], &snaps[i]) != GT_OK) {
            cli_fail(gt_last_error(), 1);
            for (int j = 0; j < i; j++)
                gt_snapshot_free(snaps[j]);
            free(snaps);
            gt_snapshot_load_done(&load);
            return NULL;
        }
    gt_snapshot_load_done(&load);
    return snaps;
}

static void free_all(gt_snapshot **snaps, int n)
{
    for (int i = 0; i < n; i++)
        gt_snapshot_free(snaps[i]);
    free(snaps);
}

/* The library's JSON of one run's stats (its float policy, the same as
 * every JSON it writes), as an object to put in a larger document; NULL
 * when out of memory. */
static json_object *stats_object(const gt_stats *s)
{
    char *text = gt_stats_to_json(s);
    json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    return o;
}

/* Whether a run (or runs) used a GPU at all: one that used none shows no
 * row of zeros. */
static int stats_used_gpu(const gt_stats *s)
{
    return s->gpu_usage_max > 0 || s->gpu_vram_max > 0 || s->gpu_utilized_max > 0;
}

/* A person reads these: sizes in units chosen by size (as -f human), the
 * duration as m:ss past a minute; -f json keeps resource_tracker's units. */
static void stats_text(const char *title, const gt_stats *s)
{
    char a[32], b[32];
    output_print_untrusted(stdout, title);
    printf(": %ld rows over %s\n", s->samples, human_duration(a, sizeof a, s->duration));
    printf("   CPU usage:       mean %.2f, max %.2f cores\n", s->cpu_usage_mean, s->cpu_usage_max);
    printf("   memory (PSS):    mean %s, max %s\n", human_bytes(a, sizeof a, s->memory_mean * 1024),
           human_bytes(b, sizeof b, s->memory_max * 1024));
    if (stats_used_gpu(s)) {
        printf("   GPU usage:       mean %.2f, max %.2f GPUs\n", s->gpu_usage_mean,
               s->gpu_usage_max);
        printf("   GPU memory:      mean %s, max %s\n",
               human_bytes(a, sizeof a, s->gpu_vram_mean * 1024 * 1024),
               human_bytes(b, sizeof b, s->gpu_vram_max * 1024 * 1024));
        printf("   GPUs in use:     mean %.2f, max %.2f\n", s->gpu_utilized_mean,
               s->gpu_utilized_max);
    } else {
        printf("   GPU:             none used\n");
    }
    printf("   disk space used: max %s\n",
           human_bytes(a, sizeof a, s->disk_space_used_max_gb * 1024 * 1024 * 1024));
    printf("   network:         %s received, %s sent\n", human_bytes(a, sizeof a, s->net_recv_bytes_sum),
           human_bytes(b, sizeof b, s->net_sent_bytes_sum));
}

static void print_json(json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                         JSON_C_TO_STRING_SPACED |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The stats of every snapshot (and of all together); -1 after an error. */
static int all_stats(gt_snapshot **snaps, const struct sub_args *a, gt_stats *each, gt_stats *all)
{
    for (int i = 0; i < a->nfiles; i++) {
        if (gt_snapshot_stats(snaps[i], &each[i]) != GT_OK) {
            cli_error("'%s': %s\n", a->files[i], gt_last_error());
            return -1;
        }
    }
    if (gt_stats_combine(each, (size_t)a->nfiles, all) != GT_OK) {
        cli_error("%s\n", gt_last_error());
        return -1;
    }
    return 0;
}

/* ---- a merged job ----------------------------------------------------- */

/* The label of a task in text: "task 3 (node07)". */
static void task_label(const gt_task_summary *t, char *out, size_t cap)
{
    snprintf(out, cap, "task %s%s%s (%s)", t->job.task_rank[0] ? t->job.task_rank : "?",
             t->job.array_task_id[0] ? ", array task " : "", t->job.array_task_id,
             t->job.node[0] ? t->job.node : t->host);
}

static gt_job_summary *summarize(const gt_snapshot *s)
{
    gt_job_summary *j = NULL;
    if (gt_job_summarize(s, &j) != GT_OK)
        cli_fail(gt_last_error(), 1);
    return j;
}

static void slurm_line(const gt_job_summary *j)
{
    printf("Slurm request: --ntasks=%zu --cpus-per-task=%d --mem-per-cpu=%dM", j->ntasks,
           j->cpus_per_task, j->mem_per_cpu_mib);
    if (j->gpus_per_task)
        printf(" --gpus-per-task=%d", j->gpus_per_task);
    printf("\n   or per node: --nodes=%d --ntasks-per-node=%d --mem=%dM\n", j->nnodes,
           j->max_tasks_per_node, j->mem_per_node_mib);
}

/* stats of a merged job: each task, the tasks together, imbalance and
 * stragglers. */
static int job_stats(const gt_snapshot *s, const char *file, int json)
{
    gt_job_summary *j = summarize(s);
    if (!j)
        return 1;
    if (json) {
        char *text = gt_job_summary_to_json(j);
        if (text)
            printf("%s\n", text);
        free(text);
        gt_job_summary_free(j);
        return text ? 0 : cli_fail("out of memory", 1);
    }
    output_print_untrusted(stdout, file);
    printf(": job %s, %zu tasks on %d node%s, %.3f s from the first start to the last stop\n",
           j->job.array_job_id[0] ? j->job.array_job_id : j->job.job_id, j->ntasks, j->nnodes,
           j->nnodes == 1 ? "" : "s", j->stop_time - j->start_time);
    for (size_t i = 0; i < j->ntasks; i++) {
        char title[512];
        task_label(&j->tasks[i], title, sizeof title);
        if (j->tasks[i].has_rows) {
            stats_text(title, &j->tasks[i].stats);
        } else {
            output_print_untrusted(stdout, title);
            printf(": no rows\n");
        }
    }
    stats_text("all tasks together (means over the job's span, maxima summed)", &j->total);
    printf("imbalance (max / mean over the tasks; 1.00 is even): CPU %.2f, memory %.2f",
           j->imbalance_cpu, j->imbalance_memory);
    if (stats_used_gpu(&j->total))
        printf(", GPU %.2f", j->imbalance_gpu);
    printf("\n");
    printf("stragglers: %zu late (stopped over %.1f s after the median task), %zu idle (mean "
           "CPU under half the median task's)", j->nlate, j->late_margin, j->nidle);
    for (size_t i = 0; i < j->ntasks; i++)
        if (j->tasks[i].late || j->tasks[i].idle) {
            char title[512];
            task_label(&j->tasks[i], title, sizeof title);
            printf("\n   ");
            output_print_untrusted(stdout, title);
            printf(":%s%s", j->tasks[i].late ? " late" : "", j->tasks[i].idle ? " idle" : "");
        }
    printf("\n");
    gt_job_summary_free(j);
    return 0;
}

/* recommend for a merged job: each task's, and the Slurm request. */
static int job_recommend(const gt_snapshot *s, int json)
{
    gt_job_summary *j = summarize(s);
    if (!j)
        return 1;
    if (json) {
        char *text = gt_job_summary_to_json(j);
        json_object *o = text ? json_tokener_parse(text) : NULL;
        free(text);
        if (!o) {
            gt_job_summary_free(j);
            return cli_fail("out of memory", 1);
        }
        /* The figures a request needs: no stats. */
        json_object *tasks;
        if (json_object_object_get_ex(o, "tasks", &tasks))
            for (size_t i = 0; i < json_object_array_length(tasks); i++)
                json_object_object_del(json_object_array_get_idx(tasks, i), "stats");
        json_object_object_del(o, "total");
        print_json(o);
        json_object_put(o);
        gt_job_summary_free(j);
        return 0;
    }
    for (size_t i = 0; i < j->ntasks; i++) {
        char title[512];
        task_label(&j->tasks[i], title, sizeof title);
        output_print_untrusted(stdout, title);
        const gt_recommendation *r = &j->tasks[i].rec;
        printf(": cpu %d, memory %d MiB, gpu %d, vram %d MiB\n", r->cpu, r->memory_mib, r->gpu,
               r->vram_mib);
    }
    slurm_line(j);
    gt_job_summary_free(j);
    return 0;
}

int merge_command(int argc, char **argv)
{
    struct sub_args a;
    static const char usage[] = "usage: gpu-tracker merge SNAPSHOT... -o JOB.json.gz "
                                "[--max-rows N]";
    if (parse_sub(argc, argv, "o", usage, &a) < 0)
        return 2;
    if (!a.out)
        return cli_fail("merge writes a snapshot: give its name with -o JOB.json.gz", 2);
    if (output_file_check(a.out) != GT_OK)
        return cli_fail(gt_last_error(), 2);
    gt_snapshot **snaps = load_all(&a, 1);
    if (!snaps)
        return 1;
    gt_snapshot *job = NULL;
    if (gt_snapshot_merge(snaps, (size_t)a.nfiles, a.files, &job) != GT_OK) {
        int rc = cli_fail(gt_last_error(), 1);
        free_all(snaps, a.nfiles);
        return rc;
    }
    free(snaps); /* each was taken into job */
    int rc = 0;
    if (gt_snapshot_write(job, GT_SNAPSHOT_GPU_TRACKER, a.out) != GT_OK) {
        rc = cli_fail(gt_last_error(), 1);
    } else {
        printf("merged %zu task%s of job %s into ", job->nother_tasks + 1,
               job->nother_tasks ? "s" : "",
               job->job.array_job_id[0] ? job->job.array_job_id : job->job.job_id);
        output_print_untrusted(stdout, a.out);
        printf("\n");
        fflush(stdout);
    }
    gt_snapshot_free(job);
    return rc;
}

int stats_command(int argc, char **argv)
{
    struct sub_args a;
    if (parse_sub(argc, argv, "f", "usage: gpu-tracker stats SNAPSHOT... [-f text|json] [--max-rows N]", &a) < 0)
        return 2;
    gt_snapshot **snaps = load_all(&a, 0);
    if (!snaps)
        return 1;
    if (a.nfiles == 1 && snaps[0]->nother_tasks) {
        int rc = job_stats(snaps[0], a.files[0], a.json);
        free_all(snaps, a.nfiles);
        return rc;
    }
    gt_stats *each = calloc((size_t)a.nfiles, sizeof *each), all;
    if (!each) {
        free_all(snaps, a.nfiles);
        return cli_fail("out of memory", 1);
    }
    int rc = all_stats(snaps, &a, each, &all) < 0 ? 1 : 0;
    if (rc == 0 && a.json && a.nfiles == 1) {
        char *text = gt_stats_to_json(&each[0]);
        if (text)
            printf("%s\n", text);
        else
            rc = cli_fail(gt_last_error(), 1);
        free(text);
    } else if (rc == 0 && a.json) {
        json_object *o = json_object_new_object();
        json_object *runs = json_object_new_array();
        for (int i = 0; i < a.nfiles; i++) {
            json_object *r = json_object_new_object();
            json_object_object_add(r, "file", json_object_new_string(a.files[i]));
            json_object_object_add(r, "stats", stats_object(&each[i]));
            json_object_array_add(runs, r);
        }
        json_object_object_add(o, "runs", runs);
        json_object_object_add(o, "combined", stats_object(&all));
        print_json(o);
        json_object_put(o);
    } else if (rc == 0) {
        for (int i = 0; i < a.nfiles; i++)
            stats_text(a.files[i], &each[i]);
        if (a.nfiles > 1) {
            char title[128];
            snprintf(title, sizeof title, "combined (%d runs: means and durations averaged, "
                     "maxima and sums the largest)", a.nfiles);
            stats_text(title, &all);
        }
    }
    free(each);
    free_all(snaps, a.nfiles);
    return rc;
}

/* A run starved of CPU (it waited for one) has a mean that is a floor: said
 * after the recommendation, on standard error, for each such file. */
static void warn_starved(gt_snapshot *const *snaps, const struct sub_args *a)
{
    for (int i = 0; i < a->nfiles; i++) {
        char why[512];
        if (snaps[i]->no_summary ||
            !gt_cpu_contention(&snaps[i]->usage, &snaps[i]->cgroup, snaps[i]->duration, why,
                               sizeof why))
            continue;
        fputs("gpu-tracker: warning: the cpu above may be low: ", stderr);
        output_print_untrusted(stderr, a->files[i]);
        fprintf(stderr, ": %s\n", why);
    }
}

int recommend_command(int argc, char **argv)
{
    struct sub_args a;
    if (parse_sub(argc, argv, "fs", "usage: gpu-tracker recommend SNAPSHOT... [-f text|json] "
                  "[--server] [--max-rows N]", &a) < 0)
        return 2;
    gt_snapshot **snaps = load_all(&a, 0);
    if (!snaps)
        return 1;
    if (a.nfiles == 1 && snaps[0]->nother_tasks && !a.server) {
        int rc = job_recommend(snaps[0], a.json);
        free_all(snaps, a.nfiles);
        return rc;
    }
    gt_stats *each = calloc((size_t)a.nfiles, sizeof *each), all;
    if (!each || all_stats(snaps, &a, each, &all) < 0) {
        if (!each)
            cli_fail("out of memory", 1);
        free(each);
        free_all(snaps, a.nfiles);
        return 1;
    }
    free(each);
    gt_recommendation rec = {0};
    gt_recommend(&all, &rec);
    /* No network (a compute node, an air-gapped site): the local
     * recommendation is still printed, then why the server part is
     * missing, and the exit status says it is. */
    char *server = NULL;
    char server_failed[600] = "";
    if (a.server && gt_recommend_server(&rec, cli_keeper_url(), &server) != GT_OK)
        snprintf(server_failed, sizeof server_failed, "%s", gt_last_error());
    /* GPUs held idle, or given and unused: said beside the gpu figure,
     * which alone would not tell that the request was too large. */
    json_object *advice = json_object_new_array();
    for (int i = 0; advice && i < a.nfiles; i++) {
        char why[640];
        if (gpu_advice(&snaps[i]->gpu_idle, why, sizeof why))
            json_object_array_add(advice, json_object_new_string(why));
        char waited[800];
        if (snaps[i]->gpu_idle.struct_size &&
            gpu_wait_advice(&snaps[i]->gpu_idle.wait, waited, sizeof waited))
            json_object_array_add(advice, json_object_new_string(waited));
    }
    size_t nadvice = advice ? json_object_array_length(advice) : 0;
    /* A job cgroup's peak that was mostly page cache: said, so that nobody
     * asks their cluster for cache (the memory above is the processes'). */
    json_object *cache_notes = json_object_new_array();
    for (int i = 0; cache_notes && i < a.nfiles; i++) {
        const gt_cgroup_usage *cg = &snaps[i]->cgroup;
        double cache = gt_cgroup_reclaimable(cg);
        if (snaps[i]->no_summary || !(cache > 0))
            continue;
        char note[256];
        snprintf(note, sizeof note, "group peak %.0f MiB, %.0f MiB of it page cache the kernel "
                 "could reclaim: not in the memory above", cg->memory_peak / 1048576.0,
                 cache / 1048576.0);
        json_object_array_add(cache_notes, json_object_new_string(note));
    }
    size_t nnotes = cache_notes ? json_object_array_length(cache_notes) : 0;
    if (a.json) {
        char *text = gt_recommendation_to_json(&rec, server);
        /* The library's text as it is, unless there is advice to add. */
        json_object *o = text && (nadvice || nnotes) ? json_tokener_parse(text) : NULL;
        if (!text || ((nadvice || nnotes) && !o)) {
            free(text);
            json_object_put(advice);
            json_object_put(cache_notes);
            free(server);
            free_all(snaps, a.nfiles);
            return cli_fail(text ? "out of memory" : gt_last_error(), 1);
        }
        if (o) {
            if (nadvice) {
                json_object_object_add(o, "gpu_advice", advice);
                advice = NULL;
            }
            if (nnotes) {
                json_object_object_add(o, "memory_notes", cache_notes);
                cache_notes = NULL;
            }
            print_json(o);
            json_object_put(o);
        } else {
            printf("%s\n", text);
        }
        free(text);
    } else {
        printf("cpu: %d\nmemory: %d MiB\ngpu: %d\nvram: %d MiB\n", rec.cpu, rec.memory_mib,
               rec.gpu, rec.vram_mib);
        for (size_t i = 0; i < nnotes; i++)
            printf("memory note: %s\n",
                   json_object_get_string(json_object_array_get_idx(cache_notes, i)));
        for (size_t i = 0; i < nadvice; i++)
        {
            /* Who asked for the GPUs is the snapshot's text: escaped. */
            fputs("gpu advice: ", stdout);
            output_print_untrusted(stdout,
                                   json_object_get_string(json_object_array_get_idx(advice, i)));
            fputc('\n', stdout);
        }
        json_object *srv = server ? json_tokener_parse(server) : NULL;
        if (srv) {
            static const char *const keys[] = {"vendor_id", "api_reference", "vcpus",
                                               "memory_amount", "gpu_count", "min_price_ondemand"};
            /* The Keeper's strings are a server's answer: escaped for the
             * terminal. */
            printf("server:");
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
                json_object *v;
                if (json_object_object_get_ex(srv, keys[i], &v) && v) {
                    printf(" %s=", keys[i]);
                    output_print_untrusted(stdout, json_object_get_string(v));
                }
            }
            printf("\n");
            json_object_put(srv);
        }
    }
    json_object_put(advice);
    json_object_put(cache_notes);
    free(server);
    fflush(stdout);
    warn_starved(snaps, &a);
    free_all(snaps, a.nfiles);
    if (server_failed[0]) {
        cli_error("no server recommendation: %s; the resources above are "
                  "the local recommendation\n", server_failed);
        return 1;
    }
    return 0;
}

/* What makes two commands runs of one job: the program and its first
 * argument that is not an option (the script), each by its last path
 * component. "python train.py --epochs 5" and "python3 ./train.py
 * --epochs 10" differ in the program; "python train.py --epochs 5" and
 * "python /home/a/train.py --epochs 10" are one job. key gets "program
 * script" ("" when the command cannot be split). */
static void command_key(const char *command, char *key, size_t cap)
{
    key[0] = '\0';
    const char *why = NULL;
    char **argv = command ? shlex_split(command, &why) : NULL;
    if (!argv || !argv[0]) {
        shlex_free(argv);
        return;
    }
    const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    const char *script = "";
    for (size_t i = 1; argv[i]; i++)
        if (argv[i][0] != '-') {
            script = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
            break;
        }
    snprintf(key, cap, "%s %s", prog, script);
    shlex_free(argv);
}

/* The history of a report: each earlier run of the same job (command_key)
 * read (one at a time: memory for one run), its statistics combined; a
 * run of another command is left out, said with what it ran. 0, or -1
 * after saying which file failed. A run with no rows to take statistics of
 * is an error too: it would silently weigh nothing. */
static int load_history(const struct sub_args *a, const char *command, gt_report_extras *h)
{
    if (a->nhistory == 0)
        return 0;
    gt_stats *runs = calloc((size_t)a->nhistory, sizeof *runs);
    if (!runs)
        return cli_fail("out of memory", 1), -1;
    char key[1024], other[1024];
    command_key(command, key, sizeof key);
    size_t kept = 0;
    for (int i = 0; i < a->nhistory; i++) {
        gt_snapshot *s = NULL;
        if (gt_snapshot_read(a->history[i], a->max_rows, &s) != GT_OK) {
            cli_error("--history: %s\n", gt_last_error());
            free(runs);
            return -1;
        }
        command_key(s->command, other, sizeof other);
        if (strcmp(key, other) != 0) {
            cli_error("warning: --history: '%s' ran '%s', not this run's program and script "
                      "('%s'): left out\n", a->history[i], s->command ? s->command : "",
                      command ? command : "");
            gt_snapshot_free(s);
            continue;
        }
        gt_status st = gt_snapshot_stats(s, &runs[kept]);
        gt_snapshot_free(s);
        if (st != GT_OK) {
            cli_error("--history: '%s' has no rows to take statistics of\n",
                      a->history[i]);
            free(runs);
            return -1;
        }
        kept++;
    }
    if (kept == 0) {
        free(runs);
        return 0;
    }
    if (gt_stats_combine(runs, kept, &h->history) != GT_OK) {
        cli_error("--history: %s\n", gt_last_error());
        free(runs);
        return -1;
    }
    h->history_runs = kept;
    free(runs);
    return 0;
}

#define REPORT_USAGE "usage: gpu-tracker report SNAPSHOT [-o FILE.html] [--server] [--max-rows N] " \
                     "[--history OLD.json.gz...] [--stf SUB_TRACKING_FILE]"

int report_command(int argc, char **argv)
{
    struct sub_args a;
    if (parse_sub(argc, argv, "osHS", REPORT_USAGE, &a) < 0)
        return 2;
    if (a.nfiles != 1)
        return cli_fail(REPORT_USAGE, 2);
    gt_report_extras extras;
    memset(&extras, 0, sizeof extras);
    extras.sub_tracking_file = a.stf;
    if (a.out) {
        char err[1024];
        const struct output_use uses[] = {{"the snapshot", a.files[0]}, {"-o", a.out}};
        if (output_find_same(uses, 2, err, sizeof err) < 0)
            return cli_fail(err, 2);
        if (output_check_writable(a.out, "output file", err, sizeof err) < 0)
            return cli_fail(err, 1);
    }
    gt_snapshot **snaps = load_all(&a, 0);
    if (!snaps)
        return 1;
    if (load_history(&a, snaps[0]->command, &extras) < 0) {
        free_all(snaps, 1);
        return 1;
    }
    char *server = NULL;
    gt_stats st = {0};
    if (a.server && gt_snapshot_stats(snaps[0], &st) == GT_OK) {
        gt_recommendation rec = {0};
        gt_recommend(&st, &rec);
        if (gt_recommend_server(&rec, cli_keeper_url(), &server) != GT_OK)
            cli_error("warning: %s; the report has no server recommendation\n",
                      gt_last_error());
        /* The instance the run was on (--cloud found it): its price, for
         * the run's cost beside the recommended server's. Only when the
         * Keeper answered: offline is said once, above. */
        const gt_cloud_info *cl = &snaps[0]->cloud;
        if (server && cl->found && strcmp(cl->instance_type, "unknown") != 0 &&
            gt_instance_price_at(cl->vendor, cl->region, cl->instance_type, cli_keeper_url(),
                                 &extras.current_price_per_hour) != GT_OK)
            cli_error("warning: %s; the report shows no price for the instance "
                      "the run was on\n", gt_last_error());
    }
    int rc = 0;
    const gt_report_extras *h = &extras;
    if (a.out) {
        if (gt_snapshot_write_report(snaps[0], server, h, a.out) != GT_OK)
            rc = cli_fail(gt_last_error(), 1);
    } else {
        char *html = gt_snapshot_report_html(snaps[0], server, h);
        if (!html)
            rc = cli_fail("out of memory", 1);
        else
            fputs(html, stdout);
        free(html);
    }
    free(server);
    free_all(snaps, 1);
    return rc;
}
