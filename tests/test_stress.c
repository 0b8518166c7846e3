#define _GNU_SOURCE
/* Abuse, bounded in time: a 500-process tree, fork churn, processes that
 * vanish between listing and reading, a pid reused by an unrelated process,
 * files we may not read, and the tracker's memory over many samples. None
 * may crash, hang or leak (this runs under ASan/LSan too). */
#include <grp.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <time.h>

#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "runner.h"
#include "test_tracker_new.h"
#include "pipeline/pipeline.h"
#include "read/tree.h"

/* Where pid stands in t as of its last walk (1 main, 2 descendant, 0 not). */
static int role_of(const struct tree *t, pid_t pid)
{
    struct pid_roles r;
    tree_roles(t, &r);
    return pid_roles_get(&r, pid);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GT_ASAN 1
#endif
#ifdef GT_ASAN
/* In the sanitizer runtime (GCC ships no header for it). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static size_t heap_in_use(void)
{
#ifdef GT_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    return mallinfo2().uordblks;
#endif
}

/* The heap in use with the sampling thread's transient buffers left out: a
 * sample in progress holds some (opendir's 32 KiB DIR of /proc/self/task,
 * for one), so one reading may catch them. The least of 50 readings a
 * millisecond apart does not; a leak shows in every reading. */
static size_t heap_settled(void)
{
    size_t least = heap_in_use();
    for (int i = 0; i < 50; i++) {
        struct timespec ms = {0, 1000 * 1000};
        nanosleep(&ms, NULL);
        size_t now = heap_in_use();
        if (now < least)
            least = now;
    }
    return least;
}

static int warnings;
static char last_warning[512];

/* Counts the permission warnings (a GPU warning may come too). */
static void on_warning(const char *msg, void *data)
{
    (void)data;
    if (!strstr(msg, "permission denied"))
        return;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* A fixture main (100) with the given children list. */
static struct fx_proc fixture_main(const char *children)
{
    struct fx_proc m = {.pid = 100, .ppid = 1, .utime = 10, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 5, .children = children};
    return m;
}

/* Processes listed as children that vanish, or half vanish, between the
 * listing and the reading: not counted, no error. */
static void test_vanishing(void)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = fixture_main("101 102 103 104");
    fx_proc_write(root, &m);
    struct fx_proc c = {.pid = 101, .ppid = 100, .utime = 7, .rss_kb = 500, .anon_kb = 500,
                        .private_kb = 500, .pss_kb = 500, .starttime = 6};
    fx_proc_write(root, &c);
    /* 102: its directory is gone (ESRCH/ENOENT at the open). */
    /* 103: stat read, then status gone (ENOENT mid-read). */
    struct fx_proc d = c;
    d.pid = 103;
    d.starttime = 7;
    fx_proc_write(root, &d);
    char path[4200];
    snprintf(path, sizeof path, "%s/103/status", root);
    unlink(path);
    /* 104: a directory without stat (gone before the first read). */
    snprintf(path, sizeof path, "%s/104", root);
    mkdir(path, 0755);

    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.main_alive && s.desc_rss_kb == 500 && s.desc_ticks == 7);
    CHECK(tree_walk(&t, &s) == 0); /* and again, with 103 and 104 still half there */
    CHECK(s.desc_rss_kb == 500);
    tree_free(&t);
    fx_rmroot(root);
}

/* Child 101 exits and its pid goes to an unrelated process (another
 * parent, another start time) while main's children list still names it:
 * the newcomer is never counted. */
static void test_pid_reuse(void)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = fixture_main("101");
    fx_proc_write(root, &m);
    struct fx_proc c = {.pid = 101, .ppid = 100, .utime = 7, .rss_kb = 500, .anon_kb = 500,
                        .private_kb = 500, .pss_kb = 500, .starttime = 6};
    fx_proc_write(root, &c);
    struct tree t;
    CHECK(tree_init(&t, root, 100, 0, 0) == 0);
    struct tree_sample s;
    CHECK(tree_walk(&t, &s) == 0);
    CHECK(s.desc_rss_kb == 500);
    /* 101 exited (main reaped it: its 7 ticks are main's cutime now) and the
     * pid is reused: a 9 GB process of someone else, started later. */
    struct fx_proc other = {.pid = 101, .ppid = 1, .utime = 5000, .rss_kb = 9000000,
                            .anon_kb = 9000000, .private_kb = 9000000, .pss_kb = 9000000,
                            .starttime = 99999};
    fx_proc_write(root, &other);
    m.cutime = 7;
    fx_proc_write(root, &m);
    CHECK(tree_walk(&t, &s) == 0);
    CHECK_MSG(s.desc_rss_kb == 0, "desc RSS %llu", s.desc_rss_kb);
    CHECK(s.desc_ticks == 7); /* the reaped child's time, not the newcomer's */
    CHECK(role_of(&t, 101) == 0);
    /* A first walk that meets the newcomer (attached late): not ours either. */
    struct tree t2;
    CHECK(tree_init(&t2, root, 100, 0, 0) == 0);
    CHECK(tree_walk(&t2, &s) == 0);
    CHECK(s.desc_rss_kb == 0 && role_of(&t2, 101) == 0);
    tree_free(&t2);
    tree_free(&t);
    fx_rmroot(root);
}

/* Files we may not read (another user's process): skipped, with one
 * warning for the whole run; what can be read still counts. Runs in a child
 * that drops root, since root reads everything. */
static void test_unreadable(void)
{
    char *root = fx_mkroot();
    fx_system(root, 0, 0, 2, 8000000, 6000000);
    struct fx_proc m = fixture_main("101");
    fx_proc_write(root, &m);
    struct fx_proc c = {.pid = 101, .ppid = 100, .utime = 7, .rss_kb = 500, .anon_kb = 500,
                        .private_kb = 500, .pss_kb = 500, .starttime = 6, .write_bytes = 4096};
    fx_proc_write(root, &c);
    char path[4200];
    const char *locked[] = {"101/status", "101/io", "101/smaps_rollup"};
    for (size_t i = 0; i < sizeof locked / sizeof locked[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, locked[i]);
        chmod(path, 0);
    }
    chmod(root, 0755);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
            _exit(77); /* cannot drop root here (a user namespace): cannot test */
        check_failures = 0;
        gt_options o;
        test_options_init(&o);
        test_sources.proc_root = root;
        o.process_id = 100;
        o.sleep_time = 0.01;
        o.duration = 0.05;
        o.series = GT_SERIES_PROCESS;
        o.resource_usage_file = "";
        o.ram_unit = "kilobytes";
        o.time_unit = "seconds";
        o.on_warning = on_warning;
        o.gpu_brand = "nvidia";
        setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
        gt_tracker *t = NULL;
        CHECK(test_tracker_new(&o, &t) == GT_OK);
        if (t) {
            warnings = 0;
            CHECK(gt_tracker_start(t) == GT_OK);
            CHECK(gt_tracker_wait(t, 30) == 1);
            CHECK(gt_tracker_stop(t) == GT_OK);
            CHECK_MSG(warnings == 1, "%d warnings", warnings); /* one, for all files and samples */
            CHECK_CONTAINS(last_warning, "permission denied reading ");
            CHECK_CONTAINS(last_warning, "/101/io (a process of another user?): what that file "
                                         "holds is left out");
            const gt_resource_usage *u = gt_tracker_usage(t);
            /* 101 still counts (its CPU, its thread), without its memory. */
            CHECK(u && u->cpu_utilization.descendants_n_threads == 1);
            CHECK(u && u->max_ram.main.total_rss == 1024); /* 1000 KiB in kilobytes */
            gt_series s = {.struct_size = sizeof(gt_series)};
            /* Rows: up to 5 (a loaded machine may skip a 10 ms slot). */
            CHECK(gt_tracker_series(t, &s) == GT_OK && s.nprocess >= 1 && s.nprocess <= 5);
            for (size_t i = 0; i < s.nprocess; i++)
                CHECK(s.process[i].children == 1 && s.process[i].memory == 1000);
            gt_tracker_free(t);
        }
        fflush(NULL);
        _exit(check_failures ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int cannot_drop_root = WIFEXITED(status) && WEXITSTATUS(status) == 77;
    if (!cannot_drop_root)
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the unprivileged child: %d",
                  status);
    fx_rmroot(root);
    if (cannot_drop_root)
        SKIP_TEST("root privileges cannot be dropped here (a user namespace?): files root may "
                  "read cannot be made unreadable");
}

/* 500 processes, all counted. */
static void test_big_tree(void)
{
    const char *csv = tmp_path("tree.csv");
    struct result r = gt("--st", "0.1", "-f", "json", "--disable-logs", "--process-csv", csv, "--",
                         WORKLOAD_BIN, "tree", "500", csv, "2", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    json_object *j = parse_or_fail(r.out.data, "stdout");
    CHECK_MSG(j && jnum(j, "cpu_utilization.descendants_n_threads") == 499, "%g threads",
              j ? jnum(j, "cpu_utilization.descendants_n_threads") : -1);
    if (j)
        json_object_put(j);
    char *text = slurp(csv);
    int max_children = 0;
    for (const char *p = text ? strstr(text, "\r\n") : NULL; p && p[2]; p = strstr(p + 2, "\r\n")) {
        int children = 0;
        if (sscanf(p + 2, "%*[^,],%*[^,],%d", &children) == 1 && children > max_children)
            max_children = children;
    }
    free(text);
    CHECK_MSG(max_children == 499, "max children %d", max_children);
    result_free(&r);
}

/* Hundreds of short-lived children per second, sampled every 5 ms: whatever
 * the walk meets half-gone is skipped; the CPU of all of them is counted
 * (they are reaped by main: main's cutime), within the kernel's rounding. */
static void test_fork_churn(void)
{
    struct result r = gt("--st", "0.005", "-f", "json", "--tu", "seconds", "--disable-logs", "--",
                         WORKLOAD_BIN, "churn", "1500", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    /* The document alone on stdout; the workload's own line ("cpu S") came
     * on stderr (docs/cli.md, "Standard output and standard error"). */
    const char *json = r.out.data[0] == '{' ? r.out.data : NULL;
    double truth = -1;
    const char *line = strstr(r.err.data, "cpu ");
    if (line)
        sscanf(line, "cpu %lf", &truth);
    json_object *j = json ? parse_or_fail(json, "stdout") : NULL;
    if (j) {
        double counted = cpu_seconds(j, "combined");
        /* ticks (1/100 s) per process against rusage's microseconds: the
         * difference is rounding, far below what losing the children (most
         * of the CPU here) would give */
        CHECK_MSG(truth > 0 && counted >= truth * 0.5 - 0.05 && counted <= truth * 1.5 + 0.05,
                  "counted %f s, rusage %f s", counted, truth);
        json_object_put(j);
    }
    result_free(&r);
}

/* Summary mode keeps no rows: the tracker's heap stays flat however many
 * samples it takes. */
static void test_memory_flat(void)
{
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 0.001;
    o.resource_usage_file = "";
    o.gpu_brand = "nvidia";
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return;
    CHECK(gt_tracker_start(t) == GT_OK);
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    size_t early = heap_settled();
    ts.tv_sec = 1;
    ts.tv_nsec = 0;
    nanosleep(&ts, NULL); /* about a thousand samples more */
    size_t late = heap_settled();
    CHECK(gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = gt_tracker_usage(t);
    CHECK(u && u->measurement.samples > 10);
    CHECK_MSG(late <= early + 16384, "heap grew from %zu to %zu bytes over %ld samples", early,
              late, u ? u->measurement.samples : 0);
    gt_tracker_free(t);
}

int main(int argc, char **argv)
{
    /* A sub-test of its own: it may have to skip. */
    if (argc == 2 && !strcmp(argv[1], "unreadable")) {
        test_unreadable();
        return check_exit("test_stress unreadable");
    }
    tmpdir_make("stress");
    test_vanishing();
    test_pid_reuse();
    test_big_tree();
    test_fork_churn();
    test_memory_flat();
    tmpdir_remove();
    return check_exit("test_stress");
}
