/* The pure middle of sampling on constructed samples: no /proc, no clock
 * (but for the library threads' own run time, read from the real ones).
 * GPU attribution from a pid -> role table, the library's own
 * threads taken out, the aggregates and the rows of each slot (baseline,
 * periodic, a failed reading, the final sample), the system counters'
 * buffers exchanged; and the sinks: CSV lines and their failure, and when
 * the backup file calls for a rewrite. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/background.h"
#include "gpu_tracker_tools.h"
#include "sink/backup_sink.h"
#include "check.h"
#include "analysis/analysis.h"
#include "output/results.h"
#include "common/buf.h"
#include "sink/csv_sink.h"
#include "sink/tracking_file.h"
#include "common/pid_index.h"
#include "pipeline/pipeline.h"
#include "common/gpu_advice.h"
#include "common/warn.h"

#define MIB (1024ULL * 1024ULL)
#define TCK 100.0

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

/* A tree of main 100 and descendants 101, 102. */
struct roles_fixture {
    struct pid_index index;
    unsigned char role[3];
    struct pid_roles roles;
};

static void roles_make(struct roles_fixture *f)
{
    pid_index_init(&f->index);
    pid_t pids[3] = {100, 101, 102};
    for (size_t i = 0; i < 3; i++) {
        CHECK(pid_index_put(&f->index, pids[i], i) == 0);
        f->role[i] = i == 0 ? 1 : 2;
    }
    f->roles.index = &f->index;
    f->roles.role = f->role;
}

static void test_gpu_attribution(void)
{
    struct roles_fixture f;
    roles_make(&f);
    CHECK(pid_roles_get(&f.roles, 100) == 1);
    CHECK(pid_roles_get(&f.roles, 102) == 2);
    CHECK(pid_roles_get(&f.roles, 999) == 0);
    struct pid_roles empty = {0};
    CHECK(pid_roles_get(&empty, 100) == 0);

    struct gpu_process procs[] = {
        {.pid = 100, .bytes = 1024 * MIB, .sm_percent = 30, .memory_devices = 1, .busy_devices = 1},
        {.pid = 101, .bytes = 512 * MIB, .sm_percent = 0, .memory_devices = 2},
        {.pid = 999, .bytes = 4096 * MIB, .sm_percent = 90, .memory_devices = 4, .busy_devices = 4},
    };
    struct gpu_sample s = {.memory_used = 6000 * MIB, .util_sum_percent = 150, .procs = procs,
                           .nprocs = 3, .energy_ok = 1, .energy_mj = 5000};
    s.device_util[0] = 50;
    s.device_util[1] = 10;
    s.device_util[2] = 90;
    struct gpu_tree_sample gs;
    struct series_gpu proc, sys;
    /* No per-process utilization: the tree's usage is that of the GPUs
     * where it holds memory (0 and 1), not the other user's GPU 2. */
    pipeline_attribute_gpu(&s, 3, &f.roles, &gs, &proc, &sys);
    CHECK(gs.main_bytes == 1024 * MIB && gs.desc_bytes == 512 * MIB);
    CHECK(gs.memory_devices == 3); /* GPUs 0 and 1, not the other user's 2 */
    CHECK(gs.system_used == 6000 * MIB && gs.energy_ok && gs.energy_mj == 5000);
    CHECK(near(proc.vram_mib, 1536) && near(proc.usage, 0.6) && proc.utilized == 2);
    CHECK(near(sys.vram_mib, 6000) && near(sys.usage, 1.5) && sys.utilized == 3);
    /* With per-process SM utilization: the tree's own, on the GPUs it keeps busy. */
    s.proc_util_ok = 1;
    pipeline_attribute_gpu(&s, 3, &f.roles, &gs, &proc, &sys);
    CHECK(near(gs.main_sm, 30) && near(gs.desc_sm, 0));
    CHECK(near(proc.usage, 0.3) && proc.utilized == 1);
    /* The driver names no device: every GPU counts for a tree that holds memory. */
    s.proc_util_ok = 0;
    procs[0].memory_devices = procs[1].memory_devices = 0;
    pipeline_attribute_gpu(&s, 3, &f.roles, &gs, &proc, &sys);
    CHECK(near(proc.usage, 1.5) && proc.utilized == 3);
    /* A device whose utilization is unknown (-1) adds nothing. */
    s.device_util[2] = -1;
    pipeline_attribute_gpu(&s, 3, &f.roles, &gs, &proc, &sys);
    CHECK(near(proc.usage, 0.6) && near(sys.usage, 0.6) && sys.utilized == 2);
    pid_index_free(&f.index);
}

static void test_exclude_library(void)
{
    struct tree_sample ts = {.main_ticks = 500, .utime_ticks = 400, .stime_ticks = 100,
                             .cpu_ns = 5003000000ULL, .main_threads = 7};
    struct library_threads lib = {.utime = 30, .stime = 20, .run_ns = 501000000ULL,
                                  .run_ns_ok = 1, .others = 5};
    pipeline_exclude_library(&ts, &lib, 10000000ULL);
    CHECK(ts.main_ticks == 450 && ts.utime_ticks == 370 && ts.stime_ticks == 80);
    CHECK(ts.cpu_ns == 4502000000ULL); /* their run time, not their ticks */
    CHECK(ts.main_threads == 5);
    /* Without their run time, their ticks stand in. */
    struct library_threads ticks_only = {.utime = 10, .stime = 5, .others = 5};
    pipeline_exclude_library(&ts, &ticks_only, 10000000ULL);
    CHECK(ts.cpu_ns == 4352000000ULL);
    /* Never below zero; an unknown count of other threads keeps main's. */
    struct library_threads big = {.utime = 1000, .stime = 1000, .run_ns = 20000000000ULL,
                                  .run_ns_ok = 1, .others = -1};
    pipeline_exclude_library(&ts, &big, 10000000ULL);
    CHECK(ts.main_ticks == 0 && ts.utime_ticks == 0 && ts.stime_ticks == 0 && ts.cpu_ns == 0);
    CHECK(ts.main_threads == 5);
}

/* A sample of the tree 100 at time now: main has used main_ticks, the
 * system busy ticks (of 2 CPUs). */
static struct sample make_sample(long slot, double now, unsigned long long main_ticks,
                                 unsigned long long sys_busy, unsigned long long rss_kb)
{
    struct sample s;
    memset(&s, 0, sizeof s);
    s.slot = slot;
    s.now = now;
    s.wall = 1700000000.0 + now;
    s.sys_ok = 1;
    s.cpu.ncpu = 2;
    s.cpu.busy = sys_busy;
    s.cpu.user_nice = sys_busy;
    s.cpu.total = (unsigned long long)(now * 2 * TCK);
    s.mem.total_kb = 8000000;
    s.mem.available_kb = 6000000;
    s.mem.free_kb = 5000000;
    s.tree_ok = 1;
    s.tree.main_alive = 1;
    s.tree.main_ticks = main_ticks;
    s.tree.utime_ticks = main_ticks;
    s.tree.cpu_ns = main_ticks * (unsigned long long)(1e9 / TCK);
    s.tree.main_ns = s.tree.cpu_ns;
    s.tree.main_threads = 3;
    s.tree.main_rss_kb = rss_kb;
    s.tree.main_private_kb = rss_kb;
    s.tree.main_pss_kb = rss_kb;
    s.tree.pss_kb = rss_kb;
    return s;
}

static void test_steps_make_rows(void)
{
    struct pipeline p;
    pipeline_init(&p, 1.0, TCK, GT_SERIES_PROCESS | GT_SERIES_SYSTEM, 100, 0);
    struct pipeline_rows rows;
    struct system_series_sample extra = {.processes_ok = 1, .processes = 42};

    /* The baseline: anchors the counters, makes no row. */
    struct sample s = make_sample(0, 10.0, 1000, 5000, 1000);
    s.extra = &extra;
    pipeline_step(&p, &s, &rows);
    CHECK(!rows.have_process && !rows.have_system);
    CHECK(near(p.epoch_start, 1700000010.0));
    CHECK(p.acc.samples == 1);

    /* Slot 1, a second later: main used a whole core (100 ticks). */
    s = make_sample(1, 11.0, 1100, 5150, 2000);
    extra.processes = 43; /* the buffers the pipeline gave back: refilled */
    extra.processes_ok = 1;
    s.extra = &extra;
    pipeline_step(&p, &s, &rows);
    CHECK(rows.have_process && rows.have_system);
    CHECK(near(rows.process.timestamp, 1700000011.0));
    CHECK(rows.process.pid == 100 && near(rows.process.utime, 1.0) &&
          near(rows.process.cpu_usage, 1.0));
    CHECK(rows.process.memory == 2000);
    CHECK_MSG(near(rows.system.cpu_usage, 1.5) && rows.system.processes == 43, "cpu %g, %ld",
              rows.system.cpu_usage, rows.system.processes);
    /* The system counters' buffers went to the pipeline (no copy): the
     * reader gets back the pipeline's previous, empty ones. */
    CHECK(p.extra_prev.processes == 43 && extra.processes == 42);

    /* Slot 2: the tree could not be read. No process row now, nor at slot 3
     * (no previous reading): the series starts again from slot 3's. */
    s = make_sample(2, 12.0, 1200, 5300, 2000);
    s.tree_ok = 0;
    pipeline_step(&p, &s, &rows);
    CHECK(!rows.have_process && rows.have_system);
    s = make_sample(3, 13.0, 1300, 5400, 2000);
    pipeline_step(&p, &s, &rows);
    CHECK(!rows.have_process && rows.have_system);
    s = make_sample(4, 14.0, 1350, 5500, 3000);
    pipeline_step(&p, &s, &rows);
    CHECK(rows.have_process && near(rows.process.cpu_usage, 0.5));

    /* The final sample at stop: counted in the summary, no row. */
    s = make_sample(-1, 14.5, 1400, 5550, 4000);
    pipeline_step(&p, &s, &rows);
    CHECK(!rows.have_process && !rows.have_system);
    CHECK(p.acc.samples == 6);

    /* The summary: main's peak RSS from the samples, its mean CPU exact
     * over the whole span (400 ticks in 4.5 s), the maximum over full
     * intervals only (1 core), in the units asked for. */
    struct usage_units u = {.ram_unit = "kilobytes", .gpu_ram_unit = "megabytes",
                            .time_unit = "seconds", .ram_divisor = 1000, .gpu_ram_divisor = 1e6,
                            .time_divisor = 1, .system_core_count = 2, .n_expected_cores = 2};
    gt_resource_usage r = {.struct_size = sizeof(gt_resource_usage)};
    memset(&r, 0x5a, sizeof r); /* garbage: every field is set */
    usage_result(&p.acc, &u, 4.5, &r);
    CHECK(r.gpu_details.devices == NULL); /* the caller's to point at its list */
    CHECK(r.gpu_details.ndevices == 0 && r.measurement.skipped == 0 && r.gpu_details.unknown == 0);
    CHECK(!strcmp(r.gpu_details.energy_reason, ""));
    CHECK_MSG(near(r.max_ram.main.total_rss, 4000 * 1.024), "main RSS %g", r.max_ram.main.total_rss);
    CHECK_MSG(near(r.cpu_utilization.main.mean_sum_percent, 400.0 / 4.5),
              "mean %g", r.cpu_utilization.main.mean_sum_percent);
    CHECK_MSG(near(r.cpu_utilization.main.max_sum_percent, 100.0), "max %g",
              r.cpu_utilization.main.max_sum_percent);
    CHECK(r.cpu_utilization.main_n_threads == 3);
    pipeline_free(&p);
    free(extra.disks);
    free(extra.nets);
}

/* The exporter's figures: base units, the summary's peaks, counters that
 * never go down. */
static void test_metrics_point(void)
{
    struct pipeline p;
    pipeline_init(&p, 1.0, TCK, 0, 100, 0);
    struct pipeline_rows rows;
    struct metrics_point m[3];
    struct sample s = make_sample(0, 10.0, 1000, 5000, 1000);
    s.tree_series = s.tree_io = 1;
    s.tree.read_bytes = 4096;
    pipeline_step(&p, &s, &rows);
    pipeline_metrics(&p, &s, NULL, &m[0]);
    CHECK(m[0].samples == 1 && m[0].tree_ok && m[0].have_io && m[0].read_bytes == 4096);
    CHECK(m[0].cpu_seconds[0] == 0 && m[0].threads[0] == 3 && m[0].processes == 1);
    CHECK(m[0].sys_ok && m[0].system_total == 8000000ULL * 1024 &&
          m[0].system_used == 2000000ULL * 1024);

    /* A second later: 150 ticks of CPU, 3000 kB, and a child's bytes gone
     * from the sum (read_bytes lower): the counter stays. */
    s = make_sample(1, 11.0, 1150, 5150, 3000);
    s.tree_series = s.tree_io = 1;
    s.tree.read_bytes = 1024;
    s.tree.write_bytes = 10;
    s.tree.children = 2;
    pipeline_step(&p, &s, &rows);
    pipeline_metrics(&p, &s, &m[0], &m[1]);
    CHECK(m[1].samples == 2);
    CHECK_MSG(near(m[1].cpu_seconds[0], 1.5) && m[1].cpu_seconds[1] == 0, "cpu %g",
              m[1].cpu_seconds[0]);
    CHECK(m[1].rss[0] == 3000ULL * 1024 && m[1].private_bytes[0] == 3000ULL * 1024);
    CHECK(m[1].peak_rss[0] == 3000ULL * 1024 && m[1].peak_rss[2] == 3000ULL * 1024);
    CHECK(m[1].have_pss && m[1].pss == 3000ULL * 1024 && m[1].processes == 3);
    CHECK(m[1].read_bytes == 4096 && m[1].write_bytes == 10);

    /* The tree could not be read: no "now" figures, the peaks and counters
     * stay; without the series' figures, I/O keeps its last values. */
    s = make_sample(2, 12.0, 1200, 5300, 500);
    s.tree_ok = 0;
    pipeline_step(&p, &s, &rows);
    pipeline_metrics(&p, &s, &m[1], &m[2]);
    CHECK(!m[2].tree_ok && m[2].peak_rss[0] == 3000ULL * 1024 && near(m[2].cpu_seconds[0], 1.5));
    CHECK(m[2].have_io && m[2].read_bytes == 4096 && m[2].write_bytes == 10);
    CHECK(m[2].ngpus == 0 && !m[2].have_gpu_tree && !m[2].energy_ok);

    /* The exporter without the process series: its I/O counters, no PSS
     * (smaps_rollup is not read at every sample then). */
    s = make_sample(3, 13.0, 1300, 5400, 500);
    s.tree_io = 1;
    s.tree.read_bytes = 8192;
    pipeline_step(&p, &s, &rows);
    pipeline_metrics(&p, &s, &m[2], &m[0]);
    CHECK(m[0].tree_ok && !m[0].have_pss && m[0].have_io && m[0].read_bytes == 8192);
    pipeline_free(&p);
}

static void test_self_and_gpu_in_step(void)
{
    struct roles_fixture f;
    roles_make(&f);
    struct gpu_process procs[] = {{.pid = 101, .bytes = 300 * MIB, .memory_devices = 1}};
    struct pipeline p;
    pipeline_init(&p, 0.5, TCK, GT_SERIES_PROCESS, 100, 0);
    unsigned long long gpu_capacity = 8000 * MIB;
    usage_set_gpus(&p.acc, gpu_capacity, 1, 1);
    struct pipeline_rows rows;
    for (long k = 0; k < 3; k++) {
        struct sample s = make_sample(k, 20.0 + 0.5 * (double)k, 1000 + 50 * (unsigned long long)k,
                                      0, 1000);
        s.roles = f.roles;
        s.self = 1; /* the sampler used 10 ticks of main's */
        s.library.utime = 10;
        s.library.others = 2;
        s.gpu_ok = 1;
        s.gpu_ndevices = 1;
        s.gpu.memory_used = 1000 * MIB;
        s.gpu.procs = procs;
        s.gpu.nprocs = 1;
        s.gpu.device_util[0] = 40;
        pipeline_step(&p, &s, &rows);
    }
    CHECK(rows.have_process);
    CHECK(near(rows.process.gpu_vram, 300) && near(rows.process.gpu_usage, 0.4));
    CHECK(rows.process.gpu_utilized == 1);
    CHECK(p.acc.gpu_desc_max == 300 * MIB && p.acc.gpu_main_max == 0);
    CHECK(p.acc.main_threads == 2); /* the library's threads left out */
    pipeline_free(&p);
    pid_index_free(&f.index);
}

static char warned[512];
static int nwarnings;
static void on_warning(const char *msg, void *data)
{
    (void)data;
    nwarnings++;
    snprintf(warned, sizeof warned, "%s", msg);
}

static void test_csv_sink(void)
{
    struct warn_channel w;
    warn_channel_init(&w, on_warning, NULL, 0);
    char path[] = "/tmp/gt-csv-sink-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    struct csv_sink c;
    csv_sink_init(&c, fd, -1, 0, &w);
    c.base.ops->start(&c.base, 0);
    struct pipeline_rows rows = {.have_process = 1, .have_system = 1};
    rows.process.timestamp = 1700000011.0;
    rows.process.pid = 100;
    rows.process.cpu_usage = 1.0;
    c.base.ops->rows(&c.base, &rows);
    char buf[4096] = {0};
    CHECK(pread(fd, buf, sizeof buf - 1, 0) > 0);
    CHECK_CONTAINS(buf, "\"timestamp\",\"pid\"");
    CHECK_CONTAINS(buf, "1700000011.0,100,");
    CHECK(!c.failed[0] && !c.failed[1] && nwarnings == 0);
    /* A descriptor that fails: one warning, that series stops, nothing else. */
    close(fd);
    unlink(path);
    c.base.ops->rows(&c.base, &rows);
    c.base.ops->rows(&c.base, &rows);
    CHECK(c.failed[GT_SERIES_KIND_PROCESS] && !c.failed[GT_SERIES_KIND_SYSTEM]);
    CHECK(nwarnings == 1);
    CHECK_CONTAINS(warned, "cannot write the process series");
}

/* A warn_channel that counts into nwarnings, a fresh directory (dir, a mkdtemp
 * template, made in place) and path naming file in it. */
static void sink_setup(struct warn_channel *w, char *dir, const char *file, char *path, size_t cap)
{
    warn_channel_init(w, on_warning, NULL, 0);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, cap, "%s/%s", dir, file);
}

/* The tracking file has a row for each timepoint that found a tracked
 * process alive: a sample between the command's exit and the stop (the
 * sampling thread can take one) is no row, as the final sample then is
 * not; descendants still running make it one. */
static void test_tracking_rows_alive(void)
{
    struct warn_channel w;
    char dir[] = "/tmp/gt-tracking-XXXXXX", path[256];
    sink_setup(&w, dir, "run.csv", path, sizeof path);
    struct tracking_static st = {.ram_unit = "gigabytes", .gpu_ram_unit = "gigabytes",
                                 .time_unit = "hours", .ram_divisor = 1e9,
                                 .gpu_ram_divisor = 1e9, .system_core_count = 2,
                                 .n_expected_cores = 2};
    struct tracking_file k;
    int warned_before = nwarnings;
    CHECK_MSG(tracking_file_open(&k, path, 0, &st, &w) == GT_OK, "%s", gt_last_error());
    struct pipeline_rows rows = {.have_timepoint = 1, .timepoint_wall = 1700000000.0};
    const long threads[][2] = {{1, 0}, {0, 0}, {0, 2}, {0, 0}};
    for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
        rows.timepoint.main_threads = threads[i][0];
        rows.timepoint.desc_threads = threads[i][1];
        k.base.ops->rows(&k.base, &rows);
    }
    tracking_file_close(&k);
    char buf[8192] = {0};
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && read(fd, buf, sizeof buf - 1) > 0);
    close(fd);
    int lines = 0;
    for (const char *p = buf; (p = strstr(p, "\r\n")); p += 2)
        lines++;
    /* the static data's header and values, the timepoints' header, two rows */
    CHECK_MSG(lines == 5, "%d lines: %s", lines, buf);
    /* main_n_threads, descendents_n_threads, combined_n_threads */
    CHECK_MSG(strstr(buf, ",1,0,1,") && strstr(buf, ",0,2,2,") && !strstr(buf, ",0,0,0,"),
              "%s", buf);
    CHECK(nwarnings == warned_before);
    unlink(path);
    rmdir(dir);
}

static void test_backup_policy(void)
{
    gt_resource_usage a = {.struct_size = sizeof(gt_resource_usage)};
    gt_resource_usage b = {.struct_size = sizeof(gt_resource_usage)};
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    snprintf(a.max_ram.unit, GT_UNIT_LEN, "gigabytes");
    snprintf(a.max_gpu_ram.unit, GT_UNIT_LEN, "gigabytes");
    snprintf(a.compute_time.unit, GT_UNIT_LEN, "hours");
    a.gpu_details.unknown = a.measurement.unknown = 1;
    a.max_ram.main.total_rss = 1.5;
    a.cpu_utilization.main.mean_sum_percent = 50;
    a.compute_time.time = 10;
    a.measurement.samples = 10;
    b = a;
    /* Means, time and counts move every sample: no rewrite for them. */
    b.cpu_utilization.main.mean_sum_percent = 51;
    b.cpu_utilization.combined.mean_hardware_percent = 3;
    b.compute_time.time = 11;
    b.measurement.samples = 11;
    b.measurement.lateness_max_ms = 2;
    b.gpu_details.energy_joules = 7;
    /* So do the machine's RAM and CPU, with every other program. */
    b.max_ram.system = 9.5;
    b.cpu_utilization.system.max_sum_percent = 180;
    b.cpu_utilization.system.max_hardware_percent = 90;
    CHECK(backup_same_figures(&a, &b));
    /* The GPUs' are the job's: a new GPU peak is rewritten. */
    b.gpu_utilization.gpu_percentages.max_hardware_percent = 70;
    CHECK(!backup_same_figures(&a, &b));
    b = a;
    b.max_gpu_ram.system = 3;
    CHECK(!backup_same_figures(&a, &b));
    /* A peak, a thread count, a reason: rewrite. */
    b.max_ram.main.total_rss = 1.6;
    CHECK(!backup_same_figures(&a, &b));
    /* Memory peaks count by 1 % steps: a page's creep waits for the
     * refresh, a step (shared or GPU memory alike) does not. */
    b = a;
    b.max_ram.main.total_rss = 1.5 * 1.0005;
    b.max_gpu_ram.main = 0.0000001;
    a.max_gpu_ram.main = 0.0000001 * 1.0005;
    CHECK(backup_same_figures(&a, &b));
    b.max_ram.main.shared_rss = 0.5;
    CHECK(!backup_same_figures(&a, &b));
    b = a;
    b.max_gpu_ram.main = 0.0000001 * 1.03;
    CHECK(!backup_same_figures(&a, &b));
    a.max_gpu_ram.main = 0;
    b = a;
    b = a;
    b.cpu_utilization.main_n_threads = 4;
    CHECK(!backup_same_figures(&a, &b));
    b = a;
    b.cpu_utilization.main.max_sum_percent = 120;
    CHECK(!backup_same_figures(&a, &b));
    b = a;
    snprintf(b.measurement.gpu_reason, sizeof b.measurement.gpu_reason, "driver gone");
    CHECK(!backup_same_figures(&a, &b));
    b = a;
    snprintf(b.gpu_details.energy_reason, GT_REASON_LEN, "no counter");
    CHECK(!backup_same_figures(&a, &b));
    /* The GPUs tracked: compared up to ndevices. */
    b = a;
    b.gpu_details.ndevices = 1;
    CHECK(!backup_same_figures(&a, &b));
    gt_gpu_device list_a[2] = {{.uuid = "GPU-1"}, {.uuid = "GPU-2"}};
    gt_gpu_device list_b[2] = {{.uuid = "GPU-1"}, {.uuid = "GPU-2"}};
    a.gpu_details.ndevices = 1;
    a.gpu_details.devices = list_a;
    b = a;
    b.gpu_details.devices = list_b; /* another list with the same GPUs */
    CHECK(backup_same_figures(&a, &b));
    list_b[0].selected = 1;
    CHECK(!backup_same_figures(&a, &b));
    list_b[0].selected = 0;
    list_b[1].selected = 1; /* past ndevices: not looked at */
    CHECK(backup_same_figures(&a, &b));
    a.gpu_details.ndevices = 0;
    a.gpu_details.devices = NULL;

    /* The sink: nothing at the baseline's look (a job that ends within a
     * second pays no file), written at the first look after it (about a
     * second in), by the writer thread; then only when a figure changed
     * (BACKUP_MIN_GAP after the last write at the soonest) or the refresh
     * period passed; looks come about once a second. */
    struct warn_channel w;
    char dir[] = "/tmp/gt-backup-XXXXXX", path[256];
    sink_setup(&w, dir, "backup.json", path, sizeof path);
    struct backup_sink bs;
    CHECK(backup_sink_init(&bs, path, 0.1, 5.0, &w) == GT_OK);
    CHECK(backup_sink_set_identity(&bs, 4242, "python train.py") == GT_OK);
    CHECK(bs.identity == NULL); /* made at the first write: a short job pays none */
    struct sink *s = &bs.base;
    CHECK(!s->ops->wants_summary(s, 100.0)); /* the baseline */
    CHECK(access(path, F_OK) != 0 && bs.written == 0 && bs.identity == NULL);
    CHECK(!s->ops->wants_summary(s, 100.5));
    CHECK(s->ops->wants_summary(s, 101.0));
    s->ops->summary(s, &a, 101.0);
    CHECK(bs.writer != NULL && backup_sink_flush(&bs));
    CHECK(access(path, F_OK) == 0 && bs.last_write == 101.0);
    char want_tracker[64];
    snprintf(want_tracker, sizeof want_tracker, "\"tracker_pid\":%d,", (int)getpid());
    CHECK_MSG(bs.identity && strstr(bs.identity, want_tracker) &&
              strstr(bs.identity, "\"pid\":4242,") &&
              strstr(bs.identity, "\"command\":\"python train.py\""),
              "identity: %s", bs.identity ? bs.identity : "(none)");
    gt_backup_info who = {0};
    CHECK_MSG(gt_backup_read_info(path, &who) == GT_OK && who.present && who.pid == 4242 &&
                  who.tracker_pid == getpid() && who.running,
              "%s", gt_last_error());
    b = a;
    b.compute_time.time = 11;
    unlink(path);
    s->ops->summary(s, &b, 102.0); /* nothing new: not written */
    CHECK(access(path, F_OK) != 0 && bs.last_write == 101.0);
    b.max_ram.main.total_rss = 2.5;
    s->ops->summary(s, &b, 102.5); /* a memory peak that grew: written at once */
    CHECK(backup_sink_flush(&bs));
    CHECK(access(path, F_OK) == 0 && bs.last_write == 102.5);
    unlink(path);
    b.cpu_utilization.main.max_sum_percent += 50;
    s->ops->summary(s, &b, 103.0); /* another new figure, too soon after the last write */
    CHECK(access(path, F_OK) != 0 && bs.last_write == 102.5);
    s->ops->summary(s, &b, 102.5 + BACKUP_MIN_GAP); /* written now */
    CHECK(backup_sink_flush(&bs));
    CHECK(access(path, F_OK) == 0 && bs.last_write == 102.5 + BACKUP_MIN_GAP);
    unlink(path);
    s->ops->summary(s, &b, 102.5 + BACKUP_MIN_GAP + 1); /* nothing new */
    CHECK(access(path, F_OK) != 0);
    s->ops->summary(s, &b, 102.5 + BACKUP_MIN_GAP + BACKUP_REFRESH_MIN); /* stale: refreshed */
    CHECK(backup_sink_flush(&bs));
    CHECK(access(path, F_OK) == 0);
    /* The refresh is a tenth of the run so far, from 30 s to 5 min. */
    CHECK(backup_refresh_period(0) == BACKUP_REFRESH_MIN);
    CHECK(backup_refresh_period(1000) == 100);
    CHECK(backup_refresh_period(1e6) == BACKUP_REFRESH_MAX);
    s->ops->summary(s, &b, 1100.0); /* 1000 s in: the last write 963 s ago */
    CHECK(backup_sink_flush(&bs) && bs.last_write == 1100.0);
    s->ops->summary(s, &b, 1100.0 + 99); /* the period is 100 s now */
    CHECK(bs.last_write == 1100.0);
    s->ops->summary(s, &b, 1100.0 + 150);
    CHECK(backup_sink_flush(&bs) && bs.last_write == 1250.0);
    gt_resource_usage back = {.struct_size = sizeof(gt_resource_usage)};
    CHECK_MSG(gt_usage_read_file(path, &back) == GT_OK && back.max_ram.main.total_rss == 2.5,
              "%s", gt_last_error());
    gt_usage_release(&back);
    backup_sink_finish(&bs);
    CHECK(access(path, F_OK) != 0);
    CHECK(bs.writer == NULL); /* finish ended the thread */
    s->ops->summary(s, &a, 200.0); /* after finish: nothing */
    CHECK(access(path, F_OK) != 0);
    backup_sink_destroy_lock(&bs);
    backup_sink_forget(&bs);

    /* A writer still writing when finish() stops waiting (a hung
     * filesystem; here a wait of 1 ns) is left to end by itself: the file
     * it writes is removed all the same, and it frees what it holds (ASan
     * checks). Which side wins is up to the scheduler, so several tries:
     * the orphaned one leaves the sink's own file closed. */
    int orphaned = 0;
    for (int tries = 0; tries < 200 && !orphaned; tries++) {
        CHECK(backup_sink_init(&bs, path, 1.0, 1e-9, &w) == GT_OK);
        s->ops->summary(s, &a, 100.0); /* the first write: ours */
        b = a;
        b.max_ram.main.total_rss = 3.0 + tries;
        s->ops->summary(s, &b, 100.0 + BACKUP_MIN_GAP); /* the writer's */
        backup_sink_finish(&bs);
        orphaned = bs.target.dirfd < 0;
        backup_sink_destroy_lock(&bs);
        backup_sink_forget(&bs);
        /* Gone once the writer is done: waited for, not timed. */
        for (int i = 0; i < 30000 && access(path, F_OK) == 0; i++)
            usleep(1000);
        CHECK_MSG(access(path, F_OK) != 0, "try %d: the backup file outlived a clean stop", tries);
    }
    CHECK_MSG(orphaned, "no try left the writer behind: the orphan path was not exercised");

    /* A backup whose directory is not there: the first look says why,
     * once, and later samples stop looking (no summary filled for it). */
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no-such-dir/backup.json", dir);
    CHECK(backup_sink_init(&bs, missing, 1.0, 5.0, &w) == GT_OK);
    int before = nwarnings;
    CHECK(s->ops->wants_summary(s, 300.0));
    s->ops->summary(s, &a, 300.0);
    CHECK(nwarnings == before + 1);
    CHECK_CONTAINS(warned, "cannot write the backup file");
    CHECK_CONTAINS(warned, "; tracking goes on without it (gpu-tracker --no-backup, or "
                           "resource_usage_file \"\" in the library, keeps none)");
    CHECK(!s->ops->wants_summary(s, 301.0) && !s->ops->wants_summary(s, 400.0));
    backup_sink_destroy_lock(&bs);
    backup_sink_forget(&bs);
    rmdir(dir);
}

/* The sampler's sleep: a deadline that passes gives 0, a set word 1 at
 * once, and a sleeper with a deadline an hour away is woken by a set from
 * another thread (were it not, the test would hang until CTest's timeout:
 * no time is asserted). */
static void *set_word_later(void *arg)
{
    struct wakeup *w = arg;
    usleep(1000);
    wakeup_set(w);
    return NULL;
}

static void test_wakeup(void)
{
    struct wakeup w = {0};
    CHECK(wakeup_sleep_until(&w, monotonic_now() + 0.001) == 0);
    CHECK(wakeup_sleep_until(&w, monotonic_now() - 1) == 0); /* already past */
    pthread_t th;
    CHECK(pthread_create(&th, NULL, set_word_later, &w) == 0);
    CHECK(wakeup_sleep_until(&w, monotonic_now() + 3600) == 1);
    pthread_join(th, NULL);
    CHECK(wakeup_sleep_until(&w, monotonic_now() + 3600) == 1); /* it stays set */
}

static unsigned long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

struct burner {
    sem_t burned, finish;
    unsigned long long ran_ns; /* its own clock when it ends */
};

/* A library thread that burns 30 ms of CPU, says so, and waits to end. */
static void *burn_then_wait(void *arg)
{
    struct burner *b = arg;
    volatile unsigned long spin = 0;
    while (thread_cpu_ns() < 30000000ULL)
        for (int i = 0; i < 10000; i++)
            spin++;
    sem_post(&b->burned);
    while (sem_wait(&b->finish) < 0)
        ;
    b->ran_ns = thread_cpu_ns();
    return NULL;
}

/* This process's thread count (its status's Threads), -1 if unread. */
static long self_threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long n = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %ld", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

/* The library's threads' run time, in nanoseconds, while one runs and
 * after it ended: what self-tracking takes out of the series' CPU. */
static void test_library_run_time(void)
{
    struct library_threads before;
    library_threads_usage(&before, 1, -1);
    CHECK(before.run_ns_ok);
    struct burner b;
    sem_init(&b.burned, 0, 0);
    sem_init(&b.finish, 0, 0);
    pthread_t th;
    CHECK(start_library_thread(&th, "gt:burn", burn_then_wait, &b) == 0);
    while (sem_wait(&b.burned) < 0)
        ;
    struct library_threads running, cached;
    library_threads_usage(&running, 1, -1);
    /* Asked again at once, its ticks come from the last read unless its
     * run time passed into another tick: at most a tick behind either way. */
    library_threads_usage(&cached, 0, -1);
    CHECK_MSG(cached.utime + cached.stime + 1 >= running.utime + running.stime &&
                  cached.utime + cached.stime <= running.utime + running.stime + 1,
              "%llu + %llu ticks, read %llu + %llu", cached.utime, cached.stime, running.utime,
              running.stime);
    /* The others: every thread but the library's; asked again with the
     * same thread count and library threads, the last listing's. */
    long total = self_threads();
    struct library_threads listed, reused;
    library_threads_usage(&listed, 0, total);
    library_threads_usage(&reused, 0, total);
    CHECK_MSG(total > 1 && listed.others == total - 1 && reused.others == listed.others,
              "%ld threads, others %ld then %ld", total, listed.others, reused.others);
    unsigned long long tick_ns = (unsigned long long)(1e9 / (double)sysconf(_SC_CLK_TCK));
    CHECK_MSG(running.run_ns_ok && running.run_ns >= before.run_ns + 30000000ULL,
              "ok %d, %llu ns then %llu ns", running.run_ns_ok, before.run_ns, running.run_ns);
    /* Its ticks say the same to within two ticks. */
    unsigned long long ticks_ns = (running.utime + running.stime - before.utime - before.stime) *
                                  tick_ns;
    unsigned long long ran = running.run_ns - before.run_ns;
    CHECK_MSG(ticks_ns <= ran + tick_ns && ran <= ticks_ns + 2 * tick_ns,
              "ticks %llu ns, run time %llu ns", ticks_ns, ran);
    sem_post(&b.finish);
    pthread_join(th, NULL);
    /* Ended: what it ran stays counted, to the nanosecond it last saw. */
    struct library_threads after;
    library_threads_usage(&after, 0, -1);
    CHECK_MSG(after.run_ns_ok && after.run_ns >= before.run_ns + b.ran_ns,
              "%llu ns after, it ran %llu ns", after.run_ns, b.ran_ns);
    sem_destroy(&b.burned);
    sem_destroy(&b.finish);
}

/* One interval of one second for the GPU-wait accumulator: GPU 0 at util
 * percent (the tree's main, pid 100, holds memory there; util < 0: the
 * tree holds none), the busiest worker group and main's block I/O delay
 * (blkio ticks over the interval; blkio_state as tree_sample.blkio). */
struct wait_step {
    double util;
    long workers;
    double cores;      /* the workers' CPU over the interval */
    double runnable;   /* their runnable time over the interval, cores */
    int blkio_state;
    double blkio;      /* seconds main waited on block I/O in the interval */
};

static void wait_run(struct gpu_wait_acc *a, struct roles_fixture *f, const struct wait_step *st,
                     int n, double cores)
{
    gpu_wait_init(a, cores, TCK);
    struct gpu_process proc = {.pid = 100, .bytes = 1024 * MIB, .memory_devices = 1};
    struct gpu_sample s = {.procs = &proc, .nprocs = 1};
    struct tree_sample t = {0};
    unsigned long long blkio = 0;
    for (int i = 0; i <= n; i++) {
        const struct wait_step *w = &st[i > 0 ? i - 1 : 0];
        proc.bytes = w->util < 0 ? 0 : 1024 * MIB;
        s.device_util[0] = w->util < 0 ? 0 : w->util;
        memset(&t.workers, 0, sizeof t.workers);
        if (i > 0 && w->workers) {
            snprintf(t.workers.command, sizeof t.workers.command, "pt_data_worker");
            t.workers.processes = w->workers;
            t.workers.ticks = (unsigned long long)llround(w->cores * TCK);
            t.workers.runnable_ns = (unsigned long long)llround(w->runnable * 1e9);
        }
        if (i > 0)
            blkio += (unsigned long long)llround(w->blkio * TCK);
        t.blkio = w->blkio_state;
        t.main_blkio_ticks = w->blkio_state > 0 ? blkio : 0;
        struct gpu_tree_sample gs;
        struct series_gpu proc_gpu, sys_gpu;
        pipeline_attribute_gpu(&s, 1, &f->roles, &gs, &proc_gpu, &sys_gpu);
        gpu_wait_step(a, &s, &gs, 1, &t, NULL, (double)i);
    }
}

/* One second of GPU 0 for the GPU's own verdicts: its utilization, SM
 * activity (< 0: GPM not read), throttle reasons (NVML's bits), and the SM
 * percent of the job's main (pid 100, holding memory there) and of another
 * process (pid 999). */
struct gpu_second {
    double util, sm;
    unsigned throttle;
    double job_sm, other_sm;
};

static void gpu_seconds_run(struct gpu_wait_acc *w, struct gpu_activity_acc *act,
                            struct roles_fixture *f, const struct gpu_second *st, int n)
{
    gpu_wait_init(w, 4, TCK);
    gpu_activity_init(act);
    struct gpu_process procs[2] = {{.pid = 100, .bytes = 1024 * MIB, .memory_devices = 1},
                                   {.pid = 999, .bytes = 512 * MIB, .memory_devices = 1}};
    struct tree_sample t = {0};
    for (int i = 0; i <= n; i++) {
        const struct gpu_second *x = &st[i > 0 ? i - 1 : 0];
        struct gpu_proc_sm sm[2] = {{100, 0, x->job_sm}, {999, 0, x->other_sm}};
        struct gpu_sample s = {.procs = procs, .nprocs = 2, .proc_sm = sm, .nproc_sm = 2,
                               .proc_util_read = 1, .throttle_read = 1,
                               .device_energy_read = 1};
        s.device_util[0] = x->util;
        s.device_throttle[0] = x->throttle;
        s.device_energy_mj[0] = (unsigned long long)i * 100000; /* 100 W */
        if (x->sm >= 0 && i > 0) {
            s.activity[0].seconds = 1;
            s.activity[0].read = 1u << GPU_ACTIVITY_SM | 1u << GPU_ACTIVITY_TENSOR |
                                 1u << GPU_ACTIVITY_DRAM;
            s.activity[0].percent[GPU_ACTIVITY_SM] = x->sm;
            s.activity[0].percent[GPU_ACTIVITY_TENSOR] = x->sm / 2;
            s.activity[0].percent[GPU_ACTIVITY_DRAM] = 100 - x->sm;
        }
        struct gpu_tree_sample gs;
        struct series_gpu proc_gpu, sys_gpu;
        pipeline_attribute_gpu(&s, 1, &f->roles, &gs, &proc_gpu, &sys_gpu);
        gpu_wait_step(w, &s, &gs, 1, &t, NULL, (double)i);
        gpu_activity_step(act, (double)i, &s, &gs, 1);
    }
}

/* The GPU's own verdicts (throttled, busy but the SMs idle, shared), each
 * on both sides of its threshold, and the activity figures under them. */
static void test_gpu_verdicts(void)
{
    struct roles_fixture f;
    roles_make(&f);
    struct gpu_wait_acc w;
    struct gpu_activity_acc act;
    gt_gpu_wait out;
    char advice[1200];
    const unsigned power = 1u << GPU_THROTTLE_SW_POWER_CAP;
    const unsigned heat = 1u << GPU_THROTTLE_HW_THERMAL;
    /* Power-capped 1 s of 4: 25 %, a verdict; 1 s of 5: 20 %, none. */
    struct gpu_second capped[] = {{95, 80, power, 90, 0}, {95, 80, 0, 90, 0}, {95, 80, 0, 90, 0},
                                  {95, 80, 0, 90, 0}, {95, 80, 0, 90, 0}};
    gpu_seconds_run(&w, &act, &f, capped, 4);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(near(out.throttle_read_seconds, 4) && near(out.throttled_seconds, 1) &&
          near(out.power_seconds, 1) && out.thermal_seconds == 0);
    CHECK(out.verdict == GT_GPU_WAIT_THROTTLED);
    CHECK(gpu_wait_advice(&out, advice, sizeof advice) == GT_GPU_WAIT_THROTTLED);
    CHECK_CONTAINS(advice, "its clocks were held down by its power cap 25% of the time it was "
                           "in use");
    gpu_seconds_run(&w, &act, &f, capped, 5);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(near(out.throttled_seconds, 1) && near(out.throttle_read_seconds, 5) && !out.verdict);
    /* Hot 2 s of 4: thermal named. An idle GPU's clocks (bit 0) count not. */
    struct gpu_second hot[] = {{95, 80, heat, 90, 0}, {95, 80, heat, 90, 0},
                               {95, 80, 1, 90, 0}, {95, 80, 1, 90, 0}};
    gpu_seconds_run(&w, &act, &f, hot, 4);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(out.verdict == GT_GPU_WAIT_THROTTLED && near(out.thermal_seconds, 2) &&
          out.power_seconds == 0);
    CHECK(gpu_wait_advice(&out, advice, sizeof advice) && strstr(advice, "by heat 50%"));

    /* Busy with the SMs idle: utilization 90 % and SM activity 10 % (both
     * at their thresholds) 1 s of 4, a verdict; at 89 % or 11 %, none. */
    struct gpu_second stalled[] = {{90, 10, 0, 90, 0}, {95, 80, 0, 90, 0}, {95, 80, 0, 90, 0},
                                   {95, 80, 0, 90, 0}};
    gpu_seconds_run(&w, &act, &f, stalled, 4);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(near(out.sm_read_seconds, 4) && near(out.sm_idle_seconds, 1));
    CHECK(out.verdict == GT_GPU_WAIT_SMS_IDLE && near(out.sm_idle_util_percent, 90) &&
          near(out.sm_idle_sm_percent, 10));
    CHECK(gpu_wait_advice(&out, advice, sizeof advice) == GT_GPU_WAIT_SMS_IDLE);
    CHECK_CONTAINS(advice, "the GPU read 90% busy while 10% of its SMs were active, 25% of the "
                           "time it was in use");
    stalled[0].util = 89;
    gpu_seconds_run(&w, &act, &f, stalled, 4);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(out.sm_idle_seconds == 0 && !out.verdict);
    stalled[0].util = 90;
    stalled[0].sm = 11;
    gpu_seconds_run(&w, &act, &f, stalled, 4);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(out.sm_idle_seconds == 0 && !out.verdict);
    /* No GPM: the SM verdict cannot be had, and none is made up. */
    struct gpu_second no_gpm[] = {{99, -1, 0, 90, 0}, {99, -1, 0, 90, 0}};
    gpu_seconds_run(&w, &act, &f, no_gpm, 2);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(out.sm_read_seconds == 0 && !out.verdict);

    /* Shared: another process took 25 % of GPU 0's time, a verdict; 24 %,
     * none. The job's share is its SM over the GPU's time. */
    struct gpu_second shared[] = {{95, 80, 0, 60, 25}, {95, 80, 0, 60, 25}};
    gpu_seconds_run(&w, &act, &f, shared, 2);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(out.verdict == GT_GPU_WAIT_SHARED && out.shared_gpu == 0 &&
          near(out.shared_others_share, 0.25));
    CHECK(gpu_wait_advice(&out, advice, sizeof advice) == GT_GPU_WAIT_SHARED);
    CHECK_CONTAINS(advice, "other processes took 25% of GPU 0's time while the job used it");
    gt_gpu_run_device table[1];
    gt_gpu_run g = {.struct_size = sizeof g};
    gpu_activity_fill(&act, "", "", 1, table, &g);
    CHECK(g.share_available && near(g.job_sm_share, 0.6) && near(g.others_sm_share, 0.25) &&
          g.shared_gpus == 1);
    CHECK(g.ngpus == 1 && g.devices == table && table[0].share_read &&
          near(table[0].share_seconds, 2));
    /* 200 J over 2 s; the job ran 60 of the 85 SM percent used there */
    CHECK(table[0].energy_read && near(table[0].energy_joules, 200) &&
          near(table[0].job_energy_joules, 200 * 60.0 / 85.0));
    shared[0].other_sm = shared[1].other_sm = 24;
    gpu_seconds_run(&w, &act, &f, shared, 2);
    gpu_wait_report(&w, 1, &act, &out);
    CHECK(!out.verdict && near(out.shared_others_share, 0.24));

    /* The activity figures: time-weighted means and peaks of each counter. */
    struct gpu_second mixed[] = {{95, 20, 0, 90, 0}, {95, 60, 0, 90, 0}, {95, 100, 0, 90, 0}};
    gpu_seconds_run(&w, &act, &f, mixed, 3);
    memset(&g, 0, sizeof g);
    g.struct_size = sizeof g;
    gpu_activity_fill(&act, "", "", 1, table, &g);
    CHECK(g.activity_available);
    CHECK(g.activity_read == (1u << GPU_ACTIVITY_SM | 1u << GPU_ACTIVITY_TENSOR |
                              1u << GPU_ACTIVITY_DRAM));
    CHECK(near(g.activity_mean[GPU_ACTIVITY_SM], 60) && g.activity_peak[GPU_ACTIVITY_SM] == 100);
    CHECK(near(g.activity_mean[GPU_ACTIVITY_TENSOR], 30) &&
          near(g.activity_mean[GPU_ACTIVITY_DRAM], 40) && g.activity_peak[GPU_ACTIVITY_DRAM] == 80);
    CHECK(near(table[0].activity_seconds, 3));
    CHECK_STR(gpu_activity_name(GPU_ACTIVITY_TENSOR), "tensor");
    CHECK(gpu_activity_name(GT_GPU_ACTIVITY_METRICS) == NULL);
    /* Nothing read: the reason given stands, no figure is made up. */
    gpu_activity_init(&act);
    memset(&g, 0, sizeof g);
    gpu_activity_fill(&act, "GPU 0 has no SM, tensor or DRAM activity: no GPM", NULL, 1, table, &g);
    CHECK(!g.activity_available && !g.share_available && g.ngpus == 0 && !g.devices);
    CHECK_STR(g.activity_reason, "GPU 0 has no SM, tensor or DRAM activity: no GPM");
    CHECK_CONTAINS(g.share_reason, "not read while the job used a GPU");
    pid_index_free(&f.index);
}

/* What the GPUs waited for, on both sides of each threshold. */
static void test_gpu_wait(void)
{
    struct roles_fixture f;
    roles_make(&f);
    struct gpu_wait_acc a;
    gt_gpu_wait w;
    char advice[800];
    /* 4 workers runnable 0.98 of the time each while the GPU was 20 %
     * busy, 3 of 4 seconds: more cores per GPU. */
    struct wait_step starved[] = {{20, 4, 3.92, 3.92, 1, 0}, {20, 4, 3.92, 3.92, 1, 0},
                                  {90, 4, 3.92, 3.92, 1, 0}, {20, 4, 3.92, 3.92, 1, 0}};
    wait_run(&a, &f, starved, 4, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.gpu_seconds, 4) && near(w.waiting_seconds, 3) && near(w.worker_seconds, 3));
    CHECK(w.verdict == GT_GPU_WAIT_WORKERS && strcmp(w.worker_command, "pt_data_worker") == 0);
    CHECK(near(w.worker_processes, 4) && near(w.worker_cores, 0.98) &&
          near(w.waiting_busy_percent, 20));
    CHECK(w.storage_available && strcmp(w.storage_source, "block I/O delay") == 0);
    CHECK(gpu_wait_advice(&w, advice, sizeof advice) == GT_GPU_WAIT_WORKERS);
    CHECK_CONTAINS(advice, "more CPU cores per GPU: the GPU waited (20% busy) on 4 saturated "
                           "pt_data_worker workers at 0.98 cores each 75% of the time");
    /* The same workers beside a GPU-bound run (60 % and more): no verdict. */
    struct wait_step bound[] = {{60, 4, 3.92, 3.92, 1, 0}, {95, 4, 3.92, 3.92, 1, 0}};
    wait_run(&a, &f, bound, 2, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.gpu_seconds, 2) && w.waiting_seconds == 0 && w.verdict == 0);
    CHECK(gpu_wait_advice(&w, advice, sizeof advice) == 0 && advice[0] == '\0');
    /* An idle run: the GPU waits, its workers sleep (0.3 cores each). */
    struct wait_step idle[] = {{3, 4, 1.2, 1.2, 1, 0}, {3, 4, 1.2, 1.2, 1, 0}};
    wait_run(&a, &f, idle, 2, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.waiting_seconds, 2) && w.worker_seconds == 0 && w.verdict == 0);
    /* Each side of the saturation: runnable 0.85 each is not, 0.9 is; 8
     * workers sharing the job's 4 cores (3.7 of them, 0.46 each) are. */
    struct wait_step under[] = {{20, 4, 3.4, 3.4, 1, 0}};
    wait_run(&a, &f, under, 1, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.worker_seconds == 0 && w.verdict == 0);
    struct wait_step at[] = {{20, 4, 3.0, 3.6, 1, 0}};
    wait_run(&a, &f, at, 1, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.worker_seconds, 1) && w.verdict == GT_GPU_WAIT_WORKERS);
    CHECK(near(w.worker_cores, 0.75) && near(w.worker_runnable, 0.9));
    struct wait_step shared[] = {{20, 8, 3.7, 3.7, 1, 0}};
    wait_run(&a, &f, shared, 1, 4);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == GT_GPU_WAIT_WORKERS);
    wait_run(&a, &f, shared, 1, 16); /* on 16 cores the 8 had room */
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == 0);
    /* Each side of the share: 1 of 5 seconds (20 %) is not a verdict, 2 of
     * 5 (40 %) is; seconds without GPU memory do not count. */
    struct wait_step brief[] = {{20, 4, 3.92, 3.92, 1, 0}, {90, 0, 0, 0, 1, 0},
                                {90, 0, 0, 0, 1, 0},       {90, 0, 0, 0, 1, 0},
                                {90, 0, 0, 0, 1, 0},       {-1, 4, 3.92, 3.92, 1, 0}};
    wait_run(&a, &f, brief, 6, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.gpu_seconds, 5) && near(w.worker_seconds, 1) && w.verdict == 0);
    brief[1].util = 20;
    brief[1].workers = 4;
    brief[1].cores = brief[1].runnable = 3.92;
    wait_run(&a, &f, brief, 6, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(near(w.worker_seconds, 2) && w.verdict == GT_GPU_WAIT_WORKERS);
    /* Storage: main waited on block I/O 0.5 s a second (faster storage), or
     * 0.1 s (not a wait); with delay accounting off it cannot be told. */
    struct wait_step io[] = {{10, 0, 0, 0, 1, 0.5}, {10, 0, 0, 0, 1, 0.5}};
    wait_run(&a, &f, io, 2, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == GT_GPU_WAIT_STORAGE_BOUND && near(w.storage_seconds, 2) &&
          near(w.storage_wait, 0.5));
    CHECK(gpu_wait_advice(&w, advice, sizeof advice) == GT_GPU_WAIT_STORAGE_BOUND);
    CHECK_CONTAINS(advice, "faster storage: the GPU waited (10% busy) while the job waited on "
                           "storage (block I/O delay) 50% of the time, 100% of the time");
    io[0].blkio = io[1].blkio = 0.1;
    wait_run(&a, &f, io, 2, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == 0 && w.storage_seconds == 0 && w.storage_available);
    io[0].blkio_state = io[1].blkio_state = -1;
    io[0].blkio = io[1].blkio = 0.5;
    wait_run(&a, &f, io, 2, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == 0 && !w.storage_available);
    CHECK_CONTAINS(w.storage_reason, "kernel.task_delayacct=0");
    /* ... but the job's cgroup io.pressure tells it: 0.4 s "some" a second. */
    gpu_wait_init(&a, 16, TCK);
    struct gpu_process proc = {.pid = 100, .bytes = MIB, .memory_devices = 1};
    struct gpu_sample s = {.procs = &proc, .nprocs = 1};
    s.device_util[0] = 5;
    struct tree_sample t = {.blkio = -1};
    struct cgroup_sample cg = {0};
    cg.psi_ok[CGROUP_PSI_IO] = 1;
    for (int i = 0; i < 3; i++) {
        cg.psi[CGROUP_PSI_IO].some_us = (unsigned long long)i * 400000;
        struct gpu_tree_sample gs;
        struct series_gpu proc_gpu, sys_gpu;
        pipeline_attribute_gpu(&s, 1, &f.roles, &gs, &proc_gpu, &sys_gpu);
        gpu_wait_step(&a, &s, &gs, 1, &t, &cg, i);
    }
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == GT_GPU_WAIT_STORAGE_BOUND && near(w.storage_wait, 0.4));
    CHECK(strcmp(w.storage_source, "cgroup io.pressure") == 0);
    /* ... unless the group was not the job's own: others' stalls. */
    gpu_wait_report(&a, 0, NULL, &w);
    CHECK(w.verdict == 0 && !w.storage_available && w.storage_seconds == 0);
    CHECK_CONTAINS(w.storage_reason, "no cgroup of the job's own gave io.pressure");
    /* Both at once: both said, workers first. */
    struct wait_step both[] = {{20, 2, 1.96, 1.96, 1, 0.6}};
    wait_run(&a, &f, both, 1, 16);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.verdict == (GT_GPU_WAIT_WORKERS | GT_GPU_WAIT_STORAGE_BOUND));
    CHECK(gpu_wait_advice(&w, advice, sizeof advice) == w.verdict);
    CHECK_CONTAINS(advice, "cores each 100% of the time it was in use; faster storage: ");
    /* gpu_tracker's text format ends with it, before the idle GPUs. */
    gt_gpu_idle *summary = calloc(1, sizeof *summary);
    struct buf text;
    buf_init(&text, 256);
    if (summary) {
        summary->struct_size = sizeof *summary;
        summary->wait = w;
        CHECK(gpu_idle_text(summary, &text) == 1);
        buf_puts(&text, "");
        CHECK_CONTAINS(text.data, "GPU waiting:\n   The GPUs were under 50% busy 100% of the "
                                  "time the job used them\n   Advice: more CPU cores per GPU: ");
        /* The workers' command is the job's text: escaped in the summary. */
        snprintf(summary->wait.worker_command, sizeof summary->wait.worker_command,
                 "w\x1b]0;x\a");
        text.len = 0;
        CHECK(gpu_idle_text(summary, &text) == 1);
        buf_puts(&text, "");
        CHECK_CONTAINS(text.data, "saturated w\\x1b]0;x\\x07 worker");
        CHECK(text.data && !strchr(text.data, '\x1b') && !strchr(text.data, '\a'));
        summary->wait.verdict = 0;
        text.len = 0;
        CHECK(gpu_idle_text(summary, &text) == 0 && text.len == 0);
    }
    free(summary);
    buf_free(&text);
    /* A driver that does not say where the memory is: the tree's GPU is
     * every GPU's mean (here GPU 0 at 20 %, GPU 1 at 100 %: 60 %, busy). */
    gpu_wait_init(&a, 16, TCK);
    {
        struct gpu_process anywhere = {.pid = 101, .bytes = MIB};
        struct gpu_sample two = {.procs = &anywhere, .nprocs = 1};
        two.device_util[0] = 20;
        two.device_util[1] = 100;
        struct gpu_tree_sample gs;
        struct series_gpu proc_gpu, sys_gpu;
        pipeline_attribute_gpu(&two, 2, &f.roles, &gs, &proc_gpu, &sys_gpu);
        CHECK(gs.memory_devices == ~0ULL);
        gpu_wait_step(&a, &two, &gs, 2, &t, NULL, 0);
        gpu_wait_step(&a, &two, &gs, 2, &t, NULL, 1);
        gpu_wait_report(&a, 1, NULL, &w);
        CHECK(near(w.gpu_seconds, 1) && w.waiting_seconds == 0);
    }
    /* No GPU reading at all: nothing judged. */
    gpu_wait_init(&a, 4, TCK);
    gpu_wait_step(&a, NULL, NULL, 0, &t, NULL, 0);
    gpu_wait_step(&a, NULL, NULL, 0, &t, NULL, 1);
    gpu_wait_report(&a, 1, NULL, &w);
    CHECK(w.gpu_seconds == 0 && w.verdict == 0);
    pid_index_free(&f.index);
}

/* A thread the program starts that enters the registry itself (the Python
 * Tracker's allocator reader): counted as the library's while entered, its
 * run time kept after it leaves; entering twice is once. */
static void *enter_burn_then_wait(void *arg)
{
    struct burner *b = arg;
    CHECK(library_thread_enter() == 0 && library_thread_enter() == 0);
    CHECK(is_running_library_thread((pid_t)syscall(SYS_gettid)));
    void *ret = burn_then_wait(b);
    library_thread_leave();
    CHECK(!is_running_library_thread((pid_t)syscall(SYS_gettid)));
    library_thread_leave(); /* not entered: nothing */
    return ret;
}

static void test_entered_thread(void)
{
    struct library_threads before;
    library_threads_usage(&before, 1, -1);
    struct burner b;
    sem_init(&b.burned, 0, 0);
    sem_init(&b.finish, 0, 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, enter_burn_then_wait, &b) == 0);
    while (sem_wait(&b.burned) < 0)
        ;
    long total = self_threads();
    struct library_threads listed;
    library_threads_usage(&listed, 1, total);
    CHECK_MSG(total > 1 && listed.others == total - 1, "%ld threads, others %ld", total,
              listed.others);
    CHECK(listed.run_ns >= before.run_ns + 30000000ULL);
    sem_post(&b.finish);
    pthread_join(th, NULL);
    /* (not its count: a joined thread may still be listed a moment) */
    struct library_threads after;
    library_threads_usage(&after, 1, -1);
    CHECK(after.run_ns >= before.run_ns + b.ran_ns);
    sem_destroy(&b.burned);
    sem_destroy(&b.finish);
}

int main(void)
{
    test_wakeup();
    test_gpu_attribution();
    test_gpu_wait();
    test_gpu_verdicts();
    test_exclude_library();
    test_library_run_time();
    test_entered_thread();
    test_steps_make_rows();
    test_metrics_point();
    test_self_and_gpu_in_step();
    test_csv_sink();
    test_tracking_rows_alive();
    test_backup_policy();
    return check_exit("test_pipeline");
}
