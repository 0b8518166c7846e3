/* End-to-end tests of build/gpu-tracker on the workloads of gt-workload:
 * what a user sees (text, JSON, exit status, errors) and that the figures
 * hold what the kernel counted. No assertion depends on timing: peaks come
 * from kernel high-water marks, CPU from exact tick counts. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "runner.h"

/* ---- the tests ---------------------------------------------------------- */

/* text's lines (up to a line starting with stop, when not NULL) within
 * width columns: 0, else the number of the first that is not (1-based). */
static int first_wide_line(const char *text, int width, const char *stop)
{
    int n = 0;
    for (const char *line = text; line && *line; n++) {
        if (stop && !strncmp(line, stop, strlen(stop)))
            return 0;
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > (size_t)width)
            return n + 1;
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    return n;
}

static void test_help_and_version(void)
{
    struct result r = gt("-h", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "Usage:");
    CHECK_CONTAINS(r.out.data, "--execute=<command>");
    CHECK_CONTAINS(r.out.data, "--pid=<pid>");
    /* The common options on one screen of 80 columns; the config file's
     * line names a path of the machine's and is left out. */
    int wide = first_wide_line(r.out.data, 80, "Config file:");
    CHECK_MSG(wide == 0, "--help: line %d is wider than 80 columns", wide);
    CHECK_MSG(count_lines(r.out.data) <= 40, "--help: %d lines", count_lines(r.out.data));
    CHECK_CONTAINS(r.out.data, "gpu-tracker --help all");
    CHECK_MSG(strstr(r.out.data, "--sampled-only") == NULL, "--help lists every option");
    result_free(&r);
    /* --help all (curl's way): every option, each within 80 columns. */
    r = gt("--help", "all", NULL);
    CHECK(r.status == 0);
    wide = first_wide_line(r.out.data, 80, "Config file:");
    CHECK_MSG(wide == 0, "--help all: line %d is wider than 80 columns", wide);
    static const char *const every[] = {
        "--execute", "--pid", "--output", "--format", "--verbose", "--st=", "--ru=", "--gru=",
        "--tu=", "--nec=", "--guuids=", "--gb=", "--disable-logs", "--quiet", "--backup=",
        "--no-backup", "--wait-all", "--tf=", "--overwrite", "--stf=", "--tconfig=",
        "--metrics-listen=", "--metrics-textfile=", "--process-csv=", "--system-csv=",
        "--benchmark-tsv=", "--snapshot=", "--report=", "--cloud", "--snapshot-format=",
        "--no-children", "--cgroup", "--gpu-details", "--max-ram=", "--max-gpu-ram=",
        "--max-time=", "--max-cpu-time=", "--on-limit=", "--kill-after", "--command-status",
        "--carbon-intensity=", "--pue=", "--start-at=", "--no-csv-header", "--no-config",
        "--sampled-only", "Exit status", "Subcommands:", "Environment:"};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
        CHECK_MSG(strstr(r.out.data, every[i]) != NULL, "--help all lacks %s", every[i]);
    result_free(&r);
    /* The subcommands' help too, -h and --help alike: their usage and
     * options, exit 0; --help all lists each of them. */
    static const char *const subcommands[] = {"show", "system", "stats", "recommend", "report",
                                              "merge", "job", "compare", "sub-track"};
    struct result all = gt("--help", "all", NULL);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++) {
        for (int flag = 0; flag < 2; flag++) {
            r = gt(subcommands[i], flag ? "-h" : "--help", NULL);
            wide = first_wide_line(r.out.data, 80, NULL);
            CHECK_MSG(r.status == 0 && r.out.len > 0 && wide == 0 && r.err.len == 0,
                      "%s %s: status %d, line %d wider than 80 columns, stderr [%s]",
                      subcommands[i], flag ? "-h" : "--help", r.status, wide, r.err.data);
            CHECK_MSG(strstr(r.out.data, subcommands[i]) != NULL, "%s --help names not itself",
                      subcommands[i]);
            result_free(&r);
        }
        char usage_line[64];
        snprintf(usage_line, sizeof usage_line, "  or:  gpu-tracker %s ", subcommands[i]);
        CHECK_MSG(strstr(all.out.data, usage_line) != NULL, "--help all lacks %s",
                  subcommands[i]);
    }
    result_free(&all);
    r = gt("show", "--help", NULL);
    CHECK_CONTAINS(r.out.data, "a snapshot\n(--snapshot FILE.json.gz)");
    CHECK_CONTAINS(r.out.data, "    -f --format=<format>");
    result_free(&r);
    r = gt("job", "--help", NULL);
    CHECK_CONTAINS(r.out.data, "    --plugstack=<file>");
    result_free(&r);
    result_free(&r);
    r = gt("--version", NULL);
    CHECK(r.status == 0);
    const char *version_line = "gpu-tracker " GT_VERSION_STRING "\nconfig file: ";
    CHECK(!strncmp(r.out.data, version_line, strlen(version_line)));
    result_free(&r);
    /* With anything else, -v would run nothing of it: an error, and the
     * command does not run. */
    const char *marker = tmp_path("ran-after-v");
    r = gt("-v", "--", "touch", marker, NULL);
    check_error(&r, 2, "gpu-tracker: '-v' prints the version and runs nothing: give it alone, or "
                       "leave it out to track a command\n");
    CHECK(access(marker, F_OK) != 0);
    r = gt("--st", "1", "--version", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: '--version' prints the version and runs nothing: give it "
                       "alone, or leave it out to track a command\n");
}

static void test_errors(void)
{
    const char *marker = tmp_path("ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);

    struct result r = gt("--ru", "mebibytes", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown RAM unit 'mebibytes'; valid units: bytes, kilobytes, "
                       "megabytes, gigabytes, terabytes\n");
    r = gt("--gru", "GB", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown GPU RAM unit 'GB'; valid units: bytes, kilobytes, "
                       "megabytes, gigabytes, terabytes\n");
    r = gt("--tu", "weeks", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown time unit 'weeks'; valid units: seconds, minutes, "
                       "hours, days\n");
    r = gt("-f", "xml", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown format 'xml'; valid formats: text, json, human\n");
    const char *bad_st[] = {"0", "-1", "abc", "1s", "inf", "nan", "1e-300", "0.00009", "86401",
                            "1e400"};
    for (size_t i = 0; i < sizeof bad_st / sizeof bad_st[0]; i++) {
        char want[200];
        snprintf(want, sizeof want, "gpu-tracker: invalid --st '%s': the sleep time must be a "
                                    "number of seconds from 0.0001 to 86400\n", bad_st[i]);
        r = gt("--st", bad_st[i], "-e", touch, NULL);
        check_error(&r, 2, want);
    }
    r = gt("--nec", "0", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: invalid --nec '0': the number of expected cores must be a "
                       "positive integer\n");
    r = gt("--gb", "matrox", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown GPU brand 'matrox'; valid brands: nvidia, amd, "
                       "intel, drm\n");
    /* --metrics-push: a URL the Pushgateway can be at, an interval only with it. */
    const char *bad_urls[] = {"ftp://host:9091", "127.0.0.1:9091", "http://", "http:///x",
                              "http://h:9091/?a=b", "http://h:9091/#x", "http://h 9091"};
    for (size_t i = 0; i < sizeof bad_urls / sizeof bad_urls[0]; i++) {
        char want[400];
        snprintf(want, sizeof want, "gpu-tracker: invalid Pushgateway URL '%s': give "
                 "http://HOST:PORT or https://HOST:PORT (a path prefix may follow; no query, "
                 "fragment or space)\n", bad_urls[i]);
        r = gt("--metrics-push", bad_urls[i], "-e", touch, NULL);
        check_error(&r, 2, want);
    }
    r = gt("--metrics-push-interval", "10", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: --metrics-push-interval needs --metrics-push URL (the "
                       "Pushgateway to push to)\n");
    r = gt("--metrics-push", "http://127.0.0.1:9091", "--metrics-push-interval", "-1", "-e", touch,
           NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "--metrics-push-interval: invalid duration '-1'"));
    result_free(&r);
    r = gt("--bogus", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '--bogus'; see gpu-tracker --help\n");
    /* The option named is the one given (it was the program's path). */
    r = gt("-st", "1", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '-st': long options take two dashes: '--st'\n");
    r = gt("--nce", "2", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '--nce'; did you mean '--nec'? (see "
                       "gpu-tracker --help)\n");
    r = gt("-x", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '-x'; see gpu-tracker --help\n");
    r = gt("--st", NULL);
    check_error(&r, 2, "gpu-tracker: option '--st' needs a value\n");
    r = gt("system", "--duraton", "2", NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '--duraton'; did you mean '--duration'? (see "
                       "gpu-tracker system --help)\n");
    /* A subcommand one letter off is a typo, not a program to run (it ran
     * /usr/bin/stat); after -- it is run. */
    r = gt("stat", touch, NULL);
    check_error(&r, 2, "gpu-tracker: unknown subcommand 'stat'; did you mean 'stats'? "
                       "(subcommands: show, system, stats, recommend, report, merge, job, compare, "
                       "sub-track; to run "
                       "a program named 'stat', write: gpu-tracker -- stat ...)\n");
    r = gt("reprot", "x.json.gz", NULL);
    check_error(&r, 2, "gpu-tracker: unknown subcommand 'reprot'; did you mean 'report'? "
                       "(subcommands: show, system, stats, recommend, report, merge, job, compare, "
                       "sub-track; to run "
                       "a program named 'reprot', write: gpu-tracker -- reprot ...)\n");
    r = gt("sub-trak", "analyze", NULL);
    check_error(&r, 2, "gpu-tracker: unknown subcommand 'sub-trak'; did you mean 'sub-track'? "
                       "(subcommands: show, system, stats, recommend, report, merge, job, compare, "
                       "sub-track; to run "
                       "a program named 'sub-trak', write: gpu-tracker -- sub-trak ...)\n");
    r = gt("--disable-logs", "-o", tmp_path("stat.txt"), "--", "stat", "/", NULL);
    CHECK(r.status == 0); /* /usr/bin/stat ran */
    result_free(&r);
    /* gpu_tracker 5's sub-track is ours too (tests/test_subtrack.c); an
     * action it does not have is named, with the valid ones. */
    r = gt("sub-track", "analyse", "--tf", "t.csv", "--stf", "s.csv", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: unknown action 'analyse' (did you mean "
                       "'analyze'?); valid actions are combine, analyze and compare\n");
    r = gt("-e", NULL);
    check_error(&r, 2, "gpu-tracker: option '-e' needs a value\n");
    r = gt(NULL);
    check_error(&r, 2, "gpu-tracker: no command given: use -e \"COMMAND ARGS\", -- COMMAND ARGS, "
                       "or --pid PID\n");
    r = gt("-e", "   ", NULL);
    check_error(&r, 2, "gpu-tracker: no command given: the -e string is empty\n");
    r = gt("-e", "echo 'unclosed", NULL);
    check_error(&r, 2, "gpu-tracker: cannot split the command 'echo 'unclosed': no closing "
                       "quotation\n");
    r = gt("-e", touch, "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: give only one of -e COMMAND, -- COMMAND and --pid PID\n");
    r = gt("-o", "/nonexistent-dir/out.txt", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: cannot write output file '/nonexistent-dir/out.txt': No such "
                       "file or directory\n");
    r = gt("-o", tmpdir, "-e", touch, NULL);
    char want[300];
    snprintf(want, sizeof want, "gpu-tracker: cannot write output file '%s': it is a directory\n",
             tmpdir);
    check_error(&r, 2, want);
    /* None of those ran the command. */
    CHECK(access(marker, F_OK) != 0);

    /* An existing output file is untouched by a failed start. */
    const char *keep = tmp_path("keep.txt");
    FILE *f = fopen(keep, "w");
    fputs("precious\n", f);
    fclose(f);
    r = gt("-o", keep, "--ru", "nope", "-e", touch, NULL);
    CHECK(r.status == 2);
    result_free(&r);
    char *kept = slurp(keep);
    CHECK_STR(kept, "precious\n");
    free(kept);

    /* A command that cannot be started: 127, named. */
    r = gt("-e", "/nonexistent/command --flag", NULL);
    check_error(&r, 127, "gpu-tracker: cannot run '/nonexistent/command': No such file or "
                         "directory\n");
    r = gt("--", "no-such-command-anywhere", NULL);
    check_error(&r, 127, "gpu-tracker: cannot run 'no-such-command-anywhere': No such file or "
                         "directory\n");
    r = gt("--pid", "2147483000", NULL);
    check_error(&r, 2 - 1, "gpu-tracker: no process with PID 2147483000\n");
    r = gt("--pid", "12abc", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --pid '12abc': a process ID is a positive integer\n");
}

static void test_exit_status(void)
{
    struct result r = gt("--disable-logs", "-e", WORKLOAD_BIN " exit '3'", NULL);
    CHECK(r.status == 3);
    CHECK(!strncmp(r.out.data, "Resource tracking complete. Process completed with status code: 3\n",
                   66));
    result_free(&r);
    r = gt("--disable-logs", "--", WORKLOAD_BIN, "kill", "9", NULL);
    CHECK(r.status == 137);
    CHECK_CONTAINS(r.out.data, "status code: 137\n");
    result_free(&r);
    r = gt("--disable-logs", "--", WORKLOAD_BIN, "kill", "15", NULL);
    CHECK(r.status == 143);
    result_free(&r);
}

static void test_text_output(void)
{
    struct result r = gt("--st", "0.05", "-e", WORKLOAD_BIN " exit 0", NULL);
    CHECK(r.status == 0);
    const char *order[] = {
        "Resource tracking complete. Process completed with status code: 0\nMax RAM:\n"
        "   Unit: gigabytes\n   System capacity: ",
        "\n   Main:\n      Total RSS: ", "\n   Descendants:\n      Total RSS: ",
        "\n   Combined:\n      Total RSS: ", "\nMax GPU RAM:\n   Unit: gigabytes\n"
        "   System capacity: 0.0\n   System: 0.0\n   Main: 0.0\n   Descendants: 0.0\n"
        "   Combined: 0.0\nCPU utilization:\n   System core count: ",
        "\n   Number of expected cores: ", "\n   System:\n      Max sum percent: ",
        "\n   Main:\n      Max sum percent: ", "\n   Descendants:\n      Max sum percent: ",
        "\n   Combined:\n      Max sum percent: ", "\n   Main number of threads: ",
        "\n   Descendants number of threads: ", "\n   Combined number of threads: ",
        "\nGPU utilization:\n   System GPU count: 0\n   Number of expected GPUs: 0\n"
        "   GPU percentages:\n      Max sum percent: 0.0\n      Max hardware percent: 0.0\n"
        "      Mean sum percent: 0.0\n      Mean hardware percent: 0.0\nCompute time:\n"
        "   Unit: hours\n   Time: ",
    };
    const char *at = r.out.data;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *next = at ? strstr(at, order[i]) : NULL;
        CHECK_MSG(next != NULL, "section %zu [%s] missing or out of order in:\n%s", i, order[i],
                  r.out.data);
        at = next ? next + strlen(order[i]) : NULL;
    }
    /* Nothing on standard error: no GPU library is not news on a machine
     * without one (the summary says 0 GPUs), and the backup file (a hidden
     * file of a random name in the working directory) is not named; it is
     * gone now. */
    CHECK_MSG(r.err.data[0] == '\0', "stderr of a normal run: [%s]", r.err.data);
    result_free(&r);
    r = gt("--disable-logs", "-e", WORKLOAD_BIN " exit 0", NULL);
    CHECK_STR(r.err.data, "");
    result_free(&r);

    /* The summary to a file: standard error empty, standard output the one
     * line gpu_tracker prints; -q leaves that out too. */
    const char *file = tmp_path("quiet-summary.txt");
    unlink(file);
    r = gt("-o", file, "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(r.err.data[0] == '\0', "stderr with -o: [%s]", r.err.data);
    CHECK_STR(r.out.data, "Resource tracking complete. Process completed with status code: 0\n");
    result_free(&r);
    unlink(file);
    r = gt("-q", "--disable-logs", "-o", file, "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(r.out.data[0] == '\0' && r.err.data[0] == '\0', "-q -o: out [%s] err [%s]",
              r.out.data, r.err.data);
    char *saved = slurp(file);
    CHECK(saved && !strncmp(saved, "Max RAM:\n", 9));
    free(saved);
    unlink(file);
    result_free(&r);
    /* -q to standard output: the summary alone. */
    r = gt("-q", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK_MSG(!strncmp(r.out.data, "Max RAM:\n", 9), "-q: [%.80s]", r.out.data);
    result_free(&r);
}

/* A command that prints, with the JSON document on a pipe: what a program
 * reads is the document alone (json.tool, jq); the command's line comes on
 * standard error. Likewise a series on standard output. */
static void test_document_on_stdout_stays_clean(void)
{
    struct result r = gt("-q", "-f", "json", "--", "echo", "hello", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(r.out.data[0] == '{', "stdout does not start with the document: [%.40s]", r.out.data);
    json_object *j = parse_or_fail(r.out.data, "-f json stdout");
    CHECK(j != NULL);
    json_object_put(j);
    CHECK_STR(r.err.data, "hello\n");
    result_free(&r);

    r = gt("--process-csv", "-", "--", "echo", "hello", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(!strncmp(r.out.data, "\"timestamp\",", 12) && !strstr(r.out.data, "hello"),
              "stdout: [%.200s]", r.out.data);
    CHECK_CONTAINS(r.err.data, "hello\n");
    result_free(&r);

    /* The summary to a file: stdout is the command's, as ever. */
    const char *file = tmp_path("clean.json");
    r = gt("-q", "-f", "json", "-o", file, "--", "echo", "hello", NULL);
    CHECK_STR(r.out.data, "hello\n");
    result_free(&r);
    unlink(file);
}

/* Writes the config file under dir with mode; returns its path (static). */
static const char *write_user_config(const char *dir, const char *text, mode_t mode)
{
    static char path[600];
    char sub[512];
    snprintf(sub, sizeof sub, "%s/gpu-tracker", dir);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    snprintf(path, sizeof path, "%s/config", sub);
    unlink(path);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    chmod(path, mode);
    return path;
}

/* Defaults set once: $XDG_CONFIG_HOME/gpu-tracker/config, one long option a
 * line; the command line wins, --no-config ignores it, -v and --help name
 * it, and a bad one is refused with the file and the line named. */
static void test_user_config(void)
{
    const char *home = tmp_path("xdg");
    const char *path = write_user_config(home, "# mine\nformat=human\n--st 0.5\n\nquiet\n"
                                               "backup = \"kept.json\"\n", 0644);
    setenv("XDG_CONFIG_HOME", home, 1);
    struct result r = gt("--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(!strncmp(r.out.data, "Wall time ", 10), "the config's format=human and quiet: [%.80s]",
              r.out.data);
    CHECK_CONTAINS(r.out.data, "every 0.50 s");
    result_free(&r);
    /* The command line wins; --no-backup over the config's backup is no conflict. */
    r = gt("-f", "json", "--no-backup", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0 && r.out.data[0] == '{');
    result_free(&r);
    r = gt("--no-config", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK_MSG(!strncmp(r.out.data, "Resource tracking complete.", 27), "--no-config: [%.80s]",
              r.out.data);
    result_free(&r);
    char want[700];
    snprintf(want, sizeof want, "config file: %s (present: runs read it; --no-config ignores it)\n",
             path);
    r = gt("-v", NULL);
    CHECK_CONTAINS(r.out.data, want);
    result_free(&r);
    r = gt("--help", NULL);
    CHECK_CONTAINS(r.out.data, want + strlen("config file: ") - 1);
    CHECK_CONTAINS(r.out.data, "--no-config");
    result_free(&r);

    struct {
        const char *text;
        mode_t mode;
        const char *error;
    } bad[] = {
        {"st=abc\n", 0644, ": invalid --st 'abc': the sleep time must be a number of seconds "
                           "from 0.0001 to 86400 (--no-config ignores the file)\n"},
        {"format=human\n-q\n", 0644, " line 2: '-q': one long option per line (--quiet, not -q)\n"},
        {"execute=rm -rf /\n", 0644, " line 1: '--execute' cannot be a default: give it on the "
                                     "command line\n"},
        {"sleep=1\n", 0644, " line 1: unknown option '--sleep' (gpu-tracker --help lists them)\n"},
        {"quiet=yes\n", 0644, " line 1: '--quiet' takes no value\n"},
    };
    char marker[512];
    snprintf(marker, sizeof marker, "%s/ran", home);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_user_config(home, bad[i].text, bad[i].mode);
        unlink(marker);
        r = gt("--", "touch", marker, NULL);
        char expect[900];
        snprintf(expect, sizeof expect, "gpu-tracker: config file %s%s", path, bad[i].error);
        CHECK_STR(r.err.data, expect);
        CHECK(r.status == 2 && access(marker, F_OK) != 0); /* nothing ran */
        result_free(&r);
        r = gt("--no-config", "--", "touch", marker, NULL);
        CHECK(r.status == 0 && access(marker, F_OK) == 0);
        result_free(&r);
    }
    /* A file others may write, or another user's, is not taken (the
     * library's reader of trusted files says why); nothing runs. */
    write_user_config(home, "format=human\n", 0664);
    unlink(marker);
    r = gt("--", "touch", marker, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': it is writable by others than its "
             "owner (chmod go-w); fix it or pass --no-config\n", path);
    CHECK_STR(r.err.data, want);
    CHECK(r.status == 2 && access(marker, F_OK) != 0);
    result_free(&r);
    if (geteuid() == 0) { /* root may give the file away */
        write_user_config(home, "format=human\n", 0644);
        CHECK(chown(path, 65534, 65534) == 0);
        r = gt("--", "touch", marker, NULL);
        snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': it is owned by another user "
                 "than you or root; fix it or pass --no-config\n", path);
        CHECK_STR(r.err.data, want);
        CHECK(r.status == 2 && access(marker, F_OK) != 0);
        result_free(&r);
    }
    /* A FIFO planted on the name is refused, never waited on. */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    r = gt("--", "true", NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': it is not a regular file (FIFOs, "
             "devices and sockets are not read); fix it or pass --no-config\n", path);
    CHECK_STR(r.err.data, want);
    result_free(&r);
    unlink(path);
    /* No file: nothing read, -v says so. */
    r = gt("-v", NULL);
    snprintf(want, sizeof want, "config file: %s (not present)\n", path);
    CHECK_CONTAINS(r.out.data, want);
    result_free(&r);
    unsetenv("XDG_CONFIG_HOME");
}

/* Runs gt "--" touch marker with the config at path refused: want is the
 * error after "gpu-tracker: cannot read 'PATH': ", and nothing runs. */
static void check_config_refused(const char *path, const char *marker, const char *want)
{
    unlink(marker);
    struct result r = gt("--", "touch", marker, NULL);
    char expect[1200];
    snprintf(expect, sizeof expect, "gpu-tracker: cannot read '%s': %s; fix it or pass "
             "--no-config\n", path, want);
    CHECK_STR(r.err.data, expect);
    CHECK(r.status == 2 && access(marker, F_OK) != 0);
    result_free(&r);
}

/* The config file is reached only through what the user or root made: a
 * link another user planted is not followed (the attack: a link to the
 * /proc comm of a process named "backup=.bashrc", or to a root-owned file
 * of options), nor is a directory of theirs gone through; /proc and /sys
 * are refused even through root's own link, and a link to a device never
 * opens it. Each refusal names the component and why, in one line. */
static void test_user_config_links(void)
{
    const char *home = tmp_path("xdg-links");
    const char *path = write_user_config(home, "format=human\n", 0644);
    char marker[512], options[512], dir[512];
    snprintf(marker, sizeof marker, "%s/ran", home);
    snprintf(options, sizeof options, "%s/root-options", home);
    snprintf(dir, sizeof dir, "%s/gpu-tracker", home);
    FILE *f = fopen(options, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("output=pwned.txt\nbackup=.bashrc\n", f);
        fclose(f);
    }
    setenv("XDG_CONFIG_HOME", home, 1);
    /* A process whose name is a line of options, and its comm file. */
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t named = fork();
    if (named == 0) {
        prctl(PR_SET_NAME, "backup=.bashrc");
        close(ready[0]);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char byte;
    CHECK(read(ready[0], &byte, 1) == 1);
    close(ready[0]);
    char comm[64];
    snprintf(comm, sizeof comm, "/proc/%d/comm", (int)named);

    /* Root's own link to a kernel file: refused by where it is. */
    unlink(path);
    CHECK(symlink(comm, path) == 0);
    check_config_refused(path, marker, "it is a kernel file in /proc or /sys, not one a user "
                                       "wrote");
    unlink(path);
    CHECK(symlink("/sys/kernel/uevent_seqnum", path) == 0);
    check_config_refused(path, marker, "it is a kernel file in /proc or /sys, not one a user "
                                       "wrote");
    /* Root's own link to a device: refused before it is opened. */
    unlink(path);
    CHECK(symlink("/dev/null", path) == 0);
    check_config_refused(path, marker, "it is not a regular file (FIFOs, devices and sockets are "
                                       "not read)");
    if (geteuid() == 0) {
        char want[600];
        /* Another user's links: to the comm file, and to a root-owned
         * file of options; neither is followed. */
        const char *targets[] = {comm, options};
        for (size_t i = 0; i < 2; i++) {
            unlink(path);
            CHECK(symlink(targets[i], path) == 0 && lchown(path, 65534, 65534) == 0);
            check_config_refused(path, marker, "'config' is a symbolic link owned by user 65534, "
                                               "neither you nor root: not following it (remove "
                                               "the link, or give another path)");
        }
        /* A link of theirs on the way to the file. */
        unlink(path);
        char moved[600], link_dir[600], via[700];
        snprintf(moved, sizeof moved, "%s/theirs", home);
        snprintf(link_dir, sizeof link_dir, "%s/via", home);
        write_user_config(moved, "format=human\n", 0644);
        unlink(link_dir);
        CHECK(symlink("theirs", link_dir) == 0 && lchown(link_dir, 65534, 65534) == 0);
        snprintf(via, sizeof via, "%s/gpu-tracker/config", link_dir);
        setenv("XDG_CONFIG_HOME", link_dir, 1);
        check_config_refused(via, marker, "'via' is a symbolic link owned by user 65534, neither "
                                          "you nor root: not following it (remove the link, or "
                                          "give another path)");
        /* A directory of theirs: its entries are theirs to change, even a
         * root-owned file in it. */
        setenv("XDG_CONFIG_HOME", moved, 1);
        snprintf(via, sizeof via, "%s/gpu-tracker", moved);
        CHECK(chown(via, 65534, 65534) == 0);
        snprintf(via, sizeof via, "%s/gpu-tracker/config", moved);
        snprintf(want, sizeof want, "the directory 'gpu-tracker' is owned by user 65534, neither "
                 "you nor root: its entries are theirs to change");
        check_config_refused(via, marker, want);
        /* A directory its group may change (not sticky). */
        snprintf(via, sizeof via, "%s/gpu-tracker", moved);
        CHECK(chown(via, 0, 0) == 0 && chmod(via, 0775) == 0);
        snprintf(via, sizeof via, "%s/gpu-tracker/config", moved);
        check_config_refused(via, marker, "the directory 'gpu-tracker' is writable by others "
                                          "than its owner (chmod go-w)");
        setenv("XDG_CONFIG_HOME", home, 1);
    }
    /* A link of the user's own to their own file is followed. */
    unlink(path);
    write_user_config(home, "format=human\n", 0644);
    char own[600];
    snprintf(own, sizeof own, "%s/own-config", home);
    CHECK(rename(path, own) == 0 && symlink(own, path) == 0);
    struct result r = gt("-q", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK_MSG(r.status == 0 && !strncmp(r.out.data, "Wall time ", 10),
              "the user's own link: [%.80s] [%.200s]", r.out.data, r.err.data);
    result_free(&r);
    unlink(path);
    kill(named, SIGKILL);
    waitpid(named, NULL, 0);
    unsetenv("XDG_CONFIG_HOME");
}

/* A job shorter than the interval has only the baseline and the final
 * sample (its process a zombie by then): its threads are still counted. */
static void test_short_job_threads(void)
{
    struct result r = gt("-q", "-f", "json", "--st", "10", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "short job");
    if (j) {
        CHECK_MSG(jnum(j, "cpu_utilization.main_n_threads") >= 1.0, "main threads %g",
                  jnum(j, "cpu_utilization.main_n_threads"));
        CHECK(jnum(j, "cpu_utilization.combined_n_threads") >= 1.0);
        json_object_put(j);
    }
    result_free(&r);
}

/* --on-limit kill never reaches gpu-tracker's own ancestors (the tree of
 * one holds gpu-tracker and its pipeline's other commands): refused in
 * one line before tracking; and the wait after a SIGKILL is bounded (here
 * a process gpu-tracker, run as another user, may not signal). */
static void test_limits_own_tree(void)
{
    char script[600];
    snprintf(script, sizeof script, "%s -q --pid $$ --on-limit kill --max-time 0.3 | cat; "
             "echo \"status=$?\"", GT_BIN);
    char *sh_argv[] = {"/bin/sh", "-c", script, NULL};
    struct result r = run_argv(sh_argv);
    CHECK_STR(r.out.data, "status=0\n"); /* the shell and the pipeline's cat live on */
    CHECK_MSG(strstr(r.err.data, "gpu-tracker: on_limit kill: cannot signal the tracked tree: "
                                 "process ") == r.err.data &&
              strchr(r.err.data, '\n') == r.err.data + r.err.len - 1,
              "not the one line: %s", r.err.data);
    result_free(&r);
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
        return;
    pid_t sleeper = fork();
    if (sleeper == 0) {
        execlp("sleep", "sleep", "60", (char *)NULL);
        _exit(127);
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)sleeper);
    char *nobody_argv[] = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           GT_BIN, "-q", "--no-backup", "-o", "/dev/null", "--pid", pid,
                           "--on-limit", "kill", "--max-time", "0.2", "--kill-after", "0.2",
                           NULL};
    struct child c = spawn(nobody_argv, 0);
    memset(&r, 0, sizeof r);
    finish_within(&c, &r, 60, "a tree that outlives its SIGKILL");
    CHECK_MSG(r.status == 124, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: the limit ended the tree, but part of it "
                               "was still there 5 s after the SIGKILL (a process stuck in the "
                               "kernel, one gpu-tracker may not signal, or an init that ignores "
                               "it): tracking stopped there\n");
    CHECK(kill(sleeper, 0) == 0); /* not ours to end: still there */
    result_free(&r);
    kill(sleeper, SIGKILL);
    waitpid(sleeper, NULL, 0);
}

/* Limits (docs/limits.md): a breach is reported in every format and is the
 * exit status; kill ends the whole tree, SIGKILL for what ignores SIGTERM. */
static void test_limits(void)
{
    /* A peak no sample sees (200 MiB touched and freed within milliseconds,
     * --st 10): the reaped process's high-water mark trips it at the end. */
    struct result r = gt("-q", "--st", "10", "--max-ram", "100MB", "-f", "json", "--", WORKLOAD_BIN,
                         "alloc", "200", NULL);
    CHECK_MSG(r.status == 124, "status %d", r.status);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: limit breached: peak RAM ");
    /* 100MB is 10^8 bytes; people-facing sizes are in powers of 1024 */
    CHECK_CONTAINS(r.err.data, "passed the limit of 95.4 MiB (--max-ram), found at the end of the "
                               "run\n");
    json_object *j = parse_or_fail(r.out.data, "limits json");
    if (j) {
        json_object *b = NULL;
        CHECK(json_object_object_get_ex(j, "limits", &b) &&
              json_object_get_boolean(json_object_object_get(b, "breached")));
        CHECK(jnum(j, "limits.checks.max_ram.limit") == 100e6);
        CHECK(jnum(j, "limits.checks.max_ram.peak") >= 200 * MIB);
        CHECK(jnum(j, "limits.checks.max_ram.at_seconds") >= 0);
        CHECK(!json_object_get_boolean(json_object_object_get(b, "killed")));
        json_object_put(j);
    }
    result_free(&r);
    /* Sizes mean what they say: MB decimal, MiB (and M, as Slurm) binary. */
    static const struct { const char *size; double bytes; } sizes[] = {
        {"100MB", 100e6}, {"100MiB", 100 * MIB}, {"100M", 100 * MIB}, {"1.5GB", 1.5e9}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        r = gt("-q", "-f", "json", "--max-ram", sizes[i].size, "--", WORKLOAD_BIN, "exit", "0",
               NULL);
        j = parse_or_fail(r.out.data, "limits json");
        CHECK_MSG(j && jnum(j, "limits.checks.max_ram.limit") == sizes[i].bytes,
                  "--max-ram %s: %.0f bytes", sizes[i].size,
                  j ? jnum(j, "limits.checks.max_ram.limit") : -1);
        if (j)
            json_object_put(j);
        result_free(&r);
    }
    /* The same in text and human, and the command's own status when asked. */
    r = gt("-q", "--st", "10", "--max-ram", "100MB", "--command-status", "--", WORKLOAD_BIN,
           "alloc", "200", NULL);
    CHECK_MSG(r.status == 0, "status %d with --command-status", r.status);
    CHECK_CONTAINS(r.out.data, "\nLimits:\n   On limit: warn\n   Breached: yes\n"
                               "   Max RAM: 95.4 MiB, peak ");
    result_free(&r);
    r = gt("-q", "-f", "human", "--max-ram", "1GiB", "--", WORKLOAD_BIN, "alloc", "20", NULL);
    CHECK_MSG(r.status == 0, "status %d within the limit", r.status);
    CHECK_CONTAINS(r.out.data, "Limit           peak RAM ");
    CHECK_CONTAINS(r.out.data, " of 1.00 GiB: within\n");
    CHECK_STR(r.err.data, "");
    result_free(&r);

    /* Kill: a spike between two samples (VmHWM keeps it) in a tree whose
     * every process ignores SIGTERM: TERM at the next sample, KILL 1 s
     * later, nothing of the tree left. */
    char script[512];
    snprintf(script, sizeof script,
             "trap '' TERM; exec 3<&0; %s spike 100 <&3 & echo $! > limit-pids; "
             "sleep 60 & echo $! >> limit-pids; wait", WORKLOAD_BIN);
    char *argv[] = {GT_BIN, "-q", "--st", "0.2", "--max-ram", "50MB", "--on-limit", "kill",
                    "--kill-after", "1", "-f", "json", "--", "sh", "-c", script, NULL};
    unlink("limit-pids");
    struct child c = spawn(argv, 1);
    CHECK(write(c.in, "go\n", 3) == 3);
    memset(&r, 0, sizeof r);
    finish_within(&c, &r, 60, "gpu-tracker --on-limit kill");
    CHECK_MSG(r.status == 124, "status %d after kill", r.status);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: limit breached: peak RAM ");
    CHECK_CONTAINS(r.err.data, "(--max-ram) ");
    CHECK_CONTAINS(r.err.data, "; ending the command (--on-limit kill)\n");
    CHECK_CONTAINS(r.err.data, "still running 1 s after SIGTERM, sent SIGKILL\n");
    j = parse_or_fail(r.out.data, "kill json");
    if (j) {
        json_object *b = json_object_object_get(j, "limits");
        CHECK(b && json_object_get_boolean(json_object_object_get(b, "killed")));
        CHECK(jnum(j, "limits.killed_at_seconds") >= 0);
        json_object_put(j);
    }
    result_free(&r);
    close(c.in);
    char *pids = slurp("limit-pids");
    CHECK_MSG(pids && strchr(pids, '\n') != strrchr(pids, '\n'), "pids: %s", pids ? pids : "");
    for (char *p = pids; p && *p;) {
        pid_t pid = (pid_t)strtol(p, &p, 10);
        CHECK_MSG(pid > 0 && kill(pid, 0) < 0 && errno == ESRCH, "process %d of the tree left",
                  (int)pid);
        while (*p == '\n')
            p++;
    }
    free(pids);
    unlink("limit-pids");

    /* Wall time is acted on when it passes, not at the next sample (--st 5
     * here), and the processes born since the last sample (the sleep) are
     * reached too: TERM ignored, KILL 0.5 s later. */
    r = gt_within("--max-time kill", "-q", "--st", "5", "--max-time", "0.3", "--on-limit", "kill",
                  "--kill-after", "0.5", "-f", "json", "--ru", "bytes", "--tu", "seconds", "--",
                  "sh", "-c", "trap '' TERM; sleep 30", NULL);
    CHECK_MSG(r.status == 124, "status %d for --max-time", r.status);
    CHECK_CONTAINS(r.err.data, "limit breached: wall time 0.3");
    CHECK_CONTAINS(r.err.data, " passed the limit of 0.3 s (--max-time) 0.3");
    CHECK_CONTAINS(r.err.data, "; ending the command (--on-limit kill)\n");
    /* sh and sleep; or sh alone when it was killed as it forked sleep
     * (then sleep, an orphan, gets SIGKILL again 0.2 s later). */
    CHECK_CONTAINS(r.err.data, " still running 0.5 s after SIGTERM, sent SIGKILL\n");
    j = parse_or_fail(r.out.data, "max-time json");
    CHECK(j && jnum(j, "limits.checks.max_time.at_seconds") >= 0.3);
    CHECK(j && jnum(j, "compute_time.time") < 4.9); /* before the first sample was due */
    if (j)
        json_object_put(j);
    result_free(&r);
    r = gt("-q", "--st", "0.1", "--max-cpu-time", "0.2", "-f", "json", "--", WORKLOAD_BIN, "burn",
           "0.6", NULL);
    CHECK_MSG(r.status == 124, "status %d for --max-cpu-time", r.status);
    CHECK_CONTAINS(r.err.data, "limit breached: CPU time ");
    CHECK_CONTAINS(r.err.data, "; running on (--on-limit warn)\n");
    result_free(&r);

    /* What is not a limit. */
    r = gt("--max-ram", "500", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --max-ram: invalid size '500': no unit (500 what?); valid "
                       "units: B, kB, MB, GB, TB (decimal), KiB, MiB, GiB, TiB or K, M, G, T "
                       "(binary)\n");
    r = gt("--max-gpu-ram", "2XB", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --max-gpu-ram: invalid size '2XB': unknown unit; valid "
                       "units: B, kB, MB, GB, TB (decimal), KiB, MiB, GiB, TiB or K, M, G, T "
                       "(binary)\n");
    /* Numbers are decimal (strtod alone reads 0x10 and inf), a clock's
     * minutes and seconds under 60 and its fields whole but the last. */
    static const char *const durations[] = {"soon", "1:99:99", "1:30:60", "0x10", "inf",
                                            "1.5:30", "0x1p4s"};
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        char want[400];
        snprintf(want, sizeof want, "gpu-tracker: --max-time: invalid duration '%s': give "
                 "seconds (90), a number and a unit (90s, 1.5h, 2d), units in a row (1h30m) or a "
                 "clock (1:30:00, minutes and seconds under 60), in decimal\n", durations[i]);
        r = gt("--max-time", durations[i], "--", "true", NULL);
        check_error(&r, 2, want);
    }
    r = gt("--max-ram", "0x10MB", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --max-ram: invalid size '0x10MB': give a number above 0 and "
                       "a unit (B, kB, MB, GB, TB (decimal), KiB, MiB, GiB, TiB or K, M, G, T "
                       "(binary)), e.g. 500MB or 2GiB\n");
    r = gt("--carbon-intensity", "0x10", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --carbon-intensity '0x10': give the electricity's "
                       "grams of CO2e per kWh, above 0 and at most 10000 (e.g. 400)\n");
    r = gt("--st", "0x1", "--", "true", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "invalid --st '0x1'"));
    result_free(&r);
    /* What is decimal still is. */
    r = gt("-q", "-o", "/dev/null", "--max-time", "1:00:30", "--max-ram", "1.5e3MB",
           "--carbon-intensity", "4e2", "--", "true", NULL);
    CHECK_MSG(r.status == 0, "decimal limits: %s", r.err.data);
    result_free(&r);
    r = gt("--on-limit", "stop", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: unknown --on-limit 'stop'; valid: warn (run on and report "
                       "the breach) or kill (end the command)\n");
}

/* Who held the peak: three children of different sizes held together are
 * named at the peak with their sizes, which sum to the combined peak. */
static void test_at_peak(void)
{
    char script[768];
    snprintf(script, sizeof script,
             "for m in 30 60 120; do sleep 2 | %s hold $m 0 > /dev/null & done; wait",
             WORKLOAD_BIN);
    struct result r = gt("-q", "-f", "json", "--st", "0.1", "--ru", "bytes", "--", "sh", "-c",
                         script, NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "at_peak json");
    json_object *peak = NULL, *list = NULL;
    if (j && json_object_object_get_ex(j, "at_peak", &peak) &&
        json_object_object_get_ex(json_object_object_get(peak, "memory"), "processes", &list)) {
        double held[3] = {30, 60, 120}, seen[3] = {0}, sum = 0;
        size_t n = json_object_array_length(list);
        for (size_t i = 0; i < n; i++) {
            json_object *p = json_object_array_get_idx(list, i);
            const char *line = json_object_get_string(json_object_object_get(p, "cmdline"));
            double rss = json_object_get_double(json_object_object_get(p, "rss_bytes"));
            json_object *own = json_object_object_get(p, "private_bytes");
            sum += own ? json_object_get_double(own) : rss; /* null: not read */
            for (int k = 0; k < 3; k++) {
                char want[32];
                snprintf(want, sizeof want, " hold %.0f 0", held[k]);
                if (line && strstr(line, want))
                    seen[k] = rss;
            }
        }
        for (int k = 0; k < 3; k++)
            CHECK_MSG(seen[k] >= held[k] * MIB && seen[k] < (held[k] + 8) * MIB,
                      "hold %.0f: %.0f bytes at the peak", held[k], seen[k]);
        /* Each process's own memory and the rest's, and the pages they
         * share (counted once, as the peak counts them): the peak. (Not
         * their own memory alone: under AddressSanitizer the shared part,
         * split in the proportions of the last smaps_rollup, is 2-3 % of
         * the peak.) */
        sum += jnum(j, "at_peak.memory.others.private_bytes");
        double combined = jnum(j, "max_ram.combined.total_rss");
        double shared = jnum(j, "at_peak.memory.shared_bytes");
        CHECK_MSG(fabs((sum + shared) / combined - 1) < 0.02,
                  "at the peak %.0f + %.0f shared, combined peak %.0f", sum, shared, combined);
        CHECK(fabs(sum + jnum(j, "at_peak.memory.shared_bytes") -
                   jnum(j, "at_peak.memory.total_bytes")) < 4096);
        CHECK(jnum(j, "at_peak.memory.total_bytes") <= combined);
    } else {
        CHECK_MSG(0, "no at_peak.memory.processes: %.300s", r.out.data);
    }
    /* Per command: the three workloads are one group, all alive at once,
     * whose PSS together reached what they held. */
    json_object *groups = NULL;
    int found = 0;
    if (j && json_object_object_get_ex(json_object_object_get(j, "processes"), "groups", &groups))
        for (size_t i = 0; i < json_object_array_length(groups); i++) {
            json_object *g = json_object_array_get_idx(groups, i);
            const char *cmd = json_object_get_string(json_object_object_get(g, "command"));
            if (!cmd || strcmp(cmd, "gt-workload") != 0)
                continue;
            found = 1;
            CHECK(json_object_get_int(json_object_object_get(g, "processes")) == 3);
            CHECK(json_object_get_int(json_object_object_get(g, "peak_concurrent")) == 3);
            double pss = json_object_get_double(json_object_object_get(g, "peak_pss_bytes"));
            CHECK_MSG(pss >= 210 * MIB && pss < 240 * MIB, "gt-workload group peak %.0f", pss);
        }
    CHECK_MSG(found, "no gt-workload group in processes: %.400s", r.out.data);
    CHECK(jnum(j, "processes.processes") >= 4); /* sh and the three at least */
    CHECK(jnum(j, "processes.unseen_cpu_seconds") >= 0);
    if (j)
        json_object_put(j);
    result_free(&r);
    char report[256];
    snprintf(report, sizeof report, "%s", tmp_path("at-peak.html"));
    r = gt("-q", "-f", "human", "--st", "0.1", "--report", report, "--", "sh", "-c", script,
           NULL);
    CHECK(r.status == 0);
    /* The report's table beside the memory chart names the three. */
    char *page = slurp(report);
    const char *table = page ? strstr(page, "id=\"at-peak-memory\"") : NULL;
    const char *table_end = table ? strstr(table, "</table>") : NULL;
    CHECK_MSG(table && table_end, "no table of who held the memory peak in the report");
    for (int k = 0; table && table_end && k < 3; k++) {
        char want[64];
        snprintf(want, sizeof want, " hold %d 0</td>", 30 << k);
        const char *row = strstr(table, want);
        CHECK_MSG(row && row < table_end, "the report's peak table lacks [%s]", want);
    }
    free(page);
    CHECK_CONTAINS(r.out.data, "\nAt the peak     3 x gt-workload ");
    CHECK_CONTAINS(r.out.data, " into the run)\n");
    CHECK_CONTAINS(r.out.data, "\nProcesses       ");
    CHECK_CONTAINS(r.out.data, "\n  gt-workload   3 processes (3 at once), CPU ");
    result_free(&r);
    /* The main process is told from its namesakes (a DataLoader's workers
     * are python3 as the script is): two children of 64 MiB and their main. */
    r = gt("-q", "-f", "human", "--st", "0.1", "--", WORKLOAD_BIN, "children", "2", "64", "0.5",
           NULL);
    CHECK(r.status == 0);
    const char *line = strstr(r.out.data, "\nAt the peak     ");
    const char *end = line ? strchr(line + 1, '\n') : NULL;
    const char *workers = line ? strstr(line, "2 x gt-workload ") : NULL;
    const char *main_one = line ? strstr(line, " (main) ") : NULL;
    CHECK_MSG(workers && main_one && workers < end && main_one < end,
              "the peak's line does not name the main process apart: %s", r.out.data);
    result_free(&r);
}

static void test_json_stdout_and_spike(void)
{
    /* 200 MiB touched and freed within milliseconds; no sample at --st 10
     * can see it, the kernel's high-water mark (wait4 ru_maxrss) does. */
    struct result r = gt("--st", "10", "-f", "json", "--ru", "megabytes", "--tu", "seconds",
                         "--", WORKLOAD_BIN, "alloc", "200", NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "stdout");
    CHECK_CONTAINS(r.err.data, "Resource tracking complete. Process completed with status code: 0\n");
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.main.total_rss") >= 200 * MIB / 1e6,
                  "main total %f MB", jnum(j, "max_ram.main.total_rss"));
        CHECK(jnum(j, "max_ram.combined.total_rss") >= 200 * MIB / 1e6);
        CHECK(jnum(j, "max_ram.descendants.total_rss") < 1.0);
        CHECK(jnum(j, "max_ram.system_capacity") > jnum(j, "max_ram.system"));
        CHECK(jnum(j, "compute_time.time") < 9.9); /* not quantized to --st 10 */
        CHECK(jnum(j, "measurement.samples") == 2);
        json_object *exact = NULL, *m = NULL;
        CHECK(json_object_object_get_ex(j, "measurement", &m) &&
              json_object_object_get_ex(m, "exact", &exact));
        CHECK_CONTAINS(json_object_to_json_string(exact), "compute_time.time");
        json_object_put(j);
    }
    result_free(&r);
}

static void test_cpu_exact(void)
{
    /* 0.5 s of CPU in main: the mean is the whole-run tick count. */
    struct result r = gt("--st", "0.1", "-f", "json", "--tu", "seconds", "--nec", "1", "--",
                         WORKLOAD_BIN, "burn", "0.5", NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "stdout");
    if (j) {
        /* What the kernel counted for the workload (at least the 0.5 s it
         * burned, more on a loaded machine), within the ticks procfs
         * truncates; counting twice would be twice as much. */
        double main_cpu = cpu_seconds(j, "main"), truth = reported(&r, "main cpu ");
        CHECK_MSG(truth >= 0.5 && fabs(main_cpu - truth) <= TICKS_SLACK,
                  "main CPU %f s, the kernel counted %f s", main_cpu, truth);
        CHECK(jnum(j, "compute_time.time") >= 0.5 - 0.02);
        CHECK(jnum(j, "cpu_utilization.main.max_sum_percent") > 0);
        CHECK(jnum(j, "cpu_utilization.n_expected_cores") == 1);
        CHECK(jnum(j, "cpu_utilization.main.mean_hardware_percent") ==
              jnum(j, "cpu_utilization.main.mean_sum_percent"));
        CHECK(jnum(j, "cpu_utilization.main_n_threads") == 1);
        json_object_put(j);
    }
    result_free(&r);

    /* Three busy threads of 0.3 s each: all of it is main's CPU time. */
    r = gt("--st", "0.1", "-f", "json", "--tu", "seconds", "--", WORKLOAD_BIN, "busy-threads", "3",
           "0.3", NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "stdout");
    if (j) {
        double main_cpu = cpu_seconds(j, "main"), truth = reported(&r, "main cpu ");
        CHECK_MSG(truth >= 0.9 && fabs(main_cpu - truth) <= TICKS_SLACK,
                  "main CPU %f s, the kernel counted %f s", main_cpu, truth);
        CHECK(cpu_seconds(j, "descendants") == 0);
        json_object_put(j);
    }
    result_free(&r);

    /* Two children of 0.3 s each, reaped by main between samples (--st 10):
     * their time comes back through main's cutime/cstime. Their 50 MiB each
     * comes back through main's ru_maxrss (a bound on combined). */
    r = gt("--st", "10", "-f", "json", "--tu", "seconds", "--ru", "megabytes", "--", WORKLOAD_BIN,
           "children", "2", "50", "0.3", NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "stdout");
    if (j) {
        /* Each child burned 0.3 s (more with its page faults on a loaded
         * machine): exactly what main reaped, none of it in main's own. */
        double desc = cpu_seconds(j, "descendants"), main_cpu = cpu_seconds(j, "main");
        double truth_desc = reported(&r, "children cpu "), truth_main = reported(&r, "main cpu ");
        CHECK_MSG(truth_desc >= 0.6 && fabs(desc - truth_desc) <= TICKS_SLACK,
                  "descendants CPU %f s, the kernel counted %f s", desc, truth_desc);
        CHECK_MSG(fabs(main_cpu - truth_main) <= TICKS_SLACK,
                  "main CPU %f s, the kernel counted %f s", main_cpu, truth_main);
        CHECK(fabs(cpu_seconds(j, "combined") - desc - main_cpu) < 1e-6);
        CHECK_MSG(jnum(j, "max_ram.combined.total_rss") >= 50 * MIB / 1e6, "combined %f MB",
                  jnum(j, "max_ram.combined.total_rss"));
        /* main reaped children and no sample saw it: its ru_maxrss is its
         * own or theirs, and main's figure is a bound, said as one. */
        json_object *m = json_object_object_get(j, "measurement");
        CHECK(json_object_get_boolean(json_object_object_get(m, "main_descendants_split_unknown")));
        CHECK_CONTAINS(json_object_to_json_string(json_object_object_get(m, "at_most")),
                       "\"max_ram.main.total_rss\"");
        CHECK(jnum(j, "measurement.sampled_rss_bytes.main") < 50 * MIB);
        json_object_put(j);
    }
    result_free(&r);
}

static void test_orphans(void)
{
    /* A grandchild orphaned at once stays in the tree through the subreaper:
     * alive and holding 64 MiB at the final sample. */
    const char *out = tmp_path("orphan.json");
    char *argv[] = {GT_BIN, "--st", "10", "-f", "json", "-o", (char *)out, "--tu", "seconds",
                    "--ru", "megabytes", "--", WORKLOAD_BIN, "orphan", "64", "0.3", NULL};
    struct child c = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    /* The grandchild holds our pipes open until it is killed: read up to
     * gpu-tracker's last line, kill it, then collect. */
    CHECK(read_until(c.out, &r.out, "status code: 0\n") == 0);
    int gc = 0;
    char *line = strstr(r.out.data, "grandchild ");
    CHECK(line && sscanf(line, "grandchild %d", &gc) == 1 && gc > 0);
    if (gc > 0)
        kill(gc, SIGKILL);
    finish(&c, &r);
    CHECK(r.status == 0);
    /* It was left running: the user is told, with its PID. */
    char warning[300];
    snprintf(warning, sizeof warning, "gpu-tracker: warning: the command has exited, but 1 "
             "process it started is still running (PID %d): measured up to the command's exit, "
             "not to its end; --wait-all waits for it\n", gc);
    CHECK_CONTAINS(r.err.data, warning);
    char *text = slurp(out);
    json_object *j = text ? parse_or_fail(text, out) : NULL;
    CHECK(j != NULL);
    if (j) {
        double desc = cpu_seconds(j, "descendants");
        CHECK_MSG(desc >= 0.25, "descendants CPU %f s", desc);
        CHECK_MSG(jnum(j, "max_ram.descendants.total_rss") >= 64 * MIB / 1e6, "desc %f MB",
                  jnum(j, "max_ram.descendants.total_rss"));
        CHECK(jnum(j, "cpu_utilization.descendants_n_threads") >= 1);
        json_object_put(j);
    }
    free(text);
    result_free(&r);

    /* The grandchild exits and gpu-tracker reaps it: its CPU time arrives
     * through our cutime, its peak through wait4's ru_maxrss. */
    r = gt("--st", "10", "-f", "json", "--tu", "seconds", "--ru", "megabytes", "--", WORKLOAD_BIN,
           "orphan-reaped", "64", "0.3", NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "stdout");
    if (j) {
        /* What the kernel counted for the grandchild (its parent's fork and
         * exit add a tick at most): not twice that, not none. */
        double desc = cpu_seconds(j, "descendants"), truth = reported(&r, "grandchild cpu ");
        CHECK_MSG(truth >= 0.3 && fabs(desc - truth) <= TICKS_SLACK,
                  "descendants CPU %f s, the grandchild used %f s", desc, truth);
        CHECK_MSG(jnum(j, "max_ram.descendants.total_rss") >= 64 * MIB / 1e6, "desc %f MB",
                  jnum(j, "max_ram.descendants.total_rss"));
        json_object_put(j);
    }
    result_free(&r);
}

/* A worker the command leaves running burns its CPU after the command
 * exited: without --wait-all it is named in a warning, with it it is
 * tracked to its end (its CPU and peak counted, no warning). */
static void test_wait_all(void)
{
    const char *out = tmp_path("wait-all.json");
    struct result r = gt("--wait-all", "--st", "10", "-f", "json", "-o", out, "--tu", "seconds",
                         "--ru", "megabytes", "--", WORKLOAD_BIN, "leave", "64", "0.5", NULL);
    CHECK(r.status == 0);
    CHECK(strstr(r.err.data, "still running") == NULL);
    char *text = slurp(out);
    json_object *j = text ? parse_or_fail(text, out) : NULL;
    CHECK(j != NULL);
    free(text);
    if (j) {
        double desc = cpu_seconds(j, "descendants");
        CHECK_MSG(desc >= 0.5 - TICKS_SLACK, "descendants CPU %f s: the worker's 0.5 s after the "
                  "command exited were not waited for", desc);
        CHECK_MSG(jnum(j, "compute_time.time") >= 0.5, "compute time %f s",
                  jnum(j, "compute_time.time"));
        CHECK_MSG(jnum(j, "max_ram.descendants.total_rss") >= 64 * MIB / 1e6, "desc %f MB",
                  jnum(j, "max_ram.descendants.total_rss"));
        json_object_put(j);
    }
    result_free(&r);

    /* Without it: the summary as of the command's exit, and the warning
     * naming the worker (which holds our pipes until it has burnt). */
    r = gt("--st", "10", "--", WORKLOAD_BIN, "leave", "8", "0.2", NULL);
    CHECK(r.status == 0);
    int worker = 0;
    const char *line = strstr(r.out.data, "worker ");
    CHECK(line && sscanf(line, "worker %d", &worker) == 1 && worker > 0);
    char warning[300];
    snprintf(warning, sizeof warning, "gpu-tracker: warning: the command has exited, but 1 "
             "process it started is still running (PID %d)", worker);
    CHECK_CONTAINS(r.err.data, warning);
    result_free(&r);

    r = gt("--wait-all", "--pid", "1", NULL);
    check_error(&r, 2, "gpu-tracker: --wait-all waits for what a command it runs leaves behind; "
                       "with --pid, tracking already ends when that process does\n");
}

/* The value after a label of -f human ("CPU time        0.51 s ..."), or
 * NULL. */
static const char *human_value(const char *text, const char *label)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s ", label);
    const char *p = strstr(text, key);
    if (!p)
        return NULL;
    p += strlen(key);
    while (*p == ' ')
        p++;
    return p;
}

/* A size as -f human writes it ("201 MiB", "8.00 MiB"), in bytes; -1 if
 * it is not one. */
static double human_size(const char *s)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v;
    char unit[8];
    if (!s || sscanf(s, "%lf %7[A-Za-z]", &v, unit) != 2)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i]) == 0)
            return v * pow(1024, (double)i);
    return -1;
}

/* text with every run of spaces and newlines made one space: the words
 * and their order, however the lines were broken. malloc'd. */
static char *words_of(const char *text)
{
    char *w = malloc(strlen(text) + 1), *o = w;
    if (!w)
        return NULL;
    for (const char *p = text; *p; p++) {
        if (*p == ' ' || *p == '\n') {
            if (o > w && o[-1] != ' ')
                *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return w;
}

/* -f human fits the width it is given ($COLUMNS, the terminal's, else 80)
 * and breaks lines between words only; 'show FILE -f human' reads a saved
 * summary; the short line of what is missing, the reasons in full with
 * --verbose and in the JSON. */
static void test_human_fits(void)
{
    const char *saved = tmp_path("saved.json");
    struct result r = gt("-q", "-f", "json", "-o", saved, "--", WORKLOAD_BIN, "alloc", "8", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    r = gt("show", saved, "-f", "human", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(!strncmp(r.out.data, "Wall time ", 10) && human_value(r.out.data, "Peak RAM") &&
              human_value(r.out.data, "CPU time"), "show -f human: [%s]", r.out.data);
    CHECK_CONTAINS(r.out.data, "\nI/O             not measured (a saved summary does not keep "
                               "it)\n");
    char *wide = words_of(r.out.data);
    result_free(&r);
    int bad;
    for (int width = 40; width <= 80; width += 20) {
        char columns[8];
        snprintf(columns, sizeof columns, "%d", width);
        setenv("COLUMNS", columns, 1);
        r = gt("show", saved, "-f", "human", NULL);
        bad = first_wide_line(r.out.data, width, NULL);
        CHECK_MSG(r.status == 0 && bad == 0, "COLUMNS=%d: line %d is wider: [%s]", width, bad,
                  r.out.data);
        char *words = words_of(r.out.data);
        CHECK_MSG(wide && words && !strcmp(wide, words),
                  "COLUMNS=%d: not the same words as unwrapped:\n[%s]\n[%s]", width,
                  words ? words : "", wide ? wide : "");
        free(words);
        result_free(&r);
    }
    free(wide);
    /* Not a terminal and no $COLUMNS: 80 columns, for a run as for show. */
    unsetenv("COLUMNS");
    r = gt("-q", "-f", "human", "--carbon-intensity", "400", "--", WORKLOAD_BIN, "exit", "0",
           NULL);
    bad = first_wide_line(r.out.data, 80, NULL);
    CHECK_MSG(r.status == 0 && bad == 0, "line %d wider than 80: [%s]", bad, r.out.data);
    int no_gpu = access("/dev/nvidiactl", F_OK) != 0 && access("/dev/kfd", F_OK) != 0 &&
                 access("/dev/dxg", F_OK) != 0;
    int no_rapl = access("/sys/class/powercap", F_OK) != 0;
    if (no_gpu)
        CHECK_CONTAINS(r.out.data, "\nGPU             none: no GPU driver found\n");
    char *words = words_of(r.out.data);
    if (no_gpu && no_rapl) /* asked for CO2e, and there is no counter to give it from */
        CHECK_CONTAINS(words, " Energy none (GPU: no GPU driver found; CPU: no RAPL counters); "
                              "CO2e not given: no energy counter ");
    free(words);
    result_free(&r);
    setenv("COLUMNS", "1000", 1);
    r = gt("show", saved, "-f", "human", "--verbose", NULL);
    if (no_gpu)
        CHECK_CONTAINS(r.out.data, "\nGPU             none: no GPU driver found (no "
                                   "/dev/nvidiactl, /dev/kfd or /dev/dxg)\n");
    result_free(&r);
    r = gt("-q", "-f", "human", "--verbose", "--", WORKLOAD_BIN, "exit", "0", NULL);
    if (no_rapl)
        CHECK_CONTAINS(r.out.data, "CPU: no RAPL counters: ");
    result_free(&r);
    r = gt("show", saved, "-f", "xml", NULL);
    check_error(&r, 2, "gpu-tracker: unknown format 'xml'; valid formats: text, json, human\n");
}

/* -f human: one line per figure, units by size, CPU seconds as the kernel
 * counted them, the peak RSS above what the workload held, the bytes a
 * command wrote to storage; --ru/--tu do not change it. */
static void test_human_format(void)
{
    struct result r = gt("-f", "human", "--ru", "terabytes", "--tu", "days", "--st", "0.1",
                         "--disable-logs", "--", WORKLOAD_BIN, "burn", "0.5", NULL);
    CHECK(r.status == 0);
    const char *labels[] = {"Wall time", "CPU time", "CPU cores", "Peak RAM", "System RAM",
                            "I/O", "GPU", "Threads", "Samples", "Energy", "At the peak"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        CHECK_MSG(human_value(r.out.data, labels[i]) != NULL, "no '%s' line in [%s]", labels[i],
                  r.out.data);
    /* No counter here (no GPU, and RAPL only where the machine has it):
     * the energy line says why for each part. */
    const char *energy = human_value(r.out.data, "Energy");
    if (access("/sys/class/powercap", F_OK) != 0)
        CHECK_MSG(energy && strncmp(energy, "none (GPU: ", 11) == 0 &&
                  strstr(energy, "; CPU: no RAPL counters)"), "Energy: %s", energy ? energy : "");
    double cpu = 0, main_cpu = -1, wall = 0;
    const char *v = human_value(r.out.data, "CPU time");
    CHECK(v && sscanf(v, "%lf s (main %lf s", &cpu, &main_cpu) == 2);
    double truth = reported(&r, "main cpu ");
    CHECK_MSG(truth >= 0.5 && fabs(main_cpu - truth) <= TICKS_SLACK + 0.005,
              "main CPU %f s, the kernel counted %f s", main_cpu, truth);
    v = human_value(r.out.data, "Wall time");
    CHECK(v && sscanf(v, "%lf s", &wall) == 1 && wall >= 0.5 - 0.02);
    /* Without a driver's device file the system's libraries are not even
     * looked for (gpu.c, driver_present). */
    if (access("/dev/nvidiactl", F_OK) != 0 && access("/dev/kfd", F_OK) != 0 &&
        access("/dev/dxg", F_OK) != 0)
        CHECK_CONTAINS(r.out.data, "\nGPU             none: no GPU driver found\n");
    else
        CHECK_CONTAINS(r.out.data, "\nGPU             none: no GPU ");
    result_free(&r);

    /* Memory and storage: 64 MiB held; 8 MiB written and synced by dd. */
    const char *file = tmp_path("human-io");
    char of[300];
    snprintf(of, sizeof of, "of=%s", file);
    r = gt("-f", "human", "--st", "10", "--disable-logs", "--", "sh", "-c",
           WORKLOAD_BIN " alloc 64 && dd if=/dev/zero \"$0\" bs=1M count=8 conv=fsync status=none",
           of, NULL);
    CHECK(r.status == 0);
    double peak = human_size(human_value(r.out.data, "Peak RAM"));
    CHECK_MSG(peak >= 64 * MIB, "peak RAM %f bytes: [%s]", peak, r.out.data);
    const char *io = human_value(r.out.data, "I/O");
    const char *written = io ? strstr(io, "written ") : NULL;
    double wbytes = human_size(written ? written + 8 : NULL);
    struct statfs fs;
    int on_tmpfs = statfs(tmpdir, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
    /* tmpfs sends nothing to storage; any disk gets the 8 MiB. */
    CHECK_MSG(on_tmpfs ? wbytes == 0 : wbytes >= 8 * MIB, "written %f bytes: [%s]", wbytes,
              r.out.data);
    result_free(&r);

    /* Attached to a PID: no I/O figure (nothing is reaped), and it says so. */
    char *w_argv[] = {WORKLOAD_BIN, "wait-signal", NULL};
    struct child w = spawn(w_argv, 0);
    struct buf ready = {NULL, 0};
    CHECK(read_until(w.out, &ready, "ready\n") == 0);
    free(ready.data);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)w.pid);
    char *argv[] = {GT_BIN, "-f", "human", "--st", "0.1", "--pid", pid, NULL};
    struct child g = spawn(argv, 0);
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    kill(w.pid, SIGTERM);
    struct result wr;
    memset(&wr, 0, sizeof wr);
    finish(&w, &wr);
    result_free(&wr);
    finish_within(&g, &r, 60, "gpu-tracker --pid");
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "\nI/O             not measured (only for a command gpu-tracker "
                               "runs and reaps)\n");
    result_free(&r);
    r = gt("-f", "xml", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: unknown format 'xml'; valid formats: text, json, human\n");

    /* -o a file that cannot take it: the error, then the summary on stderr. */
    if (access("/dev/full", W_OK) == 0) {
        r = gt("-f", "human", "--disable-logs", "-o", "/dev/full", "--", "true", NULL);
        CHECK(r.status == 1);
        CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot write '/dev/full': No space left on "
                                   "device; the summary follows on standard error\nWall time ");
        result_free(&r);
    }
}

/* The TERM the terminal's programs get (xterm unless a test says otherwise). */
static const char *pty_term = "xterm";

/* gpu-tracker with standard error on a new pseudo-terminal (stdout to a
 * pipe): what a user at a terminal sees. *master gets our end. */
static struct child spawn_on_pty_cols(char *const argv[], int *master, unsigned short cols)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0);
    const char *slave = ptsname(m);
    CHECK(slave != NULL);
    /* finish() reads a stderr pipe too: this one is at its end at once. */
    int out[2], no_err[2];
    CHECK(pipe(out) == 0 && pipe(no_err) == 0);
    close(no_err[1]);
    struct child c = {fork(), -1, out[0], no_err[0]};
    if (c.pid == 0) {
        setsid();
        int s = open(slave, O_RDWR);
        struct winsize ws = {.ws_row = 24, .ws_col = cols};
        ioctl(s, TIOCSWINSZ, &ws);
        dup2(open("/dev/null", O_RDONLY), 0);
        dup2(out[1], 1);
        dup2(s, 2);
        for (int fd = 3; fd < 64; fd++)
            close(fd);
        setenv("TERM", pty_term, 1); /* CI may run us with no TERM: no line then */
        execv(argv[0], argv);
        _exit(126);
    }
    close(out[1]);
    *master = m;
    return c;
}

static struct child spawn_on_pty(char *const argv[], int *master)
{
    return spawn_on_pty_cols(argv, master, 200);
}

/* Reads the terminal until needle shows (1) or it closes (0), giving up
 * after a minute: a deadline so that a regression fails instead of
 * hanging, not a timing assertion. */
static int read_pty_until(int master, struct buf *b, const char *needle)
{
    if (!b->data)
        buf_append(b, "", 0);
    time_t deadline = time(NULL) + 60;
    while (!needle || !strstr(b->data, needle)) {
        struct pollfd p = {master, POLLIN, 0};
        int rc = poll(&p, 1, 1000);
        if (time(NULL) > deadline)
            return 0;
        if (rc <= 0)
            continue;
        char tmp[4096];
        ssize_t n = read(master, tmp, sizeof tmp);
        if (n <= 0)
            return 0; /* EIO: the last holder of the terminal closed it */
        buf_append(b, tmp, (size_t)n);
    }
    return 1;
}

/* On a terminal, a status line is drawn on standard error while the
 * command runs, redrawn in place and erased at the end; --quiet and
 * --disable-logs turn it off, and a pipe never gets it. */
static void test_live_line(void)
{
    /* The command runs until we have seen the line, then we end it. */
    char *argv[] = {GT_BIN, "--st", "0.1", "--", WORKLOAD_BIN, "wait-signal", NULL};
    int master = -1;
    struct child c = spawn_on_pty(argv, &master);
    struct result r;
    memset(&r, 0, sizeof r);
    struct buf term = {NULL, 0};
    CHECK(read_until(c.out, &r.out, "ready\n") == 0);
    int seen = read_pty_until(master, &term, " samples\033[K");
    CHECK_MSG(seen, "no status line on the terminal: [%s]", term.data);
    kill(c.pid, SIGTERM); /* passed on: the command exits 40 + 15 */
    read_pty_until(master, &term, NULL);
    finish(&c, &r);
    CHECK(r.status == 55);
    if (seen) {
        /* "\e7\e[24;1Hgpu-tracker 0:01 | CPU 0.00 cores | RSS 1.14 MiB (peak 1.14 MiB) |
         * 12 samples\e[K\e8": on the last row (of 24), the cursor kept where it was */
        const char *line = strstr(term.data, "\0337\033[24;1Hgpu-tracker ");
        CHECK(line != NULL);
        if (line) {
            unsigned mins, secs;
            char cpu[32], rss[32], unit[8];
            long samples = 0;
            CHECK_MSG(sscanf(line, "\0337\033[24;1Hgpu-tracker %u:%u | CPU %31s cores | RSS %31s "
                             "%7s (peak", &mins, &secs, cpu, rss, unit) == 5, "line: %.120s", line);
            const char *sm = strstr(line, " | ");
            sm = sm ? strrchr(line, '|') : NULL;
            CHECK(sm && sscanf(sm, "| %ld samples", &samples) == 1 && samples >= 2);
        }
        /* The region (rows 1 to 23) is set before the first line and given
         * back after the last: the row erased, the region reset. */
        const char *region = strstr(term.data, "\033[1;23r");
        CHECK(region && line && region < line);
        const char *last_draw = NULL;
        for (const char *p = term.data; (p = strstr(p, "1Hgpu-tracker ")) != NULL; p++)
            last_draw = p;
        CHECK(last_draw && strstr(last_draw, "\033[24;1H\033[2K\033[r\0338") != NULL);
        /* Nothing of it on standard output. */
        CHECK(strchr(r.out.data, '\033') == NULL);
    }
    free(term.data);
    close(master);
    result_free(&r);

    /* A narrow terminal: whole parts are left out (samples, then the peak),
     * never a figure cut in half, and the line fits in 59 columns. */
    c = spawn_on_pty_cols(argv, &master, 60);
    memset(&r, 0, sizeof r);
    memset(&term, 0, sizeof term);
    CHECK(read_until(c.out, &r.out, "ready\n") == 0);
    seen = read_pty_until(master, &term, " MiB\033[K");
    CHECK_MSG(seen, "no narrow status line: [%s]", term.data);
    kill(c.pid, SIGTERM);
    read_pty_until(master, &term, NULL);
    finish(&c, &r);
    if (seen) {
        const char *line = strstr(term.data, ";1Hgpu-tracker ");
        const char *end = line ? strstr(line, "\033[K") : NULL;
        CHECK(line && end);
        if (line && end) {
            line += 2; /* at "H", a column before the text as "\r" was */
            size_t len = (size_t)(end - line - 1);
            CHECK_MSG(len <= 59, "%zu columns: %.*s", len, (int)len, line + 1);
            CHECK_MSG(!memmem(line, len + 1, "samples", 7) && !memmem(line, len + 1, "peak", 4),
                      "[%.*s]", (int)len, line + 1);
            CHECK_MSG(memmem(line, len + 1, "| RSS ", 6) && !memcmp(end - 4, " MiB", 4),
                      "[%.*s]", (int)len, line + 1);
        }
    }
    free(term.data);
    close(master);
    result_free(&r);

    /* --quiet, --disable-logs: never drawn, though the command runs for
     * several of the line's ticks (a second apart). */
    const char *quiet[] = {"--quiet", "-q", "--disable-logs"};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        char *qargv[] = {GT_BIN, (char *)quiet[i], "--st", "0.1", "--", "sleep", "2.5", NULL};
        c = spawn_on_pty(qargv, &master);
        memset(&r, 0, sizeof r);
        memset(&term, 0, sizeof term);
        read_pty_until(master, &term, NULL);
        finish(&c, &r);
        CHECK(r.status == 0);
        CHECK_MSG(strstr(term.data, "gpu-tracker 0:") == NULL && strchr(term.data, '\033') == NULL,
                  "%s: the terminal got [%s]", quiet[i], term.data);
        free(term.data);
        close(master);
        result_free(&r);
    }
    /* A terminal that knows no cursor addressing (TERM=dumb): no line. */
    pty_term = "dumb";
    char *dargv[] = {GT_BIN, "--st", "0.1", "--", "sleep", "2.5", NULL};
    c = spawn_on_pty(dargv, &master);
    memset(&r, 0, sizeof r);
    memset(&term, 0, sizeof term);
    read_pty_until(master, &term, NULL);
    finish(&c, &r);
    pty_term = "xterm";
    CHECK(r.status == 0);
    CHECK_MSG(strchr(term.data, '\033') == NULL, "TERM=dumb: the terminal got [%s]", term.data);
    free(term.data);
    close(master);
    result_free(&r);
    /* Standard error a pipe: no line, no escape sequence. */
    r = gt("--st", "0.1", "--", "sleep", "2.5", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(strchr(r.err.data, '\033') == NULL && strchr(r.err.data, '\r') == NULL,
              "stderr: [%s]", r.err.data);
    result_free(&r);
}

/* The first child of pid, or 0 (read from its children file). */
static pid_t first_child(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    char *text = slurp(path);
    pid_t child = text ? (pid_t)atoi(text) : 0;
    free(text);
    return child;
}

/* A command stopped by SIGSTOP when a SIGTERM comes: it is woken up
 * (SIGCONT, as timeout(1) does) to act on it, instead of both waiting for
 * ever. */
static void test_stopped_command(void)
{
    const char *out = tmp_path("stopped.txt");
    char *argv[] = {GT_BIN, "--disable-logs", "-o", (char *)out, "--", WORKLOAD_BIN,
                    "wait-signal", NULL};
    struct child c = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(c.out, &r.out, "ready\n") == 0);
    pid_t command = first_child(c.pid);
    CHECK(command > 0);
    if (command > 0)
        kill(command, SIGSTOP);
    kill(c.pid, SIGTERM);
    finish_within(&c, &r, 60, "gpu-tracker with a stopped command");
    CHECK_MSG(r.status == 40 + SIGTERM, "status %d", r.status);
    char *text = slurp(out);
    CHECK_CONTAINS(text, "Max RAM:\n");
    free(text);
    result_free(&r);
}

/* Runs gpu-tracker with its standard output a pipe nobody reads any more
 * (gpu-tracker ... | true). */
static struct result run_to_closed_pipe(char *const argv[])
{
    int p[2];
    if (pipe(p) < 0)
        exit(99);
    close(p[0]);
    int err[2];
    if (pipe(err) < 0)
        exit(99);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(err[1], 2);
        for (int fd = 3; fd < 64; fd++)
            close(fd);
        execv(argv[0], argv);
        _exit(126);
    }
    close(p[1]);
    close(err[1]);
    struct result r;
    memset(&r, 0, sizeof r);
    read_until(err[0], &r.err, NULL);
    close(err[0]);
    buf_append(&r.out, "", 0);
    int ws;
    waitpid(pid, &ws, 0);
    r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return r;
}

/* gpu-tracker -- cmd | true: the summary is not lost to SIGPIPE; it goes to
 * stderr, and the command keeps SIGPIPE's usual action. */
static void test_closed_stdout(void)
{
    char *quiet[] = {GT_BIN, "--disable-logs", "--", WORKLOAD_BIN, "exit", "0", NULL};
    struct result r = run_to_closed_pipe(quiet);
    CHECK_MSG(r.status == 1, "status %d", r.status); /* the command succeeded, stdout did not */
    CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot write to standard output: Broken pipe; the "
                               "summary follows on standard error\n");
    CHECK_CONTAINS(r.err.data, "Max RAM:\n");
    result_free(&r);
    /* A command that writes there itself dies of SIGPIPE, as without us. */
    char *writer[] = {GT_BIN, "--disable-logs", "--", "/usr/bin/yes", NULL};
    r = run_to_closed_pipe(writer);
    CHECK_MSG(r.status == 128 + SIGPIPE, "status %d", r.status);
    CHECK_CONTAINS(r.err.data, "Max RAM:\n");
    result_free(&r);
}

/* -o a FIFO: the check before the run does not open it (a reader would
 * take that for the end), and a reader gets the summary. Without a reader,
 * the wait for one ends with a signal: after the command has ended,
 * signals act on gpu-tracker again. */
static void test_fifo_output(void)
{
    const char *fifo = tmp_path("out.fifo");
    unlink(fifo);
    CHECK(mkfifo(fifo, 0600) == 0);
    char *cat_argv[] = {"/bin/cat", (char *)fifo, NULL};
    struct child reader = spawn(cat_argv, 0);
    char *argv[] = {GT_BIN, "--disable-logs", "-o", (char *)fifo, "--", WORKLOAD_BIN, "exit", "0",
                    NULL};
    struct child c = spawn(argv, 0);
    struct result r, got;
    memset(&r, 0, sizeof r);
    memset(&got, 0, sizeof got);
    finish_within(&c, &r, 60, "gpu-tracker -o FIFO");
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    finish_within(&reader, &got, 60, "the FIFO's reader");
    CHECK_CONTAINS(got.out.data, "Max RAM:\n");
    result_free(&r);
    result_free(&got);

    /* Nobody reads: gpu-tracker waits in open() once the command is done,
     * and SIGTERM ends that wait (128 + 15). */
    struct child lone = spawn(argv, 0);
    memset(&r, 0, sizeof r);
    CHECK(read_until(lone.out, &r.out, "status code: 0\n") == 0);
    kill(lone.pid, SIGTERM);
    finish_within(&lone, &r, 60, "gpu-tracker waiting for a FIFO reader");
    CHECK_MSG(r.status == 128 + SIGTERM, "status %d", r.status);
    result_free(&r);
    unlink(fifo);
}

/* --pid of gpu-tracker itself: it would wait for its own end. */
static void test_pid_self(void)
{
    char script[512];
    snprintf(script, sizeof script, "exec %s --pid $$", GT_BIN);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    struct result r = run_argv(argv);
    CHECK(r.status == 1);
    CHECK_STR(r.out.data, "");
    CHECK_CONTAINS(r.err.data, " is gpu-tracker itself: it would wait for its own end; give the "
                               "PID of another process\n");
    result_free(&r);
}

static void test_signals_forwarded(void)
{
    const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < 3; i++) {
        const char *out = tmp_path("signal.txt");
        unlink(out);
        char *argv[] = {GT_BIN, "--disable-logs", "-o", (char *)out, "--", WORKLOAD_BIN,
                        "wait-signal", NULL};
        struct child c = spawn(argv, 0);
        struct result r;
        memset(&r, 0, sizeof r);
        CHECK(read_until(c.out, &r.out, "ready\n") == 0);
        kill(c.pid, sigs[i]);
        finish(&c, &r);
        CHECK_MSG(r.status == 40 + sigs[i], "signal %d: status %d", sigs[i], r.status);
        char *text = slurp(out);
        CHECK_CONTAINS(text, "Max RAM:\n");
        CHECK_CONTAINS(text, "Compute time:\n");
        free(text);
        result_free(&r);
    }
}

static void test_attach(void)
{
    /* Threads seen through --pid; Ctrl-C (SIGINT) ends tracking, not the
     * process, and the summary still comes. */
    char *w_argv[] = {WORKLOAD_BIN, "threads", "4", NULL};
    struct child w = spawn(w_argv, 1);
    struct buf wout = {0};
    CHECK(read_until(w.out, &wout, "ready\n") == 0);
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)w.pid);
    const char *out = tmp_path("attach.json");
    char *argv[] = {GT_BIN, "--pid", pid, "--st", "10", "-f", "json", "-o", (char *)out, NULL};
    struct child g = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    kill(g.pid, SIGINT);
    finish(&g, &r);
    CHECK(r.status == 130);
    char want[128];
    snprintf(want, sizeof want, "Resource tracking stopped. Process %d is still running.\n", (int)w.pid);
    CHECK_STR(r.out.data, want);
    CHECK(kill(w.pid, 0) == 0); /* not killed */
    char *text = slurp(out);
    json_object *j = text ? parse_or_fail(text, out) : NULL;
    CHECK(j && jnum(j, "cpu_utilization.main_n_threads") == 5);
    if (j)
        json_object_put(j);
    free(text);
    result_free(&r);
    struct result wr;
    memset(&wr, 0, sizeof wr);
    finish(&w, &wr);
    result_free(&wr);
    free(wout.data);

    /* A 100 MiB spike after we attached, gone before any sample: VmHWM rose
     * while tracked, so it counts. */
    char *s_argv[] = {WORKLOAD_BIN, "spike", "100", NULL};
    w = spawn(s_argv, 1);
    snprintf(pid, sizeof pid, "%d", (int)w.pid);
    char *argv2[] = {GT_BIN, "--pid", pid, "--st", "10", "-f", "json", "--ru", "megabytes", NULL};
    g = spawn(argv2, 0);
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    CHECK(write(w.in, "go\n", 3) == 3);
    struct buf sout = {0};
    CHECK(read_until(w.out, &sout, "spiked\n") == 0);
    kill(g.pid, SIGINT);
    finish(&g, &r);
    j = parse_or_fail(r.out.data, "stdout");
    CHECK_MSG(j && jnum(j, "max_ram.main.total_rss") >= 100 * MIB / 1e6, "main %f MB",
              j ? jnum(j, "max_ram.main.total_rss") : -1);
    if (j)
        json_object_put(j);
    result_free(&r);
    memset(&wr, 0, sizeof wr);
    finish(&w, &wr);
    result_free(&wr);
    free(sout.data);

    /* Attached to a process that ends by itself: exit 0. */
    char *e_argv[] = {WORKLOAD_BIN, "threads", "1", NULL};
    w = spawn(e_argv, 1);
    memset(&wout, 0, sizeof wout);
    CHECK(read_until(w.out, &wout, "ready\n") == 0);
    snprintf(pid, sizeof pid, "%d", (int)w.pid);
    char *argv3[] = {GT_BIN, "--pid", pid, "--st", "0.05", NULL};
    g = spawn(argv3, 0);
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    memset(&wr, 0, sizeof wr);
    finish(&w, &wr); /* closes its stdin: it exits, and we reap it */
    finish(&g, &r);
    CHECK(r.status == 0);
    snprintf(want, sizeof want, "Resource tracking complete. Process %d has ended.\n", (int)w.pid);
    CHECK_CONTAINS(r.out.data, want);
    result_free(&r);
    result_free(&wr);
    free(wout.data);
}

/* Starts gpu-tracker --pid 100 on the fixture procfs at root and waits until
 * it is tracking. */
static struct child attach_fixture(const char *root)
{
    setenv("GPU_TRACKER_PROC_ROOT", root, 1);
    char *argv[] = {GT_BIN, "--pid", "100", "--st", "0.05", "-f", "json", "--ru", "kilobytes", NULL};
    struct child g = spawn(argv, 0);
    unsetenv("GPU_TRACKER_PROC_ROOT");
    return g;
}

/* GPU_TRACKER_PROC_ROOT: the CLI reads a fixture procfs, so every figure of
 * an attached run is known. */
static void test_fixture_proc_root(void)
{
    char *root = fx_mkroot();
    fx_system(root, 100, 100, 4, 8000000, 6000000);
    struct fx_proc m = {.pid = 100, .ppid = 1, .threads = 7, .rss_kb = 200000, .hwm_kb = 250000,
                        .anon_kb = 150000, .private_kb = 150000, .shared_kb = 50000,
                        .pss_kb = 160000, .starttime = 5, .children = "101"};
    struct fx_proc c = {.pid = 101, .ppid = 100, .threads = 2, .rss_kb = 1000, .anon_kb = 1000,
                        .private_kb = 1000, .pss_kb = 1000, .starttime = 6};
    fx_proc_write(root, &m);
    fx_proc_write(root, &c);

    /* Stopped by SIGINT: the final sample reads the tree as it is then. */
    struct child g = attach_fixture(root);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    m.rss_kb = m.hwm_kb = 300000; /* grew after we attached */
    m.anon_kb = m.private_kb = 250000;
    fx_proc_write(root, &m);
    kill(g.pid, SIGINT);
    finish(&g, &r);
    CHECK(r.status == 130);
    json_object *j = parse_or_fail(r.out.data, "stdout");
    if (j) {
        CHECK(jnum(j, "max_ram.main.total_rss") == 300000 * 1.024);
        CHECK(jnum(j, "max_ram.main.private_rss") == 250000 * 1.024);
        CHECK(jnum(j, "max_ram.descendants.total_rss") == 1000 * 1.024);
        CHECK(jnum(j, "max_ram.combined.private_rss") == 251000 * 1.024);
        CHECK(jnum(j, "cpu_utilization.main_n_threads") == 7);
        CHECK(jnum(j, "cpu_utilization.descendants_n_threads") == 2);
        CHECK(jnum(j, "cpu_utilization.combined_n_threads") == 9);
        CHECK(jnum(j, "cpu_utilization.system_core_count") == 4);
        CHECK(jnum(j, "max_ram.system_capacity") == 8000000 * 1.024);
        json_object_put(j);
    }
    result_free(&r);

    /* Ended by itself: its entry under the root vanishes. */
    g = attach_fixture(root);
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.err, &r.err, "until it ends") == 0);
    fx_proc_remove(root, 101);
    fx_proc_remove(root, 100);
    finish(&g, &r);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.err.data, "Resource tracking complete. Process 100 has ended.\n");
    result_free(&r);
    fx_rmroot(root);
}

/* One fake H100 (80 GB, 9 GB used, 75 % busy) in a scenario file, and the
 * fake NVML set to be loaded by the gpu-tracker we start; the scenario's
 * path, for processes to register in. */
static void fputs_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *use_fake_nvml_gpu(void)
{
    const char *scenario = tmp_path("nvml-scenario");
    FILE *f = fopen(scenario, "w");
    fputs("device GPU-1111 Fake-H100 80000000000 9000000000 75\n", f);
    fclose(f);
    setenv("FAKE_NVML_SCENARIO", scenario, 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", WORKLOAD_DIR "/libfake-nvml.so", 1);
    return scenario;
}

/* GPU figures through the real binary and a fake NVML: the command and its
 * child register their own PIDs in the fake's scenario; the final sample,
 * taken while the command is a zombie, still counts it as main. */
static void test_gpu_fake(void)
{
    const char *scenario = use_fake_nvml_gpu();
    char *argv[] = {GT_BIN, "--st", "10", "-f", "json", "-o", (char *)tmp_path("gpu.json"),
                    "--gru", "megabytes", "--", WORKLOAD_BIN, "gpu-register", (char *)scenario,
                    "0", "300000000", "120000000", NULL};
    struct child c = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(c.out, &r.out, "status code: 0\n") == 0);
    int child_pid = 0;
    char *line = strstr(r.out.data, "child ");
    CHECK(line && sscanf(line, "child %d", &child_pid) == 1);
    if (child_pid > 0)
        kill(child_pid, SIGKILL);
    finish(&c, &r);
    CHECK(r.status == 0);
    /* A GPU was found: no warning about it; the child the command left
     * running is named. */
    char left[200];
    snprintf(left, sizeof left, "gpu-tracker: warning: the command has exited, but 1 process "
             "it started is still running (PID %d)", child_pid);
    CHECK_CONTAINS(r.err.data, left);
    CHECK_MSG(strstr(r.err.data, "GPU library") == NULL, "a GPU warning: %s", r.err.data);
    char *text = slurp(tmp_path("gpu.json"));
    json_object *j = text ? parse_or_fail(text, "gpu.json") : NULL;
    if (j) {
        CHECK(jnum(j, "max_gpu_ram.main") == 300.0);
        CHECK(jnum(j, "max_gpu_ram.descendants") == 120.0);
        CHECK(jnum(j, "max_gpu_ram.combined") == 420.0);
        CHECK(jnum(j, "max_gpu_ram.system") == 9000.0);
        CHECK(jnum(j, "max_gpu_ram.system_capacity") == 80000.0);
        CHECK(jnum(j, "gpu_utilization.system_gpu_count") == 1);
        CHECK(jnum(j, "gpu_utilization.gpu_percentages.max_sum_percent") == 75.0);
        /* Who held the GPU peak: the command (300 MB) and its child (120 MB). */
        CHECK(jnum(j, "at_peak.gpu_memory.total_bytes") == 420e6);
        CHECK(jnum(j, "at_peak.gpu_memory.processes.0.gpu_bytes") == 300e6);
        CHECK(jnum(j, "at_peak.gpu_memory.processes.0.pid") != child_pid);
        CHECK(jnum(j, "at_peak.gpu_memory.processes.1.gpu_bytes") == 120e6);
        CHECK(jnum(j, "at_peak.gpu_memory.processes.1.pid") == child_pid);
        json_object_put(j);
    }
    free(text);
    result_free(&r);

    /* A limit on GPU memory: the command registers 300 MB against 200 MB. */
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 75\n");
    r = gt("-q", "-f", "json", "--max-gpu-ram", "200MB", "--", WORKLOAD_BIN, "gpu-register",
           scenario, "0", "300000000", NULL);
    CHECK_MSG(r.status == 124, "status %d for --max-gpu-ram", r.status);
    CHECK_CONTAINS(r.err.data, "limit breached: peak GPU RAM 286 MiB passed the limit of 191 MiB "
                               "(--max-gpu-ram)");
    j = parse_or_fail(r.out.data, "max-gpu-ram json");
    if (j) {
        CHECK(jnum(j, "limits.checks.max_gpu_ram.peak") == 300e6);
        CHECK(jnum(j, "limits.checks.max_gpu_ram.limit") == 200e6);
        json_object_put(j);
    }
    result_free(&r);

    /* GPUs held but idle: the command holds 1 GB on GPU 0, at 0 %, and its
     * child 0.5 GB on GPU 1, at 90 %: GPU 0 alone is named. */
    FILE *sc = fopen(scenario, "w");
    if (sc) {
        fputs("device GPU-1111 Fake-H100 80000000000 9000000000 0\n"
              "device GPU-2222 Fake-H100 80000000000 9000000000 90\n", sc);
        fclose(sc);
    }
    char idle_script[600];
    snprintf(idle_script, sizeof idle_script,
             "echo \"process 0 $$ 1000000000\" >> %s; sleep 1 & "
             "echo \"process 1 $! 500000000\" >> %s; wait", scenario, scenario);
    r = gt("-q", "-f", "json", "--st", "0.1", "--", "sh", "-c", idle_script, NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "gpu_idle json");
    if (j) {
        CHECK(jnum(j, "gpu_idle.idle_gpus") == 1);
        CHECK(jnum(j, "gpu_idle.gpus.0.index") == 0 && jnum(j, "gpu_idle.gpus.0.idle_percent") == 100);
        CHECK(jnum(j, "gpu_idle.gpus.0.held_bytes") == 1e9);
        CHECK(jnum(j, "gpu_idle.gpus.1.index") == 1 && jnum(j, "gpu_idle.gpus.1.idle_percent") == 0);
        json_object *g1 = NULL;
        CHECK(json_object_object_get_ex(j, "gpu_idle", &g1) &&
              json_object_get_boolean(json_object_object_get(
                  json_object_array_get_idx(json_object_object_get(g1, "gpus"), 0), "idle")) &&
              !json_object_get_boolean(json_object_object_get(
                  json_object_array_get_idx(json_object_object_get(g1, "gpus"), 1), "idle")));
        json_object_put(j);
    }
    result_free(&r);
    char idle_snap[256], idle_html[256];
    snprintf(idle_snap, sizeof idle_snap, "%s", tmp_path("idle.json.gz"));
    snprintf(idle_html, sizeof idle_html, "%s", tmp_path("idle.html"));
    r = gt("-q", "-f", "human", "--st", "0.1", "--snapshot", idle_snap, "--report", idle_html,
           "--", "sh", "-c", idle_script, NULL);
    CHECK_CONTAINS(r.out.data, "\nGPU held idle   GPU 0: 954 MiB held, idle (under 5%) 100% of "
                               "the time it was held: a GPU to give back\n");
    CHECK_MSG(strstr(r.out.data, "GPU 1:") == NULL, "the busy GPU named idle: %s", r.out.data);
    result_free(&r);
    /* gpu_tracker's text gets a section of its own, after all it had; the
     * limits' (the tools' watch puts it into the tracker's text) come
     * between the two. */
    r = gt("-q", "--st", "0.1", "--max-time", "1h", "--", "sh", "-c", idle_script, NULL);
    CHECK_CONTAINS(r.out.data, "\nGPUs held idle:\n   GPU 0: 954 MiB held, idle (under 5%) "
                               "100% of the time it was held\n   Advice: 1 of the 2 GPUs the run "
                               "held was idle (GPU 0 100% of the time): ask for 1");
    const char *limits_at = strstr(r.out.data, "\nLimits:\n   On limit: warn\n   Breached: no\n"
                                               "   Max time: 3600 s, peak ");
    const char *idle_at = strstr(r.out.data, "\nGPUs held idle:\n");
    CHECK_MSG(limits_at && idle_at && limits_at < idle_at &&
              strstr(r.out.data, "\nCompute time:") < limits_at,
              "the sections' order: %s", r.out.data);
    result_free(&r);
    /* The snapshot keeps it: recommend says to ask for fewer GPUs, and the
     * report names the idle one. */
    r = gt("recommend", idle_snap, NULL);
    CHECK_MSG(r.status == 0, "recommend: %s", r.err.data);
    CHECK_CONTAINS(r.out.data, "\ngpu advice: 1 of the 2 GPUs the run held was idle (GPU 0 "
                               "100% of the time): ask for 1\n");
    result_free(&r);
    r = gt("recommend", "-f", "json", idle_snap, NULL);
    CHECK_CONTAINS(r.out.data, "\"gpu_advice\": [");
    result_free(&r);
    char *page = slurp(idle_html);
    CHECK_CONTAINS(page, "<b>GPUs to give back:</b> GPU 0: 954 MiB held, idle 100 % of the "
                         "time it was held. 1 of the 2 GPUs");
    CHECK_CONTAINS(page, "id=\"at-peak-gpu\"");
    free(page);
    /* The job's energy: the GPU's counter moves by 3600 J (1 Wh) during the
     * run; with an intensity, CO2e = 1 Wh x PUE 1.5 x 400 g/kWh = 0.6 g. */
    sc = fopen(scenario, "w");
    if (sc) {
        fputs("device GPU-1111 Fake-H100 80000000000 9000000000 75\nenergy 0 1000\n", sc);
        fclose(sc);
    }
    char energy_script[400];
    snprintf(energy_script, sizeof energy_script, "echo 'energy 0 3601000' >> %s", scenario);
    r = gt("-q", "-f", "json", "--carbon-intensity", "400", "--pue", "1.5", "--", "sh", "-c",
           energy_script, NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "energy json");
    if (j) {
        CHECK(jnum(j, "energy.gpu.joules") == 3600 && jnum(j, "energy.joules") == 3600);
        CHECK(jnum(j, "energy.gpu.uncertainty_percent") == 5);
        CHECK(fabs(jnum(j, "energy.co2e.grams") - 0.6) < 1e-9);
        CHECK(fabs(jnum(j, "energy.co2e.grams_low") - 0.57) < 1e-9);
        CHECK(fabs(jnum(j, "energy.co2e.grams_high") - 0.63) < 1e-9);
        json_object *en = NULL, *cpu = NULL;
        CHECK(json_object_object_get_ex(j, "energy", &en) &&
              json_object_object_get_ex(en, "cpu", &cpu) &&
              !json_object_get_boolean(json_object_object_get(cpu, "available")));
        json_object_put(j);
    }
    result_free(&r);
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 75\nenergy 0 1000\n");
    r = gt("-q", "-f", "human", "--", "sh", "-c", energy_script, NULL);
    CHECK_CONTAINS(r.out.data, "\nEnergy          3.60 kJ = 1.00 Wh (3.42 kJ to 3.78 kJ): GPU 3.60 kJ "
                               "+-5%, CPU none (");
    CHECK_MSG(strstr(r.out.data, "CO2e") == NULL, "CO2e without an intensity: %s", r.out.data);
    result_free(&r);
    r = gt("--carbon-intensity", "lots", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --carbon-intensity 'lots': give the electricity's "
                       "grams of CO2e per kWh, above 0 and at most 10000 (e.g. 400)\n");
    r = gt("--pue", "0.5", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --pue '0.5': a power usage effectiveness is a "
                       "number from 1 to 10 (e.g. 1.2)\n");
    /* A job given two GPUs (CUDA_VISIBLE_DEVICES) that used none. */
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 0\n");
    setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);
    r = gt("-q", "-f", "json", "--", "true", NULL);
    j = parse_or_fail(r.out.data, "gpu request json");
    CHECK(j && jnum(j, "gpu_idle.requested") == 2);
    json_object *gi = NULL;
    CHECK(j && json_object_object_get_ex(j, "gpu_idle", &gi) &&
          json_object_get_boolean(json_object_object_get(gi, "request_unused")) &&
          json_object_array_length(json_object_object_get(gi, "gpus")) == 0);
    if (j)
        json_object_put(j);
    result_free(&r);
    r = gt("-q", "-f", "human", "--st", "0.1", "--snapshot", idle_snap, "--", "sleep", "0.3",
           NULL);
    CHECK_CONTAINS(r.out.data, "\nGPU request     2 GPUs given (CUDA_VISIBLE_DEVICES) and none "
                               "used: ask for none next time\n");
    result_free(&r);
    r = gt("recommend", idle_snap, NULL);
    CHECK_CONTAINS(r.out.data, "\ngpu: 0\nvram: 0 MiB\ngpu advice: 2 GPUs given "
                               "(CUDA_VISIBLE_DEVICES) and none used: ask for none\n");
    result_free(&r);
    /* A snapshot whose requester is a terminal's escapes (OSC 52 sets the
     * clipboard, ESC[2J clears the screen): shown escaped. */
    char evil_snap[300], edit[1200];
    snprintf(evil_snap, sizeof evil_snap, "%s", tmp_path("evil-idle.json.gz"));
    snprintf(edit, sizeof edit, "gzip -dc %s | sed 's/\"requested_by\": *\"CUDA_VISIBLE_DEVICES\"/"
             "\"requested_by\":\"\\\\u001b]52;c;SGVsbG8=\\\\u0007\\\\u001b[2J\"/' | gzip > %s",
             idle_snap, evil_snap);
    CHECK(system(edit) == 0);
    r = gt("recommend", evil_snap, NULL);
    CHECK_CONTAINS(r.out.data, "\ngpu advice: 2 GPUs given (\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J) "
                               "and none used: ask for none\n");
    CHECK(strchr(r.out.data, '\033') == NULL);
    result_free(&r);
    /* ...and one that used its GPU: no such line. */
    char used_script[300];
    snprintf(used_script, sizeof used_script, "echo \"process 0 $$ 1000\" >> %s; sleep 0.3",
             scenario);
    r = gt("-q", "-f", "human", "--st", "0.1", "--", "sh", "-c", used_script, NULL);
    CHECK_MSG(strstr(r.out.data, "GPU request") == NULL, "a used GPU reported unused: %s",
              r.out.data);
    result_free(&r);
    unsetenv("CUDA_VISIBLE_DEVICES");
    use_fake_nvml_gpu(); /* the one-GPU scenario again */

    /* An unknown --guuids: one line naming the GPUs there are; nothing ran. */
    const char *marker = tmp_path("gpu-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    r = gt("--guuids", "GPU-9999", "-e", touch, NULL);
    CHECK(r.status == 1);
    CHECK_STR(r.err.data, "gpu-tracker: unknown GPU UUID 'GPU-9999'; available GPUs: GPU-1111\n");
    CHECK(access(marker, F_OK) != 0);
    result_free(&r);
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    unsetenv("FAKE_NVML_SCENARIO");
}

/* What the GPU waited for, through the real binary, the fake NVML and real
 * busy processes: the command holds memory on a GPU the scenario says is
 * 20 % busy while two of its children spin (always runnable: saturated
 * whatever else the machine runs), so the GPU waited on its workers; the
 * same workers beside a GPU 90 % busy, and sleeping workers beside the
 * 20 % one, are no verdict. The snapshot keeps it for recommend and the
 * report. */
/* How many causes the summary's gpu_idle.waiting.verdict names; -1 when
 * it has none. */
static int waiting_verdicts(json_object *j)
{
    json_object *o = NULL;
    if (!json_object_object_get_ex(j, "gpu_idle", &o) ||
        !json_object_object_get_ex(o, "waiting", &o) ||
        !json_object_object_get_ex(o, "verdict", &o) || !json_object_is_type(o, json_type_array))
        return -1;
    return (int)json_object_array_length(o);
}

/* A string member at a dotted path of j ("" when missing). */
static const char *jtext(json_object *j, const char *a, const char *b, const char *c)
{
    json_object *o = j;
    const char *keys[3] = {a, b, c};
    for (int i = 0; i < 3 && keys[i] && o; i++)
        if (!json_object_object_get_ex(o, keys[i], &o))
            return "";
    return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : "";
}

/* Busy loops, one process each, until stop_hog(): another user's work on
 * the machine. */
static int start_hog(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            for (;;)
                ; /* a busy loop until killed */
    }
    return n;
}

static void stop_hog(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], NULL, 0);
    }
}

/* The shape of `bash train.sh`: a shell starts the training process, which
 * holds the GPU and starts two DataLoader-like workers of its own name that
 * spin. The process on the GPU is what the workers feed, never one of them:
 * with the GPU 5 % busy the verdict is the workers' (two of them), on a
 * quiet machine and beside a hog that leaves them less than their cores
 * (still runnable: still what the GPU waited for); at 95 % there is none. */
static void test_gpu_waited_launcher(void)
{
    const char *scenario = use_fake_nvml_gpu();
    char script[600];
    snprintf(script, sizeof script, "%s feeder %s 0 1000000000 2 2; true", WORKLOAD_BIN,
             scenario);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nhog = cores > 0 && cores < 32 ? (int)cores : 32;
    pid_t hog[32];
    for (int busy = 0; busy < 2; busy++) {
        int hogs = busy ? start_hog(hog, nhog) : 0;
        for (int gpu = 0; gpu < 2; gpu++) {
            int percent = gpu ? 95 : 5;
            char device[128];
            snprintf(device, sizeof device, "device GPU-1111 Fake-H100 80000000000 9000000000 %d\n",
                     percent);
            fputs_file(scenario, device);
            struct result r = gt("-q", "-f", "json", "--st", "0.2", "--", "bash", "-c", script,
                                 NULL);
            CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
            json_object *j = parse_or_fail(r.out.data, "launcher gpu waited");
            if (j) {
                json_object *v = NULL;
                json_object_object_get_ex(j, "gpu_idle", &v);
                json_object_object_get_ex(v, "waiting", &v);
                const char *what = json_object_to_json_string(v);
                if (gpu) {
                    CHECK_MSG(waiting_verdicts(j) <= 0, "GPU %d%% busy, %s: %s", percent,
                              busy ? "busy" : "quiet", what);
                } else {
                    json_object *list = NULL;
                    json_object_object_get_ex(v, "verdict", &list);
                    CHECK_MSG(waiting_verdicts(j) >= 1 &&
                                  !strcmp(json_object_get_string(
                                              json_object_array_get_idx(list, 0)),
                                          "workers"),
                              "GPU %d%% busy, %s machine: %s", percent, busy ? "busy" : "quiet",
                              what);
                    CHECK_MSG(fabs(jnum(j, "gpu_idle.waiting.workers.processes") - 2) < 0.01,
                              "workers counted: %s", what);
                    CHECK_STR(jtext(v, "workers", "command", NULL), "gt-workload");
                }
                json_object_put(j);
            }
            result_free(&r);
        }
        if (hogs)
            stop_hog(hog, hogs);
    }
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    unsetenv("FAKE_NVML_SCENARIO");
}

static void test_gpu_waited(void)
{
    const char *scenario = use_fake_nvml_gpu();
    char spin[600], sleepers[600];
    snprintf(spin, sizeof spin,
             "echo \"process 0 $$ 1000000000\" >> %s; "
             "(while :; do :; done) & a=$!; (while :; do :; done) & b=$!; "
             "sleep 2; kill $a $b; wait", scenario);
    snprintf(sleepers, sizeof sleepers,
             "echo \"process 0 $$ 1000000000\" >> %s; sleep 2 & sleep 2 & wait", scenario);
    char snap[256], html[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("waited.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("waited.html"));
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 20\n");
    /* A Slurm task's, so that `gpu-tracker job` takes its snapshot. */
    setenv("SLURM_JOB_ID", "78", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_NTASKS", "1", 1);
    struct result r = gt("-q", "-f", "json", "--st", "0.2", "--snapshot", snap, "--report", html,
                         "--", "sh", "-c", spin, NULL);
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_STEP_ID");
    unsetenv("SLURM_PROCID");
    unsetenv("SLURM_NTASKS");
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    json_object *j = parse_or_fail(r.out.data, "gpu waited json");
    if (j) {
        json_object *w = NULL, *v = NULL;
        CHECK(json_object_object_get_ex(j, "gpu_idle", &w) &&
              json_object_object_get_ex(w, "waiting", &w) &&
              json_object_object_get_ex(w, "verdict", &v));
        /* workers first; storage too on a machine whose disks were busy
         * meanwhile (delay accounting on), which is not this test's point */
        CHECK_MSG(v && json_object_array_length(v) >= 1 &&
                  !strcmp(json_object_get_string(json_object_array_get_idx(v, 0)), "workers"),
                  "verdict %s", json_object_to_json_string(w));
        double gpu = jnum(j, "gpu_idle.waiting.gpu_seconds");
        double workers = jnum(j, "gpu_idle.waiting.workers.seconds");
        CHECK_MSG(gpu > 1 && workers >= 0.5 * gpu, "%g s of %g s", workers, gpu);
        CHECK(fabs(jnum(j, "gpu_idle.waiting.waiting_busy_percent") - 20) < 1e-6);
        CHECK(jnum(j, "gpu_idle.waiting.workers.runnable_share") >= GT_GPU_WAIT_SATURATED);
        json_object *cmd = NULL;
        CHECK(json_object_object_get_ex(w, "workers", &cmd) &&
              json_object_object_get_ex(cmd, "command", &cmd) &&
              !strcmp(json_object_get_string(cmd), "sh"));
        json_object_put(j);
    }
    result_free(&r);
    r = gt("recommend", snap, NULL);
    CHECK_MSG(r.status == 0, "recommend: %s", r.err.data);
    CHECK_CONTAINS(r.out.data, "\ngpu advice: more CPU cores per GPU: the GPU waited (20% busy) "
                               "on 2 saturated sh workers at ");
    result_free(&r);
    /* gpu-tracker job says it under the task, and in its JSON. */
    r = gt("job", snap, NULL);
    CHECK_MSG(r.status == 0, "job: %s", r.err.data);
    CHECK_CONTAINS(r.out.data, "\n    GPU waited: more CPU cores per GPU: the GPU waited (20% "
                               "busy) on 2 saturated sh workers at ");
    result_free(&r);
    r = gt("job", snap, "-f", "json", NULL);
    CHECK_CONTAINS(r.out.data, "\"gpu_waited\": \"more CPU cores per GPU: ");
    result_free(&r);
    char *page = slurp(html);
    CHECK_CONTAINS(page, "<li><b>GPU waited for its input:</b> more CPU cores per GPU: the GPU "
                         "waited (20% busy) on 2 saturated sh workers");
    CHECK_CONTAINS(page, "<tr><th>what the GPU waited for</th><td>more CPU cores per GPU");
    free(page);
    /* -f human says it on a line of its own. */
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 20\n");
    r = gt("-q", "-f", "human", "--st", "0.2", "--", "sh", "-c", spin, NULL);
    CHECK_CONTAINS(r.out.data, "\nGPU waited      more CPU cores per GPU: the GPU waited (20% "
                               "busy) on 2 saturated sh workers at ");
    result_free(&r);
    /* gpu_tracker's text: a section of ours after its own and the limits'. */
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 20\n");
    r = gt("-q", "--st", "0.2", "--max-time", "1h", "--", "sh", "-c", spin, NULL);
    const char *limits_at = strstr(r.out.data, "\nLimits:\n");
    const char *waiting_at = strstr(r.out.data, "\nGPU waiting:\n   The GPUs were under 50% "
                                                "busy 100% of the time the job used them\n"
                                                "   Advice: more CPU cores per GPU: ");
    CHECK_MSG(limits_at && waiting_at && limits_at < waiting_at, "the sections: %s", r.out.data);
    result_free(&r);
    /* The converse: a busy GPU, or workers that sleep, is no verdict. */
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 90\n");
    r = gt("-q", "-f", "json", "--st", "0.2", "--", "sh", "-c", spin, NULL);
    j = parse_or_fail(r.out.data, "busy gpu json");
    if (j) {
        CHECK(jnum(j, "gpu_idle.waiting.gpu_seconds") > 1);
        CHECK(jnum(j, "gpu_idle.waiting.waiting_seconds") == 0);
        CHECK(waiting_verdicts(j) == 0);
        json_object_put(j);
    }
    result_free(&r);
    fputs_file(scenario, "device GPU-1111 Fake-H100 80000000000 9000000000 20\n");
    r = gt("-q", "-f", "json", "--st", "0.2", "--", "sh", "-c", sleepers, NULL);
    j = parse_or_fail(r.out.data, "sleeping workers json");
    if (j) {
        CHECK(jnum(j, "gpu_idle.waiting.waiting_seconds") > 1);
        CHECK(jnum(j, "gpu_idle.waiting.workers.seconds") == 0);
        CHECK(waiting_verdicts(j) == 0);
        json_object_put(j);
    }
    result_free(&r);
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    unsetenv("FAKE_NVML_SCENARIO");
}

/* In a PID namespace of its own (a container), with a procfs of that
 * namespace: the driver's PIDs are the host's, so per-process GPU figures
 * are marked as not available, with why. With the host's procfs instead
 * (unshare without --mount-proc), /proc/self is not us: every PID there
 * names another process, and tracking must refuse rather than follow the
 * host's PID 1. A sub-test of its own: it needs root and unshare. */
static void require_pid_namespaces(void)
{
    if (geteuid() != 0 || access("/usr/bin/unshare", X_OK) != 0)
        SKIP_TEST("the PID namespace tests need root and /usr/bin/unshare");
    if (system("/usr/bin/unshare --pid --fork --mount-proc true >/dev/null 2>&1") != 0)
        SKIP_TEST("this machine does not let us make a PID namespace (unshare --pid failed)");
}

static void test_pid_namespace(void)
{
    /* The driver lists a process by its host PID (this test's own): inside
     * the namespace no process of ours holds the GPU's device file, so it
     * cannot be matched, is not counted, and the JSON says so. */
    const char *scenario = use_fake_nvml_gpu();
    FILE *sf = fopen(scenario, "a");
    fprintf(sf, "process 0 %d 1000000000\n", (int)getpid());
    fclose(sf);
    struct result r;
    {
        char *ns_argv[] = {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", GT_BIN,
                           "--disable-logs", "-f", "json", "--", WORKLOAD_BIN, "exit", "0", NULL};
        struct child ns = spawn(ns_argv, 0);
        memset(&r, 0, sizeof r);
        finish(&ns, &r);
        CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
        json_object *nj = parse_or_fail(r.out.data, "unshare stdout");
        json_object *gr = NULL, *ids = NULL, *v = NULL;
        CHECK(nj && json_object_object_get_ex(nj, "gpu_run", &gr) &&
              json_object_object_get_ex(gr, "process_ids", &ids));
        CHECK(ids && json_object_object_get_ex(ids, "pid_namespace", &v) &&
              json_object_get_boolean(v));
        CHECK(ids && json_object_object_get_ex(ids, "untranslated", &v) &&
              json_object_get_int(v) == 1);
        CHECK(ids && json_object_object_get_ex(ids, "reason", &v) &&
              strstr(json_object_get_string(v), "could not be matched to ours"));
        json_object *mg = NULL;
        CHECK(nj && json_object_object_get_ex(nj, "max_gpu_ram", &mg) &&
              json_object_object_get_ex(mg, "combined", &v) && json_object_get_double(v) == 0);
        if (nj)
            json_object_put(nj);
        result_free(&r);
    }
    /* --pid 1 with --on-limit kill inside the namespace: PID 1 started
     * gpu-tracker (its tree holds it and the pipeline's cat; it ignores
     * SIGKILL): refused in one line, before tracking, cat unharmed. */
    {
        char script[600];
        snprintf(script, sizeof script, "%s -q --pid 1 --on-limit kill --max-time 0.3 | cat; "
                 "echo \"cat=$?\"", GT_BIN);
        char *ns_argv[] = {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "/bin/sh", "-c",
                           script, NULL};
        struct child ns = spawn(ns_argv, 0);
        memset(&r, 0, sizeof r);
        finish_within(&ns, &r, 60, "--pid 1 --on-limit kill in a PID namespace");
        CHECK_STR(r.out.data, "cat=0\n");
        CHECK_STR(r.err.data, "gpu-tracker: on_limit kill: cannot signal the tracked tree: "
                              "process 1 started the tracking program (its tree holds the "
                              "tracking program and whatever else that process runs, a "
                              "pipeline's other commands among them); track another process, "
                              "or warn\n");
        result_free(&r);
    }
    /* The host's /proc seen from inside: refused, in one line, nothing run. */
    const char *marker = tmp_path("ns-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    char *host_argv[] = {"/usr/bin/unshare", "--pid", "--fork", GT_BIN, "-e", touch, NULL};
    r = run_argv(host_argv);
    CHECK_MSG(r.status == 1, "status %d", r.status);
    CHECK_STR(r.out.data, "");
    CHECK_CONTAINS(r.err.data, "gpu-tracker: /proc belongs to another PID namespace");
    CHECK(access(marker, F_OK) != 0);
    result_free(&r);
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    unsetenv("FAKE_NVML_SCENARIO");
}

static void test_output_file(void)
{
    const char *out = tmp_path("out.txt");
    struct result r = gt("--disable-logs", "-o", out, "--tu", "seconds", "-e", WORKLOAD_BIN " exit 0",
                         NULL);
    CHECK(r.status == 0);
    CHECK_STR(r.out.data, "Resource tracking complete. Process completed with status code: 0\n");
    char *text = slurp(out);
    CHECK(text && !strncmp(text, "Max RAM:\n", 9));
    CHECK_CONTAINS(text, "Compute time:\n   Unit: seconds\n   Time: ");
    free(text);
    result_free(&r);

    /* The output directory vanishes during the run: the summary is not lost. */
    const char *dir = tmp_path("gone");
    mkdir(dir, 0755);
    char file[300], cmd[400];
    snprintf(file, sizeof file, "%s/out.txt", dir);
    snprintf(cmd, sizeof cmd, "rmdir %s", dir);
    r = gt("--disable-logs", "-o", file, "-e", cmd, NULL);
    CHECK(r.status == 1); /* the command succeeded, the output did not */
    CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot write '");
    CHECK_CONTAINS(r.err.data, "the summary follows on standard error\n");
    CHECK_CONTAINS(r.err.data, "Max RAM:\n");
    result_free(&r);

    /* A full disk (/dev/full): a clear error, a non-zero exit, the summary on
     * stderr, and /dev/full is still the device (written in place, never
     * replaced by a renamed temporary file). */
    r = gt("--disable-logs", "-o", "/dev/full", "--", WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot write '/dev/full': No space left on device; "
                               "the summary follows on standard error\n");
    CHECK_CONTAINS(r.err.data, "Max RAM:\n");
    struct stat sb;
    CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
    result_free(&r);
    /* ... and the command's own failure status is kept. */
    r = gt("--disable-logs", "-o", "/dev/full", "--", WORKLOAD_BIN, "exit", "3", NULL);
    CHECK(r.status == 3);
    result_free(&r);
    /* stdout itself on /dev/full. */
    char sh[600];
    snprintf(sh, sizeof sh, "%s --disable-logs -- %s exit 0 >/dev/full", GT_BIN, WORKLOAD_BIN);
    char *sh_argv[] = {"/bin/sh", "-c", sh, NULL};
    r = run_argv(sh_argv);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot write to standard output: No space left on "
                               "device; the summary follows on standard error\n");
    CHECK_CONTAINS(r.err.data, "Compute time:\n");
    result_free(&r);
}

/* The backup: placed with --backup and named at the start; it says which
 * run it is, and show tells a run still going on from one that was killed;
 * --no-backup keeps none; a malformed identity is said and the summary
 * still shown. */
/* --benchmark-tsv: a row a run under one header, written back through the
 * output rules; a file that is not one of ours, or a directory, is refused
 * before the command runs and left as it was. */
static void test_benchmark_tsv(void)
{
    char tsv[256], other[256];
    snprintf(tsv, sizeof tsv, "%s", tmp_path("bench.tsv"));
    snprintf(other, sizeof other, "%s", tmp_path("notes.tsv"));
    unlink(tsv);
    for (int i = 0; i < 2; i++) {
        struct result r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", tsv, "--", "true", NULL);
        CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
        result_free(&r);
    }
    char *text = slurp(tsv);
    CHECK(text && strncmp(text, "s\th:m:s\tmax_rss\t", 16) == 0);
    int lines = 0;
    for (const char *c = text; c && *c; c++)
        lines += *c == '\n';
    CHECK_MSG(lines == 3, "%d lines in [%s]", lines, text ? text : "");
    CHECK(text && strstr(text + 1, "s\th:m:s") == NULL); /* the header once */
    free(text);
    fputs_file(other, "my notes\n");
    struct result r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", other, "--", "sh", "-c",
                         "echo ran", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.out.data, ""); /* refused before the command ran */
    CHECK_CONTAINS(r.err.data, "is not a benchmark file of gpu-tracker's (its first line is not "
                               "the header s, h:m:s, ..., max_gpu_ram, mean_gpu_load): give a "
                               "new file\n");
    result_free(&r);
    text = slurp(other);
    CHECK_STR(text, "my notes\n");
    free(text);
    r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", tmp_path(""), "--", "true", NULL);
    CHECK(r.status == 2 && strchr(r.err.data, '\n') == r.err.data + strlen(r.err.data) - 1);
    result_free(&r);

    /* The attack: during the run the file's name becomes a link (another
     * user's, where we are root) to a root-only file of benchmark rows.
     * Its rows are not read through the link; the link is replaced by a
     * new file with the header and this run's row, and the run succeeds. */
    char secret[256], planted[256], plant[1400];
    snprintf(secret, sizeof secret, "%s", tmp_path("secret.tsv"));
    snprintf(planted, sizeof planted, "%s", tmp_path("planted.tsv"));
    fputs_file(secret, "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load"
                       "\tcpu_time\tmax_gpu_ram\tmean_gpu_load\nSECRET ROW\n");
    CHECK(chmod(secret, 0600) == 0);
    unlink(planted);
    r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", planted, "--", "true", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    snprintf(plant, sizeof plant, "rm %s && ln -s %s %s && { chown -h 65534 %s 2>/dev/null || "
             "true; }", planted, secret, planted, planted);
    r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", planted, "--", "sh", "-c", plant, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    char want[900];
    snprintf(want, sizeof want, "gpu-tracker: warning: --benchmark-tsv file '%s' was replaced "
             "during the run by a link or another user's file: not read, replaced by a new file "
             "with this run's row\n", planted);
    CHECK_STR(r.err.data, want);
    result_free(&r);
    struct stat st;
    CHECK(lstat(planted, &st) == 0 && S_ISREG(st.st_mode));
    text = slurp(planted);
    lines = 0;
    for (const char *c = text; c && *c; c++)
        lines += *c == '\n';
    CHECK_MSG(text && lines == 2 && !strstr(text, "SECRET") && !strncmp(text, "s\th:m:s\t", 8),
              "after the planted link: [%s]", text ? text : "");
    free(text);
    text = slurp(secret);
    CHECK(text && strstr(text, "SECRET ROW\n")); /* the link's target untouched */
    free(text);
    /* In a directory others may write to, another user's file put at the
     * name during the run is not read either: replaced, the row kept. */
    if (geteuid() == 0) {
        char shared_dir[300], theirs[400], swap[2000];
        snprintf(shared_dir, sizeof shared_dir, "%s", tmp_path("shared-bench"));
        mkdir(shared_dir, 0777);
        CHECK(chmod(shared_dir, 01777) == 0);
        snprintf(theirs, sizeof theirs, "%s/b.tsv", shared_dir);
        unlink(theirs);
        r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", theirs, "--", "true", NULL);
        CHECK(r.status == 0);
        result_free(&r);
        snprintf(swap, sizeof swap, "rm %s && cp %s %s && chown 65534 %s", theirs, secret,
                 theirs, theirs);
        r = gt("-q", "-o", "/dev/null", "--benchmark-tsv", theirs, "--", "sh", "-c", swap, NULL);
        CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
        CHECK_CONTAINS(r.err.data, "was replaced during the run by a link or another user's file");
        result_free(&r);
        text = slurp(theirs);
        CHECK_MSG(text && !strstr(text, "SECRET") && strstr(text, "\n") != strrchr(text, '\n') &&
                      strchr(strchr(text, '\n') + 1, '\n') == text + strlen(text) - 1,
                  "another user's file at the name: [%s]", text ? text : "");
        free(text);
        CHECK(lstat(theirs, &st) == 0 && st.st_uid == 0);
    }
}

static void test_backup_file(void)
{
    const char *backup = tmp_path("run-backup.json");
    char *argv[] = {GT_BIN, "--backup", (char *)backup, "--st", "0.1", "--", WORKLOAD_BIN,
                    "wait-signal", NULL};
    struct child g = spawn(argv, 0);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.out, &r.out, "ready\n") == 0);
    /* The backup is written at the first sample after the start (not named
     * on standard error: the user gave its name). */
    for (int tries = 0; tries < 600 && access(backup, F_OK) != 0; tries++)
        usleep(100 * 1000); /* a deadline to fail instead of hanging, not a timing check */
    CHECK(access(backup, F_OK) == 0);
    pid_t command = first_child(g.pid);
    CHECK(command > 0);

    struct result s = gt("show", backup, NULL);
    CHECK(s.status == 0);
    CHECK_CONTAINS(s.out.data, "Max RAM:");
    char want[600];
    snprintf(want, sizeof want, "gpu-tracker: '%s' is the backup of a run still going on (pid %d, "
             "last update ", backup, (int)command);
    CHECK_MSG(strncmp(s.err.data, want, strlen(want)) == 0, "show said [%s]", s.err.data);
    CHECK_CONTAINS(s.err.data, " ago, command: " WORKLOAD_BIN " wait-signal): the figures are "
                               "those up to its last update\n");
    result_free(&s);

    /* gpu-tracker killed: the file stays, from a run that did not finish. */
    kill(g.pid, SIGKILL);
    if (command > 0)
        kill(command, SIGTERM);
    finish(&g, &r);
    CHECK(r.status == 128 + SIGKILL);
    result_free(&r);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    s = gt("show", backup, NULL);
    CHECK(s.status == 0);
    snprintf(want, sizeof want, "gpu-tracker: '%s' is the backup of a run that did not finish "
             "(pid %d on %s, started ", backup, (int)command, host);
    CHECK_MSG(strncmp(s.err.data, want, strlen(want)) == 0, "show said [%s]", s.err.data);
    CHECK_CONTAINS(s.err.data, " ago, command: " WORKLOAD_BIN " wait-signal): the figures are "
                               "those up to its last update\n");
    CHECK_CONTAINS(s.out.data, "Max RAM:");
    result_free(&s);

    /* A malformed identity: said, and the summary shown all the same. */
    char *text = slurp(backup);
    CHECK(text && strstr(text, "\"pid\":") != NULL);
    if (text && strstr(text, "\"pid\":")) {
        char *at = strstr(text, "\"pid\":");
        const char *bad = tmp_path("bad-identity.json");
        FILE *f = fopen(bad, "w");
        fprintf(f, "%.*s\"pid\":\"x\",\"was\":%s", (int)(at - text), text, at + 6);
        fclose(f);
        s = gt("show", bad, NULL);
        CHECK(s.status == 0);
        snprintf(want, sizeof want, "gpu-tracker: warning: '%s': backup.pid is missing or not a "
                 "process ID; the summary follows all the same\n", bad);
        CHECK_MSG(strncmp(s.err.data, want, strlen(want)) == 0, "show said [%s]", s.err.data);
        CHECK_CONTAINS(s.out.data, "Max RAM:");
        result_free(&s);
    }
    free(text);
    unlink(backup);

    /* --no-backup: none kept, none named. */
    r = gt("--no-backup", "--", "true", NULL);
    CHECK(r.status == 0);
    CHECK(strstr(r.err.data, "results so far") == NULL);
    result_free(&r);
    r = gt("--backup", "", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: empty file name for --backup; give a file, or --no-backup "
                       "for none\n");
    r = gt("--backup", backup, "--no-backup", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: give --backup FILE or --no-backup, not both\n");
}

/* Output names from Slurm's identity: each task of a job step writes its
 * own files (`srun gpu-tracker --snapshot run-%j-%t.json.gz ...`). */
/* gpu-tracker job: a job's tasks from their snapshots (made here with
 * Slurm's variables set, as srun sets them), what was asked against what
 * was used; and each way a job cannot be found or read. */
static void test_job_command(void)
{
    char dir[300], snap[400];
    snprintf(dir, sizeof dir, "%s/job-77", tmpdir);
    mkdir(dir, 0755);
    snprintf(snap, sizeof snap, "%s/0-%%t.json.gz", dir);
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_NTASKS", "2", 1);
    setenv("SLURM_CPUS_PER_TASK", "2", 1);
    setenv("SLURM_MEM_PER_NODE", "1G", 1);
    setenv("SLURMD_NODENAME", "node07", 1);
    const char *ranks[] = {"0", "1"};
    for (int i = 0; i < 2; i++) {
        setenv("SLURM_PROCID", ranks[i], 1);
        struct result r = gt("-q", "--disable-logs", "--st", "0.05", "--no-backup", "-o",
                             "/dev/null", "--snapshot", snap, "--", WORKLOAD_BIN, "hold", "48",
                             "0.2", NULL);
        CHECK_MSG(r.status == 0, "task %s: %d %s", ranks[i], r.status, r.err.data);
        result_free(&r);
    }
    const char *vars[] = {"SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_NTASKS", "SLURM_CPUS_PER_TASK",
                          "SLURM_MEM_PER_NODE", "SLURMD_NODENAME", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);

    struct result r = gt("job", dir, NULL);
    CHECK_MSG(r.status == 0, "job: %d %s", r.status, r.err.data);
    const char *want[] = {"Job ID: 77\n", "Tasks: 2 on 1 node\n", "Exit status: 0 (the largest)\n",
                          "CPUs: 4 requested; ", "Memory: 1024.0 MiB requested; ",
                          "GPUs: none given, none used\n", "  task 0 of step 0 (node07): exit 0",
                          "  task 1 of step 0 (node07): exit 0", "held by gt-workload (pid ",
                          "Next time: --ntasks=2 --cpus-per-task="};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        CHECK_MSG(strstr(r.out.data, want[i]), "job's text lacks '%s':\n%s", want[i], r.out.data);
    result_free(&r);
    r = gt("job", dir, "-f", "json", NULL);
    json_object *o = r.status == 0 ? json_tokener_parse(r.out.data) : NULL, *x, *y;
    CHECK_MSG(o, "job -f json: %d %s", r.status, r.err.data);
    CHECK(o && json_object_object_get_ex(o, "requested", &x) &&
          json_object_object_get_ex(x, "cpus", &y) && json_object_get_int(y) == 4 &&
          json_object_object_get_ex(x, "memory_mib", &y) && json_object_get_double(y) == 1024);
    /* both tasks held 48 MiB: the peak, summed, is at least that twice */
    CHECK(o && json_object_object_get_ex(o, "used", &x) &&
          json_object_object_get_ex(x, "memory_peak_mib", &y) && json_object_get_double(y) >= 96);
    json_object_put(o);
    result_free(&r);
    r = gt("job", tmp_path("job-77/0-1.json.gz"), tmp_path("job-77/0-0.json.gz"), "-f", "human",
           NULL);
    CHECK_MSG(r.status == 0 && strstr(r.out.data, "Job 77\n") && strstr(r.out.data, " MiB"),
              "job FILES -f human: %d %s %s", r.status, r.out.data, r.err.data);
    result_free(&r);

    /* What cannot be a job. */
    r = gt("job", NULL);
    check_error(&r, 2, "gpu-tracker: usage: gpu-tracker job JOBID|DIR|SNAPSHOT... [-f "
                       "text|human|json] [--user NAME] [--plugstack FILE] [--max-rows N]\n");
    r = gt("job", dir, "-f", "xml", NULL);
    check_error(&r, 2, "gpu-tracker: unknown format 'xml' for job; valid formats: text, human, "
                       "json\n");
    r = gt("job", dir, "--bogus", NULL);
    CHECK(r.status == 2 && strstr(r.err.data, "unknown option '--bogus' for job"));
    result_free(&r);
    char want_err[700];
    snprintf(want_err, sizeof want_err, "gpu-tracker: no job, directory or snapshot '%s/none': "
             "give a job id, the directory of its task snapshots, or the snapshots\n", tmpdir);
    r = gt("job", tmp_path("none"), NULL);
    check_error(&r, 1, want_err);
    char empty[300];
    snprintf(empty, sizeof empty, "%s/empty-job", tmpdir);
    mkdir(empty, 0755);
    snprintf(want_err, sizeof want_err, "gpu-tracker: '%s' holds no snapshot (*.json.gz or "
             "*.json)\n", empty);
    r = gt("job", empty, NULL);
    check_error(&r, 1, want_err);
    /* more files than a job has tasks: refused before any is read */
    char many[300], name[400];
    snprintf(many, sizeof many, "%s/many-job", tmpdir);
    mkdir(many, 0755);
    for (int i = 0; i <= GT_MERGE_MAX_TASKS; i++) {
        snprintf(name, sizeof name, "%s/%d.json", many, i);
        FILE *made = fopen(name, "w");
        if (made)
            fclose(made);
    }
    r = gt("job", many, NULL);
    check_error(&r, 1, "gpu-tracker: more than 4096 snapshots, a job's most tasks: give the "
                       "directory of one job\n");
    /* by id: where plugstack.conf says the plugin leaves snapshots */
    char plugstack[300], line[900];
    snprintf(plugstack, sizeof plugstack, "%s/plugstack.conf", tmpdir);
    snprintf(line, sizeof line, "# the site's\noptional /usr/lib/slurm/other.so\n"
             "optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_gputracker.so default=on "
             "output=%s/job-%%j/%%s-%%t.json.gz\n", tmpdir);
    FILE *f = fopen(plugstack, "w");
    if (f) {
        fputs(line, f);
        fclose(f);
    }
    chmod(plugstack, 0644);
    r = gt("job", "77", "--plugstack", plugstack, "--user", "someone", NULL);
    CHECK_MSG(r.status == 0 && strstr(r.out.data, "Job ID: 77\n"), "job 77 by id: %d %s",
              r.status, r.err.data);
    result_free(&r);
    r = gt("job", "78", "--plugstack", plugstack, "--user", "someone", NULL);
    CHECK(r.status == 1 && strstr(r.err.data, "no snapshot of job 78 of user someone where the "
                                              "plugin leaves them"));
    result_free(&r);
    chmod(plugstack, 0666); /* anyone could have written it: not read */
    r = gt("job", "77", "--plugstack", plugstack, "--user", "someone", NULL);
    CHECK_MSG(r.status == 1 && strstr(r.err.data, "writable"), "a plugstack others may write: %s",
              r.err.data);
    result_free(&r);
    f = fopen(plugstack, "w");
    if (f) {
        fputs("optional /usr/lib/slurm/other.so\n", f);
        fclose(f);
    }
    chmod(plugstack, 0644);
    snprintf(want_err, sizeof want_err, "gpu-tracker: '%s' does not load spank_gputracker.so: "
             "give the directory of the job's snapshots instead of its id (or --plugstack "
             "FILE)\n", plugstack);
    r = gt("job", "77", "--plugstack", plugstack, NULL);
    check_error(&r, 1, want_err);
}

static void test_job_names(void)
{
    char out[300], snap[300], tf[300], backup[300], report[300];
    snprintf(out, sizeof out, "%s/sum-%%j-%%t.txt", tmpdir);
    snprintf(snap, sizeof snap, "%s/run-%%j-%%t.json.gz", tmpdir);
    snprintf(tf, sizeof tf, "%s/t-%%j-%%n.csv", tmpdir);
    snprintf(backup, sizeof backup, "%s/backup-%%j-%%t-%%p.json", tmpdir);
    snprintf(report, sizeof report, "%s/r-%%j-%%t-100%%%%.html", tmpdir);
    setenv("SLURM_JOB_ID", "8123", 1);
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURMD_NODENAME", "node07", 1);
    struct result r = gt("-q", "--disable-logs", "-o", out, "--snapshot", snap, "--tf", tf,
                         "--backup", backup, "--report", report, "--", WORKLOAD_BIN, "burn",
                         "0.1", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    const char *made[] = {"sum-8123-1.txt", "run-8123-1.json.gz", "t-8123-node07.csv",
                          "r-8123-1-100%.html"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++)
        CHECK_MSG(access(tmp_path(made[i]), F_OK) == 0, "%s was not written", made[i]);
    CHECK(access(tmp_path("sum-%j-%t.txt"), F_OK) != 0);
    /* The snapshot says which job and task it is. */
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(tmp_path("run-8123-1.json.gz"), 0, &s) == GT_OK && s);
    if (s) {
        CHECK_STR(s->job.scheduler, "slurm");
        CHECK_STR(s->job.job_id, "8123");
        CHECK_STR(s->job.task_rank, "1");
        CHECK_STR(s->job.node, "node07");
        gt_snapshot_free(s);
    }

    /* A node named ".." (or ".") by the environment would climb out of
     * runs/sub/%n/out: refused before anything runs. */
    static const char *const dots[] = {"..", "."};
    for (size_t i = 0; i < 2; i++) {
        setenv("SLURMD_NODENAME", dots[i], 1);
        char climb[600], want[1200];
        snprintf(climb, sizeof climb, "%s/runs/sub/%%n/out", tmpdir);
        r = gt("-q", "-o", climb, "--", "touch", tmp_path("climbed"), NULL);
        snprintf(want, sizeof want, "gpu-tracker: -o '%s': %%n is '%s' here, a directory's name, "
                 "not one a file may take (from the environment); use %%p\n", climb, dots[i]);
        check_error(&r, 2, want);
        CHECK(access(tmp_path("climbed"), F_OK) != 0);
    }
    setenv("SLURMD_NODENAME", "node07", 1);

    /* Outside Slurm the run still runs: %j stands for local-DATE-TIME-PID
     * (no two runs on a host share it), %t for 0, said once. */
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_PROCID");
    unsetenv("SLURMD_NODENAME");
    const char *marker = tmp_path("ran-with-%j");
    char touch[400];
    snprintf(touch, sizeof touch, "touch %s", marker);
    r = gt("-q", "-o", out, "-e", touch, NULL);
    CHECK_MSG(r.status == 0, "%d: %s", r.status, r.err.data);
    CHECK(access(marker, F_OK) == 0);
    unlink(marker);
    char local[64] = "";
    const char *became = strstr(r.err.data, "%j became ");
    CHECK_MSG(became && sscanf(became, "%%j became %63[^,]", local) == 1 &&
                  !strncmp(local, "local-", 6),
              "stderr: %s", r.err.data);
    CHECK_MSG(!strncmp(r.err.data, "gpu-tracker: warning: not in a Slurm job step: %j became local-",
                       63) && strstr(r.err.data, ", %t 0 (docs/cli.md") &&
                  strchr(r.err.data, '\n') == r.err.data + strlen(r.err.data) - 1,
              "one line: %s", r.err.data);
    char expected[512];
    snprintf(expected, sizeof expected, "%s/sum-%s-0.txt", tmpdir, local);
    CHECK_MSG(access(expected, F_OK) == 0, "%s was not written", expected);
    unlink(expected);
    result_free(&r);
    /* merge: one task's snapshot is a job of one task; a run outside Slurm
     * is not a task of any job; -o is needed. */
    char job[300], lone[300], want[1024];
    snprintf(job, sizeof job, "%s/job.json.gz", tmpdir);
    snprintf(lone, sizeof lone, "%s/lone.json.gz", tmpdir);
    r = gt("merge", tmp_path("run-8123-1.json.gz"), "-o", job, NULL);
    snprintf(want, sizeof want, "merged 1 task of job 8123 into %s\n", job);
    CHECK_MSG(r.status == 0 && !strcmp(r.out.data, want), "%d %s %s", r.status, r.out.data,
              r.err.data);
    result_free(&r);
    r = gt("-q", "--disable-logs", "--no-backup", "--snapshot", lone, "-o", "/dev/null", "--",
           WORKLOAD_BIN, "burn", "0.05", NULL);
    result_free(&r);
    r = gt("merge", job, lone, "-o", tmp_path("bad.json.gz"), NULL);
    snprintf(want, sizeof want, "gpu-tracker: '%s' was not written in a Slurm job (its snapshot "
             "has no job id): merge joins the task snapshots of one job\n", lone);
    check_error(&r, 1, want);
    CHECK(access(tmp_path("bad.json.gz"), F_OK) != 0);
    r = gt("merge", job, NULL);
    check_error(&r, 2, "gpu-tracker: merge writes a snapshot: give its name with -o JOB.json.gz\n");
    /* Tasks that together pass the rows a reader takes (here --max-rows
     * 300; 1,000,000 by default, the same check): the job is written whole,
     * and merge says how to read it back (it said nothing, and stats then
     * refused the file). */
    char tasks[2][300], big_job[300];
    for (int t = 0; t < 2; t++) {
        gt_snapshot task_snap;
        memset(&task_snap, 0, sizeof task_snap);
        snprintf(task_snap.usage.max_ram.unit, sizeof task_snap.usage.max_ram.unit, "gigabytes");
        snprintf(task_snap.usage.max_gpu_ram.unit, sizeof task_snap.usage.max_gpu_ram.unit, "gigabytes");
        snprintf(task_snap.usage.compute_time.unit, sizeof task_snap.usage.compute_time.unit, "hours");
        task_snap.format_version = GT_SNAPSHOT_FORMAT;
        task_snap.interval = 1;
        task_snap.start_time = 1.7e9;
        task_snap.stop_time = 1.7e9 + 200;
        snprintf(task_snap.job.scheduler, sizeof task_snap.job.scheduler, "slurm");
        snprintf(task_snap.job.job_id, sizeof task_snap.job.job_id, "9100");
        snprintf(task_snap.job.task_rank, sizeof task_snap.job.task_rank, "%d", t);
        gt_process_row rows[200];
        memset(rows, 0, sizeof rows);
        for (int i = 0; i < 200; i++)
            rows[i] = (gt_process_row){.timestamp = 1.7e9 + i + 1, .pid = 100 + t, .memory = 1000};
        task_snap.series.interval = 1;
        task_snap.series.start_time = 1.7e9;
        task_snap.series.nprocess = 200;
        task_snap.series.process = rows;
        snprintf(tasks[t], sizeof tasks[t], "%s/task-%d.json.gz", tmpdir, t);
        CHECK_MSG(gt_snapshot_write(&task_snap, GT_SNAPSHOT_GPU_TRACKER, tasks[t]) == GT_OK, "%s",
                  gt_last_error());
    }
    snprintf(big_job, sizeof big_job, "%s/big-job.json.gz", tmpdir);
    /* The tasks share the merge's allowance of rows as they share the
     * merged file's when it is read back: 2 x 200 rows need 400. */
    r = gt("merge", "--max-rows", "300", tasks[0], tasks[1], "-o", big_job, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot read '%s': with the snapshots before it, "
             "this command would read more than its allowance of 300 rows a series "
             "(docs/snapshot.md, \"Limits\"; --max-rows raises it)\n", tasks[1]);
    CHECK_MSG(r.status == 1 && strcmp(r.err.data, want) == 0,
              "merge past its allowance: %d %s", r.status, r.err.data);
    result_free(&r);
    r = gt("merge", "--max-rows", "400", tasks[0], tasks[1], "-o", big_job, NULL);
    CHECK_MSG(r.status == 0 && r.err.len == 0, "merge: %d %s", r.status, r.err.data);
    result_free(&r);
    r = gt("stats", "--max-rows", "300", big_job, NULL);
    CHECK(r.status == 1);
    result_free(&r);
    r = gt("stats", "--max-rows", "400", big_job, NULL);
    CHECK_MSG(r.status == 0, "stats --max-rows 400: %s", r.err.data);
    result_free(&r);
    /* Under the reader's bound: nothing to say. */
    r = gt("merge", tasks[0], tasks[1], "-o", big_job, NULL);
    CHECK_MSG(r.status == 0 && r.err.len == 0, "%d %s", r.status, r.err.data);
    result_free(&r);
    r = gt("--snapshot", "x-%q.json.gz", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --snapshot 'x-%q.json.gz': unknown field '%q' in the name; "
                       "valid fields are %j (job), %a (array task), %t (task rank), %n (node), "
                       "%h (host), %p (gpu-tracker's PID) and %% (a '%')\n");
}

/* Without --nec, the expected cores are those the job may use (here its
 * CPU affinity, as a scheduler's cgroup cpuset gives it), not the node's. */
static void test_expected_cores_of_job(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access("/usr/bin/taskset", X_OK) != 0) {
        printf("test_cli: expected cores of a job: not checked (one CPU, or no taskset)\n");
        return;
    }
    char *argv[] = {"/usr/bin/taskset", "-c", "0", GT_BIN, "-f", "json", "--no-backup",
                    "--disable-logs", "--", WORKLOAD_BIN, "burn", "0.2", NULL};
    struct result r = run_argv(argv);
    json_object *j = parse_or_fail(r.out.data, "the summary");
    CHECK_MSG(r.status == 0 && jnum(j, "cpu_utilization.n_expected_cores") == 1 &&
                  jnum(j, "cpu_utilization.system_core_count") >= 2,
              "status %d: %s", r.status, r.out.data);
    /* the hardware percent is over that one core */
    CHECK(jnum(j, "cpu_utilization.main.max_hardware_percent") ==
          jnum(j, "cpu_utilization.main.max_sum_percent"));
    if (j)
        json_object_put(j);
    result_free(&r);
    char *with_nec[] = {"/usr/bin/taskset", "-c", "0", GT_BIN, "-f", "json", "--no-backup",
                        "--disable-logs", "--nec", "2", "--", WORKLOAD_BIN, "burn", "0.1", NULL};
    r = run_argv(with_nec);
    j = parse_or_fail(r.out.data, "the summary");
    CHECK(jnum(j, "cpu_utilization.n_expected_cores") == 2); /* --nec still decides */
    if (j)
        json_object_put(j);
    result_free(&r);
}

/* A line of /proc/self/status-like text: the value after "key:\t". */
static void status_field(const char *text, const char *key, char *out)
{
    out[0] = '\0';
    const char *at = text ? strstr(text, key) : NULL;
    if (at && sscanf(at + strlen(key), ":\t%63s", out) != 1)
        out[0] = '\0';
}

/* How the command is started: as execvp would start it (PATH searched in
 * order, a file there that may not be run passed over, a script without
 * #! run by /bin/sh with its arguments), and with the signal mask, ignored
 * signals and descriptor limit it would have had without us. */
/* The sampling thread is made half an interval after the baseline: a
 * command that ends sooner never has one beside it (the cost of a short
 * command, docs/performance.md); one that runs on sees it come. */
static void test_sampler_thread(void)
{
    struct result r = gt("-q", "-o", "/dev/null", "--st", "60", "--", "sh", "-c",
                         "cat /proc/$PPID/task/*/comm", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_MSG(r.out.data && strstr(r.out.data, "gpu-tracker") && !strstr(r.out.data, "gt:sampler"),
              "gpu-tracker's threads while a short command runs: [%s]", r.out.data);
    result_free(&r);
    /* A deadline (30 s), not a timing: the thread is due after 0.1 s. */
    r = gt("-q", "-o", "/dev/null", "--st", "0.2", "--", "sh", "-c",
           "for i in $(seq 600); do grep -qx gt:sampler /proc/$PPID/task/*/comm && echo made && "
           "exit 0; sleep 0.05; done; exit 1", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.out.data, "made\n");
    result_free(&r);
}

static void test_command_start(void)
{
    char dir_a[300], dir_b[300], probe_a[400], probe_b[400], path[1000];
    snprintf(dir_a, sizeof dir_a, "%s", tmp_path("path-a"));
    snprintf(dir_b, sizeof dir_b, "%s", tmp_path("path-b"));
    CHECK(mkdir(dir_a, 0755) == 0 || errno == EEXIST);
    CHECK(mkdir(dir_b, 0755) == 0 || errno == EEXIST);
    snprintf(probe_a, sizeof probe_a, "%s/gt-start-probe", dir_a);
    snprintf(probe_b, sizeof probe_b, "%s/gt-start-probe", dir_b);
    fputs_file(probe_a, "#!/bin/sh\necho from-a\n");
    CHECK(chmod(probe_a, 0644) == 0); /* there, but not to be run */
    fputs_file(probe_b, "echo from-b \"$1\"\n"); /* no #! line */
    CHECK(chmod(probe_b, 0755) == 0);
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    snprintf(path, sizeof path, "%s:%s:/usr/bin:/bin", dir_a, dir_b);
    setenv("PATH", path, 1);
    struct result r = gt("-q", "-o", "/dev/null", "--", "gt-start-probe", "one", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.out.data, "from-b one\n");
    result_free(&r);
    setenv("PATH", dir_a, 1); /* only the one that may not be run */
    r = gt("-q", "-o", "/dev/null", "--", "gt-start-probe", NULL);
    check_error(&r, 127, "gpu-tracker: cannot run 'gt-start-probe': Permission denied\n");
    if (saved)
        setenv("PATH", saved, 1);
    else
        unsetenv("PATH");
    free(saved);
    r = gt("-q", "-o", "/dev/null", "--", probe_a, NULL);
    char want[600];
    snprintf(want, sizeof want, "gpu-tracker: cannot run '%s': Permission denied\n", probe_a);
    check_error(&r, 127, want);

    /* What the command inherits: ours as the test has them (gpu-tracker
     * blocks signals and ignores SIGPIPE for itself, and raises its own
     * descriptor limit). The standard signals only: a sanitizer's runtime
     * takes libc's real-time ones (32, 33) for itself, in us and in
     * gpu-tracker. */
    char *own = slurp("/proc/self/status");
    r = gt("-q", "-o", "/dev/null", "--", "cat", "/proc/self/status", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    const char *keys[] = {"SigBlk", "SigIgn"};
    for (size_t i = 0; i < 2; i++) {
        char mine[64], theirs[64];
        status_field(own, keys[i], mine);
        status_field(r.out.data, keys[i], theirs);
        const unsigned long long standard = (1ULL << 31) - 1; /* signals 1 to 31 */
        CHECK_MSG(mine[0] && theirs[0] &&
                      (strtoull(mine, NULL, 16) & standard) ==
                          (strtoull(theirs, NULL, 16) & standard),
                  "%s: the command's %s, ours %s", keys[i], theirs, mine);
    }
    free(own);
    result_free(&r);
    struct rlimit lim;
    CHECK(getrlimit(RLIMIT_NOFILE, &lim) == 0);
    r = gt("-q", "-o", "/dev/null", "--", "cat", "/proc/self/limits", NULL);
    const char *line = r.out.data ? strstr(r.out.data, "Max open files") : NULL;
    unsigned long long soft = 0;
    CHECK(line && sscanf(line, "Max open files %llu", &soft) == 1 &&
          soft == (unsigned long long)lim.rlim_cur);
    result_free(&r);
}

/* gpu-tracker killed while it holds the command (here: in the GPU
 * library's init, which the fake makes wait on a FIFO): the held command
 * reads end of file on its pipe and must not run, untracked. It used to
 * exec on end of file. A helper that is its own subreaper gets the
 * orphaned command back and waits for it. */
static void test_killed_before_release(void)
{
    const char *scenario = tmp_path("nvml-block");
    const char *fifo = tmp_path("nvml-block.fifo");
    const char *marker = tmp_path("held-ran");
    unlink(fifo);
    unlink(marker);
    CHECK(mkfifo(fifo, 0600) == 0);
    FILE *f = fopen(scenario, "w");
    fprintf(f, "block nvmlInit_v2 %s\ndevice GPU-1111 Fake-H100 80000000000 9000000000 75\n",
            fifo);
    fclose(f);
    pid_t helper = fork();
    if (helper == 0) {
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
            _exit(90);
        setenv("FAKE_NVML_SCENARIO", scenario, 1);
        setenv("GPU_TRACKER_NVML_LIBRARY", WORKLOAD_DIR "/libfake-nvml.so", 1);
        char touch[400];
        snprintf(touch, sizeof touch, "touch %s", marker);
        char *argv[] = {GT_BIN, "--disable-logs", "--no-backup", "-e", touch, NULL};
        struct child c = spawn(argv, 0);
        /* Blocked in the fake's nvmlInit once the FIFO has a reader. */
        int w;
        while ((w = open(fifo, O_WRONLY | O_NONBLOCK)) < 0) {
            struct timespec ts = {0, 5 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        kill(c.pid, SIGKILL);
        close(w);
        /* Every child back: gpu-tracker, and the orphaned command. */
        int ran_status = -1;
        pid_t p;
        int ws;
        while ((p = wait(&ws)) > 0)
            if (p != c.pid)
                ran_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        _exit(ran_status == 126 ? 0 : 91);
    }
    int ws = 0;
    pid_t watchdog = fork();
    if (watchdog == 0) {
        sleep(60);
        kill(helper, SIGKILL);
        _exit(0);
    }
    waitpid(helper, &ws, 0);
    kill(watchdog, SIGKILL);
    waitpid(watchdog, NULL, 0);
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the held command's end: helper %s %d",
              WIFEXITED(ws) ? "exit" : "signal", WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
    CHECK_MSG(access(marker, F_OK) != 0, "the held command ran after gpu-tracker was killed");
}

/* The cases, each its own CTest test (tests/CMakeLists.txt reads this
 * table): `test_cli NAME` runs one, `test_cli` all of them. */
/* The corners of docs/metrics.md ("Corners"): a process whose children
 * the kernel reaps is named in every output, and its cgroup, where the run
 * has one, holds what the tree missed (a limit too). --st 10: the two
 * children (300 MiB each) live and end between the baseline and the final
 * sample, whatever the machine's speed. */
static void test_corner_children_reaped(void)
{
    struct result r = gt("--st", "10", "-f", "json", "--", WORKLOAD_BIN, "ignore-children",
                         "2", "300", "0.2", NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "ignore-children json");
    if (j) {
        json_object *m = json_object_object_get(j, "measurement");
        json_object *who = json_object_object_get(m, "children_reaped_by_kernel");
        CHECK_MSG(who != NULL, "no measurement.children_reaped_by_kernel: %s", r.out.data);
        CHECK(jnum(j, "measurement.children_reaped_by_kernel.pid") > 1);
        CHECK_STR(json_object_get_string(json_object_object_get(who, "command")), "gt-workload");
        const char *low = json_object_to_json_string(json_object_object_get(m, "may_be_low"));
        CHECK_CONTAINS(low, "\"max_ram.combined.total_rss\"");
        CHECK_CONTAINS(low, "\"cpu_utilization.*.mean_sum_percent\"");
        const char *exact = json_object_to_json_string(json_object_object_get(m, "exact"));
        CHECK(exact && !strstr(exact, "mean_sum_percent"));
        json_object_put(j);
    }
    CHECK_CONTAINS(r.err.data, " (gt-workload) ignores SIGCHLD, so the kernel reaps its children "
                               "itself: those that lived between two samples are missing from "
                               "the peak RAM and the CPU time; ");
    result_free(&r);
    /* gpu_tracker's text: the same sentence, as a warning beside it (not
     * with -q, which keeps standard error to errors). */
    r = gt("-q", "--st", "10", "--", WORKLOAD_BIN, "ignore-children", "1", "50", "0", NULL);
    CHECK(r.status == 0 && strstr(r.out.data, "Max RAM:"));
    CHECK_MSG(!strstr(r.err.data, "gpu-tracker"), "-q said: %s", r.err.data);
    result_free(&r);
    r = gt("--st", "10", "--", WORKLOAD_BIN, "ignore-children", "1", "50", "0", NULL);
    CHECK(r.status == 0 && strstr(r.out.data, "Max RAM:"));
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: process ");
    CHECK_CONTAINS(r.err.data, " ignores SIGCHLD");
    result_free(&r);
    /* -f human: a caveat line of its own; the snapshot keeps the corner
     * (measurement.children_reaped_by_kernel), and the report made from
     * the file says it. */
    char snap[256], html[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("ignored.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("ignored.html"));
    r = gt("-q", "--st", "10", "-f", "human", "--snapshot", snap, "--", WORKLOAD_BIN,
           "ignore-children", "1", "50", "0", NULL);
    CHECK_CONTAINS(r.out.data, "\nCaveat          process ");
    CHECK_CONTAINS(r.out.data, "(gt-workload) ignores SIGCHLD");
    CHECK(!strstr(r.err.data, "SIGCHLD"));
    result_free(&r);
    r = gt("report", snap, "-o", html, NULL);
    CHECK(r.status == 0);
    result_free(&r);
    char *page = slurp(html);
    CHECK_CONTAINS(page, "<p class=\"note\"><b>Caveat:</b> process ");
    CHECK_CONTAINS(page, "(gt-workload) ignores SIGCHLD, so the kernel reaps its children");
    free(page);

    /* In a cgroup of its own the group's high-water mark holds the two
     * children, and --max-ram is judged on it. */
    r = gt("--st", "10", "--cgroup", "--max-ram", "100MB", "-f", "json", "--", WORKLOAD_BIN,
           "ignore-children", "2", "300", "0", NULL);
    j = parse_or_fail(r.out.data, "ignore-children --cgroup json");
    if (j && json_object_get_boolean(json_object_object_get(json_object_object_get(j, "cgroup"),
                                                            "created")) &&
        jnum(j, "cgroup.memory.peak") >= 300 * MIB) {
        CHECK_MSG(r.status == 124, "status %d: %s", r.status, r.err.data);
        CHECK(jnum(j, "limits.checks.max_ram.peak") >= 300 * MIB);
        CHECK_CONTAINS(r.err.data, "the job's cgroup counted every one of them: peak ");
    } else {
        printf("cli_corner_children_reaped: no memory cgroup of its own here (%s); its limit "
               "is not checked\n", r.err.data);
    }
    if (j)
        json_object_put(j);
    result_free(&r);
}

/* A main process that waited for a child of its own and ended before any
 * sample saw it: the kernel's peak (200 MiB) is its own or the child's,
 * and no output claims to know which. */
static void test_corner_split_unknown(void)
{
    char script[512];
    snprintf(script, sizeof script, "%s alloc 1; exec %s alloc 200", WORKLOAD_BIN, WORKLOAD_BIN);
    struct result r = gt("--st", "10", "-f", "json", "--", "/bin/sh", "-c", script, NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "split json");
    if (j) {
        json_object *m = json_object_object_get(j, "measurement");
        CHECK(json_object_get_boolean(json_object_object_get(m, "main_descendants_split_unknown")));
        /* what no process can be given, above gpu-tracker's fork's mark
         * (2 MiB here, 17 under ThreadSanitizer) */
        CHECK(jnum(j, "measurement.unattributed_rss_bytes") >= 150 * MIB);
        CHECK(jnum(j, "max_ram.combined.total_rss") >= 200 * MIB / 1e9); /* gigabytes */
        const char *high = json_object_to_json_string(
            json_object_object_get(m, "at_least_kernel_high_water_mark"));
        CHECK_STR(high, "[ \"max_ram.combined.total_rss\" ]");
        /* no sample saw either side: each carries its bound, never 0 B */
        const char *most = json_object_to_json_string(json_object_object_get(m, "at_most"));
        CHECK_STR(most, "[ \"max_ram.main.total_rss\", \"max_ram.descendants.total_rss\" ]");
        CHECK(jnum(j, "max_ram.main.total_rss") >= 200 * MIB / 1e9);
        CHECK(jnum(j, "max_ram.descendants.total_rss") >= 200 * MIB / 1e9);
        CHECK(jnum(j, "measurement.at_most_rss_bytes.main") >= 200 * MIB);
        CHECK(jnum(j, "measurement.sampled_rss_bytes.main") == 0);
        CHECK(!strcmp(jtext(j, "measurement", "rss_peak_held_by", NULL), "main or descendant"));
        json_object_put(j);
    }
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: the main process ended before a sample saw "
                               "all of it, having waited for children of its own: the kernel's "
                               "peak of ");
    CHECK_CONTAINS(r.err.data, " so main's peak is at most ");
    result_free(&r);
    /* -q: the summary alone; standard error keeps to errors. */
    r = gt("-q", "--st", "10", "-f", "json", "--", "/bin/sh", "-c", script, NULL);
    CHECK(r.status == 0);
    CHECK_MSG(r.err.len == 0, "-q said: %s", r.err.data);
    result_free(&r);
    r = gt("-q", "--st", "10", "-f", "human", "--", "/bin/sh", "-c", script, NULL);
    CHECK_CONTAINS(r.out.data, " RSS, shared once (main and descendants not told apart: main at "
                               "most ");
    CHECK(!strstr(r.out.data, "(main 0 B, descendants 0 B)"));
    CHECK_CONTAINS(r.out.data, "\nCaveat          the main process ended before a sample saw");
    result_free(&r);
    /* A shell's few MiB beside its commands' few MiB are no news, nor is
     * the high-water mark of gpu-tracker's own fork, which the kernel
     * carries into the command's (10 MiB under AddressSanitizer): no
     * caveat said. */
    r = gt("-q", "--st", "10", "-o", "/dev/null", "--", "/bin/sh", "-c", "/bin/true; exec /bin/true",
           NULL);
    CHECK(r.status == 0 && !strstr(r.err.data, "ended before a sample"));
    result_free(&r);
}

/* The usual `bash run.sh`: a shell whose child makes the peak, between two
 * samples when the machine keeps time, then the shell sleeps on. Main's
 * own VmHWM was read at every sample and it made few faults after the
 * last: the 400 MiB record the kernel hands back with main's is its
 * child's. */
static void test_launcher_peak(void)
{
    char script[512];
    snprintf(script, sizeof script, "sleep 1.25; %s alloc 400; sleep 1.5", WORKLOAD_BIN);
    struct result r = gt("-q", "-f", "json", "--", "bash", "-c", script, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    json_object *j = parse_or_fail(r.out.data, "launcher json");
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.descendants.total_rss") >= 400 * MIB / 1e9,
                  "descendants %g GB", jnum(j, "max_ram.descendants.total_rss"));
        CHECK_MSG(jnum(j, "max_ram.main.total_rss") < 0.05, "main %g GB",
                  jnum(j, "max_ram.main.total_rss"));
        CHECK(jnum(j, "max_ram.combined.total_rss") >= 400 * MIB / 1e9);
        json_object *m = json_object_object_get(j, "measurement");
        CHECK(!json_object_object_get_ex(m, "main_descendants_split_unknown", NULL));
        /* unseen (the usual case) or seen by a sample: a descendant's either way */
        const char *held = jtext(j, "measurement", "rss_peak_held_by", NULL);
        CHECK_MSG(!*held || !strcmp(held, "descendant"), "held by %s", held);
        const char *unseen = jtext(j, "at_peak", "memory_unseen", "holder");
        CHECK_MSG(!*unseen || !strcmp(unseen, "descendant"), "unseen holder %s", unseen);
        json_object_put(j);
    }
    CHECK_MSG(!strstr(r.err.data, "warning"), "warned: %s", r.err.data);
    result_free(&r);
    r = gt("-q", "-f", "human", "--", "bash", "-c", script, NULL);
    CHECK_MSG(!strstr(r.out.data, "not told apart"), "%s", r.out.data);
    const char *line = strstr(r.out.data, "\nPeak RAM ");
    CHECK_MSG(line && strstr(line, ", descendants 4") && strstr(line, " MiB)\n"), "%s",
              r.out.data);
    const char *at = strstr(r.out.data, "\nAt the peak ");
    /* The report says it too, from the snapshot: above its table of the
     * largest sample, whose the peak between two samples was. */
    char snap[256], html[256], summary[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("launcher.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("launcher.html"));
    snprintf(summary, sizeof summary, "%s", tmp_path("launcher.json"));
    struct result s = gt("-q", "-f", "json", "-o", summary, "--snapshot", snap, "--", "bash", "-c",
                         script, NULL);
    CHECK(s.status == 0);
    result_free(&s);
    s = gt("report", snap, "-o", html, NULL);
    CHECK(s.status == 0);
    result_free(&s);
    char *doc = slurp(summary);
    json_object *sj = doc ? parse_or_fail(doc, "launcher summary") : NULL;
    char *page = slurp(html);
    if (sj && page) {
        int unseen = !strcmp(jtext(sj, "at_peak", "memory_unseen", "holder"), "descendant");
        const char *said = strstr(page, "was a descendant's, between two samples (the "
                                        "kernel's record of it)");
        CHECK_MSG(unseen ? said != NULL : said == NULL, "unseen %d, the report %s it", unseen,
                  said ? "says" : "does not say");
    }
    if (sj)
        json_object_put(sj);
    free(doc);
    free(page);
    /* unseen: said whose; seen by a sample: the child first, before bash */
    CHECK_MSG(at && (strncmp(at, "\nAt the peak     a descendant (no sample saw it at its peak), "
                                 "4", 63) == 0 || strncmp(at, "\nAt the peak     bash", 21) != 0),
              "%s", r.out.data);
    result_free(&r);
}

/* A job shorter than a sample, with no child: the kernel's record is
 * main's own; its private and shared parts no sample saw. /bin/true's
 * record is no more than gpu-tracker's own fork held before the exec:
 * not the job's, and said as a bound. */
static void test_short_job_record(void)
{
    struct result r = gt("-q", "--st", "10", "-f", "json", "--", WORKLOAD_BIN, "alloc", "100",
                         NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "short job json");
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.main.total_rss") >= 0.1, "main %g GB",
                  jnum(j, "max_ram.main.total_rss"));
        CHECK(jnum(j, "max_ram.descendants.total_rss") == 0);
        CHECK(!strcmp(jtext(j, "measurement", "rss_peak_held_by", NULL), "main"));
        json_object *parts = NULL;
        CHECK(json_object_object_get_ex(json_object_object_get(j, "measurement"),
                                        "private_shared_unknown", &parts));
        CHECK_STR(json_object_to_json_string(parts), "[ \"max_ram.main\", \"max_ram.combined\" ]");
        CHECK(!strcmp(jtext(j, "at_peak", "memory_unseen", "holder"), "main"));
        json_object_put(j);
    }
    CHECK_MSG(!strstr(r.err.data, "children of its own"), "%s", r.err.data);
    result_free(&r);
    /* gpu_tracker's text says the parts are not known rather than 0.0 (the
     * JSON keeps its numbers and lists them, above). */
    r = gt("-q", "--st", "10", "--", WORKLOAD_BIN, "alloc", "100", NULL);
    CHECK_CONTAINS(r.out.data, "\n   Combined:\n      Total RSS: ");
    CHECK_CONTAINS(r.out.data, "\n      Private RSS: not known (the peak is a kernel record no "
                               "sample saw)\n      Shared RSS: not known\n");
    CHECK_MSG(r.err.len == 0, "stderr: %s", r.err.data);
    result_free(&r);
    /* One run, read twice: whether the record is above the fork's mark
     * differs from run to run. */
    const char *summary = tmp_path("true.json");
    r = gt("-q", "--st", "10", "-f", "json", "-o", summary, "--", "/bin/true", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    char *text = slurp(summary);
    j = text ? parse_or_fail(text, "true json") : NULL;
    free(text);
    int unseen = 0;
    if (j) {
        /* Either its record is above the fork's mark (then it is its own),
         * or it is no more than it: then no figure of the job takes it. */
        const char *held = jtext(j, "measurement", "rss_peak_held_by", NULL);
        unseen = !strcmp(held, "unseen");
        double most = jnum(j, "measurement.unseen_rss_at_most_bytes");
        double combined = jnum(j, "max_ram.combined.total_rss");
        if (unseen)
            CHECK_MSG(most > 0 && combined < most / 1e9, "combined %g GB, at most %g B",
                      combined, most);
        else
            CHECK_MSG(!strcmp(held, "main") && combined == jnum(j, "max_ram.main.total_rss"),
                      "held by %s", held);
        json_object_put(j);
    }
    r = gt("show", summary, "-f", "human", NULL);
    CHECK(r.status == 0);
    if (unseen) {
        CHECK_CONTAINS(r.out.data, "\nPeak RAM        at most ");
        CHECK_CONTAINS(r.out.data, "gpu-tracker's own fork held before the exec");
    } else {
        CHECK_CONTAINS(r.out.data, " RSS, shared once (main ");
    }
    result_free(&r);
}

/* Killed during the climb: the backup keeps the peak. The job takes 300
 * MiB after the backup's first write, and gpu-tracker is killed (-9) four
 * samples later (two looks): the file has the 300 MiB. */
static void test_backup_climb(void)
{
    const char *backup = tmp_path("climb-backup.json");
    const char *csv = tmp_path("climb.csv");
    char *argv[] = {GT_BIN, "-q", "--backup", (char *)backup, "--st", "0.5", "--system-csv",
                    (char *)csv, "--", WORKLOAD_BIN, "climb", "300", (char *)csv, "4", NULL};
    struct child g = spawn(argv, 1);
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(read_until(g.out, &r.out, "climbed\n") == 0);
    CHECK(read_until(g.out, &r.out, "seen\n") == 0);
    kill(g.pid, SIGKILL);
    close(g.in); /* the job's stdin: it ends */
    finish(&g, &r);
    CHECK(r.status == 128 + SIGKILL);
    result_free(&r);
    char *text = slurp(backup);
    json_object *j = text ? parse_or_fail(text, backup) : NULL;
    if (j) {
        CHECK_MSG(jnum(j, "max_ram.combined.total_rss") >= 300 * MIB / 1e9, "backup %g GB",
                  jnum(j, "max_ram.combined.total_rss"));
        json_object_put(j);
    } else {
        CHECK_MSG(0, "no backup at %s", backup);
    }
    free(text);
    unlink(backup);
}

/* show reads a snapshot (its name ends in .gz, as --snapshot writes them)
 * as well as a summary: the run's own summary, in each format. */
static void test_show_snapshot(void)
{
    char snap[256], summary[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("shown.json.gz"));
    snprintf(summary, sizeof summary, "%s", tmp_path("shown.json"));
    struct result r = gt("-q", "--st", "0.2", "-f", "json", "-o", summary, "--snapshot", snap,
                         "--", WORKLOAD_BIN, "hold", "50", "0.3", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    char *text = slurp(summary);
    json_object *ran = text ? parse_or_fail(text, "the run's summary") : NULL;
    free(text);
    r = gt("show", snap, "-f", "json", NULL);
    CHECK_MSG(r.status == 0 && r.err.len == 0, "show -f json: %d %s", r.status, r.err.data);
    json_object *shown = parse_or_fail(r.out.data, "show of a snapshot");
    if (ran && shown) {
        CHECK(jnum(shown, "max_ram.combined.total_rss") >= 50 * MIB / 1e9);
        CHECK(jnum(shown, "max_ram.combined.total_rss") == jnum(ran, "max_ram.combined.total_rss"));
        CHECK(jnum(shown, "compute_time.time") == jnum(ran, "compute_time.time"));
    }
    if (ran)
        json_object_put(ran);
    if (shown)
        json_object_put(shown);
    result_free(&r);
    r = gt("show", snap, NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "Max RAM:\n   Unit: gigabytes");
    result_free(&r);
    r = gt("show", snap, "-f", "human", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "\nPeak RAM        ");
    result_free(&r);
}

/* A job that streams a file through the page cache: its cgroup's peak is
 * mostly file pages the kernel could reclaim, and the human summary, the
 * report and recommend say how much, asking for the rest only. */
static void test_corner_page_cache(void)
{
    char script[512], snap[256], html[256];
    snprintf(script, sizeof script, "dd if=/dev/zero of=%s bs=1M count=200 2>/dev/null && "
             "cat %s >/dev/null && sleep 0.5", tmp_path("stream"), tmp_path("stream"));
    snprintf(snap, sizeof snap, "%s", tmp_path("cache.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("cache.html"));
    struct result r = gt("-q", "--st", "0.2", "--cgroup", "-f", "human", "--snapshot", snap,
                         "--report", html, "--", "/bin/sh", "-c", script, NULL);
    CHECK(r.status == 0);
    if (!strstr(r.out.data, "made for the run)") || !strstr(r.out.data, "Group peak")) {
        printf("cli_corner_page_cache: no memory cgroup of its own here; not checked\n");
        result_free(&r);
        return;
    }
    CHECK_CONTAINS(r.out.data, " of the group peak was page cache the kernel could reclaim: "
                               "a memory request needs ");
    result_free(&r);
    r = gt("recommend", snap, NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "\nmemory note: group peak ");
    CHECK_CONTAINS(r.out.data, " MiB of it page cache the kernel could reclaim: not in the "
                               "memory above\n");
    result_free(&r);
    char *page = slurp(html);
    CHECK_CONTAINS(page, " of it page cache the kernel could reclaim");
    CHECK(page && !strstr(page, "memory from the job&#39;s cgroup peak + 20%") &&
          !strstr(page, "memory from the job's cgroup peak + 20%"));
    free(page);
}

/* Starvation is waiting for a CPU while runnable: a job that prints and
 * sleeps on a machine kept busy by others is never starved; a job that
 * burns CPU among twice as many spinners as cores waited about half the
 * time it was runnable, and is (where the kernel counts run-queue delays). */
static void test_corner_starved(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nspin = cores > 0 && cores < 32 ? (int)cores * 2 : 64;
    pid_t spinners[64];
    for (int i = 0; i < nspin; i++) {
        spinners[i] = fork();
        if (spinners[i] == 0) {
            for (;;)
                ; /* a busy loop until killed */
        }
    }
    struct result r = gt("-q", "--st", "0.2", "-f", "human", "--", "/bin/sh", "-c",
                         "echo printed; sleep 1", NULL);
    CHECK(r.status == 0);
    CHECK_MSG(!strstr(r.out.data, "CPU starved"), "a sleeping job was called starved:\n%s",
              r.out.data);
    result_free(&r);
    r = gt("-q", "--st", "0.2", "--", "/bin/sh", "-c", "echo printed; sleep 1", NULL);
    CHECK(!strstr(r.err.data, "CPU starved"));
    result_free(&r);
    r = gt("-q", "--st", "0.2", "-f", "json", "--", WORKLOAD_BIN, "burn", "0.5", NULL);
    json_object *j = parse_or_fail(r.out.data, "burn among spinners");
    double wait = j ? jnum(j, "measurement.run_queue.wait_seconds") : NAN;
    if (j)
        json_object_put(j);
    result_free(&r);
    if (isnan(wait)) {
        printf("cli_corner_starved: this kernel counts no run-queue delay (schedstat); the "
               "starved side is not checked\n");
    } else {
        r = gt("-q", "--st", "0.2", "-f", "human", "--", WORKLOAD_BIN, "burn", "0.5", NULL);
        CHECK_CONTAINS(r.out.data, "\nCPU starved     the job's processes waited for a CPU ");
        result_free(&r);
        /* gpu_tracker's text has no words for it: a warning beside it
         * (none with -q, which keeps standard error to errors). */
        r = gt("--st", "0.2", "--", WORKLOAD_BIN, "burn", "0.5", NULL);
        CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: CPU starved: the job's processes "
                                   "waited for a CPU ");
        result_free(&r);
        r = gt("-q", "--st", "0.2", "--", WORKLOAD_BIN, "burn", "0.5", NULL);
        CHECK_MSG(!strstr(r.err.data, "CPU starved"), "-q said: %s", r.err.data);
        result_free(&r);
        /* The work in threads, the main thread waiting in a join (a
         * PyTorch or OpenMP pool): its threads waited, and it is starved. */
        char threads[16];
        snprintf(threads, sizeof threads, "%d", nspin / 2 > 0 ? nspin / 2 : 1);
        r = gt("-q", "--st", "0.2", "-f", "human", "--", WORKLOAD_BIN, "busy-threads", threads,
               "0.5", NULL);
        CHECK_CONTAINS(r.out.data, "\nCPU starved     the job's processes waited for a CPU ");
        result_free(&r);
    }
    for (int i = 0; i < nspin; i++) {
        kill(spinners[i], SIGKILL);
        waitpid(spinners[i], NULL, 0);
    }
}

static const struct cli_case {
    const char *name;
    void (*run)(void);
} cli_cases[] = {
    {"help_and_version", test_help_and_version},
    {"job_command", test_job_command},
    {"errors", test_errors},
    {"exit_status", test_exit_status},
    {"text_output", test_text_output},
    {"json_stdout_and_spike", test_json_stdout_and_spike},
    {"document_on_stdout_stays_clean", test_document_on_stdout_stays_clean},
    {"user_config", test_user_config},
    {"user_config_links", test_user_config_links},
    {"short_job_threads", test_short_job_threads},
    {"limits", test_limits},
    {"limits_own_tree", test_limits_own_tree},
    {"at_peak", test_at_peak},
    {"cpu_exact", test_cpu_exact},
    {"orphans", test_orphans},
    {"wait_all", test_wait_all},
    {"live_line", test_live_line},
    {"human_format", test_human_format},
    {"human_fits", test_human_fits},
    {"backup_file", test_backup_file},
    {"signals_forwarded", test_signals_forwarded},
    {"stopped_command", test_stopped_command},
    {"closed_stdout", test_closed_stdout},
    {"fifo_output", test_fifo_output},
    {"command_start", test_command_start},
    {"sampler_thread", test_sampler_thread},
    {"killed_before_release", test_killed_before_release},
    {"pid_self", test_pid_self},
    {"attach", test_attach},
    {"output_file", test_output_file},
    {"benchmark_tsv", test_benchmark_tsv},
    {"fixture_proc_root", test_fixture_proc_root},
    {"gpu_fake", test_gpu_fake},
    {"gpu_waited", test_gpu_waited},
    {"gpu_waited_launcher", test_gpu_waited_launcher},
    {"job_names", test_job_names},
    {"expected_cores_of_job", test_expected_cores_of_job},
    {"corner_children_reaped", test_corner_children_reaped},
    {"corner_split_unknown", test_corner_split_unknown},
    {"launcher_peak", test_launcher_peak},
    {"short_job_record", test_short_job_record},
    {"backup_climb", test_backup_climb},
    {"show_snapshot", test_show_snapshot},
    {"corner_starved", test_corner_starved},
    {"corner_page_cache", test_corner_page_cache},
};

static int run_case(const struct cli_case *c)
{
    char tag[64];
    snprintf(tag, sizeof tag, "test_cli %s", c->name);
    tmpdir_make("cli");
    /* -f human wraps to $COLUMNS: wide, so that a figure's line is checked
     * whole; the wrapping test sets its own. */
    setenv("COLUMNS", "1000", 1);
    c->run();
    tmpdir_remove();
    return check_exit(tag);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "pid-namespace")) {
        require_pid_namespaces();
        tmpdir_make("cli-ns");
        test_pid_namespace();
        tmpdir_remove();
        return check_exit("test_cli pid-namespace");
    }
    size_t n = sizeof cli_cases / sizeof cli_cases[0];
    if (argc == 2) {
        for (size_t i = 0; i < n; i++)
            if (!strcmp(argv[1], cli_cases[i].name))
                return run_case(&cli_cases[i]);
        fprintf(stderr, "test_cli: no case '%s'; valid: pid-namespace", argv[1]);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, ", %s", cli_cases[i].name);
        fprintf(stderr, "\n");
        return 2;
    }
    tmpdir_make("cli");
    for (size_t i = 0; i < n; i++)
        cli_cases[i].run();
    tmpdir_remove();
    return check_exit("test_cli");
}
