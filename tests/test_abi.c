/* test_abi.c - libgputracker 1.0 as a program uses it (docs/api.md):
 * the options' struct_size, single figures that agree with the JSON
 * summary, the per-sample callback, and the rules that let the interface
 * grow within 1.x without breaking a compiled program. Then the same rules
 * in the tools' structs (gpu_tracker_tools.h): every struct the library
 * fills or makes carries struct_size, one that a program hands over
 * without it is refused by name, and the GPU lists are counted arrays
 * whose owner is said. */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_tracker_tools.h"
#include "common/summary/usage_write.h"

#include <json-c/json.h>

/* A thread of the program's that stays until told, counted as the
 * library's when enter is set (gt_library_thread_enter). */
struct helper {
    int enter, entered, done;
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    int entered = h->enter && gt_library_thread_enter() == 0;
    pthread_mutex_lock(&h->lock);
    h->entered = entered;
    pthread_cond_broadcast(&h->cond);
    while (!h->done)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
    if (entered)
        gt_library_thread_leave();
    return NULL;
}

/* The most threads a tracker of this program counts over a few samples,
 * with a helper thread alive throughout (helper: -1 none, 0 plain, 1
 * entered as the library's). */
static double threads_counted(int helper)
{
    struct helper h = {.enter = helper == 1};
    pthread_mutex_init(&h.lock, NULL);
    pthread_cond_init(&h.cond, NULL);
    pthread_t th;
    int running = helper >= 0 && pthread_create(&th, NULL, helper_main, &h) == 0;
    CHECK(helper < 0 || running);
    pthread_mutex_lock(&h.lock);
    while (running && h.enter && !h.entered)
        pthread_cond_wait(&h.cond, &h.lock); /* counted before the baseline */
    pthread_mutex_unlock(&h.lock);
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.02;
    o.series = GT_SERIES_PROCESS;
    o.resource_usage_file = "";
    gt_tracker *t = NULL;
    double threads = -1;
    CHECK(gt_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_wait_rows(t, 3, 30) == 1); /* an event, not a time */
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_figure(t, GT_FIGURE_THREADS_MAX, &threads) == GT_OK);
    CHECK(gt_tracker_wait_rows(t, 1000, 0) == 0); /* stopped: nothing more comes */
    gt_tracker_free(t);
    pthread_mutex_lock(&h.lock);
    h.done = 1;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.lock);
    if (running)
        pthread_join(th, NULL);
    pthread_cond_destroy(&h.cond);
    pthread_mutex_destroy(&h.lock);
    return threads;
}

/* Work done on the tracker's behalf in a program's own thread is left out
 * of the figures as the library's own threads are: such a thread is not
 * counted, a plain one is. */
static void test_library_thread(void)
{
    double none = threads_counted(-1), plain = threads_counted(0),
           entered = threads_counted(1);
    CHECK_MSG(none >= 1 && plain == none + 1 && entered == none,
              "threads: %g alone, %g with a plain helper, %g with one entered", none, plain,
              entered);
    CHECK(gt_tracker_wait_rows(NULL, 1, 0) == 0);
}

/* The options: a struct_size no 1.x header wrote is refused, and a newer
 * header's struct is taken while the fields this library lacks are 0. */
static void test_options_size(void)
{
    gt_options o;
    gt_options_init(&o);
    CHECK(o.struct_size == sizeof o && gt_options_validate(&o) == GT_OK);
    o.struct_size = offsetof(gt_options, on_sample);
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid gt_options.struct_size");
    struct newer {
        gt_options o;
        double added;
    } n;
    gt_options_init_size(&n.o, sizeof n);
    CHECK(n.o.struct_size == sizeof n && n.added == 0);
    CHECK(gt_options_validate(&n.o) == GT_OK);
    n.added = 1;
    CHECK(gt_options_validate(&n.o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "needs a newer libgputracker");
    /* A 1.0 program's struct ends before 1.1's metrics_push_url: taken,
     * with the push left off. */
    gt_options_init_size(&o, offsetof(gt_options, metrics_push_url));
    CHECK(o.struct_size == offsetof(gt_options, metrics_push_url));
    CHECK(gt_options_validate(&o) == GT_OK);
    gt_subtracker_free(NULL); /* the one verb for freeing: NULL is nothing */
    gt_tracker_free(NULL);
}

/* gt_job_info grew in 1.1 (what Slurm gave the step): a 1.0 program's
 * struct is filled up to its end and not a byte past it; the 1.1 fields
 * come from Slurm's variables. */
static void test_job_info_sizes(void)
{
    char *env[] = {"SLURM_JOB_ID=77", "SLURM_CPUS_PER_TASK=4", "SLURM_CPUS_ON_NODE=8",
                   "SLURM_MEM_PER_NODE=2G", NULL};
    struct {
        gt_job_info j;
        unsigned char guard[64];
    } old;
    memset(&old, 0xA5, sizeof old);
    old.j.struct_size = offsetof(gt_job_info, cpus_per_task);
    CHECK(gt_job_info_from_environ(env, &old.j) == GT_OK && !strcmp(old.j.job_id, "77"));
    const unsigned char *after = (const unsigned char *)&old.j + offsetof(gt_job_info, cpus_per_task);
    int untouched = 1;
    for (size_t i = 0; i < sizeof old - offsetof(gt_job_info, cpus_per_task); i++)
        untouched &= after[i] == 0xA5;
    CHECK_MSG(untouched, "a 1.0 gt_job_info written past its struct_size");
    CHECK(old.j.struct_size == offsetof(gt_job_info, cpus_per_task));

    gt_job_info j = {.struct_size = sizeof j};
    CHECK(gt_job_info_from_environ(env, &j) == GT_OK);
    CHECK(j.cpus_per_task == 4 && j.cpus_on_node == 8 && j.mem_per_node_mib == 2048 &&
          j.mem_per_cpu_mib == 0);
    char *per_cpu[] = {"SLURM_JOB_ID=77", "SLURM_MEM_PER_CPU=512", NULL};
    CHECK(gt_job_info_from_environ(per_cpu, &j) == GT_OK && j.mem_per_cpu_mib == 512 &&
          j.mem_per_node_mib == 0 && j.cpus_per_task == 0);
    char *odd[] = {"SLURM_JOB_ID=77", "SLURM_MEM_PER_NODE=12Q", "SLURM_CPUS_PER_TASK=-2", NULL};
    CHECK(gt_job_info_from_environ(odd, &j) == GT_OK && j.mem_per_node_mib == 0 &&
          j.cpus_per_task == 0);

    /* a tracker takes a 1.0 program's job, as much as it holds */
    gt_options o;
    gt_options_init(&o);
    o.job = &old.j;
    o.resource_usage_file = "";
    gt_tracker *t = NULL;
    CHECK(gt_tracker_new(&o, &t) == GT_OK);
    gt_tracker_free(t);
}

/* What the callback saw: every sample, its rows, and the figures then. */
struct seen {
    int calls, baseline_calls, last_calls, rows, ordered, figure_failures;
    double last_elapsed, peak_rss;
    char first_row[256];
};

static void on_sample(gt_tracker *t, const gt_sample *s, void *data)
{
    struct seen *seen = data;
    seen->calls++;
    if (s->struct_size < sizeof *s)
        seen->figure_failures++;
    if (s->last) {
        seen->last_calls++;
        if (s->process_row || s->system_row)
            seen->figure_failures++; /* the stop's own sample has no rows */
    } else if (s->elapsed == 0 && !s->process_row) {
        seen->baseline_calls++;
    } else if (s->process_row && s->system_row) {
        seen->rows++;
        if (!seen->first_row[0])
            snprintf(seen->first_row, sizeof seen->first_row, "%s", s->process_row);
    }
    if (s->elapsed >= seen->last_elapsed)
        seen->ordered++;
    seen->last_elapsed = s->elapsed;
    double v;
    if (gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &v) != GT_OK)
        seen->figure_failures++;
    else
        seen->peak_rss = v;
}

/* A JSON number at a path of objects (NULL key ends it); NAN when absent. */
static double json_at(json_object *j, const char *a, const char *b, const char *c)
{
    const char *keys[] = {a, b, c};
    for (int i = 0; i < 3 && keys[i]; i++)
        if (!json_object_object_get_ex(j, keys[i], &j))
            return NAN;
    return json_object_get_double(j);
}

/* The callback gets every scheduled sample with its CSV rows and may ask
 * for figures; after the stop, the figures are the JSON summary's in bytes
 * and seconds whatever the units; an unmeasured figure says why. */
static void test_figures_and_callback(void)
{
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.05;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    o.resource_usage_file = "";
    o.ram_unit = "megabytes";
    o.time_unit = "seconds";
    struct seen seen = {0};
    o.on_sample = on_sample;
    o.sample_data = &seen;
    gt_tracker *t;
    CHECK(gt_tracker_new(&o, &t) == GT_OK);
    double v = -1;
    CHECK(gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &v) == GT_ERR_STATE && v == 0);
    CHECK_CONTAINS(gt_last_error(), "not been started");
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(seen.baseline_calls == 1); /* the baseline, before start returns */
    char *block = malloc(64 << 20);
    memset(block, 1, 64 << 20);
    CHECK(gt_tracker_wait_rows(t, 3, 30) == 1);
    CHECK(gt_tracker_figure(t, GT_FIGURE_SAMPLES, &v) == GT_OK && v >= 4);
    CHECK(gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &v) == GT_OK && v > 0);
    CHECK(gt_tracker_stop(t) == GT_OK);
    free(block);
    CHECK_MSG(seen.rows >= 3 && seen.calls == seen.rows + 2 && seen.ordered == seen.calls &&
              seen.last_calls == 1,
              "calls %d rows %d ordered %d last %d", seen.calls, seen.rows, seen.ordered,
              seen.last_calls);
    CHECK(seen.figure_failures == 0 && seen.peak_rss >= 64.0 * (1 << 20));
    /* The rows are the CSV lines of the process series: timestamp first. */
    CHECK(seen.first_row[0] >= '1' && seen.first_row[0] <= '9' && !strchr(seen.first_row, '\n'));

    char *text = gt_tracker_to_json(t);
    json_object *j = text ? json_tokener_parse(text) : NULL;
    CHECK(j != NULL);
    double peak, cpu_main, cpu_desc;
    CHECK(gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &peak) == GT_OK);
    CHECK_MSG(fabs(peak - json_at(j, "max_ram", "combined", "total_rss") * 1e6) < 1,
              "peak %.0f B, JSON %.6f MB", peak, json_at(j, "max_ram", "combined", "total_rss"));
    CHECK(peak >= seen.peak_rss && peak >= 64.0 * (1 << 20));
    CHECK(gt_tracker_figure(t, GT_FIGURE_SYSTEM_RAM_BYTES, &v) == GT_OK &&
          fabs(v - json_at(j, "max_ram", "system_capacity", NULL) * 1e6) < 1);
    CHECK(gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &v) == GT_OK &&
          fabs(v - json_at(j, "compute_time", "time", NULL)) < 1e-6);
    CHECK(gt_tracker_figure(t, GT_FIGURE_SAMPLES, &v) == GT_OK &&
          v == json_at(j, "measurement", "samples", NULL));
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_MAIN_SECONDS, &cpu_main) == GT_OK && cpu_main > 0);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_DESCENDANTS_SECONDS, &cpu_desc) == GT_OK);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_SECONDS, &v) == GT_OK && v == cpu_main + cpu_desc);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_MEAN_PERCENT, &v) == GT_OK &&
          fabs(v - json_at(j, "cpu_utilization", "combined", "mean_sum_percent")) < 1e-9);
    /* No GPU measured (none here, or none the test asked for): said so. */
    json_object *gpu_ok = NULL;
    json_object *m = NULL;
    int have_gpu = json_object_object_get_ex(j, "measurement", &m) &&
                   json_object_object_get_ex(m, "gpu_available", &gpu_ok) &&
                   json_object_get_boolean(gpu_ok);
    gt_status gs = gt_tracker_figure(t, GT_FIGURE_PEAK_GPU_RAM_BYTES, &v);
    CHECK(have_gpu ? gs == GT_OK : gs == GT_ERR_UNAVAILABLE && v == 0);
    if (!have_gpu)
        CHECK_CONTAINS(gt_last_error(), "GPU memory was not measured in this run: ");
    /* The job's cgroup memory and energy: measured here or not, as the
     * JSON says, and then the same figure (each gathered on its own). */
    json_object *part = NULL, *mem = NULL, *flag = NULL;
    int cg_ok = json_object_object_get_ex(j, "cgroup", &part) &&
                json_object_object_get_ex(part, "available", &flag) &&
                json_object_get_boolean(flag) &&
                json_object_object_get_ex(part, "memory", &mem) &&
                json_object_object_get_ex(mem, "available", &flag) && json_object_get_boolean(flag);
    gs = gt_tracker_figure(t, GT_FIGURE_CGROUP_PEAK_BYTES, &v);
    CHECK(cg_ok ? gs == GT_OK && v == json_at(j, "cgroup", "memory", "peak")
                : gs == GT_ERR_UNAVAILABLE && v == 0);
    json_object *why = NULL;
    if (!cg_ok && json_object_object_get_ex(j, "cgroup", &part) &&
        json_object_object_get_ex(part, "reason", &why) && json_object_get_string(why))
        CHECK_CONTAINS(gt_last_error(), json_object_get_string(why));
    int energy_ok = json_object_object_get_ex(j, "energy", &part) &&
                    json_object_object_get_ex(part, "available", &flag) &&
                    json_object_get_boolean(flag);
    gs = gt_tracker_figure(t, GT_FIGURE_ENERGY_JOULES, &v);
    CHECK(energy_ok ? gs == GT_OK && fabs(v - json_at(j, "energy", "joules", NULL)) < 1e-6
                    : gs == GT_ERR_UNAVAILABLE);
    if (!energy_ok)
        CHECK_CONTAINS(gt_last_error(), "energy was not measured in this run: no energy counter");
    /* Nothing was reaped here: no I/O figure; no intensity: no CO2e. */
    CHECK(gt_tracker_figure(t, GT_FIGURE_READ_BYTES, &v) == GT_ERR_UNAVAILABLE);
    CHECK(gt_tracker_figure(t, GT_FIGURE_CO2E_GRAMS, &v) == GT_ERR_UNAVAILABLE);
    CHECK(!strcmp(gt_strerror(GT_ERR_UNAVAILABLE), "not measured in this run"));
    /* A figure of a newer header is refused, naming the valid ones. */
    /* No tracked process ignored SIGCHLD: as the JSON says (no
     * measurement.children_reaped_by_kernel). */
    json_object *meas = NULL;
    int unseen = json_object_object_get_ex(j, "measurement", &meas) &&
                 json_object_object_get_ex(meas, "children_reaped_by_kernel", NULL);
    CHECK(gt_tracker_figure(t, GT_FIGURE_UNSEEN_CHILDREN_PID, &v) == GT_OK && !unseen && v == 0);
    CHECK(gt_tracker_figure(t, (gt_figure)(GT_FIGURE_GPU_UTIL_PERCENT + 1), &v) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "unknown figure");
    CHECK(gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, NULL) == GT_ERR_INVALID_ARGUMENT);
    json_object_put(j);
    free(text);
    gt_tracker_free(t);
}

/* A struct_size of 0 (a program that did not set it) is refused, naming
 * the call and the type, and nothing is written past it. */
static void test_refused_without_size(void)
{
    gt_resource_usage u;
    memset(&u, 0, sizeof u);
    CHECK(gt_usage_from_json("{}", &u) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_usage_from_json: invalid gt_resource_usage.struct_size 0");
    CHECK_CONTAINS(gt_last_error(), "sizeof(gt_resource_usage)");
    CHECK(usage_to_json(&u) == NULL);
    CHECK_CONTAINS(gt_last_error(), "usage_to_json");
    CHECK(usage_to_text(&u) == NULL);

    /* The tools' structs are plain (no struct_size: the tools promise no
     * ABI); a NULL one is refused, naming the call and the type. */
    gt_stats st;
    memset(&st, 0, sizeof st);
    gt_recommendation r = {0};
    CHECK(gt_recommend(NULL, &r) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_recommend: NULL gt_stats");
    CHECK(gt_recommend(&st, NULL) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_recommend: NULL gt_recommendation");
    CHECK(gt_recommend(&st, &r) == GT_OK && r.cpu == 1);
    CHECK(gt_stats_to_json(NULL) == NULL);
    CHECK_CONTAINS(gt_last_error(), "gt_stats_to_json: NULL gt_stats");
    CHECK(gt_recommendation_to_json(NULL, NULL) == NULL);

    gt_stats runs[2] = {{.cpu_usage_mean = 1, .memory_max = 5},
                        {.cpu_usage_mean = 3, .memory_max = 2}};
    gt_stats all = {0};
    CHECK(gt_stats_combine(runs, 2, &all) == GT_OK);
    CHECK(all.cpu_usage_mean == 2 && all.memory_max == 5);
    CHECK(gt_stats_combine(runs, 0, &all) == GT_ERR_INVALID_ARGUMENT);
    CHECK(gt_stats_combine(runs, 2, NULL) == GT_ERR_INVALID_ARGUMENT);

    gt_series s;
    memset(&s, 0, sizeof s);
    CHECK(gt_series_to_csv(&s, GT_SERIES_KIND_PROCESS) == NULL);
    CHECK_CONTAINS(gt_last_error(), "gt_series.struct_size 0");

    gt_job_info j;
    memset(&j, 0, sizeof j);
    CHECK(gt_job_info_from_environ(NULL, &j) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_job_info.struct_size 0");
    char *env[] = {"SLURM_JOB_ID=77", NULL};
    j.struct_size = sizeof j;
    CHECK(gt_job_info_from_environ(env, &j) == GT_OK && !strcmp(j.job_id, "77"));
    CHECK(j.struct_size == sizeof j);

    /* A job in the options without it: gt_tracker_new refuses. */
    gt_options o;
    gt_options_init(&o);
    gt_job_info bad;
    memset(&bad, 0, sizeof bad);
    o.job = &bad;
    gt_tracker *t = NULL;
    CHECK(gt_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    CHECK_CONTAINS(gt_last_error(), "gt_job_info.struct_size");
}

/* What the library makes carries its size; the GPU lists read from a
 * document are the reader's to release. */
static void test_set_by_the_library(void)
{
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.05;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    o.resource_usage_file = "";
    gt_tracker *t;
    CHECK(gt_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    gt_server_info si = {.struct_size = sizeof si};
    CHECK(gt_tracker_server_info(t, &si) == GT_OK && si.struct_size == sizeof si);
    CHECK(si.ngpu_names == 0 || si.gpu_names != NULL);
    CHECK(gt_tracker_wait_rows(t, 2, 30) == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u && u->struct_size == sizeof *u);
    gt_snapshot *s = NULL;
    CHECK(gt_tracker_snapshot(t, "test", 0, &s) == GT_OK && s);
    CHECK(s && s->struct_size == sizeof *s && s->usage.struct_size == sizeof s->usage &&
          s->server.struct_size == sizeof s->server && s->series.struct_size == sizeof s->series &&
          s->cloud.struct_size == sizeof s->cloud && s->job.struct_size == sizeof s->job);
    gt_stats st = {0};
    CHECK(gt_snapshot_stats(s, &st) == GT_OK);
    gt_job_summary *js = NULL;
    CHECK(gt_job_summarize(s, &js) == GT_OK && js);
    CHECK(js && js->ntasks == 1);
    const gt_task_summary *task = gt_job_summary_task(js, 0);
    CHECK(task != NULL);
    CHECK(gt_job_summary_task(js, 1) == NULL);
    gt_job_summary_free(js);
    gt_snapshot_free(s);

    /* A summary read back owns its GPU list until gt_usage_release. */
    char *json = gt_tracker_to_json(t);
    gt_resource_usage back = {.struct_size = sizeof back};
    CHECK(json && gt_usage_from_json(json, &back) == GT_OK && back.struct_size == sizeof back);
    gt_gpu_device one = {.uuid = "GPU-x", .name = "Fake"};
    gt_resource_usage mine = back;
    mine.gpu_details.ndevices = 1;
    mine.gpu_details.devices = &one; /* a program's own list */
    char *text = usage_to_json(&mine);
    CHECK_CONTAINS(text, "\"uuid\": \"GPU-x\"");
    gt_resource_usage again = {.struct_size = sizeof again};
    CHECK(text && gt_usage_from_json(text, &again) == GT_OK);
    CHECK(again.gpu_details.ndevices == 1 && again.gpu_details.devices != &one &&
          !strcmp(again.gpu_details.devices[0].uuid, "GPU-x"));
    gt_usage_release(&again);
    CHECK(again.gpu_details.devices == NULL && again.gpu_details.ndevices == 0);
    gt_usage_release(&again); /* twice: nothing */
    gt_usage_release(NULL);
    gt_usage_release(&back);
    free(text);
    free(json);
    gt_tracker_free(t);
}

int main(void)
{
    test_options_size();
    test_job_info_sizes();
    test_figures_and_callback();
    test_library_thread();
    test_refused_without_size();
    test_set_by_the_library();
    return check_exit("test_abi");
}
