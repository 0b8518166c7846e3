/* The tracker's lifecycle and option errors, and a whole tracking run against
 * a fixture /proc tree (so every figure is known). */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "results_check.h"
#include "test_tracker_new.h"
#include "fixture.h"
#include "threads.h"
#include "gpu_tracker_tools.h"

static int warnings;
static char last_warning[512];
static void on_warning(const char *msg, void *data)
{
    (void)data;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* gt_options grows at its end: the library reads struct_size bytes. */
static void test_options_size(void)
{
    /* A program built against a newer header: unknown fields left zero are
     * fine, one set is refused, never ignored. */
    struct {
        gt_options o;
        unsigned char newer[24];
    } big;
    memset(&big, 0xAA, sizeof big);
    gt_options_init_size(&big.o, sizeof big);
    CHECK(big.o.struct_size == sizeof big);
    int tail_zero = 1;
    for (size_t i = 0; i < sizeof big.newer; i++)
        tail_zero &= big.newer[i] == 0;
    CHECK(tail_zero);
    CHECK(big.o.sleep_time == 1.0 && big.o.process_csv_fd == -1);
    big.o.resource_usage_file = "";
    gt_tracker *t = NULL;
    CHECK(gt_tracker_new(&big.o, &t) == GT_OK && t != NULL);
    gt_tracker_free(t);
    big.newer[5] = 1;
    CHECK(gt_tracker_new(&big.o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    char want[160];
    snprintf(want, sizeof want, "gt_options sets a field this library (%s) does not have, at "
             "byte %zu: it needs a newer libgputracker", gt_version(), sizeof(gt_options) + 5);
    CHECK_STR(gt_last_error(), want);
    CHECK(gt_options_validate(&big.o) == GT_ERR_INVALID_ARGUMENT);

    /* A struct gt_options_init() did not fill. */
    gt_options o;
    memset(&o, 0, sizeof o);
    CHECK(gt_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid gt_options.struct_size 0: fill the options with "
                   "gt_options_init()");
    CHECK(gt_tracker_new(NULL, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "no options given");

    /* A smaller size writes no byte beyond it (an older program's struct
     * ends there), and is refused below the first versioned struct. */
    unsigned char raw[sizeof(gt_options)];
    memset(raw, 0xAA, sizeof raw);
    size_t small = offsetof(gt_options, discover_cloud);
    gt_options_init_size((gt_options *)(void *)raw, small);
    int untouched = 1;
    for (size_t i = small; i < sizeof raw; i++)
        untouched &= raw[i] == 0xAA;
    CHECK(untouched);
    memcpy(&o, raw, sizeof o);
    CHECK(o.struct_size == small && o.sleep_time == 1.0);
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
}

static void test_option_errors(void)
{
    gt_options o;
    gt_tracker *t = (gt_tracker *)1;

    test_options_init(&o);
    o.ram_unit = "mebibytes";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    CHECK_STR(gt_last_error(), "unknown RAM unit 'mebibytes'; valid units: bytes, kilobytes, "
                               "megabytes, gigabytes, terabytes");
    test_options_init(&o);
    o.gpu_ram_unit = "GB";
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "unknown GPU RAM unit 'GB'");
    test_options_init(&o);
    o.time_unit = "weeks";
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "unknown time unit 'weeks'; valid units: seconds, minutes, hours, days");
    test_options_init(&o);
    o.sleep_time = 0;
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid sleep time 0: it must be from 0.0001 to 86400 seconds");
    o.sleep_time = NAN;
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    test_options_init(&o);
    o.n_expected_cores = -1;
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    test_options_init(&o);
    o.max_kept_files = -1;
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "invalid max_kept_files -1: give 0 (a quarter of the descriptor "
                               "limit) or a number of files");
    test_options_init(&o);
    o.gpu_brand = "matrox";
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "unknown GPU brand 'matrox'; valid brands: nvidia, amd, intel, drm");
    test_options_init(&o);
    o.proc_root = "fixtures/proc";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    CHECK_STR(gt_last_error(), "invalid proc_root 'fixtures/proc': give an absolute path (where "
                               "procfs is mounted), or NULL for /proc");
    test_options_init(&o);
    o.sys_root = "";
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "invalid sys_root '': give an absolute path (where sysfs is "
                               "mounted), or NULL for /sys");
    test_options_init(&o);
    o.metadata_url = "127.0.0.1:8080";
    CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "invalid metadata_url '127.0.0.1:8080': give an http:// or "
                               "https:// base URL, or NULL for the cloud's own services");
    test_options_init(&o);
    o.proc_root = "/proc";
    o.sys_root = "/sys";
    o.metadata_url = "http://127.0.0.1:9";
    CHECK(gt_options_validate(&o) == GT_OK);
    test_options_init(&o);
    CHECK(gt_options_validate(&o) == GT_OK);
    CHECK_STR(gt_last_error(), "");

    /* A process that does not exist. */
    test_options_init(&o);
    o.process_id = 2147483000;
    CHECK(test_tracker_new(&o, &t) == GT_ERR_NO_PROCESS && t == NULL);
    CHECK_STR(gt_last_error(), "no process with PID 2147483000");

    /* procfs that cannot be read, or is malformed. */
    test_options_init(&o);
    test_sources.proc_root = "/nonexistent-proc";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_IO);
    CHECK_STR(gt_last_error(), "cannot read /nonexistent-proc/stat: No such file or directory");
    char *root = fx_mkroot();
    fx_system(root, 1, 1, 1, 100, 50);
    fx_write(root, "meminfo", "MemTotal: lots\n");
    test_sources.proc_root = root;
    o.process_id = 100;
    CHECK(test_tracker_new(&o, &t) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "/meminfo: malformed contents");
    fx_rmroot(root);
}

static void test_lifecycle(void)
{
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 0.01;
    o.ram_unit = "megabytes";
    o.time_unit = "seconds";
    int fds_before = open_fds();
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    /* The GPU probe's thread is joined before test_tracker_new() returns: a
     * program tracking itself never sees it. */
    CHECK_MSG(library_threads() == 0, "%ld library threads after test_tracker_new()",
              library_threads());
    CHECK(gt_tracker_usage(t) == NULL);
    CHECK_STR(gt_last_error(), "no results: the tracker has not been started");
    CHECK(gt_tracker_to_json(t) == NULL);
    CHECK(gt_tracker_stop(t) == GT_ERR_STATE);
    CHECK_STR(gt_last_error(), "cannot stop a tracker that has not been started");
    struct rusage none;
    memset(&none, 0, sizeof none);
    CHECK(gt_tracker_add_reaped(t, 1, &none) == GT_ERR_STATE);
    CHECK_STR(gt_last_error(), "cannot add a reaped process before the tracker is started");
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(library_threads() == 1); /* the sampler, named gt:sampler */
    CHECK(gt_tracker_start(t) == GT_ERR_STATE);
    CHECK_STR(gt_last_error(), "cannot start a tracker that has already been started");
    CHECK(gt_tracker_usage(t) == NULL);
    CHECK_STR(gt_last_error(), "no results yet: the tracker has not been stopped");
    /* The tools' read-back of the results says the same. */
    static gt_run_results not_given;
    gt_run_results *early = &not_given; /* set to NULL on failure */
    CHECK(gt_run_results_read(t, &early) == GT_ERR_STATE && early == NULL);
    CHECK_STR(gt_last_error(), "no results yet: the tracker has not been stopped");
    CHECK(gt_run_results_read(NULL, &early) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "gt_run_results_read: NULL tracker");
    gt_run_results_free(NULL);
    /* Some work of our own: 64 MiB touched and held. */
    size_t n = 64u << 20;
    char *mem = malloc(n);
    CHECK(mem != NULL);
    for (size_t i = 0; i < n; i += 4096)
        mem[i] = 1;
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_ERR_STATE);
    CHECK_STR(gt_last_error(), "cannot stop a tracker that has already been stopped");
    CHECK(gt_tracker_start(t) == GT_ERR_STATE);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u != NULL);
    if (u) {
        /* The final sample sees the 64 MiB (67.1 MB) we still hold. */
        CHECK_MSG(u->max_ram.main.total_rss >= 67.1, "main total %f MB", u->max_ram.main.total_rss);
        CHECK(u->max_ram.combined.total_rss >= u->max_ram.main.total_rss);
        CHECK_STR(u->max_ram.unit, "megabytes");
        CHECK(u->compute_time.time > 0);
        CHECK(u->measurement.samples >= 2);
        /* Our thread (and a sanitizer's): the sampler is not our work. */
        CHECK_MSG(u->cpu_utilization.main_n_threads == program_threads(), "%d threads, we have %ld",
                  u->cpu_utilization.main_n_threads, program_threads());
    }
    char *text = gt_tracker_to_text(t);
    CHECK_CONTAINS(text, "Max RAM:\n   Unit: megabytes\n");
    /* str(tracker)'s text: no final newline (gpu_tracker's print adds it) */
    CHECK_MSG(text && *text && text[strlen(text) - 1] != '\n', "the text ends in a newline");
    free(text);
    free(mem);
    gt_tracker_free(t);
    gt_tracker_free(NULL);
    /* Nothing is left open: the /proc/self/task descriptor that counting
     * the process's threads keeps goes with the last library thread. */
    CHECK(wait_library_threads_gone() == 0);
    CHECK_MSG(open_fds() == fds_before, "%d descriptors open, %d before", open_fds(), fds_before);
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Started deferred (as gpu-tracker starts it): the baseline at once, the
 * sampling thread only when gt_tracker_start_sampler() makes it, due half an
 * interval after the baseline. Stopped before then, the run has its
 * baseline and final sample and no thread ever ran; made, it samples on the
 * baseline's schedule; a limit needs the thread from the start. */
static void test_deferred_sampler(void)
{
    CHECK(wait_library_threads_gone() == 0);
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 0.2;
    o.ram_unit = "megabytes";
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_sampler_due(t) == 0); /* not started */
    double before = mono_now();
    CHECK(gt_tracker_start_deferred(t) == GT_OK);
    double after = mono_now();
    double due = gt_tracker_sampler_due(t);
    CHECK_MSG(due >= before + 0.1 && due <= after + 0.1, "due %.6f, started %.6f-%.6f", due,
              before, after);
    CHECK(library_threads() == 0);
    CHECK(gt_tracker_stop(t) == GT_OK); /* no thread to wait for */
    CHECK(gt_tracker_sampler_due(t) == 0);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u != NULL);
    if (u) {
        CHECK_MSG(u->measurement.samples == 2, "%ld samples", (long)u->measurement.samples);
        CHECK(u->max_ram.main.total_rss > 0);
    }
    gt_tracker_free(t);
    CHECK(library_threads() == 0);

    /* Made: the samples follow, once; a second call makes no second thread. */
    o.sleep_time = 0.02;
    o.series = GT_SERIES_PROCESS;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start_deferred(t) == GT_OK);
    CHECK(gt_tracker_sampler_due(t) > 0);
    CHECK(gt_tracker_start_sampler(t) == GT_OK);
    CHECK(library_threads() == 1);
    CHECK(gt_tracker_sampler_due(t) == 0);
    CHECK(gt_tracker_start_sampler(t) == GT_OK);
    CHECK(library_threads() == 1);
    CHECK(gt_tracker_wait_rows(t, 3, 60) == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    u = gt_tracker_usage(t);
    CHECK(u && u->measurement.samples >= 5); /* baseline, 3 rows, final */
    gt_tracker_free(t);
    CHECK(wait_library_threads_gone() == 0);

    /* A duration is kept to the moment by the thread: made at once. */
    o.series = 0;
    o.sleep_time = 100;
    o.duration = 1000;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start_deferred(t) == GT_OK);
    CHECK(gt_tracker_sampler_due(t) == 0);
    CHECK(library_threads() == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_tracker_free(t);
    CHECK(wait_library_threads_gone() == 0);
}

/* Between two samples of the fixture tree main m + child c: main's RSS
 * grows to 2000 kB, the child's to 6000 (5000 private, 1000 shared), the
 * machine's 4 cores are half busy (400 of 800 ticks) and 3 GB of its 8 are
 * in use. */
static void grow_fixture_tree(const char *root, struct fx_proc *m, struct fx_proc *c)
{
    m->rss_kb = m->anon_kb = m->private_kb = m->pss_kb = 2000;
    c->rss_kb = 6000;
    c->anon_kb = c->private_kb = 5000;
    c->pss_kb = 5500;
    fx_proc_write(root, m);
    fx_proc_write(root, c);
    fx_system(root, 400, 400, 4, 8000000, 5000000);
}

/* Counts the caveat of CPU counted in clock ticks. */
static void count_tick_caveat(const char *sentence, void *n)
{
    if (strstr(sentence, "the CPU time is counted in clock ticks of 10 ms here"))
        ++*(int *)n;
}

/* A full run on a fixture tree: known RAM and threads; CPU from the ticks. */
/* The fixture tree the runs below start from: main 100 (2 threads, 1000 kB)
 * and its child 101 (3 threads, 4000 kB, 1000 of them shared) on a
 * 4-CPU machine; grow_fixture_tree() then raises them. Its root. */
static char *start_fixture_tree(struct fx_proc *m, struct fx_proc *c)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 4, 8000000, 6000000);
    *m = (struct fx_proc){.pid = 100, .ppid = 1, .utime = 0, .threads = 2, .rss_kb = 1000,
                          .anon_kb = 1000, .private_kb = 1000, .pss_kb = 1000, .starttime = 1,
                          .children = "101"};
    *c = (struct fx_proc){.pid = 101, .ppid = 100, .threads = 3, .rss_kb = 4000, .anon_kb = 3000,
                          .private_kb = 3000, .shared_kb = 1000, .pss_kb = 3500, .starttime = 2};
    fx_proc_write(root, m);
    fx_proc_write(root, c);
    return root;
}

static void test_fixture_run(void)
{
    struct fx_proc m, c;
    char *root = start_fixture_tree(&m, &c);

    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000; /* no periodic sample: the baseline and the final one */
    o.ram_unit = "kilobytes";
    o.time_unit = "seconds";
    o.n_expected_cores = 2;
    o.on_warning = on_warning;
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(warnings == 0); /* no GPU library: no GPU to warn of */

    /* Work happens: 100 ticks (1 s) in main, 300 in the child, RAM grows. */
    m.utime = 100;
    c.utime = 300;
    grow_fixture_tree(root, &m, &c);
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u != NULL);
    if (u) {
        CHECK(u->max_ram.main.total_rss == 2000 * 1.024);
        CHECK(u->max_ram.descendants.total_rss == 6000 * 1.024);
        CHECK(u->max_ram.descendants.shared_rss == 1000 * 1.024);
        CHECK(u->max_ram.combined.private_rss == 7000 * 1.024);
        CHECK(u->max_ram.combined.total_rss == 8000 * 1.024);
        CHECK(u->max_ram.system == 3000000 * 1.024);
        CHECK(u->max_ram.system_capacity == 8000000 * 1.024);
        CHECK(u->cpu_utilization.system_core_count == 4);
        CHECK(u->cpu_utilization.n_expected_cores == 2);
        CHECK(u->cpu_utilization.main_n_threads == 2);
        CHECK(u->cpu_utilization.descendants_n_threads == 3);
        CHECK(u->cpu_utilization.combined_n_threads == 5);
        /* 1 s and 3 s of CPU, counted whole; but the fixture's samples
         * are microseconds apart, and no mean may exceed the 4 cores. */
        double main_cpu = 0, desc_cpu = 0;
        CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_MAIN_SECONDS, &main_cpu) == GT_OK);
        CHECK(gt_tracker_figure(t, GT_FIGURE_CPU_DESCENDANTS_SECONDS, &desc_cpu) == GT_OK);
        CHECK_MSG(fabs(main_cpu - 1.0) < 1e-9, "main CPU %f s", main_cpu);
        CHECK_MSG(fabs(desc_cpu - 3.0) < 1e-9, "desc CPU %f s", desc_cpu);
        CHECK_MSG(u->cpu_utilization.combined.mean_sum_percent <= 400.0 &&
                      u->cpu_utilization.combined.max_sum_percent <= 400.0,
                  "mean %f max %f", u->cpu_utilization.combined.mean_sum_percent,
                  u->cpu_utilization.combined.max_sum_percent);
        CHECK(u->cpu_utilization.main.mean_hardware_percent ==
              u->cpu_utilization.main.mean_sum_percent / 2);
        /* System: half busy on 4 cores. */
        CHECK(fabs(u->cpu_utilization.system.mean_sum_percent - 200.0) < 1e-9);
        CHECK(fabs(u->cpu_utilization.system.mean_hardware_percent - 50.0) < 1e-9);
        CHECK(u->measurement.samples == 2);
        /* A fixture's processes have no CPU clocks: ticks, said for a run
         * this short (its samples microseconds apart). */
        CHECK(u->measurement.cpu_resolution_seconds == 0.01);
        int ticks_said = 0;
        CHECK(gt_measurement_caveats(u, NULL, count_tick_caveat, &ticks_said) >= 1);
        CHECK(ticks_said == 1);
        CHECK(u->measurement.gpu_available == 0);
        CHECK_CONTAINS(u->measurement.gpu_reason, "GPU");
    }
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    ru.ru_maxrss = 50000;
    CHECK(gt_tracker_add_reaped(t, 101, &ru) == GT_OK);
    u = gt_tracker_usage(t);
    CHECK(u && u->max_ram.descendants.total_rss == 50000 * 1.024);
    CHECK(u && u->max_ram.combined.total_rss == 50000 * 1.024);
    CHECK(gt_tracker_add_reaped(t, 101, NULL) == GT_ERR_INVALID_ARGUMENT);
    /* Who held the peak: the grown tree, the child first. */
    gt_peak_breakdown b = {.struct_size = sizeof b};
    CHECK(gt_tracker_at_peak(t, GT_PEAK_MEMORY, &b) == GT_OK);
    CHECK(b.available && b.nprocesses == 2 && b.others == 0 && b.others_bytes == 0);
    CHECK(b.processes[0].pid == 101 && b.processes[0].role == 2 &&
          b.processes[0].bytes == 6000 * 1024.0 && b.processes[0].threads == 3);
    CHECK(b.processes[1].pid == 100 && b.processes[1].role == 1 &&
          b.processes[1].bytes == 2000 * 1024.0);
    CHECK(b.total_bytes == 8000 * 1024.0);
    CHECK(gt_tracker_at_peak(t, GT_PEAK_GPU_MEMORY, &b) == GT_OK && !b.available);
    CHECK(gt_tracker_at_peak(t, 7, &b) == GT_ERR_INVALID_ARGUMENT);
    check_results_read_back(t);
    gt_tracker_free(t);

    /* The backup file is first written at the first look after the start
     * (about a second in), and a clean stop removes it. */
    double interval = o.sleep_time;
    o.sleep_time = 0.1; /* the looks come with samples */
    o.resource_usage_file = "stopped-backup.json";
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(access("stopped-backup.json", F_OK) != 0);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(wait_for_file("stopped-backup.json"));
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(access("stopped-backup.json", F_OK) != 0);
    gt_tracker_free(t);
    /* A run that ends before its first periodic sample (1000 s away) never
     * has one: nothing to write, nothing to remove. */
    o.sleep_time = interval;
    CHECK(test_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK(access("stopped-backup.json", F_OK) != 0);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(access("stopped-backup.json", F_OK) != 0);
    gt_tracker_free(t);
    o.sleep_time = 0.1;

    /* disable_logs: no warning reaches the callback. A tracker freed while
     * started keeps its backup file: nothing else holds its results. */
    o.disable_logs = 1;
    o.resource_usage_file = "kept-backup.json";
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(wait_for_file("kept-backup.json"));
    CHECK(warnings == 0);
    gt_tracker_free(t);
    CHECK(access("kept-backup.json", F_OK) == 0);
    unlink("kept-backup.json");
    o.resource_usage_file = "";
    o.sleep_time = interval;
    /* A procfs file that turns unreadable mid-run: one warning, the rest goes on. */
    o.disable_logs = 0;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    warnings = 0;
    fx_write(root, "meminfo", "garbage\n");
    /* the "" backup option: no file at all */
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(warnings == 1);
    CHECK_CONTAINS(last_warning, "meminfo (malformed contents); system-wide figures leave out the samples");
    u = gt_tracker_usage(t);
    CHECK(u && u->max_ram.main.total_rss == 2000 * 1.024); /* the tree still counted */
    gt_tracker_free(t);
    fx_rmroot(root);
}

/* Splits a CSV line (no quoting: our tracking file has none) into fields. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *tok = line; tok && n < max; n++) {
        fields[n] = tok;
        tok = strchr(tok, ',');
        if (tok)
            *tok++ = 0;
    }
    return n;
}

/* One run on a fixture tree with a tracking file: its static data and the
 * timepoint of the final sample, figure by figure as gpu_tracker lays them
 * out, in CSV and in SQLite; an existing file refused unless overwrite. */
static void run_tracking_file(const char *root, const char *file, gt_options *o)
{
    struct fx_proc m = {.pid = 100, .ppid = 1, .threads = 2, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 1, .children = "101"};
    struct fx_proc c = {.pid = 101, .ppid = 100, .threads = 3, .rss_kb = 4000, .anon_kb = 3000,
                        .private_kb = 3000, .shared_kb = 1000, .pss_kb = 3500, .starttime = 2};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    fx_system(root, 0, 0, 4, 8000000, 6000000);
    o->tracking_file = file;
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    /* 1000 s and 3000 s of CPU in an interval of a moment: more than the
     * machine's 4 cores could run, so each rate, and their sum, is capped
     * at 400 % (the interval would have to last 250 s to read less). */
    m.utime = 100000;
    c.utime = 300000;
    grow_fixture_tree(root, &m, &c);
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_tracker_free(t);
}

static void test_tracking_file(void)
{
    char *root = fx_mkroot();
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000; /* the baseline and the final sample: one timepoint */
    o.ram_unit = "kilobytes";
    o.gpu_ram_unit = "megabytes";
    o.time_unit = "seconds";
    o.n_expected_cores = 2;
    o.disable_logs = 1;
    o.resource_usage_file = "";
    unlink("tracking.csv");
    run_tracking_file(root, "tracking.csv", &o);

    FILE *f = fopen("tracking.csv", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char lines[5][4096];
    int n = 0;
    while (n < 5 && fgets(lines[n], sizeof lines[n], f))
        n++;
    fclose(f);
    CHECK_MSG(n == 4, "%d lines", n); /* static header and values, timepoints' header, 1 row */
    CHECK_STR(lines[0], "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,"
                        "gpu_ram_system_capacity,system_core_count,n_expected_cores,"
                        "system_gpu_count,n_expected_gpus\r\n");
    CHECK_STR(lines[1], "kilobytes,megabytes,seconds,8192000.0,0.0,4,2,0,0\r\n");
    CHECK_STR(lines[2], "main_ram,descendants_ram,combined_ram,system_ram,main_gpu_ram,"
                        "descendants_gpu_ram,combined_gpu_ram,system_gpu_ram,"
                        "gpu_sum_utilization_percent,gpu_hardware_utilization_percent,"
                        "main_n_threads,descendants_n_threads,combined_n_threads,"
                        "cpu_system_sum_utilization_percent,cpu_system_hardware_utilization_percent,"
                        "cpu_main_sum_utilization_percent,cpu_main_hardware_utilization_percent,"
                        "cpu_descendants_sum_utilization_percent,"
                        "cpu_descendants_hardware_utilization_percent,"
                        "cpu_combined_sum_utilization_percent,"
                        "cpu_combined_hardware_utilization_percent,timestamp\r\n");
    char *v[32];
    CHECK(split_csv(lines[3], v, 32) == 22);
    /* RSS in kilobytes (1.024 per kB): main 2000 kB; descendants 5000
     * private + 1000 shared; combined 7000 + 1000 (shared once); system
     * used = total - available. */
    CHECK_STR(v[0], "2048.0");
    CHECK_STR(v[1], "6144.0");
    CHECK_STR(v[2], "8192.0");
    CHECK_STR(v[3], "3072000.0");
    for (int i = 4; i <= 9; i++)
        CHECK_STR(v[i], "0.0"); /* no GPU */
    CHECK_STR(v[10], "2");
    CHECK_STR(v[11], "3");
    CHECK_STR(v[12], "5");
    /* 400 of 800 ticks busy on 4 cores: 200 %, 50 % of the hardware. */
    CHECK_STR(v[13], "200.0");
    CHECK_STR(v[14], "50.0");
    CHECK_STR(v[15], "400.0"); /* main: capped at the 4 cores */
    CHECK_STR(v[16], "200.0"); /* of the 2 expected cores */
    CHECK_STR(v[17], "400.0"); /* descendants */
    CHECK_STR(v[19], "400.0"); /* combined: the sum capped too, not 800 */
    CHECK_STR(v[20], "200.0");
    double ts = strtod(v[21], NULL);
    CHECK_MSG(fabs(ts - (double)time(NULL)) < 600, "timestamp %s", v[21]);

    /* An existing file is refused (nothing is touched), unless overwrite. */
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_ERR_IO && t == NULL);
    CHECK_STR(gt_last_error(), "tracking file 'tracking.csv' already exists: set overwrite "
                               "(--overwrite) to replace it, or give another name");
    struct stat before;
    CHECK(stat("tracking.csv", &before) == 0 && before.st_size > 0);
    o.overwrite = 1;
    run_tracking_file(root, "tracking.csv", &o);
    f = fopen("tracking.csv", "r");
    n = 0;
    while (f && n < 5 && fgets(lines[n], sizeof lines[n], f))
        n++;
    if (f)
        fclose(f);
    CHECK_MSG(n == 4, "%d lines after the overwrite", n); /* replaced, not appended to */
    o.overwrite = 0;
    unlink("tracking.csv");

    /* SQLite: tables static_data and data, as gpu_tracker makes them. */
    unlink("tracking.sqlite");
    run_tracking_file(root, "tracking.sqlite", &o);
    sqlite3 *db = NULL;
    CHECK(sqlite3_open_v2("tracking.sqlite", &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    sqlite3_stmt *q = NULL;
    CHECK(sqlite3_prepare_v2(db, "SELECT ram_unit, ram_system_capacity, system_core_count, "
                                 "n_expected_gpus FROM static_data", -1, &q, NULL) == SQLITE_OK);
    CHECK(q && sqlite3_step(q) == SQLITE_ROW);
    if (q) {
        CHECK_STR((const char *)sqlite3_column_text(q, 0), "kilobytes");
        CHECK(sqlite3_column_double(q, 1) == 8192000.0);
        CHECK(sqlite3_column_type(q, 2) == SQLITE_INTEGER && sqlite3_column_int(q, 2) == 4);
        CHECK(sqlite3_column_int(q, 3) == 0);
        CHECK(sqlite3_step(q) == SQLITE_DONE); /* one row */
    }
    sqlite3_finalize(q);
    CHECK(sqlite3_prepare_v2(db, "SELECT count(*), main_ram, combined_ram, combined_n_threads, "
                                 "cpu_system_hardware_utilization_percent FROM data", -1, &q,
                             NULL) == SQLITE_OK);
    CHECK(q && sqlite3_step(q) == SQLITE_ROW);
    if (q) {
        CHECK(sqlite3_column_int(q, 0) == 1);
        CHECK(sqlite3_column_double(q, 1) == 2048.0);
        CHECK(sqlite3_column_double(q, 2) == 8192.0);
        CHECK(sqlite3_column_type(q, 3) == SQLITE_INTEGER && sqlite3_column_int(q, 3) == 5);
        CHECK(sqlite3_column_double(q, 4) == 50.0);
    }
    sqlite3_finalize(q);
    sqlite3_close(db);
    unlink("tracking.sqlite");

    /* Names gpu_tracker does not know, and a place that cannot be written. */
    o.tracking_file = "tracking.txt";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(),
              "invalid tracking file name 'tracking.txt': valid extensions are .csv and .sqlite");
    o.tracking_file = "/nonexistent-dir/tracking.csv";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "cannot write tracking file '/nonexistent-dir/tracking.csv'");
    fx_rmroot(root);
}

struct marker_thread {
    gt_subtracker *s;
    const char *name;
    int pairs, failures;
};

static void *mark_pairs(void *arg)
{
    struct marker_thread *m = arg;
    for (int i = 0; i < m->pairs; i++)
        m->failures += (gt_subtrack_begin(m->s, m->name) != GT_OK) +
                       (gt_subtrack_end(m->s, m->name) != GT_OK);
    return NULL;
}

/* Sub-tracking marks: gpu_tracker's default name and columns, text fields
 * quoted as Python's csv module quotes them, whole rows from four threads
 * at once, SQLite, and the refusals. */
static void test_subtracker(void)
{
    char path[64];
    snprintf(path, sizeof path, "%d.csv", (int)getpid());
    unlink(path);
    gt_subtracker *s = NULL;
    CHECK(gt_subtracker_open(NULL, 0, &s) == GT_OK && s);
    if (!s)
        return;
    CHECK(access(path, F_OK) == 0); /* gpu_tracker's default: <PID>.csv */
    pthread_t th[4];
    struct marker_thread m[4];
    const char *names[4] = {"train", "eval", "a,\"b\"", "eval"};
    for (int i = 0; i < 4; i++) {
        m[i] = (struct marker_thread){s, names[i], 250, 0};
        CHECK(pthread_create(&th[i], NULL, mark_pairs, &m[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(m[i].failures == 0);
    }
    CHECK(gt_subtrack_begin(s, NULL) == GT_ERR_INVALID_ARGUMENT);
    gt_subtracker_free(s);

    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[256];
    int rows = 0, starts[3] = {0}, stops[3] = {0}, bad = 0;
    CHECK(f && fgets(line, sizeof line, f) &&
          strcmp(line, "process_id,code_block_name,position,timestamp\r\n") == 0);
    while (f && fgets(line, sizeof line, f)) {
        rows++;
        int pid = 0, position = -1;
        char name[64];
        double ts = 0;
        const char *quoted = "\"a,\"\"b\"\"\"";
        int k = strstr(line, quoted) ? 2 : strstr(line, ",train,") ? 0 : 1;
        if (k == 2)
            bad += sscanf(line, "%d,", &pid) != 1 ||
                   sscanf(strstr(line, quoted) + strlen(quoted), ",%d,%lf", &position, &ts) != 2;
        else
            bad += sscanf(line, "%d,%63[^,],%d,%lf", &pid, name, &position, &ts) != 4;
        bad += pid != (int)getpid() || (position != 0 && position != 1) ||
               fabs(ts - (double)time(NULL)) > 600 || strstr(line, "\r\n") == NULL;
        if (position == 0)
            starts[k]++;
        else
            stops[k]++;
    }
    if (f)
        fclose(f);
    CHECK_MSG(rows == 2000 && bad == 0, "%d rows, %d bad", rows, bad);
    CHECK(starts[0] == 250 && stops[0] == 250 && starts[1] == 500 && stops[1] == 500 &&
          starts[2] == 250 && stops[2] == 250);

    /* gpu_tracker's rules: the file exists now; another name is refused. */
    CHECK(gt_subtracker_open(NULL, 0, &s) == GT_ERR_IO && s == NULL);
    CHECK_CONTAINS(gt_last_error(), "already exists: set overwrite");
    CHECK(gt_subtracker_open(NULL, 1, &s) == GT_OK);
    /* A child made by fork() marks with its own PID in a CSV file. */
    pid_t child = fork();
    if (child == 0)
        _exit(gt_subtrack_begin(s, "child") == GT_OK && gt_subtrack_end(s, "child") == GT_OK
                  ? 0 : 1);
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    gt_subtracker_free(s);
    char *text = NULL;
    size_t cap = 0;
    f = fopen(path, "r");
    int child_rows = 0;
    char want[32];
    snprintf(want, sizeof want, "%d,child,", (int)child);
    while (f && getline(&text, &cap, f) > 0)
        child_rows += strncmp(text, want, strlen(want)) == 0;
    if (f)
        fclose(f);
    free(text);
    CHECK_MSG(child_rows == 2, "%d rows of the child", child_rows);
    unlink(path);
    CHECK(gt_subtracker_open("marks.txt", 0, &s) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(),
              "invalid sub-tracking file name 'marks.txt': valid extensions are .csv and .sqlite");

    /* SQLite: the table data, typed; a forked child is refused. */
    unlink("marks.sqlite");
    CHECK(gt_subtracker_open("marks.sqlite", 0, &s) == GT_OK);
    CHECK(gt_subtrack_begin(s, "load") == GT_OK && gt_subtrack_end(s, "load") == GT_OK);
    child = fork();
    if (child == 0)
        _exit(gt_subtrack_begin(s, "child") == GT_ERR_STATE ? 0 : 1);
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
    gt_subtracker_free(s);
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    CHECK(sqlite3_open_v2("marks.sqlite", &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    CHECK(sqlite3_prepare_v2(db, "SELECT process_id, code_block_name, position, timestamp "
                                 "FROM data ORDER BY position", -1, &q, NULL) == SQLITE_OK);
    int n = 0;
    while (q && sqlite3_step(q) == SQLITE_ROW) {
        CHECK(sqlite3_column_type(q, 0) == SQLITE_INTEGER && sqlite3_column_int(q, 0) == getpid());
        CHECK_STR((const char *)sqlite3_column_text(q, 1), "load");
        CHECK(sqlite3_column_int(q, 2) == n);
        CHECK(sqlite3_column_type(q, 3) == SQLITE_FLOAT);
        n++;
    }
    CHECK(n == 2);
    sqlite3_finalize(q);
    sqlite3_close(db);
    unlink("marks.sqlite");
}

/* A tree bigger than our descriptor limit: what can be read still counts,
 * and one warning says that some processes were not. */
static void test_few_descriptors(void)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    char children[64 * 8] = "";
    for (int i = 0; i < 60; i++) {
        struct fx_proc c = {.pid = 200 + i, .ppid = 100, .rss_kb = 1000, .anon_kb = 1000,
                            .private_kb = 1000, .pss_kb = 1000, .starttime = 10 + (unsigned long long)i};
        fx_proc_write(root, &c);
        snprintf(children + strlen(children), sizeof children - strlen(children), "%d ", 200 + i);
    }
    struct fx_proc m = {.pid = 100, .ppid = 1, .rss_kb = 1000, .anon_kb = 1000, .private_kb = 1000,
                        .pss_kb = 1000, .starttime = 5, .children = children};
    fx_proc_write(root, &m);

    struct rlimit old, few;
    getrlimit(RLIMIT_NOFILE, &old);
    few = old;
    few.rlim_cur = 40; /* stdio, procfs root, system files: ~30 left for 61 processes */
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000;
    o.ram_unit = "kilobytes";
    o.on_warning = on_warning;
    gt_tracker *t;
    CHECK(setrlimit(RLIMIT_NOFILE, &few) == 0);
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    setrlimit(RLIMIT_NOFILE, &old);
    CHECK(warnings == 1); /* this (no GPU library is not worth one) */
    CHECK_CONTAINS(last_warning, "too many open files: some processes of the tree are not counted");
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u && u->max_ram.descendants.total_rss > 10 * 1024 && u->max_ram.descendants.total_rss <
          60 * 1024);
    gt_tracker_free(t);

    /* With the usual limit every one of them counts, and no such warning. */
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(warnings == 0);
    u = gt_tracker_usage(t);
    CHECK(u && u->max_ram.descendants.total_rss == 60 * 1024);
    gt_tracker_free(t);
    fx_rmroot(root);
}

/* Samples recorded in a backup file so far (0 while there is none). */
static long backup_samples(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char doc[8192];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    if (gt_usage_from_json(doc, &u) != GT_OK)
        return 0;
    gt_usage_release(&u);
    return u.measurement.samples;
}

/* Opens the FIFO's write end once the sampling thread is blocked opening it
 * for reading (a non-blocking open succeeds only when a reader waits). */
static int wait_for_reader(const char *fifo)
{
    for (;;) {
        int fd = open(fifo, O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            return fd; /* the reader now blocks in read() until we close */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* A fixture of PID 100 with a second thread, 101: fifo gets the path of
 * that thread's children file, which a sample opens every time (made a
 * FIFO, it blocks the sample). The caller fx_rmroot()s the root. */
static char *two_thread_fixture(char *fifo, size_t cap)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .threads = 2, .rss_kb = 4000, .anon_kb = 4000,
                        .private_kb = 4000, .pss_kb = 4000, .starttime = 5};
    fx_proc_write(root, &m);
    snprintf(fifo, cap, "%s/100/task/101", root);
    mkdir(fifo, 0755);
    snprintf(fifo, cap, "%s/100/task/101/children", root);
    return root;
}

/* A sample that takes longer than the interval: the slots it covered are
 * skipped (no invented rows) and counted in measurement.skipped. The
 * sample is held at least 60 ms at a 10 ms interval: at least 5 slots
 * pass, whatever the machine's load (which only makes it longer). */
static void test_skipped_samples(void)
{
    char fifo[4096];
    char *root = two_thread_fixture(fifo, sizeof fifo);
    CHECK(mkfifo(fifo, 0644) == 0);
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 0.01;
    o.resource_usage_file = "";
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    /* The baseline sample (in start) blocks on the FIFO too: a writer lets
     * it through at once, then the first periodic sample blocks. */
    int writer = -1;
    pid_t helper = fork();
    if (helper == 0) { /* unblocks the baseline sample */
        int w = wait_for_reader(fifo);
        close(w);
        _exit(0);
    }
    CHECK(gt_tracker_start(t) == GT_OK);
    waitpid(helper, NULL, 0);
    writer = wait_for_reader(fifo); /* a periodic sample is blocked in read() now */
    struct timespec ts = {0, 60 * 1000 * 1000};
    nanosleep(&ts, NULL);
    close(writer);
    unlink(fifo); /* later samples find no children file: no more blocking */
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK_MSG(u && u->measurement.skipped >= 5, "%ld skipped", u ? u->measurement.skipped : -1);
    char *json = gt_tracker_to_json(t);
    CHECK_CONTAINS(json, "\"skipped\": ");
    free(json);
    gt_tracker_free(t);
    fx_rmroot(root);
}

/* A sampling thread stuck in a system call (a read that never returns):
 * stop() gives up after stop_timeout with the samples taken so far, and a
 * free() meanwhile leaves the freeing to the thread. */
static void test_stop_timeout(void)
{
    /* Two threads: the second thread's children file is opened at every
     * sample; once it is a FIFO with no writer, that open never returns. */
    char fifo[4096];
    char *root = two_thread_fixture(fifo, sizeof fifo);

    for (int orphan = 0; orphan < 2; orphan++) {
        gt_options o;
        test_options_init(&o);
        test_sources.proc_root = root;
        o.process_id = 100;
        o.sleep_time = 0.01;
        o.stop_timeout = 0.2;
        o.ram_unit = "kilobytes";
        char backup[4096];
        snprintf(backup, sizeof backup, "%s/backup.json", root);
        o.resource_usage_file = backup;
        o.on_warning = on_warning;
        char csv[4096];
        snprintf(csv, sizeof csv, "%s/process.csv", root);
        int csv_fd = open(csv, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        o.process_csv_fd = csv_fd;
        gt_tracker *t;
        CHECK(test_tracker_new(&o, &t) == GT_OK);
        CHECK(gt_tracker_start(t) == GT_OK);
        /* Once a periodic sample is in the backup, make the next one hang. */
        while (backup_samples(backup) < 2) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        CHECK(mkfifo(fifo, 0644) == 0);
        int writer = wait_for_reader(fifo);
        warnings = 0;
        CHECK(gt_tracker_stop(t) == GT_OK);
        CHECK(warnings == 1);
        CHECK_CONTAINS(last_warning, "the sampling thread did not stop within 0.2 s");
        const gt_resource_usage *u = gt_tracker_usage(t);
        CHECK(u && u->cpu_utilization.main_n_threads == 2); /* from samples it finished */
        gt_series series = {.struct_size = sizeof(gt_series)};
        CHECK(gt_tracker_series(t, &series) == GT_OK);
        size_t rows = series.nprocess;
        struct stat before;
        fstat(csv_fd, &before);
        if (orphan) {
            gt_tracker_free(t); /* still stuck: the thread will free it */
            close(writer);      /* unstick it */
        } else {
            /* Unstuck after stop() gave up, the thread finishes its sample
             * but adds no row and writes nothing: the rows are the
             * caller's now, and so is the descriptor. */
            close(writer);
            CHECK(wait_library_threads_gone() == 0);
            CHECK(gt_tracker_series(t, &series) == GT_OK && series.nprocess == rows);
            struct stat after;
            fstat(csv_fd, &after);
            CHECK(after.st_size == before.st_size);
            gt_tracker_free(t);
        }
        close(csv_fd);
        /* Either way the thread ends (and, orphaned, frees the tracker). */
        CHECK(wait_library_threads_gone() == 0);
        unlink(fifo);
    }
    fx_rmroot(root);

    /* Every duration option has a range; none can overflow the scheduler
     * or make a wait endless. */
    const struct {
        double sleep_time, stop_timeout, duration;
        const char *error;
    } bad[] = {
        {1.0, 0, 0, "invalid stop timeout 0: it must be more than 0 and at most 3600 seconds"},
        {1.0, INFINITY, 0, "invalid stop timeout inf: it must be more than 0 and at most 3600"},
        {1.0, NAN, 0, "invalid stop timeout nan"},
        {1.0, 3600.5, 0, "invalid stop timeout 3600.5"},
        {1e-300, 10, 0, "invalid sleep time 1e-300: it must be from 0.0001 to 86400 seconds"},
        {INFINITY, 10, 0, "invalid sleep time inf"},
        {86401, 10, 0, "invalid sleep time 86401"},
        {1.0, 10, INFINITY, "invalid duration inf: it must be 0 (none) or from the sleep time to "
                            "31622400 seconds (366 days)"},
        {1.0, 10, 1e300, "invalid duration 1e+300"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gt_options o;
        test_options_init(&o);
        o.sleep_time = bad[i].sleep_time;
        o.stop_timeout = bad[i].stop_timeout;
        o.duration = bad[i].duration;
        CHECK(gt_options_validate(&o) == GT_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(gt_last_error(), bad[i].error);
        gt_tracker *t = (gt_tracker *)&o; /* must be set to NULL */
        CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    }
    gt_options ok;
    test_options_init(&ok);
    ok.sleep_time = GT_SLEEP_TIME_MIN;
    ok.stop_timeout = GT_STOP_TIMEOUT_MAX;
    ok.duration = GT_DURATION_MAX;
    CHECK(gt_options_validate(&ok) == GT_OK);
}

/* A child forked while a tracker runs has a copy of it, without the
 * thread: calls on it fail, and freeing it waits for nothing and leaves the
 * parent's backup file alone. */
static void test_fork(void)
{
    char dir[] = "/tmp/gt-fork-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char backup[4096];
    snprintf(backup, sizeof backup, "%s/backup.json", dir);
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 0.01;
    o.resource_usage_file = backup;
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    CHECK(wait_for_file(backup)); /* first written about a second in */
    pid_t child = fork();
    if (child == 0) {
        int ok = gt_tracker_stop(t) == GT_ERR_STATE &&
                 strstr(gt_last_error(), "this tracker belongs to process") != NULL &&
                 gt_tracker_usage(t) == NULL && gt_tracker_wait(t, 0) == 0;
        gt_tracker_free(t);
        _exit(ok && access(backup, F_OK) == 0 ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child: status %d", status);
    CHECK(access(backup, F_OK) == 0); /* still the parent's, still there */
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(access(backup, F_OK) != 0); /* a clean stop removes it */
    gt_tracker_free(t);
    rmdir(dir);
}

/* Limits kept by the tools' watch (src/tools/limits) over a tracker of
 * the fixture tree: its peak (8000 kB combined, then 50000 kB from a
 * reaped process's high-water mark) against max_ram, warned of by the
 * sample that saw it (the stop's own, through on_sample), and reported in
 * the summary's JSON and text. */
static void test_limits(void)
{
    struct fx_proc m, c;
    char *root = start_fixture_tree(&m, &c);
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000;
    o.on_warning = on_warning;
    gt_limit_options lo;
    gt_limit_options_init(&lo);
    lo.max_ram = 7000 * 1024.0; /* below the grown tree's 8000 kB */
    lo.max_cpu_time = 1000;     /* never reached */
    gt_limit_watch *w = NULL;
    CHECK(gt_limit_watch_new(&lo, &o, &w) == GT_OK && w != NULL);
    CHECK(o.on_sample != NULL && o.sample_data == w); /* the watch is fed by it */
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_limit_watch_attach(w, t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(warnings == 0); /* 5000 kB at the baseline: within */
    gt_limits l = {0};
    CHECK(gt_limit_watch_report(w, &l) == GT_OK && l.any_set && !l.any_breached);
    grow_fixture_tree(root, &m, &c);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(warnings == 1);
    /* 8000 and 7000 kB, in the units of -f human */
    CHECK_CONTAINS(last_warning, "limit breached: peak RAM 7.81 MiB passed the limit of 6.84 MiB "
                                 "(--max-ram) ");
    CHECK_CONTAINS(last_warning, " into the run; running on (--on-limit warn)");
    memset(&l, 0, sizeof l);
    CHECK(gt_limit_watch_report(w, &l) == GT_OK);
    CHECK(l.any_breached && !l.killed && l.on_limit == GT_ON_LIMIT_WARN);
    CHECK(l.figure[GT_LIMIT_RAM].breached && l.figure[GT_LIMIT_RAM].warned);
    CHECK(l.figure[GT_LIMIT_RAM].peak == 8000 * 1024.0);
    CHECK(l.figure[GT_LIMIT_CPU_TIME].set && !l.figure[GT_LIMIT_CPU_TIME].breached);
    CHECK(!l.figure[GT_LIMIT_TIME].set && !l.figure[GT_LIMIT_GPU_RAM].set);
    /* A reaped process's high-water mark raises the peak: no sample saw it. */
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    ru.ru_maxrss = 50000;
    CHECK(gt_tracker_add_reaped(t, 101, &ru) == GT_OK);
    CHECK(gt_limit_watch_report(w, &l) == GT_OK && l.figure[GT_LIMIT_RAM].peak == 50000 * 1024.0);
    char *json = gt_limit_watch_json(w, t);
    CHECK_CONTAINS(json, "\"limits\": {");
    CHECK_CONTAINS(json, "\"on_limit\": \"warn\"");
    CHECK_CONTAINS(json, "\"peak\": 51200000");
    /* Where the summary has always had it: before the cgroup's part. */
    CHECK(json && strstr(json, "\"limits\"") < strstr(json, "\"cgroup\""));
    /* The rest is the tracker's document, unchanged. */
    char *plain = gt_tracker_to_json(t);
    CHECK(plain && !strstr(plain, "\"limits\""));
    CHECK(json && plain && strlen(json) > strlen(plain));
    free(plain);
    free(json);
    char *text = gt_limit_watch_text(w, t);
    CHECK_CONTAINS(text, "\nLimits:\n   On limit: warn\n   Breached: yes\n   Max RAM: 6.84 MiB, "
                         "peak 48.8 MiB: breached ");
    CHECK_CONTAINS(text, "   Max CPU time: 1000 s, peak ");
    CHECK(text && text[strlen(text) - 1] != '\n');
    free(text);
    /* Without a watch: the tracker's own summary. */
    text = gt_limit_watch_text(NULL, t);
    CHECK(text && !strstr(text, "Limits:"));
    free(text);
    CHECK(gt_limit_watch_report(w, NULL) == GT_ERR_INVALID_ARGUMENT);
    CHECK(gt_limit_watch_report(NULL, &l) == GT_ERR_INVALID_ARGUMENT);
    gt_limit_watch_free(w);
    gt_tracker_free(t);

    /* What is refused: a limit below 0, an unknown on_limit, a grace of 0,
     * and kill on the tracking program's own process. */
    lo.max_ram = -1;
    CHECK(gt_limit_options_validate(&lo) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "invalid max_ram -1: give 0 (no limit) or a number of bytes "
                               "above 0");
    CHECK(gt_limit_watch_new(&lo, &o, &w) == GT_ERR_INVALID_ARGUMENT && w == NULL);
    lo.max_ram = 0;
    lo.on_limit = 7;
    CHECK(gt_limit_options_validate(&lo) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid on_limit 7; valid: GT_ON_LIMIT_WARN");
    lo.on_limit = GT_ON_LIMIT_KILL;
    lo.kill_after = 0;
    CHECK(gt_limit_options_validate(&lo) == GT_ERR_INVALID_ARGUMENT);
    lo.kill_after = 5;
    CHECK(gt_limit_options_validate(&lo) == GT_OK);
    lo.max_ram = 1e9;
    test_options_init(&o);
    o.process_id = 0;
    CHECK(gt_limit_watch_new(&lo, &o, &w) == GT_OK);
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_limit_watch_attach(w, t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "on_limit kill: cannot signal the tracked tree: it is the tracking "
                               "program's own (process_id is its own); track another process, "
                               "or warn");
    gt_limit_watch_free(w);
    gt_tracker_free(t);
    fx_rmroot(root);
}

/* A child that waits to be signalled; its PID. */
static pid_t start_sleeper(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

/* Waits up to a minute for child to end: its status, or -1. */
static int wait_child(pid_t child)
{
    for (int i = 0; i < 6000; i++) {
        int status;
        if (waitpid(child, &status, WNOHANG) == child)
            return status;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return -1;
}

/* gt_tracker_signal(): the library's one primitive for a host's limits,
 * on a real process; and the watch ending a tree at max_time with no
 * sample due (its own thread keeps the moment). */
static void test_signal(void)
{
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 1000;
    gt_tracker *t;
    /* Its own tree: refused, for any signal, 0 (the check alone) included. */
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_signal(t, 0, NULL) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "cannot signal the tracked tree: it is the tracking program's "
                                    "own");
    gt_tracker_free(t);

    pid_t child = start_sleeper();
    o.process_id = child;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_signal(t, 0, NULL) == GT_OK); /* may, from NEW on */
    CHECK(gt_tracker_signal(t, SIGTERM, NULL) == GT_ERR_STATE);
    CHECK(gt_tracker_signal(t, 65, NULL) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "invalid signal 65: give 1 to 64, or 0 to check whether the tree "
                               "may be signalled");
    CHECK(gt_tracker_signal(t, -1, NULL) == GT_ERR_INVALID_ARGUMENT);
    CHECK(gt_tracker_start(t) == GT_OK);
    int reached = -1;
    CHECK(gt_tracker_signal(t, SIGTERM, &reached) == GT_OK);
    CHECK_MSG(reached == 1, "reached %d", reached);
    int status = wait_child(child);
    CHECK_MSG(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d",
              status);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_signal(t, SIGTERM, &reached) == GT_OK && reached == 0); /* gone */
    gt_tracker_free(t);

    /* max_time with on_limit kill: SIGTERM from the watch's thread, though
     * no sample is due for 1000 s. */
    child = start_sleeper();
    test_options_init(&o);
    o.process_id = child;
    o.sleep_time = 1000;
    o.on_warning = on_warning;
    gt_limit_options lo;
    gt_limit_options_init(&lo);
    lo.max_time = 0.2;
    lo.on_limit = GT_ON_LIMIT_KILL;
    gt_limit_watch *w;
    CHECK(gt_limit_watch_new(&lo, &o, &w) == GT_OK);
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_limit_watch_attach(w, t) == GT_OK);
    warnings = 0;
    CHECK(gt_tracker_start(t) == GT_OK);
    status = wait_child(child);
    CHECK_MSG(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %d",
              status);
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_limits l = {0};
    CHECK(gt_limit_watch_report(w, &l) == GT_OK);
    CHECK(l.killed && l.figure[GT_LIMIT_TIME].breached && l.figure[GT_LIMIT_TIME].warned);
    CHECK_MSG(l.figure[GT_LIMIT_TIME].at >= 0.2, "breached at %g s",
              l.figure[GT_LIMIT_TIME].at);
    gt_limit_watch_free(w); /* its thread joined: what it warned is ours to read */
    gt_tracker_free(t);
    CHECK(warnings >= 1);
    CHECK_CONTAINS(last_warning, "limit breached: wall time ");
    CHECK_CONTAINS(last_warning, "(--max-time) ");
    CHECK_CONTAINS(last_warning, "; ending the command (--on-limit kill)");
    CHECK(wait_library_threads_gone() == 0);
}

/* A window of a few milliseconds, one thread busy (the Python
 * `with Tracker(sleep_time=0.1): sum(range(300000))`): CPU counted in clock
 * ticks of 10 ms read 200-400 % on two cores in a third of such runs. The
 * run times in nanoseconds give what one thread can: about 100 %, and
 * never more than every core. */
static void test_short_window_cpu(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double worst = 0;
    for (int run = 0; run < 20; run++) {
        gt_options o;
        test_options_init(&o);
        o.sleep_time = 0.1;
        gt_tracker *t;
        if (test_tracker_new(&o, &t) != GT_OK) {
            CHECK_MSG(0, "tracker: %s", gt_last_error());
            return;
        }
        CHECK(gt_tracker_start(t) == GT_OK);
        struct timespec t0, now;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        volatile unsigned long sum = 0;
        do {
            for (unsigned long i = 0; i < 10000; i++)
                sum += i;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        } while ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 <
                 0.004);
        CHECK(sum > 0);
        CHECK(gt_tracker_stop(t) == GT_OK);
        const gt_resource_usage *u = gt_tracker_usage(t);
        if (u) {
            const gt_pu_percentages *c = &u->cpu_utilization.combined;
            CHECK_MSG(c->mean_sum_percent <= 100.0 * (double)ncpu &&
                          c->max_sum_percent <= 100.0 * (double)ncpu,
                      "run %d: mean %.1f %%, max %.1f %% on %ld cores", run, c->mean_sum_percent,
                      c->max_sum_percent, ncpu);
            if (c->mean_sum_percent > worst)
                worst = c->mean_sum_percent;
            CHECK(u->measurement.cpu_resolution_seconds > 0 &&
                  u->measurement.cpu_resolution_seconds < 1e-6);
        }
        gt_tracker_free(t);
    }
    /* One thread, and the clocks read a few microseconds off the samples'
     * times: well under two cores' worth. */
    CHECK_MSG(worst < 150.0, "a one-thread window read %.1f %%", worst);
}

int main(void)
{
    test_short_window_cpu();
    test_stop_timeout();
    test_skipped_samples();
    test_few_descriptors();
    test_option_errors();
    test_options_size();
    test_lifecycle();
    test_deferred_sampler();
    test_fork();
    test_fixture_run();
    test_tracking_file();
    test_limits();
    test_signal();
    test_subtracker();
    return check_exit("test_tracker");
}
