/* test_job.c - a job of many tasks: merging task snapshots (and refusing
 * those of other jobs or the same task twice), the merged file written and
 * read back under the row limit, and the job view (imbalance, stragglers,
 * the Slurm request) on constructed tasks with known figures. The real
 * Slurm cluster is in test_slurm.py. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "runner.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* A task of job "job" (rank, node): rows rows of cpu cores and mem_kb PSS,
 * started at start, lasting rows seconds. */
static gt_snapshot *task(const char *job, const char *rank, const char *node, double start,
                         size_t rows, double cpu, unsigned long long mem_kb)
{
    gt_snapshot *s = calloc(1, sizeof *s);
    s->format_version = 1;
    snprintf(s->tracker_version, sizeof s->tracker_version, "%s", gt_version());
    s->command = strdup("python train.py");
    s->pid = 1000 + atoi(rank);
    s->interval = 1;
    s->start_time = start;
    s->stop_time = start + (double)rows;
    s->duration = (double)rows;
    s->exit_status = 0;
    snprintf(s->host, sizeof s->host, "%s", node);
    snprintf(s->server.hostname, sizeof s->server.hostname, "%s", node);
    snprintf(s->server.allocation, sizeof s->server.allocation, "shared");
    snprintf(s->usage.max_ram.unit, sizeof s->usage.max_ram.unit, "megabytes");
    snprintf(s->usage.max_gpu_ram.unit, sizeof s->usage.max_gpu_ram.unit, "megabytes");
    snprintf(s->usage.compute_time.unit, sizeof s->usage.compute_time.unit, "seconds");
    s->usage.max_ram.combined.total_rss = (double)mem_kb * 1024 / 1e6; /* as RSS too */
    s->usage.gpu_details.unknown = s->usage.measurement.unknown = 1;
    if (job) {
        snprintf(s->job.scheduler, sizeof s->job.scheduler, "slurm");
        snprintf(s->job.job_id, sizeof s->job.job_id, "%s", job);
        snprintf(s->job.step_id, sizeof s->job.step_id, "0");
        snprintf(s->job.task_rank, sizeof s->job.task_rank, "%s", rank);
        snprintf(s->job.node, sizeof s->job.node, "%s", node);
    }
    gt_process_row *p = calloc(rows, sizeof *p);
    gt_system_row *y = calloc(rows, sizeof *y);
    for (size_t i = 0; i < rows; i++) {
        p[i].timestamp = y[i].timestamp = start + 1 + (double)i;
        p[i].pid = s->pid;
        p[i].cpu_usage = cpu;
        p[i].memory = mem_kb;
        y[i].cpu_usage = cpu;
    }
    s->series.interval = 1;
    s->series.start_time = start;
    s->series.process = p;
    s->series.nprocess = rows;
    s->series.system = y;
    s->series.nsystem = rows;
    return s;
}

static void test_merge_refusals(void)
{
    const char *names[] = {"a.json.gz", "b.json.gz", "c.json.gz"};
    gt_snapshot *runs[3], *job = NULL;

    runs[0] = task("4242", "0", "n1", 100, 5, 1, 1000);
    runs[1] = task(NULL, "1", "n1", 100, 5, 1, 1000);
    CHECK(gt_snapshot_merge(runs, 2, names, &job) == GT_ERR_INVALID_ARGUMENT && !job);
    CHECK_STR(gt_last_error(), "'b.json.gz' was not written in a Slurm job (its snapshot has no "
                               "job id): merge joins the task snapshots of one job");
    CHECK(runs[0] && runs[1]); /* left as they were */
    gt_snapshot_free(runs[1]);

    runs[1] = task("4243", "1", "n1", 100, 5, 1, 1000);
    CHECK(gt_snapshot_merge(runs, 2, names, &job) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "'b.json.gz' is of job 4243, not of job 4242 as 'a.json.gz' is: "
                               "merge joins the snapshots of one job");
    gt_snapshot_free(runs[1]);

    runs[1] = task("4242", "0", "n2", 100, 5, 1, 1000);
    CHECK(gt_snapshot_merge(runs, 2, names, &job) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "'a.json.gz' and 'b.json.gz' are both task 0 of step 0 of job "
                               "4242: each task once");
    gt_snapshot_free(runs[1]);
    gt_snapshot_free(runs[0]);

    /* Tasks of an array job are jobs of their own, joined by the array's id. */
    runs[0] = task("501", "0", "n1", 100, 5, 1, 1000);
    runs[1] = task("502", "0", "n1", 100, 5, 1, 1000);
    snprintf(runs[0]->job.array_job_id, 32, "500");
    snprintf(runs[0]->job.array_task_id, 32, "1");
    snprintf(runs[1]->job.array_job_id, 32, "500");
    snprintf(runs[1]->job.array_task_id, 32, "0");
    CHECK(gt_snapshot_merge(runs, 2, names, &job) == GT_OK && job);
    CHECK(job && job->nother_tasks == 1 && !strcmp(job->job.array_task_id, "0"));
    CHECK(!runs[0] && !runs[1]); /* taken */
    gt_snapshot_free(job);
}

static void test_merge_and_read_back(void)
{
    const char *names[] = {"t2.json.gz", "t0.json.gz", "t1.json.gz"};
    /* Given out of order; two nodes. */
    gt_snapshot *runs[3] = {task("77", "2", "n2", 100, 4, 1.0, 4000),
                            task("77", "0", "n1", 100, 4, 2.0, 2000),
                            task("77", "1", "n1", 100, 4, 2.0, 2000)};
    gt_snapshot *job = NULL;
    CHECK(gt_snapshot_merge(runs, 3, names, &job) == GT_OK);
    if (!job)
        return;
    CHECK(job->nother_tasks == 2 && !strcmp(job->job.task_rank, "0") &&
          !strcmp(job->other_tasks[0]->job.task_rank, "1") &&
          !strcmp(job->other_tasks[1]->job.task_rank, "2"));

    /* A merged snapshot merges again as all of its tasks. */
    gt_snapshot *more[2] = {job, task("77", "3", "n2", 100, 4, 1.0, 4000)};
    const char *more_names[] = {"job.json.gz", "t3.json.gz"};
    gt_snapshot *job4 = NULL;
    CHECK(gt_snapshot_merge(more, 2, more_names, &job4) == GT_OK && job4 &&
          job4->nother_tasks == 3);
    if (!job4)
        return;

    char *json = gt_snapshot_to_json(job4, GT_SNAPSHOT_GPU_TRACKER);
    CHECK(json && strstr(json, "\"tasks\":["));
    gt_snapshot *back = NULL;
    CHECK(json && gt_snapshot_from_memory(json, strlen(json), "job.json", 0, &back) == GT_OK);
    if (back) {
        CHECK(back->nother_tasks == 3 && back->series.nprocess == 4);
        for (size_t i = 0; i < back->nother_tasks; i++)
            CHECK(back->other_tasks[i]->series.nprocess == 4 &&
                  !strcmp(back->other_tasks[i]->job.job_id, "77"));
        CHECK(!strcmp(back->other_tasks[2]->job.task_rank, "3") &&
              !strcmp(back->other_tasks[2]->job.node, "n2"));
        gt_snapshot_free(back);
    }
    /* The rows allowed are the file's, all tasks together: 16 rows per
     * series here. */
    CHECK(json && gt_snapshot_from_memory(json, strlen(json), "job.json", 16, &back) == GT_OK);
    gt_snapshot_free(back);
    back = NULL;
    CHECK(json && gt_snapshot_from_memory(json, strlen(json), "job.json", 15, &back) ==
                      GT_ERR_PARSE && !back);
    CHECK_CONTAINS(gt_last_error(), "'job.json' is not a valid snapshot: in tasks[2]: "
                                    "\"process_metrics\" has 4 rows; at most 3 are read");
    /* A task holding tasks, and tasks that are not a list: refused. */
    if (json) {
        char *nested = NULL;
        char *at = strstr(json, "\"tasks\":[");
        char *second = at ? strstr(at + 9, "\"system_metrics\":") : NULL;
        if (second &&
            asprintf(&nested, "%.*s\"tasks\":[{}],%s", (int)(second - json), json, second) > 0) {
            CHECK(gt_snapshot_from_memory(nested, strlen(nested), "n.json", 0, &back) ==
                  GT_ERR_PARSE);
            CHECK_CONTAINS(gt_last_error(), "in tasks[0]: a task of a merged job holds tasks of "
                                            "its own");
            free(nested);
        }
        char *bad = NULL;
        if (at && asprintf(&bad, "%.*s\"tasks\":7,\"x\":[%s", (int)(at - json), json, at + 9) > 0) {
            CHECK(gt_snapshot_from_memory(bad, strlen(bad), "b.json", 0, &back) == GT_ERR_PARSE);
            CHECK_CONTAINS(gt_last_error(), "\"tasks\" should be a list of snapshots");
            free(bad);
        }
    }
    /* More tasks than a merged job may hold: counted, refused unparsed. */
    char *at = json ? strstr(json, "\"tasks\":[") : NULL;
    if (at) {
        const char *first = at + 9;
        const char *end = strstr(first, ",{\"metadata\"");
        size_t one = end ? (size_t)(end - first) : 0;
        size_t n = GT_MERGE_MAX_TASKS;
        char *many = malloc((size_t)(at - json) + 16 + n * (one + 1) + 4);
        if (many && one) {
            size_t k = (size_t)(at - json);
            memcpy(many, json, k);
            k += (size_t)sprintf(many + k, "\"tasks\":[");
            for (size_t i = 0; i < n; i++) {
                memcpy(many + k, first, one);
                k += one;
                many[k++] = i + 1 < n ? ',' : ']';
            }
            many[k++] = '}';
            CHECK(gt_snapshot_from_memory(many, k, "many.json", 0, &back) == GT_ERR_PARSE);
            CHECK_CONTAINS(gt_last_error(), "\"tasks\" lists 4096 snapshots; a merged job has 1 "
                                            "to 4095 besides its first");
        }
        free(many);
    }
    free(json);
    gt_snapshot_free(job4);
}

static void test_job_view(void)
{
    /* Four tasks: 0 and 1 on n1 busy (2 cores, 2000 kB), 2 on n2 idle
     * (0.2 cores) and late (starts 50 s later), 3 on n2 (2 cores, 8000 kB). */
    const char *names[] = {"0", "1", "2", "3"};
    gt_snapshot *runs[4] = {task("9", "0", "n1", 100, 100, 2.0, 2000),
                            task("9", "1", "n1", 100, 100, 2.0, 2000),
                            task("9", "2", "n2", 150, 100, 0.2, 2000),
                            task("9", "3", "n2", 100, 100, 2.0, 8000)};
    gt_snapshot *job = NULL;
    CHECK(gt_snapshot_merge(runs, 4, names, &job) == GT_OK);
    gt_job_summary *j = NULL;
    CHECK(job && gt_job_summarize(job, &j) == GT_OK && j);
    if (!j) {
        gt_snapshot_free(job);
        return;
    }
    CHECK(j->ntasks == 4 && j->nnodes == 2 && j->max_tasks_per_node == 2);
    CHECK(NEAR(j->start_time, 100) && NEAR(j->stop_time, 250) && NEAR(j->total.duration, 150));
    /* Together: the mean of the tasks' sum over the job's 150 s, each task's
     * mean weighted by its duration (summing the means, 6.2, would count
     * every task as running all 150 s); maxima summed. */
    double integral = 0;
    for (size_t i = 0; i < 4; i++)
        integral += j->tasks[i].stats.cpu_usage_mean * j->tasks[i].stats.duration;
    CHECK_MSG(NEAR(j->total.cpu_usage_mean, integral / 150) && j->total.cpu_usage_mean < 4.2,
              "tasks together: %g cores", j->total.cpu_usage_mean);
    CHECK(NEAR(j->total.memory_max, 14000));
    /* CPU: max 2 / mean 1.55; memory: 8000 / 3500. */
    CHECK_MSG(NEAR(j->imbalance_cpu, 2.0 / 1.55), "cpu imbalance %g", j->imbalance_cpu);
    CHECK(NEAR(j->imbalance_memory, 8000.0 / 3500.0) && j->imbalance_gpu == 0);
    /* Late: stopped at 250, the median stop is 200, the margin 15 s. */
    CHECK(NEAR(j->late_margin, 15) && j->nlate == 1 && j->tasks[2].late && !j->tasks[0].late);
    CHECK(j->nidle == 1 && j->tasks[2].idle && !j->tasks[3].idle);
    /* Each task's memory: 2000 kB PSS = 1.95 MiB, RSS the same (2.048 MB):
     * + 20% rounds up to 128 MiB; task 3: 8000 kB -> 128 too. CPUs: 2. */
    CHECK(j->tasks[0].rec.cpu == 2 && j->tasks[2].rec.cpu == 1);
    CHECK(j->cpus_per_task == 2 && j->gpus_per_task == 0);
    CHECK_MSG(j->mem_per_cpu_mib == 64 && j->mem_per_node_mib == 256, "per cpu %d, per node %d",
              j->mem_per_cpu_mib, j->mem_per_node_mib);
    char *json = gt_job_summary_to_json(j);
    CHECK(json && strstr(json, "\"cpus_per_task\": 2") && strstr(json, "\"late\": true"));
    free(json);
    gt_job_summary_free(j);

    /* The report: every task's charts reachable, each in its own block
     * (the late and idle task 2 open), linked from the job table; no GPU
     * figures where no task used one. */
    char *html = gt_snapshot_report_html(job, NULL, NULL);
    CHECK(html != NULL);
    if (html) {
        for (int i = 0; i < 4; i++) {
            char id[64], link[64];
            snprintf(id, sizeof id, "<details class=\"task\" id=\"task-%d\"", i);
            snprintf(link, sizeof link, "<a href=\"#task-%d\">%d</a>", i, i);
            CHECK_MSG(strstr(html, id) != NULL, "no charts of task %d", i);
            CHECK_MSG(strstr(html, link) != NULL, "task %d not linked from the table", i);
        }
        CHECK_CONTAINS(html, "<details class=\"task\" id=\"task-2\" open>");
        CHECK_CONTAINS(html, "<details class=\"task\" id=\"task-1\"><summary>");
        size_t figures = 0;
        for (const char *p = html; (p = strstr(p, "<figure class=\"chart\">")) != NULL; p++)
            figures++;
        /* process and system CPU, memory, disk and network: the first task's,
         * then each task's */
        CHECK_MSG(figures == 5 * 5, "%zu charts", figures);
        CHECK(strstr(html, "the rest of this report is task") == NULL);
        CHECK(strstr(html, "GPU mean") == NULL && strstr(html, " / 0.00<") == NULL);
        CHECK_CONTAINS(html, "no task used a GPU");
        free(html);
    }
    gt_snapshot_free(job);

    /* A task whose step cgroup peaked at 900 MiB (between rows, where PSS
     * and RSS did not see it) is asked for from that: 1080 MiB, rounded. */
    gt_snapshot *two[2] = {task("9", "0", "n1", 100, 10, 1.0, 2000),
                           task("9", "1", "n1", 100, 10, 1.0, 2000)};
    two[1]->cgroup = (gt_cgroup_usage){.struct_size = sizeof(gt_cgroup_usage), .available = 1,
                                       .version = 2, .memory_available = 1,
                                       .memory_peak = 900.0 * 1048576};
    CHECK(gt_snapshot_merge(two, 2, names, &job) == GT_OK);
    j = NULL;
    CHECK(job && gt_job_summarize(job, &j) == GT_OK && j);
    if (j) {
        CHECK_MSG(j->tasks[1].rec.memory_mib == gt_round_memory_mib(1080) &&
                  j->tasks[0].rec.memory_mib == 128, "task memory %d, %d",
                  j->tasks[0].rec.memory_mib, j->tasks[1].rec.memory_mib);
        gt_job_summary_free(j);
    }
    gt_snapshot_free(job);
}

/* A job of 70 even tasks: the charts of the first 64, a note for the
 * rest, and links only to the charts there are. */
static void test_many_tasks_report(void)
{
    enum { N = 70 };
    gt_snapshot *runs[N];
    const char *names[N];
    char ranks[N][8];
    for (int i = 0; i < N; i++) {
        snprintf(ranks[i], sizeof ranks[i], "%d", i);
        names[i] = ranks[i];
        runs[i] = task("9", ranks[i], "n1", 100, 5, 1.0, 2000);
    }
    gt_snapshot *job = NULL;
    CHECK(gt_snapshot_merge(runs, N, names, &job) == GT_OK);
    char *html = job ? gt_snapshot_report_html(job, NULL, NULL) : NULL;
    CHECK(html != NULL);
    if (html) {
        size_t blocks = 0, links = 0;
        for (const char *p = html; (p = strstr(p, "<details class=\"task\"")) != NULL; p++)
            blocks++;
        for (const char *p = html; (p = strstr(p, "<a href=\"#task-")) != NULL; p++)
            links++;
        CHECK_MSG(blocks == 64 && links == 64, "%zu blocks, %zu links", blocks, links);
        CHECK_CONTAINS(html, "6 more tasks, none of them late or idle, have no charts here");
        CHECK(strstr(html, "id=\"task-63\"") && !strstr(html, "id=\"task-64\""));
        free(html);
    }
    gt_snapshot_free(job);
    for (int i = 0; i < N; i++)
        gt_snapshot_free(runs[i]);
}

/* A run starved of CPU (it waited for one): its report says so above the
 * cards, and the recommendation's CPU is marked as possibly low. */
static void test_starved_report(void)
{
    gt_snapshot *s = task(NULL, "0", "n1", 100, 10, 0.32, 2000);
    s->usage.cpu_utilization.system_core_count = 2;
    s->usage.cpu_utilization.system.mean_sum_percent = 199;
    s->usage.cpu_utilization.combined.mean_sum_percent = 32;
    /* Its processes waited 6 s for a CPU and ran 3.2 s (schedstat): the
     * figures reach the snapshot's file and come back from it. */
    s->usage.measurement.unknown = 0;
    s->usage.measurement.samples = 11;
    s->usage.measurement.sleep_time = 1;
    s->usage.measurement.cpu_wait_available = 1;
    s->usage.measurement.cpu_wait_seconds = 6;
    s->usage.measurement.cpu_run_seconds = 3.2;
    /* recommend says it after the resources, on standard error. */
    char snap[] = "/tmp/gt-starved-XXXXXX.json.gz", cmd[512], err[] = "/tmp/gt-starved-XXXXXX";
    int fd = mkstemps(snap, 8), efd = mkstemp(err);
    CHECK(fd >= 0 && efd >= 0);
    close(fd);
    close(efd);
    CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, snap) == GT_OK);
    snprintf(cmd, sizeof cmd, "%s recommend %s >/dev/null 2>%s", GT_BIN, snap, err);
    CHECK(system(cmd) == 0);
    char *said = NULL;
    FILE *f = fopen(err, "r");
    size_t cap = 0;
    if (f) {
        CHECK(getdelim(&said, &cap, '\0', f) > 0);
        fclose(f);
    }
    CHECK_CONTAINS(said, "gpu-tracker: warning: the cpu above may be low: ");
    CHECK_CONTAINS(said, ": the job's processes waited for a CPU 6.00 s while runnable, 65 % "
                         "of the time they wanted one");
    free(said);
    unlink(snap);
    unlink(err);
    /* A run of ours has the cgroup's part, read or not (here: not). */
    s->cgroup.struct_size = sizeof s->cgroup;
    snprintf(s->cgroup.reason, sizeof s->cgroup.reason, "no cgroup of its own");
    char *html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK_CONTAINS(html, "<p class=\"note starved\" id=\"starved\"><b>CPU starved:</b> the "
                         "job&#39;s processes waited for a CPU 6.00 s");
    CHECK_CONTAINS(html, "the CPU may be low: the job was starved of CPU (above)");
    /* "Why it was slow" names the reason first, not the cgroup's absence,
     * pointing at the summary's note: the verdict is said once. */
    const char *why = html ? strstr(html, "<h2>Why it was slow</h2>\n") : NULL;
    const char *first = "<h2>Why it was slow</h2>\n<ul class=\"note starved why\" "
                        "id=\"why-slow\">\n<li><b>Starved of CPU:</b> <a href=\"#starved\">see "
                        "the summary</a></li>";
    const char *again = html ? strstr(html, "waited for a CPU 6.00 s") : NULL;
    CHECK_MSG(again && !strstr(again + 1, "waited for a CPU 6.00 s"), "the verdict twice");
    CHECK_MSG(why && !strncmp(why, first, strlen(first)), "why it was slow: %.300s",
              why ? why : "");
    free(html);
    /* Waiting 0.5 s of 10 s: nothing said, however busy the machine; the
     * section says nothing held it back and what it looked at. */
    s->usage.measurement.cpu_wait_seconds = 0.5;
    html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK(html && !strstr(html, "CPU starved") && !strstr(html, "may be low"));
    CHECK_CONTAINS(html, "<p class=\"note\" id=\"why-slow\"><b>Nothing held it back</b>: no "
                         "wait or slowdown above 10% of the run in the run queue (time waiting "
                         "for a CPU).</p>");
    free(html);
    /* In a cgroup of its own: throttled by its quota a third of the periods
     * and waiting for memory 25 % of the run; I/O 5 % is not a reason. */
    gt_cgroup_usage *c = &s->cgroup;
    c->available = c->cpu_available = c->pressure_available = c->memory_available = 1;
    c->cpu_quota = 1;
    c->throttle_periods = 300;
    c->throttled_periods = 100;
    c->memory_some = 0.25;
    c->io_some = 0.05;
    html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK_CONTAINS(html, "<li><b>CPU quota:</b> throttled in 100 of 300 periods by its cgroup&#39;s "
                         "quota of 1.00 cores");
    CHECK_CONTAINS(html, "<li><b>Waiting for memory:</b> some of its tasks waited for memory "
                         "(reclaim, swap) 25% of the run");
    CHECK(html && !strstr(html, "Waiting for I/O") && !strstr(html, "Nothing held it back"));
    free(html);
    c->throttled_periods = 3;
    c->memory_some = 0;
    html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK_CONTAINS(html, "<b>Nothing held it back</b>: no wait or slowdown above 10% of the run "
                         "in the run queue (time waiting for a CPU) and the job&#39;s cgroup (CPU "
                         "quota, memory and I/O stalls, OOM kills).</p>");
    free(html);
    gt_snapshot_free(s);
}

/* A directory a user filled, read as root by job, merge, stats: the files
 * of one call share one allowance, a second name of a file read already (a
 * hard link) is refused before it is read, so that N links cost what one
 * file does, and for a job's files a second file of one task is refused
 * from its metadata, before its rows. */
static void test_one_allowance(void)
{
    char *dir = fx_mkroot();
    char t0[4200], t1[4200], other[4300];
    snprintf(t0, sizeof t0, "%s/0-0.json.gz", dir);
    snprintf(t1, sizeof t1, "%s/0-1.json.gz", dir);
    gt_snapshot *a = task("77", "0", "n1", 100, 20000, 1.0, 2000);
    gt_snapshot *b = task("77", "1", "n1", 100, 20000, 1.0, 2000);
    CHECK(gt_snapshot_write(a, GT_SNAPSHOT_GPU_TRACKER, t0) == GT_OK &&
          gt_snapshot_write(b, GT_SNAPSHOT_GPU_TRACKER, t1) == GT_OK);
    gt_snapshot_free(a);
    gt_snapshot_free(b);

    /* one allowance of 30000 rows: the first file's 20000 leave too few */
    gt_snapshot_load load;
    gt_snapshot_load_init(&load, 30000);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_load_read(&load, t0, &s) == GT_OK && s);
    gt_snapshot_free(s);
    CHECK(load.rows_left == 10000);
    s = NULL;
    CHECK(gt_snapshot_load_read(&load, t1, &s) != GT_OK && !s);
    CHECK_CONTAINS(gt_last_error(), "with the snapshots before it, this command would read more "
                                    "than its allowance of 30000 rows a series");
    gt_snapshot_load_done(&load);
    /* A copy of the first task (another file): for a job's files, refused
     * from its metadata, before its rows (which the allowance left no room
     * for: parsed, they would be refused for that). */
    char copy[4300];
    snprintf(copy, sizeof copy, "%s/copy-of-0.json.gz", dir);
    fx_copy(t0, copy);
    gt_snapshot_load_init(&load, 30000);
    load.distinct_tasks = 1;
    CHECK(gt_snapshot_load_read(&load, t0, &s) == GT_OK);
    gt_snapshot_free(s);
    s = NULL;
    CHECK(gt_snapshot_load_read(&load, copy, &s) == GT_ERR_INVALID_ARGUMENT && !s);
    char both[9000];
    snprintf(both, sizeof both, "'%s' and '%s' are both task 0 of step 0 of job 77: each task "
             "once", t0, copy);
    CHECK_STR(gt_last_error(), both);
    gt_snapshot_load_done(&load);
    unlink(copy);
    /* 40000: both */
    gt_snapshot_load_init(&load, 40000);
    CHECK(gt_snapshot_load_read(&load, t0, &s) == GT_OK);
    gt_snapshot_free(s);
    CHECK(gt_snapshot_load_read(&load, t1, &s) == GT_OK);
    gt_snapshot_free(s);
    /* and a hard link of one read: refused by its inode, not read */
    snprintf(other, sizeof other, "%s/0-0-again.json.gz", dir);
    CHECK(link(t0, other) == 0);
    s = NULL;
    CHECK(gt_snapshot_load_read(&load, other, &s) == GT_ERR_INVALID_ARGUMENT && !s);
    char want[9000];
    snprintf(want, sizeof want, "'%s' is '%s' again (another name of the same file): each "
             "snapshot is read once", other, t0);
    CHECK_STR(gt_last_error(), want);
    gt_snapshot_load_done(&load);

    /* The commands: 8 names of one file in a job's directory. */
    unlink(t1);
    for (int i = 1; i < 8; i++) {
        snprintf(other, sizeof other, "%s/0-%d.json.gz", dir, i + 10);
        CHECK(link(t0, other) == 0);
    }
    struct result r = gt("job", dir, NULL);
    CHECK_MSG(r.status == 1 && strstr(r.err.data, "again (another name of the same file): each "
                                                  "snapshot is read once\n"),
              "job DIR of hard links: %d %s", r.status, r.err.data);
    result_free(&r);
    snprintf(other, sizeof other, "%s/0-11.json.gz", dir);
    r = gt("merge", t0, other, "-o", "/dev/null", NULL);
    CHECK_MSG(r.status == 1 && strstr(r.err.data, "again (another name of the same file)"),
              "merge of two names of one file: %d %s", r.status, r.err.data);
    result_free(&r);
    r = gt("stats", t0, other, NULL);
    CHECK_MSG(r.status == 1 && strstr(r.err.data, "again (another name of the same file)"),
              "stats of two names of one file: %d %s", r.status, r.err.data);
    result_free(&r);
    fx_rmroot(dir);
}

int main(void)
{
    test_one_allowance();
    test_merge_refusals();
    test_merge_and_read_back();
    test_job_view();
    test_starved_report();
    test_many_tasks_report();
    return check_exit("test_job");
}
