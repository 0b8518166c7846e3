#define _GNU_SOURCE
/* The tree walk and the aggregates on fixture /proc trees with known numbers:
 * sums, the shared-memory method, vanished processes, departures, reaped
 * children, a reaper's adopted orphans, pid reuse and the /proc scan. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>

#include "check.h"
#include "fixture.h"
#include "threads.h"
#include "common/internal.h"
#include "common/pid_index.h"
#include "read/procfs.h"
#include "read/tree.h"
#include "pipeline/usage.h"

static struct fx_proc main_proc(void)
{
    struct fx_proc p = {.pid = 100, .ppid = 1, .comm = "my (odd) prog) x", .utime = 50, .stime = 10,
                        .cutime = 5, .cstime = 1, .threads = 3, .rss_kb = 1000, .hwm_kb = 1500,
                        .anon_kb = 600, .private_kb = 600, .shared_kb = 400, .pss_kb = 700,
                        .starttime = 1000, .children = "101 102"};
    return p;
}

static void test_walk_sums_and_departures(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = main_proc();
    struct fx_proc c1 = {.pid = 101, .ppid = 100, .utime = 20, .stime = 2, .threads = 2,
                         .rss_kb = 2000, .anon_kb = 1500, .private_kb = 1500, .shared_kb = 500,
                         .pss_kb = 1700, .starttime = 1001, .children = "103"};
    struct fx_proc c2 = {.pid = 102, .ppid = 100, .utime = 7, .stime = 1, .rss_kb = 500,
                         .anon_kb = 300, .no_rollup = 1, .starttime = 1002};
    struct fx_proc g3 = {.pid = 103, .ppid = 101, .utime = 3, .rss_kb = 800, .anon_kb = 800,
                         .private_kb = 800, .pss_kb = 800, .starttime = 1003,
                         .children = "104" /* 104 vanished: no directory */};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c1);
    fx_proc_write(root, &c2);
    fx_proc_write(root, &g3);

    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_alive == 1);
    CHECK(s.main_ticks == 60);
    CHECK(s.desc_ticks == 6 + 22 + 8 + 3); /* main's reaped children + each desc */
    CHECK(s.main_threads == 3 && s.desc_threads == 4);
    CHECK(s.main_rss_kb == 1000 && s.main_private_kb == 600 && s.main_shared_kb == 400);
    CHECK(s.main_pss_kb == 700);
    CHECK(s.desc_rss_kb == 3300);
    /* 102 has no smaps_rollup: RssAnon stands for private, the rest shared. */
    CHECK(s.desc_private_kb == 1500 + 300 + 800);
    CHECK(s.desc_shared_kb == 500 + 200);
    CHECK(s.desc_shared_max_kb == 500);
    CHECK(s.desc_pss_shared_kb == 200); /* (1700-1500) + 0 + 0 */
    /* Found on the first walk of an attach: their peaks may predate us. */
    CHECK(s.main_hwm_kb == 0 && s.desc_hwm_max_kb == 0);

    /* 103 exits and 101 reaps it; main's VmHWM rises; 105 is born under 102. */
    fx_proc_remove(root, 103);
    c1.cutime = 3;
    c1.children = "";
    fx_proc_write(root, &c1);
    m.hwm_kb = 1800;
    fx_proc_write(root, &m);
    struct fx_proc n5 = {.pid = 105, .ppid = 102, .utime = 1, .rss_kb = 100, .hwm_kb = 5000,
                         .anon_kb = 100, .private_kb = 100, .pss_kb = 100, .starttime = 1005};
    fx_proc_write(root, &n5);
    c2.children = "105";
    fx_proc_write(root, &c2);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.desc_ticks == 6 + 25 + 8 + 1); /* 103's time moved, not lost or doubled */
    CHECK(s.main_hwm_kb == 1800);           /* rose while tracked */
    CHECK(s.desc_hwm_max_kb == 5000);       /* born while tracked */

    /* 102 exits, main reaps it; its child 105 is re-parented outside the tree
     * (no subreaper) and leaves our view while alive: keep its last figure. */
    fx_proc_remove(root, 102);
    m.cutime = 5 + 8;
    m.children = "101";
    fx_proc_write(root, &m);
    n5.ppid = 1;
    fx_proc_write(root, &n5);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.desc_ticks == 14 + 25 + 1);
    CHECK(s.desc_threads == 2);

    /* A pid reused by a new process (another starttime) is a new process. */
    c1.starttime = 5000;
    c1.utime = 0;
    c1.stime = 0;
    c1.cutime = 0;
    c1.hwm_kb = 7000;
    fx_proc_write(root, &c1);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.desc_hwm_max_kb == 7000);
    CHECK(s.desc_ticks == 14 + 1); /* old 101 reaped by main (alive): dropped */

    /* main exits and its pid is reused at once (another starttime): the
     * newcomer is not main; main's last figures stay. */
    m.starttime = 9999;
    m.utime = 1;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_alive == 0);
    CHECK(s.main_ticks == 60);
    CHECK(s.desc_threads == 0); /* main's children are no longer reached */
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_alive == 0 && s.main_ticks == 60);
    tree_free(&t);
    fx_rmroot(root);
}

static void test_reaper_and_zombie(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc reaper = {.pid = 50, .ppid = 1, .cutime = 4, .rss_kb = 100, .anon_kb = 100,
                             .starttime = 10, .children = "100 200"};
    struct fx_proc m = main_proc();
    m.children = "";
    m.cutime = m.cstime = 0;
    struct fx_proc orphan = {.pid = 200, .ppid = 50, .utime = 30, .rss_kb = 3000, .hwm_kb = 4000,
                             .anon_kb = 3000, .private_kb = 3000, .pss_kb = 3000, .starttime = 20};
    fx_proc_write(root, &reaper);
    fx_proc_write(root, &m);
    fx_proc_write(root, &orphan);

    struct tree t;
    CHECK(tree_init(&t, root, 100, 50, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_ticks == 60 && s.main_alive == 1 && s.main_zombie == 0);
    CHECK(s.desc_ticks == 30 + 4); /* the adopted orphan, and what the reaper reaped */
    CHECK(s.desc_rss_kb == 3000);  /* the reaper itself is not tracked */
    CHECK(s.desc_hwm_max_kb == 4000);
    /* With a reaper, the first walk is the baseline of a command held
     * before its exec: main's memory there is gpu-tracker's fork's, not
     * read; from the next walk on it is. */
    CHECK(s.main_hwm_kb == 0 && s.main_rss_kb == 0);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_hwm_kb == 1500);  /* with a reaper, all was born under tracking */

    /* The reaper reaps the orphan: its time moves to the reaper's cutime. */
    fx_proc_remove(root, 200);
    reaper.cutime = 34;
    reaper.children = "100";
    fx_proc_write(root, &reaper);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.desc_ticks == 34);

    /* main becomes a zombie: its final times count, it holds no memory, and
     * its fault counters tell whether it reaped any child. */
    m.state = 'Z';
    m.utime = 70;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_alive == 1 && s.main_zombie == 1 && s.main_ticks == 80);
    CHECK(s.main_rss_kb == 0 && s.main_threads == 0);
    CHECK(s.main_cminflt == 0 && s.main_cmajflt == 0);
    m.cminflt = 12;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_cminflt == 12);
    tree_free(&t);
    fx_rmroot(root);
}

static void test_scan_fallback_and_missing(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = main_proc();
    m.no_children_files = 1;
    struct fx_proc c = {.pid = 101, .ppid = 100, .utime = 9, .rss_kb = 10, .anon_kb = 10,
                        .private_kb = 10, .pss_kb = 10, .starttime = 1001, .no_children_files = 1};
    struct fx_proc other = {.pid = 300, .ppid = 1, .utime = 99, .rss_kb = 10, .anon_kb = 10,
                            .starttime = 3, .no_children_files = 1};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    fx_proc_write(root, &other);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(t.scan_fallback == 1);
    CHECK(s.desc_ticks == 6 + 9); /* 101 found by its ppid; 300 is not ours */
    tree_free(&t);

    /* A process that does not exist, and a procfs root that does not. */
    CHECK(tree_init(&t, root, 4242, 0, 0) < 0);
    CHECK(tree_init(&t, "/nonexistent-proc-root", 100, 0, 0) < 0);
    fx_rmroot(root);
}

/* The usage tests count CPU in clock ticks of 10 ms, as nanoseconds. */
#define TICK_NS 10000000ULL

static void test_usage_aggregates(void)
{
    struct usage_acc a;
    usage_init(&a, 1.0);
    struct sys_cpu cpu0 = {.busy = 0, .total = 0, .ncpu = 2};
    struct meminfo mem = {.total_kb = 1000000, .available_kb = 900000};

    /* Baseline: anchors the counters; its RAM and threads (gpu-tracker's
     * own fork's) are ignored, but main is there: one thread at least. */
    struct tree_sample s = {.main_alive = 1, .main_rss_kb = 9999, .main_threads = 9};
    usage_add(&a, 10.0, &s, &cpu0, &mem, NULL);

    struct tree_sample s1 = {.main_alive = 1, .main_ns = 50 * TICK_NS, .desc_ns = 150 * TICK_NS,
                             .main_threads = 2, .desc_threads = 5,
                             .main_rss_kb = 1000, .main_private_kb = 600, .main_shared_kb = 400,
                             .main_pss_kb = 700, .desc_rss_kb = 3300, .desc_private_kb = 2600,
                             .desc_shared_kb = 700, .desc_shared_max_kb = 500,
                             .desc_pss_shared_kb = 200, .main_hwm_kb = 1200};
    struct sys_cpu cpu1 = {.busy = 100, .total = 200, .ncpu = 2};
    mem.available_kb = 700000;
    usage_add(&a, 11.0, &s1, &cpu1, &mem, NULL);

    struct tree_sample s2 = s1;
    s2.main_ns = 150 * TICK_NS;
    s2.desc_ns = 160 * TICK_NS;
    s2.desc_threads = 1;
    struct sys_cpu cpu2 = {.busy = 150, .total = 400, .ncpu = 2};
    mem.available_kb = 800000;
    usage_add(&a, 12.0, &s2, &cpu2, &mem, NULL);

    /* A final interval of 0.1 s: 20 ticks would read as 200%; left out of max. */
    struct tree_sample s3 = s2;
    s3.main_ns = 170 * TICK_NS;
    struct sys_cpu cpu3 = {.busy = 190, .total = 420, .ncpu = 2};
    usage_add(&a, 12.1, &s3, &cpu3, &mem, NULL);

    struct usage_units u = {"kilobytes", "gigabytes", "seconds", 1e3, 1e9, 1.0, 2, 4};
    gt_resource_usage r = {.struct_size = sizeof(gt_resource_usage)};
    usage_result(&a, &u, 2.1, &r);
    CHECK(r.measurement.samples == 4);
    CHECK(r.cpu_utilization.main.max_sum_percent == 100.0);
    CHECK(r.cpu_utilization.descendants.max_sum_percent == 150.0);
    CHECK(r.cpu_utilization.combined.max_sum_percent == 200.0);
    CHECK(r.cpu_utilization.main.max_hardware_percent == 25.0);
    /* Means are exact: all ticks over the whole span. */
    double span = 12.1 - 10.0;
    CHECK(fabs(r.cpu_utilization.main.mean_sum_percent - 170.0 / 100.0 / span * 100.0) < 1e-9);
    CHECK(fabs(r.cpu_utilization.descendants.mean_sum_percent - 160.0 / span) < 1e-9);
    CHECK(fabs(r.cpu_utilization.combined.mean_hardware_percent - 330.0 / span / 4) < 1e-9);
    /* System: busy/total of each interval times the cores. */
    CHECK(r.cpu_utilization.system.max_sum_percent == 100.0);
    CHECK(fabs(r.cpu_utilization.system.mean_sum_percent - 190.0 / 420.0 * 200.0) < 1e-9);
    CHECK(r.cpu_utilization.system.max_hardware_percent == 50.0);
    CHECK(r.cpu_utilization.main_n_threads == 2);
    CHECK(r.cpu_utilization.descendants_n_threads == 5);
    CHECK(r.cpu_utilization.combined_n_threads == 7);

    /* A job shorter than an interval: the baseline and a final sample of a
     * zombie (no threads left): the baseline's thread is the peak. */
    struct usage_acc shortjob;
    usage_init(&shortjob, 1.0);
    usage_add(&shortjob, 10.0, &s, &cpu0, &mem, NULL);
    struct tree_sample zombie = {.main_alive = 1, .main_ns = 3 * TICK_NS};
    usage_add(&shortjob, 10.4, &zombie, &cpu1, &mem, NULL);
    gt_resource_usage rs = {.struct_size = sizeof(gt_resource_usage)};
    usage_result(&shortjob, &u, 0.4, &rs);
    CHECK(rs.cpu_utilization.main_n_threads == 1 && rs.cpu_utilization.combined_n_threads == 1);

    /* RAM, kB -> kilobytes (x1.024). main's total is its VmHWM (1200). */
    CHECK(r.max_ram.main.total_rss == 1200 * 1.024);
    CHECK(r.max_ram.main.private_rss == 600 * 1.024);
    /* descendants: shared = max(largest one 500, sum of shares 200). */
    CHECK(r.max_ram.descendants.shared_rss == 500 * 1.024);
    CHECK(r.max_ram.descendants.total_rss == 3100 * 1.024);
    /* combined: private summed, shared = max(400, 500, (700-600)+200). */
    CHECK(r.max_ram.combined.private_rss == 3200 * 1.024);
    CHECK(r.max_ram.combined.shared_rss == 500 * 1.024);
    CHECK(r.max_ram.combined.total_rss == 3700 * 1.024);
    CHECK(r.max_ram.system == 300000 * 1.024);
    CHECK(r.max_ram.system_capacity == 1000000 * 1.024);
    CHECK(r.compute_time.time == 2.1);
    CHECK_STR(r.max_ram.unit, "kilobytes");

    /* One tick too many in an interval cannot make a rate above all cores. */
    struct tree_sample s4 = s3;
    s4.main_ns = (170 + 201) * TICK_NS;
    s4.desc_ns = 160 * TICK_NS;
    struct sys_cpu cpu4 = {.busy = 390, .total = 620, .ncpu = 2};
    usage_add(&a, 13.1, &s4, &cpu4, &mem, NULL);
    usage_result(&a, &u, 3.1, &r);
    CHECK(r.cpu_utilization.main.max_sum_percent == 200.0);
    CHECK(r.cpu_utilization.descendants.max_sum_percent == 150.0);
    CHECK(r.cpu_utilization.combined.max_sum_percent == 200.0);

    /* Reaped high-water marks: main's own only when it reaped no child. */
    struct tree_sample s5 = s4;
    s5.main_cminflt = 3; /* main has reaped a child */
    usage_add(&a, 14.1, &s5, &cpu4, &mem, NULL);
    usage_add_reaped(&a, 1, 9000);
    usage_result(&a, &u, 3.1, &r);
    CHECK(r.max_ram.main.total_rss == 1200 * 1.024);
    CHECK(r.max_ram.combined.total_rss == 9000 * 1.024);
    /* 9000 kB is main's or a child's: which, no sample can tell. */
    CHECK(r.measurement.rss_split_unknown == 1);
    CHECK(r.measurement.rss_unattributed_bytes == (9000.0 - 3100.0) * 1024.0);
    s5.main_cminflt = 0;
    usage_add(&a, 15.1, &s5, &cpu4, &mem, NULL);
    usage_add_reaped(&a, 1, 8000);
    usage_add_reaped(&a, 0, 6000);
    usage_result(&a, &u, 3.1, &r);
    CHECK(r.max_ram.main.total_rss == 8000 * 1.024);
    CHECK(r.max_ram.descendants.total_rss == 6000 * 1.024);
    CHECK(r.max_ram.combined.total_rss == 9000 * 1.024);
}

static void test_usage_short_run(void)
{
    /* A run shorter than half an interval: max is the mean of its one span. */
    struct usage_acc a;
    usage_init(&a, 1.0);
    struct tree_sample s = {.main_alive = 1};
    usage_add(&a, 0.0, &s, NULL, NULL, NULL);
    s.main_ns = 3 * TICK_NS;
    usage_add(&a, 0.1, &s, NULL, NULL, NULL);
    struct usage_units u = {"bytes", "bytes", "seconds", 1, 1, 1, 2, 1};
    gt_resource_usage r = {.struct_size = sizeof(gt_resource_usage)};
    usage_result(&a, &u, 0.1, &r);
    CHECK(fabs(r.cpu_utilization.main.mean_sum_percent - 30.0) < 1e-9);
    CHECK(fabs(r.cpu_utilization.main.max_sum_percent - 30.0) < 1e-9);
}

/* One run's samples of a launcher (main "bash" at VmHWM hwm_kb with
 * faults faults), then its zombie with final_faults, then its reaped
 * record; main reaped a child when cminflt is set. */
static void launcher_run(struct usage_acc *a, unsigned long long hwm_kb,
                         unsigned long long faults, unsigned long long final_faults,
                         unsigned long long cminflt, unsigned long long maxrss_kb,
                         unsigned long long fork_kb)
{
    usage_init(a, 1.0);
    struct tree_sample s = {.main_alive = 1, .fork_hwm_kb = fork_kb};
    usage_add(a, 0.0, &s, NULL, NULL, NULL); /* the baseline: our fork */
    snprintf(s.main_comm, sizeof s.main_comm, "bash");
    s.main_rss_kb = s.main_hwm_kb = hwm_kb;
    s.main_faults = faults;
    s.main_cminflt = cminflt;
    usage_add(a, 1.0, &s, NULL, NULL, NULL);
    usage_add(a, 2.0, &s, NULL, NULL, NULL);
    s.main_zombie = 1;
    s.main_rss_kb = s.main_hwm_kb = 0;
    s.main_faults = final_faults;
    usage_add(a, 2.5, &s, NULL, NULL, NULL);
    usage_add_reaped(a, 1, maxrss_kb);
}

/* Whose a reaped record's peak was: main's VmHWM as sampled and the faults
 * it made since bound its own, so a record above that is a child's; one
 * within it is either (each side between what samples saw and its bound);
 * a main without children owns its record; a record no more than our
 * fork's mark is nobody's of the job. */
static void test_usage_reaped_attribution(void)
{
    struct usage_units u = {"bytes", "bytes", "seconds", 1, 1, 1, 2, 1};
    gt_resource_usage r = {.struct_size = sizeof(gt_resource_usage)};
    struct usage_acc a;

    /* bash at 8 MiB, 3 faults at its exit, a 409 MiB record: a child's. */
    launcher_run(&a, 8192, 500, 503, 100000, 418816, 2048);
    usage_result(&a, &u, 2.5, &r);
    CHECK(r.max_ram.main.total_rss == 8192 * 1024.0);
    CHECK(r.max_ram.descendants.total_rss == 418816 * 1024.0);
    CHECK(r.max_ram.combined.total_rss == 418816 * 1024.0);
    CHECK(!r.measurement.rss_split_unknown);
    CHECK(r.measurement.rss_peak_holder == GT_RSS_PEAK_DESCENDANT);
    /* its private and shared parts are no sample's: not known */
    CHECK(r.measurement.rss_parts_unknown == (2 | 4));

    /* 300 faults since the last sample could be 600 MiB of huge pages:
     * main's or the child's, not told apart; each side gets its bound. */
    launcher_run(&a, 8192, 500, 800, 100000, 418816, 2048);
    usage_result(&a, &u, 2.5, &r);
    CHECK(r.measurement.rss_split_unknown);
    CHECK(r.measurement.rss_peak_holder == GT_RSS_PEAK_EITHER);
    CHECK(r.max_ram.main.total_rss == 8192 * 1024.0);               /* as sampled */
    CHECK(r.max_ram.descendants.total_rss == 418816 * 1024.0);      /* no sample: its bound */
    CHECK(r.measurement.rss_main_sampled_bytes == 8192 * 1024.0);
    CHECK(r.measurement.rss_main_at_most_bytes == 418816 * 1024.0);
    CHECK(r.measurement.rss_descendants_at_most_bytes == 418816 * 1024.0);

    /* No child: the record is main's own. */
    launcher_run(&a, 8192, 500, 800, 0, 418816, 2048);
    usage_result(&a, &u, 2.5, &r);
    CHECK(r.max_ram.main.total_rss == 418816 * 1024.0);
    CHECK(r.max_ram.descendants.total_rss == 0);
    CHECK(r.measurement.rss_peak_holder == GT_RSS_PEAK_MAIN);

    /* An exec to another image with a lower VmHWM: the image left is
     * bounded when the next sample finds the new one, so a record above
     * both is still a child's; one within the old image's bound is not. */
    for (int within = 0; within < 2; within++) {
        usage_init(&a, 1.0);
        struct tree_sample s = {.main_alive = 1, .fork_hwm_kb = 2048, .main_cminflt = 10};
        usage_add(&a, 0.0, &s, NULL, NULL, NULL);
        snprintf(s.main_comm, sizeof s.main_comm, "bash");
        s.main_hwm_kb = 8192;
        s.main_faults = 500;
        usage_add(&a, 1.0, &s, NULL, NULL, NULL);
        snprintf(s.main_comm, sizeof s.main_comm, "sleep");
        s.main_hwm_kb = 600;
        s.main_faults = within ? 700 : 520; /* 200 faults: up to 400 MiB more in bash */
        usage_add(&a, 2.0, &s, NULL, NULL, NULL);
        s.main_zombie = 1;
        s.main_hwm_kb = 0;
        usage_add(&a, 2.5, &s, NULL, NULL, NULL);
        usage_add_reaped(&a, 1, 300000);
        usage_result(&a, &u, 2.5, &r);
        CHECK(r.measurement.rss_peak_holder ==
              (within ? GT_RSS_PEAK_EITHER : GT_RSS_PEAK_DESCENDANT));
    }

    /* /bin/true: no sample saw it, and its record is our fork's mark. */
    usage_init(&a, 1.0);
    struct tree_sample s = {.main_alive = 1, .fork_hwm_kb = 2048};
    usage_add(&a, 0.0, &s, NULL, NULL, NULL);
    s.main_zombie = 1;
    usage_add(&a, 0.01, &s, NULL, NULL, NULL);
    usage_add_reaped(&a, 1, 2048);
    usage_result(&a, &u, 0.01, &r);
    CHECK(r.max_ram.combined.total_rss == 0 && r.max_ram.main.total_rss == 0);
    CHECK(r.measurement.rss_peak_holder == GT_RSS_PEAK_UNSEEN);
    CHECK(r.measurement.rss_unseen_at_most_bytes == 2048 * 1024.0);
    /* ... and a short job above that mark owns its record. */
    usage_init(&a, 1.0);
    usage_add(&a, 0.0, &s, NULL, NULL, NULL);
    usage_add(&a, 0.01, &s, NULL, NULL, NULL);
    usage_add_reaped(&a, 1, 104000);
    usage_result(&a, &u, 0.01, &r);
    CHECK(r.max_ram.main.total_rss == 104000 * 1024.0);
    CHECK(r.measurement.rss_peak_holder == GT_RSS_PEAK_MAIN);
    CHECK(r.measurement.rss_parts_unknown == (1 | 4));
}

/* No fixed buffer loses a thread or a child: a main process with 1500
 * threads whose last thread has the child, and a thread with 6000 children
 * (a children file of ~40 KB). */
static void test_many_threads_and_children(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    enum { NTHREADS = 1500, NCHILDREN = 6000 };
    struct fx_proc m = {.pid = 100, .ppid = 1, .threads = NTHREADS, .rss_kb = 1000,
                        .anon_kb = 1000, .private_kb = 1000, .pss_kb = 1000, .starttime = 5};
    fx_proc_write(root, &m);
    /* Threads 100000.. (after the main one in task/'s order); the last has
     * a child, 200000 (that holds 5000 kB), and the one before it 6000
     * children from 300000 on. */
    char rel[128];
    for (int i = 0; i < NTHREADS - 1; i++) {
        snprintf(rel, sizeof rel, "100/task/%d", 100000 + i);
        fx_mkdirs(root, rel);
        snprintf(rel, sizeof rel, "100/task/%d/children", 100000 + i);
        fx_write(root, rel, "");
    }
    snprintf(rel, sizeof rel, "100/task/%d/children", 100000 + NTHREADS - 2);
    fx_write(root, rel, "200000 ");
    size_t cap = NCHILDREN * 8 + 1, len = 0;
    char *many = malloc(cap);
    for (int i = 0; i < NCHILDREN; i++)
        len += (size_t)snprintf(many + len, cap - len, "%d ", 300000 + i);
    snprintf(rel, sizeof rel, "100/task/%d/children", 100000 + NTHREADS - 3);
    fx_write(root, rel, many);
    free(many);
    struct fx_proc late = {.pid = 200000, .ppid = 100, .rss_kb = 5000, .anon_kb = 5000,
                           .private_kb = 5000, .pss_kb = 5000, .starttime = 6};
    fx_proc_write(root, &late);
    for (int i = 0; i < NCHILDREN; i++) {
        struct fx_proc c = {.pid = 300000 + i, .ppid = 100, .rss_kb = 10, .anon_kb = 10,
                            .private_kb = 10, .pss_kb = 10, .starttime = 7};
        fx_proc_write(root, &c);
    }

    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK_MSG(s.children == NCHILDREN + 1, "%ld children seen of %d", s.children, NCHILDREN + 1);
    CHECK(s.desc_rss_kb == 5000 + NCHILDREN * 10);
    CHECK(s.main_threads == NTHREADS);
    CHECK(!t.scan_fallback); /* found through the children files, no /proc scan */
    tree_free(&t);
    fx_rmroot(root);
}

/* max_kept_files bounds what the walk keeps open, and past it every
 * process is still read (through descriptors opened and closed at once);
 * a process's directory is kept whatever the limit. */
static void test_kept_files_bound(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    enum { NCHILDREN = 50, NPROCS = NCHILDREN + 1 };
    char list[NCHILDREN * 8] = "";
    size_t len = 0;
    for (int i = 0; i < NCHILDREN; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%d ", 1000 + i);
    struct fx_proc m = {.pid = 100, .ppid = 1, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 5, .children = list};
    fx_proc_write(root, &m);
    for (int i = 0; i < NCHILDREN; i++) {
        struct fx_proc c = {.pid = 1000 + i, .ppid = 100, .utime = 2, .rss_kb = 10,
                            .anon_kb = 10, .private_kb = 10, .pss_kb = 10, .starttime = 7};
        fx_proc_write(root, &c);
    }
    int before = open_fds();
    /* Fewer than the directories; a few files past them; no limit. */
    const int limits[] = {10, NPROCS + 20, 1 << 18};
    for (size_t k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        struct tree t;
        CHECK(tree_init(&t, root, 100, 0, limits[k]) == 0);
        /* Directories are kept whatever the limit, files while it lets. */
        int most = limits[k] > NPROCS ? limits[k] : NPROCS;
        struct tree_sample s;
        for (int walk = 0; walk < 2; walk++) {
            CHECK(tree_walk(&t, &s) == 0);
            CHECK_MSG(s.children == NCHILDREN, "%ld children seen of %d", s.children, NCHILDREN);
            CHECK(s.desc_rss_kb == NCHILDREN * 10);
            CHECK(s.desc_ticks == NCHILDREN * 2);
            CHECK(!t.fd_exhausted);
            /* The procfs root and what the limit lets it keep. */
            CHECK_MSG(open_fds() <= before + 1 + most, "limit %d: %d descriptors open, %d before",
                      limits[k], open_fds(), before);
        }
        if (limits[k] == NPROCS + 20)
            CHECK_MSG(open_fds() == before + 1 + NPROCS + 20, "%d open, %d before", open_fds(),
                      before); /* every file it may keep, it keeps */
        tree_free(&t);
        CHECK(open_fds() == before);
    }
    fx_rmroot(root);
}

/* A file that does not parse fails with ERR_MALFORMED, which callers can
 * tell from a kernel EINVAL, and which the public boundary reports as
 * GT_ERR_PARSE; a missing one keeps the kernel's errno. */
static void test_malformed_is_not_einval(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = main_proc();
    fx_proc_write(root, &m);
    fx_write(root, "100/status", "Name:\tx\nThreads:\tmany\n");
    fx_write(root, "100/stat", "100 (x) R");
    int rootfd = open(root, O_RDONLY | O_DIRECTORY);
    struct proc_handle h;
    CHECK(procfs_open(rootfd, 100, NULL, &h) == 0);
    char buf[4096];
    struct proc_status st;
    errno = 0;
    CHECK(procfs_read_status(&h, buf, sizeof buf, &st) < 0 && errno == ERR_MALFORMED);
    struct proc_stat ps;
    errno = 0;
    CHECK(procfs_read_stat(&h, buf, sizeof buf, &ps) < 0 && errno == ERR_MALFORMED);
    CHECK(ERR_MALFORMED != EINVAL);
    CHECK_STR(errno_text(ERR_MALFORMED), "malformed contents");
    CHECK(status_of_errno(ERR_MALFORMED) == GT_ERR_PARSE);
    CHECK(status_of_errno(EINVAL) == GT_ERR_IO);
    CHECK(status_of_errno(ENOMEM) == GT_ERR_NO_MEMORY);
    CHECK(status_of_errno(ESRCH) == GT_ERR_NO_PROCESS);
    procfs_close(&h);
    fx_proc_remove(root, 100);
    errno = 0;
    CHECK(procfs_open(rootfd, 100, NULL, &h) < 0 && errno == ENOENT);
    close(rootfd);
    fx_rmroot(root);
}

/* The PID index against a plain array, over a long run of churn: PIDs
 * that collide in the table (multiples of its size), removals in the
 * middle of probe runs, reinsertion, growth. After every step each PID's
 * presence and value match the array's. */
static void test_pid_index(void)
{
    enum { SPACE = 4096, STEPS = 200000 };
    static long truth[SPACE]; /* -1: absent, else the value */
    for (size_t i = 0; i < SPACE; i++)
        truth[i] = -1;
    struct pid_index ix;
    pid_index_init(&ix);
    size_t v;
    CHECK(pid_index_get(&ix, 5, &v) == 0);
    pid_index_remove(&ix, 5); /* absent from an empty index: nothing */
    unsigned seed = 12345;
    long present = 0, mismatches = 0;
    for (long step = 0; step < STEPS; step++) {
        seed = seed * 1103515245u + 12345u;
        /* Half the PIDs are multiples of 64, which all share a home slot. */
        pid_t pid = (pid_t)(1 + (seed >> 8) % (SPACE - 1));
        if ((seed >> 4) & 1)
            pid = (pid_t)(64 * (1 + (pid % (SPACE / 64 - 1))));
        if ((seed >> 6) % 3 == 0) {
            pid_index_remove(&ix, pid);
            present -= truth[pid] >= 0;
            truth[pid] = -1;
        } else {
            if (pid_index_put(&ix, pid, (size_t)step) < 0)
                mismatches++;
            present += truth[pid] < 0;
            truth[pid] = step;
        }
        if (step % 997 == 0 || step == STEPS - 1)
            for (pid_t q = 1; q < SPACE; q++) {
                int found = pid_index_get(&ix, q, &v);
                if (found != (truth[q] >= 0) || (found && (long)v != truth[q]))
                    mismatches++;
            }
    }
    CHECK_MSG(mismatches == 0, "%ld puts failed or lookups disagreed with the array", mismatches);
    CHECK(ix.count == (size_t)present);
    CHECK(ix.cap >= 2 * ix.count); /* kept at most half full */
    CHECK(pid_index_put(&ix, 0, 1) < 0 && pid_index_put(&ix, -3, 1) < 0);
    pid_index_free(&ix);
    CHECK(ix.cap == 0 && pid_index_get(&ix, 64, &v) == 0);
}

/* Who was in the tree: groups by command from the walk (CPU counted from
 * the baseline walk on, PSS summed per walk), a fork-then-exec child that
 * moves, the fold past the limit, and the top process's timeline with its
 * bound. */
static void test_census(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .comm = "python", .utime = 500, .threads = 1,
                        .rss_kb = 3000, .anon_kb = 3000, .private_kb = 3000, .pss_kb = 3000,
                        .starttime = 1000, .children = "101 102 103"};
    struct fx_proc w1 = {.pid = 101, .ppid = 100, .comm = "pt_data_worker", .utime = 40,
                         .rss_kb = 900, .anon_kb = 900, .private_kb = 900, .pss_kb = 900,
                         .starttime = 1001};
    struct fx_proc w2 = w1;
    w2.pid = 102;
    w2.starttime = 1002;
    w2.pss_kb = 700;
    struct fx_proc sh = {.pid = 103, .ppid = 100, .comm = "python", .utime = 0, .rss_kb = 100,
                         .anon_kb = 100, .private_kb = 100, .pss_kb = 100, .starttime = 1003};
    fx_proc_write(root, &m);
    fx_proc_write(root, &w1);
    fx_proc_write(root, &w2);
    fx_proc_write(root, &sh);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    t.walk_time = 10.0;
    CHECK(tree_walk(&t, &s) == 0);
    /* Second walk: the workers used 60 and 30 ticks more, 103 exec'd
     * "sh" before using any CPU as "python": it moves. */
    w1.utime = 100;
    w2.utime = 70;
    w2.rss_kb = w2.anon_kb = w2.private_kb = w2.pss_kb = 4000; /* now the largest */
    sh.comm = "sh";
    sh.utime = 5;
    m.utime = 520;
    fx_proc_write(root, &w1);
    fx_proc_write(root, &w2);
    fx_proc_write(root, &sh);
    fx_proc_write(root, &m);
    t.walk_time = 11.0;
    CHECK(tree_walk(&t, &s) == 0);
    /* The walk's busiest workers: the two pt_data_workers' 90 ticks, not
     * main's 20 under "python" nor sh's 5; main's block I/O delay read. */
    CHECK(strcmp(s.workers.command, "pt_data_worker") == 0 && s.workers.processes == 2);
    CHECK(s.workers.ticks == 90 && s.workers.runnable_ns == 0);
    CHECK(s.blkio == 1 && s.main_blkio_ticks == 0);

    gt_command_groups g = {.struct_size = sizeof g};
    census_groups(&t.census, 100, &g);
    CHECK(g.available && g.commands == 3 && g.processes == 4 && g.ngroups == 3);
    CHECK(strcmp(g.groups[0].command, "pt_data_worker") == 0);
    CHECK(g.groups[0].processes == 2 && g.groups[0].peak_concurrent == 2);
    CHECK(fabs(g.groups[0].cpu_seconds - 0.9) < 1e-9); /* (60 + 30) ticks at 100 Hz */
    CHECK(g.groups[0].peak_pss_bytes == (900.0 + 4000.0) * 1024);
    CHECK(strcmp(g.groups[1].command, "python") == 0);
    CHECK(g.groups[1].processes == 1); /* 103 moved to sh */
    CHECK(fabs(g.groups[1].cpu_seconds - 0.2) < 1e-9);
    CHECK(g.groups[1].peak_pss_bytes == (3000.0 + 100.0) * 1024); /* walk 1: with 103 */
    CHECK(strcmp(g.groups[2].command, "sh") == 0 && g.groups[2].processes == 1);
    CHECK(fabs(g.cpu_seconds - 1.15) < 1e-9 && g.others == 0 && g.folded == 0);

    size_t n;
    gt_top_process *ch = census_top_changes(&t.census, 10.0, &n);
    CHECK(ch && n == 2);
    if (ch && n == 2) {
        CHECK(ch[0].pid == 100 && ch[0].at == 0 && strcmp(ch[0].command, "python") == 0);
        CHECK(ch[1].pid == 102 && ch[1].at == 1.0 &&
              strcmp(ch[1].command, "pt_data_worker") == 0);
    }
    free(ch);
    tree_free(&t);
    fx_rmroot(root);

    /* The census alone: 1100 names fold past the limit, said; a top
     * process that flaps every step stays within its bound. */
    struct census c;
    census_init(&c);
    struct census_slot *slots = calloc(1100, sizeof *slots);
    CHECK(slots != NULL);
    for (int walk = 0; slots && walk < 2; walk++) {
        census_begin(&c);
        for (int i = 0; i < 1100; i++) {
            char name[16];
            snprintf(name, sizeof name, "cmd%d", i);
            census_add(&c, &slots[i], 1000 + i, name, (unsigned long long)walk * 10, 10, 1);
        }
        census_end(&c, walk);
    }
    g = (gt_command_groups){.struct_size = sizeof g};
    census_groups(&c, 100, &g);
    CHECK(g.commands == CENSUS_MAX_GROUPS && g.processes == 1100);
    CHECK(g.folded == 1100 - (CENSUS_MAX_GROUPS - 1));
    CHECK(g.ngroups == GT_COMMAND_GROUPS_MAX && g.others == CENSUS_MAX_GROUPS - g.ngroups);
    CHECK(strcmp(g.groups[0].command, CENSUS_OTHER_NAME) == 0); /* the most CPU: 77 x 0.1 s */
    CHECK(fabs(g.cpu_seconds - 110.0) < 1e-6);
    free(slots);
    census_free(&c);

    census_init(&c);
    struct census_slot a = {0}, b = {0};
    for (int walk = 0; walk < 3 * CENSUS_MAX_CHANGES; walk++) {
        census_begin(&c);
        census_add(&c, &a, 1, "a", 0, walk % 2 ? 10 : 20, 1);
        census_add(&c, &b, 2, "b", 0, 15, 1);
        census_end(&c, walk * 0.01);
    }
    CHECK(c.nchanges > 0 && c.nchanges <= CENSUS_MAX_CHANGES && c.resolution > 0);
    for (size_t i = 1; i < c.nchanges; i++)
        CHECK(c.changes[i].mono > c.changes[i - 1].mono && c.changes[i].pid != c.changes[i - 1].pid);
    census_free(&c);
}

/* A walk of t, then who held its peak into *b, emptied first. */
static void walk_breakdown(struct tree *t, gt_peak_breakdown *b)
{
    struct tree_sample s;
    CHECK(tree_walk(t, &s) == 0);
    memset(b, 0, sizeof *b);
    b->struct_size = sizeof *b;
    tree_memory_breakdown(t, b);
}

/* A peak's list names each process by its command line; one that is
 * exiting when a later peak names it (its cmdline reads empty once its
 * memory is gone) keeps the line an earlier list read. */
static void test_peak_names(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = main_proc();
    m.children = "101";
    struct fx_proc c = {.pid = 101, .ppid = 100, .rss_kb = 2000, .anon_kb = 2000,
                        .private_kb = 2000, .pss_kb = 2000, .starttime = 1001};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    fx_write(root, "101/cmdline", "child --flag");
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    gt_peak_breakdown b;
    walk_breakdown(&t, &b);
    CHECK(b.nprocesses == 2 && b.processes[0].pid == 101);
    CHECK_STR(b.processes[0].cmdline, "child --flag");
    char path[4200];
    snprintf(path, sizeof path, "%s/101/cmdline", root);
    CHECK(unlink(path) == 0);
    walk_breakdown(&t, &b);
    CHECK(b.nprocesses == 2 && b.processes[0].pid == 101);
    CHECK_STR(b.processes[0].cmdline, "child --flag");
    CHECK_STR(b.processes[1].cmdline, ""); /* main never had one here */
    tree_free(&t);
    fx_rmroot(root);
}

/* A peak's list ranks each process by its own (private) memory. A
 * smaps_rollup older than the RSS beside it (read before the process
 * allocated) counts what it gained since as its own: a child caught while
 * it allocates ranks above its shell, not as a small process whose memory
 * is shared; where the rollup matches the RSS, its shared part stays
 * shared. */
static void test_peak_stale_rollup(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .comm = "bash", .rss_kb = 3000, .anon_kb = 3000,
                        .private_kb = 300, .shared_kb = 2700, .pss_kb = 600, .starttime = 1000,
                        .children = "101"};
    struct fx_proc c = {.pid = 101, .ppid = 100, .comm = "worker", .rss_kb = 1500, .anon_kb = 100,
                        .private_kb = 100, .shared_kb = 1400, .pss_kb = 200, .starttime = 1001};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    gt_peak_breakdown b;
    walk_breakdown(&t, &b);
    CHECK(b.nprocesses == 2 && b.processes[0].pid == 100);
    CHECK(b.nprocesses == 2 && b.processes[1].private_bytes == 100 * 1024.0);
    /* the worker's RSS grows to 400000 kB; its rollup still says 1500 */
    c.rss_kb = 400000;
    c.anon_kb = 400000 - 1400;
    fx_proc_write(root, &c);
    walk_breakdown(&t, &b);
    CHECK_MSG(b.nprocesses == 2 && b.processes[0].pid == 101, "first %d",
              b.nprocesses ? (int)b.processes[0].pid : 0);
    CHECK(b.processes[0].private_bytes == (100 + 400000 - 1500) * 1024.0);
    tree_free(&t);
    fx_rmroot(root);
}

/* The corners' raw figures (docs/metrics.md, "Corners"): a process
 * ignoring SIGCHLD is named, a zombie main too (its dispositions last
 * until it is reaped); the run-queue delay of the processes' main threads
 * sums what each ran and waited between two walks that saw it, and a
 * kernel whose schedstat is all zeros gives no figure. */
static void test_corner_figures(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 2, 1000000, 500000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .comm = "launcher", .utime = 5, .rss_kb = 1000,
                        .anon_kb = 1000, .starttime = 1000, .children = "101"};
    struct fx_proc c = {.pid = 101, .ppid = 100, .comm = "daemon\x1b]0", .rss_kb = 500,
                        .anon_kb = 500, .starttime = 1001, .sig_ign = 1ULL << (SIGCHLD - 1)};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.sigchld_ignorer == 101 && !strcmp(s.sigchld_ignorer_comm, "daemon\x1b]0"));
    CHECK(s.sched_ok == 0); /* zeros so far: not known to be counted */
    /* Both ran; the daemon waited 3 ms of its 4 ms runnable. */
    m.sched_run_ns = 2000000;
    m.sched_wait_ns = 500000;
    c.sched_run_ns = 1000000;
    c.sched_wait_ns = 3000000;
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.sched_ok == 1 && s.sched_run_ns == 3000000 && s.sched_wait_ns == 3500000);
    /* The daemon went away; main is a zombie that ignored SIGCHLD too. */
    char path[4096];
    snprintf(path, sizeof path, "rm -rf %s/101", root);
    CHECK(system(path) == 0);
    m.children = "";
    m.state = 'Z';
    m.sig_ign = 1ULL << (SIGCHLD - 1);
    m.sched_run_ns = 2500000;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.sigchld_ignorer == 100 && s.main_zombie);
    CHECK(s.sched_run_ns == 3500000 && s.sched_wait_ns == 3500000);
    /* A zombie's files move no more: read at its first zombie walk only. */
    m.sched_run_ns = 9000000;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.sigchld_ignorer == 100 && s.sched_run_ns == 3500000);
    tree_free(&t);
    fx_rmroot(root);
}

/* What the GPU-wait verdict reads from a walk: a worker's runnable time
 * (its schedstat's run and run-queue wait since the last walk) and main's
 * block I/O delay, which the kernel's delay accounting switch turns off. */
static void test_worker_load_and_blkio(void)
{
    for (int off = 0; off < 2; off++) {
        char *root = fx_mkroot();
        fx_system(root, 100, 100, 2, 1000000, 500000);
        if (off) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%s/sys", root);
            CHECK(mkdir(dir, 0755) == 0);
            snprintf(dir, sizeof dir, "%s/sys/kernel", root);
            CHECK(mkdir(dir, 0755) == 0);
            fx_write(root, "sys/kernel/task_delayacct", "0\n");
        }
        struct fx_proc m = {.pid = 100, .ppid = 1, .comm = "python", .utime = 10, .rss_kb = 100,
                            .anon_kb = 100, .private_kb = 100, .pss_kb = 100, .starttime = 1000,
                            .children = "101", .blkio_ticks = 50};
        struct fx_proc w = {.pid = 101, .ppid = 100, .comm = "loader", .utime = 40,
                            .rss_kb = 100, .anon_kb = 100, .private_kb = 100, .pss_kb = 100,
                            .starttime = 1001, .sched_run_ns = 400000000,
                            .sched_wait_ns = 100000000};
        fx_proc_write(root, &m);
        fx_proc_write(root, &w);
        struct tree t;
        CHECK(tree_init(&t, root, 100, 0, 0) == 0);
        struct tree_sample s;
        CHECK(tree_walk(&t, &s) == 0);
        CHECK(s.workers.processes == 1 && s.workers.runnable_ns == 0); /* no interval yet */
        w.utime = 90;
        w.sched_run_ns += 500000000;
        w.sched_wait_ns += 450000000;
        m.blkio_ticks = 80;
        fx_proc_write(root, &w);
        fx_proc_write(root, &m);
        CHECK(tree_walk(&t, &s) == 0);
        CHECK(strcmp(s.workers.command, "loader") == 0 && s.workers.processes == 1);
        CHECK(s.workers.ticks == 50 && s.workers.runnable_ns == 950000000ULL);
        if (off)
            CHECK(s.blkio == -1);
        else
            CHECK(s.blkio == 1 && s.main_blkio_ticks == 80);
        tree_free(&t);
        fx_rmroot(root);
    }
}

int main(void)
{
    test_corner_figures();
    test_peak_names();
    test_peak_stale_rollup();
    test_pid_index();
    test_walk_sums_and_departures();
    test_reaper_and_zombie();
    test_scan_fallback_and_missing();
    test_usage_aggregates();
    test_usage_short_run();
    test_usage_reaped_attribution();
    test_many_threads_and_children();
    test_kept_files_bound();
    test_malformed_is_not_einval();
    test_census();
    test_worker_load_and_blkio();
    return check_exit("test_tree");
}
