/* test_cgroup.c - the job's cgroup figures on fixture cgroupfs trees (v1
 * and v2): every file the reader reads and every way it can fail, the
 * accumulator's decisions (shared or the job's, peaks, OOM kills,
 * pressure, throttling) on constructed samples, a tracker over fixtures,
 * the JSON both ways; and, with the `real` argument, a real cgroup
 * beneath the test's own (--cgroup: the group peak of four children, an
 * OOM kill under a limit, nothing left behind after an interrupt), which
 * reports itself skipped where the machine does not allow one. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "read/cgroup.h"
#include "chromium.h"
#include "common/summary/cgroup_json.h"
#include "pipeline/cgroup_usage.h"
#include "check.h"
#include "results_check.h"
#include <stddef.h>

#include "fixture.h"
#include "human.h"
#include "runner.h"
#include "common/json_write.h"
#include "test_tracker_new.h"
#include "snapshot/parts_read.h"

/* A v2 group "/job" holding PID 100 (and what members says). */
static void v2_group(const char *proc, const char *sys, const char *members)
{
    fx_mkdirs(proc, "100");
    fx_write(proc, "100/cgroup", "0::/job\n");
    fx_mkdirs(sys, "fs/cgroup/job");
    fx_write(sys, "fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
    fx_write(sys, "fs/cgroup/job/cgroup.procs", members);
    fx_write(sys, "fs/cgroup/job/memory.current", "104857600\n");
    fx_write(sys, "fs/cgroup/job/memory.peak", "629145600\n");
    fx_write(sys, "fs/cgroup/job/memory.stat",
             "anon 94371840\nfile 8388608\nkernel 1000\nshmem 2097152\nfile_mapped 0\n");
    fx_write(sys, "fs/cgroup/job/memory.events",
             "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
    fx_write(sys, "fs/cgroup/job/memory.max", "1073741824\n");
    fx_write(sys, "fs/cgroup/job/cpu.stat",
             "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 40\n"
             "nr_throttled 10\nthrottled_usec 1500000\nnr_bursts 0\nburst_usec 0\n");
    fx_write(sys, "fs/cgroup/job/cpu.max", "150000 100000\n");
    fx_write(sys, "fs/cgroup/job/cpu.pressure",
             "some avg10=0.00 avg60=0.00 avg300=0.00 total=100000\n"
             "full avg10=0.00 avg60=0.00 avg300=0.00 total=50000\n");
    fx_write(sys, "fs/cgroup/job/memory.pressure",
             "some avg10=0.00 avg60=0.00 avg300=0.00 total=200000\n"
             "full avg10=0.00 avg60=0.00 avg300=0.00 total=100000\n");
    fx_write(sys, "fs/cgroup/job/io.pressure",
             "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
             "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
}

static void test_v2_reader(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    v2_group(proc, sys, "100\n101\n");
    struct cgroup_reader r;
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 2);
    CHECK_STR(r.path, "/job");
    CHECK_STR(r.reason, "");
    CHECK_STR(r.memory_reason, "");
    struct cgroup_sample s;
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 2 && s.members[0] == 100 && s.members[1] == 101);
    CHECK(s.mem_ok && s.mem_current == 104857600ULL);
    CHECK(s.peak_ok && s.mem_peak == 629145600ULL);
    CHECK(s.split_ok && s.anon == 94371840ULL && s.file == 8388608ULL && s.shmem == 2097152ULL);
    CHECK(s.limit_ok && s.mem_limit == 1073741824ULL);
    CHECK(s.events_ok && s.oom == 1 && s.oom_kill == 1 && s.limit_hits == 3);
    CHECK(s.cpu_ok && s.cpu_usage_us == 2500000 && s.cpu_user_us == 2000000 &&
          s.cpu_system_us == 500000);
    CHECK(s.throttle_ok && s.nr_periods == 40 && s.nr_throttled == 10 &&
          s.throttled_us == 1500000);
    CHECK(s.quota_cores > 1.49 && s.quota_cores < 1.51);
    /* the usable CPUs' quota, through the same descriptor */
    CHECK(cgroup_quota_cores(&r) > 1.49 && cgroup_quota_cores(&r) < 1.51);
    CHECK(s.psi_ok[CGROUP_PSI_CPU] && s.psi[CGROUP_PSI_CPU].some_us == 100000 &&
          s.psi[CGROUP_PSI_CPU].full_us == 50000);
    CHECK(s.psi_ok[CGROUP_PSI_MEMORY] && s.psi[CGROUP_PSI_MEMORY].some_us == 200000);
    CHECK(s.psi_ok[CGROUP_PSI_IO]);

    /* The member list is read before the walk (cgroup_read_members): a
     * child the tree forks after it (102) is not in it, whatever the file
     * says by the time the rest is read. With the walk's roles: 100 is
     * the tree's, kept; 555 is not in the walk and alive: an outsider,
     * kept; 777 has no /proc entry any more (v1 lists a task while it
     * leaves the group): ended, left out. */
    struct fx_proc other = {.pid = 555, .ppid = 1, .starttime = 9};
    fx_proc_write(proc, &other);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n555\n777\n");
    struct pid_index ix;
    pid_index_init(&ix);
    CHECK(pid_index_put(&ix, 100, 0) == 0);
    unsigned char role[1] = {1};
    struct pid_roles roles = {&ix, role};
    CHECK(cgroup_read_members(&r, 0) == 0);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n102\n555\n777\n");
    CHECK(cgroup_read(&r, 0, &roles, NULL, 0, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 2 && s.members[0] == 100 && s.members[1] == 555);
    /* v2 reads the list at every sample: now 102 is there, alive and not
     * in this (unchanged) walk: kept, to be judged by the next walk. */
    struct fx_proc kid = {.pid = 102, .ppid = 100, .starttime = 9};
    fx_proc_write(proc, &kid);
    CHECK(cgroup_read_members(&r, 0) == 0);
    CHECK(cgroup_read(&r, 0, &roles, NULL, 0, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 3 && s.members[1] == 102);
    /* 555 seen outside the tree twice before and here again: the group is
     * shared from this sample on, and nothing but its members is read (a
     * full sample too). An outsider not among them (556) changes nothing. */
    const pid_t seen_twice[] = {556, 555};
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, &roles, seen_twice, 2, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 4); /* 777 not looked for: shared all the same */
    CHECK(!s.mem_ok && !s.peak_ok && !s.events_ok && !s.cpu_ok && !s.limit_ok &&
          !s.psi_ok[CGROUP_PSI_CPU]);
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, &roles, seen_twice, 1, &s) == 0);
    CHECK(s.members_ok && s.mem_ok && s.cpu_ok && s.psi_ok[CGROUP_PSI_CPU]);
    /* One that has ended (777: still listed, its /proc entry gone) is no
     * one's work: read in full, and left out of the members. */
    const pid_t ended[] = {777};
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, &roles, ended, 1, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 3 && s.mem_ok && s.cpu_ok);
    pid_index_free(&ix);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n101\n");

    /* Not the highest usage yet: memory.stat is not read again. A
     * periodic sample leaves the slow parts out. */
    fx_write(sys, "fs/cgroup/job/memory.current", "52428800\n");
    CHECK(cgroup_read(&r, 0, NULL, NULL, 0, &s) == 0);
    CHECK(s.mem_ok && s.mem_current == 52428800ULL && !s.split_ok);
    CHECK(!s.cpu_ok && !s.limit_ok && !s.psi_ok[0]);
    /* a new high: read again */
    fx_write(sys, "fs/cgroup/job/memory.current", "209715200\n");
    CHECK(cgroup_read(&r, 0, NULL, NULL, 0, &s) == 0);
    CHECK(s.split_ok);

    /* No limit, no quota. */
    fx_write(sys, "fs/cgroup/job/memory.max", "max\n");
    fx_write(sys, "fs/cgroup/job/cpu.max", "max 100000\n");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.limit_ok && s.mem_limit == 0);
    CHECK(s.throttle_ok && s.quota_cores == 0);
    CHECK(cgroup_quota_cores(&r) == 0);

    /* Malformed contents: that part is left out, the rest counts. */
    fx_write(sys, "fs/cgroup/job/memory.current", "lots\n");
    fx_write(sys, "fs/cgroup/job/memory.events", "oom_kill many\n");
    fx_write(sys, "fs/cgroup/job/cpu.pressure", "some avg10=0.00 total=many\n");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(!s.mem_ok && s.peak_ok && !s.events_ok && s.cpu_ok && !s.psi_ok[CGROUP_PSI_CPU] &&
          s.psi_ok[CGROUP_PSI_MEMORY]);
    /* A member list that is not one: nothing of the group counts. */
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\nabc\n");
    CHECK(cgroup_read(&r, 0, NULL, NULL, 0, &s) == -1);
    cgroup_reader_close(&r);
    cgroup_reader_close(&r); /* again: safe */
    fx_rmroot(root);
}

/* v1: memory, and cpu and cpuacct mounted joined as "cpu,cpuacct". */
static void test_v1_reader(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    fx_mkdirs(proc, "100");
    fx_write(proc, "100/cgroup",
             "9:name=systemd:/\n4:memory:/slurm/job_1/step_0\n2:cpu,cpuacct:/slurm/job_1\n0::/\n");
    fx_mkdirs(sys, "fs/cgroup/memory/slurm/job_1/step_0");
    fx_mkdirs(sys, "fs/cgroup/cpu,cpuacct/slurm/job_1");
    const char *m = "fs/cgroup/memory/slurm/job_1/step_0/";
    const char *c = "fs/cgroup/cpu,cpuacct/slurm/job_1/";
    char rel[256];
#define M(name, text) (snprintf(rel, sizeof rel, "%s%s", m, name), fx_write(sys, rel, text))
#define C(name, text) (snprintf(rel, sizeof rel, "%s%s", c, name), fx_write(sys, rel, text))
    M("cgroup.procs", "100\n");
    M("memory.usage_in_bytes", "1048576\n");
    M("memory.max_usage_in_bytes", "4194304\n");
    M("memory.stat", "cache 1\nrss 2\nshmem 3\ntotal_cache 4096\ntotal_rss 8192\n"
                     "total_shmem 1024\n");
    M("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    M("memory.failcnt", "7\n");
    M("memory.limit_in_bytes", "9223372036854771712\n");
    C("cpuacct.usage", "3000000000\n");
    C("cpuacct.stat", "user 250\nsystem 50\n");
    C("cpu.stat", "nr_periods 5\nnr_throttled 2\nthrottled_time 400000000\n");
    C("cpu.cfs_quota_us", "-1\n");
    C("cpu.cfs_period_us", "100000\n");
    struct cgroup_reader r;
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 1);
    CHECK_STR(r.path, "/slurm/job_1/step_0");
    CHECK_CONTAINS(r.pressure_reason, "cgroup v1 keeps no pressure stall information");
    struct cgroup_sample s;
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.mem_ok && s.mem_current == 1048576 && s.peak_ok && s.mem_peak == 4194304);
    CHECK(s.split_ok && s.anon == 8192 && s.file == 4096 && s.shmem == 1024);
    CHECK(s.events_ok && s.oom_kill == 2 && s.limit_hits == 7);
    CHECK(s.limit_ok && s.mem_limit == 0); /* v1's "no limit" */
    CHECK(s.cpu_ok && s.cpu_usage_us == 3000000 && s.cpu_user_us == 2500000 &&
          s.cpu_system_us == 500000);
    CHECK(s.throttle_ok && s.nr_periods == 5 && s.nr_throttled == 2 && s.throttled_us == 400000);
    CHECK(s.quota_cores == 0);
    CHECK(cgroup_quota_cores(&r) == 0); /* cfs_quota_us -1 */
    CHECK(!s.psi_ok[0] && !s.psi_ok[1] && !s.psi_ok[2]);
    /* A kernel before 4.13 has no oom_kill line: no event figures. */
    M("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
    C("cpu.cfs_quota_us", "200000\n");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(!s.events_ok);
    CHECK(s.quota_cores > 1.99 && s.quota_cores < 2.01);
    CHECK(cgroup_quota_cores(&r) > 1.99 && cgroup_quota_cores(&r) < 2.01);
    cgroup_reader_close(&r);
    /* Without a cpuacct hierarchy: memory still, CPU says why not. */
    fx_write(proc, "100/cgroup", "4:memory:/slurm/job_1/step_0\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 1 && r.cpu_fd < 0);
    CHECK_CONTAINS(r.cpu_reason, "no cpuacct hierarchy");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.mem_ok && !s.cpu_ok);
    /* no cpu group of its own: no quota can apply, and none is read */
    CHECK(r.quota_fd < 0 && cgroup_quota_cores(&r) == 0);
    cgroup_reader_close(&r);
    /* The memory group a job's, cpu and cpuacct the root one (a runtime
     * that moved only some controllers): the root's counters are the whole
     * machine's, not read; memory still is. */
    fx_write(proc, "100/cgroup", "4:memory:/slurm/job_1/step_0\n2:cpu,cpuacct:/\n");
    C("../../cpuacct.usage", "999999999999\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 1 && r.cpu_fd < 0 && r.throttle_fd < 0 && r.quota_fd < 0);
    CHECK_CONTAINS(r.cpu_reason, "cpuacct group is the root one");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.mem_ok && !s.cpu_ok && !s.throttle_ok);
    CHECK(cgroup_quota_cores(&r) == 0); /* the root group's cannot be set */
    cgroup_reader_close(&r);
#undef M
#undef C
    fx_rmroot(root);
}

/* The baseline's list is not pruned: a member that has ended (its /proc
 * entry gone) costs no stat there, waits among the outsiders, and the
 * next list asks whether it is alive before it could share the group (a
 * tracker's run over such a group: test_tracker_fixture). */
static void test_first_list_unpruned(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    v2_group(proc, sys, "100\n777\n");
    struct pid_index ix;
    pid_index_init(&ix);
    CHECK(pid_index_put(&ix, 100, 0) == 0);
    unsigned char role[1] = {1};
    struct pid_roles roles = {&ix, role};
    struct cgroup_reader r;
    struct cgroup_sample s;
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, &roles, NULL, 0, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 2 && s.members[1] == 777 && s.mem_ok);
    /* seen at the baseline, listed again, ended: not an outsider that
     * stays, and left out now */
    const pid_t pending[] = {777};
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, &roles, pending, 1, &s) == 0);
    CHECK(s.members_ok && s.nmembers == 1 && s.members[0] == 100 && s.mem_ok && s.cpu_ok);
    cgroup_reader_close(&r);
    pid_index_free(&ix);

    fx_rmroot(root);
}

/* Where the tracked process is, when the list lacks it: a live one in
 * another group has left (outside_path says where); one the sample's walk
 * found ended (root_ended) is in no group and is not looked up. */
static void test_root_outside(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    v2_group(proc, sys, "100\n");
    struct fx_proc m = {.pid = 100, .ppid = 1, .starttime = 5};
    fx_proc_write(proc, &m);
    struct cgroup_reader r;
    struct cgroup_sample s;
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0 && r.version == 2);
    fx_write(proc, "100/cgroup", "0::/elsewhere\n");
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "101\n");
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.root_outside == 1 && s.root_pid == 100);
    CHECK(s.outside_path && strcmp(s.outside_path, "/elsewhere") == 0);
    r.root_ended = 1;
    CHECK(cgroup_read_members(&r, 1) == 0);
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.root_outside == 0 && s.mem_ok);
    cgroup_reader_close(&r);
    fx_rmroot(root);
}

/* Every way of finding no group, each with its reason. */
static void test_reader_failures(void)
{
    char *root = fx_mkroot(), proc[200], sys[200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    struct cgroup_reader r;
    struct cgroup_sample s;

    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0); /* no such process */
    CHECK(r.version == 0);
    CHECK_CONTAINS(r.reason, "/100/cgroup: ");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0 && s.version == 0);
    CHECK(cgroup_quota_cores(&r) == -1); /* no group: the caller reads by path */
    cgroup_reader_close(&r);

    fx_mkdirs(proc, "100");
    fx_write(proc, "100/cgroup", "nonsense\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK_CONTAINS(r.reason, "/100/cgroup is malformed (expected lines ID:CONTROLLERS:/PATH)");
    cgroup_reader_close(&r);
    fx_write(proc, "100/cgroup", "0::/../../etc\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK_CONTAINS(r.reason, "is malformed");
    cgroup_reader_close(&r);

    fx_write(proc, "100/cgroup", "0::/job\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0); /* no fs/cgroup */
    CHECK_CONTAINS(r.reason, "no cgroup filesystem at ");
    cgroup_reader_close(&r);

    fx_mkdirs(sys, "fs/cgroup");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0); /* no cgroup.controllers */
    CHECK_CONTAINS(r.reason, "is in no cgroup hierarchy under ");
    cgroup_reader_close(&r);

    fx_write(sys, "fs/cgroup/cgroup.controllers", "cpu memory\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0); /* no such group */
    CHECK_CONTAINS(r.reason, "cannot open the cgroup /job: ");
    cgroup_reader_close(&r);

    fx_write(proc, "100/cgroup", "0::/\n");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK_STR(r.reason, "PID 100 is in the root cgroup, the whole machine's: no group of its own");
    cgroup_reader_close(&r);

    /* A group without its member list cannot be told to be the job's. */
    fx_write(proc, "100/cgroup", "0::/job\n");
    fx_mkdirs(sys, "fs/cgroup/job");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 0);
    CHECK_CONTAINS(r.reason, "cannot read the members of the cgroup /job (cgroup.procs)");
    cgroup_reader_close(&r);

    /* The memory controller not enabled for it; no pressure files; an
     * unreadable memory.stat (a directory in its place). */
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n");
    fx_write(sys, "fs/cgroup/job/cpu.stat", "usage_usec 10\nuser_usec 5\nsystem_usec 5\n");
    fx_mkdirs(sys, "fs/cgroup/job/memory.stat");
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(r.version == 2);
    CHECK_STR(r.memory_reason, "the memory controller is not enabled for the cgroup /job (its "
                               "parent's cgroup.subtree_control lacks memory)");
    CHECK_CONTAINS(r.pressure_reason, "no pressure stall information for the cgroup /job");
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.members_ok && !s.mem_ok && !s.peak_ok && !s.split_ok);
    CHECK(s.cpu_ok && !s.throttle_ok); /* no cpu controller: no throttling lines */
    fx_write(sys, "fs/cgroup/job/memory.current", "4096\n");
    cgroup_reader_close(&r);
    CHECK(cgroup_reader_open(&r, proc, sys, 100, 100) == 0);
    CHECK(cgroup_read(&r, 1, NULL, NULL, 0, &s) == 0);
    CHECK(s.mem_ok && !s.split_ok); /* memory.stat unreadable */
    cgroup_reader_close(&r);
    fx_rmroot(root);
}

/* The tree's roles of a constructed sample: pids of the tree. */
struct roles_fixture {
    struct pid_index index;
    unsigned char role[16];
    struct pid_roles roles;
};

static void roles_of(struct roles_fixture *f, const pid_t *pids, size_t n)
{
    pid_index_init(&f->index);
    for (size_t i = 0; i < n; i++) {
        CHECK(pid_index_put(&f->index, pids[i], i) == 0);
        f->role[i] = i == 0 ? 1 : 2;
    }
    f->roles.index = &f->index;
    f->roles.role = f->role;
}

static struct cgroup_sample sample_of(const pid_t *members, size_t n)
{
    struct cgroup_sample s;
    memset(&s, 0, sizeof s);
    s.version = 2;
    s.path = "/job";
    s.members_ok = 1;
    s.members = members;
    s.nmembers = n;
    s.self_pid = 50;
    return s;
}

static void test_membership(void)
{
    pid_t tree[] = {100, 101};
    struct roles_fixture f;
    roles_of(&f, tree, 2);
    struct cgroup_reasons why = {.group = "", .memory = "", .cpu = "", .pressure = ""};
    gt_cgroup_usage out = {.struct_size = sizeof out};

    /* The tree and the tracker itself: the job's. */
    struct cgroup_acc a;
    cgroup_acc_init(&a);
    pid_t m1[] = {50, 100, 101};
    struct cgroup_sample s = sample_of(m1, 3);
    cgroup_acc_step(&a, &s, &f.roles, 1, 0, 0);
    cgroup_acc_step(&a, &s, &f.roles, 0, 1, 1);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available && out.version == 2);
    CHECK_STR(out.path, "/job");

    /* A PID the walk has not seen, at two samples in a row (being born or
     * dying), then gone: still the job's. */
    cgroup_acc_init(&a);
    pid_t m2[] = {100, 101, 102};
    s = sample_of(m2, 3);
    cgroup_acc_step(&a, &s, &f.roles, 0, 0, 0);
    cgroup_acc_step(&a, &s, &f.roles, 0, 1, 1);
    s = sample_of(m1, 3);
    cgroup_acc_step(&a, &s, &f.roles, 0, 2, 2);
    s = sample_of(m2, 3); /* back once: counts from one again */
    cgroup_acc_step(&a, &s, &f.roles, 0, 3, 3);
    cgroup_acc_step(&a, &s, &f.roles, 0, 4, 4);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available);

    /* The same outsider at three samples in a row: shared, never used. */
    cgroup_acc_init(&a);
    pid_t m3[] = {100, 777, 101};
    s = sample_of(m3, 3);
    s.mem_ok = s.peak_ok = 1;
    s.mem_peak = 1 << 30;
    cgroup_acc_step(&a, &s, &f.roles, 0, 0, 0);
    cgroup_acc_step(&a, &s, &f.roles, 0, 1, 1);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available); /* twice: not yet */
    cgroup_acc_step(&a, &s, &f.roles, 0, 2, 2);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(!out.available && !out.memory_available && out.memory_peak == 0);
    CHECK_STR(out.reason, "the cgroup /job is shared with processes outside the tracked tree "
                          "(PID 777): its figures are not the job's");
    CHECK_STR(out.memory_reason, out.reason);

    /* An outsider at the baseline (nothing of the job is being born yet)
     * and at the final sample: a run of two samples finds it shared. */
    cgroup_acc_init(&a);
    cgroup_acc_step(&a, &s, &f.roles, 1, 0, 0);
    cgroup_acc_step(&a, &s, &f.roles, 0, 1, 1);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(!out.available);

    /* Without the walk's roles (it failed) the members are not judged. */
    cgroup_acc_init(&a);
    s = sample_of(m3, 3);
    cgroup_acc_step(&a, &s, NULL, 1, 0, 0);
    cgroup_acc_step(&a, &s, NULL, 0, 1, 1);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available);

    /* A burst of more new PIDs than are remembered: never a false "shared". */
    pid_t *many = malloc((CGROUP_PENDING_MAX + 10) * sizeof *many);
    for (size_t i = 0; i < CGROUP_PENDING_MAX + 10; i++)
        many[i] = (pid_t)(1000 + i);
    cgroup_acc_init(&a);
    s = sample_of(many, CGROUP_PENDING_MAX + 10);
    cgroup_acc_step(&a, &s, &f.roles, 1, 0, 0);
    for (size_t i = 0; i < CGROUP_PENDING_MAX + 10; i++)
        many[i] = (pid_t)(5000 + i);
    cgroup_acc_step(&a, &s, &f.roles, 0, 1, 1);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available);
    free(many);

    /* No group read at all: the reader's reason. */
    cgroup_acc_init(&a);
    why.group = "PID 100 is in the root cgroup, the whole machine's: no group of its own";
    cgroup_acc_fill(&a, &why, &out);
    CHECK(!out.available && out.version == 0);
    CHECK_STR(out.reason, why.group);
    pid_index_free(&f.index);
}

static void test_figures(void)
{
    pid_t tree[] = {100};
    struct roles_fixture f;
    roles_of(&f, tree, 1);
    pid_t members[] = {100};
    struct cgroup_acc a;
    cgroup_acc_init(&a);
    /* baseline at t=10: counters from before the run */
    struct cgroup_sample s = sample_of(members, 1);
    s.mem_ok = s.peak_ok = s.split_ok = s.events_ok = s.cpu_ok = s.throttle_ok = 1;
    s.limit_ok = 1;
    s.mem_limit = 1000;
    s.mem_current = 100;
    s.mem_peak = 100;
    s.anon = 90;
    s.oom = s.oom_kill = 1;
    s.limit_hits = 5;
    s.cpu_usage_us = 1000000;
    s.cpu_user_us = 800000;
    s.cpu_system_us = 200000;
    s.nr_periods = 10;
    s.nr_throttled = 1;
    s.throttled_us = 100000;
    s.quota_cores = 2;
    s.psi_ok[CGROUP_PSI_MEMORY] = 1;
    s.psi[CGROUP_PSI_MEMORY] = (struct psi_totals){.some_us = 1000000, .full_us = 500000};
    cgroup_acc_step(&a, &s, &f.roles, 0, 10, 1000);
    /* a sample at the highest usage, with its split */
    struct cgroup_sample p = sample_of(members, 1);
    p.mem_ok = p.split_ok = p.peak_ok = p.events_ok = 1;
    p.mem_current = 700;
    p.mem_peak = 800; /* the kernel saw more between samples */
    p.anon = 600;
    p.file = 80;
    p.shmem = 20;
    p.oom = p.oom_kill = 1;
    p.limit_hits = 5;
    cgroup_acc_step(&a, &p, &f.roles, 0, 11, 1001);
    /* the sample that first sees a kill */
    p.mem_current = 300;
    p.split_ok = 0;
    p.oom = 3;
    p.oom_kill = 2;
    p.limit_hits = 9;
    cgroup_acc_step(&a, &p, &f.roles, 0, 12, 1002.5);
    /* final at t=20 */
    s.mem_current = 50;
    s.split_ok = 0;
    s.oom = 3;
    s.oom_kill = 3;
    s.limit_hits = 9;
    s.cpu_usage_us = 6000000;
    s.cpu_user_us = 4800000;
    s.cpu_system_us = 1200000;
    s.nr_periods = 110;
    s.nr_throttled = 31;
    s.throttled_us = 2600000;
    s.psi[CGROUP_PSI_MEMORY] = (struct psi_totals){.some_us = 3500000, .full_us = 1500000};
    cgroup_acc_step(&a, &s, &f.roles, 0, 20, 1010);

    struct cgroup_reasons why = {.pressure = "cgroup v1 keeps no pressure stall information"};
    gt_cgroup_usage out = {.struct_size = sizeof out};
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.available && out.memory_available);
    CHECK(out.memory_peak == 800 && out.memory_peak_kernel);
    CHECK(out.peak_anon == 600 && out.peak_file == 80 && out.peak_shmem == 20);
    CHECK(out.memory_limit == 1000);
    CHECK(out.oom_events == 2 && out.oom_kills == 2 && out.limit_hits == 4);
    CHECK(out.first_oom_kill_time == 1002.5);
    CHECK(out.cpu_available && out.cpu_seconds == 5 && out.cpu_user_seconds == 4 &&
          out.cpu_system_seconds == 1);
    CHECK(out.cpu_quota == 2 && out.throttle_periods == 100 && out.throttled_periods == 30 &&
          out.throttled_seconds == 2.5);
    CHECK(out.pressure_available && out.pressure_seconds == 10);
    CHECK(out.memory_some == 0.25 && out.memory_full == 0.1);
    CHECK(out.cpu_some == 0 && out.io_some == 0);

    /* With no kernel mark (before Linux 5.19) the highest sample, said so. */
    cgroup_acc_init(&a);
    p.peak_ok = 0;
    p.mem_current = 700;
    cgroup_acc_step(&a, &p, &f.roles, 1, 0, 0);
    cgroup_acc_fill(&a, &why, &out);
    CHECK(out.memory_peak == 700 && !out.memory_peak_kernel);
    CHECK(!out.cpu_available && !out.pressure_available);
    CHECK_STR(out.pressure_reason, "cgroup v1 keeps no pressure stall information");

    /* JSON both ways, every figure kept. */
    cgroup_acc_init(&a);
    cgroup_acc_step(&a, &s, &f.roles, 0, 10, 1000);
    cgroup_acc_step(&a, &p, &f.roles, 0, 12, 1002.5);
    cgroup_acc_step(&a, &s, &f.roles, 0, 20, 1010);
    why.created = 1;
    cgroup_acc_fill(&a, &why, &out);
    char *text = json_pretty_text(cgroup_json_object(&out));
    CHECK(text != NULL);
    json_object *o = json_tokener_parse(text);
    struct json_reader r = {GT_OK, "test"};
    gt_cgroup_usage back = {.struct_size = sizeof back};
    cgroup_json_read(&r, o, "cgroup", &back);
    CHECK(r.status == GT_OK);
    CHECK(memcmp(&back, &out, sizeof out) == 0);
    /* a bad value is named */
    json_object *mem;
    json_object_object_get_ex(o, "memory", &mem);
    json_object_object_add(mem, "peak", json_object_new_double(-1));
    cgroup_json_read(&r, o, "cgroup", &back);
    CHECK(r.status == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "cgroup.memory");
    json_object_put(o);
    free(text);
    pid_index_free(&f.index);
}

/* A fixture tree of PID 100 alone in the v2 group "/job": the root to
 * remove, proc and sys (200 bytes each) its procfs and sysfs. */
static char *tracker_fixture(char *proc, char *sys)
{
    char *root = fx_mkroot();
    fx_proc_sys(root, proc, sys, 200);
    fx_system(proc, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 5};
    fx_proc_write(proc, &m);
    v2_group(proc, sys, "100\n");
    return root;
}

/* Options tracking PID 100 of that fixture. */
static void tracker_fixture_options(gt_options *o, const char *proc, const char *sys)
{
    test_options_init(o);
    test_sources.proc_root = proc;
    test_sources.sys_root = sys;
    o->process_id = 100;
}

static int cgroup_warnings;
static void count_cgroup_warning(const char *msg, void *data)
{
    (void)data;
    if (strstr(msg, "cannot read the cgroup"))
        cgroup_warnings++;
}

/* A tracker over fixtures: the group's figures in gt_tracker_cgroup and
 * the JSON, and a shared group refused. */
static void test_tracker_fixture(void)
{
    char proc[200], sys[200];
    char *root = tracker_fixture(proc, sys);
    gt_options o;
    tracker_fixture_options(&o, proc, sys);
    o.sleep_time = 1000;
    gt_tracker *t;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    gt_cgroup_usage c = {.struct_size = sizeof c};
    CHECK(gt_tracker_cgroup(t, &c) == GT_ERR_STATE);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_cgroup(t, &c) == GT_OK);
    CHECK(c.available && c.memory_available && c.memory_peak == 629145600.0);
    CHECK(c.memory_limit == 1073741824.0 && c.cpu_available);
    gt_cgroup_usage small = {.struct_size = 8};
    CHECK(gt_tracker_cgroup(t, &small) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "invalid gt_cgroup_usage.struct_size 8");
    /* A caller built before 0.4 (no incomplete*): given what it knows, and
     * nothing written past it. */
    size_t old_size = offsetof(gt_cgroup_usage, incomplete);
    unsigned char buf[sizeof(gt_cgroup_usage) + 16];
    memset(buf, 0xAB, sizeof buf);
    gt_cgroup_usage *old = (gt_cgroup_usage *)(void *)buf;
    old->struct_size = old_size;
    CHECK(gt_tracker_cgroup(t, old) == GT_OK);
    CHECK(old->struct_size == old_size && old->available && old->memory_peak == 629145600.0);
    int untouched = 1;
    for (size_t i = old_size; i < sizeof buf; i++)
        untouched &= buf[i] == 0xAB;
    CHECK_MSG(untouched, "gt_tracker_cgroup wrote past an old caller's struct_size");
    CHECK(c.struct_size == sizeof c && !c.incomplete);
    /* the expected cores default to the group's quota, 1.5 of the 2 CPUs */
    CHECK(gt_tracker_usage(t)->cpu_utilization.n_expected_cores == 2);
    char *json = gt_tracker_to_json(t);
    CHECK(json && strstr(json, "\"cgroup\": {") && strstr(json, "\"peak\": 629145600.0"));
    CHECK(json && strstr(json, "\"cgroup.memory.peak\": \"kernel group high-water mark\""));
    free(json);
    check_results_read_back(t);
    gt_tracker_free(t);
    /* Half a CPU: one expected core where the machine has two (the quota
     * came through the reader's descriptor: test_v2_reader). */
    fx_write(sys, "fs/cgroup/job/cpu.max", "50000 100000\n");
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_usage(t)->cpu_utilization.n_expected_cores == 1);
    CHECK(gt_tracker_usage(t)->cpu_utilization.system_core_count == 2);
    gt_tracker_free(t);
    fx_write(sys, "fs/cgroup/job/cpu.max", "150000 100000\n");

    /* PID 555 is in the group and not in the tree, at every sample. */
    struct fx_proc other = {.pid = 555, .ppid = 1, .starttime = 9};
    fx_proc_write(proc, &other);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n555\n");
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_cgroup(t, &c) == GT_OK);
    CHECK(!c.available && c.memory_peak == 0);
    CHECK_CONTAINS(c.reason, "is shared with processes outside the tracked tree (PID 555)");
    check_results_read_back(t);
    gt_tracker_free(t);

    /* 777 listed at every sample, its /proc entry gone (ended): a run of two
     * samples finds the group the job's (the baseline's list is not pruned,
     * the final one asks whether 777 is alive: test_first_list_unpruned). */
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n777\n");
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_cgroup(t, &c) == GT_OK);
    CHECK_MSG(c.available && c.memory_peak == 629145600.0, "%s", c.reason);
    gt_tracker_free(t);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n555\n");

    /* Once found shared the group is not read any more: a member list
     * spoiled after that draws no warning at the final sample. */
    o.sleep_time = 0.01;
    o.on_warning = count_cgroup_warning;
    cgroup_warnings = 0;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    double samples = 0;
    for (int i = 0; i < 100000 && gt_tracker_figure(t, GT_FIGURE_SAMPLES, &samples) == GT_OK &&
                    samples < 4; i++)
        usleep(1000); /* until the group was seen twice (an event, not a time) */
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "not a list\n");
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(cgroup_warnings == 0);
    gt_tracker_free(t);
    /* ...whereas a group still read says so. */
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n");
    cgroup_warnings = 0;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(gt_tracker_start(t) == GT_OK);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "not a list\n");
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(cgroup_warnings == 1);
    CHECK(gt_tracker_cgroup(t, &c) == GT_OK && c.available); /* what it read before stands */
    gt_tracker_free(t);
    fx_write(sys, "fs/cgroup/job/cgroup.procs", "100\n555\n");

    /* own_cgroup needs a process the caller started. */
    o.own_cgroup = 1;
    o.process_id = 0;
    CHECK(test_tracker_new(&o, &t) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "own_cgroup needs process_id");
    fx_rmroot(root);
}

/* ---- A real cgroup ------------------------------------------------------ */

static char real_skip[2048];

/* The hierarchy's mount and the test's group P beneath our own (v2 as
 * root where ours cannot hand memory down: beneath the root group). 0, or
 * -1 with real_skip saying why not. */
static int real_group(char *mount, size_t mcap, char *p, size_t pcap, int *version)
{
    struct cgroup_location loc;
    char why[256];
    if (cgroup_locate("/proc", "/sys", "self", &loc, why, sizeof why) < 0) {
        snprintf(real_skip, sizeof real_skip, "no cgroup to make a group in: %s", why);
        return -1;
    }
    *version = loc.version;
    char base[1100];
    if (loc.version == 1) {
        snprintf(mount, mcap, "/sys/fs/cgroup/memory");
        snprintf(base, sizeof base, "%s%s", mount, loc.path);
    } else {
        snprintf(mount, mcap, access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                                  ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified");
        snprintf(base, sizeof base, "%s%s", mount, loc.path);
        char on[512] = "";
        char path[1200];
        snprintf(path, sizeof path, "%s/cgroup.subtree_control", base);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(on, sizeof on, f))
                on[0] = '\0';
            fclose(f);
        }
        if (!strstr(on, "memory")) {
            if (geteuid() != 0) {
                snprintf(real_skip, sizeof real_skip, "our cgroup %s hands no memory controller "
                         "down, and only root may use the root group", loc.path);
                cgroup_location_close(&loc);
                return -1;
            }
            snprintf(base, sizeof base, "%s", mount);
        }
    }
    cgroup_location_close(&loc);
    snprintf(p, pcap, "%.1000s/gt-test-%d", base, (int)getpid());
    if (mkdir(p, 0755) < 0) {
        snprintf(real_skip, sizeof real_skip, "cannot make a cgroup beneath %s: %s", base,
                 strerror(errno));
        return -1;
    }
    char limit[1400];
    snprintf(limit, sizeof limit, "%s/%s", p, *version == 1 ? "memory.limit_in_bytes" : "memory.max");
    if (access(limit, F_OK) < 0) {
        snprintf(real_skip, sizeof real_skip, "the cgroup %s has no memory controller", p);
        rmdir(p);
        return -1;
    }
    return 0;
}

static int put_text(const char *dir, const char *name, const char *text)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Starts gpu-tracker with args in group p (moved in before it runs);
 * its PID. */
static pid_t start_in(const char *p, char *const *args)
{
    pid_t pid = fork();
    if (pid == 0) {
        char me[24];
        snprintf(me, sizeof me, "%d\n", (int)getpid());
        if (put_text(p, "cgroup.procs", me) < 0)
            _exit(99);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        execv(GT_BIN, args);
        _exit(98);
    }
    return pid;
}

/* The names in dir that begin with "gpu-tracker-": what a run left. */
static int leftovers(const char *dir)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "ls -d %s/gpu-tracker-* 2>/dev/null | wc -l", dir);
    FILE *f = popen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = -1;
        pclose(f);
    }
    return n;
}

static json_object *cgroup_of(const char *json_path)
{
    json_object *root = json_object_from_file(json_path);
    json_object *c = NULL;
    if (root && json_object_object_get_ex(root, "cgroup", &c))
        json_object_get(c);
    json_object_put(root);
    return c;
}

static double number_at(json_object *o, const char *part, const char *key)
{
    json_object *x = NULL, *v = NULL;
    if (!o || !json_object_object_get_ex(o, part, &x) || !json_object_object_get_ex(x, key, &v))
        return -1;
    return json_object_get_double(v);
}

static int real_tests(void)
{
    char mount[64], p[1200];
    int version;
    if (real_group(mount, sizeof mount, p, sizeof p, &version) < 0) {
        printf("skipped: %s\n", real_skip);
        return 77;
    }
    printf("cgroup v%d, test group %s\n", version, p);
    char json[] = "/tmp/gt-cgroup-XXXXXX";
    int jfd = mkstemp(json);
    CHECK(jfd >= 0);
    close(jfd);

    /* Four children hold 150 MiB at once for 100 ms between two samples
     * at --st 1: the group's mark sees 600 MiB. */
    char *peak_args[] = {"gpu-tracker", "--cgroup", "-f", "json", "-o", json, "--st", "1", "--",
                         WORKLOAD_BIN, "burst", "4", "150", "1.3", NULL};
    int ws;
    pid_t gt = start_in(p, peak_args);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    json_object *c = cgroup_of(json);
    json_object *av = NULL;
    CHECK_MSG(c && json_object_object_get_ex(c, "available", &av) && json_object_get_boolean(av),
              "%s", c ? json_object_to_json_string(c) : "no \"cgroup\" in the JSON");
    double peak = number_at(c, "memory", "peak"), want = 600.0 * 1048576;
    printf("group peak %.1f MiB (want 600 MiB within 5%%)\n", peak / 1048576);
    CHECK_MSG(peak > want * 0.95 && peak < want * 1.05, "group peak %.0f bytes", peak);
    json_object_put(c);
    CHECK_MSG(leftovers(p) == 0, "%d groups left in %s", leftovers(p), p);

    /* A limit the job goes past: its process is OOM-killed, and said so. */
    CHECK(put_text(p, version == 1 ? "memory.limit_in_bytes" : "memory.max", "167772160") == 0);
    if (version == 1)
        put_text(p, "memory.memsw.limit_in_bytes", "167772160"); /* no swapping past it */
    else
        put_text(p, "memory.swap.max", "0");
    /* The job is the OOM killer's choice, whatever the tracker's own size
     * (a sanitizer's build of it holds more than the job at the limit):
     * its score raised to the most, as anyone may, before it execs. */
    static const char oom_first[] = "echo 1000 > /proc/self/oom_score_adj && exec \"$0\" \"$@\"";
    char *oom_args[] = {"gpu-tracker", "--cgroup", "-f", "json", "-o", json, "--st", "0.2", "--",
                        "/bin/sh", "-c", (char *)oom_first, WORKLOAD_BIN, "hold", "400", "0.1",
                        NULL};
    gt = start_in(p, oom_args);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws));
    CHECK_MSG(WEXITSTATUS(ws) == 128 + SIGKILL, "exit status %d", WEXITSTATUS(ws));
    c = cgroup_of(json);
    double kills = number_at(c, "memory", "oom_kills");
    double when = number_at(c, "memory", "first_oom_kill_time");
    printf("OOM kills %.0f, first seen at %.3f\n", kills, when);
    CHECK(kills >= 1 && when > 1e9);
    json_object_put(c);
    CHECK(leftovers(p) == 0);
    /* -f human says so, and that the command was the one */
    char *human_args[] = {"gpu-tracker", "--cgroup", "-f", "human", "-o", json, "--st", "0.2",
                          "--", "/bin/sh", "-c", (char *)oom_first, WORKLOAD_BIN, "hold", "400",
                          "0.1", NULL};
    gt = start_in(p, human_args);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws) && WEXITSTATUS(ws) == 128 + SIGKILL);
    char *text = NULL;
    CHECK(input_file_read(json, 1 << 20, "summary", &text, NULL) == GT_OK);
    if (text) {
        /* the file's lines are wrapped at 80 columns: read as one line */
        char *o = text;
        for (const char *q = text; *q; q++)
            if (*q != '\n' && !(*q == ' ' && o > text && o[-1] == ' '))
                *o++ = *q;
            else if (*q == '\n' && o > text && o[-1] != ' ')
                *o++ = ' ';
        *o = '\0';
        CHECK_CONTAINS(text, "killed by the OOM killer (first seen at ");
        CHECK_CONTAINS(text, "; the command itself (PID ");
        CHECK_CONTAINS(text, ") ended by SIGKILL");
    }
    free(text);
    CHECK(leftovers(p) == 0);

    /* The command makes groups of its own beneath the job's, and runs in
     * the deepest: still the job's (nothing undercounted), and every
     * group is removed at the end, deepest first (the job's was left
     * behind, "busy", though empty). */
    char script[4096], own_group[512];
    if (version == 1)
        snprintf(own_group, sizeof own_group,
                 "%s$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)", mount);
    else
        snprintf(own_group, sizeof own_group, "%s$(awk -F: '$1 == 0 {print $3}' /proc/self/cgroup)",
                 mount);
    snprintf(script, sizeof script, "d=%s; mkdir -p $d/nested/deeper && echo $$ > "
             "$d/nested/deeper/cgroup.procs && exec sleep 0.3", own_group);
    char *nested_args[] = {"gpu-tracker", "--cgroup", "-f", "json", "-o", json, "--st", "0.05",
                           "--", "/bin/sh", "-c", script, NULL};
    gt = start_in(p, nested_args);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    c = cgroup_of(json);
    json_object *flag = NULL;
    CHECK_MSG(c && json_object_object_get_ex(c, "incomplete", &flag) &&
                  !json_object_get_boolean(flag),
              "%s", c ? json_object_to_json_string(c) : "no cgroup");
    json_object_put(c);
    CHECK_MSG(leftovers(p) == 0, "%d groups left in %s after a job that made its own", leftovers(p),
              p);

    /* The command moves itself out of the job's group: the group is still
     * the job's, but its figures undercount, and the JSON says so. It is
     * seen at the next read of the members: on v1 at most a second later
     * (CGROUP_V1_MEMBERS_PERIOD), so the command outlives that. */
    snprintf(script, sizeof script, "echo $$ > %s/cgroup.procs && exec sleep 1.6", p);
    char *out_args[] = {"gpu-tracker", "--cgroup", "-f", "json", "-o", json, "--st", "0.05", "--",
                        "/bin/sh", "-c", script, NULL};
    gt = start_in(p, out_args);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    c = cgroup_of(json);
    json_object *why = NULL;
    CHECK_MSG(c && json_object_object_get_ex(c, "incomplete", &flag) &&
                  json_object_get_boolean(flag) &&
                  json_object_object_get_ex(c, "incomplete_reason", &why) &&
                  strstr(json_object_get_string(why), ") left the cgroup for ") &&
                  strstr(json_object_get_string(why), "gt-test-"),
              "%s", c ? json_object_to_json_string(c) : "no cgroup");
    json_object_put(c);
    CHECK(leftovers(p) == 0);

    /* Interrupted: the group is removed all the same. */
    char *int_args[] = {"gpu-tracker", "--cgroup", "--st", "0.2", "--", WORKLOAD_BIN, "hold",
                        "16", "60", NULL};
    gt = start_in(p, int_args);
    char made[1300];
    snprintf(made, sizeof made, "%s/gpu-tracker-%d", p, (int)gt);
    /* until the command runs in its group (not a timing assertion: an
     * event waited for, for at most a minute) */
    for (int i = 0; i < 6000 && access(made, F_OK) < 0; i++)
        usleep(10000);
    CHECK_MSG(access(made, F_OK) == 0, "%s never appeared", made);
    usleep(300000); /* a few samples */
    kill(gt, SIGINT);
    CHECK(waitpid(gt, &ws, 0) == gt && WIFEXITED(ws));
    CHECK_MSG(WEXITSTATUS(ws) == 128 + SIGINT, "exit status %d", WEXITSTATUS(ws));
    CHECK_MSG(access(made, F_OK) < 0, "%s left behind", made);
    CHECK(leftovers(p) == 0);

    /* A user to whom our group is not delegated: one warning, and the
     * command runs without a group of its own. */
    if (geteuid() == 0 && access(GT_BIN, X_OK) == 0) {
        int errp[2];
        CHECK(pipe(errp) == 0);
        pid_t u = fork();
        if (u == 0) {
            dup2(errp[1], 2);
            int null = open("/dev/null", O_RDWR);
            dup2(null, 0);
            dup2(null, 1);
            if (chdir("/") < 0 || setgid(65534) < 0 || setuid(65534) < 0)
                _exit(99);
            execl(GT_BIN, "gpu-tracker", "--cgroup", "--no-backup", "--st",
                  "0.2", "--", "true", (char *)NULL);
            _exit(98);
        }
        close(errp[1]);
        char err[2048] = "";
        size_t got = 0;
        for (ssize_t n; got < sizeof err - 1 &&
                        (n = read(errp[0], err + got, sizeof err - 1 - got)) > 0;)
            got += (size_t)n;
        err[got] = '\0';
        close(errp[0]);
        CHECK(waitpid(u, &ws, 0) == u && WIFEXITED(ws));
        if (WEXITSTATUS(ws) == 98 || WEXITSTATUS(ws) == 99) {
            printf("not delegated: not checked (gpu-tracker cannot run as user 65534 here)\n");
        } else {
            CHECK_MSG(WEXITSTATUS(ws) == 0, "exit %d: %s", WEXITSTATUS(ws), err);
            CHECK_CONTAINS(err, "warning: no cgroup of the job's own: cannot make a cgroup "
                                "beneath ");
            CHECK_CONTAINS(err, "(it is not delegated to this user, or read-only); tracking "
                                "goes on without one");
        }
    }

    unlink(json);
    CHECK_MSG(rmdir(p) == 0, "cannot remove %s: %s", p, strerror(errno));
    return check_exit("test_cgroup real");
}

/* --cgroup where no group can be made (no cgroup filesystem under the
 * sysfs given): one warning line says why, the command runs all the same,
 * and -f human says there is none. */
static void test_no_group_made(void)
{
    char *root = fx_mkroot();
    setenv("GPU_TRACKER_SYS_ROOT", root, 1);
    char *argv[] = {GT_BIN, "--cgroup", "-f", "human", "--st", "0.1", "--", "sh", "-c",
                    "exit 3", NULL};
    struct child ch = spawn(argv, 0);
    struct result r = {0};
    finish(&ch, &r);
    unsetenv("GPU_TRACKER_SYS_ROOT");
    CHECK_MSG(r.status == 3, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: no cgroup of the job's own: no cgroup "
                               "filesystem at ");
    CHECK_CONTAINS(r.err.data, "; tracking goes on without one\n");
    CHECK_CONTAINS(r.out.data, "Job cgroup      none: no cgroup filesystem at ");
    result_free(&r);
    fx_rmroot(root);
}

/* Starved of CPU (gt_cpu_contention): judged from time spent runnable and
 * waiting for a CPU (the processes' run-queue delay, the job's cgroup
 * cpu.pressure) and the quota's throttling, never from the machine's
 * business alone. And -f human's line saying so. */
static void test_starved(void)
{
    gt_resource_usage u;
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
    /* A job that prints and sleeps on a saturated machine: 0.02 cores, its
     * processes ran 0.2 s and waited 0.01 s. Never starved. */
    u.cpu_utilization.system_core_count = 2;
    u.cpu_utilization.system.mean_sum_percent = 199.0;
    u.cpu_utilization.combined.mean_sum_percent = 2.0;
    u.measurement.cpu_wait_available = 1;
    u.measurement.cpu_run_seconds = 0.2;
    u.measurement.cpu_wait_seconds = 0.01;
    char why[512];
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 0 && why[0] == '\0');
    /* Without a run-queue figure a busy machine is no verdict either. */
    u.measurement.cpu_wait_available = 0;
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 0);
    /* The Pool(2) job: 0.32 cores, its processes waited 6 s of the
     * 9.2 s they were runnable. */
    u.cpu_utilization.combined.mean_sum_percent = 32.0;
    u.measurement.cpu_wait_available = 1;
    u.measurement.cpu_run_seconds = 3.2;
    u.measurement.cpu_wait_seconds = 6.0;
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 1);
    CHECK_STR(why, "the job's processes waited for a CPU 6.00 s while runnable, 65 % of the "
                   "time they wanted one (run-queue delay); the job got 0.32 cores, so its CPU "
                   "figures (and a CPU request made from them) may be low");
    /* Whatever the machine's business: an idle machine's average hides a
     * job whose threads queued behind each other. */
    u.cpu_utilization.system.mean_sum_percent = 60.0;
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 1);
    /* Either side of the thresholds: a quarter of the runnable time, and
     * at least 0.1 s and a twentieth of the run. */
    u.measurement.cpu_wait_seconds = 1.0; /* 24 % of 4.2 s */
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 0);
    u.measurement.cpu_wait_seconds = 1.1; /* 26 % */
    CHECK(gt_cpu_contention(&u, NULL, 10, why, sizeof why) == 1);
    CHECK(gt_cpu_contention(&u, NULL, 30, why, sizeof why) == 0); /* under 1.5 s of 30 s */
    u.measurement.cpu_run_seconds = 0.01;
    u.measurement.cpu_wait_seconds = 0.09; /* 90 %, but 0.09 s */
    CHECK(gt_cpu_contention(&u, NULL, 1, why, sizeof why) == 0);
    /* The job's cgroup's cpu.pressure, where it has one, is the judge. */
    gt_cgroup_usage c = {.struct_size = sizeof c, .available = 1, .version = 2,
                         .cpu_available = 1, .pressure_available = 1, .cpu_some = 0.4};
    u.measurement.cpu_wait_seconds = 0.0;
    CHECK(gt_cpu_contention(&u, &c, 10, why, sizeof why) == 1);
    CHECK_CONTAINS(why, "tasks of the job's cgroup waited for a CPU 40 % of the run "
                        "(cpu.pressure)");
    c.cpu_some = 0.2;
    u.measurement.cpu_wait_seconds = 6.0; /* the group's figure holds every thread */
    CHECK(gt_cpu_contention(&u, &c, 10, why, sizeof why) == 0);
    c.pressure_available = 0;
    u.measurement.cpu_wait_available = 0;
    /* The job alone at its quota, throttled in 30 of 100 periods. */
    c.cpu_quota = 1;
    c.cpu_seconds = 9.6;
    u.cpu_utilization.combined.mean_sum_percent = 95.0;
    c.throttle_periods = 100;
    c.throttled_periods = 30;
    CHECK(gt_cpu_contention(&u, &c, 10, why, sizeof why) == 1);
    CHECK_CONTAINS(why, "throttled it in 30 of 100 periods: it wanted more CPU than it was "
                        "allowed");
    c.throttled_periods = 2;
    CHECK(gt_cpu_contention(&u, &c, 10, why, sizeof why) == 0);
    /* No wall time or no figures: nothing can be said. */
    CHECK(gt_cpu_contention(&u, &c, 0, why, sizeof why) == 0);
    CHECK(gt_cpu_contention(NULL, &c, 10, why, sizeof why) == 0);

    /* -f human says it under the CPU lines. */
    u.measurement.unknown = 0;
    u.measurement.cpu_wait_available = 1;
    u.measurement.cpu_wait_seconds = 6.0;
    u.measurement.cpu_run_seconds = 3.2;
    u.cpu_utilization.combined.mean_sum_percent = 32.0;
    gt_totals totals = {.struct_size = sizeof totals, .wall_seconds = 10};
    struct human_extras x = {.cg = NULL};
    char *text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "\nCPU starved     the job's processes waited for a CPU 6.00 s");
    free(text);
    u.measurement.cpu_wait_seconds = 0.05;
    text = human_summary(&u, &totals, &x);
    CHECK(text && !strstr(text, "CPU starved"));
    free(text);
}

/* -f human's lines for the group and the CPUs' energy. */
static void test_human(void)
{
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
    u.measurement.unknown = 1;
    gt_totals totals = {.struct_size = sizeof totals, .wall_seconds = 10};
    gt_cgroup_usage c = {.struct_size = sizeof c, .available = 1, .version = 2,
                         .path = "/slurm/job_7/step_0", .memory_available = 1,
                         .memory_peak = 900.0 * 1048576, .memory_peak_kernel = 1,
                         .peak_anon = 800.0 * 1048576, .memory_limit = 1000.0 * 1048576,
                         .oom_kills = 2, .first_oom_kill_time = 1795500000,
                         .cpu_available = 1, .cpu_quota = 1.5, .throttle_periods = 100,
                         .throttled_periods = 40, .throttled_seconds = 3.5,
                         .pressure_available = 1, .cpu_some = 0.02, .memory_some = 0.3,
                         .memory_full = 0.12};
    gt_cpu_energy e = {.struct_size = sizeof e, .available = 1, .packages = 2,
                       .package_joules = 1000, .dram_available = 1, .dram_joules = 80,
                       .job_share = 0.25};
    struct human_extras x = {.cg = &c, .energy = &e, .command_sigkill = 1, .command_pid = 4242};
    char *text = human_summary(&u, &totals, &x);
    CHECK(text != NULL);
    if (text) {
        CHECK_CONTAINS(text, "Job cgroup      /slurm/job_7/step_0 (v2)\n");
        CHECK_CONTAINS(text, "Group peak      900 MiB, the kernel's mark (anon 800 MiB");
        CHECK_CONTAINS(text, ", 90% of its limit 1000 MiB\n");
        CHECK_CONTAINS(text, "OOM             2 processes killed by the OOM killer (first seen at ");
        CHECK_CONTAINS(text, "; the command itself (PID 4242) ended by SIGKILL\n");
        CHECK_CONTAINS(text, "CPU throttled   3.50 s in 40 of 100 periods (quota 1.50 cores)\n");
        CHECK_CONTAINS(text, "Stalled         CPU 2.0%, memory 30.0% (all tasks 12.0%), I/O 0.0%");
        CHECK_CONTAINS(text, "CPU energy      1.00 kJ in 2 packages, DRAM 80.0 J: the whole "
                             "machine's; the job's share of its CPU time 25% (~250 J)\n");
    }
    free(text);
    /* Not the job's: nothing said unless a group of its own was asked for. */
    c.available = 0;
    snprintf(c.reason, sizeof c.reason, "the cgroup /user.slice is shared");
    e.available = 0;
    x.command_sigkill = 0;
    text = human_summary(&u, &totals, &x);
    CHECK(text && !strstr(text, "Job cgroup") && !strstr(text, "CPU energy"));
    free(text);
    x.cgroup_asked = 1;
    snprintf(c.created_reason, sizeof c.created_reason, "cannot make a cgroup beneath /: "
             "Permission denied");
    text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "Job cgroup      none: cannot make a cgroup beneath /: Permission "
                         "denied\n");
    free(text);
    /* Processes by command: the top six, the rest summed, names escaped;
     * nothing for a tree of one process. */
    gt_command_groups g = {.struct_size = sizeof g, .available = 1, .ngroups = 8,
                           .commands = 9, .processes = 40, .cpu_seconds = 100,
                           .unseen_cpu_seconds = 1.5, .others = 1, .others_processes = 2,
                           .others_cpu_seconds = 0.5};
    for (int i = 0; i < 8; i++)
        g.groups[i] = (gt_command_group){.processes = 1 + i, .peak_concurrent = 1,
                                         .cpu_seconds = 20 - i, .peak_pss_bytes = 1048576};
    snprintf(g.groups[0].command, sizeof g.groups[0].command, "cc1");
    snprintf(g.groups[1].command, sizeof g.groups[1].command, "evil\033]0;x\a");
    g.groups[0].peak_concurrent = 4;
    x = (struct human_extras){.processes = &g};
    text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, "\nProcesses       40 in 9 commands, CPU as sampled (+1.50 s unseen)\n"
                         "  cc1           1 process (4 at once), CPU 20.0 s, peak 1.00 MiB\n");
    CHECK(text && !strchr(text, '\033') && !strchr(text, '\a'));
    free(text);
    x.verbose = 1; /* --verbose says where the unseen CPU went */
    text = human_summary(&u, &totals, &x);
    CHECK_CONTAINS(text, " (+1.50 s unseen: after processes' last samples, or between two)\n");
    /* groups 7 and 8 (7 + 8 processes, 14 + 13 s) and the one not listed */
    CHECK_CONTAINS(text, "  and 3 more commands: 17 processes, CPU 27.5 s\n");
    free(text);
    g.processes = 1;
    text = human_summary(&u, &totals, &x);
    CHECK(text && !strstr(text, "Processes"));
    free(text);
}

/* A report of a tracker over the v2 fixture whose memory pressure grows
 * during the run, written to path; 0 on success. */
static int fixture_report(const char *path)
{
    char proc[200], sys[200];
    char *root = tracker_fixture(proc, sys);
    gt_options o;
    tracker_fixture_options(&o, proc, sys);
    o.sleep_time = 0.01;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    gt_tracker *t;
    int rc = -1;
    if (test_tracker_new(&o, &t) == GT_OK) {
        if (gt_tracker_start(t) == GT_OK) {
            /* stalled on memory for the whole run (the share is capped at 1),
             * and one process OOM-killed */
            fx_write(sys, "fs/cgroup/job/memory.pressure",
                     "some avg10=0.00 avg60=0.00 avg300=0.00 total=900000000\n"
                     "full avg10=0.00 avg60=0.00 avg300=0.00 total=100000\n");
            fx_write(sys, "fs/cgroup/job/memory.events",
                     "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n");
            /* rows, for the report's recommendation (an event, not a time) */
            if (gt_tracker_wait_rows(t, 2, 60) && gt_tracker_stop(t) == GT_OK &&
                gt_tracker_write_report(t, "train.py", 137, NULL, NULL, path) == GT_OK)
                rc = 0;
        }
        gt_tracker_free(t);
    }
    fx_rmroot(root);
    return rc;
}

/* The report's "Why it was slow": the group's peak, the OOM kill, the
 * stall, the pressure chart. */
static void test_report(void)
{
    char path[] = "/tmp/gt-cgroup-report-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK(fixture_report(path) == 0);
    char *html = NULL;
    CHECK(input_file_read(path, 1 << 24, "report", &html, NULL) == GT_OK);
    if (html) {
        CHECK_CONTAINS(html, "<h2>Why it was slow</h2>");
        CHECK_CONTAINS(html, "Group memory peak</div><div class=\"v\">600 MiB</div>");
        CHECK_CONTAINS(html, "limit 1.00 GiB");
        CHECK_CONTAINS(html, "<div class=\"card warn\"><div class=\"k\">OOM kills</div><div "
                             "class=\"v\">1 killed</div>");
        CHECK_CONTAINS(html, "the command itself ended by SIGKILL (exit 137)");
        CHECK_CONTAINS(html, "Stalled</div><div class=\"v\">100.0%</div>");
        CHECK_CONTAINS(html, "waited for memory");
        CHECK_CONTAINS(html, "aria-label=\"Pressure\"");
        CHECK_CONTAINS(html, "<title>Memory: some 100.0%</title>");
        /* a memory request below the group's peak would be killed; its
         * page cache (file less shmem at the highest sample) would not */
        CHECK_CONTAINS(html, "(page cache included); 6.00 MiB of it page cache the kernel could "
                             "reclaim; limit 1.00 GiB");
        CHECK_CONTAINS(html, "memory from the job&#39;s cgroup peak less its page cache, + 20%");
    }
    free(html);
    unlink(path);
}

/* The same report in headless Chromium: the panel and the chart are in the
 * rendered page, the memory bar as wide as the run. */
static int report_in_chromium(void)
{
    if (!chromium_available())
        return 77;
    char *text = chromium_dom(fixture_report);
    if (text) {
        CHECK_CONTAINS(text, "<h2>Why it was slow</h2>");
        CHECK_CONTAINS(text, "aria-label=\"Pressure\"");
        /* the memory row: "some" as wide as the track (460), "full" not */
        CHECK_CONTAINS(text, "class=\"some\" x=\"80\" y=\"48\" width=\"460.0\"");
        CHECK_CONTAINS(text, "class=\"full\" x=\"80\" y=\"48\" width=\"");
    }
    free(text);
    return check_exit("test_cgroup report-chromium");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "report-chromium") == 0)
        return report_in_chromium();
    if (argc > 1 && strcmp(argv[1], "real") == 0)
        return real_tests();
    test_v2_reader();
    test_v1_reader();
    test_reader_failures();
    test_first_list_unpruned();
    test_root_outside();
    test_membership();
    test_figures();
    test_tracker_fixture();
    test_report();
    test_human();
    test_starved();
    test_no_group_made();
    return check_exit("test_cgroup");
}
