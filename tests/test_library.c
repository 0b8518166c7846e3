/* libgputracker used by a program on itself (gt-selftrack): the same figures
 * as gpu-tracker for the same work, its sampling thread left out, a backup
 * file that survives SIGKILL and that `gpu-tracker show` reads, and
 * tracking another process by process_id. */
#define _GNU_SOURCE
#include <signal.h>

#include "runner.h"

#define SELFTRACK WORKLOAD_DIR "/gt-selftrack"

static double reported_main_cpu(const struct result *r)
{
    return reported(r, "main cpu ");
}

static void test_same_figures_as_cli(void)
{
    char *self_argv[] = {SELFTRACK, "work", "100", "2", "20", "0.3", NULL};
    struct result self = run_argv(self_argv);
    CHECK(self.status == 0);
    struct result cli = gt("--st", "0.1", "-f", "json", "--ru", "megabytes", "--tu", "seconds",
                           "--disable-logs", "--", WORKLOAD_BIN, "work", "100", "2", "20", "0.3",
                           NULL);
    CHECK(cli.status == 0);
    json_object *a = parse_or_fail(self.out.data, "gt-selftrack"), *b = parse_or_fail(cli.out.data,
                                                                                    "gpu-tracker");
    if (a && b) {
        /* Compared on what is exact or bounded by a kernel high-water mark,
         * not on sampled figures (whether a sample sees both children at
         * once is up to the scheduler). Main is the host program itself:
         * under a sanitizer its runtime's own memory is part of main, so its
         * RSS is compared only in a plain build. */
        double ma = jnum(a, "max_ram.main.total_rss"), mb = jnum(b, "max_ram.main.total_rss");
        CHECK(ma >= 100 * MIB / 1e6 && mb >= 100 * MIB / 1e6);
        if (!GT_SANITIZED)
            CHECK_MSG(fabs(ma - mb) < 10.0, "main RSS: library %f MB, CLI %f MB", ma, mb);
        /* A child's peak: its own 20 MiB and the 100 MiB it maps from main. */
        CHECK(jnum(a, "max_ram.descendants.total_rss") >= 120 * MIB / 1e6);
        CHECK(jnum(b, "max_ram.descendants.total_rss") >= 120 * MIB / 1e6);
        /* The children's CPU is what the kernel counted for them (at least
         * the 0.6 s they burned). */
        double da = cpu_seconds(a, "descendants"), db = cpu_seconds(b, "descendants");
        double ta = reported(&self, "children cpu "), tb = reported(&cli, "children cpu ");
        CHECK_MSG(fabs(da - ta) <= TICKS_SLACK && ta >= 0.6,
                  "descendants CPU: library %f s, the kernel counted %f s", da, ta);
        CHECK_MSG(fabs(db - tb) <= TICKS_SLACK && tb >= 0.6,
                  "descendants CPU: CLI %f s, the kernel counted %f s", db, tb);
        /* Main's CPU is what the kernel counted for main itself (not its
         * children's 0.6 s, not the tracker's own threads). */
        double truth_a = reported_main_cpu(&self), truth_b = reported_main_cpu(&cli);
        CHECK_MSG(fabs(cpu_seconds(a, "main") - truth_a) <= TICKS_SLACK,
                  "main CPU: library %f s, the kernel counted %f s", cpu_seconds(a, "main"),
                  truth_a);
        CHECK_MSG(fabs(cpu_seconds(b, "main") - truth_b) <= TICKS_SLACK,
                  "main CPU: CLI %f s, the kernel counted %f s", cpu_seconds(b, "main"), truth_b);
        CHECK(jnum(a, "cpu_utilization.main_n_threads") == reported(&self, "main threads "));
        CHECK(jnum(b, "cpu_utilization.main_n_threads") == 1); /* gt-workload: one thread */
        CHECK(jnum(a, "cpu_utilization.descendants_n_threads") <= 2);
    }
    if (a)
        json_object_put(a);
    if (b)
        json_object_put(b);
    result_free(&self);
    result_free(&cli);
}

static void test_sampler_left_out(void)
{
    /* 0.5 s asleep while the sampler takes a sample every 0.5 ms: whatever
     * the sampler spends is not the program's work. */
    char *argv[] = {SELFTRACK, "idle", "0.5", "0.0005", NULL};
    struct result r = run_argv(argv);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "gt-selftrack idle");
    if (j) {
        CHECK(jnum(j, "measurement.samples") > 10);
        CHECK_MSG(fabs(cpu_seconds(j, "main") - reported_main_cpu(&r)) <= TICKS_SLACK,
                  "main CPU %f s, the kernel counted %f s", cpu_seconds(j, "main"),
                  reported_main_cpu(&r));
        /* Only the program's thread (and a sanitizer's): not the sampler,
         * nor the GPU probe of gt_tracker_new() (joined before it returns). */
        CHECK_MSG(jnum(j, "cpu_utilization.main_n_threads") == reported(&r, "main threads "),
                  "%g threads, the program has %g", jnum(j, "cpu_utilization.main_n_threads"),
                  reported(&r, "main threads "));
        json_object_put(j);
    }
    result_free(&r);
}

/* Two trackers of one program at once: neither counts the other's
 * sampling thread, in threads or in CPU. */
static void test_two_trackers(void)
{
    char *argv[] = {SELFTRACK, "two", "0.3", "0.0005", NULL};
    struct result r = run_argv(argv);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    /* Two documents, one after the other. */
    char *second = r.out.data ? strstr(r.out.data, "}\n{") : NULL;
    CHECK(second != NULL);
    if (second) {
        second[1] = '\0';
        json_object *docs[2] = {parse_or_fail(r.out.data, "first summary"),
                                parse_or_fail(second + 2, "second summary")};
        for (int i = 0; i < 2; i++) {
            if (!docs[i])
                continue;
            CHECK_MSG(jnum(docs[i], "cpu_utilization.main_n_threads") ==
                          reported(&r, "main threads "),
                      "tracker %d: %g threads, the program has %g", i,
                      jnum(docs[i], "cpu_utilization.main_n_threads"),
                      reported(&r, "main threads "));
            CHECK_MSG(cpu_seconds(docs[i], "main") <= reported_main_cpu(&r) + TICKS_SLACK,
                      "tracker %d: main CPU %f s, the kernel counted %f s", i,
                      cpu_seconds(docs[i], "main"), reported_main_cpu(&r));
            json_object_put(docs[i]);
        }
    }
    result_free(&r);
}

static void test_backup_survives_sigkill(void)
{
    const char *backup = tmp_path("backup.json");
    char *argv[] = {SELFTRACK, "crash", (char *)backup, "200", NULL};
    struct result r = run_argv(argv);
    CHECK_MSG(r.status == 128 + SIGKILL, "status %d", r.status);
    result_free(&r);

    r = gt("show", backup, "-f", "json", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.err.data, "is the backup of a run that did not finish");
    json_object *j = parse_or_fail(r.out.data, "show -f json");
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.main.total_rss") >= 200 * MIB / 1e6, "main %f MB",
                  jnum(j, "max_ram.main.total_rss"));
        json_object_put(j);
    }
    result_free(&r);
    r = gt("show", backup, NULL);
    CHECK(r.status == 0);
    CHECK(!strncmp(r.out.data, "Max RAM:\n   Unit: megabytes\n", 28));
    CHECK_CONTAINS(r.out.data, "Compute time:\n   Unit: seconds\n");
    result_free(&r);

    /* show's errors: one line each. */
    r = gt("show", tmp_path("missing.json"), NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "missing.json': No such file or directory\n");
    result_free(&r);
    const char *bad = tmp_path("bad.json");
    FILE *f = fopen(bad, "w");
    fputs("{\"max_ram\": 3}", f);
    fclose(f);
    r = gt("show", bad, NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "bad.json' is not a gpu-tracker summary: \"max_ram\" should be an "
                               "object\n");
    result_free(&r);
    r = gt("show", backup, "-f", "yaml", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: unknown format 'yaml'; valid formats: text, json, human\n");
    result_free(&r);
    r = gt("show", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: usage: gpu-tracker show FILE [-f text|json|human] [--verbose]\n");
    result_free(&r);
}

static void test_other_process(void)
{
    char *argv[] = {SELFTRACK, "attach", "100", NULL};
    struct result r = run_argv(argv);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "gt-selftrack attach");
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.main.total_rss") >= 100 * MIB / 1e6, "main %f MB",
                  jnum(j, "max_ram.main.total_rss"));
        json_object_put(j);
    }
    result_free(&r);
}

int main(void)
{
    tmpdir_make("lib");
    test_same_figures_as_cli();
    test_sampler_left_out();
    test_two_trackers();
    test_backup_survives_sigkill();
    test_other_process();
    tmpdir_remove();
    return check_exit("test_library");
}
