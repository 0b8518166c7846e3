/* test_hostile.c - files and answers from untrusted sources: snapshots and
 * summaries with absurd, non-finite or out-of-range values, compression
 * bombs, broken structure, command lines of any bytes and length, a server
 * answer with terminal escapes. Each is refused with one line (or handled),
 * at a bounded cost, and nothing hangs. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <sys/resource.h>
#include <zlib.h>

#include "gpu_tracker_tools.h"
#include "httpd.h"
#include "runner.h"
#include "common/summary/usage_write.h"

/* 1 when text has a bare nan or inf where a JSON value goes. */
static int has_non_json_number(const char *text)
{
    const char *bad[] = {":nan", ",nan", "[nan", ":inf", ",inf", "[inf", ":-inf", ",-inf",
                         "[-inf", ": nan", ": inf", ": -inf"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (strstr(text, bad[i]))
            return 1;
    return 0;
}

/* ---- making files ------------------------------------------------------- */

static void write_raw(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        perror(path);
        exit(99);
    }
    fclose(f);
}

/* gzip of text (one member) appended to out; returns the bytes. */
static size_t gzip_into(const char *text, size_t len, unsigned char **out, size_t *cap, size_t at)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    size_t need = deflateBound(&z, (uLong)len) + 64;
    if (at + need > *cap) {
        *cap = at + need;
        *out = realloc(*out, *cap);
    }
    z.next_in = (Bytef *)text;
    z.avail_in = (uInt)len;
    z.next_out = *out + at;
    z.avail_out = (uInt)(*cap - at);
    deflate(&z, Z_FINISH);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

static void write_gz(const char *path, const char *text)
{
    unsigned char *buf = NULL;
    size_t cap = 0, n = gzip_into(text, strlen(text), &buf, &cap, 0);
    write_raw(path, buf, n);
    free(buf);
}

/* A good snapshot's JSON: three constructed rows. */
static char *good_json(void)
{
    gt_snapshot s;
    memset(&s, 0, sizeof s);
    gt_process_row p[3];
    gt_system_row y[3];
    memset(p, 0, sizeof p);
    memset(y, 0, sizeof y);
    for (int i = 0; i < 3; i++) {
        p[i].timestamp = y[i].timestamp = 1700000001.0 + i;
        p[i].cpu_usage = 0.5 * (i + 1);
        p[i].memory = 1000 * (unsigned long long)(i + 1);
        y[i].cpu_usage = 1.0;
    }
    s.format_version = GT_SNAPSHOT_FORMAT;
    s.interval = 1.0;
    s.start_time = 1700000000.0;
    s.stop_time = 1700000003.0;
    s.duration = 3.0;
    s.exit_status = 0;
    s.command = "train";
    snprintf(s.usage.max_ram.unit, sizeof s.usage.max_ram.unit, "gigabytes");
    snprintf(s.usage.max_gpu_ram.unit, sizeof s.usage.max_gpu_ram.unit, "gigabytes");
    snprintf(s.usage.compute_time.unit, sizeof s.usage.compute_time.unit, "hours");
    s.series.interval = 1.0;
    s.series.nprocess = s.series.nsystem = 3;
    s.series.process = p;
    s.series.system = y;
    char *json = gt_snapshot_to_json(&s, GT_SNAPSHOT_GPU_TRACKER);
    CHECK(json != NULL);
    return json;
}

/* good with the first from replaced by to. */
static char *replaced(const char *good, const char *from, const char *to)
{
    const char *at = strstr(good, from);
    CHECK_MSG(at != NULL, "the fixture lacks [%s]", from);
    if (!at)
        return strdup(good);
    char *out = malloc(strlen(good) - strlen(from) + strlen(to) + 1);
    memcpy(out, good, (size_t)(at - good));
    strcpy(out + (at - good), to);
    strcat(out, at + strlen(from));
    return out;
}

/* The file is refused with a message containing why, in one line. */
static void check_refused(const char *path, const char *why)
{
    gt_snapshot *s = (gt_snapshot *)1;
    gt_status st = gt_snapshot_read(path, 0, &s);
    CHECK_MSG(st == GT_ERR_PARSE && s == NULL, "%s: status %d", why, (int)st);
    CHECK_CONTAINS(gt_last_error(), why);
    CHECK(strchr(gt_last_error(), '\n') == NULL);
}

/* ---- values ---------------------------------------------------------------- */

/* Non-finite, huge and out-of-range values are refused where they are
 * loaded: the report's chart no longer sees a cpu_usage of 1.7e308 (it
 * looped for ever), recommend no longer turns one into -2147483648. */
static void test_values(void)
{
    char *good = good_json();
    const char *path = tmp_path("bad.json.gz");
    const struct {
        const char *from, *to, *why;
    } cases[] = {
        {"\"cpu_usage\":[0.5", "\"cpu_usage\":[1.7e308",
         "\"process_metrics.cpu_usage[0]\" should be a number from 0 to 1e+06, not 1.7e+308"},
        {"\"cpu_usage\":[0.5", "\"cpu_usage\":[NaN",
         "\"process_metrics.cpu_usage[0]\" should be a number from 0 to 1e+06, not nan"},
        {"\"cpu_usage\":[0.5", "\"cpu_usage\":[1e400",
         "\"process_metrics.cpu_usage[0]\" should be a number from 0 to 1e+06, not inf"},
        {"\"cpu_usage\":[0.5", "\"cpu_usage\":[-0.5", "not -0.5"},
        {"\"memory\":[1000", "\"memory\":[99999999999999999999",
         "\"process_metrics.memory[0]\" should be an integer from 0 to 1125899906842624, not "
         "18446744073709551615"},
        {"\"memory\":[1000", "\"memory\":[1000.5", "\"process_metrics.memory[0]\" should be an integer"},
        {"\"pid\":[0", "\"pid\":[4294967297", "\"process_metrics.pid[0]\" should be an integer"},
        {"\"format_version\":1", "\"format_version\":4294967297",
         "format version 4294967297; this gpu-tracker reads version 1"},
        {"\"format_version\":1", "\"format_version\":1.0", "\"metadata.format_version\" should be an integer"},
        {"\"interval\":1.0", "\"interval\":1e-300", "\"metadata.interval\" should be a number from 0.0001"},
        {"\"start_time\":1700000000.0", "\"start_time\":Infinity",
         "\"metadata.start_time\" should be a number from 0 to 1e+10, not inf"},
        {"\"exit_status\":0", "\"exit_status\":4294967296", "\"metadata.exit_status\" should be an integer from 0 to 255"},
        {"\"system_capacity\":0.0", "\"system_capacity\":-1.0",
         "\"summary.max_ram.system_capacity\" should be a number from 0 to 1e+18, not -1"},
        {"\"unit\":\"gigabytes\"", "\"unit\":\"\\u001b[2Jparsecs\"",
         "\"summary.max_ram.unit\" should be one of bytes, kilobytes"},
        {"\"time\":0.0", "\"time\":1e19", "\"summary.compute_time.time\" should be a number"},
        {"\"main_n_threads\":0", "\"main_n_threads\":-2147483649", "should be an integer from 0"},
        {"\"vcpus\":0", "\"vcpus\":1e9", "\"server_info.vcpus\" should be an integer"},
        {"\"command\":\"train\"", "\"command\":\"tr\\u0000ain\"", "without NUL"},
        {"\"command\":\"train\"", "\"command\":\"tr\xff" "ain\"", "invalid utf-8"},
        {"\"allocation\":\"unknown\"", "\"allocation\":\"cloud\"", "should be dedicated, shared or unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *bad = replaced(good, cases[i].from, cases[i].to);
        write_gz(path, bad);
        check_refused(path, cases[i].why);
        free(bad);
    }

    /* Through the commands: one line, exit 1, quickly (the chart used to
     * loop for ever on this one). */
    char *bad = replaced(good, "\"cpu_usage\":[0.5", "\"cpu_usage\":[1.7e308");
    write_gz(path, bad);
    free(bad);
    const char *cmds[] = {"report", "recommend", "stats"};
    for (size_t i = 0; i < 3; i++) {
        char *argv[] = {GT_BIN, (char *)cmds[i], (char *)path, NULL};
        struct child c = spawn(argv, 0);
        struct result r;
        memset(&r, 0, sizeof r);
        finish_within(&c, &r, 60, cmds[i]);
        char want[512];
        snprintf(want, sizeof want, "gpu-tracker: '%s' is not a valid snapshot: "
                 "\"process_metrics.cpu_usage[0]\" should be a number from 0 to 1e+06, not "
                 "1.7e+308\n", path);
        CHECK_MSG(r.status == 1, "%s: status %d", cmds[i], r.status);
        CHECK_STR(r.err.data, want);
        CHECK_STR(r.out.data, "");
        result_free(&r);
    }
    free(good);
}

/* ---- structure ------------------------------------------------------------ */

static void test_structure(void)
{
    char *good = good_json();
    size_t len = strlen(good);
    const char *path = tmp_path("s.json.gz");

    /* Something after the document, plain or inside the gzip. */
    char *tail = malloc(len + 8);
    snprintf(tail, len + 8, "%s x", good);
    write_raw(path, tail, strlen(tail));
    check_refused(path, "not JSON (something after the end of the document");
    write_gz(path, tail);
    check_refused(path, "not JSON (something after the end of the document");
    free(tail);

    /* A second gzip member, and garbage after the gzip stream. */
    unsigned char *buf = NULL;
    size_t cap = 0, n = gzip_into(good, len, &buf, &cap, 0);
    size_t n2 = gzip_into(good, len, &buf, &cap, n);
    write_raw(path, buf, n + n2);
    check_refused(path, "something follows the gzip data (another member or garbage)");
    memcpy(buf + n, "garbage", 7);
    write_raw(path, buf, n + 7);
    check_refused(path, "something follows the gzip data");
    free(buf);

    /* A key twice; nesting 100 deep under an unknown key. */
    char *twice = replaced(good, "{\"metadata\":", "{\"cloud_info\":null,\"metadata\":");
    write_gz(path, twice);
    check_refused(path, "key \"cloud_info\" appears twice");
    free(twice);
    char deep[400] = "{\"x\":";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    strcat(deep, ",");
    char *nested = replaced(good, "{", deep);
    write_gz(path, nested);
    check_refused(path, "nesting deeper than allowed");
    free(nested);

    /* An unknown key is skipped, not parsed: a big one costs no tree. */
    char *unknown = replaced(good, "{\"metadata\":", "{\"future\":{\"a\":[1,2,3],\"b\":\"x\"},"
                                                    "\"metadata\":");
    write_gz(path, unknown);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(path, 0, &s) == GT_OK && s && s->series.nprocess == 3);
    gt_snapshot_free(s);
    free(unknown);
    free(good);
}

/* The peak RSS (MiB) of gpu-tracker ARGS, and its result. */
static double peak_mib(char *const argv[], struct result *r)
{
    struct child c = spawn(argv, 0);
    memset(r, 0, sizeof *r);
    if (!r->out.data)
        buf_append(&r->out, "", 0);
    read_until(c.out, &r->out, NULL);
    read_until(c.err, &r->err, NULL);
    close(c.out);
    close(c.err);
    int ws = 0;
    struct rusage ru;
    wait4(c.pid, &ws, 0, &ru);
    r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return (double)ru.ru_maxrss / 1024.0;
}

/* A compression bomb: 104 MB of "0," (52 million elements) gzipped to a few
 * hundred kilobytes, once as a series column and once under an unknown key.
 * The column is counted, found too long and refused before any of it is
 * parsed; the unknown key is skipped. Either way the cost stays bounded (it
 * was 3.8 GB of json-c objects). A memory figure from the kernel's count,
 * bounded by what the limits allow, not a timing. */
static void test_bomb(void)
{
    enum { ELEMENTS = 52000000 };
    char *good = good_json();
    size_t glen = strlen(good);
    size_t cap = (size_t)ELEMENTS * 2 + glen + 64;
    char *text = malloc(cap);
    const char *paths[2] = {tmp_path("bomb-column.json.gz"), tmp_path("bomb-unknown.json.gz")};
    for (int which = 0; which < 2; which++) {
        const char *anchor = which == 0 ? "\"timestamp\":[" : "{\"metadata\":";
        const char *at = strstr(good, anchor);
        size_t n = (size_t)(at - good);
        memcpy(text, good, n);
        if (which == 1) {
            memcpy(text + n, "{\"bomb\":[", 9);
            n += 9;
        } else {
            memcpy(text + n, anchor, strlen(anchor));
            n += strlen(anchor);
        }
        for (size_t i = 0; i < ELEMENTS; i++) {
            text[n++] = '0';
            text[n++] = ',';
        }
        text[n++] = '0';
        if (which == 1) {
            memcpy(text + n, "],\"metadata\":", 13);
            n += 13;
        } else {
            text[n++] = ',';
        }
        size_t rest = strlen(at + strlen(anchor));
        memcpy(text + n, at + strlen(anchor), rest + 1);
        n += rest;
        unsigned char *gz = NULL;
        size_t gcap = 0, glen2 = gzip_into(text, n, &gz, &gcap, 0);
        write_raw(paths[which], gz, glen2);
        CHECK_MSG(glen2 < 1024 * 1024, "bomb of %zu bytes", glen2);
        free(gz);
    }
    free(text);
    free(good);

    char *argv[] = {GT_BIN, "stats", (char *)paths[0], NULL};
    struct result r;
    double peak = peak_mib(argv, &r);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "\"process_metrics\" has 52000004 rows; at most 1000000 are read");
    CHECK_MSG(peak < 512, "stats peaked at %.0f MiB on a compression bomb", peak);
    result_free(&r);
    argv[2] = (char *)paths[1];
    peak = peak_mib(argv, &r);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_MSG(peak < 512, "stats peaked at %.0f MiB skipping an unknown key", peak);
    result_free(&r);
    /* More rows than allowed is the user's to allow, knowingly. */
    char *more[] = {GT_BIN, "stats", "--max-rows", "0", (char *)paths[0], NULL};
    r = run_argv(more);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "invalid --max-rows '0'");
    result_free(&r);
}

/* ---- summaries --------------------------------------------------------------- */

static void test_summaries(void)
{
    /* A backup or a -f json summary with non-finite numbers: refused by
     * show, never printed as a bare nan (which no JSON reader takes). */
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
    snprintf(u.max_ram.unit, sizeof u.max_ram.unit, "megabytes");
    snprintf(u.max_gpu_ram.unit, sizeof u.max_gpu_ram.unit, "megabytes");
    snprintf(u.compute_time.unit, sizeof u.compute_time.unit, "seconds");
    u.max_ram.system = NAN;
    u.compute_time.time = INFINITY;
    char *json = usage_to_json(&u);
    CHECK(json && strstr(json, "\"system\": null") && strstr(json, "\"time\": null"));
    CHECK(json && !has_non_json_number(json));
    json_object *strict = json ? json_tokener_parse(json) : NULL;
    CHECK(strict != NULL); /* it is JSON */
    json_object_put(strict);
    const char *path = tmp_path("nan.json");
    write_raw(path, json, strlen(json));
    struct result r = gt("show", path, "-f", "json", NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "\"max_ram.system\" should be a number");
    CHECK_STR(r.out.data, "");
    result_free(&r);
    free(json);
    const char *texts[][2] = {
        {"\"time\": NaN", "\"compute_time.time\" should be a number from 0 to 1e+18, not nan"},
        {"\"time\": 1e400", "\"compute_time.time\" should be a number from 0 to 1e+18, not inf"},
        {"\"time\": -3.0", "not -3"},
    };
    gt_resource_usage ok = {.struct_size = sizeof(gt_resource_usage)};
    memset(&ok, 0, sizeof ok);
    ok.struct_size = sizeof ok;
    ok = u;
    ok.max_ram.system = 1;
    ok.compute_time.time = 2.5;
    char *good = usage_to_json(&ok);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *bad = replaced(good, "\"time\": 2.5", texts[i][0]);
        gt_resource_usage v = {.struct_size = sizeof(gt_resource_usage)};
        CHECK(gt_usage_from_json(bad, &v) == GT_ERR_PARSE);
        CHECK_CONTAINS(gt_last_error(), texts[i][1]);
        free(bad);
    }
    free(good);

    /* A gpu_tracker document has no gpu_details or measurement: show -f
     * json says nothing of them (it made up "GPU not available" and 0
     * samples for a run with 3 GPUs). */
    char conf[4200];
    snprintf(conf, sizeof conf, "%s/True-Linux-bytes-megabytes-seconds.json", CONFORMANCE_DIR);
    r = gt("show", conf, "-f", "json", NULL);
    CHECK(r.status == 0);
    CHECK(!strstr(r.out.data, "\"measurement\"") && !strstr(r.out.data, "\"gpu_details\""));
    CHECK_CONTAINS(r.out.data, "\"max_gpu_ram\"");
    CHECK_STR(r.err.data, ""); /* nor "the backup of a run that did not finish" */
    result_free(&r);
}

/* ---- command lines ---------------------------------------------------------- */

/* A command of any bytes and any length: the snapshot is valid UTF-8 JSON
 * for any reader (invalid bytes become U+FFFD) and holds it whole. */
static void test_command_text(void)
{
    char *long_arg = malloc(6001);
    memset(long_arg, 'y', 6000);
    long_arg[6000] = '\0';
    const char *snap = tmp_path("cmd.json.gz");
    char *argv[] = {GT_BIN, "--disable-logs", "--st", "0.05", "--snapshot", (char *)snap, "-o",
                    (char *)tmp_path("cmd.txt"), "--", "/bin/true", "caf\xe9\xff", long_arg, NULL};
    struct result r = run_argv(argv);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(snap, 0, &s) == GT_OK); /* strict: UTF-8 checked */
    if (s) {
        CHECK_CONTAINS(s->command, "/bin/true 'caf\xEF\xBF\xBD\xEF\xBF\xBD' yyyy");
        CHECK_MSG(strlen(s->command) > 6000, "the command has %zu bytes", strlen(s->command));
        CHECK(strstr(s->command, long_arg) != NULL);
    }
    gt_snapshot_free(s);
    free(long_arg);
}

/* ---- hand-made structs --------------------------------------------------- */

/* The public writers take structs a program fills by hand: absurd values
 * there must not hang or crash them (the tick loops count, the conversions
 * saturate). Run in a child with a deadline. */
static void test_absurd_structs(void)
{
    pid_t child = fork();
    if (child == 0) {
        alarm(60);
        gt_snapshot s;
        memset(&s, 0, sizeof s);
        gt_process_row p[2];
        gt_system_row y[2];
        memset(p, 0, sizeof p);
        memset(y, 0, sizeof y);
        p[0].timestamp = 1;
        p[1].timestamp = DBL_MAX;
        p[0].cpu_usage = DBL_MAX;
        p[1].cpu_usage = INFINITY;
        p[0].gpu_vram = NAN;
        y[0].disk_read_bytes = ~0ULL;
        y[1].timestamp = -DBL_MAX;
        s.series.nprocess = s.series.nsystem = 2;
        s.series.process = p;
        s.series.system = y;
        s.series.interval = s.interval = 1e-300;
        s.duration = DBL_MAX;
        s.start_time = -1;
        s.stop_time = NAN;
        char *html = gt_snapshot_report_html(&s, NULL, NULL);
        char *json = gt_snapshot_to_json(&s, GT_SNAPSHOT_GPU_TRACKER);
        int ok = html && json && !has_non_json_number(json);
        free(html);
        free(json);
        _exit(ok ? 0 : 1);
    }
    int ws = 0;
    waitpid(child, &ws, 0);
    CHECK_MSG(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "report of absurd values: status %d", ws);
}

/* ---- a server's answer ------------------------------------------------------- */

static int keeper_with_escapes(const char *method, const char *path, const char *headers,
                               int *status, char *body, size_t cap)
{
    (void)method;
    (void)path;
    (void)headers;
    *status = 200;
    snprintf(body, cap, "[{\"vendor_id\": \"\\u001b[2J\\u001b]0;pwned\\u0007cloud\", "
                        "\"api_reference\": \"x\\u009bm\", \"vcpus\": 2}]");
    return 0;
}

/* recommend --server prints the Keeper's strings escaped: an answer with
 * terminal escape sequences cannot clear or retitle the user's terminal. */
static void test_server_escapes(void)
{
    char *good = good_json();
    const char *snap = tmp_path("k.json.gz");
    write_gz(snap, good);
    free(good);
    struct httpd h;
    httpd_start(&h, keeper_with_escapes);
    setenv("GPU_TRACKER_KEEPER_URL", h.base, 1);
    struct result r = gt("recommend", snap, "--server", NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK(!strchr(r.out.data, '\x1b') && !strchr(r.out.data, '\x07'));
    CHECK_CONTAINS(r.out.data, "vendor_id=\\x1b[2J\\x1b]0;pwned\\x07cloud");
    CHECK_CONTAINS(r.out.data, "api_reference=x\\xc2\\x9bm");
    result_free(&r);
    unsetenv("GPU_TRACKER_KEEPER_URL");
    httpd_stop(&h);
}

int main(void)
{
    tmpdir_make("hostile");
    test_values();
    test_structure();
    test_bomb();
    test_summaries();
    test_command_text();
    test_absurd_structs();
    test_server_escapes();
    tmpdir_remove();
    return check_exit("test_hostile");
}
