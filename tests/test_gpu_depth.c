/* What the GPU driver counts beyond samples (gt_gpu_run): accounting
 * records (a process that exits between samples, accounting off, a GPU
 * shared with other users), throttle reasons as shares of the run, ECC and
 * XID errors, the job's share of the energy, and every call answering
 * NOT_SUPPORTED. Through the real dlopen path against the fake NVML and a
 * fixture /proc tree (main 100 with child 101); the time weighting and the
 * attribution rules also on constructed samples (gpu_run.h). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "check.h"
#include "chromium.h"
#include "fixture.h"
#include "read/gpu_pidmap.h"
#include "pipeline/gpu_run.h"
#include "common/summary/run_parts_json.h"
#include "gpu_tracker_tools.h"
#include "human.h"
#include "results_check.h"
#include "pipeline/pipeline.h"
#include "test_tracker_new.h"
#include "snapshot/parts_read.h"

#define FAKE_NVML WORKLOAD_DIR "/libfake-nvml.so"

static char *root;
static char scenario[4096];

static void write_scenario(const char *text)
{
    FILE *f = fopen(scenario, "w");
    fputs(text, f);
    fclose(f);
}

static unsigned long long now_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec;
}

/* Two GPUs: main (100) on both, its child (101) on GPU 0, and pid 999 (not
 * ours) on GPU 1, which is therefore shared. */
static const char two_gpus[] =
    "device GPU-aaaa Fake-H100 80000000000 3000000000 50\n"
    "device GPU-bbbb Fake-H100 80000000000 1000000000 30\n"
    "process 0 100 2000000000\n"
    "process 1 100 500000000\n"
    "process 0 101 1000000000\n"
    "process 1 999 250000000\n";

static gt_options options(void)
{
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000; /* the baseline and the final sample only */
    o.resource_usage_file = "";
    o.gpu_details = 1; /* every figure (test_call_tiers: a run without) */
    return o;
}

/* A tracker over the scenario before (read at the baseline) and after (at
 * the final sample; each START in it is replaced by a start time after the
 * GPUs were opened). Its results in *u and *g; the tracker, still to be freed. */
static gt_tracker *run(const char *before, const char *after, gt_resource_usage *u,
                       gt_gpu_run *g)
{
    write_scenario(before);
    gt_options o = options();
    gt_tracker *t = NULL;
    if (test_tracker_new(&o, &t) != GT_OK)
        return NULL;
    CHECK(gt_tracker_start(t) == GT_OK);
    char text[8192], start[32];
    snprintf(start, sizeof start, "%llu", now_us() + 1);
    size_t used = 0;
    for (const char *p = after; *p && used + sizeof start < sizeof text;)
        if (strncmp(p, "START", 5) == 0) {
            used += (size_t)snprintf(text + used, sizeof text - used, "%s", start);
            p += 5;
        } else {
            text[used++] = *p++;
        }
    text[used] = '\0';
    write_scenario(text);
    CHECK(gt_tracker_stop(t) == GT_OK);
    *u = *gt_tracker_usage(t);
    g->struct_size = sizeof *g;
    CHECK(gt_tracker_gpu_run(t, g) == GT_OK);
    check_results_read_back(t);
    return t;
}

/* Lines of the fake's call log naming fn. */
static int calls_of(const char *log, const char *fn)
{
    FILE *f = fopen(log, "r");
    char line[256];
    int n = 0;
    size_t len = strlen(fn);
    while (f && fgets(line, sizeof line, f))
        n += strncmp(line, fn, len) == 0 && line[len] == '\n';
    if (f)
        fclose(f);
    return n;
}

/* Accounting on: main's record is above what the samples saw, a child that
 * lived between the two samples is found only through its record, and one
 * that ended unseen on the shared GPU is not counted. */
static void test_accounting(void)
{
    char before[4096], after[4096];
    snprintf(before, sizeof before, "%saccounting 0 on\naccounting 1 on\n", two_gpus);
    /* START of main and 101: 1 (long before) but running or in the tree. */
    snprintf(after, sizeof after,
             "%saccounting 0 on\naccounting 1 on\n"
             "record 0 100 3000000000 1 1 40 2000\n"
             "record 0 101 1200000000 1 1 20 1500\n"
             "record 0 4242 5000000000 START 0 90 300\n"
             "record 1 4343 7000000000 START 0 90 300\n"
             "record 0 17 9000000000 1 0 90 300\n",
             two_gpus);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(before, after, &u, &g);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_MSG(g.accounting_available, "%s", g.accounting_reason);
    CHECK(g.accounting_processes == 3);  /* 100, 101 and the unseen 4242 */
    CHECK(g.accounting_unseen == 1);
    CHECK(g.accounting_unattributed == 1); /* 4343 on the GPU 999 shares */
    CHECK(g.accounting_main_peak == 3e9);
    CHECK(g.accounting_descendants_peak == 5e9);
    CHECK(g.accounting_gpu_seconds == 3.8);
    /* Never below the records: main 3 GB (sampled 2.5), descendants 5 GB
     * (sampled 1), combined at least the largest. */
    CHECK(u.max_gpu_ram.main == 3.0);
    CHECK(u.max_gpu_ram.descendants == 5.0);
    CHECK(u.max_gpu_ram.combined == 5.0);
    char *json = gt_tracker_to_json(t);
    CHECK_CONTAINS(json, "\"gpu_run\": {");
    CHECK_CONTAINS(json, "\"ended_unseen\": 1");
    CHECK_CONTAINS(json, "never below the driver's per-process high-water marks");
    free(json);

    /* The snapshot keeps it, and reads it back as it was. */
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json.gz", root);
    CHECK(gt_tracker_write_snapshot(t, "job", 0, GT_SNAPSHOT_GPU_TRACKER, path) == GT_OK);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(path, 0, &s) == GT_OK);
    CHECK(s && s->gpu_run.struct_size == sizeof s->gpu_run);
    gt_gpu_run back = s ? s->gpu_run : g;
    CHECK(back.ngpus == g.ngpus && (g.ngpus == 0 || (back.devices && g.devices &&
          memcmp(back.devices, g.devices, (size_t)g.ngpus * sizeof *g.devices) == 0)));
    back.devices = g.devices;
    CHECK(memcmp(&back, &g, sizeof g) == 0);

    gt_snapshot_free(s);
    gt_tracker_free(t);

    /* A driver that lists the records but gives none of them: the samples'
     * figures stand, nothing is made up. */
    char nostats[8192];
    snprintf(nostats, sizeof nostats, "%sfail nvmlDeviceGetAccountingStats 3\n", after);
    t = run(before, nostats, &u, &g);
    CHECK(t && g.accounting_available && g.accounting_processes == 0);
    CHECK(u.max_gpu_ram.main == 2.5 && u.max_gpu_ram.descendants == 1.0);
    gt_tracker_free(t);

    /* A finished record is final: read once, not asked for again at the
     * next read (old pid 17: at the baseline only); main's running one is
     * read each time; a PID listed twice (a new process took it) is asked
     * for again. Counted in the fake's call log. */
    char log[4200];
    snprintf(log, sizeof log, "%s/nvml-calls", root);
    unlink(log);
    setenv("FAKE_NVML_CALLS", log, 1);
    char old17[4096], again17[8192];
    snprintf(old17, sizeof old17, "%saccounting 0 on\naccounting 1 on\n"
             "record 0 100 3000000000 1 1 40 2000\nrecord 0 17 9000000000 1 0 90 300\n",
             two_gpus);
    t = run(old17, old17, &u, &g);
    CHECK_MSG(calls_of(log, "nvmlDeviceGetAccountingStats") == 3, "%d stats calls",
              calls_of(log, "nvmlDeviceGetAccountingStats"));
    gt_tracker_free(t);
    unlink(log);
    snprintf(again17, sizeof again17, "%srecord 0 17 4000000000 START 0 90 300\n", old17);
    t = run(old17, again17, &u, &g);
    CHECK_MSG(calls_of(log, "nvmlDeviceGetAccountingStats") == 4, "%d stats calls",
              calls_of(log, "nvmlDeviceGetAccountingStats"));
    CHECK(t && g.accounting_unseen == 1 && g.accounting_descendants_peak == 4e9);
    gt_tracker_free(t);
    unsetenv("FAKE_NVML_CALLS");

    /* Accounting off (the default): the samples alone, and why. */
    t = run(two_gpus, two_gpus, &u, &g);
    CHECK(t && !g.accounting_available);
    CHECK_CONTAINS(g.accounting_reason, "NVML accounting mode is off on GPU 0");
    CHECK_CONTAINS(g.accounting_reason, "nvidia-smi -i 0 -am 1");
    CHECK(u.max_gpu_ram.main == 2.5 && u.max_gpu_ram.descendants == 1.0);
    json = t ? gt_tracker_to_json(t) : NULL;
    CHECK_CONTAINS(json, "a GPU process that lives between two samples is missed");
    free(json);
    gt_tracker_free(t);
}

/* The calls a run makes, counted in the fake's log (docs/performance.md,
 * "Tiers of cadence"): for the summary alone, each sample asks each GPU for
 * its memory, utilization and compute processes; the graphics list and XID
 * events come at the first and last samples and every 5 s, the energy at
 * the first and last; per-process utilization and throttle reasons (what
 * the verdicts need) at the first and last samples on every GPU and between
 * on the GPU the tree holds memory on (GPU 0: its processes hold none on
 * GPU 1 here). gpu_details reads them on every GPU at every sample. */
static void test_call_tiers(void)
{
    char log[4200];
    snprintf(log, sizeof log, "%s/nvml-tier-calls", root);
    char scen[4096];
    snprintf(scen, sizeof scen,
             "device GPU-aaaa Fake-H100 80000000000 3000000000 50\n"
             "device GPU-bbbb Fake-H100 80000000000 1000000000 30\n"
             "process 0 100 2000000000\nprocess 0 101 1000000000\nprocess 1 999 250000000\n"
             "procutil 0 100 20\nprocutil 1 999 10\nthrottle 0 0x4\n"
             "throttle 1 0x40\nenergy 0 1000\nenergy 1 0\n");
    for (int details = 0; details <= 1; details++) {
        unlink(log);
        setenv("FAKE_NVML_CALLS", log, 1);
        write_scenario(scen);
        gt_options o = options();
        o.gpu_details = details;
        o.sleep_time = 0.02;
        gt_tracker *t = NULL;
        CHECK(test_tracker_new(&o, &t) == GT_OK);
        CHECK(t && gt_tracker_start(t) == GT_OK);
        /* Until ten samples have asked for memory (polled, not timed). */
        for (int i = 0; i < 30000 && calls_of(log, "nvmlDeviceGetMemoryInfo") < 2 + 2 * 10; i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        CHECK(t && gt_tracker_stop(t) == GT_OK);
        const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
        long n = u ? u->measurement.samples : 0;
        double wall = u ? u->compute_time.time : 0; /* hours by default */
        unsetenv("FAKE_NVML_CALLS");
        int slow_max = 2 + (int)(wall * 3600 / 5.0) + 1;
        CHECK_MSG(n >= 10, "%ld samples", n);
        /* two GPUs; memory also once each when they are listed */
        CHECK_MSG(calls_of(log, "nvmlDeviceGetMemoryInfo") == 2 * n + 2, "%d memory calls, %ld "
                  "samples", calls_of(log, "nvmlDeviceGetMemoryInfo"), n);
        CHECK(calls_of(log, "nvmlDeviceGetUtilizationRates") == 2 * n);
        /* (plus a call for each time the buffer grows, on the first list) */
        int compute = calls_of(log, "nvmlDeviceGetComputeRunningProcesses_v3");
        CHECK_MSG(compute >= 2 * n && compute <= 2 * n + 2, "%d compute calls", compute);
        int graphics = calls_of(log, "nvmlDeviceGetGraphicsRunningProcesses_v3");
        CHECK_MSG(graphics >= 4 && graphics <= 2 * slow_max, "%d graphics calls", graphics);
        int events = calls_of(log, "nvmlEventSetWait_v2");
        CHECK_MSG(events >= 2 && events <= slow_max, "%d event waits", events);
        int utils = calls_of(log, "nvmlDeviceGetProcessUtilization");
        int throttles = calls_of(log, "nvmlDeviceGetCurrentClocksEventReasons");
        int energy = calls_of(log, "nvmlDeviceGetTotalEnergyConsumption");
        if (!details) {
            /* GPU 0 at each sample (utilization: the count, then the
             * samples), GPU 1 at the first and the last */
            CHECK_MSG(utils == 2 * n + 2 * 2 && throttles == n + 2, "%d, %d, %ld samples",
                      utils, throttles, n);
            CHECK_MSG(energy == 2 + 2 * 2, "%d energy calls", energy); /* listed, first, last */
            CHECK(u && u->gpu_details.process_utilization_available);
            gt_gpu_run g = {.struct_size = sizeof g};
            CHECK(t && gt_tracker_gpu_run(t, &g) == GT_OK && g.throttle_available);
        } else {
            /* the count, then the samples, on each GPU; a throttle read each */
            CHECK_MSG(utils == 2 * 2 * n && throttles == 2 * n, "%d, %d, %ld samples", utils,
                      throttles, n);
            CHECK(u && u->gpu_details.process_utilization_available);
            CHECK(energy >= 2 + 2 * 2);
        }
        gt_tracker_free(t);
    }
}

/* GPM and the processes' utilization through the fake driver: GPU 0 (the
 * job's, with another process beside it) gives its activity counters,
 * GPU 1 has no GPM; then GPM refused at run time, an old library without
 * any of the calls, and MIG instances' own counters. */
static void test_activity(void)
{
    char scen[4096];
    snprintf(scen, sizeof scen,
             "%sgpmmetric 0 -1 2 92\ngpmmetric 0 -1 5 40.5\ngpmmetric 0 -1 10 31\n"
             "gpmmetric 0 -1 3 55\ngpmmetric 0 -1 20 2048\ngpmmetric 0 -1 21 1024\n"
             "gpmsupport 1 0\nprocutil 0 100 60\nprocutil 0 777 30\nenergy 0 1000\n"
             "energy 1 0\nprocess 0 777 1000000\n",
             two_gpus);
    char after[4160];
    /* 900 J more on GPU 0 over the run (the scenario's last line counts) */
    snprintf(after, sizeof after, "%senergy 0 901000\n", scen);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(scen, after, &u, &g);
    CHECK(t != NULL);
    CHECK_MSG(g.activity_available, "%s", g.activity_reason);
    CHECK(g.activity_read == (1u << GPU_ACTIVITY_SM | 1u << GPU_ACTIVITY_OCCUPANCY |
                              1u << GPU_ACTIVITY_TENSOR | 1u << GPU_ACTIVITY_DRAM));
    CHECK(g.activity_mean[GPU_ACTIVITY_SM] == 92 && g.activity_peak[GPU_ACTIVITY_SM] == 92);
    CHECK(g.activity_mean[GPU_ACTIVITY_TENSOR] == 40.5 && g.activity_mean[GPU_ACTIVITY_DRAM] == 31);
    CHECK(g.pcie_available && g.pcie_tx_mean == 2048.0 * 1048576 &&
          g.pcie_rx_mean == 1024.0 * 1048576);
    CHECK(g.ngpus == 2 && g.devices && g.devices[0].activity_read && !g.devices[1].activity_read);
    /* the job's 60 % and the other's 30 % of GPU 0's time */
    CHECK_MSG(g.share_available, "%s", g.share_reason);
    CHECK(g.devices[0].share_read && g.devices[0].job_sm_share == 0.6 &&
          g.devices[0].others_sm_share == 0.3 && g.shared_gpus == 1);
    CHECK(g.devices[0].energy_read && g.devices[0].energy_joules == 900.0 &&
          g.devices[0].job_energy_joules == 600.0);
    gt_gpu_idle idle = {.struct_size = sizeof idle};
    CHECK(t && gt_tracker_gpu_idle(t, &idle) == GT_OK);
    CHECK(idle.wait.verdict & GT_GPU_WAIT_SHARED);
    char *json = t ? gt_tracker_to_json(t) : NULL;
    CHECK_CONTAINS(json, "\"activity\": {");
    CHECK_CONTAINS(json, "\"tensor\": {");
    CHECK_CONTAINS(json, "\"others_sm_share\": 0.3");
    CHECK_CONTAINS(json, "\"shared\"");
    free(json);
    char *text = t ? gt_tracker_to_text(t) : NULL;
    CHECK_CONTAINS(text, "GPU activity:\n   SM 92% (peak 92%), tensor 40% (peak 40%), DRAM 31% "
                         "(peak 31%) of the GPU time the job used");
    CHECK_CONTAINS(text, "Other processes took 30% of GPU 0's time");
    free(text);
    /* -f human and the report say the same; the job's share is over both
     * GPUs it held memory on (it ran no kernel on GPU 1): 60 and 30 % of
     * GPU 0's time, half that of both GPUs' */
    gt_totals totals = {.struct_size = sizeof totals, .wall_seconds = 10};
    struct human_extras x = {.gpu_run = &g};
    text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "GPU activity    SM 92% (peak 92%), tensor 40% (peak 40%), DRAM 31% "
                         "(peak 31%) of the GPU time the job used\n");
    CHECK_CONTAINS(text, "GPU share       the job's processes 30% of the SM time of the GPUs it "
                         "used, others' 15%\n");
    CHECK_CONTAINS(text, "    GPU 0: SM 92% (peak 92%), tensor 40% (peak 40%), DRAM 31% (peak "
                         "31%); the job 60% of its time, others 30%; the job's energy there "
                         "~600 J of the GPU's 900 J (an estimate)\n");
    free(text);
    char report[4200];
    snprintf(report, sizeof report, "%s/activity.html", root);
    CHECK(t && gt_tracker_write_report(t, "train.py", 0, NULL, NULL, report) == GT_OK);
    char *html = NULL;
    CHECK(input_file_read(report, 1 << 24, "report", &html, NULL) == GT_OK);
    CHECK_CONTAINS(html, "GPU SM activity</div><div class=\"v\">92%</div>");
    CHECK_CONTAINS(html, "sm 92% (peak 92%) sm_occupancy 55% (peak 55%) tensor 40% (peak 40%)");
    CHECK_CONTAINS(html, "GPU share (job)</div><div class=\"v\">30%</div>");
    CHECK_CONTAINS(html, "GPU held back");
    free(html);
    gt_tracker_free(t);

    /* GPM refused at the final sample: no figures, the reason, no more calls. */
    char both[4120]; /* (GPU 1 with GPM too: the refusal's is the reason) */
    snprintf(both, sizeof both, "%sgpmsupport 1 1\n", scen);
    snprintf(after, sizeof after, "%sfail nvmlGpmSampleGet 3\n", both);
    t = run(both, after, &u, &g);
    CHECK(t && !g.activity_available);
    CHECK_CONTAINS(g.activity_reason, "GPM refused a sample: fake NVML error 3");
    gt_tracker_free(t);

    /* With rows, the report's GPU charts: the counters said under them
     * (utilization counts any kernel, SM activity the SMs busy). */
    write_scenario(scen);
    gt_options so = options();
    so.sleep_time = 0.02;
    so.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    CHECK(test_tracker_new(&so, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    double taken = 0;
    for (int i = 0; i < 30000 && t && gt_tracker_figure(t, GT_FIGURE_SAMPLES, &taken) == GT_OK &&
                    taken < 6; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK(t && gt_tracker_stop(t) == GT_OK);
    CHECK(t && gt_tracker_write_report(t, "train.py", 0, NULL, NULL, report) == GT_OK);
    html = NULL;
    CHECK(input_file_read(report, 1 << 24, "report", &html, NULL) == GT_OK);
    CHECK_CONTAINS(html, "<figcaption>GPU utilization</figcaption>");
    CHECK_CONTAINS(html, "<p class=\"note\">GPU utilization above is the share of time any "
                         "kernel ran; the GPUs' own counters while the job used them: sm 92% "
                         "(peak 92%), sm_occupancy 55% (peak 55%), tensor 40% (peak 40%)");
    free(html);
    gt_tracker_free(t);

    /* A refused metrics call is not made again: once per GPU over ten
     * samples (polled, not timed), the reason kept. */
    char log[4200];
    snprintf(log, sizeof log, "%s/nvml-gpm-calls", root);
    unlink(log);
    setenv("FAKE_NVML_CALLS", log, 1);
    snprintf(after, sizeof after, "%sfail nvmlGpmMetricsGet 3\n", both);
    write_scenario(after);
    gt_options o = options();
    o.sleep_time = 0.02;
    o.gpu_details = 1;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    for (int i = 0; i < 30000 && calls_of(log, "nvmlDeviceGetMemoryInfo") < 2 + 2 * 10; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK(t && gt_tracker_stop(t) == GT_OK);
    unsetenv("FAKE_NVML_CALLS");
    CHECK_MSG(calls_of(log, "nvmlGpmMetricsGet") == 2, "%d metrics calls",
              calls_of(log, "nvmlGpmMetricsGet"));
    CHECK_MSG(calls_of(log, "nvmlGpmSampleGet") == 2 * 2, "%d sample calls",
              calls_of(log, "nvmlGpmSampleGet"));
    CHECK(t && gt_tracker_gpu_run(t, &g) == GT_OK && !g.activity_available);
    CHECK_CONTAINS(g.activity_reason, "GPM gives no metrics: fake NVML error 3");
    gt_tracker_free(t);

    /* No GPU has GPM: said so; the share still comes (every generation). */
    snprintf(after, sizeof after, "%sgpmsupport 0 0\n", scen);
    t = run(after, after, &u, &g);
    CHECK(t && !g.activity_available && g.share_available);
    CHECK_STR(g.activity_reason, "GPU 0 has no SM, tensor or DRAM activity: the GPU has no GPM "
                                 "counters (Hopper or later has them)");
    gt_tracker_free(t);

    /* MIG: each instance's own counters, from its GPU instance's samples. */
    static const char mig[] =
        "device GPU-aaaa Fake-H100 80000000000 7000000000 0\n"
        "mig 0 on\n"
        "migdevice 0 0 1 MIG-aaaa-1 Fake-H100-MIG-3g.40gb 40000000000 5000000000\n"
        "migprocess 0 0 100 4000000000\n"
        "gpm 0 1 60\ngpmmetric 0 1 2 7\ngpmmetric 0 1 5 0\n";
    t = run(mig, mig, &u, &g);
    CHECK(t && g.activity_available && g.activity_mean[GPU_ACTIVITY_SM] == 7 &&
          (g.activity_read >> GPU_ACTIVITY_TENSOR & 1) && g.activity_mean[GPU_ACTIVITY_TENSOR] == 0);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 60.0);
    /* busy (60 %) but not 90 %: no SM verdict */
    CHECK(t && gt_tracker_gpu_idle(t, &idle) == GT_OK && !(idle.wait.verdict & GT_GPU_WAIT_SMS_IDLE));
    gt_tracker_free(t);
}

/* Throttle reasons, ECC and XID through the driver; the energy share. */
static void test_health(void)
{
    char before[4096], after[4096];
    snprintf(before, sizeof before,
             "%sthrottle 0 0x4\nthrottle 1 0x40\necc 0 1 2\necc 1 0 0\n"
             "procutil 0 100 20\nprocutil 0 101 20\nenergy 0 1000\nenergy 1 0\n",
             two_gpus);
    snprintf(after, sizeof after,
             "%sthrottle 0 0x44\nthrottle 1 0x40\necc 0 4 2\necc 1 0 1\nxid 1 79\nxid 0 48\n"
             "procutil 0 100 20\nprocutil 0 101 20\nenergy 0 601000\nenergy 1 0\n",
             two_gpus);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(before, after, &u, &g);
    CHECK(t != NULL);
    CHECK_MSG(g.throttle_available, "%s", g.throttle_reason);
    /* One interval, read at its end: GPU 0 power-capped and hot, GPU 1 hot. */
    CHECK(g.throttle_share[GPU_THROTTLE_SW_POWER_CAP] == 1.0);
    CHECK(g.throttle_share[GPU_THROTTLE_HW_THERMAL] == 1.0);
    CHECK(g.throttle_share[GPU_THROTTLE_IDLE] == 0.0);
    CHECK(g.ngpus == 2 && g.devices && g.devices[0].throttle_read && g.devices[1].throttle_read);
    CHECK(g.devices[1].throttle_share[GPU_THROTTLE_SW_POWER_CAP] == 0.0);
    CHECK(g.devices[1].throttle_share[GPU_THROTTLE_HW_THERMAL] == 1.0);
    CHECK_STR(gpu_throttle_name(GPU_THROTTLE_SW_POWER_CAP), "sw_power_cap");
    CHECK(gpu_throttle_name(GT_GPU_THROTTLE_REASONS) == NULL);
    CHECK_MSG(g.ecc_available, "%s", g.ecc_reason);
    CHECK(g.ecc_corrected == 3.0 && g.ecc_uncorrected == 1.0);
    CHECK_MSG(g.xid_available, "%s", g.xid_reason);
    CHECK(g.xid_events == 2 && g.xid_last == 48 && g.xid_last_gpu == 0);
    /* The job's SM (20 + 20) over the GPUs' busy (50 + 30) of 600 J. */
    CHECK_MSG(g.job_energy_available, "%s", g.job_energy_reason);
    CHECK(g.job_energy_share == 0.5);
    CHECK_MSG(u.gpu_details.energy_joules == 600.0 && g.job_energy_joules == 300.0, "%g J, job %g J", u.gpu_details.energy_joules, g.job_energy_joules);
    char *json = t ? gt_tracker_to_json(t) : NULL;
    CHECK_CONTAINS(json, "\"sw_power_cap\": 1.0");
    CHECK_CONTAINS(json, "\"uncorrected\": 1.0");
    CHECK_CONTAINS(json, "\"last\": 48");
    free(json);
    gt_tracker_free(t);
}

/* A report of the health scenario's run into path. 0, or -1. */
static int health_report(const char *path)
{
    char before[4096], after[4096];
    snprintf(before, sizeof before,
             "%saccounting 0 on\naccounting 1 on\nthrottle 0 0x4\nthrottle 1 0x4\n"
             "ecc 0 0 0\necc 1 0 0\nprocutil 0 100 20\nenergy 0 1000\n", two_gpus);
    snprintf(after, sizeof after,
             "%saccounting 0 on\naccounting 1 on\nthrottle 0 0x4\nthrottle 1 0x4\n"
             "ecc 0 0 1\necc 1 0 0\nprocutil 0 100 20\nenergy 0 801000\n"
             "record 0 4242 5000000000 START 0 90 300\n", two_gpus);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(before, after, &u, &g);
    int rc = t && gt_tracker_write_report(t, "train.py", 0, NULL, NULL, path) == GT_OK ? 0 : -1;
    gt_tracker_free(t);
    return rc;
}

static void test_report(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", root);
    CHECK(health_report(path) == 0);
    char *html = NULL;
    CHECK(input_file_read(path, 1 << 24, "report", &html, NULL) == GT_OK);
    CHECK_CONTAINS(html, "<h2>GPUs: what the driver counted</h2>");
    CHECK_CONTAINS(html, "GPU accounting</div><div class=\"v\">1 process</div>");
    CHECK_CONTAINS(html, "1 ended between samples and were seen only there");
    CHECK_CONTAINS(html, "<div class=\"card warn\"><div class=\"k\">GPU slowed</div><div "
                         "class=\"v\">100%</div>");
    CHECK_CONTAINS(html, "lowered by sw_power_cap");
    CHECK_CONTAINS(html, "uncorrected ECC 1, corrected 0, XID events 0");
    /* 20 of 80 busy: a quarter of 800 J */
    CHECK_CONTAINS(html, "GPU energy (job)</div><div class=\"v\">200 J</div>");
    free(html);
}

/* The same report in headless Chromium: the GPU cards are in the rendered
 * page. */
static int report_in_chromium(void)
{
    if (!chromium_available())
        return 77;
    char *text = chromium_dom(health_report);
    CHECK_CONTAINS(text, "<h2>GPUs: what the driver counted</h2>");
    CHECK_CONTAINS(text, "GPU slowed</div><div class=\"v\">100%</div>");
    CHECK_CONTAINS(text, "GPU energy (job)</div><div class=\"v\">200 J</div>");
    free(text);
    return check_exit("test_gpu_depth report-chromium");
}

/* A driver that answers NOT_SUPPORTED (3) for each call: that part only is
 * missing, with the call's error, and the rest is still there. */
static void test_not_supported(void)
{
    static const struct {
        const char *fail;
        size_t reason; /* offset of the reason in gt_gpu_run */
        const char *text;
    } cases[] = {
        {"nvmlDeviceGetAccountingMode", offsetof(gt_gpu_run, accounting_reason),
         "GPU 0 keeps no accounting records: fake NVML error 3"},
        {"nvmlDeviceGetAccountingPids", offsetof(gt_gpu_run, accounting_reason),
         "GPU 0's accounting records cannot be read: fake NVML error 3"},
        {"nvmlDeviceGetCurrentClocksEventReasons", offsetof(gt_gpu_run, throttle_reason),
         "GPU 0 does not report why its clocks are lowered: fake NVML error 3"},
        {"nvmlDeviceGetTotalEccErrors", offsetof(gt_gpu_run, ecc_reason),
         "GPU 0 does not count ECC errors (ECC off, or not supported): fake NVML error 3"},
        {"nvmlEventSetCreate", offsetof(gt_gpu_run, xid_reason),
         "NVML cannot watch XID errors: fake NVML error 3"},
        {"nvmlDeviceRegisterEvents", offsetof(gt_gpu_run, xid_reason),
         "GPU 0 does not report XID errors: fake NVML error 3"},
        {"nvmlEventSetWait_v2", offsetof(gt_gpu_run, xid_reason),
         "NVML stopped reporting XID errors: fake NVML error 3"},
        {"nvmlDeviceGetProcessUtilization", offsetof(gt_gpu_run, job_energy_reason),
         "the driver does not report per-process GPU utilization: fake NVML error 3"},
        {"nvmlDeviceGetTotalEnergyConsumption", offsetof(gt_gpu_run, job_energy_reason),
         "GPU 0 does not report its energy: fake NVML error 3"},
    };
    const char *healthy = "accounting 0 on\naccounting 1 on\nthrottle 0 1\nthrottle 1 1\n"
                          "ecc 0 0 0\necc 1 0 0\nprocutil 0 100 10\nenergy 0 5\n";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[4096];
        snprintf(text, sizeof text, "%s%sfail %s 3\n", two_gpus, healthy, cases[i].fail);
        gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
        gt_gpu_run g;
        gt_tracker *t = run(text, text, &u, &g);
        CHECK(t != NULL);
        const char *reason = (const char *)&g + cases[i].reason;
        CHECK_MSG(strcmp(reason, cases[i].text) == 0, "%s: '%s'", cases[i].fail, reason);
        /* the others are there */
        int others = (cases[i].reason == offsetof(gt_gpu_run, accounting_reason) ||
                      g.accounting_available) +
                     (cases[i].reason == offsetof(gt_gpu_run, throttle_reason) ||
                      g.throttle_available) +
                     (cases[i].reason == offsetof(gt_gpu_run, ecc_reason) || g.ecc_available) +
                     (cases[i].reason == offsetof(gt_gpu_run, xid_reason) || g.xid_available);
        CHECK_MSG(others == 4, "%s took more than its own part away", cases[i].fail);
        CHECK(u.measurement.gpu_available);
        gt_tracker_free(t);
    }
}

/* gpu_run.h on constructed samples: time weighting and attribution. */
static void test_pure(void)
{
    struct gpu_run_acc a;
    gpu_run_acc_init(&a);
    struct gpu_sample s;
    memset(&s, 0, sizeof s);
    /* No roles (the tree unread): a running record is an outsider's. */
    struct gpu_account_record recs[2] = {
        {.pid = 5, .device = 0, .max_bytes = 100, .start_us = 10, .running = 1},
        {.pid = 6, .device = 1, .max_bytes = 200, .start_us = 10, .running = 0},
    };
    s.throttle_read = 3;
    s.device_throttle[0] = 1u << GPU_THROTTLE_SW_THERMAL;
    CHECK(gpu_run_acc_step(&a, 10.0, 3, &s, NULL, NULL) == 0); /* first: no interval */
    s.device_throttle[0] = 0;
    CHECK(gpu_run_acc_step(&a, 13.0, 3, &s, NULL, NULL) == 0); /* 3 s cool */
    s.device_throttle[0] = 1u << GPU_THROTTLE_SW_THERMAL;
    s.accounting_read = 1;
    s.records = recs;
    s.nrecords = 2;
    CHECK(gpu_run_acc_step(&a, 14.0, 3, &s, NULL, NULL) == 0); /* 1 s hot */
    gt_gpu_run g = {.struct_size = sizeof g};
    struct gpu_run_reasons why = {0};
    gt_gpu_run_device table[2];
    gpu_run_acc_fill(&a, &why, 2, 0, table, &g);
    CHECK(g.devices == table);
    CHECK(g.throttle_share[GPU_THROTTLE_SW_THERMAL] == 0.25);
    CHECK(g.devices[1].throttle_share[GPU_THROTTLE_SW_THERMAL] == 0.0);
    /* pid 5 marks GPU 0 shared; pid 6 ended unseen on GPU 1, used by none
     * other: the job's. */
    CHECK(g.accounting_available && g.accounting_processes == 1 && g.accounting_unseen == 1);
    CHECK(g.accounting_descendants_peak == 200.0 && g.accounting_unattributed == 0);
    /* A record twice (re-read at the final sample) is one process. */
    CHECK(gpu_run_acc_step(&a, 15.0, 3, &s, NULL, NULL) == 0);
    gpu_run_acc_fill(&a, &why, 2, 0, table, &g);
    CHECK(g.accounting_processes == 1);
    /* Unselected GPUs count per device, not in the run's share. */
    CHECK(gpu_run_acc_step(&a, 17.0, 2, &s, NULL, NULL) == 0);
    gpu_run_acc_fill(&a, &why, 2, 0, table, &g);
    CHECK(g.throttle_share[GPU_THROTTLE_SW_THERMAL] == 2.0 / 7.0);
    CHECK(g.devices[0].throttle_share[GPU_THROTTLE_SW_THERMAL] == 4.0 / 7.0);
    /* No GPU: every part says so. */
    why.gpu = "no GPU library found";
    gpu_run_acc_fill(&a, &why, 0, 0, table, &g);
    CHECK(g.ngpus == 0 && g.devices == NULL);
    CHECK(!g.accounting_available && !g.throttle_available && !g.ecc_available &&
          !g.xid_available && !g.job_energy_available);
    CHECK_STR(g.xid_reason, "no GPU library found");
    gpu_run_acc_free(&a);
}

/* The snapshot's metadata.gpu_run is checked on reading like the rest. */
static void test_json_read(void)
{
    gt_gpu_run g = {.struct_size = sizeof g};
    g.throttle_available = 1;
    gt_gpu_run_device dev = {.throttle_read = 1, .throttle_share = {[2] = 0.5}};
    g.ngpus = 1;
    g.devices = &dev;
    g.throttle_share[2] = 0.5;
    snprintf(g.accounting_reason, sizeof g.accounting_reason, "off");
    snprintf(g.ecc_reason, sizeof g.ecc_reason, "off");
    snprintf(g.xid_reason, sizeof g.xid_reason, "off");
    snprintf(g.job_energy_reason, sizeof g.job_energy_reason, "off");
    g.xid_last_gpu = -1;
    json_object *o = gpu_run_json_object(&g);
    gt_gpu_run back = {.struct_size = sizeof back};
    struct json_reader r = {GT_OK, "test"};
    gpu_run_json_read(&r, o, "gpu_run", &back);
    CHECK(r.status == GT_OK);
    /* Equal but for where the per-GPU figures live: the reader's own copy. */
    CHECK(back.ngpus == 1 && back.devices && back.devices != &dev);
    CHECK(memcmp(back.devices, &dev, sizeof dev) == 0);
    free((void *)(uintptr_t)back.devices);
    back.devices = &dev;
    CHECK(memcmp(&back, &g, sizeof g) == 0);
    /* A share above 1 is refused, naming the key. */
    json_object *thr, *share;
    json_object_object_get_ex(o, "throttle", &thr);
    json_object_object_get_ex(thr, "share", &share);
    json_object_object_add(share, "hw_thermal", json_object_new_double(1.5));
    struct json_reader bad = {GT_OK, "test"};
    gpu_run_json_read(&bad, o, "gpu_run", &back);
    CHECK(bad.status == GT_ERR_PARSE);
    free((void *)(uintptr_t)back.devices);
    CHECK_CONTAINS(gt_last_error(), "gpu_run.throttle.share");
    json_object_put(o);
}

/* root/<pid>/fd/<fd> -> target. */
static void symlink_at(const char *target, int pid, int fd)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%d/fd", root, pid);
    mkdir(path, 0755);
    snprintf(path + strlen(path), sizeof path - strlen(path), "/%d", fd);
    CHECK(symlink(target, path) == 0);
}

/* Inside a PID namespace the driver names processes by host PIDs (5100,
 * 5101 here): they are matched to ours (100, 101) by the GPU device files
 * each holds open; where a GPU is shared with a process outside the
 * namespace (host PID 101, the same number as our child), nothing on it
 * is matched, and the look-alike PID is never counted. */
static void test_pid_namespace(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/self", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/self/ns", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/self/ns/pid", root);
    CHECK(symlink("pid:[4026532999]", path) == 0);
    symlink_at("/dev/nvidiactl", 100, 3);
    symlink_at("/dev/nvidia0", 100, 4);
    symlink_at("/dev/nvidia1", 100, 5);
    symlink_at("/dev/nvidia0", 101, 4);
    symlink_at("/dev/nvidia-uvm", 101, 5);
    static const char host_pids[] =
        "device GPU-aaaa Fake-H100 80000000000 3000000000 50\n"
        "device GPU-bbbb Fake-H100 80000000000 1000000000 30\n"
        "process 0 5100 2000000000\n"
        "process 1 5100 500000000\n"
        "process 0 5101 1000000000\n";
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(host_pids, host_pids, &u, &g);
    CHECK(t != NULL);
    CHECK(g.pid_namespace == 1 && g.pids_translated == 2 && g.pids_untranslated == 0);
    CHECK_STR(g.pid_reason, "");
    CHECK(u.gpu_details.process_memory_available);
    CHECK(u.max_gpu_ram.main == 2.5 && u.max_gpu_ram.descendants == 1.0);
    gt_tracker_free(t);

    char shared[2048];
    snprintf(shared, sizeof shared, "%sprocess 1 101 250000000\n", host_pids);
    t = run(shared, shared, &u, &g);
    CHECK(t != NULL);
    CHECK(g.pid_namespace == 1 && g.pids_translated == 0 && g.pids_untranslated == 3);
    CHECK_CONTAINS(g.pid_reason, "3 of the driver's GPU processes (host PIDs) could not be "
                                 "matched to ours");
    CHECK(u.max_gpu_ram.main == 0 && u.max_gpu_ram.descendants == 0);
    char *json = t ? gt_tracker_to_json(t) : NULL;
    CHECK_CONTAINS(json, "\"untranslated\": 3");
    free(json);
    gt_tracker_free(t);

    /* A GPU whose device file is not known (the driver gives no minor
     * number): nothing can be matched, and every figure says why. */
    snprintf(shared, sizeof shared, "%sfail nvmlDeviceGetMinorNumber 3\n", host_pids);
    t = run(shared, shared, &u, &g);
    CHECK(t && !u.gpu_details.process_memory_available);
    CHECK_CONTAINS(u.gpu_details.process_memory_reason, "gpu-tracker runs in a PID namespace");
    CHECK_CONTAINS(g.pid_reason, "the GPUs' device files are not known");
    CHECK(u.max_gpu_ram.main == 0);
    gt_tracker_free(t);
    snprintf(path, sizeof path, "rm -rf %s/self %s/100/fd %s/101/fd", root, root, root);
    CHECK(system(path) == 0);
}

/* A GPU in MIG mode is listed as its two instances, each with its own
 * UUID, memory and process; their utilization from GPM. */
static void test_mig(void)
{
    static const char mig[] =
        "device GPU-aaaa Fake-H100 80000000000 7000000000 0\n"
        "device GPU-bbbb Fake-H100 80000000000 1000000000 30\n"
        "mig 0 on\n"
        "migdevice 0 0 1 MIG-aaaa-1 Fake-H100-MIG-3g.40gb 40000000000 5000000000\n"
        "migdevice 0 2 2 MIG-aaaa-2 Fake-H100-MIG-3g.40gb 40000000000 2000000000\n"
        "migprocess 0 0 100 4000000000\n"
        "migprocess 0 2 101 1500000000\n"
        "process 1 100 500000000\n"
        "gpm 0 1 60\n"
        "gpm 0 2 20\n";
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    gt_gpu_run g;
    gt_tracker *t = run(mig, mig, &u, &g);
    CHECK(t != NULL);
    const gt_gpu_details *d = &u.gpu_details;
    CHECK(d->ndevices == 3);
    CHECK_STR(d->devices[0].uuid, "MIG-aaaa-1");
    CHECK_STR(d->devices[1].uuid, "MIG-aaaa-2");
    CHECK_STR(d->devices[2].uuid, "GPU-bbbb");
    CHECK_STR(d->devices[0].name, "Fake-H100-MIG-3g.40gb");
    CHECK(d->devices[1].memory_total == 40.0);
    CHECK(u.max_gpu_ram.system == 8.0); /* the instances', not the whole GPU's too */
    CHECK(u.max_gpu_ram.main == 4.5 && u.max_gpu_ram.descendants == 1.5);
    /* GPM needs two samples: at the final one, 60 + 20 on the instances */
    CHECK_MSG(u.gpu_utilization.gpu_percentages.max_sum_percent == 110.0, "%g",
              u.gpu_utilization.gpu_percentages.max_sum_percent);
    CHECK(g.mig_instances == 2 && g.mig_utilization_available);
    CHECK(!d->process_utilization_available); /* not per process on MIG */
    CHECK_CONTAINS(d->energy_reason, "a MIG instance has no energy counter of its own");
    char *json = t ? gt_tracker_to_json(t) : NULL;
    CHECK_CONTAINS(json, "\"instances\": 2");
    free(json);
    gt_tracker_free(t);

    /* --guuids takes an instance's UUID. */
    write_scenario(mig);
    gt_options o = options();
    o.gpu_uuids = "MIG-aaaa-2";
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *su = t ? gt_tracker_usage(t) : NULL;
    CHECK(su && su->gpu_utilization.gpu_percentages.max_sum_percent == 20.0);
    CHECK(su && su->gpu_details.devices[1].selected && !su->gpu_details.devices[0].selected);
    gt_tracker_free(t);

    /* No GPM: the instances show no utilization, and say why. */
    char text[2048];
    snprintf(text, sizeof text, "%sfail nvmlGpmQueryDeviceSupport 3\n", mig);
    t = run(text, text, &u, &g);
    CHECK(t && !g.mig_utilization_available && g.mig_instances == 2);
    CHECK_STR(g.mig_utilization_reason, "MIG instance 0 shows no utilization: the GPU has no GPM "
                                        "counters (Hopper or later has them): fake NVML error 3");
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 30.0); /* GPU-bbbb alone */
    gt_tracker_free(t);

    /* Each MIG and GPM call answering NOT_SUPPORTED: the instances show no
     * utilization and say why, or (no MIG mode, no instance handles) the
     * GPU is listed whole; nothing else is lost. */
    static const struct {
        const char *fail;
        int ndevices;
        const char *reason; /* gpu_run.mig_utilization_reason, "" none */
    } cases[] = {
        {"nvmlDeviceGetMigMode", 2, ""},
        {"nvmlDeviceGetMaxMigDeviceCount", 2, ""},
        {"nvmlDeviceGetMigDeviceHandleByIndex", 1, ""},
        {"nvmlDeviceGetGpuInstanceId", 3,
         "MIG instance 0 shows no utilization: NVML does not say which GPU instance it is"},
        {"nvmlGpmSampleAlloc", 3,
         "MIG instance 0 shows no utilization: GPM samples cannot be made: fake NVML error 3"},
        {"nvmlGpmMigSampleGet", 3,
         "MIG instance 0 shows no utilization: GPM refused a sample: fake NVML error 3"},
        {"nvmlGpmMetricsGet", 3,
         "MIG instance 0 shows no utilization: GPM gives no metrics: fake NVML error 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%sfail %s 3\n", mig, cases[i].fail);
        t = run(text, text, &u, &g);
        CHECK_MSG(t && u.gpu_details.ndevices == cases[i].ndevices, "%s: %d devices",
                  cases[i].fail, u.gpu_details.ndevices);
        CHECK_MSG(!strcmp(g.mig_utilization_reason, cases[i].reason), "%s: '%s'", cases[i].fail,
                  g.mig_utilization_reason);
        CHECK(u.measurement.gpu_available);
        gt_tracker_free(t);
    }
}

/* ROCm SMI: ECC counts over the blocks that keep them; what it lacks says
 * so. */
static void test_amd(void)
{
    char rsmi[4200];
    snprintf(rsmi, sizeof rsmi, "%s/rsmi-scenario", root);
    setenv("FAKE_RSMI_SCENARIO", rsmi, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", WORKLOAD_DIR "/libfake-rsmi.so", 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    FILE *f = fopen(rsmi, "w");
    fputs("device 1111 Fake-MI300 192000000000 5000000000 40\nprocess 100 3000000000\n"
          "ecc 0 1 5 0\necc 0 4 1 0\nthrottle 0 0\n", f);
    fclose(f);
    gt_options o = options();
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    f = fopen(rsmi, "w");
    /* the SMU's figures: GFX 85 %, memory controller 40 %; a power limit
     * (PPT0, bit 0) and the edge temperature (bit 35) */
    fputs("device 1111 Fake-MI300 192000000000 5000000000 40\nprocess 100 3000000000\n"
          "ecc 0 1 7 1\necc 0 4 1 0\nactivity 0 85 40\nthrottle 0 0x800000001\n", f);
    fclose(f);
    CHECK(t && gt_tracker_stop(t) == GT_OK);
    gt_gpu_run g = {.struct_size = sizeof g};
    CHECK(t && gt_tracker_gpu_run(t, &g) == GT_OK);
    CHECK_MSG(g.activity_available, "%s", g.activity_reason);
    CHECK(g.activity_read == (1u << GPU_ACTIVITY_GFX | 1u << GPU_ACTIVITY_DRAM));
    CHECK(g.activity_mean[GPU_ACTIVITY_GFX] == 85 && g.activity_mean[GPU_ACTIVITY_DRAM] == 40);
    /* read at the final sample only: the throttle share of the one interval */
    CHECK_MSG(g.throttle_available, "%s", g.throttle_reason);
    CHECK(g.throttle_share[GPU_THROTTLE_SW_POWER_CAP] == 1.0 &&
          g.throttle_share[GPU_THROTTLE_SW_THERMAL] == 1.0 &&
          g.throttle_share[GPU_THROTTLE_HW_THERMAL] == 0.0);
    CHECK_MSG(g.ecc_available && g.ecc_corrected == 2 && g.ecc_uncorrected == 1, "%s",
              g.ecc_reason);
    CHECK_STR(g.accounting_reason, "ROCm SMI keeps no records of exited processes");
    CHECK_STR(g.xid_reason, "XID errors are NVIDIA's");
    gt_tracker_free(t);
    /* No block keeps counts: not supported, said so. */
    f = fopen(rsmi, "w");
    fputs("device 1111 Fake-MI300 192000000000 5000000000 40\n", f);
    fclose(f);
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    CHECK(t && gt_tracker_gpu_run(t, &g) == GT_OK);
    CHECK_STR(g.ecc_reason, "GPU 0 does not count ECC errors (ECC off, or not supported): fake "
                            "ROCm SMI error 2");
    /* nor the SMU's figures: said so, no figure made up */
    CHECK(!g.throttle_available && !g.activity_available);
    CHECK_STR(g.throttle_reason, "GPU 0 does not report why its clocks are lowered: fake ROCm "
                                 "SMI error 2");
    CHECK_STR(g.activity_reason, "GPU 0 does not report its GFX and memory activity: fake ROCm "
                                 "SMI error 2");
    gt_tracker_free(t);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
}

/* gpu_pidmap.h on its own: the elimination, step by step. */
static void test_pid_match(void)
{
    /* main holds GPUs 0 and 1, the child GPU 0: A (on both) is main, then
     * B (on 0) the child. */
    struct gpu_holder h[3] = {{100, 3, 1}, {101, 1, 2}, {0, 0, 0}};
    struct gpu_claim c[3] = {{5101, 1, 0}, {5100, 3, 0}, {0, 0, 0}};
    CHECK(gpu_pid_match(c, 2, h, 2) == 0);
    CHECK(c[0].ours == 101 && c[1].ours == 100);
    /* Two of our descendants alike on one GPU: either will do. */
    struct gpu_holder h2[2] = {{101, 1, 2}, {102, 1, 2}};
    struct gpu_claim c2[2] = {{7001, 1, 0}, {7002, 1, 0}};
    CHECK(gpu_pid_match(c2, 2, h2, 2) == 0);
    CHECK(c2[0].ours != c2[1].ours && c2[0].ours >= 101 && c2[1].ours <= 102);
    /* Main and a child alike on one GPU: cannot tell. */
    struct gpu_holder h3[2] = {{100, 1, 1}, {101, 1, 2}};
    struct gpu_claim c3[2] = {{7001, 1, 0}, {7002, 1, 0}};
    CHECK(gpu_pid_match(c3, 2, h3, 2) == 2);
    /* A process of our namespace outside the tree holds the GPU too: the
     * claim may be its, so it is matched to it (not counted as ours). */
    struct gpu_holder h4[2] = {{100, 1, 1}, {300, 2, 0}};
    struct gpu_claim c4[2] = {{7001, 1, 0}, {7002, 2, 0}};
    CHECK(gpu_pid_match(c4, 2, h4, 2) == 0);
    CHECK(c4[0].ours == 100 && c4[1].ours == 300);
    /* The driver already speaks our PIDs. */
    struct gpu_holder h5[1] = {{100, 1, 1}};
    struct gpu_claim c5[1] = {{100, 1, 0}};
    CHECK(gpu_pid_match(c5, 1, h5, 1) == 0 && c5[0].ours == 100);
    /* More claims on a GPU than holders: another user's among them. */
    struct gpu_holder h6[1] = {{100, 1, 1}};
    struct gpu_claim c6[2] = {{7001, 1, 0}, {7002, 1, 0}};
    CHECK(gpu_pid_match(c6, 2, h6, 1) == 2);
}

/* -f human's GPU lines: accounting (and why not), slowdowns, errors, the
 * job's share of the energy. */
static void test_human(void)
{
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
    u.measurement.gpu_available = 1;
    u.max_gpu_ram.combined = 5e9;
    u.gpu_details.energy_available = 1;
    u.gpu_details.energy_joules = 600;
    gt_totals totals = {.struct_size = sizeof totals, .wall_seconds = 10};
    gt_gpu_run g = {.struct_size = sizeof g, .accounting_available = 1,
                    .accounting_processes = 3, .accounting_unseen = 1,
                    .accounting_unattributed = 1, .accounting_main_peak = 3.0 * 1073741824,
                    .accounting_descendants_peak = 512.0 * 1048576, .throttle_available = 1,
                    .ecc_available = 1, .ecc_uncorrected = 2, .xid_available = 1,
                    .xid_events = 1, .xid_last = 79, .xid_last_gpu = 1,
                    .job_energy_available = 1, .job_energy_share = 0.5,
                    .job_energy_joules = 300};
    g.throttle_share[GPU_THROTTLE_IDLE] = 0.9; /* not a slowdown: not shown */
    g.throttle_share[GPU_THROTTLE_SW_POWER_CAP] = 0.3;
    g.throttle_share[GPU_THROTTLE_HW_THERMAL] = 0.05;
    struct human_extras x = {.gpu_run = &g};
    char *text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "GPU accounting  3 GPU processes in the driver's records (main 3.00 GiB, "
                         "largest descendant 512 MiB); 1 ended between samples, seen only "
                         "there; 1 ended unseen on a GPU others used too, not counted\n");
    CHECK_CONTAINS(text, "GPU slowed      sw_power_cap 30%, hw_thermal 5% of the run\n");
    CHECK_CONTAINS(text, "GPU errors      ECC corrected 0, uncorrected 2; 1 XID event (the last "
                         "XID 79 on GPU 1)\n");
    CHECK_CONTAINS(text, "GPU energy      600 J on the selected GPUs; the job's share ~50% "
                         "(~300 J, an estimate from SM utilization)\n");
    CHECK(text && !strstr(text, "gpu_idle"));
    free(text);
    /* Accounting off: the reason, since the peaks may miss a process. */
    g.accounting_available = 0;
    snprintf(g.accounting_reason, sizeof g.accounting_reason, "NVML accounting mode is off");
    g.ecc_uncorrected = 0;
    g.xid_events = 0;
    memset(g.throttle_share, 0, sizeof g.throttle_share);
    text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "GPU accounting  peaks sampled only: NVML accounting mode is off\n");
    CHECK(text && !strstr(text, "GPU errors") && !strstr(text, "GPU slowed"));
    free(text);
}

int main(int argc, char **argv)
{
    root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    fx_main_and_child(root);
    snprintf(scenario, sizeof scenario, "%s/scenario", root);
    setenv("FAKE_NVML_SCENARIO", scenario, 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    if (argc > 1 && strcmp(argv[1], "report-chromium") == 0) {
        int rc = report_in_chromium();
        fx_rmroot(root);
        return rc;
    }

    test_pure();
    test_json_read();
    test_human();
    test_accounting();
    test_health();
    test_activity();
    test_call_tiers();
    test_not_supported();
    test_report();
    test_pid_match();
    test_pid_namespace();
    test_mig();
    test_amd();
    fx_rmroot(root);
    return check_exit("test_gpu_depth");
}
