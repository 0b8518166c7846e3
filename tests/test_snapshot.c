#define _GNU_SOURCE
/* Snapshots, statistics, recommendations, reports, server and cloud info
 * and the Keeper API, without the network: a snapshot round trip, every
 * kind of malformed file, statistics and recommendations of constructed
 * series against hand-computed answers (rounding boundaries included), the
 * report's structure and self-containment, and fake metadata and Keeper
 * servers on 127.0.0.1. */
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "test_tracker_new.h"
#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "httpd.h"
#include "read/server_info.h"
#include "common/exact_sum.h"
#include "stats/stats.h"
#include "pipeline/pipeline.h"
#include "common/buf.h"
#include "common/summary/usage_write.h"
#include "pipeline/allocation.h"

/* resource_tracker's allocation guess of a snapshot's series. */
static const char *allocation_of_series(const gt_series *series)
{
    struct row_source rows;
    row_source_from_series(&rows, series);
    return allocation_of_rows(&rows);
}

static char *dir;

static const char *path_in(const char *name)
{
    static char p[8][512];
    static int k;
    char *out = p[k++ % 8];
    snprintf(out, 512, "%s/%s", dir, name);
    return out;
}

/* Wall clock just before the last gt_tracker_start() of real_snapshot(). */
static double started_at;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A real (short) run of this process, with both series: 3 rows. */
static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&text, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static gt_snapshot *real_snapshot(int discover_cloud)
{
    gt_options o;
    test_options_init(&o);
    o.sleep_time = 0.05;
    o.duration = 0.15;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    o.resource_usage_file = "";
    o.gpu_brand = "nvidia";
    o.discover_cloud = discover_cloud;
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    gt_tracker *t = NULL;
    gt_snapshot *s = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    if (!t)
        return NULL;
    CHECK(gt_tracker_snapshot(t, "x", 0, &s) == GT_ERR_STATE);
    started_at = wall_now();
    CHECK(gt_tracker_start(t) == GT_OK);
    CHECK(gt_tracker_wait(t, 30) == 1);
    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_snapshot(t, "python train.py --epochs 3 <b>&", 3, &s) == GT_OK);
    /* The streamed writers (what gpu-tracker uses, rows read from the
     * tracker's store) give exactly what the in-memory snapshot gives. */
    if (s && !discover_cloud) {
        char streamed[600], copied[600], rs[600], rc[600];
        snprintf(streamed, sizeof streamed, "%s/streamed.json.gz", dir);
        snprintf(copied, sizeof copied, "%s/copied.json.gz", dir);
        snprintf(rs, sizeof rs, "%s/streamed.html", dir);
        snprintf(rc, sizeof rc, "%s/copied.html", dir);
        CHECK(gt_tracker_write_snapshot(t, s->command, 3, GT_SNAPSHOT_GPU_TRACKER, streamed) ==
              GT_OK);
        CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, copied) == GT_OK);
        CHECK(gt_tracker_write_report(t, s->command, 3, NULL, NULL, rs) == GT_OK);
        CHECK(gt_snapshot_write_report(s, NULL, NULL, rc) == GT_OK);
        gt_snapshot *a = NULL, *b = NULL;
        CHECK(gt_snapshot_read(streamed, 0, &a) == GT_OK && gt_snapshot_read(copied, 0, &b) == GT_OK);
        char *ja = a ? gt_snapshot_to_json(a, GT_SNAPSHOT_GPU_TRACKER) : NULL;
        char *jb = b ? gt_snapshot_to_json(b, GT_SNAPSHOT_GPU_TRACKER) : NULL;
        CHECK(ja && jb && strcmp(ja, jb) == 0);
        free(ja);
        free(jb);
        gt_snapshot_free(a);
        gt_snapshot_free(b);
        char *ha = slurp_file(rs), *hb = slurp_file(rc);
        CHECK(ha && hb && strcmp(ha, hb) == 0);
        free(ha);
        free(hb);
    }
    gt_tracker_free(t);
    return s;
}

static void test_round_trip(void)
{
    gt_snapshot *s = real_snapshot(0);
    if (!s)
        return;
    CHECK(s->format_version == GT_SNAPSHOT_FORMAT);
    CHECK_STR(s->command, "python train.py --epochs 3 <b>&");
    CHECK(s->exit_status == 3 && s->pid == getpid() && s->interval == 0.05);
    /* Up to 3 rows (a loaded machine may skip a 50 ms slot), both series alike. */
    size_t n = s->series.nprocess;
    CHECK(n >= 1 && n <= 3 && s->series.nsystem == n);
    CHECK(s->stop_time >= s->start_time && s->duration >= 0.15);
    CHECK(s->server.vcpus > 0 && s->server.memory_mib > 0 && s->server.vcpus_usable > 0);
    CHECK(s->server.kernel[0] && s->server.hostname[0]);
    CHECK_STR(s->host, s->server.hostname);
    CHECK(!s->cloud.asked);

    const char *p = path_in("run.json.gz");
    CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, p) == GT_OK);
    unsigned char magic[2] = {0, 0};
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0 && read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b);
    if (fd >= 0)
        close(fd);
    gt_snapshot *b = NULL;
    CHECK(gt_snapshot_read(p, 0, &b) == GT_OK);
    if (b) {
        CHECK_STR(b->command, s->command);
        CHECK_STR(b->tracker_version, gt_version());
        CHECK(b->exit_status == 3 && b->pid == s->pid && b->interval == s->interval);
        CHECK(b->start_time == s->start_time && b->stop_time == s->stop_time);
        CHECK(b->duration == s->duration);
        CHECK_STR(b->server.os, s->server.os);
        CHECK_STR(b->server.cpu_model, s->server.cpu_model);
        CHECK(b->server.vcpus == s->server.vcpus && b->server.memory_mib == s->server.memory_mib);
        CHECK(b->server.vcpus_usable == s->server.vcpus_usable);
        CHECK_STR(b->server.allocation, s->server.allocation);
        CHECK(!b->cloud.asked);
        char *ta = usage_to_text(&s->usage), *tb = usage_to_text(&b->usage);
        CHECK_STR(tb, ta);
        free(ta);
        free(tb);
        CHECK(b->series.nprocess == n && b->series.nsystem == n);
        for (size_t i = 0; i < n && b->series.nprocess == n && b->series.nsystem == n; i++) {
            CHECK(memcmp(&b->series.process[i], &s->series.process[i], sizeof(gt_process_row)) == 0);
            CHECK(memcmp(&b->series.system[i], &s->series.system[i], sizeof(gt_system_row)) == 0);
        }
        /* The JSON of what was read is the JSON of what was written. */
        char *ja = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
        char *jb = gt_snapshot_to_json(b, GT_SNAPSHOT_GPU_TRACKER);
        CHECK_STR(jb, ja);
        free(ja);
        free(jb);
        gt_snapshot_free(b);
    }
    /* Plain (gunzipped) JSON is read too. */
    char *json = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
    fx_write(dir, "plain.json", json);
    free(json);
    CHECK(gt_snapshot_read(path_in("plain.json"), 0, &b) == GT_OK);
    gt_snapshot_free(b);
    /* An unwritable path. */
    CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, "/nonexistent/dir/run.json.gz") ==
          GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "cannot write '/nonexistent/dir/run.json.gz'");
    gt_snapshot_free(s);
    gt_snapshot_free(NULL);
}

/* Writes text gzipped to name. */
static void write_gz(const char *name, const char *text, size_t cut)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.full", path_in(name));
    gzFile g = gzopen(tmp, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    FILE *in = fopen(tmp, "rb");
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, in);
    fclose(in);
    unlink(tmp);
    FILE *out = fopen(path_in(name), "wb");
    fwrite(buf, 1, cut && cut < n ? cut : n, out);
    fclose(out);
}

/* One malformed variant: the JSON of a good snapshot with one substring
 * replaced. */
static void check_rejected(const char *good, const char *from, const char *to, const char *why)
{
    const char *at = strstr(good, from);
    CHECK_MSG(at != NULL, "fixture lacks [%s]", from);
    if (!at)
        return;
    size_t len = strlen(good) - strlen(from) + strlen(to);
    char *bad = malloc(len + 1);
    memcpy(bad, good, (size_t)(at - good));
    strcpy(bad + (at - good), to);
    strcat(bad, at + strlen(from));
    write_gz("bad.json.gz", bad, 0);
    free(bad);
    gt_snapshot *s = (gt_snapshot *)1;
    CHECK(gt_snapshot_read(path_in("bad.json.gz"), 0, &s) == GT_ERR_PARSE && s == NULL);
    CHECK_CONTAINS(gt_last_error(), why);
    CHECK(strchr(gt_last_error(), '\n') == NULL);
}

static gt_snapshot *constructed(size_t n, const double *cpu, const unsigned long long *mem_kb,
                                const double *gpu, const double *vram, const int *used,
                                const double *disk_used_gb, const unsigned long long *rx,
                                const double *sys_cpu, const unsigned long long *sys_mem_kb);

static void test_malformed(void)
{
    /* A constructed run of exactly 3 rows, so that every variant below is
     * known to the byte. */
    gt_snapshot *s = constructed(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                *r = NULL;
    if (!s)
        return;
    char *good = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
    gt_snapshot_free(s);

    CHECK(gt_snapshot_read(path_in("missing.json.gz"), 0, &r) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "cannot read");
    CHECK(gt_snapshot_read(dir, 0, &r) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "it is a directory");
    fx_write(dir, "empty", "");
    CHECK(gt_snapshot_read(path_in("empty"), 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "is not a valid snapshot: it is empty");
    fx_write(dir, "text", "hello, world\n");
    CHECK(gt_snapshot_read(path_in("text"), 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "neither gzip nor JSON");
    /* Truncated gzip: half the file. */
    write_gz("cut.json.gz", good, 200);
    CHECK(gt_snapshot_read(path_in("cut.json.gz"), 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "the gzip data is truncated");
    /* Corrupt gzip: the magic, then garbage. */
    fx_write(dir, "corrupt.json.gz", "\x1f\x8b\x08\x00garbage garbage garbage garbage");
    CHECK(gt_snapshot_read(path_in("corrupt.json.gz"), 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "the gzip data is");
    /* Gzip of something that is not JSON. */
    write_gz("notjson.json.gz", "{\"metadata\": [1, 2", 0);
    CHECK(gt_snapshot_read(path_in("notjson.json.gz"), 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "not JSON");
    write_gz("array.json.gz", "[1, 2]", 0);
    CHECK(gt_snapshot_read(path_in("array.json.gz"), 0, &r) == GT_ERR_PARSE);

    check_rejected(good, "\"format_version\":1", "\"format_version\":2",
                   "format version 2; this gpu-tracker reads version 1");
    check_rejected(good, "\"format_version\":1", "\"format_version\":\"1\"",
                   "\"metadata.format_version\" should be an integer");
    check_rejected(good, "\"interval\":2.0", "\"interval\":0",
                   "\"metadata.interval\" should be a number from 0.0001 to 86400, not 0");
    check_rejected(good, "\"command\":", "\"kommand\":", "missing key \"metadata.command\"");
    check_rejected(good, "\"server_info\":{", "\"server_info\":[{}],\"x\":{",
                   "\"server_info\" should be an object");
    check_rejected(good, "\"cloud_info\":null", "\"cloud_info\":7",
                   "\"cloud_info\" should be an object or null");
    check_rejected(good, "\"max_ram\":", "\"max_rom\":", "missing key \"summary.max_ram\"");
    check_rejected(good, "\"process_metrics\":{\"timestamp\":[", "\"process_metrics\":{\"timestamp\":[1.5,",
                   "\"process_metrics.pid\" has 3 values, \"timestamp\" 4");
    check_rejected(good, "\"gpu_utilized\":[0,0,0],", "\"gpu_utilized\":[0,0,\"x\"],",
                   "\"system_metrics.gpu_utilized[2]\" should be an integer");
    /* A snapshot written before 0.3 has no pressure columns: it reads, its
     * rows with them 0. */
    {
        const char *from = strstr(good, ",\"pressure_ok\":");
        const char *to = from ? strstr(from, "]}}") : NULL;
        CHECK(from && to);
        if (from && to) {
            size_t keep = (size_t)(from - good);
            char *old = malloc(strlen(good) + 1);
            memcpy(old, good, keep);
            strcpy(old + keep, to + 1);
            write_gz("old.json.gz", old, 0);
            free(old);
            gt_snapshot *o = NULL;
            CHECK_MSG(gt_snapshot_read(path_in("old.json.gz"), 0, &o) == GT_OK, "%s",
                      gt_last_error());
            CHECK(o && o->series.nsystem == 3 && o->series.system[2].pressure_ok == 0 &&
                  o->series.system[2].gpu_utilized == 0);
            gt_snapshot_free(o);
        }
    }
    /* ours (0.3): optional, but checked when there */
    check_rejected(good, "\"pressure_io_full\":[0.0,0.0,0.0],",
                   "\"pressure_io_full\":[0.0,0.0,1.5],",
                   "\"system_metrics.pressure_io_full[2]\"");
    check_rejected(good, "\"system_metrics\":{\"timestamp\":[1700000002.0",
                   "\"system_metrics\":{\"timestamp\":[\"a\"",
                   "\"system_metrics.timestamp[0]\" should be a number");
    /* A negative count: the first value of read_bytes made -5. */
    const char *rb = strstr(good, "\"read_bytes\":[");
    if (rb) {
        const char *v0 = rb + strlen("\"read_bytes\":[");
        size_t vlen = strcspn(v0, ",]");
        char from[64], to[64];
        snprintf(from, sizeof from, "\"read_bytes\":[%.*s", (int)vlen, v0);
        snprintf(to, sizeof to, "\"read_bytes\":[-5");
        check_rejected(good, from, to, "\"process_metrics.read_bytes[0]\" should be an integer "
                                       "from 0 to 1152921504606846976, not -5");
    }
    check_rejected(good, "\"system_metrics\":", "\"sys_metrics\":", "missing key \"system_metrics\"");
    free(good);
}

/* A snapshot with constructed rows (no run behind it). */
static gt_snapshot *constructed(size_t n, const double *cpu, const unsigned long long *mem_kb,
                                const double *gpu, const double *vram, const int *used,
                                const double *disk_used_gb, const unsigned long long *rx,
                                const double *sys_cpu, const unsigned long long *sys_mem_kb)
{
    gt_snapshot *s = calloc(1, sizeof *s);
    gt_process_row *p = calloc(n ? n : 1, sizeof *p);
    gt_system_row *y = calloc(n ? n : 1, sizeof *y);
    for (size_t i = 0; i < n; i++) {
        p[i].timestamp = y[i].timestamp = 1700000000.0 + (double)(i + 1) * 2;
        p[i].cpu_usage = cpu ? cpu[i] : 0;
        p[i].memory = mem_kb ? mem_kb[i] : 0;
        p[i].gpu_usage = gpu ? gpu[i] : 0;
        p[i].gpu_vram = vram ? vram[i] : 0;
        p[i].gpu_utilized = used ? used[i] : 0;
        y[i].disk_space_used_gb = disk_used_gb ? disk_used_gb[i] : 0;
        y[i].net_recv_bytes = rx ? rx[i] : 0;
        y[i].net_sent_bytes = rx ? 2 * rx[i] : 0;
        y[i].cpu_usage = sys_cpu ? sys_cpu[i] : p[i].cpu_usage;
        y[i].memory_used = sys_mem_kb ? sys_mem_kb[i] : p[i].memory;
        y[i].gpu_usage = p[i].gpu_usage;
        y[i].gpu_vram = p[i].gpu_vram;
    }
    s->interval = 2;
    s->series.interval = 2;
    s->series.nprocess = s->series.nsystem = n;
    s->series.process = p;
    s->series.system = y;
    s->start_time = 1700000000.0;
    s->stop_time = 1700000000.0 + 2.0 * (double)n;
    s->duration = 2.0 * (double)n;
    s->exit_status = -1;
    s->format_version = GT_SNAPSHOT_FORMAT;
    snprintf(s->tracker_version, sizeof s->tracker_version, "%s", gt_version());
    snprintf(s->usage.max_ram.unit, sizeof s->usage.max_ram.unit, "gigabytes");
    snprintf(s->usage.max_gpu_ram.unit, sizeof s->usage.max_gpu_ram.unit, "gigabytes");
    snprintf(s->usage.compute_time.unit, sizeof s->usage.compute_time.unit, "hours");
    return s;
}

/* The exact mean against independent answers: Python's statistics.mean()
 * for cases where a running sum goes wrong, and exact rationals for many
 * values (multiples of 1/8 below 2^40: their sum and count are exact
 * integers, and an IEEE division of two exact integers rounds correctly). */
static void test_exact_mean(void)
{
    const struct {
        size_t n;
        double v[10];
        double python;
    } cases[] = {
        {10, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 0.1}, /* plain: 0.0999...9 */
        {3, {1e16, 1.0, -1e16}, 0.3333333333333333},
        {3, {5e-324, 5e-324, 0.0}, 5e-324},
        {2, {1.7976931348623157e308, 1.7976931348623157e308}, 1.7976931348623157e308},
        {6, {1.48, 2.33, 0.35, 1.68, 2.55, 0.58}, 1.4949999999999999},
        {2, {2.675, 2.665}, 2.67},
        {2, {-3.5, 1.25}, -1.125},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct exact_sum sum;
        exact_sum_init(&sum);
        for (size_t k = 0; k < cases[i].n; k++)
            exact_sum_add(&sum, cases[i].v[k]);
        double m = exact_sum_mean(&sum, cases[i].n);
        CHECK_MSG(m == cases[i].python, "case %zu: %.17g, Python %.17g", i, m, cases[i].python);
    }
    unsigned long long state = 12345;
    for (int trial = 0; trial < 200; trial++) {
        struct exact_sum sum;
        exact_sum_init(&sum);
        size_t n = 1 + (size_t)trial * 37;
        unsigned long long total = 0;
        for (size_t k = 0; k < n; k++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned long long eighths = (state >> 33) & ((1ULL << 26) - 1);
            total += eighths;
            exact_sum_add(&sum, (double)eighths / 8.0);
        }
        double want = (double)total / (8.0 * (double)n);
        double got = exact_sum_mean(&sum, n);
        CHECK_MSG(got == want, "trial %d: %.17g, exact %.17g", trial, got, want);
    }
}

static void test_stats_and_recommend(void)
{
    /* Four rows, every figure by hand:
     *   cpu 0.5 1.25 2.0 0.75        mean 1.125 -> 1.12 (Python's round: a tie
     *                                of an exact binary value goes to even), max 2.0
     *   memory kB 1000 300000 200000 100000   mean 150250.0, max 300000
     *   gpu 0 0.4 1.6 0             mean 0.5, max 1.6
     *   vram MiB 0 1000 1500.5 10   mean 627.625 -> 627.62 (half even in binary), max 1500.5
     *   used 0 1 2 0                mean 0.75, max 2
     *   disk used 10.5 12.25 11 9   max 12.25
     *   rx 100 200 300 400 (tx 2x)  sums 1000 / 2000
     *   duration: rows 2 s apart: 6 s + one interval = 8 s */
    double cpu[] = {0.5, 1.25, 2.0, 0.75}, gpu[] = {0, 0.4, 1.6, 0}, vram[] = {0, 1000, 1500.5, 10};
    double disk[] = {10.5, 12.25, 11, 9};
    unsigned long long mem[] = {1000, 300000, 200000, 100000}, rx[] = {100, 200, 300, 400};
    int used[] = {0, 1, 2, 0};
    gt_snapshot *s = constructed(4, cpu, mem, gpu, vram, used, disk, rx, NULL, NULL);
    gt_stats st = {0};
    CHECK(gt_snapshot_stats(s, &st) == GT_OK);
    CHECK(st.samples == 4);
    CHECK(st.cpu_usage_mean == 1.12 && st.cpu_usage_max == 2.0);
    CHECK(st.memory_mean == 150250.0 && st.memory_max == 300000.0);
    CHECK(st.gpu_usage_mean == 0.5 && st.gpu_usage_max == 1.6);
    CHECK_MSG(st.gpu_vram_mean == 627.62, "%.6f", st.gpu_vram_mean);
    CHECK(st.gpu_vram_max == 1500.5);
    CHECK(st.gpu_utilized_mean == 0.75 && st.gpu_utilized_max == 2);
    CHECK(st.disk_space_used_max_gb == 12.25);
    CHECK(st.net_recv_bytes_sum == 1000 && st.net_sent_bytes_sum == 2000);
    CHECK(st.duration == 8.0);

    /* cpu round(1.12) = 1; memory 300000 kB * 1.2 / 1024 = 351.56 MiB -> 512;
     * gpu max(1, round(1.6)) = 2; vram 1500.5 * 1.2 = 1800.6 -> 2048. */
    gt_recommendation r = {0};
    gt_recommend(&st, &r);
    CHECK(r.cpu == 1 && r.memory_mib == 512 && r.gpu == 2 && r.vram_mib == 2048);

    /* As JSON: resource_tracker's keys, every number as Python prints it
     * (2.0 not 2, 0.1 + 0.2 as 0.30000000000000004, as repr does). */
    gt_stats odd = st;
    odd.net_sent_bytes_sum = 0.1 + 0.2;
    char *js = gt_stats_to_json(&odd);
    CHECK(js != NULL);
    CHECK_CONTAINS(js, "\"process_cpu_usage\": {\n    \"mean\": 1.12,\n    \"max\": 2.0\n  }");
    CHECK_CONTAINS(js, "\"process_memory\": {\n    \"mean\": 150250.0,\n    \"max\": 300000.0\n  }");
    CHECK_CONTAINS(js, "\"process_gpu_vram\": {\n    \"mean\": 627.62,\n    \"max\": 1500.5\n  }");
    CHECK_CONTAINS(js, "\"system_disk_space_used_gb\": {\n    \"max\": 12.25\n  }");
    CHECK_CONTAINS(js, "\"system_net_sent_bytes\": {\n    \"sum\": 0.30000000000000004\n  }");
    CHECK_CONTAINS(js, "\"timestamp\": {\n    \"duration\": 8.0\n  }");
    free(js);
    char *rj = gt_recommendation_to_json(&r, NULL);
    CHECK_STR(rj, "{\n  \"cpu\": 1,\n  \"memory\": 512,\n  \"gpu\": 2,\n  \"vram\": 2048\n}");
    free(rj);
    rj = gt_recommendation_to_json(&r, "{\"vendor_id\": \"aws\", \"price\": 0.1}");
    CHECK_CONTAINS(rj, "\"resources\": {\n    \"cpu\": 1,");
    CHECK_CONTAINS(rj, "\"server\": {\n    \"vendor_id\": \"aws\",\n    \"price\": 0.1\n  }");
    free(rj);
    CHECK(gt_recommendation_to_json(&r, "[1, 2]") == NULL);
    CHECK_STR(gt_last_error(), "the server description is not a JSON object");
    CHECK(gt_stats_to_json(NULL) == NULL);

    /* The rounding boundaries. */
    CHECK(gt_round_memory_mib(0) == 128 && gt_round_memory_mib(128) == 128);
    CHECK(gt_round_memory_mib(128.001) == 256 && gt_round_memory_mib(256) == 256);
    CHECK(gt_round_memory_mib(256.5) == 512 && gt_round_memory_mib(512) == 512);
    CHECK(gt_round_memory_mib(1000) == 1024 && gt_round_memory_mib(1024) == 1024);
    CHECK(gt_round_memory_mib(1025) == 2048 && gt_round_memory_mib(2048) == 2048);
    CHECK(gt_round_memory_mib(2048.001) == 3072 && gt_round_memory_mib(3072) == 3072);
    CHECK(gt_round_memory_mib(3072.5) == 4096 && gt_round_memory_mib(100000) == 100352);
    gt_stats b = {0};
    /* CPU: Python's round, half to even, at least 1. */
    double cpus[][2] = {{0, 1}, {0.49, 1}, {0.5, 1}, {1.49, 1}, {1.5, 2}, {2.5, 2}, {2.51, 3},
                        {3.5, 4}, {15.99, 16}};
    for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
        b.cpu_usage_mean = cpus[i][0];
        gt_recommend(&b, &r);
        CHECK_MSG(r.cpu == (int)cpus[i][1], "cpu %.2f -> %d", cpus[i][0], r.cpu);
    }
    /* Memory: exactly 128 MiB after the 20 %: 109226.666 kB... use kB that
     * give 128 and just above. 106666 kB * 1.2 / 1024 = 124.99 -> 128;
     * 109227 kB -> 128.000 (just above) -> 256. */
    b.memory_max = 106666;
    gt_recommend(&b, &r);
    CHECK(r.memory_mib == 128);
    b.memory_max = 109227;
    gt_recommend(&b, &r);
    CHECK(r.memory_mib == 256);
    b.memory_max = 0;
    gt_recommend(&b, &r);
    CHECK(r.memory_mib == 128);
    /* GPU: none used -> 0 GPUs, 0 VRAM; a little -> at least one. */
    b.gpu_usage_mean = 0;
    b.gpu_usage_max = 0.9;
    gt_recommend(&b, &r);
    CHECK(r.gpu == 0);
    b.gpu_usage_mean = 0.01;
    b.gpu_usage_max = 0.3;
    gt_recommend(&b, &r);
    CHECK(r.gpu == 1);
    b.gpu_usage_max = 2.5;
    gt_recommend(&b, &r);
    CHECK(r.gpu == 2);
    b.gpu_vram_max = 0;
    gt_recommend(&b, &r);
    CHECK(r.vram_mib == 0);
    b.gpu_vram_max = 1706.66; /* * 1.2 = 2047.99 */
    gt_recommend(&b, &r);
    CHECK(r.vram_mib == 2048);
    b.gpu_vram_max = 1707; /* * 1.2 = 2048.4 */
    gt_recommend(&b, &r);
    CHECK(r.vram_mib == 3072);

    /* History, as resource_tracker's aggregate_stats(): means and durations
     * averaged, maxima and sums the largest. */
    gt_stats runs[2] = {st, st};
    runs[1].cpu_usage_mean = 3.0;
    runs[1].cpu_usage_max = 3.5;
    runs[1].memory_max = 50;
    runs[1].net_recv_bytes_sum = 1500;
    runs[1].duration = 10.0;
    gt_stats all = {0};
    gt_stats_combine(runs, 2, &all);
    CHECK(all.cpu_usage_mean == (1.12 + 3.0) / 2 && all.cpu_usage_max == 3.5);
    CHECK(all.memory_max == 300000 && all.duration == 9.0 && all.samples == 8);
    CHECK(all.net_recv_bytes_sum == 1500);
    gt_recommend(&all, &r);
    CHECK(r.cpu == 2);
    /* Nothing rounded on the way: means 1.5 and 1.49 average to 1.495
     * (1.4950000000000001 in binary), which round() takes to 1. Rounded to
     * 2 decimals first it would be 1.5, and 2 CPUs. */
    runs[0].cpu_usage_mean = 1.5;
    runs[1].cpu_usage_mean = 1.49;
    gt_stats_combine(runs, 2, &all);
    CHECK(all.cpu_usage_mean == 1.495);
    gt_recommend(&all, &r);
    CHECK_MSG(r.cpu == 1, "cpu %d for a combined mean of 1.495", r.cpu);
    CHECK(all.memory_mean_whole == 0 && all.gpu_utilized_mean_whole == 0);

    /* The same rule on stats() dictionaries of any columns (the Python
     * module's aggregate_stats): a largest value kept as given (an int
     * stays one, the first of equal ones), means and durations averaged
     * after it, in that order; another aggregation refused. */
    const char *docs[] = {
        "{\"c\": {\"duration\": 1.0, \"sum\": 5, \"mean\": 1}, \"d\": {\"max\": 2.0}}",
        "{\"c\": {\"sum\": 7, \"duration\": 2.5, \"mean\": 2}, \"d\": {\"max\": 2}}",
    };
    char *combined = NULL;
    CHECK(gt_stats_combine_json(docs, 2, &combined) == GT_OK);
    json_object *cj = combined ? json_tokener_parse(combined) : NULL;
    json_object *c = NULL, *d = NULL, *v = NULL;
    CHECK(cj && json_object_object_get_ex(cj, "c", &c) && json_object_object_get_ex(cj, "d", &d));
    CHECK(c && json_object_object_get_ex(c, "sum", &v) && json_object_is_type(v, json_type_int) &&
          json_object_get_int(v) == 7);
    CHECK(d && json_object_object_get_ex(d, "max", &v) && json_object_is_type(v, json_type_double));
    CHECK_CONTAINS(combined, "\"sum\": 7,\n    \"mean\": 1.5,\n    \"duration\": 1.75");
    json_object_put(cj);
    free(combined);
    CHECK(gt_stats_combine_json(docs, 0, &combined) == GT_OK);
    cj = combined ? json_tokener_parse(combined) : NULL;
    CHECK(json_object_is_type(cj, json_type_object) && json_object_object_length(cj) == 0);
    json_object_put(cj);
    free(combined);
    const char *unsupported[] = {"{\"c\": {\"min\": 1}}"};
    CHECK(gt_stats_combine_json(unsupported, 1, &combined) == GT_ERR_INVALID_ARGUMENT &&
          combined == NULL);
    CHECK_STR(gt_last_error(), "Unsupported aggregation type: min");
    const char *not_number[] = {"{\"c\": {\"max\": \"x\"}}"};
    CHECK(gt_stats_combine_json(not_number, 1, &combined) == GT_ERR_INVALID_ARGUMENT);
    CHECK_STR(gt_last_error(), "aggregate_stats: run 0's 'c' 'max' is not a number");
    const char *not_json[] = {"{\"c\": "};
    CHECK(gt_stats_combine_json(not_json, 1, &combined) == GT_ERR_PARSE);

    /* A run whose exact mean CPU is 1.495: statistics.mean() gives
     * 1.4949999999999999 (a plain sum/n gives 1.495 in binary, just above),
     * so resource_tracker says 1.49 and 1 CPU, not 1.5 and 2. The values
     * came from Python: statistics.mean([1.48, 2.33, 0.35, 1.68, 2.55,
     * 0.58]); the other series from the same search. */
    const struct {
        size_t n;
        double cpu[6];
        double mean;
        int cpus;
    } boundary[] = {
        {6, {1.48, 2.33, 0.35, 1.68, 2.55, 0.58}, 1.49, 1},
        {4, {1.75, 1.77, 2.3, 0.16}, 1.49, 1},
        {4, {2.52, 2.93, 2.35, 2.22}, 2.5, 2}, /* plain: 2.5050000000000003 -> 2.51 -> 3 */
        {2, {1.49, 1.5}, 1.5, 2},
    };
    for (size_t i = 0; i < sizeof boundary / sizeof boundary[0]; i++) {
        gt_snapshot *bs = constructed(boundary[i].n, boundary[i].cpu, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL, NULL);
        gt_stats bst = {0};
        CHECK(gt_snapshot_stats(bs, &bst) == GT_OK);
        gt_recommend(&bst, &r);
        CHECK_MSG(bst.cpu_usage_mean == boundary[i].mean && r.cpu == boundary[i].cpus,
                  "case %zu: mean %.17g, %d CPUs", i, bst.cpu_usage_mean, r.cpu);
        gt_snapshot_free(bs);
    }

    /* The two series are cut to the shorter: a system series two rows
     * longer changes nothing, a process series one row shorter drops the
     * system's last row from the sums. */
    gt_snapshot *longer = constructed(4, cpu, mem, gpu, vram, used, disk, rx, NULL, NULL);
    gt_stats cut = {0};
    longer->series.nprocess = 3;
    CHECK(gt_snapshot_stats(longer, &cut) == GT_OK);
    CHECK(cut.samples == 3 && cut.net_recv_bytes_sum == 600 && cut.duration == 6.0);
    CHECK(cut.cpu_usage_mean == 1.25); /* (0.5 + 1.25 + 2.0) / 3 */
    gt_snapshot_free(longer);

    /* Absurd figures in a hand-made gt_stats saturate, never overflow. */
    gt_stats huge = {0};
    huge.cpu_usage_mean = 1.7e308;
    huge.memory_max = 1.7e308;
    huge.gpu_usage_mean = 1;
    huge.gpu_usage_max = INFINITY;
    huge.gpu_vram_max = 1e300;
    gt_recommend(&huge, &r);
    CHECK(r.cpu == INT_MAX && r.memory_mib == 2147482624 && r.gpu == INT_MAX &&
          r.vram_mib == 2147482624);

    /* No rows: an error, not zeros. */
    gt_snapshot *e = constructed(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK(gt_snapshot_stats(e, &st) == GT_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gt_last_error(), "no rows to take statistics of");
    CHECK_STR(allocation_of_series(&e->series), "unknown");
    gt_snapshot_free(e);
    gt_snapshot_free(s);
}

static void test_allocation(void)
{
    /* The job is (almost) all the system uses: dedicated. */
    double cpu[] = {2, 2}, sys_cpu[] = {2.2, 2.2};
    unsigned long long mem[] = {4000000, 4000000}, sys_mem[] = {4400000, 4400000};
    gt_snapshot *s = constructed(2, cpu, mem, NULL, NULL, NULL, NULL, NULL, sys_cpu, sys_mem);
    CHECK_STR(allocation_of_series(&s->series), "dedicated");
    gt_snapshot_free(s);
    /* CPU: 2 cores of ours, 2.6 in all: more than +0.25 -> shared. */
    double sys_cpu2[] = {2.6, 2.6};
    s = constructed(2, cpu, mem, NULL, NULL, NULL, NULL, NULL, sys_cpu2, sys_mem);
    CHECK_STR(allocation_of_series(&s->series), "shared");
    gt_snapshot_free(s);
    /* Memory: 4 GB of ours, 4.6 GB used: more than +512 MiB -> shared. */
    unsigned long long sys_mem2[] = {4600000, 4600000};
    s = constructed(2, cpu, mem, NULL, NULL, NULL, NULL, NULL, sys_cpu, sys_mem2);
    CHECK_STR(allocation_of_series(&s->series), "shared");
    gt_snapshot_free(s);
}

static void test_parsers(void)
{
    char out[256];
    CHECK(server_parse_os_release("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
                                  "(bookworm)\"\nID=debian\n", out, sizeof out) == 0);
    CHECK_STR(out, "Debian GNU/Linux 12 (bookworm)");
    CHECK(server_parse_os_release("PRETTY_NAME=Alpine\n", out, sizeof out) == 0);
    CHECK_STR(out, "Alpine");
    CHECK(server_parse_os_release("NAME=x\n", out, sizeof out) == -1);
    CHECK(server_parse_cpu_model("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) "
                                 "Xeon(R) Gold 6226R CPU @ 2.90GHz\n", out, sizeof out) == 0);
    CHECK_STR(out, "Intel(R) Xeon(R) Gold 6226R CPU @ 2.90GHz");
    CHECK(server_parse_cpu_model("processor\t: 0\nBogoMIPS\t: 50.00\n", out, sizeof out) == -1);
    CHECK(server_parse_cgroup_path("0::/user.slice/job-42\n", NULL, out, sizeof out) == 0);
    CHECK_STR(out, "/user.slice/job-42");
    const char *v1 = "12:memory:/slurm/uid_1/job_7\n4:cpu,cpuacct:/slurm/uid_1/job_7/step\n"
                     "1:name=systemd:/x\n";
    CHECK(server_parse_cgroup_path(v1, "cpu", out, sizeof out) == 0);
    CHECK_STR(out, "/slurm/uid_1/job_7/step");
    CHECK(server_parse_cgroup_path(v1, "memory", out, sizeof out) == 0);
    CHECK_STR(out, "/slurm/uid_1/job_7");
    CHECK(server_parse_cgroup_path(v1, NULL, out, sizeof out) == -1);
    CHECK(server_parse_cpu_max("max 100000\n") == 0);
    CHECK(server_parse_cpu_max("150000 100000\n") == 1.5);
    CHECK(server_parse_cpu_max("garbage") == -1);
    CHECK(server_parse_memory_limit("max\n") == 0);
    CHECK(server_parse_memory_limit("1073741824\n") == 1024);
    CHECK(server_parse_memory_limit("9223372036854771712\n") == 0);
    CHECK(server_parse_memory_limit("x") == -1);

    /* The collector on a fixture /proc and /sys: a cgroup v2 quota of 1.5
     * CPUs and a 2 GiB limit. */
    char *root = fx_mkroot();
    char proc[4200], sys[4200];
    fx_proc_sys(root, proc, sys, sizeof proc);
    fx_mkdirs(proc, "self");
    fx_mkdirs(sys, "fs/cgroup/job/step");
    fx_write(proc, "self/cgroup", "0::/job/step\n");
    fx_write(proc, "cpuinfo", "processor\t: 0\nmodel name\t: Fake CPU 9000\n");
    fx_write(proc, "meminfo", "MemTotal:       8388608 kB\nMemAvailable:   4000000 kB\n");
    fx_write(sys, "fs/cgroup/job/step/cpu.max", "150000 100000\n");
    fx_write(sys, "fs/cgroup/job/step/memory.max", "2147483648\n");
    gt_server_info si = {.struct_size = sizeof(gt_server_info)};
    server_info_collect(&si, proc, sys, NULL, 0);
    CHECK_STR(si.cpu_model, "Fake CPU 9000");
    CHECK(si.memory_mib == 8192 && si.memory_limit_mib == 2048);
    CHECK(si.vcpus_usable == (si.vcpus >= 2 ? 1.5 : si.vcpus_usable));
    CHECK(si.gpu_count == 0 && si.ngpu_names == 0);
    CHECK_STR(si.allocation, "unknown");
    /* The CPUs a tracked process may use (the default --nec): its own
     * cgroup's quota; none: every CPU. */
    fx_mkdirs(proc, "4242");
    fx_write(proc, "4242/cgroup", "0::/job/step\n");
    CHECK(server_usable_cpus(proc, sys, 4242, 8) == 1.5);
    CHECK(server_usable_cpus(proc, sys, 0, 8) == 1.5); /* self */
    CHECK(server_usable_cpus(proc, sys, 4242, 1) == 1); /* a quota above the CPUs there are */
    fx_write(sys, "fs/cgroup/job/step/cpu.max", "max 100000\n");
    CHECK(server_usable_cpus(proc, sys, 4242, 8) == 8);
    /* cgroup v1: the cpu controller's quota and period. */
    fx_mkdirs(proc, "77");
    fx_mkdirs(sys, "fs/cgroup/cpu/slurm/job_1");
    fx_write(proc, "77/cgroup", "4:memory:/slurm/job_1\n3:cpu,cpuacct:/slurm/job_1\n");
    fx_write(sys, "fs/cgroup/cpu/slurm/job_1/cpu.cfs_quota_us", "300000\n");
    fx_write(sys, "fs/cgroup/cpu/slurm/job_1/cpu.cfs_period_us", "100000\n");
    CHECK(server_usable_cpus(proc, sys, 77, 16) == 3);
    /* A hybrid host (systemd's): a "0::" line as well, no controller in the
     * unified hierarchy, the quota in v1's. */
    fx_mkdirs(proc, "79");
    fx_write(proc, "79/cgroup", "4:memory:/slurm/job_1\n3:cpu,cpuacct:/slurm/job_1\n0::/\n");
    CHECK(server_usable_cpus(proc, sys, 79, 16) == 3);
    CHECK(server_usable_cpus(proc, sys, 78, 16) == 16); /* no such process: no limit known */
    fx_rmroot(root);
}

static void test_report(void)
{
    gt_snapshot *s = real_snapshot(0);
    if (!s)
        return;
    int psi = 0;
    for (size_t i = 0; i < s->series.nsystem; i++)
        psi |= s->series.system[i].pressure_ok;
    char *html = gt_snapshot_report_html(s, "{\"vendor_id\": \"aws\", \"api_reference\": "
                                            "\"t3.micro\", \"vcpus\": 2, \"min_price_ondemand\": "
                                            "0.0104, \"logo\": \"https://example.com/x.png\"}", NULL);
    CHECK(html != NULL);
    if (html) {
        CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
        CHECK_CONTAINS(html, "</html>");
        int charts = 0;
        for (const char *p = html; (p = strstr(p, "<svg")); p++)
            charts++;
        /* No GPU on this machine: its charts are left out, and said so once.
         * The system's pressure has a chart where the kernel keeps it. */
        /* memory, process and system CPU, disk, network */
        CHECK_MSG(charts == 5 + psi, "%d charts", charts);
        CHECK(!psi || strstr(html, ">Pressure (whole system)<"));
        CHECK(!strstr(html, ">GPU utilization<") && !strstr(html, ">GPU memory<"));
        const char *titles[] = {">Process CPU usage<", ">System CPU usage<", ">Memory<",
                                "No GPU was found on this machine: the GPU charts are left out.",
                                "no GPU was found on this machine", ">Memory (PSS)<",
                                ">Peak RSS<", "size memory requests on this",
                                "(max; not the job&#39;s own), on /",
                                ">Disk I/O<", ">Network<", ">Statistics<",
                                ">Recommended resources<", ">Server<", "gpu_tracker summary",
                                "seconds since start", ">cores<", ">MiB<", ">MiB/s<",
                                "t3.micro", "0.0104", "exit 3"};
        for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
            CHECK_CONTAINS(html, titles[i]);
        /* The command is escaped, not markup. */
        CHECK_CONTAINS(html, "python train.py --epochs 3 &lt;b&gt;&amp;");
        CHECK(!strstr(html, "<b>&"));
        /* Self-contained: nothing is fetched from anywhere; the one script
         * (hover) is inline. */
        const char *external[] = {"src=", "href=", "url(", "@import", "<link", "<script src",
                                  "<iframe", "<img", "http://", "https://", "//fonts",
                                  "fetch(", "XMLHttpRequest"};
        for (size_t i = 0; i < sizeof external / sizeof external[0]; i++)
            CHECK_MSG(!strstr(html, external[i]), "the report contains %s", external[i]);
        const char *script = strstr(html, "<script>");
        CHECK(script && !strstr(script + 1, "<script"));
        /* Every chart carries its hover data: times and each line's values. */
        int hover = 0;
        for (const char *p = html; (p = strstr(p, "<svg viewBox")); p++) {
            const char *end = strchr(p, '>');
            const char *x = strstr(p, " data-x=\""), *v0 = strstr(p, " data-v0=\"");
            hover += x && v0 && end && x < end && v0 < end;
        }
        CHECK_MSG(hover == 5 + psi, "%d charts carry hover data", hover);
        free(html);
    }
    /* The filesystems the disk-space figures count, named (escaped). */
    /* A real snapshot records this machine's (none on a machine of memory
     * filesystems only: then ""). */
    char *recorded = s->filesystems;
    CHECK(recorded != NULL);
    s->filesystems = strdup("/ (ext4 on /dev/vda1), /srv/<b> (xfs on /dev/sdb)");
    html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK_CONTAINS(html, "on / (ext4 on /dev/vda1), /srv/&lt;b&gt; (xfs on /dev/sdb)</th>");
    free(html);
    CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, path_in("fs.json.gz")) == GT_OK);
    gt_snapshot *back = NULL;
    CHECK(gt_snapshot_read(path_in("fs.json.gz"), 0, &back) == GT_OK);
    CHECK_STR(back && back->filesystems ? back->filesystems : "", s->filesystems);
    gt_snapshot_free(back);
    free(s->filesystems);
    s->filesystems = recorded;
    /* With a GPU, its two charts are there. */
    s->server.gpu_count = 1;
    html = gt_snapshot_report_html(s, NULL, NULL);
    if (html) {
        int charts = 0;
        for (const char *p = html; (p = strstr(p, "<svg")); p++)
            charts++;
        CHECK_MSG(charts == 7 + psi, "%d charts with a GPU", charts);
        CHECK_CONTAINS(html, ">GPU utilization<");
        CHECK_CONTAINS(html, ">GPU memory<");
        CHECK(!strstr(html, "No GPU was found"));
        free(html);
    }
    s->server.gpu_count = 0;
    CHECK(gt_snapshot_write_report(s, NULL, NULL, path_in("r.html")) == GT_OK);
    struct stat sb;
    CHECK(stat(path_in("r.html"), &sb) == 0 && sb.st_size > 5000);
    CHECK(gt_snapshot_write_report(s, NULL, NULL, "/nonexistent/r.html") == GT_ERR_IO);
    /* No rows: a report still comes, saying so. */
    gt_snapshot *e = constructed(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    html = gt_snapshot_report_html(e, NULL, NULL);
    CHECK_CONTAINS(html, "No rows: the run was shorter than one interval");
    free(html);
    gt_snapshot_free(e);
    gt_snapshot_free(s);
}

/* A week of rows (every 2 s): the page stays small (one column of
 * min..max per pixel, not a point per row), the time axis reads h:mm up to
 * 168:00, and a one-row spike still reaches the top of its band. */
static void test_report_week(void)
{
    size_t n = 7 * 86400 / 2;
    double *cpu = malloc(n * sizeof *cpu);
    if (!cpu)
        return;
    for (size_t i = 0; i < n; i++)
        cpu[i] = (double)(i % 100) / 50.0; /* a sawtooth, 0 to 1.98 cores */
    cpu[n / 3] = 7.5;                      /* one row's spike */
    gt_snapshot *s = constructed(n, cpu, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    free(cpu);
    if (!s)
        return;
    char *html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK(html != NULL);
    if (html) {
        size_t len = strlen(html);
        CHECK_MSG(len < 1024 * 1024, "a week's report is %zu bytes", len);
        char want[128];
        snprintf(want, sizeof want, "%zu rows: each pixel column shows their range (band) and "
                 "mean (line)", n);
        CHECK_CONTAINS(html, want);
        CHECK_CONTAINS(html, "time since start (h:mm)");
        CHECK_CONTAINS(html, ">168:00<");
        CHECK_CONTAINS(html, ">24:00<");
        CHECK(!strstr(html, "seconds since start"));
        /* The CPU chart's y axis reaches the spike (ticks 0, 2, 4, 6, 8). */
        const char *cpu_chart = strstr(html, ">Process CPU usage<");
        const char *next_chart = cpu_chart ? strstr(cpu_chart, "<figure") : NULL;
        const char *eight = cpu_chart ? strstr(cpu_chart, "text-anchor=\"end\">8<") : NULL;
        CHECK_MSG(eight && next_chart && eight < next_chart,
                  "the CPU chart's axis does not reach the 7.5-core spike");
        free(html);
    }
    gt_snapshot_free(s);

    /* Ten minutes: m:ss. Under two: seconds. */
    s = constructed(300, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    html = s ? gt_snapshot_report_html(s, NULL, NULL) : NULL;
    CHECK_CONTAINS(html, "time since start (m:ss)");
    CHECK_CONTAINS(html, ">10:00<");
    free(html);
    gt_snapshot_free(s);
    s = constructed(30, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    html = s ? gt_snapshot_report_html(s, NULL, NULL) : NULL;
    CHECK_CONTAINS(html, "seconds since start");
    free(html);
    gt_snapshot_free(s);
}

/* ---- the fake servers ---------------------------------------------------- */

static const char *_Atomic cloud_mode; /* aws, gcp, azure, none, hang (read by the server) */

static int metadata(const char *method, const char *path, const char *headers, int *status,
                    char *body, size_t cap)
{
    if (!strcmp(cloud_mode, "hang"))
        return -1;
    *status = 404;
    if (!strcmp(cloud_mode, "aws")) {
        if (!strcmp(method, "PUT") && !strcmp(path, "/latest/api/token") &&
            strstr(headers, "X-aws-ec2-metadata-token-ttl-seconds: 21600")) {
            *status = 200;
            snprintf(body, cap, "TOKEN123");
        } else if (strstr(headers, "X-aws-ec2-metadata-token: TOKEN123")) {
            *status = 200;
            if (!strcmp(path, "/latest/meta-data/services/domain"))
                snprintf(body, cap, "amazonaws.com");
            else if (!strcmp(path, "/latest/meta-data/instance-type"))
                snprintf(body, cap, "g5.xlarge");
            else if (!strcmp(path, "/latest/meta-data/placement/region"))
                snprintf(body, cap, "eu-west-1");
            else
                *status = 404;
        }
    } else if (!strcmp(cloud_mode, "gcp") && strstr(headers, "Metadata-Flavor: Google")) {
        *status = 200;
        if (!strcmp(path, "/computeMetadata/v1/instance/machine-type"))
            snprintf(body, cap, "projects/123/machineTypes/a2-highgpu-1g");
        else if (!strcmp(path, "/computeMetadata/v1/instance/zone"))
            snprintf(body, cap, "projects/123/zones/us-central1-a");
        else
            *status = 404;
    } else if (!strcmp(cloud_mode, "azure") && strstr(headers, "Metadata: true") &&
               !strcmp(path, "/metadata/instance?api-version=2021-02-01")) {
        *status = 200;
        snprintf(body, cap, "{\"compute\": {\"vmSize\": \"Standard_NC6s_v3\", \"location\": "
                            "\"westeurope\"}}");
    } else if (!strcmp(cloud_mode, "hetzner") && !strcmp(path, "/hetzner/v1/metadata")) {
        /* the documented shape: top-level keys, a nested list, a quoted value */
        *status = 200;
        snprintf(body, cap, "availability-zone: fsn1-dc14\nhostname: gpu-box\ninstance-id: 42424242\n"
                            "local-ipv4: ''\npublic-keys:\n- ssh-ed25519 AAAA region: nowhere\n"
                            "region: 'eu-central'\n");
    } else if (!strcmp(cloud_mode, "upcloud") && !strcmp(path, "/metadata/v1.json")) {
        *status = 200;
        snprintf(body, cap, "{\"cloud_name\": \"upcloud\", \"instance_id\": \"00abc\", "
                            "\"hostname\": \"gpu-box\", \"region\": \"fi-hel2\"}");
    } else if (!strcmp(cloud_mode, "vultr") && !strcmp(path, "/v1.json")) {
        *status = 200;
        snprintf(body, cap, "{\"hostname\": \"gpu-box\", \"instance-v2-id\": \"a1b2\", "
                            "\"instanceid\": \"123\", \"region\": {\"regioncode\": \"EWR\"}}");
    } else if (!strcmp(cloud_mode, "alicloud")) {
        if (!strcmp(method, "PUT") && !strcmp(path, "/latest/api/token") &&
            strstr(headers, "X-aliyun-ecs-metadata-token-ttl-seconds: 21600")) {
            *status = 200;
            snprintf(body, cap, "ALI-TOKEN");
        } else if (strstr(headers, "X-aliyun-ecs-metadata-token: ALI-TOKEN")) {
            *status = 200;
            if (!strcmp(path, "/latest/meta-data/instance/instance-type"))
                snprintf(body, cap, "ecs.gn7i-c8g1.2xlarge");
            else if (!strcmp(path, "/latest/meta-data/region-id"))
                snprintf(body, cap, "cn-hangzhou");
            else
                *status = 404;
        }
    } else if (!strncmp(cloud_mode, "openstack", 9) || !strcmp(cloud_mode, "ovh")) {
        /* OVH's resolver names the cloud; another OpenStack is not OVH */
        int ovh = !strcmp(cloud_mode, "ovh");
        *status = 200;
        if (!strcmp(path, "/openstack/latest/network_data.json"))
            snprintf(body, cap, "{\"links\": [], \"services\": [{\"type\": \"dns\", "
                                "\"address\": \"%s\"}]}", ovh ? "213.186.33.99" : "10.0.0.2");
        else if (!strcmp(path, "/openstack/latest/meta_data.json"))
            snprintf(body, cap, "{\"uuid\": \"x\", \"availability_zone\": \"%s\"}",
                     ovh ? "GRA11" : "nova");
        else if (!strcmp(path, "/latest/meta-data/instance-type"))
            snprintf(body, cap, "t2-45");
        else
            *status = 404;
    }
    return 0;
}

static void test_cloud(void)
{
    struct httpd h;
    httpd_start(&h, metadata);
    setenv("GPU_TRACKER_METADATA_URL", h.base, 1);
    const char *modes[][4] = {{"aws", "aws", "g5.xlarge", "eu-west-1"},
                              {"gcp", "gcp", "a2-highgpu-1g", "us-central1"},
                              {"azure", "azure", "Standard_NC6s_v3", "westeurope"},
                              {"hetzner", "hcloud", "unknown", "eu-central"},
                              {"upcloud", "upcloud", "unknown", "fi-hel2"},
                              {"vultr", "vultr", "unknown", "EWR"},
                              {"alicloud", "alicloud", "ecs.gn7i-c8g1.2xlarge", "cn-hangzhou"},
                              {"ovh", "ovh", "t2-45", "GRA11"},
                              {"openstack", "unknown", "unknown", "unknown"},
                              {"none", "unknown", "unknown", "unknown"},
                              {"hang", "unknown", "unknown", "unknown"}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        cloud_mode = modes[i][0];
        int before = h.requests;
        gt_snapshot *s = real_snapshot(1);
        if (!s)
            continue;
        CHECK(s->cloud.asked);
        CHECK_MSG(!strcmp(s->cloud.vendor, modes[i][1]), "%s: vendor %s", modes[i][0],
                  s->cloud.vendor);
        CHECK_STR(s->cloud.instance_type, modes[i][2]);
        CHECK_STR(s->cloud.region, modes[i][3]);
        CHECK(s->cloud.found == (strcmp(modes[i][1], "unknown") != 0));
        CHECK(h.requests > before); /* it asked our server, and only ours */
        /* It ended by itself, not given up on at the snapshot (which leaves
         * no discovery time): with a server that never answers, only the
         * 1 s timeout of the request and the address then counted as down
         * let it end within the 8 s wait. */
        CHECK_MSG(s->cloud.discovery_time > 0, "%s: the discovery did not end", modes[i][0]);
        /* In the background: with a server that never answers the discovery
         * takes a second (the one timeout), yet the baseline sample came
         * right after start(). Were it asked first, it would come after.
         * Once the address timed out no other vendor asks it: one request. */
        if (!strcmp(modes[i][0], "hang")) {
            CHECK_MSG(s->start_time - started_at < s->cloud.discovery_time / 2,
                      "tracking began %.3f s after start(); the discovery took %.3f s",
                      s->start_time - started_at, s->cloud.discovery_time);
            CHECK_MSG(h.requests - before == 1, "%d requests to an address that never answers",
                      h.requests - before);
        }
        /* It is in the snapshot file too. */
        CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, path_in("cloud.json.gz")) == GT_OK);
        gt_snapshot *b = NULL;
        CHECK(gt_snapshot_read(path_in("cloud.json.gz"), 0, &b) == GT_OK);
        CHECK(b && b->cloud.asked && !strcmp(b->cloud.vendor, modes[i][1]) &&
              !strcmp(b->cloud.region, modes[i][3]));
        gt_snapshot_free(b);
        gt_snapshot_free(s);
    }
    unsetenv("GPU_TRACKER_METADATA_URL");
    httpd_stop(&h);
}

static const char *keeper_mode; /* ok, empty, error, garbage */
static char keeper_last_path[2048];

static int keeper(const char *method, const char *path, const char *headers, int *status,
                  char *body, size_t cap)
{
    (void)method;
    snprintf(keeper_last_path, sizeof keeper_last_path, "%s", path);
    *status = 200;
    if (!strstr(headers, "X-Application-ID: gpu-tracker"))
        *status = 403;
    else if (!strcmp(keeper_mode, "ok"))
        snprintf(body, cap, "[{\"vendor_id\": \"aws\", \"api_reference\": \"c7g.large\", "
                            "\"vcpus\": 2, \"memory_amount\": 4096, \"gpu_count\": 0, "
                            "\"min_price_ondemand\": 0.0725}]");
    else if (!strcmp(keeper_mode, "empty"))
        snprintf(body, cap, "[]");
    else if (!strcmp(keeper_mode, "error"))
        *status = 500;
    else
        snprintf(body, cap, "<html>not json</html>");
    return 0;
}

static void test_keeper(void)
{
    struct httpd h;
    httpd_start(&h, keeper);
    setenv("GPU_TRACKER_KEEPER_URL", h.base, 1);
    gt_recommendation r = {.cpu = 2, .memory_mib = 3072, .gpu = 1,
                           .vram_mib = 20480};
    char *json = NULL;
    keeper_mode = "ok";
    CHECK(gt_recommend_server(&r, cli_keeper_url(), &json) == GT_OK);
    CHECK_CONTAINS(json, "\"api_reference\": \"c7g.large\"");
    CHECK_CONTAINS(keeper_last_path, "/servers?vcpus_min=2&memory_min=3&order_by=min_price_ondemand"
                                     "&order_dir=asc&limit=1&gpu_min=1&gpu_memory_total=20");
    free(json);
    keeper_mode = "empty";
    CHECK(gt_recommend_server(&r, cli_keeper_url(), &json) == GT_ERR_PARSE && json == NULL);
    CHECK_CONTAINS(gt_last_error(), "knows no server with at least 2 vCPUs");
    keeper_mode = "error";
    CHECK(gt_recommend_server(&r, cli_keeper_url(), &json) == GT_ERR_IO);
    CHECK_CONTAINS(gt_last_error(), "answered HTTP 500");
    keeper_mode = "garbage";
    CHECK(gt_recommend_server(&r, cli_keeper_url(), &json) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "did not answer a JSON list of servers");
    httpd_stop(&h);
    /* Offline: nothing listens there. */
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", httpd_closed_port());
    setenv("GPU_TRACKER_KEEPER_URL", url, 1);
    CHECK(gt_recommend_server(&r, cli_keeper_url(), &json) == GT_ERR_IO && json == NULL);
    CHECK_CONTAINS(gt_last_error(), "cannot reach the Keeper API at http://127.0.0.1:");
    unsetenv("GPU_TRACKER_KEEPER_URL");
}

/* resource_tracker's own format: ours written in both its shapes and read
 * back to the same rows; a document as resource_tracker 0.4 writes it
 * (children null, no server or cloud info) read; and what is refused. */
static void test_resource_tracker_format(void)
{
    const unsigned long long mem[] = {123457, 2, 99999999};
    const double disk[] = {17.42, 0.5, 251.97};
    gt_snapshot *s = constructed(3, NULL, mem, NULL, NULL, NULL, disk, NULL, NULL, NULL);
    if (!s)
        return;
    snprintf(s->server.os, sizeof s->server.os, "Debian GNU/Linux 12 (bookworm)");
    s->server.memory_mib = 24105.1;
    const gt_snapshot_format shapes[] = {GT_SNAPSHOT_RESOURCE_TRACKER,
                                         GT_SNAPSHOT_RESOURCE_TRACKER_05};
    for (int k = 0; k < 2; k++) {
        char *json = gt_snapshot_to_json(s, shapes[k]);
        CHECK(json != NULL);
        if (!json)
            continue;
        CHECK_CONTAINS(json, k ? "\"memory_mib\":" : "\"memory\":");
        CHECK_CONTAINS(json, k ? "\"gpu_memory_mib\"" : "\"gpu_memory_mb\"");
        CHECK_CONTAINS(json, "\"track_processes\":true");
        gt_snapshot *r = NULL;
        CHECK(gt_snapshot_from_memory(json, strlen(json), "rt", 0, &r) == GT_OK);
        if (r) {
            CHECK(r->no_summary && r->exit_status == -1);
            CHECK_CONTAINS(r->tracker_version, k ? "resource_tracker 0.5.0"
                                                 : "resource_tracker 0.4.2");
            CHECK_STR(r->server.os, "Debian GNU/Linux 12 (bookworm)");
            CHECK(fabs(r->server.memory_mib - 24105.1) < 1e-9);
            CHECK(r->series.nprocess == 3 && r->series.nsystem == 3);
            for (size_t i = 0; i < 3 && r->series.nprocess == 3 && r->series.nsystem == 3; i++) {
                CHECK_MSG(r->series.process[i].memory == mem[i], "row %zu: %llu kB", i,
                          r->series.process[i].memory);
                CHECK(r->series.process[i].timestamp == s->series.process[i].timestamp);
                CHECK(r->series.process[i].cpu_usage == s->series.process[i].cpu_usage);
                CHECK(fabs(r->series.system[i].disk_space_used_gb - disk[i]) < 0.01);
                CHECK(r->series.system[i].memory_used == s->series.system[i].memory_used);
            }
            gt_stats a = {0};
            gt_stats b = {0};
            CHECK(gt_snapshot_stats(s, &a) == GT_OK && gt_snapshot_stats(r, &b) == GT_OK);
            CHECK(a.memory_max == b.memory_max && a.cpu_usage_mean == b.cpu_usage_mean);
            char *html = gt_snapshot_report_html(r, NULL, NULL);
            CHECK(html && !strstr(html, "Peak RSS"));
            free(html);
            gt_snapshot_free(r);
        }
        /* Gzipped in a file, as its dump() writes. */
        write_gz("rt.json.gz", json, 0);
        CHECK(gt_snapshot_read(path_in("rt.json.gz"), 0, &r) == GT_OK);
        gt_snapshot_free(r);
        free(json);
    }
    CHECK(gt_snapshot_to_json(s, (gt_snapshot_format)9) == NULL);
    CHECK(gt_snapshot_write(s, (gt_snapshot_format)9, path_in("x.json.gz")) ==
          GT_ERR_INVALID_ARGUMENT);
    gt_snapshot_free(s);

    /* As resource_tracker 0.4 writes it: children null (children=False),
     * server_info and cloud_info null (discovery off). */
    const char *row = "{\"timestamp\": 1700000001.0, \"pid\": 42, \"children\": null, "
                      "\"utime\": 0.5, \"stime\": 0.25, \"cpu_usage\": 0.75, \"memory\": 2048, "
                      "\"read_bytes\": 0, \"write_bytes\": 4096, \"gpu_usage\": 0.0, "
                      "\"gpu_vram\": 0.0, \"gpu_utilized\": 0}";
    const char *sysrow = "{\"timestamp\": 1700000001.0, \"processes\": 300, \"utime\": 1.0, "
                         "\"stime\": 0.5, \"cpu_usage\": 1.5, \"memory_free\": 1000, "
                         "\"memory_used\": 3000, \"memory_buffers\": 10, \"memory_cached\": 20, "
                         "\"memory_active\": 30, \"memory_inactive\": 40, \"disk_read_bytes\": 0, "
                         "\"disk_write_bytes\": 0, \"disk_space_total_gb\": 100.0, "
                         "\"disk_space_used_gb\": 50.0, \"disk_space_free_gb\": 50.0, "
                         "\"net_recv_bytes\": 7, \"net_sent_bytes\": 8, \"gpu_usage\": 0.0, "
                         "\"gpu_vram\": 0.0, \"gpu_utilized\": 0}";
    char doc[8192];
    const char *meta = "{\"metadata\": {\"version\": 1, \"resource_tracker\": {\"version\": "
                       "\"0.4.2\", \"implementation\": \"procfs\"}, \"pid\": 42, \"children\": "
                       "false, \"interval\": 1, \"method\": null, \"autostart\": true, "
                       "\"track_processes\": true, \"track_system\": true, \"discover_server\": "
                       "false, \"discover_cloud\": false, \"start_time\": 1700000000.0, "
                       "\"stop_time\": 1700000002.0, \"duration\": 3.0}, \"server_info\": null, "
                       "\"cloud_info\": null, ";
    snprintf(doc, sizeof doc, "%s\"process_metrics\": [%s, %s], \"system_metrics\": [%s, %s]}",
             meta, row, row, sysrow, sysrow);
    gt_snapshot *r = NULL;
    CHECK(gt_snapshot_from_memory(doc, strlen(doc), "theirs", 0, &r) == GT_OK);
    if (r) {
        CHECK(r->pid == 42 && r->interval == 1 && r->duration == 2);
        CHECK(r->series.nprocess == 2 && r->series.process[1].memory == 2048);
        CHECK(r->series.process[0].children == 0 && r->series.process[0].write_bytes == 4096);
        CHECK(r->series.nsystem == 2 && r->series.system[0].net_sent_bytes == 8);
        CHECK(!r->cloud.asked && !strcmp(r->server.allocation, "unknown"));
        CHECK(r->main_only == 1); /* its children: false */
        char *back = gt_snapshot_to_json(r, GT_SNAPSHOT_RESOURCE_TRACKER);
        CHECK(back && strstr(back, "\"children\":false"));
        free(back);
        gt_snapshot_free(r);
    }
    /* Refused, with the place named. */
    CHECK(gt_snapshot_from_memory(doc, strlen(doc), "theirs", 1, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "\"process_metrics\" has 2 rows; at most 1");
    snprintf(doc, sizeof doc, "%s\"process_metrics\": [%s, 5], \"system_metrics\": []}", meta,
             row);
    CHECK(gt_snapshot_from_memory(doc, strlen(doc), "theirs", 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "\"process_metrics[1]\" should be an object");
    snprintf(doc, sizeof doc, "%s\"process_metrics\": [{\"timestamp\": 1}], "
             "\"system_metrics\": []}", meta);
    CHECK(gt_snapshot_from_memory(doc, strlen(doc), "theirs", 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "missing key \"process_metrics[0].pid\"");
    snprintf(doc, sizeof doc, "%s\"process_metrics\": [], \"system_metrics\": {}}", meta);
    CHECK(gt_snapshot_from_memory(doc, strlen(doc), "theirs", 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "\"system_metrics\" should be a list of rows");
    const char *nometa = "{\"metadata\": {\"pid\": 1}, \"process_metrics\": []}";
    CHECK(gt_snapshot_from_memory(nometa, strlen(nometa), "theirs", 0, &r) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "metadata.resource_tracker");
}

/* A constructed run with who held it: the peaks, an idle GPU, the
 * processes by command and the top process's timeline. */
static gt_snapshot *with_who(void)
{
    gt_snapshot *s = constructed(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (!s)
        return NULL;
    gt_peak_breakdown *m = &s->at_peak[GT_PEAK_MEMORY];
    m->struct_size = sizeof *m;
    m->available = 1;
    m->at_seconds = 1.5;
    m->total_bytes = 300e6;
    m->nprocesses = 2;
    m->processes[0] = (gt_peak_process){.pid = 11, .role = 1, .command = "python",
                                        .cmdline = "python train.py", .bytes = 200e6,
                                        .private_bytes = 190e6, .pss_bytes = 195e6, .threads = 4};
    m->processes[1] = (gt_peak_process){.pid = 12, .role = 2, .command = "pt_data_worker",
                                        .cmdline = "", .bytes = 90e6, .private_bytes = -1,
                                        .pss_bytes = -1, .threads = 1};
    m->others = 3;
    m->others_bytes = 5e6;
    m->others_private_bytes = 4e6;
    m->shared_bytes = 16e6;
    s->at_peak[GT_PEAK_GPU_MEMORY].struct_size = sizeof *m;
    gt_gpu_idle *g = &s->gpu_idle;
    g->struct_size = sizeof *g;
    g->threshold_percent = GT_GPU_IDLE_PERCENT;
    g->idle_share_percent = GT_GPU_IDLE_SHARE_PERCENT;
    g->ndevices = 1;
    g->idle_count = 1;
    g->devices[0] = (gt_gpu_idle_device){.index = 1, .uuid = "GPU-1", .held_samples = 10,
                                         .idle_samples = 9, .held_bytes = 38e9,
                                         .idle_percent = 90, .idle = 1};
    g->requested = 2;
    snprintf(g->requested_by, sizeof g->requested_by, "CUDA_VISIBLE_DEVICES");
    g->wait = (gt_gpu_wait){.gpu_seconds = 100, .waiting_seconds = 80,
                            .waiting_busy_percent = 18, .worker_seconds = 71,
                            .worker_command = "pt_data_worker", .worker_processes = 4,
                            .worker_cores = 0.98, .worker_runnable = 0.99,
                            .storage_available = 1, .storage_source = "block I/O delay",
                            .storage_seconds = 10, .storage_wait = 0.3,
                            .verdict = GT_GPU_WAIT_WORKERS};
    gt_command_groups *c = &s->processes;
    c->struct_size = sizeof *c;
    c->available = 1;
    c->commands = 3;
    c->processes = 7;
    c->cpu_seconds = 12.5;
    c->unseen_cpu_seconds = 0.25;
    c->ngroups = 2;
    c->groups[0] = (gt_command_group){.command = "pt_data_worker", .processes = 4,
                                      .peak_concurrent = 4, .cpu_seconds = 8,
                                      .peak_pss_bytes = 90e6};
    c->groups[1] = (gt_command_group){.command = "python", .processes = 1,
                                      .peak_concurrent = 1, .cpu_seconds = 4,
                                      .peak_pss_bytes = 195e6};
    c->others = 1;
    c->others_processes = 2;
    c->others_cpu_seconds = 0.5;
    s->ntop_processes = 2;
    s->top_processes = calloc(2, sizeof *s->top_processes);
    if (s->top_processes) {
        s->top_processes[0] = (gt_top_process){.at = 0, .pid = 11, .command = "python"};
        s->top_processes[1] = (gt_top_process){.at = 3.5, .pid = 12, .command = "pt_data_worker"};
    } else {
        s->ntop_processes = 0;
    }
    return s;
}

static void test_who_parts(void)
{
    gt_snapshot *s = with_who(), *b = NULL;
    if (!s)
        return;
    const char *p = path_in("who.json.gz");
    CHECK(gt_snapshot_write(s, GT_SNAPSHOT_GPU_TRACKER, p) == GT_OK);
    CHECK(gt_snapshot_read(p, 0, &b) == GT_OK);
    if (b) {
        const gt_peak_breakdown *m = &b->at_peak[GT_PEAK_MEMORY];
        CHECK(m->available && m->nprocesses == 2 && m->at_seconds == 1.5);
        CHECK(m->processes[0].pid == 11 && m->processes[0].role == 1);
        CHECK_STR(m->processes[0].cmdline, "python train.py");
        CHECK(m->processes[0].private_bytes == 190e6 && m->processes[1].private_bytes == -1);
        CHECK(m->others == 3 && m->shared_bytes == 16e6);
        CHECK(!b->at_peak[GT_PEAK_GPU_MEMORY].available);
        CHECK(b->gpu_idle.ndevices == 1 && b->gpu_idle.idle_count == 1);
        CHECK(b->gpu_idle.devices[0].held_bytes == 38e9 && b->gpu_idle.devices[0].idle);
        CHECK(b->gpu_idle.requested == 2);
        CHECK_STR(b->gpu_idle.requested_by, "CUDA_VISIBLE_DEVICES");
        const gt_gpu_wait *w = &b->gpu_idle.wait;
        CHECK(w->verdict == GT_GPU_WAIT_WORKERS && w->gpu_seconds == 100 &&
              w->worker_seconds == 71 && w->worker_cores == 0.98 && w->storage_seconds == 10);
        CHECK_STR(w->worker_command, "pt_data_worker");
        CHECK_STR(w->storage_source, "block I/O delay");
        CHECK(b->processes.available && b->processes.ngroups == 2);
        CHECK_STR(b->processes.groups[0].command, "pt_data_worker");
        CHECK(b->processes.groups[0].peak_concurrent == 4);
        CHECK(b->processes.unseen_cpu_seconds == 0.25 && b->processes.others_processes == 2);
        CHECK(b->ntop_processes == 2 && b->top_processes && b->top_processes[1].at == 3.5);
        if (b->ntop_processes == 2)
            CHECK_STR(b->top_processes[1].command, "pt_data_worker");
        char *ja = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
        char *jb = gt_snapshot_to_json(b, GT_SNAPSHOT_GPU_TRACKER);
        CHECK_STR(jb, ja);
        free(ja);
        free(jb);
        gt_snapshot_free(b);
    }
    /* The report: who held the peak beside the memory chart, the idle GPU
     * in the summary and the recommendation, the processes by command, and
     * the memory chart's hover naming the largest process at each row. */
    char *html = gt_snapshot_report_html(s, NULL, NULL);
    CHECK_CONTAINS(html, "Who held the memory peak: 286 MiB, 1.5 s into the run");
    CHECK_CONTAINS(html, "\">python train.py <i>(main)</i></td><td>11</td><td>191 MiB</td>"
                         "<td>181 MiB</td><td>186 MiB</td><td>4</td></tr>");
    CHECK_CONTAINS(html, "<td>3 others</td><td></td><td>4.77 MiB</td><td>3.81 MiB</td>");
    CHECK_CONTAINS(html, "<td title=\"pages they share (counted once)\">pages they share "
                         "(counted once)</td><td></td><td></td><td>15.3 MiB</td>");
    const char *memory_chart = html ? strstr(html, "aria-label=\"Memory\"") : NULL;
    const char *peak_table = html ? strstr(html, "id=\"at-peak-memory\"") : NULL;
    const char *cpu_chart = html ? strstr(html, "aria-label=\"Process CPU usage\"") : NULL;
    CHECK_MSG(memory_chart && peak_table && cpu_chart && memory_chart < peak_table &&
              peak_table < cpu_chart, "the peak's table is not beside the memory chart");
    CHECK(!strstr(html ? html : "", "id=\"at-peak-gpu\"")); /* not recorded */
    CHECK_CONTAINS(html, "<b>GPUs to give back:</b> GPU 1: 35.4 GiB held, idle 90 % of the "
                         "time it was held. 1 of the 1 GPU the run held was idle (GPU 1 90% of "
                         "the time): it may need none.</p>");
    CHECK_CONTAINS(html, "; 1 of the 1 GPU the run held was idle");
    CHECK_CONTAINS(html, "<tr><td class=\"cmd\">pt_data_worker</td><td>4</td><td>4</td>"
                         "<td>8.0 s</td><td>85.8 MiB</td></tr>");
    CHECK_CONTAINS(html, "<tr><td>1 other command</td><td>2</td><td></td><td>0.5 s</td>");
    CHECK_CONTAINS(html, "(0.2 s more was used where no sample saw it: after processes' last "
                         "samples, or by processes that lived between two)");
    /* rows at 2, 4 and 6 s (constructed), the top changes at 3.5 s */
    CHECK_CONTAINS(html, " data-t=\"0,1,1\" data-tk0=\"python (PID 11)\" "
                         "data-tk1=\"pt_data_worker (PID 12)\"");
    free(html);
    /* Another user's file: each part checked, one line naming the key. */
    char *good = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
    check_rejected(good, "[3.5,12,\"pt_data_worker\"]", "[-3.5,12,\"pt_data_worker\"]",
                   "metadata.top_processes[1]");
    check_rejected(good, "[3.5,12,\"pt_data_worker\"]", "[1.2,12]",
                   "\"metadata.top_processes[1]\" should be [seconds, pid, command]");
    check_rejected(good, "\"role\":\"main\"", "\"role\":\"boss\"",
                   "\"metadata.at_peak.memory.processes[0].role\" is \"boss\"; valid: main, "
                   "descendant");
    check_rejected(good, "\"command\":\"pt_data_worker\",", "\"command\":\"pt_data_worker_x\",",
                   "metadata.at_peak.memory.processes[1]");
    check_rejected(good, "\"idle_percent\":90", "\"idle_percent\":900",
                   "metadata.gpu_idle.gpus[0]");
    check_rejected(good, "\"folded\":0", "\"folded\":-1", "metadata.processes.folded");
    check_rejected(good, "\"verdict\":[\"workers\"]", "\"verdict\":[\"cpu\"]",
                   "\"metadata.gpu_idle.waiting.verdict[0]\" should be \"workers\", "
                   "\"storage\", \"throttled\", \"sms_idle\" or \"shared\", with its figures "
                   "there");
    /* a cause whose figures say it was not */
    check_rejected(good, "\"verdict\":[\"workers\"]", "\"verdict\":[\"throttled\"]",
                   "\"metadata.gpu_idle.waiting.verdict[0]\" should be");
    check_rejected(good, "\"verdict\":[\"workers\"]",
                   "\"verdict\":[\"storage\",\"workers\",1,2,3,4]",
                   "\"metadata.gpu_idle.waiting.verdict\" has 6 entries; at most 5 are valid");
    check_rejected(good, "\"seconds\":71", "\"seconds\":81", "metadata.gpu_idle.waiting.workers");
    check_rejected(good, "\"waiting_seconds\":80", "\"waiting_seconds\":180",
                   "metadata.gpu_idle.waiting");
    check_rejected(good, "\"peak_concurrent\":4", "\"peak_concurrent\":\"4\"",
                   "metadata.processes.groups[0].peak_concurrent");
    free(good);
    /* More entries than a tracker keeps. */
    struct buf big = {0};
    buf_puts(&big, "[");
    for (int i = 0; i <= 4096; i++)
        buf_printf(&big, "%s[%d,1,\"a\"]", i ? "," : "", i);
    buf_puts(&big, "]");
    good = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
    const char *at = good ? strstr(good, "\"top_processes\":[") : NULL;
    CHECK(at != NULL);
    if (at) {
        const char *end = strchr(at, ']');
        end = end ? strchr(end + 1, ']') : NULL; /* the second entry's */
        end = end ? strchr(end + 1, ']') : NULL; /* the list's */
        CHECK(end != NULL);
        if (end) {
            char *from = strndup(at, (size_t)(end + 1 - at));
            char *to = malloc(big.len + 32);
            snprintf(to, big.len + 32, "\"top_processes\":%s", big.data);
            check_rejected(good, from, to, "has 4097 entries; at most 4096 are valid");
            free(from);
            free(to);
        }
    }
    free(good);
    buf_free(&big);
    gt_snapshot_free(s);
}

int main(void)
{
    dir = fx_mkroot();
    test_round_trip();
    test_malformed();
    test_who_parts();
    test_resource_tracker_format();
    test_exact_mean();
    test_stats_and_recommend();
    test_allocation();
    test_parsers();
    test_report();
    test_report_week();
    test_cloud();
    test_keeper();
    fx_rmroot(dir);
    return check_exit("test_snapshot");
}
