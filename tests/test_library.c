/* libgputracker used by a program on itself (gt-selftrack): the same figures
 * as gpu-tracker for the same work, its sampling thread left out, a backup
 * file that survives SIGKILL and that `gpu-tracker show` reads, and
 * tracking another process by process_id. */
#define _GNU_SOURCE
#include <signal.h>

#include "runner.h"

#define SELFTRACK WORKLOAD_DIR "/gt-selftrack"

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
        double da = cpu_seconds(a, "descendants"), db = cpu_seconds(b, "descendants");
        CHECK_MSG(fabs(da - db) < 0.1 && da >= 0.55, "descendants CPU: library %f s, CLI %f s",
                  da, db);
        /* Main only waits: well under the children's 0.6 s, which is what
         * counting their time as main's would add (0.06-0.09 s seen under
         * ASan; once 0.2 on a loaded machine, hence the room). */
        CHECK_MSG(cpu_seconds(a, "main") < 0.35 && cpu_seconds(b, "main") < 0.35,
                  "main CPU: library %f s, CLI %f s", cpu_seconds(a, "main"),
                  cpu_seconds(b, "main"));
        CHECK(jnum(a, "cpu_utilization.main_n_threads") == jnum(b, "cpu_utilization.main_n_threads"));
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
        CHECK_MSG(cpu_seconds(j, "main") < 0.03, "main CPU %f s", cpu_seconds(j, "main"));
        CHECK(jnum(j, "cpu_utilization.main_n_threads") == 1);
        json_object_put(j);
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
    CHECK_CONTAINS(r.err.data, "bad.json' is not a gpu-tracker summary: key \"max_ram\" should "
                               "be a object\n");
    result_free(&r);
    r = gt("show", backup, "-f", "yaml", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: unknown format 'yaml'; valid formats: text, json\n");
    result_free(&r);
    r = gt("show", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: usage: gpu-tracker show FILE [-f text|json]\n");
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
    test_backup_survives_sigkill();
    test_other_process();
    tmpdir_remove();
    return check_exit("test_library");
}
