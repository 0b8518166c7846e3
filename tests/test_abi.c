/* test_abi.c - the rules that let the interface grow after 1.0 without
 * breaking a compiled program (docs/api.md, "Versions and the ABI"): every
 * struct the library fills or makes carries struct_size, one that a program
 * hands over without it is refused by name, the library sets it in what it
 * makes, and the GPU lists are counted arrays whose owner is said. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_tracker.h"

/* A struct_size of 0 (a program that did not set it) is refused, naming
 * the call and the type, and nothing is written past it. */
static void test_refused_without_size(void)
{
    gt_resource_usage u;
    memset(&u, 0, sizeof u);
    CHECK(gt_usage_from_json("{}", &u) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_usage_from_json: invalid gt_resource_usage.struct_size 0");
    CHECK_CONTAINS(gt_last_error(), "sizeof(gt_resource_usage)");
    CHECK(gt_usage_to_json(&u) == NULL);
    CHECK_CONTAINS(gt_last_error(), "gt_usage_to_json");
    CHECK(gt_usage_to_text(&u) == NULL);
    CHECK(gt_usage_write_file(&u, "/nonexistent/x", GT_FORMAT_JSON) == GT_ERR_INVALID_ARGUMENT);

    gt_stats st;
    memset(&st, 0, sizeof st);
    gt_recommendation r = {.struct_size = sizeof r};
    CHECK(gt_recommend(&st, &r) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_stats.struct_size 0");
    st.struct_size = sizeof st;
    r.struct_size = 0;
    CHECK(gt_recommend(&st, &r) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "gt_recommendation.struct_size 0");
    r.struct_size = sizeof r;
    CHECK(gt_recommend(&st, &r) == GT_OK && r.cpu == 1 && r.struct_size == sizeof r);
    CHECK(gt_stats_to_json(&(gt_stats){0}) == NULL);
    CHECK(gt_recommendation_to_json(&(gt_recommendation){0}, NULL) == NULL);

    /* gt_stats_combine reads an array by the caller's struct_size. */
    gt_stats runs[2] = {{.struct_size = sizeof(gt_stats), .cpu_usage_mean = 1, .memory_max = 5},
                        {.struct_size = sizeof(gt_stats), .cpu_usage_mean = 3, .memory_max = 2}};
    gt_stats all = {.struct_size = sizeof all};
    CHECK(gt_stats_combine(runs, 2, &all) == GT_OK);
    CHECK(all.cpu_usage_mean == 2 && all.memory_max == 5 && all.struct_size == sizeof all);
    runs[1].struct_size = sizeof(gt_stats) + 8;
    CHECK(gt_stats_combine(runs, 2, &all) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "runs[1].struct_size");
    CHECK(gt_stats_combine(runs, 0, &all) == GT_ERR_INVALID_ARGUMENT);

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
    gt_stats st = {.struct_size = sizeof st};
    CHECK(gt_snapshot_stats(s, &st) == GT_OK && st.struct_size == sizeof st);
    gt_job_summary *js = NULL;
    CHECK(gt_job_summarize(s, &js) == GT_OK && js);
    CHECK(js && js->struct_size == sizeof *js && js->ntasks == 1);
    const gt_task_summary *task = gt_job_summary_task(js, 0);
    CHECK(task && task->struct_size == sizeof *task && task->stats.struct_size == sizeof st);
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
    char *text = gt_usage_to_json(&mine);
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
    test_refused_without_size();
    test_set_by_the_library();
    return check_exit("test_abi");
}
