/* Unit tests of the pure procfs parsers, on fixture strings. */
#include <string.h>

#include "common/parse/cgroup_parse.h"
#include "check.h"
#include "common/internal.h"
#include "common/parse/proc_parse.h"

#define STAT_TAIL " 0 0 0 0 -1 4194560 100 7 2 3 %s 20 0 %s 0 %s 1000 200 0"

static int parse_stat_str(const char *s, struct proc_stat *st)
{
    return proc_parse_stat(s, strlen(s), st);
}

static void test_stat(void)
{
    struct proc_stat st;
    /* A plain line, fields 3.. after the comm. */
    const char *plain = "42 (python3) S 1 42 42 0 -1 4194560 1500 30 2 1 250 75 12 8 20 0 4 0 98765 "
                        "123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
    CHECK(parse_stat_str(plain, &st) == 0);
    CHECK(st.state == 'S');
    CHECK(st.ppid == 1);
    CHECK(st.minflt == 1500 && st.majflt == 2);
    CHECK(st.cminflt == 30);
    CHECK(st.cmajflt == 1);
    CHECK(st.utime == 250 && st.stime == 75);
    CHECK(st.cutime == 12 && st.cstime == 8);
    CHECK(st.num_threads == 4);
    CHECK(st.starttime == 98765);
    CHECK(strcmp(st.comm, "python3") == 0);
    CHECK(!st.has_blkio && st.blkio_ticks == 0); /* not asked for */
    CHECK(proc_parse_stat_delay(plain, strlen(plain), &st) == 0 && st.has_blkio &&
          st.blkio_ticks == 0 && st.starttime == 98765);
    /* Field 42, the block I/O delay; a line that stops before it has none. */
    const char *waited = "42 (python3) D 1 42 42 0 -1 4194560 1500 30 2 1 250 75 12 8 20 0 4 0 "
                         "98765 123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 "
                         "0 1234 0 0";
    CHECK(proc_parse_stat_delay(waited, strlen(waited), &st) == 0 && st.has_blkio &&
          st.blkio_ticks == 1234);
    CHECK(st.state == 'D' && st.starttime == 98765);
    const char *cut = "42 (python3) D 1 42 42 0 -1 4194560 1500 30 2 1 250 75 12 8 20 0 4 0 "
                      "98765 123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0";
    CHECK(proc_parse_stat_delay(cut, strlen(cut), &st) == 0 && !st.has_blkio &&
          st.blkio_ticks == 0);
    const char *junk = "42 (python3) D 1 42 42 0 -1 4194560 1500 30 2 1 250 75 12 8 20 0 4 0 "
                       "98765 123456 789 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 "
                       "0 x12 0 0";
    CHECK(proc_parse_stat_delay(junk, strlen(junk), &st) == 0 && !st.has_blkio &&
          st.blkio_ticks == 0);
    /* Before 22 a short line fails either way. */
    CHECK(proc_parse_stat_delay("9 (x) S 1 9 9 0 -1 0 0 0 0 0 5 5 0 0 20 0 1", 43, &st) == -1);

    /* comm with spaces and parentheses: fields start after the last ')'. */
    const char *odd = "7 (my (weird) prog) ) R 3 7 7 0 -1 0 0 0 0 0 9 1 0 0 20 0 2 0 555 0 0";
    CHECK(parse_stat_str(odd, &st) == 0);
    CHECK(st.state == 'R' && st.ppid == 3 && st.utime == 9 && st.num_threads == 2 &&
          st.starttime == 555 && !st.has_blkio);
    CHECK(strcmp(st.comm, "my (weird) prog") == 0); /* 15 bytes, as the kernel keeps */

    /* Negative priority/nice, and negative cutime read as 0. */
    const char *neg = "8 (rt) S 1 8 8 0 -1 0 0 0 0 0 5 5 -3 2 -51 -20 1 0 77 0 0";
    CHECK(parse_stat_str(neg, &st) == 0);
    CHECK(st.cutime == 0 && st.cstime == 2 && st.starttime == 77);

    /* A zombie. */
    const char *zombie = "9 (dead) Z 1 9 9 0 -1 0 0 4 0 0 300 20 0 0 20 0 1 0 88 0 0";
    CHECK(parse_stat_str(zombie, &st) == 0 && st.state == 'Z' && st.utime == 300);

    /* Huge but valid (u64 max), and one past it. */
    const char *huge = "9 (x) S 1 9 9 0 -1 0 0 0 0 0 18446744073709551615 0 0 0 20 0 1 0 1 0";
    CHECK(parse_stat_str(huge, &st) == 0 && st.utime == 18446744073709551615ULL);
    const char *over = "9 (x) S 1 9 9 0 -1 0 0 0 0 0 18446744073709551616 0 0 0 20 0 1 0 1 0";
    CHECK(parse_stat_str(over, &st) == -1);

    /* Truncated before starttime, no ')' at all, empty, garbage numbers. */
    CHECK(parse_stat_str("9 (x) S 1 9 9 0 -1 0 0 0 0 0 5 5 0 0 20 0 1", &st) == -1);
    CHECK(parse_stat_str("9 x S 1 9 9", &st) == -1);
    CHECK(parse_stat_str("", &st) == -1);
    CHECK(parse_stat_str("9 (x) S one 9 9 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 1", &st) == -1);
    CHECK(parse_stat_str("9 (x)", &st) == -1);
    /* Only the stated length counts: a cut-off buffer is truncated text. */
    CHECK(proc_parse_stat(plain, 40, &st) == -1);
}

static void test_status(void)
{
    struct proc_status s;
    const char *full = "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t  900000 kB\n"
                       "VmHWM:\t  524288 kB\nVmRSS:\t  262144 kB\nRssAnon:\t  200000 kB\n"
                       "RssFile:\t   60000 kB\nRssShmem:\t    2144 kB\nThreads:\t12\n"
                       "SigQ:\t0/94360\n";
    CHECK(proc_parse_status(full, strlen(full), &s) == 0);
    CHECK(s.has_memory == 1);
    CHECK(s.vm_hwm_kb == 524288 && s.vm_rss_kb == 262144);
    CHECK(s.rss_anon_kb == 200000 && s.rss_file_kb == 60000 && s.rss_shmem_kb == 2144);
    CHECK(s.threads == 12);
    CHECK(s.sigchld_ignored == 0); /* no SigIgn line */

    /* SigIgn is hexadecimal: bit 16 is SIGCHLD (17); 0x1000 is SIGPIPE. */
    const char *ign = "VmRSS:\t 5 kB\nThreads:\t1\nSigIgn:\t0000000000011000\n";
    CHECK(proc_parse_status(ign, strlen(ign), &s) == 0 && s.sigchld_ignored == 1);
    const char *pipe_only = "Threads:\t1\nSigIgn:\t0000000000001000\n";
    CHECK(proc_parse_status(pipe_only, strlen(pipe_only), &s) == 0 && s.sigchld_ignored == 0);
    const char *upper = "Threads:\t1\nSigIgn:\t00000000000F0000\n";
    CHECK(proc_parse_status(upper, strlen(upper), &s) == 0 && s.sigchld_ignored == 1);
    const char *not_hex = "Threads:\t1\nSigIgn:\tzz\n";
    CHECK(proc_parse_status(not_hex, strlen(not_hex), &s) == -1);
    const char *too_long = "Threads:\t1\nSigIgn:\t10000000000000000\n";
    CHECK(proc_parse_status(too_long, strlen(too_long), &s) == -1);

    /* schedstat: run and wait nanoseconds, and the slices. */
    struct proc_schedstat ss;
    const char *sched = "187746710 18617750 908\n";
    CHECK(proc_parse_schedstat(sched, strlen(sched), &ss) == 0 && ss.run_ns == 187746710 &&
          ss.wait_ns == 18617750 && ss.slices == 908);
    CHECK(proc_parse_schedstat("12 x 3\n", 7, &ss) == -1);
    CHECK(proc_parse_schedstat("12 3", 4, &ss) == -1);

    /* A zombie or kernel thread: no Vm lines. */
    const char *zombie = "Name:\tdead\nState:\tZ (zombie)\nThreads:\t1\n";
    CHECK(proc_parse_status(zombie, strlen(zombie), &s) == 0);
    CHECK(s.has_memory == 0 && s.vm_rss_kb == 0 && s.threads == 1);

    /* Truncated before Threads; malformed number; overflow. */
    const char *cut = "Name:\tx\nVmHWM:\t 10 kB\nVmRSS:\t 5 kB\n";
    CHECK(proc_parse_status(cut, strlen(cut), &s) == -1);
    const char *bad = "VmRSS:\t abc kB\nThreads:\t1\n";
    CHECK(proc_parse_status(bad, strlen(bad), &s) == -1);
    const char *over = "VmRSS:\t 99999999999999999999 kB\nThreads:\t1\n";
    CHECK(proc_parse_status(over, strlen(over), &s) == -1);

    /* A key matches only its whole name before the colon: not a longer
     * key it begins, nor a shorter one; a last line without a newline
     * counts, and a key at the very end with nothing after it is cut. */
    const char *near = "ThreadsX:\t7\nThread:\t8\nVmRSSx:\t1 kB\nVmRSS:\t5 kB\nThreads:\t3";
    CHECK(proc_parse_status(near, strlen(near), &s) == 0);
    CHECK(s.threads == 3 && s.vm_rss_kb == 5);
    const char *bare = "VmRSS:\t5 kB\nThreads";
    CHECK(proc_parse_status(bare, strlen(bare), &s) == -1);
}

static void test_text_copy(void)
{
    char small[4];
    text_copy(small, sizeof small, "abcdef"); /* cut to fit, terminated */
    CHECK(strcmp(small, "abc") == 0);
    text_copy(small, sizeof small, "ab");
    CHECK(strcmp(small, "ab") == 0);
    text_copy(small, sizeof small, "");
    CHECK(small[0] == '\0');
}

static void test_rollup(void)
{
    struct proc_rollup r;
    const char *text = "557c72d18000-7ffeeae8f000 ---p 00000000 00:00 0    [rollup]\n"
                       "Rss:                1760 kB\nPss:                 802 kB\n"
                       "Pss_Dirty:           112 kB\nShared_Clean:       1528 kB\n"
                       "Shared_Dirty:          0 kB\nPrivate_Clean:       120 kB\n"
                       "Private_Dirty:       112 kB\nReferenced:         1760 kB\n";
    CHECK(proc_parse_smaps_rollup(text, strlen(text), &r) == 0);
    CHECK(r.rss_kb == 1760 && r.pss_kb == 802);
    CHECK(r.private_kb == 232 && r.shared_kb == 1528);
    /* An empty smaps_rollup (a kernel thread) or one cut short is an error. */
    CHECK(proc_parse_smaps_rollup("", 0, &r) == -1);
    CHECK(proc_parse_smaps_rollup(text, 120, &r) == -1);
}

static void test_pid_list(void)
{
    pid_t pids[4];
    size_t n;
    const char *text = "101 102 4000000 ";
    CHECK(proc_parse_pid_list(text, strlen(text), pids, 4, &n) == 0);
    CHECK(n == 3 && pids[0] == 101 && pids[1] == 102 && pids[2] == 4000000);
    CHECK(proc_parse_pid_list("", 0, pids, 4, &n) == 0 && n == 0);
    /* More than fit: the count says so. */
    const char *many = "1 2 3 4 5 6";
    CHECK(proc_parse_pid_list(many, strlen(many), pids, 4, &n) == 0 && n == 6 && pids[3] == 4);
    CHECK(proc_parse_pid_list("12 x3", 5, pids, 4, &n) == -1);
    CHECK(proc_parse_pid_list("0", 1, pids, 4, &n) == -1);
    CHECK(proc_parse_pid_list("99999999999", 11, pids, 4, &n) == -1);
}

static void test_cpu_stat(void)
{
    struct sys_cpu c;
    const char *text = "cpu  100 5 50 1000 20 3 2 1 7 0\ncpu0 50 2 25 500 10 1 1 0 3 0\n"
                       "cpu1 50 3 25 500 10 2 1 1 4 0\nintr 12345 1 2 3\nctxt 999\n"
                       "btime 1700000000\nprocesses 4242\nprocs_running 2\n";
    CHECK(proc_parse_cpu_stat(text, strlen(text), &c) == 0);
    CHECK(c.ncpu == 2);
    /* total = user..steal (guest is inside user); idle = idle + iowait. */
    CHECK(c.total == 100 + 5 + 50 + 1000 + 20 + 3 + 2 + 1);
    CHECK(c.busy == c.total - 1020);
    const char *no_cpus = "cpu  1 2 3 4 5 6 7 8\n";
    CHECK(proc_parse_cpu_stat(no_cpus, strlen(no_cpus), &c) == -1);
    const char *short_line = "cpu  1 2 3\ncpu0 1 2 3\n";
    CHECK(proc_parse_cpu_stat(short_line, strlen(short_line), &c) == -1);
}

static void test_meminfo(void)
{
    struct meminfo m;
    const char *text = "MemTotal:       24634800 kB\nMemFree:        23000000 kB\n"
                       "MemAvailable:   23500000 kB\nBuffers:           10000 kB\n"
                       "Cached:           500000 kB\nSReclaimable:      70000 kB\n";
    CHECK(proc_parse_meminfo(text, strlen(text), &m) == 0);
    CHECK(m.total_kb == 24634800 && m.available_kb == 23500000);
    CHECK(m.buffers_kb == 10000 && m.cached_kb == 500000 && m.sreclaimable_kb == 70000);
    const char *old = "MemTotal:       24634800 kB\nMemFree:        23000000 kB\n";
    CHECK(proc_parse_meminfo(old, strlen(old), &m) == -1);
}

#define TEXT(s) s, sizeof s - 1

/* The cgroup files of a job's group figures, both versions, and what must
 * be refused. */
static void test_cgroup(void)
{
    struct cgroup_membership m;
    /* v2 alone (a unified hierarchy): one line. */
    CHECK(cgroup_parse_membership(TEXT("0::/system.slice/slurmstepd.scope/job_42/step_0\n"), &m) == 0);
    CHECK(m.have_unified && !m.have_memory);
    CHECK_STR(m.unified, "/system.slice/slurmstepd.scope/job_42/step_0");
    /* v1 (this kind of host), cpu and cpuacct joined, a named hierarchy,
     * and the hybrid's empty unified line. */
    static const char v1[] = "9:name=systemd:/\n4:memory:/process_api/219c\n"
                             "3:cpu,cpuacct:/slurm/uid_0/job_7\n0::/\n";
    CHECK(cgroup_parse_membership(TEXT(v1), &m) == 0);
    CHECK(m.have_memory && m.have_cpu && m.have_cpuacct && m.have_unified);
    CHECK_STR(m.memory, "/process_api/219c");
    CHECK_STR(m.cpu, "/slurm/uid_0/job_7");
    CHECK_STR(m.cpuacct, "/slurm/uid_0/job_7");
    /* A path with ':' is one path; one that climbs out is refused. */
    CHECK(cgroup_parse_membership(TEXT("0::/a:b\n"), &m) == 0 && !strcmp(m.unified, "/a:b"));
    CHECK(cgroup_parse_membership(TEXT("0::/a/../../etc\n"), &m) == -1);
    CHECK(cgroup_parse_membership(TEXT("0::relative\n"), &m) == -1);
    CHECK(cgroup_parse_membership(TEXT("garbage\n"), &m) == -1);
    CHECK(cgroup_parse_membership(TEXT(""), &m) == -1);
    CHECK(cgroup_parse_membership(TEXT("0::/x..y/..z\n"), &m) == 0); /* names, not ".." */

    unsigned long long v;
    int is_max;
    CHECK(cgroup_parse_value(TEXT("123456789\n"), &v, &is_max) == 0 && v == 123456789 && !is_max);
    CHECK(cgroup_parse_value(TEXT("max\n"), &v, &is_max) == 0 && is_max && v == 0);
    CHECK(cgroup_parse_value(TEXT("18446744073709551616\n"), &v, &is_max) == -1); /* > 64 bits */
    CHECK(cgroup_parse_value(TEXT("12 34\n"), &v, &is_max) == -1);
    CHECK(cgroup_parse_value(TEXT("-1\n"), &v, &is_max) == -1);
    CHECK(cgroup_parse_value(TEXT(""), &v, &is_max) == -1);

    /* memory.stat (v2): the keys asked for, others skipped. */
    static const char *const mem_keys[] = {"anon", "file", "shmem"};
    unsigned long long mv[3] = {0, 0, 0};
    unsigned found;
    CHECK(cgroup_parse_keyed(TEXT("anon 1048576\nfile 4096\nkernel 77\nshmem 0\n"), mem_keys, 3,
                             mv, &found) == 0);
    CHECK(found == 7 && mv[0] == 1048576 && mv[1] == 4096 && mv[2] == 0);
    /* cpu.stat (v2) with the throttling of a quota; v1 lacks usage_usec. */
    static const char *const cpu_keys[] = {"usage_usec", "nr_periods", "nr_throttled",
                                           "throttled_usec"};
    unsigned long long cv[4] = {0, 0, 0, 0};
    CHECK(cgroup_parse_keyed(TEXT("usage_usec 5000000\nuser_usec 4000000\nsystem_usec 1000000\n"
                                  "nr_periods 100\nnr_throttled 7\nthrottled_usec 350000\n"),
                             cpu_keys, 4, cv, &found) == 0);
    CHECK(found == 15 && cv[0] == 5000000 && cv[2] == 7 && cv[3] == 350000);
    CHECK(cgroup_parse_keyed(TEXT("nr_periods 10\nnr_throttled 2\nthrottled_time 9000\n"), cpu_keys,
                             4, cv, &found) == 0 && found == 6);
    /* memory.events and v1's memory.oom_control. */
    static const char *const ev_keys[] = {"oom", "oom_kill"};
    unsigned long long ev[2] = {0, 0};
    CHECK(cgroup_parse_keyed(TEXT("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n"),
                             ev_keys, 2, ev, &found) == 0 && found == 3 && ev[1] == 1);
    CHECK(cgroup_parse_keyed(TEXT("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"), ev_keys + 1, 1,
                             ev, &found) == 0 && found == 1 && ev[0] == 2);
    /* An asked key whose value is not a count: the file is not used. */
    CHECK(cgroup_parse_keyed(TEXT("anon lots\n"), mem_keys, 3, mv, &found) == -1);
    CHECK(cgroup_parse_keyed(TEXT("anon 12x\n"), mem_keys, 3, mv, &found) == -1);

    /* Pressure: some and full totals; cpu.pressure of old kernels has no
     * full line. */
    struct psi_totals p;
    CHECK(cgroup_parse_pressure(TEXT("some avg10=0.00 avg60=1.50 avg300=0.30 total=123456\n"
                                     "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n"), &p) == 0);
    CHECK(p.some_us == 123456 && p.have_full && p.full_us == 789);
    CHECK(cgroup_parse_pressure(TEXT("some avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), &p) == 0 &&
          !p.have_full && p.some_us == 5);
    CHECK(cgroup_parse_pressure(TEXT("some avg10=0.00 total=\n"), &p) == -1);
    CHECK(cgroup_parse_pressure(TEXT("full avg10=0.00 total=5\n"), &p) == -1); /* no some */
    CHECK(cgroup_parse_pressure(TEXT("some mytotal=5\n"), &p) == -1);
    CHECK(cgroup_parse_pressure(TEXT("weird line\n"), &p) == -1);
}

int main(void)
{
    test_cgroup();
    test_stat();
    test_status();
    test_rollup();
    test_pid_list();
    test_cpu_stat();
    test_meminfo();
    test_text_copy();
    return check_exit("test_parsers");
}
