/* job.c - a job of many tasks: merging the tasks' snapshots
 * (gt_snapshot_merge) and the job view of a merged snapshot
 * (gt_job_summarize): the tasks side by side, imbalance, stragglers and
 * the Slurm request. Pure: snapshots in, structs and JSON out. */
#define _GNU_SOURCE
#include "common/internal.h"
#include "common/num.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_write.h"
#include "stats/stats.h"
#include "common/units.h"

/* ---- merging -------------------------------------------------------------- */

/* A task to merge: the snapshot and the file it came from. */
struct task_ref {
    gt_snapshot *s;
    const char *name;
    size_t input;  /* index of the input it is, or is a task of */
};

/* The job a task belongs to: an array job's tasks are jobs of their own
 * under Slurm (each its own SLURM_JOB_ID), joined by their array job id. */
static const char *job_key(const gt_job_info *j)
{
    return j->array_job_id[0] ? j->array_job_id : j->job_id;
}

/* A Slurm id as a number for ordering; empty first. */
static long long id_number(const char *id)
{
    return *id ? strtoll(id, NULL, 10) : -1;
}

static int by_task(const void *a, const void *b)
{
    const gt_job_info *x = &((const struct task_ref *)a)->s->job;
    const gt_job_info *y = &((const struct task_ref *)b)->s->job;
    long long k[3][2] = {{id_number(x->array_task_id), id_number(y->array_task_id)},
                         {id_number(x->step_id), id_number(y->step_id)},
                         {id_number(x->task_rank), id_number(y->task_rank)}};
    for (int i = 0; i < 3; i++)
        if (k[i][0] != k[i][1])
            return k[i][0] < k[i][1] ? -1 : 1;
    return 0;
}

/* "task 3 (step 0, array task 7)" */
static void task_words(const gt_job_info *j, char *out, size_t cap)
{
    snprintf(out, cap, "task %s%s%s%s%s", j->task_rank[0] ? j->task_rank : "(no rank)",
             j->step_id[0] ? " of step " : "", j->step_id,
             j->array_task_id[0] ? " of array task " : "", j->array_task_id);
}

gt_status gt_snapshot_merge(gt_snapshot **runs, size_t n, const char *const *names,
                            gt_snapshot **out)
{
    error_clear();
    *out = NULL;
    if (!runs || !names || n == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no snapshots to merge");
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!runs[i])
            return error_set(GT_ERR_INVALID_ARGUMENT, "snapshot %zu to merge is NULL", i);
        total += 1 + runs[i]->nother_tasks;
    }
    if (total > GT_MERGE_MAX_TASKS)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%zu tasks to merge; a merged job holds at most "
                         "%d", total, GT_MERGE_MAX_TASKS);
    struct task_ref *t = calloc(total, sizeof *t);
    if (!t)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        t[k++] = (struct task_ref){runs[i], names[i], i};
        for (size_t j = 0; j < runs[i]->nother_tasks; j++)
            t[k++] = (struct task_ref){runs[i]->other_tasks[j], names[i], i};
    }
    /* Every task from a Slurm job, all from the first file's job. */
    gt_status st = GT_OK;
    const char *key = job_key(&t[0].s->job);
    for (size_t i = 0; i < total && st == GT_OK; i++) {
        const gt_job_info *j = &t[i].s->job;
        if (!j->job_id[0])
            st = error_set(GT_ERR_INVALID_ARGUMENT, "'%s' was not written in a Slurm job (its "
                           "snapshot has no job id): merge joins the task snapshots of one job",
                           t[i].name);
        else if (strcmp(job_key(j), key) != 0)
            st = error_set(GT_ERR_INVALID_ARGUMENT, "'%s' is of %sjob %s, not of %sjob %s as '%s' "
                           "is: merge joins the snapshots of one job", t[i].name,
                           j->array_job_id[0] ? "array " : "", job_key(j),
                           t[0].s->job.array_job_id[0] ? "array " : "", key, t[0].name);
    }
    if (st == GT_OK) {
        qsort(t, total, sizeof *t, by_task);
        for (size_t i = 1; i < total && st == GT_OK; i++)
            if (by_task(&t[i - 1], &t[i]) == 0) {
                char words[160];
                task_words(&t[i].s->job, words, sizeof words);
                st = error_set(GT_ERR_INVALID_ARGUMENT, "'%s' and '%s' are both %s of job %s: "
                               "each task once", t[i - 1].name, t[i].name, words, key);
            }
    }
    gt_snapshot **others = NULL;
    if (st == GT_OK && total > 1) {
        others = calloc(total - 1, sizeof *others);
        if (!others)
            st = error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    if (st != GT_OK) {
        free(t);
        return st;
    }
    /* Taken: the inputs' own lists of tasks go (the tasks are in t). */
    for (size_t i = 0; i < n; i++) {
        free(runs[i]->other_tasks);
        runs[i]->other_tasks = NULL;
        runs[i]->nother_tasks = 0;
        runs[i] = NULL;
    }
    gt_snapshot *first = t[0].s;
    for (size_t i = 1; i < total; i++)
        others[i - 1] = t[i].s;
    first->other_tasks = others;
    first->nother_tasks = total - 1;
    free(t);
    *out = first;
    return GT_OK;
}

/* ---- the job view ----------------------------------------------------------- */

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: n is a job's tasks */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* max / mean of n values (0 when the mean is 0). */
static double imbalance(const double *v, size_t n)
{
    double sum = 0, max = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        max = v[i] > max ? v[i] : max;
    }
    return sum > 0 ? max / (sum / (double)n) : 0;
}

static void summarize_task(const gt_snapshot *s, gt_task_summary *t)
{
    memset(t, 0, sizeof *t);
    t->job = s->job;
    text_copy(t->host, sizeof t->host, s->host);
    t->pid = s->pid;
    t->start_time = s->start_time;
    t->stop_time = s->stop_time;
    t->exit_status = s->exit_status;
    t->has_rows = s->series.nprocess > 0 && s->series.nsystem > 0 &&
                  gt_snapshot_stats(s, &t->stats) == GT_OK;
    if (!t->has_rows)
        memset(&t->stats, 0, sizeof t->stats);
    double divisor = units_ram_divisor(s->usage.max_ram.unit);
    t->peak_rss_mib = divisor > 0 && !s->no_summary
                          ? s->usage.max_ram.combined.total_rss * divisor / (1024.0 * 1024.0) : 0;
    gt_recommend(&t->stats, &t->rec);
    /* Slurm's limit is on what the task's cgroup holds, closer to RSS than
     * to PSS: the larger peak decides, and the cgroup's own peak where it
     * was read (the step's group, or --cgroup), less the page cache the
     * kernel could have reclaimed (a limit reclaims it before it kills). */
    double pss_mib = t->stats.memory_max / 1024.0;
    double mib = pss_mib > t->peak_rss_mib ? pss_mib : t->peak_rss_mib;
    double group_mib = gt_cgroup_working_peak(&s->cgroup) / (1024.0 * 1024.0);
    if (group_mib > mib)
        mib = group_mib;
    t->rec.memory_mib = gt_round_memory_mib(mib * 1.2);
}

/* Adds task b to the job's total a, the tasks running at once (where
 * gt_stats_combine is for runs one after another): maxima and sums summed;
 * means as integrals (mean x the task's duration), made means over the
 * job's span by finish_concurrent(). Summing the means themselves would
 * count a task of 5 s as if it had run the whole 11 s of the job. */
static void add_concurrent(gt_stats *a, const gt_stats *b)
{
    double d = b->duration;
    a->samples += b->samples;
    a->cpu_usage_mean += b->cpu_usage_mean * d;
    a->cpu_usage_max += b->cpu_usage_max;
    a->memory_mean += b->memory_mean * d;
    a->memory_max += b->memory_max;
    a->gpu_usage_mean += b->gpu_usage_mean * d;
    a->gpu_usage_max += b->gpu_usage_max;
    a->gpu_vram_mean += b->gpu_vram_mean * d;
    a->gpu_vram_max += b->gpu_vram_max;
    a->gpu_utilized_mean += b->gpu_utilized_mean * d;
    a->gpu_utilized_max += b->gpu_utilized_max;
    a->disk_space_used_max_gb = max_d(a->disk_space_used_max_gb, b->disk_space_used_max_gb);
    a->net_recv_bytes_sum += b->net_recv_bytes_sum;
    a->net_sent_bytes_sum += b->net_sent_bytes_sum;
}

/* The integrals of add_concurrent() over the job's span: the mean of the
 * tasks' sum at each moment (a task not running adds 0). */
static void finish_concurrent(gt_stats *a, double span)
{
    if (!(span > 0))
        return; /* no span to spread over: the integrals of instantaneous tasks are 0 */
    a->cpu_usage_mean /= span;
    a->memory_mean /= span;
    a->gpu_usage_mean /= span;
    a->gpu_vram_mean /= span;
    a->gpu_utilized_mean /= span;
}

/* The node of a task: Slurm's name, else its host. */
static const char *node_of(const gt_task_summary *t)
{
    return t->job.node[0] ? t->job.node : t->host;
}

const gt_task_summary *gt_job_summary_task(const gt_job_summary *j, size_t i)
{
    return j && i < j->ntasks ? &j->tasks[i] : NULL;
}

gt_status gt_job_summarize(const gt_snapshot *s, gt_job_summary **out)
{
    error_clear();
    *out = NULL;
    gt_job_summary *j = calloc(1, sizeof *j);
    size_t n = s ? 1 + s->nother_tasks : 0;
    if (j && n)
        j->tasks = calloc(n, sizeof *j->tasks);
    double *tmp = calloc(n ? n : 1, 3 * sizeof *tmp);
    if (!s || !j || !j->tasks || !tmp) {
        free(tmp);
        gt_job_summary_free(j);
        return s ? error_set(GT_ERR_NO_MEMORY, "out of memory")
                 : error_set(GT_ERR_INVALID_ARGUMENT, "no snapshot");
    }
    j->ntasks = n;
    j->job = s->job;
    j->job.task_rank[0] = '\0';
    double interval = 0;
    for (size_t i = 0; i < n; i++) {
        const gt_snapshot *task = i ? s->other_tasks[i - 1] : s;
        gt_task_summary *t = &j->tasks[i];
        summarize_task(task, t);
        interval = task->interval > interval ? task->interval : interval;
        if (i == 0 || t->start_time < j->start_time)
            j->start_time = t->start_time;
        if (i == 0 || t->stop_time > j->stop_time)
            j->stop_time = t->stop_time;
        add_concurrent(&j->total, &t->stats);
        tmp[i] = t->stats.cpu_usage_mean;
        tmp[n + i] = t->stats.memory_max;
        tmp[2 * n + i] = t->stats.gpu_usage_mean;
    }
    j->total.duration = j->stop_time - j->start_time;
    finish_concurrent(&j->total, j->total.duration);
    j->imbalance_cpu = imbalance(tmp, n);
    j->imbalance_memory = imbalance(tmp + n, n);
    j->imbalance_gpu = imbalance(tmp + 2 * n, n);

    /* Stragglers: against the median task, so that one slow task cannot
     * hide itself by moving the yardstick. */
    double span = j->stop_time - j->start_time;
    j->late_margin = max_d(0.1 * span, 2 * interval);
    for (size_t i = 0; i < n; i++)
        tmp[i] = j->tasks[i].stop_time;
    double median_stop = median(tmp, n);
    for (size_t i = 0; i < n; i++)
        tmp[i] = j->tasks[i].stats.cpu_usage_mean;
    double median_cpu = median(tmp, n);
    for (size_t i = 0; i < n && n > 1; i++) {
        gt_task_summary *t = &j->tasks[i];
        t->late = t->stop_time > median_stop + j->late_margin;
        t->idle = t->has_rows && median_cpu >= 0.1 && t->stats.cpu_usage_mean < 0.5 * median_cpu;
        j->nlate += (size_t)t->late;
        j->nidle += (size_t)t->idle;
    }

    /* The request: each task as big as the biggest; --mem for the node
     * whose tasks need most together. */
    for (size_t i = 0; i < n; i++) {
        const gt_recommendation *r = &j->tasks[i].rec;
        j->cpus_per_task = r->cpu > j->cpus_per_task ? r->cpu : j->cpus_per_task;
        j->gpus_per_task = r->gpu > j->gpus_per_task ? r->gpu : j->gpus_per_task;
    }
    for (size_t i = 0; i < n; i++) {
        const gt_recommendation *r = &j->tasks[i].rec;
        int per_cpu = (r->memory_mib + j->cpus_per_task - 1) / j->cpus_per_task;
        j->mem_per_cpu_mib = per_cpu > j->mem_per_cpu_mib ? per_cpu : j->mem_per_cpu_mib;
        int first_of_node = 1, on_node = 0;
        long node_mib = 0;
        for (size_t k = 0; k < n; k++) {
            if (strcmp(node_of(&j->tasks[k]), node_of(&j->tasks[i])) != 0)
                continue;
            first_of_node &= k >= i;
            on_node++;
            node_mib += j->tasks[k].rec.memory_mib;
        }
        if (!first_of_node)
            continue;
        j->nnodes++;
        j->max_tasks_per_node = on_node > j->max_tasks_per_node ? on_node : j->max_tasks_per_node;
        if (node_mib > j->mem_per_node_mib)
            j->mem_per_node_mib = node_mib > INT32_MAX ? INT32_MAX : (int)node_mib;
    }
    free(tmp);
    *out = j;
    return GT_OK;
}

void gt_job_summary_free(gt_job_summary *j)
{
    if (!j)
        return;
    free(j->tasks);
    free(j);
}

static json_object *text_or_null(const char *s)
{
    return *s ? json_new_text(s) : NULL;
}

static json_object *ratio_or_null(double v)
{
    return v > 0 ? json_new_pyfloat(v) : NULL;
}

char *gt_job_summary_to_json(const gt_job_summary *j)
{
    if (!j)
        return NULL;
    json_object *o = json_object_new_object();
    json_object *job = json_object_new_object();
    json_object_object_add(job, "job_id", text_or_null(j->job.job_id));
    json_object_object_add(job, "array_job_id", text_or_null(j->job.array_job_id));
    json_object_object_add(job, "ntasks", json_object_new_int64((int64_t)j->ntasks));
    json_object_object_add(job, "nodes", json_object_new_int(j->nnodes));
    json_object_object_add(job, "start_time", json_new_pyfloat(j->start_time));
    json_object_object_add(job, "stop_time", json_new_pyfloat(j->stop_time));
    json_object_object_add(job, "duration", json_new_pyfloat(j->stop_time - j->start_time));
    json_object_object_add(o, "job", job);
    json_object *tasks = json_object_new_array();
    for (size_t i = 0; i < j->ntasks; i++) {
        const gt_task_summary *t = &j->tasks[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "task_rank", text_or_null(t->job.task_rank));
        json_object_object_add(x, "step_id", text_or_null(t->job.step_id));
        json_object_object_add(x, "array_task_id", text_or_null(t->job.array_task_id));
        json_object_object_add(x, "node", text_or_null(node_of(t)));
        json_object_object_add(x, "pid", json_object_new_int(t->pid));
        json_object_object_add(x, "start_time", json_new_pyfloat(t->start_time));
        json_object_object_add(x, "stop_time", json_new_pyfloat(t->stop_time));
        json_object_object_add(x, "exit_status",
                               t->exit_status >= 0 ? json_object_new_int(t->exit_status) : NULL);
        json_object_object_add(x, "stats", t->has_rows ? stats_json_object(&t->stats) : NULL);
        json_object_object_add(x, "peak_rss_mib", json_new_pyfloat(t->peak_rss_mib));
        json_object *rec = json_object_new_object();
        json_object_object_add(rec, "cpu", json_object_new_int(t->rec.cpu));
        json_object_object_add(rec, "memory", json_object_new_int(t->rec.memory_mib));
        json_object_object_add(rec, "gpu", json_object_new_int(t->rec.gpu));
        json_object_object_add(rec, "vram", json_object_new_int(t->rec.vram_mib));
        json_object_object_add(x, "recommendation", rec);
        json_object_object_add(x, "late", json_object_new_boolean(t->late));
        json_object_object_add(x, "idle", json_object_new_boolean(t->idle));
        json_object_array_add(tasks, x);
    }
    json_object_object_add(o, "tasks", tasks);
    json_object_object_add(o, "total", stats_json_object(&j->total));
    json_object *imb = json_object_new_object();
    json_object_object_add(imb, "cpu", ratio_or_null(j->imbalance_cpu));
    json_object_object_add(imb, "memory", ratio_or_null(j->imbalance_memory));
    json_object_object_add(imb, "gpu", ratio_or_null(j->imbalance_gpu));
    json_object_object_add(o, "imbalance", imb);
    json_object *str = json_object_new_object();
    json_object_object_add(str, "late_margin", json_new_pyfloat(j->late_margin));
    json_object_object_add(str, "late", json_object_new_int64((int64_t)j->nlate));
    json_object_object_add(str, "idle", json_object_new_int64((int64_t)j->nidle));
    json_object_object_add(o, "stragglers", str);
    json_object *sl = json_object_new_object();
    json_object_object_add(sl, "ntasks", json_object_new_int64((int64_t)j->ntasks));
    json_object_object_add(sl, "nodes", json_object_new_int(j->nnodes));
    json_object_object_add(sl, "cpus_per_task", json_object_new_int(j->cpus_per_task));
    json_object_object_add(sl, "mem_per_cpu_mib", json_object_new_int(j->mem_per_cpu_mib));
    json_object_object_add(sl, "mem_mib", json_object_new_int(j->mem_per_node_mib));
    json_object_object_add(sl, "gpus_per_task", json_object_new_int(j->gpus_per_task));
    json_object_object_add(o, "slurm", sl);
    return json_pretty_text(o);
}
