/* test_energy.c - the CPUs' energy from RAPL on fixture powercap trees:
 * the zones found (packages and DRAM, the rest left out), the counters'
 * wrap, every way of having none (absent, root only, malformed), the run's
 * figures and their JSON, the system rows' columns, and the command's
 * -f human and JSON with a counter the command itself moves. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "results_check.h"
#include "pipeline/energy_usage.h"
#include "common/summary/run_parts_json.h"
#include "fixture.h"
#include "common/json_write.h"
#include "read/rapl.h"
#include "runner.h"
#include "test_tracker_new.h"
#include "snapshot/parts_read.h"

#define PC "class/powercap/"

/* Two packages, the first with DRAM and core subzones, and what is not a
 * zone of ours (the control type, an mmio copy of package 0). */
static void powercap(const char *sys)
{
    fx_mkdirs(sys, PC "intel-rapl:0/intel-rapl:0:0");
    fx_mkdirs(sys, PC "intel-rapl:0:0");
    fx_mkdirs(sys, PC "intel-rapl:0:1");
    fx_mkdirs(sys, PC "intel-rapl:1");
    fx_mkdirs(sys, PC "intel-rapl-mmio:0");
    fx_mkdirs(sys, PC "intel-rapl");
    fx_write(sys, PC "intel-rapl:0/name", "package-0\n");
    fx_write(sys, PC "intel-rapl:0/energy_uj", "900000\n");
    fx_write(sys, PC "intel-rapl:0/max_energy_range_uj", "1000000\n");
    fx_write(sys, PC "intel-rapl:0:0/name", "dram\n");
    fx_write(sys, PC "intel-rapl:0:0/energy_uj", "5000\n");
    fx_write(sys, PC "intel-rapl:0:0/max_energy_range_uj", "262143328850\n");
    fx_write(sys, PC "intel-rapl:0:1/name", "core\n");
    fx_write(sys, PC "intel-rapl:0:1/energy_uj", "1\n");
    fx_write(sys, PC "intel-rapl:1/name", "package-1\n");
    fx_write(sys, PC "intel-rapl:1/energy_uj", "0\n");
    fx_write(sys, PC "intel-rapl:1/max_energy_range_uj", "262143328850\n");
    fx_write(sys, PC "intel-rapl-mmio:0/name", "package-0\n");
    fx_write(sys, PC "intel-rapl-mmio:0/energy_uj", "777\n");
    fx_write(sys, PC "intel-rapl/enabled", "1\n");
}

static void test_reader(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    powercap(sys);
    struct rapl_reader r;
    rapl_open(&r, sys);
    CHECK_MSG(r.nzones == 3 && r.npackages == 2 && r.ndram == 1, "%d zones, %d packages, %d dram",
              r.nzones, r.npackages, r.ndram);
    CHECK_STR(r.reason, "");
    struct rapl_sample s;
    rapl_read(&r, &s);
    CHECK(s.ok && s.have_dram && s.package_uj == 0 && s.dram_uj == 0); /* since the open */
    /* package 0 wraps at 1 J: 900000 -> 100000 is 0.2 J; package 1 moves
     * 3 J, DRAM 0.5 J */
    fx_write(sys, PC "intel-rapl:0/energy_uj", "100000\n");
    fx_write(sys, PC "intel-rapl:1/energy_uj", "3000000\n");
    fx_write(sys, PC "intel-rapl:0:0/energy_uj", "505000\n");
    rapl_read(&r, &s);
    CHECK_MSG(s.ok && s.package_uj == 3200000 && s.dram_uj == 500000, "%llu %llu", s.package_uj,
              s.dram_uj);
    /* a counter that does not hold a count: this sample has none */
    fx_write(sys, PC "intel-rapl:1/energy_uj", "lots\n");
    rapl_read(&r, &s);
    CHECK(!s.ok);
    fx_write(sys, PC "intel-rapl:1/energy_uj", "3000001\n");
    rapl_read(&r, &s);
    CHECK(s.ok && s.package_uj == 3200001);
    rapl_close(&r);
    rapl_close(&r); /* again: safe */

    /* None at all; DRAM without a package says nothing of the CPU. */
    char none[250];
    snprintf(none, sizeof none, "%s/none", root);
    rapl_open(&r, none);
    CHECK(r.nzones == 0);
    CHECK_CONTAINS(r.reason, "no RAPL counters: ");
    CHECK_CONTAINS(r.reason, "/none/class/powercap cannot be read");
    fx_write(sys, PC "intel-rapl:0/name", "psys\n");
    fx_write(sys, PC "intel-rapl:1/name", "uncore\n");
    fx_write(sys, PC "intel-rapl-mmio:0/name", "nothing\n");
    rapl_open(&r, sys);
    CHECK(r.nzones == 0);
    CHECK_CONTAINS(r.reason, "no readable RAPL package zone under ");
    rapl_read(&r, &s);
    CHECK(!s.ok);
    fx_write(sys, PC "intel-rapl:0:0/name", "core\n");
    rapl_open(&r, sys);
    CHECK_CONTAINS(r.reason, "no RAPL package zones under ");
    fx_write(sys, PC "intel-rapl:0/name", "package-0\n");
    fx_write(sys, PC "intel-rapl:1/name", "package-1\n");

    /* Readable by root only (Linux 5.10 and later): as another user. */
    char path[300];
    snprintf(path, sizeof path, "%s/" PC "intel-rapl:0/energy_uj", sys);
    chmod(path, 0400);
    snprintf(path, sizeof path, "%s/" PC "intel-rapl:1/energy_uj", sys);
    chmod(path, 0400);
    chmod(root, 0755); /* the fixture's directories: others may look in */
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    pid_t child = fork();
    if (child == 0) {
        if (geteuid() == 0 && setgid(65534) == 0 && setuid(65534) == 0) {
            struct rapl_reader u;
            rapl_open(&u, sys);
            ssize_t w = write(pipefd[1], u.reason, strlen(u.reason));
            (void)w;
        }
        _exit(0);
    }
    close(pipefd[1]);
    char reason[300] = "";
    ssize_t n = read(pipefd[0], reason, sizeof reason - 1);
    reason[n > 0 ? n : 0] = '\0';
    close(pipefd[0]);
    waitpid(child, NULL, 0);
    if (geteuid() == 0) /* only root can become another user to look */
        CHECK_MSG(strstr(reason, "are readable by root only (Linux 5.10 and later)"), "[%s]",
                  reason);
    fx_rmroot(root);
}

static void test_figures(void)
{
    struct energy_acc a;
    energy_acc_init(&a);
    gt_cpu_energy e = {.struct_size = sizeof e};
    energy_acc_fill(&a, "no RAPL package zones under /sys/class/powercap", 0, 0.5, &e);
    CHECK(!e.available && e.package_joules == 0);
    CHECK_STR(e.reason, "no RAPL package zones under /sys/class/powercap");
    struct rapl_sample s = {.ok = 1, .have_dram = 1, .package_uj = 1000000, .dram_uj = 0};
    energy_acc_step(&a, &s);
    struct rapl_sample bad = {0};
    energy_acc_step(&a, &bad); /* not read: left out */
    s.package_uj = 51000000;
    s.dram_uj = 2500000;
    energy_acc_step(&a, &s);
    energy_acc_fill(&a, "", 2, 1.7, &e);
    CHECK(e.available && e.packages == 2 && e.package_joules == 50 && e.dram_available &&
          e.dram_joules == 2.5 && e.job_share == 1);
    char *text = json_pretty_text(cpu_energy_json_object(&e));
    json_object *o = json_tokener_parse(text);
    struct json_reader r = {GT_OK, "test"};
    gt_cpu_energy back = {.struct_size = sizeof back};
    cpu_energy_json_read(&r, o, "cpu_energy", &back);
    CHECK(r.status == GT_OK && memcmp(&back, &e, sizeof e) == 0);
    json_object_object_add(o, "job_share", json_object_new_double(2));
    cpu_energy_json_read(&r, o, "cpu_energy", &back);
    CHECK(r.status == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "cpu_energy");
    json_object_put(o);
    free(text);
}

/* A tracker over the fixture: the run's joules, and each system row's. */
static void test_tracker(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    fx_system(proc, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 5};
    fx_proc_write(proc, &m);
    powercap(sys);
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = proc;
    test_sources.sys_root = sys;
    o.process_id = 100;
    o.sleep_time = 0.01;
    o.series = GT_SERIES_SYSTEM;
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    gt_cpu_energy e = {.struct_size = sizeof e};
    CHECK(gt_tracker_cpu_energy(t, &e) == GT_ERR_STATE);
    CHECK(gt_tracker_start(t) == GT_OK);
    fx_write(sys, PC "intel-rapl:1/energy_uj", "7000000\n");
    CHECK(gt_tracker_wait_rows(t, 3, 60)); /* an event, not a time */
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_cpu_energy(t, &e) == GT_OK);
    CHECK_MSG(e.available && e.packages == 2 && e.package_joules == 7 && e.dram_available &&
              e.dram_joules == 0, "%d %g", e.available, e.package_joules);
    gt_series series = {.struct_size = sizeof(gt_series)};
    CHECK(gt_tracker_series(t, &series) == GT_OK);
    double sum = 0;
    int ok = 1;
    for (size_t i = 0; i < series.nsystem; i++) {
        ok &= series.system[i].energy_ok;
        sum += series.system[i].cpu_energy_joules;
    }
    CHECK_MSG(ok && series.nsystem >= 3 && sum <= 7 && sum >= 0, "%zu rows, %g J", series.nsystem,
              sum);
    char *json = gt_tracker_to_json(t);
    CHECK(json && strstr(json, "\"cpu_energy\": {") && strstr(json, "\"package_joules\": 7.0"));
    free(json);
    check_results_read_back(t);
    /* into the snapshot and back */
    char snap[300];
    snprintf(snap, sizeof snap, "%s/run.json.gz", root);
    CHECK(gt_tracker_write_snapshot(t, "x", 0, GT_SNAPSHOT_GPU_TRACKER, snap) == GT_OK);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(snap, 0, &s) == GT_OK);
    CHECK(s && s->cpu_energy.available && s->cpu_energy.package_joules == 7);
    if (s) {
        char *html = gt_snapshot_report_html(s, NULL, NULL);
        CHECK(html && strstr(html, "CPU energy</div><div class=\"v\">7.00 J</div>"));
        free(html);
    }
    gt_snapshot_free(s);
    gt_tracker_free(t);
    fx_rmroot(root);
}

/* The command, with the sysfs fixture: the command moves the counter. */
static void test_cli(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    powercap(sys);
    setenv("GPU_TRACKER_SYS_ROOT", sys, 1);
    char script[600];
    snprintf(script, sizeof script, "echo 12000000 > %s/" PC "intel-rapl:1/energy_uj", sys);
    char *argv[] = {GT_BIN, "-f", "human", "--st", "0.1", "--", "sh", "-c", script, NULL};
    struct child c = spawn(argv, 0);
    struct result r = {0};
    finish(&c, &r);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.out.data, "CPU energy      12.0 J in 2 packages, DRAM 0 J: the whole machine's");
    result_free(&r);
    unsetenv("GPU_TRACKER_SYS_ROOT");
    fx_rmroot(root);
}

int main(void)
{
    test_reader();
    test_figures();
    test_tracker();
    test_cli();
    return check_exit("test_energy");
}
