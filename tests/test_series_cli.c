/* End-to-end tests of the time series: build/gpu-tracker with --process-csv
 * and --system-csv, and `gpu-tracker system`. Headers, the row count of a
 * known duration, timestamps on the schedule, a workload's writes and memory
 * in its rows, signals, and every error path. Nothing waits on the clock:
 * the workload holds its memory until the tracker has written rows after it,
 * and row counts come from --duration, which the tracker counts in slots. */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "httpd.h"
#include "runner.h"

#define PROCESS_HEADER                                                                  \
    "\"timestamp\",\"pid\",\"children\",\"utime\",\"stime\",\"cpu_usage\",\"memory\","  \
    "\"read_bytes\",\"write_bytes\",\"gpu_usage\",\"gpu_vram\",\"gpu_utilized\""
#define SYSTEM_HEADER                                                                   \
    "\"timestamp\",\"processes\",\"utime\",\"stime\",\"cpu_usage\",\"memory_free\","    \
    "\"memory_used\",\"memory_buffers\",\"memory_cached\",\"memory_active\","           \
    "\"memory_inactive\",\"disk_read_bytes\",\"disk_write_bytes\",\"disk_space_total_gb\"," \
    "\"disk_space_used_gb\",\"disk_space_free_gb\",\"net_recv_bytes\",\"net_sent_bytes\"," \
    "\"gpu_usage\",\"gpu_vram\",\"gpu_utilized\""

#define MAX_ROWS 512
#define MAX_COLS 24

/* A CSV as the tracker writes it: a header and rows of numbers. */
struct csv {
    char header[1024];
    int complete;            /* every line ends with \r\n */
    int nrows;
    int ncols[MAX_ROWS];
    double v[MAX_ROWS][MAX_COLS];
};

static void csv_parse(const char *text, struct csv *c)
{
    memset(c, 0, sizeof *c);
    if (!text)
        return;
    c->complete = 1;
    const char *p = text;
    int line = 0;
    while (*p) {
        const char *eol = strstr(p, "\r\n");
        if (!eol) {
            c->complete = 0;
            eol = p + strlen(p);
        }
        size_t len = (size_t)(eol - p);
        if (line == 0) {
            snprintf(c->header, sizeof c->header, "%.*s", (int)len, p);
        } else if (c->nrows < MAX_ROWS) {
            int r = c->nrows++;
            const char *f = p;
            while (f < eol && c->ncols[r] < MAX_COLS) {
                char *end;
                c->v[r][c->ncols[r]++] = strtod(f, &end);
                if (end == f || (end < eol && *end != ',')) {
                    c->ncols[r] = -1; /* not a number: fails any column check */
                    break;
                }
                f = end + 1;
            }
        }
        line++;
        p = *eol ? eol + 2 : eol;
    }
}

static void csv_load(const char *path, struct csv *c)
{
    char *text = slurp(path);
    csv_parse(text, c);
    free(text);
}

/* Rows on the schedule: each column count right, timestamps strictly
 * increasing and whole intervals apart (to the millisecond rounding). */
static void check_rows(const struct csv *c, int ncols, double interval, const char *what)
{
    CHECK_MSG(c->complete, "%s: a line lacks its \\r\\n", what);
    for (int i = 0; i < c->nrows; i++) {
        CHECK_MSG(c->ncols[i] == ncols, "%s row %d: %d columns", what, i, c->ncols[i]);
        if (i == 0)
            continue;
        double slots = (c->v[i][0] - c->v[0][0]) / interval;
        CHECK_MSG(c->v[i][0] > c->v[i - 1][0], "%s row %d: timestamp not increasing", what, i);
        CHECK_MSG(fabs(slots - round(slots)) * interval < 0.0015,
                  "%s row %d: %.3f is not on the schedule (%.4f slots)", what, i, c->v[i][0],
                  slots);
    }
}

static int count_lines_of(const char *path)
{
    char *t = slurp(path);
    int n = 0;
    for (const char *p = t; p && *p; p++)
        n += *p == '\n';
    free(t);
    return n;
}

/* Waits (polling) until path has at least n lines. */
static void wait_lines(const char *path, int n)
{
    while (count_lines_of(path) < n) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* A workload that writes 16 MiB and holds 64 MiB: both show in its rows. */
static void test_run_with_both_series(void)
{
    const char *pcsv = tmp_path("process.csv"), *scsv = tmp_path("system.csv");
    const char *data = tmp_path("written.dat");
    struct result r = gt("--st", "0.2", "--disable-logs", "--process-csv", pcsv, "--system-csv",
                         scsv, "--", WORKLOAD_BIN, "io-alloc", "16", "64", data, pcsv, "2", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.out.data, "Resource tracking complete.");
    CHECK_CONTAINS(r.out.data, "Max RAM:");
    result_free(&r);

    static struct csv p, s;
    csv_load(pcsv, &p);
    csv_load(scsv, &s);
    CHECK_STR(p.header, PROCESS_HEADER);
    CHECK_STR(s.header, SYSTEM_HEADER);
    CHECK_MSG(p.nrows >= 2, "%d process rows", p.nrows);
    check_rows(&p, 12, 0.2, "process");
    check_rows(&s, 21, 0.2, "system");
    CHECK_MSG(p.nrows == s.nrows, "%d process rows, %d system rows", p.nrows, s.nrows);

    double written = 0, max_memory = 0;
    for (int i = 0; i < p.nrows; i++) {
        CHECK(i >= s.nrows || p.v[i][0] == s.v[i][0]); /* shared timestamps */
        CHECK(p.v[i][2] == 0);                         /* no children */
        CHECK(p.v[i][3] >= 0 && p.v[i][4] >= 0 && p.v[i][5] >= 0);
        written += p.v[i][8];
        if (p.v[i][6] > max_memory)
            max_memory = p.v[i][6];
    }
    /* write_bytes counts what reached the page cache for the file: 16 MiB,
     * plus nothing else this workload writes. */
    CHECK_MSG(written >= 16 * MIB && written <= 17 * MIB, "write_bytes sum %.0f", written);
    /* PSS in kB: the 64 MiB held, plus the program itself (a few MiB). */
    CHECK_MSG(max_memory >= 64 * 1024 && max_memory <= 96 * 1024, "max memory %.0f kB",
              max_memory);
    for (int i = 0; i < s.nrows; i++) {
        CHECK(s.v[i][1] > 0);                 /* processes */
        CHECK(s.v[i][5] > 0 && s.v[i][6] > 0); /* memory free and used */
        CHECK(s.v[i][13] >= s.v[i][14]);       /* disk space total >= used */
    }
}

/* gpu-tracker system: exactly the rows of its duration, to a file or to
 * standard output. */
static void test_system_command(void)
{
    const char *out = tmp_path("sys-duration.csv");
    struct result r = gt("system", "--st", "0.5", "--duration", "1.5", "-o", out, "--disable-logs",
                         NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.out.data, "");
    CHECK_STR(r.err.data, "");
    result_free(&r);
    static struct csv c;
    csv_load(out, &c);
    CHECK_STR(c.header, SYSTEM_HEADER);
    CHECK_MSG(c.nrows == 3, "%d rows for 1.5 s at 0.5 s", c.nrows);
    check_rows(&c, 21, 0.5, "system --duration");
    if (c.nrows == 3)
        CHECK(fabs(c.v[2][0] - c.v[0][0] - 1.0) < 0.0015);

    r = gt("system", "--st", "0.2", "--duration", "0.4", "--disable-logs", NULL);
    CHECK(r.status == 0);
    csv_parse(r.out.data, &c);
    CHECK_STR(c.header, SYSTEM_HEADER);
    CHECK_MSG(c.nrows == 2, "%d rows on stdout", c.nrows);
    result_free(&r);

    r = gt("system", "--help", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "Usage: gpu-tracker system");
    CHECK_CONTAINS(r.out.data, "--duration=<seconds>");
    result_free(&r);
    r = gt("--help", "all", NULL);
    CHECK_CONTAINS(r.out.data, "--process-csv=<file>");
    CHECK_CONTAINS(r.out.data, "--system-csv=<file>");
    CHECK_CONTAINS(r.out.data, "gpu-tracker system [--st=<sleep-time>]");
    result_free(&r);
}

/* SIGINT and SIGTERM end `gpu-tracker system` cleanly: exit 0 and a file
 * whose every line is whole. */
static void test_system_signals(void)
{
    const int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        const char *out = tmp_path(i ? "sys-term.csv" : "sys-int.csv");
        char *argv[] = {GT_BIN, "system", "--st", "0.1", "--disable-logs", "-o", (char *)out,
                        NULL};
        struct child c = spawn(argv, 0);
        wait_lines(out, 3); /* header and two rows */
        kill(c.pid, sigs[i]);
        struct result r;
        memset(&r, 0, sizeof r);
        finish(&c, &r);
        CHECK_MSG(r.status == 0, "signal %d: status %d", sigs[i], r.status);
        static struct csv csv;
        csv_load(out, &csv);
        CHECK_STR(csv.header, SYSTEM_HEADER);
        CHECK(csv.nrows >= 2);
        check_rows(&csv, 21, 0.1, "system after a signal");
        result_free(&r);
    }
}

/* A series on standard output: only CSV there; the summary and the status
 * line go to standard error. */
static void test_series_on_stdout(void)
{
    const char *data = tmp_path("stdout.dat");
    const char *scsv = tmp_path("stdout-sys.csv");
    /* The workload waits for rows in the system CSV (a file we can read). */
    struct result r = gt("--st", "0.2", "--disable-logs", "--process-csv", "-", "--system-csv",
                         scsv, "--", WORKLOAD_BIN, "io-alloc", "1", "1", data, scsv, "2", NULL);
    CHECK(r.status == 0);
    static struct csv c;
    csv_parse(r.out.data, &c);
    CHECK_STR(c.header, PROCESS_HEADER);
    CHECK(c.nrows >= 2);
    check_rows(&c, 12, 0.2, "process on stdout");
    CHECK(!strstr(r.out.data, "Max RAM"));
    CHECK_CONTAINS(r.err.data, "Resource tracking complete.");
    CHECK_CONTAINS(r.err.data, "Max RAM:");
    result_free(&r);

    /* With -o the summary goes to its file, and the status line still not
     * into the CSV on stdout (it did). */
    const char *summary = tmp_path("stdout-summary.txt");
    r = gt("--st", "0.2", "--disable-logs", "--process-csv", "-", "--system-csv", scsv, "-o",
           summary, "--", WORKLOAD_BIN, "io-alloc", "1", "1", data, scsv, "2", NULL);
    CHECK(r.status == 0);
    csv_parse(r.out.data, &c);
    CHECK_STR(c.header, PROCESS_HEADER);
    CHECK(!strstr(r.out.data, "Resource tracking complete"));
    CHECK_CONTAINS(r.err.data, "Resource tracking complete.");
    char *text = slurp(summary);
    CHECK(text && !strncmp(text, "Max RAM:", 8));
    free(text);
    result_free(&r);
}

/* --no-children, --start-at aligned and --no-csv-header together: rows only
 * (the first line is a row), on round timestamps, of the shell alone (its
 * child holds 64 MiB until two rows are written after it, and is not
 * counted); and their bad values. */
static void test_resource_tracker_options(void)
{
    const char *pcsv = tmp_path("alone.csv"), *data = tmp_path("alone.dat");
    char script[1200];
    snprintf(script, sizeof script, "'%s' io-alloc 1 64 '%s' '%s' 2; true", WORKLOAD_BIN, data,
             pcsv);
    struct result r = gt("--st", "0.1", "--disable-logs", "--no-children", "--start-at", "aligned",
                         "--no-csv-header", "--process-csv", pcsv, "--", "sh", "-c", script, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    static struct csv c;
    csv_load(pcsv, &c);
    /* No header: what csv_parse takes for one is the first row. */
    CHECK_MSG(c.header[0] >= '1' && c.header[0] <= '9', "first line '%.40s'", c.header);
    double first = atof(c.header);
    CHECK_MSG(fabs(first * 10 - round(first * 10)) < 1e-3, "first row at %.4f", first);
    CHECK(c.nrows >= 1);
    for (int i = 0; i < c.nrows; i++) {
        CHECK_MSG(fabs(c.v[i][0] * 10 - round(c.v[i][0] * 10)) < 1e-3, "row at %.4f", c.v[i][0]);
        CHECK(c.v[i][2] == 0);                                          /* children */
        CHECK_MSG(c.v[i][6] < 32 * 1024, "memory %.0f kB: the child counted", c.v[i][6]);
    }

    r = gt("--start-at", "soon", "--", "true", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --start-at 'soon': give 'aligned' (the next "
                       "multiple of the sleep time) or an epoch time in seconds\n");
    r = gt("--start-at", "9999999999", "--", "true", NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "invalid start time");
    result_free(&r);
}

/* --pid: the rows name the attached process. */
static void test_attached_series(void)
{
    char *w_argv[] = {WORKLOAD_BIN, "threads", "2", NULL};
    struct child w = spawn(w_argv, 1);
    struct buf wout = {0};
    CHECK(read_until(w.out, &wout, "ready\n") == 0);
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)w.pid);
    const char *pcsv = tmp_path("attach.csv");
    char *argv[] = {GT_BIN, "--pid", pid, "--st", "0.1", "--disable-logs", "--process-csv",
                    (char *)pcsv, NULL};
    struct child g = spawn(argv, 0);
    wait_lines(pcsv, 3);
    struct result wr, r;
    memset(&wr, 0, sizeof wr);
    memset(&r, 0, sizeof r);
    finish(&w, &wr); /* closes its stdin: it ends, and tracking with it */
    finish(&g, &r);
    CHECK(r.status == 0);
    static struct csv c;
    csv_load(pcsv, &c);
    CHECK(c.nrows >= 2);
    check_rows(&c, 12, 0.1, "attached");
    for (int i = 0; i < c.nrows; i++)
        CHECK(c.v[i][1] == w.pid);
    result_free(&r);
    result_free(&wr);
    free(wout.data);
}

static void test_errors(void)
{
    const char *marker = tmp_path("series-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    unlink(marker);

    struct result r = gt("--process-csv", tmpdir, "-e", touch, NULL);
    char want[600];
    snprintf(want, sizeof want, "gpu-tracker: cannot write --process-csv file '%s': it is a "
                                "directory\n", tmpdir);
    check_error(&r, 2, want);
    r = gt("--system-csv", "/nonexistent/dir/s.csv", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: cannot write --system-csv file '/nonexistent/dir/s.csv': No "
                       "such file or directory\n");
    r = gt("--process-csv", "-", "--system-csv", "-", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: --process-csv and --system-csv cannot both be '-': give one "
                       "of them a file\n");
    r = gt("--process-csv", "", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: empty file name for --process-csv; give a file or '-' for "
                       "standard output\n");
    struct stat sb;
    CHECK_MSG(stat(marker, &sb) != 0, "the command ran despite a bad option");

    const char *bad_duration[] = {"abc", "0", "-1", "inf", "nan", "1e300"};
    for (size_t i = 0; i < sizeof bad_duration / sizeof bad_duration[0]; i++) {
        char line[200];
        snprintf(line, sizeof line, "gpu-tracker: invalid --duration '%s': it must be a number of "
                 "seconds, more than 0 and at most 31622400 (366 days)\n", bad_duration[i]);
        r = gt("system", "--duration", bad_duration[i], NULL);
        check_error(&r, 2, line);
    }
    r = gt("system", "--st", "0", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --st '0': the sleep time must be a number of seconds "
                       "from 0.0001 to 86400\n");
    /* Once accepted, and then never ending. */
    r = gt("system", "--st", "1e-300", "--duration", "0.001", NULL);
    check_error(&r, 2, "gpu-tracker: invalid --st '1e-300': the sleep time must be a number of "
                       "seconds from 0.0001 to 86400\n");
    r = gt("system", "--st", "1", "--duration", "0.5", NULL);
    check_error(&r, 2, "gpu-tracker: duration 0.5 s is shorter than one interval (1 s): no row "
                       "would come\n");
    r = gt("system", "extra", NULL);
    check_error(&r, 2, "gpu-tracker: unexpected argument 'extra': gpu-tracker system takes only "
                       "options; see gpu-tracker system --help\n");
    r = gt("system", "--bogus", NULL);
    check_error(&r, 2, "gpu-tracker: unknown option '--bogus'; see gpu-tracker system --help\n");
    r = gt("system", "-o", NULL);
    check_error(&r, 2, "gpu-tracker: option '-o' needs a value\n");
    r = gt("system", "-o", "/nonexistent/dir/x.csv", "--duration", "1", NULL);
    check_error(&r, 2, "gpu-tracker: cannot write output file '/nonexistent/dir/x.csv': No such "
                       "file or directory\n");
}

/* A series that cannot be written (a full disk): one warning, and at the
 * end every row, kept in memory, on standard error: nothing is lost. */
static void test_full_disk(void)
{
    const char *scsv = tmp_path("full-sys.csv");
    const char *data = tmp_path("full.dat");
    struct result r = gt("--st", "0.2", "--process-csv", "/dev/full", "--system-csv", scsv, "--",
                         WORKLOAD_BIN, "io-alloc", "1", "1", data, scsv, "2", NULL);
    CHECK(r.status == 1); /* the command succeeded; the output did not */
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: cannot write the process series: No space "
                               "left on device; its rows are kept in memory only\n");
    CHECK_CONTAINS(r.err.data, "gpu-tracker: the process series could not be written in full to "
                               "'/dev/full'; all its ");
    const char *csv = r.err.data ? strstr(r.err.data, PROCESS_HEADER "\r\n") : NULL;
    CHECK(csv != NULL);
    static struct csv c;
    csv_parse(csv, &c);
    CHECK(c.nrows >= 2);
    CHECK_CONTAINS(r.out.data, "Max RAM:");
    result_free(&r);
}

/* ---- snapshots, stats, recommend, report ------------------------------- */

static int keeper_answer(const char *method, const char *path, const char *headers, int *status,
                         char *body, size_t cap)
{
    (void)method;
    (void)headers;
    *status = 200;
    if (strstr(path, "/servers?vcpus_min=1&memory_min=0"))
        snprintf(body, cap, "[{\"vendor_id\": \"hcloud\", \"api_reference\": \"cx22\", "
                            "\"vcpus\": 2, \"memory_amount\": 4096, \"gpu_count\": 0, "
                            "\"min_price_ondemand\": 0.006}]");
    else
        snprintf(body, cap, "[]");
    return 0;
}

/* AWS's instance metadata (IMDSv2) and the Keeper, at one base URL: the run
 * is a g5.xlarge in eu-west-1, which the Keeper prices at $1.5 an hour on
 * demand there (and at other prices elsewhere, or as spot). */
static int cloud_and_keeper(const char *method, const char *path, const char *headers,
                            int *status, char *body, size_t cap)
{
    *status = 200;
    body[0] = '\0';
    if (!strcmp(method, "PUT") && !strcmp(path, "/latest/api/token"))
        snprintf(body, cap, "TOKEN9");
    else if (strstr(headers, "X-aws-ec2-metadata-token: TOKEN9") &&
             !strcmp(path, "/latest/meta-data/instance-type"))
        snprintf(body, cap, "g5.xlarge");
    else if (strstr(headers, "X-aws-ec2-metadata-token: TOKEN9") &&
             !strcmp(path, "/latest/meta-data/placement/region"))
        snprintf(body, cap, "eu-west-1");
    else if (strstr(headers, "X-aws-ec2-metadata-token: TOKEN9") &&
             !strcmp(path, "/latest/meta-data/services/domain"))
        snprintf(body, cap, "amazonaws.com");
    else if (strstr(path, "/servers?"))
        return keeper_answer(method, path, headers, status, body, cap);
    else if (!strcmp(path, "/server/aws/g5.xlarge/prices"))
        snprintf(body, cap, "[{\"region_id\": \"us-east-1\", \"allocation\": \"ondemand\", "
                 "\"operating_system\": \"Linux\", \"price\": 1.2}, {\"region_id\": \"eu-west-1\", "
                 "\"allocation\": \"spot\", \"operating_system\": \"Linux\", \"price\": 0.4}, "
                 "{\"region_id\": \"eu-west-1\", \"allocation\": \"ondemand\", "
                 "\"operating_system\": \"Linux\", \"price\": 1.5}]");
    else
        *status = 404;
    return 0;
}

/* report --server on a run recorded with --cloud: the run's price on the
 * recommended server and on its own instance (the region's on-demand Linux
 * price), and the saving. */
static void test_report_prices(void)
{
    struct httpd h;
    httpd_start(&h, cloud_and_keeper);
    setenv("GPU_TRACKER_METADATA_URL", h.base, 1);
    setenv("GPU_TRACKER_KEEPER_URL", h.base, 1);
    char snap[256], page_path[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("cloud-run.json.gz"));
    snprintf(page_path, sizeof page_path, "%s", tmp_path("cloud-run.html"));
    struct result r = gt("--cloud", "--snapshot", snap, "--st", "0.1", "--disable-logs", "--",
                         WORKLOAD_BIN, "burn", "0.3", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    r = gt("report", snap, "--server", "-o", page_path, NULL);
    CHECK_MSG(r.status == 0 && r.err.data[0] == '\0', "status %d: %s", r.status, r.err.data);
    result_free(&r);
    char *page = slurp(page_path);
    CHECK_CONTAINS(page, "cx22");
    CHECK_CONTAINS(page, "price of this run there");
    CHECK_CONTAINS(page, "at $0.006 an hour, on demand)");
    CHECK_CONTAINS(page, "price of this run where it ran");
    CHECK_CONTAINS(page, "(aws g5.xlarge at $1.5 an hour)");
    CHECK_CONTAINS(page, "saving with the recommended server");
    CHECK_CONTAINS(page, "(99.6 %)");
    free(page);
    unsetenv("GPU_TRACKER_METADATA_URL");
    unsetenv("GPU_TRACKER_KEEPER_URL");
    httpd_stop(&h);
}

/* Renders a report of a real run in headless Chromium (a sub-test of its
 * own: without Chromium it is skipped, saying so). */
/* The DOM headless Chromium renders of file://PAGE (PAGE may end in a
 * #fragment), in a window of SIZE pixels ("1280,900"; NULL: Chromium's
 * own); NULL when Chromium failed, which a failed check says. */
static char *rendered_dom(const char *page, const char *size)
{
    char dom[256], cmd[2048];
    snprintf(dom, sizeof dom, "%s", tmp_path("rendered-dom.html"));
    snprintf(cmd, sizeof cmd,
             "cd %s && HOME=%s timeout 120 chromium --headless=new --no-sandbox --disable-gpu "
             "%s%s --dump-dom 'file://%s' >%s 2>/dev/null", tmpdir, tmpdir,
             size ? "--hide-scrollbars --window-size=" : "", size ? size : "", page, dom);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "chromium --dump-dom exited %d", rc);
    return rc == 0 ? slurp(dom) : NULL;
}

/* A report a person reads, at 1 280 and 800 px: a job starved of CPU (a
 * busy process among twice as many spinners as cores) whose peak a
 * process with a long command line held. The verdict is said once on the
 * page, and every name in the peak tables is read in full (no cell cut:
 * its text fits its box, wrapping); a script appended to a copy of the
 * page measures them after layout. */
static void report_reads_in_full(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nspin = cores > 0 && cores < 32 ? (int)cores * 2 : 64;
    pid_t spinners[64];
    for (int i = 0; i < nspin; i++)
        if ((spinners[i] = fork()) == 0)
            for (;;)
                ; /* a busy loop until killed */
    char snap[256], html[256], script[600];
    snprintf(snap, sizeof snap, "%s", tmp_path("read.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("read.html"));
    snprintf(script, sizeof script,
             "exec -a /opt/research/venvs/vision/bin/python3-train_resnet50_imagenet_"
             "long_experiment_name.py %s hold 60 0.8 </dev/null", WORKLOAD_BIN);
    struct result r = gt("-q", "--st", "0.2", "--snapshot", snap, "-o", tmp_path("read.txt"),
                         "--", "bash", "-c", script, NULL);
    for (int i = 0; i < nspin; i++) {
        kill(spinners[i], SIGKILL);
        waitpid(spinners[i], NULL, 0);
    }
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    r = gt("report", snap, "-o", html, NULL);
    CHECK_MSG(r.status == 0, "report: %s", r.err.data);
    result_free(&r);
    char *page = slurp(html);
    int starved = page && strstr(page, "<b>CPU starved:</b>") != NULL;
    if (!starved)
        printf("report_chromium: the run was not starved here (no run-queue figures?): the "
               "single verdict is not checked\n");
    const char *check_html = tmp_path("read-check.html");
    FILE *f = fopen(check_html, "w");
    CHECK(page && f);
    if (page && f)
        fprintf(f, "%s<script>window.addEventListener('load', function () {"
                   "var cut = [];"
                   "document.querySelectorAll('table.peak td.cmd').forEach(function (td) {"
                   "if (td.scrollWidth > td.clientWidth + 1) cut.push(td.title.slice(0, 24)); });"
                   "var said = document.body.innerText.split('waited for a CPU').length - 1;"
                   "var pre = document.createElement('pre'); pre.id = 'read-test';"
                   "pre.textContent = 'cells ' + document.querySelectorAll('table.peak td.cmd')"
                   ".length + ' cut[' + cut.join('|') + '] verdicts ' + said;"
                   "document.body.appendChild(pre); });</script>\n", page);
    if (f)
        fclose(f);
    free(page);
    static const char *const sizes[] = {"1280,900", "800,900"};
    for (int i = 0; i < 2; i++) {
        char *text = rendered_dom(check_html, sizes[i]);
        const char *said = text ? strstr(text, "<pre id=\"read-test\">") : NULL;
        int cells = 0, verdicts = -1;
        const char *v = said ? strstr(said, "] verdicts ") : NULL;
        CHECK_MSG(said && sscanf(said, "<pre id=\"read-test\">cells %d", &cells) == 1 && v &&
                      sscanf(v, "] verdicts %d", &verdicts) == 1,
                  "at %s: %.200s", sizes[i], said ? said : "(no check ran)");
        CHECK_MSG(cells >= 1 && said && strstr(said, " cut[] "),
                  "at %s px: names cut in the peak table: %.200s", sizes[i], said ? said : "");
        if (starved)
            CHECK_MSG(verdicts == 1, "at %s px: the starved verdict said %d times", sizes[i],
                      verdicts);
        CHECK_MSG(text && strstr(text, "train_resnet50_imagenet_long_experiment_name.py"),
                  "at %s px: the long name is not on the page", sizes[i]);
        free(text);
    }
}

static void test_report_in_chromium(void)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0)
        SKIP_TEST("chromium is not installed (make check installs it, as root)");
    tmpdir_make("chromium");
    char html[256], data[256], pcsv[256], snap[256];
    snprintf(html, sizeof html, "%s", tmp_path("run.html"));
    snprintf(data, sizeof data, "%s", tmp_path("run.dat"));
    snprintf(pcsv, sizeof pcsv, "%s", tmp_path("run-process.csv"));
    snprintf(snap, sizeof snap, "%s", tmp_path("run.json.gz"));
    struct result r = gt("--st", "0.2", "--disable-logs", "--report", html, "--snapshot", snap,
                         "--process-csv", pcsv, "--", WORKLOAD_BIN, "io-alloc", "4", "32", data,
                         pcsv, "2", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    const char *png = tmp_path("report.png");
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && HOME=%s timeout 120 chromium --headless=new --no-sandbox --disable-gpu "
             "--hide-scrollbars --window-size=1200,1600 --screenshot=%s file://%s >/dev/null 2>&1",
             tmpdir, tmpdir, png, html);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "chromium exited %d", rc);
    unsigned char magic[8] = {0};
    FILE *f = fopen(png, "rb");
    size_t n = f ? fread(magic, 1, 8, f) : 0;
    long size = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    CHECK_MSG(n == 8 && !memcmp(magic, "\x89PNG\r\n\x1a\n", 8) && size > 20000,
              "no PNG rendered (%ld bytes)", size);

    /* Hover, in Chromium: opened with #hover-test, the page moves a real
     * mousemove over each chart and lists what the line under the chart
     * then said. */
    char page_at[300];
    snprintf(page_at, sizeof page_at, "%s#hover-test", html);
    char *text = rendered_dom(page_at, NULL);
    const char *said = text ? strstr(text, "<pre id=\"hover-test\">") : NULL;
    CHECK_MSG(said != NULL, "the hover test did not run in Chromium");
    if (said) {
        /* "Process CPU usage @ 0:01  ·  tracked processes: 0.52 cores", then
         * "System CPU usage @ 0:01  ·  whole system: 1.1 cores" */
        const char *cpu = strstr(said, "Process CPU usage @ ");
        double tracked = -1;
        const char *t = cpu ? strstr(cpu, "tracked processes: ") : NULL;
        CHECK_MSG(t && sscanf(t, "tracked processes: %lf cores", &tracked) == 1 && tracked >= 0,
                  "hover over the CPU chart said [%.200s]", cpu ? cpu : said);
        CHECK_CONTAINS(said, "System CPU usage @ ");
        CHECK_CONTAINS(said, "whole system: ");
        CHECK_CONTAINS(said, "Memory @ ");
        CHECK_CONTAINS(said, " MiB");
        /* the memory chart names the largest process under the pointer */
        const char *mem = strstr(said, "Memory @ ");
        const char *mem_eol = mem ? strchr(mem, '\n') : NULL;
        const char *largest = mem ? strstr(mem, "largest: gt-workload (PID ") : NULL;
        CHECK_MSG(largest && mem_eol && largest < mem_eol,
                  "hover over the memory chart did not name the process: [%.200s]",
                  mem ? mem : said);
        CHECK_CONTAINS(text, "Who held the memory peak: ");
        CHECK_CONTAINS(text, "<h2 id=\"who\">Who held it</h2>");
        CHECK_CONTAINS(said, "Disk I/O @ ");
        CHECK_CONTAINS(said, "Network @ ");
        /* the system's pressure, where the kernel keeps it */
        if (access("/proc/pressure/cpu", R_OK) == 0) {
            CHECK_CONTAINS(said, "Pressure (whole system) @ ");
            CHECK_CONTAINS(said, "% stalled");
        }
    }
    free(text);

    /* At 1 280 px nothing is wider than its box: the page scrolls only
     * down, and "Who held the memory peak" (a long command line, beside
     * the memory chart) needs no horizontal scroll. A script appended to
     * a copy of the page measures every table after layout. */
    char *page = slurp(html);
    const char *fit_html = tmp_path("fit.html");
    FILE *ff = fopen(fit_html, "w");
    CHECK(page && ff);
    if (page && ff)
        fprintf(ff, "%s<script>window.addEventListener('load', function () {"
                    "var wide = [], root = document.documentElement;"
                    "document.querySelectorAll('table').forEach(function (t) {"
                    "var box = t.parentElement;"
                    "if (t.getBoundingClientRect().right > root.clientWidth + 0.5 || "
                    "box.scrollWidth > box.clientWidth + 1) wide.push(t.id || t.className || "
                    "'table'); });"
                    "if (root.scrollWidth > root.clientWidth) wide.push('page');"
                    "var pre = document.createElement('pre'); pre.id = 'fit-test';"
                    "pre.textContent = 'width ' + root.clientWidth + ' wide[' + wide.join(',') + "
                    "']'; document.body.appendChild(pre); });</script>\n", page);
    if (ff)
        fclose(ff);
    free(page);
    text = rendered_dom(fit_html, "1280,900");
    CHECK_CONTAINS(text, "id=\"at-peak-memory\"");
    CHECK_CONTAINS(text, "<pre id=\"fit-test\">width 1280 wide[]</pre>");
    free(text);
    report_reads_in_full();

    /* Code blocks of a sub-tracking file, shaded: the hover at the middle
     * of each chart names the block whose call covers it. */
    gt_snapshot *sn = NULL;
    CHECK(gt_snapshot_read(snap, 0, &sn) == GT_OK);
    if (sn) {
        double t0 = sn->start_time, span = sn->stop_time - sn->start_time;
        gt_snapshot_free(sn);
        char marks[256], blocks_html[256];
        snprintf(marks, sizeof marks, "%s", tmp_path("marks.csv"));
        snprintf(blocks_html, sizeof blocks_html, "%s", tmp_path("blocks.html"));
        FILE *mf = fopen(marks, "w");
        fprintf(mf, "process_id,code_block_name,position,timestamp\n1,warm up,0,%.6f\n"
                    "1,warm up,1,%.6f\n1,middle step,0,%.6f\n1,middle step,1,%.6f\n",
                t0, t0 + 0.2 * span, t0 + 0.35 * span, t0 + 0.75 * span);
        fclose(mf);
        r = gt("report", snap, "--stf", marks, "-o", blocks_html, NULL);
        CHECK_MSG(r.status == 0, "report --stf: %s", r.err.data);
        result_free(&r);
        snprintf(page_at, sizeof page_at, "%s#hover-test", blocks_html);
        text = rendered_dom(page_at, NULL);
        said = text ? strstr(text, "<pre id=\"hover-test\">") : NULL;
        CHECK_MSG(said != NULL, "the hover test did not run in Chromium");
        /* "CPU usage @ 0:01  ·  tracked processes: ...  ·  in middle step" */
        const char *cpu = said ? strstr(said, "CPU usage @ ") : NULL;
        const char *eol = cpu ? strchr(cpu, '\n') : NULL;
        const char *in = cpu ? strstr(cpu, "in middle step") : NULL;
        CHECK_MSG(in && eol && in < eol, "hover did not name the block: [%.200s]",
                  cpu ? cpu : "");
        CHECK(said && !strstr(said, "warm up"));
        /* The rendered page has the shaded spans (one per chart and call). */
        const char *dom_rect = text ? strstr(text, "<rect class=\"block\"") : NULL;
        CHECK_MSG(dom_rect != NULL, "no shaded span in Chromium's DOM");
        CHECK_CONTAINS(text, "<h2>Code blocks</h2>");
        free(text);
    }
    tmpdir_remove();
}

static void test_snapshot_and_report(void)
{
    /* tmp_path() reuses its buffers: keep our own copies. */
    char snap[256], html[256], pcsv[256], data[256];
    snprintf(snap, sizeof snap, "%s", tmp_path("run.json.gz"));
    snprintf(html, sizeof html, "%s", tmp_path("run.html"));
    snprintf(pcsv, sizeof pcsv, "%s", tmp_path("snap-process.csv"));
    snprintf(data, sizeof data, "%s", tmp_path("snap.dat"));
    struct result r = gt("--st", "0.2", "--disable-logs", "--snapshot", snap, "--report", html,
                         "--process-csv", pcsv, "--", WORKLOAD_BIN, "io-alloc", "4", "32", data,
                         pcsv, "2", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.out.data, "Max RAM:");
    result_free(&r);

    r = gt("stats", snap, NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "   CPU usage:       mean ");
    CHECK_CONTAINS(r.out.data, "   memory (PSS):    mean ");
    /* For a person: sizes in units chosen by size (32 MiB held: MiB), no
     * row of zeros for a GPU nobody used; -f json keeps kB and bytes. */
    const char *mem = strstr(r.out.data, "   memory (PSS):");
    CHECK_MSG(mem && strstr(mem, " MiB\n") && !strstr(r.out.data, " kB"), "stats: %s", r.out.data);
    CHECK_CONTAINS(r.out.data, "   GPU:             none used\n");
    /* (the machine's own traffic: "0 B" or "1.20 KiB", whatever it was) */
    CHECK_MSG(strstr(r.out.data, "bytes") == NULL && strstr(r.out.data, "B received, "),
              "stats: %s", r.out.data);
    result_free(&r);
    /* The report of a -f human run (bytes and seconds inside): its
     * gpu_tracker block in units a person reads. */
    char human_html[256];
    snprintf(human_html, sizeof human_html, "%s", tmp_path("human.html"));
    r = gt("-q", "-f", "human", "--st", "0.2", "--report", human_html, "--", WORKLOAD_BIN,
           "exit", "0", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    char *human_page = slurp(human_html);
    const char *block = human_page ? strstr(human_page, "<h2>gpu_tracker summary</h2>") : NULL;
    CHECK_MSG(block && strstr(block, "Unit: megabytes") && !strstr(block, "Unit: bytes"),
              "%.600s", block ? block : "(no block)");
    free(human_page);
    /* gpu_tracker's default units (gigabytes, hours) likewise: a run of
     * under a second reads in seconds, not 0.0001 hours. */
    r = gt("-q", "--st", "0.2", "--report", human_html, "-o", tmp_path("hours.txt"), "--",
           WORKLOAD_BIN, "exit", "0", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    human_page = slurp(human_html);
    block = human_page ? strstr(human_page, "<h2>gpu_tracker summary</h2>") : NULL;
    CHECK_MSG(block && strstr(block, "Compute time:\n   Unit: seconds\n") &&
                  strstr(block, "Unit: megabytes") && !strstr(block, "Unit: hours"),
              "%.800s", block ? block : "(no block)");
    free(human_page);
    r = gt("stats", snap, "-f", "json", NULL);
    CHECK(r.status == 0);
    json_object *j = parse_or_fail(r.out.data, "stats -f json");
    CHECK(j && jnum(j, "process_memory.max") >= 32 * 1024);
    /* Two rows 0.2 s apart, plus one interval; a difference of two epoch
     * timestamps, so within float noise of 0.4. */
    double duration = j ? jnum(j, "timestamp.duration") : 0;
    CHECK_MSG(duration > 0.4 - 1e-6, "duration %.17g", duration);
    CHECK(j && !isnan(jnum(j, "system_net_recv_bytes.sum")));
    if (j)
        json_object_put(j);
    result_free(&r);
    /* (two files: a second name of one is refused, tested in test_job) */
    char snap_copy[4200];
    snprintf(snap_copy, sizeof snap_copy, "%s", tmp_path("copy.json.gz"));
    fx_copy(snap, snap_copy);
    r = gt("stats", snap, snap_copy, "-f", "json", NULL);
    j = parse_or_fail(r.out.data, "stats of two runs");
    /* Two runs, as resource_tracker's aggregate_stats: durations averaged,
     * maxima maxed. */
    CHECK(j && jnum(j, "combined.timestamp.duration") == duration);
    CHECK(j && jnum(j, "combined.process_memory.max") == jnum(j, "runs.0.stats.process_memory.max"));
    if (j)
        json_object_put(j);
    result_free(&r);

    /* Recommendations: 32 MiB held -> 128 MiB is not enough? 32 MiB + the
     * program, * 1.2: well under 128. */
    r = gt("recommend", snap, "-f", "json", NULL);
    CHECK(r.status == 0);
    j = parse_or_fail(r.out.data, "recommend -f json");
    CHECK(j && jnum(j, "cpu") == 1 && jnum(j, "memory") == 128 && jnum(j, "gpu") == 0 &&
          jnum(j, "vram") == 0);
    if (j)
        json_object_put(j);
    result_free(&r);
    r = gt("recommend", snap, NULL);
    CHECK_STR(r.out.data, "cpu: 1\nmemory: 128 MiB\ngpu: 0\nvram: 0 MiB\n");
    result_free(&r);

    /* --cloud without --snapshot or --report: nothing would keep what the
     * metadata services say, so they are not asked, and a warning says so. */
    struct httpd h;
    httpd_start(&h, keeper_answer);
    setenv("GPU_TRACKER_METADATA_URL", h.base, 1);
    /* 0.3 s of work: time enough for a discovery to make its first request. */
    r = gt("--cloud", "--st", "0.05", "--", WORKLOAD_BIN, "burn", "0.3", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: warning: --cloud has no effect without --snapshot "
                   "or --report (the cloud instance is recorded only there); not asking\n");
    CHECK_MSG(h.requests == 0, "%d metadata requests for a run that keeps no cloud info",
              (int)h.requests);
    result_free(&r);
    unsetenv("GPU_TRACKER_METADATA_URL");
    httpd_stop(&h);

    /* --server: a fake Keeper; and offline. */
    httpd_start(&h, keeper_answer);
    setenv("GPU_TRACKER_KEEPER_URL", h.base, 1);
    r = gt("recommend", snap, "--server", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "server: vendor_id=hcloud api_reference=cx22 vcpus=2");
    result_free(&r);
    r = gt("recommend", snap, "--server", "-f", "json", NULL);
    j = parse_or_fail(r.out.data, "recommend --server -f json");
    CHECK(j && jnum(j, "resources.cpu") == 1 && jnum(j, "server.min_price_ondemand") == 0.006);
    if (j)
        json_object_put(j);
    result_free(&r);
    r = gt("report", snap, "--server", "-o", tmp_path("with-server.html"), NULL);
    CHECK(r.status == 0);
    char *page = slurp(tmp_path("with-server.html"));
    CHECK_CONTAINS(page, "cx22");
    free(page);
    result_free(&r);
    httpd_stop(&h);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", httpd_closed_port());
    setenv("GPU_TRACKER_KEEPER_URL", url, 1);
    /* No network: the local recommendation, then the one-line reason the
     * server part is missing; exit 1 (what was asked is not all there). */
    r = gt("recommend", snap, "--server", NULL);
    CHECK(r.status == 1);
    CHECK_MSG(!strncmp(r.out.data, "cpu: ", 5) && strstr(r.out.data, "\nmemory: ") &&
                  !strstr(r.out.data, "server:"), "stdout: %s", r.out.data);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: no server recommendation: cannot reach the Keeper "
                               "API at http://127.0.0.1:");
    CHECK_CONTAINS(r.err.data, "; the resources above are the local recommendation\n");
    /* The reason is one line, the last (a machine the other tests kept busy
     * may add the starved-CPU warning before it: that is a diagnosis, not
     * noise). */
    const char *reason = strstr(r.err.data, "gpu-tracker: no server recommendation: ");
    CHECK(reason && strchr(reason, '\n') == r.err.data + strlen(r.err.data) - 1);
    for (const char *line = r.err.data; reason && line < reason; line = strchr(line, '\n') + 1)
        CHECK_MSG(!strncmp(line, "gpu-tracker: warning: the cpu above may be low: ", 48), "stderr: %s",
                  r.err.data);
    result_free(&r);
    r = gt("recommend", snap, "--server", "-f", "json", NULL);
    CHECK(r.status == 1);
    json_object *offline = parse_or_fail(r.out.data, "recommend --server -f json offline");
    if (offline) {
        CHECK(jnum(offline, "cpu") >= 1);
        json_object_put(offline);
    }
    result_free(&r);
    /* The report goes on without it, saying so. */
    r = gt("report", snap, "--server", "-o", tmp_path("offline.html"), NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.err.data, "the report has no server recommendation");
    result_free(&r);
    unsetenv("GPU_TRACKER_KEEPER_URL");

    /* The run's report, and one made from the snapshot. */
    char *a = slurp(html);
    CHECK_CONTAINS(a, "<svg");
    CHECK_CONTAINS(a, "io-alloc 4 32");
    CHECK_CONTAINS(a, "exit 0");
    free(a);
    r = gt("report", snap, NULL);
    CHECK(r.status == 0 && strncmp(r.out.data, "<!DOCTYPE html>", 15) == 0);
    CHECK(!strstr(r.out.data, "(history: "));
    result_free(&r);
    /* --history: earlier runs' statistics beside this one's (here the same
     * run twice, so the history's figures are this run's). */
    r = gt("report", snap, "--history", snap, snap, NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.out.data, "History: 2 earlier runs of the same program and script");
    const char *cpu_row = strstr(r.out.data, "CPU usage (cores)");
    double mean = -1, max = -1, h_mean = -2, h_max = -2;
    const char *td = cpu_row ? strstr(cpu_row, "<td>") : NULL;
    CHECK(td && sscanf(td, "<td>%lf mean, %lf max (history: %lf mean, %lf max)", &mean, &max,
                       &h_mean, &h_max) == 4);
    CHECK_MSG(mean == h_mean && max == h_max, "this run %g/%g, history %g/%g", mean, max, h_mean,
              h_max);
    result_free(&r);
    r = gt("report", snap, "--history", tmp_path("no-such-run.json.gz"), NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: --history: cannot read '");
    result_free(&r);
    /* A run of another program is no earlier run of this one: left out,
     * said with what it ran. */
    char other[256];
    snprintf(other, sizeof other, "%s", tmp_path("other-program.json.gz"));
    r = gt("-q", "--snapshot", other, "-o", "/dev/null", "--", "true", NULL);
    CHECK(r.status == 0);
    result_free(&r);
    r = gt("report", snap, "--history", snap, other, NULL);
    CHECK_MSG(r.status == 0, "%d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.out.data, "History: 1 earlier run of the same program and script");
    CHECK_CONTAINS(r.err.data, "other-program.json.gz' ran 'true', not this run's program and "
                               "script ('");
    CHECK_CONTAINS(r.err.data, "'): left out\n");
    result_free(&r);
    r = gt("report", snap, "--history", other, NULL);
    CHECK(r.status == 0 && !strstr(r.out.data, "History:"));
    result_free(&r);

    /* Errors: one line, and the exit status. */
    r = gt("stats", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: usage: gpu-tracker stats SNAPSHOT... [-f text|json] [--max-rows N]\n");
    result_free(&r);
    r = gt("stats", tmp_path("nothing.json.gz"), NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: cannot read '");
    result_free(&r);
    fx_write(tmpdir, "broken.json.gz", "\x1f\x8b\x08\x00broken");
    r = gt("recommend", tmp_path("broken.json.gz"), NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "is not a valid snapshot: the gzip data is");
    result_free(&r);
    r = gt("stats", snap, "-f", "xml", NULL);
    CHECK(r.status == 2);
    CHECK_STR(r.err.data, "gpu-tracker: unknown format 'xml'; valid formats: text, json\n");
    result_free(&r);
    r = gt("report", snap, snap, NULL);
    CHECK(r.status == 2);
    result_free(&r);
    r = gt("report", snap, "-o", "/nonexistent/dir/r.html", NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "cannot write output file '/nonexistent/dir/r.html'");
    result_free(&r);
    const char *marker = tmp_path("snap-ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    r = gt("--snapshot", "/nonexistent/dir/s.json.gz", "-e", touch, NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "cannot write --snapshot file '/nonexistent/dir/s.json.gz'");
    struct stat sb;
    CHECK(stat(marker, &sb) != 0);
    result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "report-chromium")) {
        test_report_in_chromium();
        return check_exit("test_series_cli report-chromium");
    }
    tmpdir_make("series");
    test_run_with_both_series();
    test_system_command();
    test_system_signals();
    test_series_on_stdout();
    test_resource_tracker_options();
    test_attached_series();
    test_errors();
    test_full_disk();
    test_snapshot_and_report();
    test_report_prices();
    tmpdir_remove();
    return check_exit("test_series_cli");
}
