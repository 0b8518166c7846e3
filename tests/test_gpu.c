/* GPU tracking through the real dlopen path, against fake NVML libraries and
 * a fixture /proc tree (main 100 with child 101), so every figure is known:
 * memory per process of the tree, utilization of the selected GPUs, UUID
 * selection, init failure, NOT_SUPPORTED, a driver error mid-run, missing
 * optional symbols, and the process-list buffer that needs a second call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "results_check.h"
#include "common/dl_bind.h"
#include "read/gpu/gpu.h"
#include "test_tracker_new.h"
#include "fixture.h"
#include "threads.h"
#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"
#include "common/summary/usage_write.h"

#define FAKE_NVML WORKLOAD_DIR "/libfake-nvml.so"
#define FAKE_NVML_MINIMAL WORKLOAD_DIR "/libfake-nvml-minimal.so"
#define FAKE_RSMI WORKLOAD_DIR "/libfake-rsmi.so"

static char *root;
static char scenario[4096];
static int warnings;
static char last_warning[512];

static void on_warning(const char *msg, void *data)
{
    (void)data;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* Replaces the scenario whole (a new file renamed over it): the fake
 * re-reads it at every call, and a sampler running meanwhile must never see
 * it half written. */
static void write_scenario(const char *text)
{
    char next[4200];
    snprintf(next, sizeof next, "%s.next", scenario);
    write_file(next, text);
    if (rename(next, scenario) != 0)
        perror("rename scenario");
}

/* Two GPUs; main (100) uses both, its child (101) one, pid 999 is not ours. */
static const char two_gpus[] =
    "device GPU-aaaa Fake-A100 16000000000 3000000000 50\n"
    "device GPU-bbbb Fake-T4 8000000000 1000000000 30\n"
    "process 0 100 2000000000\n"
    "process 1 100 500000000 graphics\n"
    "process 0 101 1000000000\n"
    "process 1 999 250000000\n";

static gt_options options(const char *uuids)
{
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = root;
    o.process_id = 100;
    o.sleep_time = 1000; /* the baseline and the final sample only */
    o.resource_usage_file = "";
    o.gpu_uuids = uuids;
    o.on_warning = on_warning;
    /* Every figure the fake library has (test_call_tiers checks a run
     * without: only the summary's calls). */
    o.gpu_details = 1;
    return o;
}

/* Runs a tracker over start/stop and returns a copy of its results. */
static gt_status track(const gt_options *o, gt_resource_usage *u)
{
    gt_tracker *t;
    gt_status st = test_tracker_new(o, &t);
    if (st != GT_OK)
        return st;
    warnings = 0;
    gt_tracker_start(t);
    gt_tracker_stop(t);
    *u = *gt_tracker_usage(t);
    /* The GPU list is the tracker's: kept here, for checks after it goes. */
    static gt_gpu_device kept[GT_MAX_GPUS];
    CHECK(u->gpu_details.ndevices <= GT_MAX_GPUS);
    if (u->gpu_details.ndevices > 0)
        memcpy(kept, u->gpu_details.devices, (size_t)u->gpu_details.ndevices * sizeof *kept);
    u->gpu_details.devices = kept;
    gt_tracker_free(t);
    return GT_OK;
}

static void test_two_gpus(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    write_scenario(two_gpus);
    gt_options o = options(NULL);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(track(&o, &u) == GT_OK);
    CHECK(warnings == 0); /* GPUs found: no warning */
    CHECK(u.measurement.gpu_available == 1);
    CHECK_STR(u.measurement.gpu_reason, "");
    CHECK_STR(u.max_gpu_ram.unit, "gigabytes");
    CHECK(u.max_gpu_ram.system_capacity == 24.0);
    CHECK(u.max_gpu_ram.system == 4.0);
    CHECK(u.max_gpu_ram.main == 2.5);        /* compute on one GPU + graphics on the other */
    CHECK(u.max_gpu_ram.descendants == 1.0);
    CHECK(u.max_gpu_ram.combined == 3.5);    /* pid 999 is not in the tree */
    CHECK(u.gpu_utilization.system_gpu_count == 2);
    CHECK(u.gpu_utilization.n_expected_gpus == 2);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 80.0);
    CHECK(u.gpu_utilization.gpu_percentages.max_hardware_percent == 40.0);
    CHECK(u.gpu_utilization.gpu_percentages.mean_sum_percent == 80.0);
    CHECK(u.gpu_utilization.gpu_percentages.mean_hardware_percent == 40.0);

    /* Units: bytes from the driver, decimal units like RAM. */
    o.gpu_ram_unit = "megabytes";
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.max_gpu_ram.main == 2500.0);
    CHECK_STR(u.max_gpu_ram.unit, "megabytes");
}

static void test_uuid_selection(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    write_scenario(two_gpus);
    gt_options o = options("GPU-bbbb");
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.gpu_utilization.system_gpu_count == 2);
    CHECK(u.gpu_utilization.n_expected_gpus == 1);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 30.0);
    CHECK(u.gpu_utilization.gpu_percentages.max_hardware_percent == 30.0);
    CHECK(u.max_gpu_ram.system_capacity == 24.0); /* memory: all GPUs */
    o = options(" GPU-aaaa , GPU-bbbb ");
    CHECK(track(&o, &u) == GT_OK && u.gpu_utilization.n_expected_gpus == 2);

    gt_tracker *t;
    o = options("GPU-aaaa,GPU-zzzz");
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT && t == NULL);
    CHECK_STR(gt_last_error(), "unknown GPU UUID 'GPU-zzzz'; available GPUs: GPU-aaaa, GPU-bbbb");
    o = options(" , ");
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "no GPU UUID given; available GPUs: GPU-aaaa, GPU-bbbb");

    /* Without any GPU, naming one is an error too. */
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    o = options("GPU-aaaa");
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "unknown GPU UUID 'GPU-aaaa'; available GPUs: none");
}

static void test_unavailable(void)
{
    gt_options o = options(NULL);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};

    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK(track(&o, &u) == GT_OK);
    /* No library at all: a machine without GPUs, nothing to warn of (the
     * summary says why there are no GPU figures). */
    CHECK(warnings == 0);
    CHECK_STR(u.measurement.gpu_reason, "no GPU library found (tried "
              "/nonexistent/libnvidia-ml.so.1, /nonexistent/librocm_smi64.so)");
    CHECK(u.measurement.gpu_available == 0);
    /* A brand asked for and not there: worth a warning. */
    o.gpu_brand = "nvidia";
    CHECK(track(&o, &u) == GT_OK);
    CHECK(warnings == 1);
    CHECK_STR(last_warning, "no GPU library found (tried /nonexistent/libnvidia-ml.so.1): GPU "
                            "RAM and GPU utilization are reported as 0");
    o.gpu_brand = NULL;
    CHECK(u.gpu_utilization.system_gpu_count == 0 && u.max_gpu_ram.system_capacity == 0.0);

    /* The library is there but its driver is not (NVML_ERROR_DRIVER_NOT_LOADED). */
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    write_scenario("init 9\ndevice GPU-aaaa A 1000 0 0\n");
    CHECK(track(&o, &u) == GT_OK);
    CHECK_STR(u.measurement.gpu_reason, "NVML could not start: fake NVML error 9");
    CHECK(warnings == 1 && u.gpu_utilization.system_gpu_count == 0);

    write_scenario("# no device\n");
    CHECK(track(&o, &u) == GT_OK);
    CHECK_CONTAINS(u.measurement.gpu_reason, "libfake-nvml.so found no GPU");

    o.gpu_brand = "amd";
    write_scenario(two_gpus);
    CHECK(track(&o, &u) == GT_OK);
    CHECK_STR(u.measurement.gpu_reason, "no GPU library found (tried /nonexistent/librocm_smi64.so)");
}

static char rsmi_scenario[4096];

static void write_rsmi(const char *text)
{
    write_file(rsmi_scenario, text);
}

static const char two_amd[] =
    "device 1111 Fake-MI300 192000000000 5000000000 40\n"
    "device 2222 Fake-MI250 64000000000 1000000000 20\n"
    "process 100 3000000000\n"
    "process 101 1000000000\n"
    "process 999 500000000\n"
    "energy 0 1000 1.0\n"
    "energy 1 1000 1.0\n";

static void test_amd(void)
{
    snprintf(rsmi_scenario, sizeof rsmi_scenario, "%s/rsmi-scenario", root);
    setenv("FAKE_RSMI_SCENARIO", rsmi_scenario, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", FAKE_RSMI, 1);
    write_rsmi(two_amd);
    gt_options o = options(NULL);
    o.gpu_brand = "amd";
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(track(&o, &u) == GT_OK);
    CHECK(warnings == 0 && u.measurement.gpu_available == 1);
    CHECK(u.max_gpu_ram.system_capacity == 256.0);
    CHECK(u.max_gpu_ram.system == 6.0);
    CHECK(u.max_gpu_ram.main == 3.0 && u.max_gpu_ram.descendants == 1.0);
    CHECK(u.max_gpu_ram.combined == 4.0);
    CHECK(u.gpu_utilization.system_gpu_count == 2 && u.gpu_utilization.n_expected_gpus == 2);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 60.0);
    CHECK(u.gpu_utilization.gpu_percentages.max_hardware_percent == 30.0);
    CHECK_STR(u.gpu_details.devices[0].uuid, "0000000000001111");
    CHECK_STR(u.gpu_details.devices[1].name, "Fake-MI250");
    CHECK(!u.gpu_details.process_utilization_available);
    CHECK_STR(u.gpu_details.process_utilization_reason,
              "ROCm SMI reports compute-unit occupancy, not utilization, per process");
    CHECK(u.gpu_details.energy_available && u.gpu_details.energy_joules == 0.0);

    /* Auto-detection: no NVML, or an NVML whose driver is not there. */
    o.gpu_brand = NULL;
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK(track(&o, &u) == GT_OK && u.max_gpu_ram.main == 3.0);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    write_scenario("init 9\n");
    CHECK(track(&o, &u) == GT_OK && u.max_gpu_ram.main == 3.0);
    CHECK_STR(u.gpu_details.devices[0].name, "Fake-MI300");
    /* Both vendors work: every GPU, as one list, NVIDIA's first. */
    write_scenario(two_gpus);
    CHECK(track(&o, &u) == GT_OK);
    CHECK(warnings == 0 && u.measurement.gpu_available == 1);
    CHECK(u.gpu_details.ndevices == 4);
    CHECK_STR(u.gpu_details.devices[0].name, "Fake-A100");
    CHECK_STR(u.gpu_details.devices[1].name, "Fake-T4");
    CHECK_STR(u.gpu_details.devices[2].name, "Fake-MI300");
    CHECK_STR(u.gpu_details.devices[3].uuid, "0000000000002222");
    CHECK(u.gpu_utilization.system_gpu_count == 4 && u.gpu_utilization.n_expected_gpus == 4);
    CHECK(u.max_gpu_ram.system_capacity == 24.0 + 256.0);
    CHECK(u.max_gpu_ram.system == 4.0 + 6.0);
    /* The same PIDs hold memory on both vendors' cards: added up. */
    CHECK(u.max_gpu_ram.main == 2.5 + 3.0 && u.max_gpu_ram.descendants == 1.0 + 1.0);
    CHECK(u.max_gpu_ram.combined == 7.5);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 80.0 + 60.0);
    CHECK(u.gpu_utilization.gpu_percentages.max_hardware_percent == 35.0);
    /* A figure one vendor lacks is missing for the whole, and says whose. */
    CHECK(!u.gpu_details.process_utilization_available);
    CHECK_STR(u.gpu_details.process_utilization_reason,
              "amd: ROCm SMI reports compute-unit occupancy, not utilization, per process");
    CHECK(u.gpu_details.process_memory_available);
    /* --gb still picks one vendor; UUIDs select across vendors. */
    o.gpu_brand = "nvidia";
    CHECK(track(&o, &u) == GT_OK && u.gpu_details.ndevices == 2);
    o = options("GPU-bbbb,0000000000001111");
    CHECK(track(&o, &u) == GT_OK && u.gpu_details.ndevices == 4);
    CHECK(u.gpu_utilization.n_expected_gpus == 2);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 30.0 + 40.0);
    CHECK(u.gpu_details.devices[1].selected && u.gpu_details.devices[2].selected &&
          !u.gpu_details.devices[0].selected && !u.gpu_details.devices[3].selected);
    o = options(NULL);

    /* UUIDs select GPUs as with NVIDIA. */
    o = options("0000000000002222");
    o.gpu_brand = "amd";
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.gpu_utilization.n_expected_gpus == 1);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 20.0);
    gt_tracker *t;
    o = options("1111");
    o.gpu_brand = "amd";
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "unknown GPU UUID '1111'; available GPUs: 0000000000001111, "
                               "0000000000002222");

    /* Energy over the run, NOT_SUPPORTED busy percent, a long process list. */
    o = options(NULL);
    o.gpu_brand = "amd";
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    char *text = malloc(64 * 1024);
    int n = snprintf(text, 64 * 1024, "device 1111 A 100000000000 0 40\n"
                                      "device 2222 B 100000000000 0 20\n"
                                      "energy 0 250500 2.0\nenergy 1 1000 1.0\n"
                                      "fail rsmi_dev_busy_percent_get 2\nprocess 100 9000000000\n");
    for (int pid = 2000; pid < 2300; pid++)
        n += snprintf(text + n, 64 * 1024 - (size_t)n, "process %d 1000\n", pid);
    write_rsmi(text);
    free(text);
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *r = gt_tracker_usage(t);
    CHECK(r && r->gpu_details.energy_joules == 0.5); /* (250500 x 2 - 1000 x 1) uJ */
    CHECK(r && r->gpu_utilization.gpu_percentages.max_sum_percent == 0.0);
    CHECK(r && r->max_gpu_ram.main == 9.0);
    gt_tracker_free(t);

    /* The process list grows between ROCm SMI's count and its fill in the
     * final sample (fill 2: the baseline's is fill 1): the short fill is
     * thrown away and the list counted again. */
    write_rsmi("device 1111 A 100000000000 0 0\ndevice 2222 B 100000000000 0 0\n"
               "process 100 4000000000\nprocess 101 2000000000\ngrows 40 2\n");
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.measurement.gpu_available == 1);
    CHECK(u.max_gpu_ram.main == 4.0 && u.max_gpu_ram.descendants == 2.0);

    /* ROCm SMI that cannot start. */
    write_rsmi("init 8\ndevice 1111 A 1000 0 0\n");
    CHECK(track(&o, &u) == GT_OK);
    CHECK_STR(u.measurement.gpu_reason, "ROCm SMI could not start: fake ROCm SMI error 8");
    unsetenv("GPU_TRACKER_RSMI_LIBRARY");
}

/* The exporter's GPU metrics, from the driver through the pipeline to the
 * textfile: each device's memory and utilization, labelled with its UUID
 * and name, and the tree's GPU memory. */
static void test_exported_gpus(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    write_scenario(two_gpus);
    gt_options o = options(NULL);
    o.sleep_time = 0.05;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/textfile", root);
    mkdir(dir, 0700);
    o.metrics_textfile_dir = dir;
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return;
    CHECK(gt_tracker_start(t) == GT_OK);
    char path[4300];
    snprintf(path, sizeof path, "%s/gpu-tracker-100.prom", dir);
    /* The tree's GPU memory comes with the first sample after the
     * baseline, in the textfile a second later at most (600 tries: only a
     * guard against hanging). */
    char text[65536] = "";
    for (int tries = 0; tries < 600 && !strstr(text, "gpu_process_memory_bytes{"); tries++) {
        if (tries)
            usleep(50000);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = '\0';
        if (f)
            fclose(f);
    }
    const char *want[] = {
        ",gpu=\"0\",uuid=\"GPU-aaaa\",name=\"Fake-A100\"} 3000000000\n",
        ",gpu=\"1\",uuid=\"GPU-bbbb\",name=\"Fake-T4\"} 1000000000\n",
        ",gpu=\"0\",uuid=\"GPU-aaaa\",name=\"Fake-A100\"} 16000000000\n",
        ",gpu=\"0\",uuid=\"GPU-aaaa\",name=\"Fake-A100\"} 0.5\n",
        ",gpu=\"1\",uuid=\"GPU-bbbb\",name=\"Fake-T4\"} 0.3\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_CONTAINS(text, want[i]);
    CHECK_CONTAINS(text, "gpu_tracker_gpu_memory_used_bytes{");
    CHECK_CONTAINS(text, "gpu_tracker_gpu_utilization_ratio{");
    /* main's 2.5 GB and its child's 1 GB; pid 999 is not ours */
    CHECK_CONTAINS(text, "gpu_tracker_gpu_process_memory_bytes{");
    CHECK_CONTAINS(text, "} 3500000000\n");
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_tracker_free(t);
}

/* The library reads no environment variable: GPU_TRACKER_NVML_LIBRARY is
 * the command's (and test_tracker_new's) to map; gt_tracker_new() itself
 * goes by options.nvml_library alone. */
static void test_library_ignores_environment(void)
{
    write_scenario(two_gpus);
    gt_options o = options(NULL);
    o.proc_root = root;
    gt_tracker *t = NULL;
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    o.rsmi_library = "/nonexistent/librocm_smi64.so";
    CHECK(gt_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.ndevices == 0 && !u->measurement.gpu_available);
    CHECK_CONTAINS(u ? u->measurement.gpu_reason : "", "/nonexistent/libnvidia-ml.so.1");
    gt_tracker_free(t);

    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    o.nvml_library = FAKE_NVML;
    CHECK(gt_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.ndevices == 2 && u->max_gpu_ram.main == 2.5);
    gt_tracker_free(t);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
}

/* More GPUs than the tracker lists: the first 64, and a warning with the
 * count; an AMD library found beside a full list only adds to the count. */
static void test_many_gpus(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char *text = malloc(16 * 1024);
    int n = 0;
    for (int i = 0; i < 70; i++)
        n += snprintf(text + n, 16 * 1024 - (size_t)n,
                      "device GPU-%04d Fake-H100 80000000000 1000000000 10\n", i);
    write_scenario(text);
    free(text);
    gt_options o = options(NULL);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(track(&o, &u) == GT_OK);
    CHECK(warnings == 1);
    CHECK_STR(last_warning, "70 GPUs found: only the first 64 are tracked");
    CHECK(u.gpu_details.ndevices == GT_MAX_GPUS && GT_MAX_GPUS == 64);
    CHECK_STR(u.gpu_details.devices[63].uuid, "GPU-0063");
    CHECK(u.gpu_utilization.system_gpu_count == 64);
    CHECK(u.max_gpu_ram.system == 64.0);

    setenv("GPU_TRACKER_RSMI_LIBRARY", FAKE_RSMI, 1);
    write_rsmi(two_amd);
    CHECK(track(&o, &u) == GT_OK);
    CHECK_STR(last_warning, "72 GPUs found: only the first 64 are tracked");
    CHECK(u.gpu_details.ndevices == 64);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    write_scenario(two_gpus);
}

/* Which opens load a vendor's library (run in a thread of their own, to
 * be given up on if the driver hangs) and which read only the kernel's
 * files (run inline: nothing to wait for): a library named is loaded; the
 * system's only where its driver's device file is there. */
static void test_which_opens_load_a_library(void)
{
    struct gpu_config named = {.nvml_library = FAKE_NVML};
    CHECK(gpu_open_loads_library(&named) == 1);
    struct gpu_config amd_named = {.brand = "nvidia", .rsmi_library = FAKE_NVML};
    int nvidia_driver = access("/dev/nvidiactl", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
    int amd_driver = access("/dev/kfd", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
    /* --gb nvidia: the AMD library named is not for this run */
    CHECK(gpu_open_loads_library(&amd_named) == nvidia_driver);
    struct gpu_config system = {0};
    CHECK(gpu_open_loads_library(&system) == (nvidia_driver || amd_driver));
    struct gpu_config drm_only = {.brand = "intel"};
    CHECK(gpu_open_loads_library(&drm_only) == 0);
}

/* The symbol binder the backends share: names tried in order, a missing
 * one NULL, the required ones that are missing counted and the first named. */
static void test_dl_bind(void)
{
    void *lib = dlopen(FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    if (!lib)
        return;
    struct table {
        void *init, *optional, *required_gone, *second_gone;
    } t;
    memset(&t, 0xff, sizeof t);
    const struct dl_symbol syms[] = {
        {offsetof(struct table, init), DL_NAMES("nvmlInit_v9", "nvmlInit_v2", "nvmlInit"), 1},
        {offsetof(struct table, optional), DL_NAMES("nvmlNoSuchCall"), 0},
        {offsetof(struct table, required_gone), DL_NAMES("nvmlGone", "nvmlGoneToo"), 1},
        {offsetof(struct table, second_gone), DL_NAMES("nvmlAlsoGone"), 1},
        {0, NULL, 0},
    };
    const char *first = NULL;
    CHECK(dl_bind(lib, syms, &t, &first) == 2);
    CHECK(t.init == dlsym(lib, "nvmlInit_v2")); /* the first name exported wins */
    CHECK(t.optional == NULL && t.required_gone == NULL && t.second_gone == NULL);
    CHECK_STR(first, "nvmlGone");
    CHECK(dl_bind(lib, syms + 1, &t, NULL) == 2); /* no name asked for: fine */
    dlclose(lib);
}

static void test_driver_quirks(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    gt_options o = options(NULL);
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};

    /* NOT_SUPPORTED (3) for utilization and compute processes: those are 0,
     * graphics processes still count. */
    char text[1024];
    snprintf(text, sizeof text, "%sfail nvmlDeviceGetUtilizationRates 3\n"
                                "fail nvmlDeviceGetComputeRunningProcesses_v3 3\n", two_gpus);
    write_scenario(text);
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.measurement.gpu_available == 1);
    CHECK(u.gpu_utilization.gpu_percentages.max_sum_percent == 0.0);
    CHECK(u.max_gpu_ram.main == 0.5 && u.max_gpu_ram.descendants == 0.0);

    /* An old or stripped library without the optional functions. */
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML_MINIMAL, 1);
    write_scenario(two_gpus);
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.measurement.gpu_available == 1);
    CHECK(u.max_gpu_ram.system_capacity == 24.0 && u.max_gpu_ram.system == 4.0);
    CHECK(u.max_gpu_ram.main == 0.0 && u.gpu_utilization.gpu_percentages.max_sum_percent == 0.0);

    /* Many processes: the list takes a second call with a bigger buffer. */
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char *many = malloc(64 * 1024);
    int n = snprintf(many, 64 * 1024, "device GPU-aaaa A 100000000000 0 0\n");
    for (int pid = 1000; pid < 1200; pid++)
        n += snprintf(many + n, 64 * 1024 - (size_t)n, "process 0 %d 1000\n", pid);
    n += snprintf(many + n, 64 * 1024 - (size_t)n, "process 0 100 7000000000\n");
    write_scenario(many);
    free(many);
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.max_gpu_ram.main == 7.0);

    /* The GPU is lost mid-run (NVML_ERROR_GPU_IS_LOST): one warning, the
     * rest of the tracking goes on. */
    write_scenario(two_gpus);
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    snprintf(text, sizeof text, "%sfail nvmlDeviceGetMemoryInfo 15\n", two_gpus);
    write_scenario(text);
    warnings = 0;
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(warnings == 1);
    CHECK_STR(last_warning, "GPU figures stop here: NVML cannot read GPU 0 memory: fake NVML "
                            "error 15");
    const gt_resource_usage *r = gt_tracker_usage(t);
    CHECK(r && r->max_ram.main.total_rss > 0);
    gt_tracker_free(t);
}

static void test_details(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char text[2048];
    snprintf(text, sizeof text, "%sprocutil 0 100 60\nprocutil 1 100 10\nprocutil 0 101 25\n"
                                "procutil 1 999 90\nenergy 0 1000000\nenergy 1 500000\n",
             two_gpus);
    write_scenario(text);
    gt_options o = options(NULL);
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    /* The run uses 600 J on one GPU and 0.5 J on the other. */
    snprintf(text, sizeof text, "%sprocutil 0 100 60\nprocutil 1 100 10\nprocutil 0 101 25\n"
                                "procutil 1 999 90\nenergy 0 1600000\nenergy 1 500500\n",
             two_gpus);
    write_scenario(text);
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u != NULL);
    if (u) {
        const gt_gpu_details *d = &u->gpu_details;
        CHECK(d->ndevices == 2);
        CHECK_STR(d->devices[0].uuid, "GPU-aaaa");
        CHECK_STR(d->devices[1].name, "Fake-T4");
        CHECK(d->devices[0].memory_total == 16.0 && d->devices[1].selected == 1);
        CHECK(d->process_memory_available == 1);
        CHECK(d->process_utilization_available == 1);
        CHECK(d->main.max_sum_percent == 70.0);       /* 60 + 10 on two GPUs */
        CHECK(d->main.max_hardware_percent == 35.0);  /* over 2 expected GPUs */
        CHECK(d->descendants.max_sum_percent == 25.0);
        CHECK(d->combined.max_sum_percent == 95.0);   /* pid 999 is not ours */
        CHECK(d->energy_available == 1);
        CHECK(d->energy_joules == 600.5);
    }
    char *json = gt_tracker_to_json(t);
    CHECK_CONTAINS(json, "\"gpu_details\": {");
    CHECK_CONTAINS(json, "\"name\": \"Fake-A100\"");
    CHECK_CONTAINS(json, "\"joules\": 600.5");
    check_results_read_back(t);
    gt_resource_usage back = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(gt_usage_from_json(json, &back) == GT_OK);
    /* The same GPUs, in a list of the reader's own. */
    CHECK(u && back.gpu_details.ndevices == u->gpu_details.ndevices &&
          back.gpu_details.devices != u->gpu_details.devices &&
          memcmp(back.gpu_details.devices, u->gpu_details.devices,
                 (size_t)u->gpu_details.ndevices * sizeof *u->gpu_details.devices) == 0);
    gt_usage_release(&back);
    CHECK(back.gpu_details.devices == NULL && back.gpu_details.ndevices == 0);
    back.gpu_details.devices = u->gpu_details.devices;
    back.gpu_details.ndevices = u->gpu_details.ndevices;
    CHECK(u && memcmp(&back.gpu_details, &u->gpu_details, sizeof back.gpu_details) == 0);
    free(json);
    gt_tracker_free(t);

    /* Where the driver cannot say, each figure says why. */
    gt_resource_usage r = {.struct_size = sizeof(gt_resource_usage)};
    snprintf(text, sizeof text, "%sfail nvmlDeviceGetProcessUtilization 3\n"
                                "fail nvmlDeviceGetTotalEnergyConsumption 3\n"
                                "process 0 100 18446744073709551615\n", two_gpus);
    write_scenario(text);
    CHECK(track(&o, &r) == GT_OK);
    CHECK(!r.gpu_details.process_utilization_available);
    CHECK_STR(r.gpu_details.process_utilization_reason,
              "the driver does not report per-process GPU utilization: fake NVML error 3");
    CHECK(!r.gpu_details.energy_available);
    CHECK_STR(r.gpu_details.energy_reason, "GPU 0 does not report its energy: fake NVML error 3");
    CHECK(!r.gpu_details.process_memory_available); /* MIG: a size NVML does not know */
    CHECK_CONTAINS(r.gpu_details.process_memory_reason, "(MIG, or no permission)");
    json = usage_to_json(&r);
    CHECK_CONTAINS(json, "\"energy\": {\n      \"available\": false,\n      \"reason\": \"GPU 0");
    free(json);

    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML_MINIMAL, 1);
    write_scenario(two_gpus);
    CHECK(track(&o, &r) == GT_OK);
    CHECK_STR(r.gpu_details.process_utilization_reason,
              "the NVML library has no nvmlDeviceGetProcessUtilization");
    CHECK_STR(r.gpu_details.process_memory_reason, "the NVML library cannot list GPU processes");
    CHECK_STR(r.gpu_details.energy_reason,
              "the NVML library has no nvmlDeviceGetTotalEnergyConsumption");

    /* No GPU at all: every extra is unavailable for that reason. */
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    CHECK(track(&o, &r) == GT_OK);
    CHECK(r.gpu_details.ndevices == 0 && !r.gpu_details.energy_available);
    CHECK_STR(r.gpu_details.energy_reason, r.measurement.gpu_reason);
}

/* A driver that hangs in nvmlInit: creating the tracker gives up after
 * stop_timeout and tracks without GPUs (or, with --guuids to check, fails);
 * the stuck thread cleans up after itself once the call returns. */
static void test_init_hang(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char fifo[4096], text[8192];
    snprintf(fifo, sizeof fifo, "%s/hang", root);
    snprintf(text, sizeof text, "block nvmlInit_v2 %s\n%s", fifo, two_gpus);
    write_scenario(text);
    for (int with_uuids = 0; with_uuids < 2; with_uuids++) {
        CHECK(mkfifo(fifo, 0644) == 0);
        gt_options o = options(with_uuids ? "GPU-aaaa" : NULL);
        o.stop_timeout = 0.3;
        gt_tracker *t;
        gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
        if (with_uuids) {
            CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
            CHECK_STR(gt_last_error(), "cannot check the GPU UUIDs: the GPU library did not "
                                       "answer within 0.3 s");
        } else {
            CHECK(track(&o, &u) == GT_OK);
            CHECK(warnings == 1);
            CHECK_STR(u.measurement.gpu_reason, "the GPU library did not answer within 0.3 s");
            CHECK(u.max_ram.main.total_rss > 0); /* the rest was tracked */
        }
        /* Let the stuck call return: the opener frees itself and ends. */
        int w = open(fifo, O_WRONLY);
        CHECK(w >= 0);
        if (w >= 0)
            close(w);
        CHECK(wait_library_threads_gone() == 0);
        unlink(fifo);
    }
}

/* One row of each series, from a tracker whose duration is one interval. */
static void series_rows(const gt_options *base, gt_process_row *p, gt_system_row *sy)
{
    gt_options o = *base;
    o.sleep_time = 0.05;
    o.duration = 0.05;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    memset(p, 0, sizeof *p);
    memset(sy, 0, sizeof *sy);
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return;
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_wait(t, 30) == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    gt_series s = {.struct_size = sizeof(gt_series)};
    CHECK(gt_tracker_series(t, &s) == GT_OK);
    CHECK(s.nprocess == 1 && s.nsystem == 1);
    if (s.nprocess == 1 && s.nsystem == 1) {
        *p = s.process[0];
        *sy = s.system[0];
    }
    gt_tracker_free(t);
}

/* The series' GPU columns: the tree's SM utilization (in GPUs), its memory
 * (MiB) and the GPUs it keeps busy; the system's over every GPU. */
static void test_series_gpu(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char text[2048];
    snprintf(text, sizeof text, "%sprocutil 0 100 40\nprocutil 0 101 10\nprocutil 1 999 30\n",
             two_gpus);
    write_scenario(text);
    gt_options o = options("GPU-bbbb"); /* the selection does not limit the series */
    gt_process_row p;
    gt_system_row sy;
    series_rows(&o, &p, &sy);
    CHECK_MSG(p.gpu_usage == 0.5, "process gpu_usage %g", p.gpu_usage);
    CHECK_MSG(p.gpu_vram == 3337.8601, "process gpu_vram %.6f", p.gpu_vram); /* 3.5e9 B */
    CHECK(p.gpu_utilized == 1); /* busy on GPU 0 only; memory alone on GPU 1 is not busy */
    CHECK(sy.gpu_usage == 0.8 && sy.gpu_utilized == 2);
    CHECK_MSG(sy.gpu_vram == 3814.6973, "system gpu_vram %.6f", sy.gpu_vram); /* 4e9 B */

    /* No per-process utilization: the utilization of the GPUs where the
     * tree holds memory (both, here). */
    snprintf(text, sizeof text, "%sfail nvmlDeviceGetProcessUtilization 3\n", two_gpus);
    write_scenario(text);
    series_rows(&o, &p, &sy);
    CHECK_MSG(p.gpu_usage == 0.8 && p.gpu_utilized == 2, "%g on %d", p.gpu_usage, p.gpu_utilized);
    /* Only on GPU 1 (30 %); GPU 0 is busy with others' work. */
    write_scenario("device GPU-aaaa Fake-A100 16000000000 3000000000 50\n"
                   "device GPU-bbbb Fake-T4 8000000000 1000000000 30\n"
                   "process 1 101 1048576\n"
                   "fail nvmlDeviceGetProcessUtilization 3\n");
    series_rows(&o, &p, &sy);
    CHECK(p.gpu_usage == 0.3 && p.gpu_utilized == 1 && p.gpu_vram == 1.0);
    CHECK(sy.gpu_usage == 0.8 && sy.gpu_utilized == 2);

    /* AMD: the process list does not say which GPU: every GPU's counts. */
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", FAKE_RSMI, 1);
    write_rsmi(two_amd);
    o = options(NULL);
    o.gpu_brand = "amd";
    series_rows(&o, &p, &sy);
    CHECK(p.gpu_usage == 0.6 && p.gpu_utilized == 2);
    CHECK_MSG(p.gpu_vram == 3814.6973, "AMD process gpu_vram %.6f", p.gpu_vram); /* 4e9 B */
    CHECK(sy.gpu_usage == 0.6 && sy.gpu_utilized == 2);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);

    /* No GPU: zeros. */
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    o = options(NULL);
    series_rows(&o, &p, &sy);
    CHECK(p.gpu_usage == 0 && p.gpu_vram == 0 && p.gpu_utilized == 0);
    CHECK(sy.gpu_usage == 0 && sy.gpu_vram == 0 && sy.gpu_utilized == 0);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
}

/* gt_counters_read(): one reading, now, through a tracker's readers: the
 * tree's cumulative CPU (with reaped children's), PSS and I/O, the GPUs it
 * keeps busy, and the system's counters: a disk's sectors as bytes, each
 * counted filesystem on its own. */
static void test_counters_now(void)
{
    char *at = fx_mkroot();
    char proc[4200], sys[4200];
    fx_proc_sys(at, proc, sys, sizeof proc);
    fx_system(proc, 300, 700, 2, 8000000, 6000000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .utime = 250, .stime = 50, .cutime = 20,
                        .cstime = 5, .rss_kb = 700, .anon_kb = 700, .private_kb = 700,
                        .pss_kb = 700, .starttime = 5, .children = "101", .read_bytes = 4096,
                        .write_bytes = 8192};
    struct fx_proc c = {.pid = 101, .ppid = 100, .utime = 30, .rss_kb = 300, .anon_kb = 300,
                        .private_kb = 300, .pss_kb = 300, .starttime = 6, .read_bytes = 100};
    fx_proc_write(proc, &m);
    fx_proc_write(proc, &c);
    fx_mkdirs(sys, "block/sda");
    fx_write(proc, "diskstats", "   8       0 sda 10 0 200 0 5 0 100 0 0 0 0 0 0 0 0\n"
                                "   8       1 sda1 10 0 200 0 5 0 100 0 0 0 0 0 0 0 0\n");
    fx_mkdirs(at, "mnt");
    char mi[8400];
    snprintf(mi, sizeof mi, "22 1 8:1 / %s/mnt rw - ext4 /dev/sda1 rw\n", at);
    fx_mkdirs(proc, "self");
    fx_write(proc, "self/mountinfo", mi);
    char text[2048];
    snprintf(text, sizeof text, "%sprocutil 0 100 40\nprocutil 0 101 10\nprocutil 1 999 30\n",
             two_gpus);
    write_scenario(text);

    gt_options o;
    gt_options_init(&o);
    o.process_id = 100;
    o.nvml_library = FAKE_NVML;
    o.rsmi_library = "/nonexistent/librocm_smi64.so";
    o.proc_root = proc;
    o.sys_root = sys;
    gt_counters *k = NULL;
    CHECK(gt_counters_read(&o, &k) == GT_OK && k);
    if (k) {
        double tck = (double)sysconf(_SC_CLK_TCK);
        CHECK(k->pid == 100 && k->children == 1 && k->timestamp > 1e9);
        CHECK_MSG(k->user_seconds == (250 + 20 + 30) / tck, "user %g", k->user_seconds);
        CHECK(k->system_seconds == (50 + 5) / tck);
        CHECK(k->pss_bytes == (700 + 300) * 1024ULL);
        CHECK(k->read_bytes == 4196 && k->write_bytes == 8192);
        CHECK_MSG(k->gpu_usage == 0.5, "gpu_usage %g", k->gpu_usage);
        CHECK(k->gpu_vram_mib == 3.5e9 / (1024.0 * 1024.0));
        CHECK(k->gpu_utilized == 1 && k->gpu_utilized_devices == 1);
        CHECK(k->system_gpu_usage == 0.8 && k->system_gpu_utilized == 2);
        CHECK(k->system_gpu_vram_mib == 4e9 / (1024.0 * 1024.0));
        CHECK_STR(k->gpu_reason, "");
        CHECK(k->system_ok && k->system_user_seconds == 300 / tck && k->system_system_seconds == 0);
        CHECK(k->mem_total_kb == 8000000 && k->mem_available_kb == 6000000 && k->mem_free_kb == 1000);
        CHECK(k->processes == 2); /* 100 and 101; not self */
        CHECK_MSG(k->ndisks == 1, "%zu disks", k->ndisks);
        if (k->ndisks == 1) {
            CHECK_STR(k->disks[0].name, "sda");
            CHECK(k->disks[0].read_bytes == 200 * 512 && k->disks[0].write_bytes == 100 * 512);
        }
        char want[8400];
        snprintf(want, sizeof want, "%s/mnt", at);
        CHECK_MSG(k->nspaces == 1, "%zu filesystems", k->nspaces);
        if (k->nspaces == 1) {
            CHECK_STR(k->spaces[0].mount, want);
            CHECK(k->spaces[0].total_bytes > 0 &&
                  k->spaces[0].used_bytes <= k->spaces[0].total_bytes);
        }
    }
    gt_counters_free(k);

    /* The main process alone: its own CPU, memory and GPU memory. */
    o.main_only = 1;
    CHECK(gt_counters_read(&o, &k) == GT_OK && k);
    if (k) {
        double tck = (double)sysconf(_SC_CLK_TCK);
        CHECK(k->children == 0 && k->user_seconds == 250 / tck && k->pss_bytes == 700 * 1024ULL);
        CHECK(k->gpu_vram_mib == 2.5e9 / (1024.0 * 1024.0));
    }
    gt_counters_free(k);

    /* No GPU library: zeros and the reason; no such process: an error. */
    o.main_only = 0;
    o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
    CHECK(gt_counters_read(&o, &k) == GT_OK && k);
    CHECK(k && k->gpu_usage == 0 && k->gpu_vram_mib == 0 && k->system_gpu_utilized == 0);
    CHECK_CONTAINS(k ? k->gpu_reason : "", "/nonexistent/libnvidia-ml.so.1");
    gt_counters_free(k);
    o.process_id = 4242;
    k = NULL;
    CHECK(gt_counters_read(&o, &k) == GT_ERR_NO_PROCESS && !k);
    CHECK_CONTAINS(gt_last_error(), "4242");
    fx_rmroot(at);
}

/* ROCm SMI without a process list (NOT_SUPPORTED), every GPU's PCI address
 * known: each tracked process's memory from the KFD driver instead, on the
 * GPU its gpu_id names (fixture sysfs); none without a PCI address. */
static void test_amd_kfd(void)
{
    setenv("GPU_TRACKER_RSMI_LIBRARY", FAKE_RSMI, 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    char *sys = fx_mkroot();
    fx_mkdirs(sys, "class/kfd/kfd/topology/nodes/1");
    fx_mkdirs(sys, "class/kfd/kfd/topology/nodes/2");
    fx_mkdirs(sys, "class/kfd/kfd/proc/100");
    fx_mkdirs(sys, "class/kfd/kfd/proc/101");
    fx_write(sys, "class/kfd/kfd/topology/nodes/1/gpu_id", "11\n");
    fx_write(sys, "class/kfd/kfd/topology/nodes/1/properties", "location_id 768\ndomain 0\n");
    fx_write(sys, "class/kfd/kfd/topology/nodes/2/gpu_id", "22\n");
    fx_write(sys, "class/kfd/kfd/topology/nodes/2/properties", "location_id 1024\ndomain 0\n");
    fx_write(sys, "class/kfd/kfd/proc/100/vram_11", "3000000000\n");
    fx_write(sys, "class/kfd/kfd/proc/101/vram_22", "1000000000\n");
    char text[1024];
    snprintf(text, sizeof text, "%spci 0 300\npci 1 400\nfail rsmi_compute_process_info_get 2\n",
             two_amd);
    write_rsmi(text);
    gt_options o = options(NULL);
    o.gpu_brand = "amd";
    test_sources.sys_root = sys;
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(track(&o, &u) == GT_OK);
    CHECK_MSG(u.max_gpu_ram.main == 3.0 && u.max_gpu_ram.descendants == 1.0, "main %g desc %g",
              u.max_gpu_ram.main, u.max_gpu_ram.descendants);
    CHECK(u.gpu_details.process_memory_available);
    /* No PCI address for GPU 1: no per-process utilization, nor KFD's memory */
    snprintf(text, sizeof text, "%spci 0 300\nfail rsmi_compute_process_info_get 2\n", two_amd);
    write_rsmi(text);
    o = options(NULL);
    o.gpu_brand = "amd";
    test_sources.sys_root = sys;
    CHECK(track(&o, &u) == GT_OK);
    CHECK(u.max_gpu_ram.main == 0 && u.max_gpu_ram.descendants == 0);
    fx_rmroot(sys);
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
}

/* Lines of the fake's call log naming fn. */
static int calls_of(const char *log, const char *fn)
{
    FILE *f = fopen(log, "r");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strncmp(line, fn, strlen(fn)) == 0 && line[strlen(fn)] == '\n';
    if (f)
        fclose(f);
    return n;
}

/* The energy counter costs milliseconds a call on real drivers: it is read
 * when the GPUs are opened, at the baseline and at the final sample (where
 * the run's energy comes from, exact), not at the samples between. */
static void test_energy_read_sparingly(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", FAKE_NVML, 1);
    char log[4200];
    snprintf(log, sizeof log, "%s/nvml-calls", root);
    unlink(log);
    setenv("FAKE_NVML_CALLS", log, 1);
    char text[2048];
    snprintf(text, sizeof text, "%senergy 0 1000000\nenergy 1 500000\n", two_gpus);
    write_scenario(text);
    gt_options o = options(NULL);
    o.sleep_time = 0.02;
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    /* Samples come (memory is read at each, for each of 2 GPUs). A
     * deadline, not a timing assertion: 10 samples take 0.2 s. */
    for (int i = 0; i < 3000 && calls_of(log, "nvmlDeviceGetMemoryInfo") < 2 * (2 + 10); i++)
        usleep(10 * 1000);
    snprintf(text, sizeof text, "%senergy 0 3000000\nenergy 1 500000\n", two_gpus);
    write_scenario(text);
    CHECK(gt_tracker_stop(t) == GT_OK);
    int memory = calls_of(log, "nvmlDeviceGetMemoryInfo");
    int energy = calls_of(log, "nvmlDeviceGetTotalEnergyConsumption");
    /* Open (2 GPUs), baseline (2), final (2); a 10 s period would add 2. */
    CHECK_MSG(memory >= 2 * 12 && energy <= 8, "%d memory reads, %d energy reads", memory, energy);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.energy_available && u->gpu_details.energy_joules == 2000.0);
    gt_tracker_free(t);
    unsetenv("FAKE_NVML_CALLS");
}

int main(void)
{
    root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    fx_main_and_child(root);
    snprintf(scenario, sizeof scenario, "%s/scenario", root);
    setenv("FAKE_NVML_SCENARIO", scenario, 1);
    /* No AMD library unless a test names one. */
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);

    test_dl_bind();
    test_which_opens_load_a_library();
    test_two_gpus();
    test_exported_gpus();
    test_library_ignores_environment();
    test_uuid_selection();
    test_unavailable();
    test_driver_quirks();
    test_details();
    test_energy_read_sparingly();
    test_amd();
    test_amd_kfd();
    test_many_gpus();
    test_series_gpu();
    test_counters_now();
    test_init_hang();
    fx_rmroot(root);
    return check_exit("test_gpu");
}
