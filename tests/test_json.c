/* The text writer against gpu_tracker's own test pairs (tests/data/gpu_tracker/conformance:
 * a to_json() document and the exact text gpu_tracker prints for it), the
 * JSON writer/reader round trip, and malformed documents. */
#include <dirent.h>
#include <stdlib.h>

#include "check.h"
#include "gpu_tracker_tools.h"
#include "common/toolkit.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A copy of s with the first `from` replaced by `to`; exits if absent. */
static char *replace_once(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    if (!p) {
        fprintf(stderr, "replace_once: [%s] not found\n", from);
        exit(1);
    }
    size_t head = (size_t)(p - s), n = strlen(s) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    memcpy(out, s, head);
    strcpy(out + head, to);
    strcat(out, p + strlen(from));
    return out;
}

static int test_conformance(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int pairs = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        char json_path[4096], text_path[4096];
        snprintf(json_path, sizeof json_path, "%s/%s", dir, de->d_name);
        snprintf(text_path, sizeof text_path, "%s/%.*s.txt", dir, (int)(len - 5), de->d_name);
        char *json = slurp(json_path), *want = slurp(text_path);
        CHECK_MSG(json && want, "cannot read the pair %s", de->d_name);
        gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
        gt_status st = json ? gt_usage_from_json(json, &u) : GT_ERR_IO;
        CHECK_MSG(st == GT_OK, "%s: %s", de->d_name, gt_last_error());
        if (st == GT_OK && want) {
            char *text = usage_to_text(&u);
            CHECK_STR(text, want);
            free(text);
            gt_usage_release(&u);
            pairs++;
        }
        free(json);
        free(want);
    }
    closedir(d);
    printf("conformance pairs matched: %d\n", pairs);
    CHECK(pairs >= 8); /* 8 pairs in tests/data/gpu_tracker/conformance */
    return 0;
}

static void test_round_trip(void)
{
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    memset(&u, 0, sizeof u);
    u.struct_size = sizeof u;
    snprintf(u.max_ram.unit, sizeof u.max_ram.unit, "megabytes");
    u.max_ram.system_capacity = 63088.2304;
    u.max_ram.system = 2399.9201279999997;
    u.max_ram.main.total_rss = 890.7038719999999;
    u.max_ram.descendants.private_rss = 0.1 + 0.2;
    u.max_ram.combined.shared_rss = 1e-7;
    snprintf(u.max_gpu_ram.unit, sizeof u.max_gpu_ram.unit, "gigabytes");
    u.cpu_utilization.system_core_count = 12;
    u.cpu_utilization.n_expected_cores = 3;
    u.cpu_utilization.main.mean_hardware_percent = 7.604861111111112;
    u.cpu_utilization.combined_n_threads = 40;
    u.gpu_utilization.gpu_percentages.max_sum_percent = 6.0;
    snprintf(u.compute_time.unit, sizeof u.compute_time.unit, "hours");
    u.compute_time.time = 0.0012816817230648465;
    u.measurement.samples = 17;
    u.measurement.sleep_time = 0.25;
    snprintf(u.measurement.gpu_reason, sizeof u.measurement.gpu_reason, "no GPU library found");

    char *json = usage_to_json(&u);
    CHECK(json != NULL);
    /* Full precision, Python's float spelling, the API's key spelling. */
    CHECK_CONTAINS(json, "\"total_rss\": 890.7038719999999");
    CHECK_CONTAINS(json, "\"private_rss\": 0.30000000000000004");
    CHECK_CONTAINS(json, "\"shared_rss\": 1e-07");
    CHECK_CONTAINS(json, "\"system_core_count\": 12");
    CHECK_CONTAINS(json, "\"max_sum_percent\": 6.0");
    CHECK_CONTAINS(json, "\"descendants\"");
    CHECK_CONTAINS(json, "\"measurement\"");
    CHECK_CONTAINS(json, "\"reason\": \"no GPU library found\"");
    gt_resource_usage back = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(gt_usage_from_json(json, &back) == GT_OK);
    CHECK(memcmp(&u, &back, sizeof u) == 0);
    gt_usage_release(&back);
    free(json);
}

static void test_malformed(void)
{
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    CHECK(gt_usage_from_json("{not json", &u) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "not JSON (");
    CHECK(gt_usage_from_json("[1, 2]", &u) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "top level");
    CHECK(gt_usage_from_json("{}", &u) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "missing key \"max_ram\"");

    /* A real document with one value of the wrong type, and one key missing. */
    gt_resource_usage ok = {.struct_size = sizeof(gt_resource_usage)};
    memset(&ok, 0, sizeof ok);
    ok.struct_size = sizeof ok;
    strcpy(ok.max_ram.unit, "bytes");
    strcpy(ok.max_gpu_ram.unit, "bytes");
    strcpy(ok.compute_time.unit, "seconds");
    char *json = usage_to_json(&ok);
    char *bad = replace_once(json, "\"main_n_threads\": 0", "\"main_n_threads\": []");
    CHECK(gt_usage_from_json(bad, &u) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "cpu_utilization.main_n_threads\" should be an integer");
    free(bad);
    bad = replace_once(json, "\"private_rss\"", "\"privite_rss\"");
    CHECK(gt_usage_from_json(bad, &u) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "missing key \"max_ram.main.private_rss\"");
    free(bad);
    /* gpu_tracker's older spelling is still read. */
    bad = replace_once(json, "\"descendants\"", "\"descendents\"");
    CHECK(gt_usage_from_json(bad, &u) == GT_OK);
    gt_usage_release(&u);
    free(bad);
    free(json);
}

/* text_escape: what untrusted text may not do to a terminal. */
static void test_text_escape(void)
{
    struct {
        const char *in, *want;
    } cases[] = {
        {"plain caf\xc3\xa9 \xe2\x82\xac", "plain caf\xc3\xa9 \xe2\x82\xac"},
        {"\x1b]0;title\x07", "\\x1b]0;title\\x07"},
        {"a\rb\nc\td", "a\\x0db\\x0ac\\x09d"},
        {"\x7f\xc2\x9b" "2J", "\\x7f\\xc2\\x9b2J"},   /* DEL, C1 CSI */
        {"bad \xff\xc3", "bad \\xff\\xc3"},           /* not UTF-8 */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},       /* a surrogate */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = text_escape(cases[i].in);
        CHECK_STR(got, cases[i].want);
        free(got);
    }
    char *empty = text_escape(NULL);
    CHECK_STR(empty, "");
    free(empty);
    /* Into a buffer: cut at a character's start, never inside one. */
    char out[8];
    CHECK_STR(text_escape_into("caf\xc3\xa9s", out, 5), "caf");     /* not half of é */
    CHECK_STR(text_escape_into("caf\xc3\xa9s", out, 6), "caf\xc3\xa9");
    CHECK_STR(text_escape_into("\x1b[2J", out, 7), "\\x1b[2");
    CHECK_STR(text_escape_into("ab", out, sizeof out), "ab");
    CHECK_STR(text_escape_into("\xe2\x82\xac\xe2\x82\xac", out, 6), "\xe2\x82\xac");
    CHECK_STR(text_escape_into(NULL, out, 1), "");
}

int main(void)
{
    if (test_conformance(CONFORMANCE_DIR) < 0) {
        fprintf(stderr, "conformance data not found at %s (tests/data/gpu_tracker/conformance)\n",
                CONFORMANCE_DIR);
        check_failures++;
    }
    test_round_trip();
    test_malformed();
    test_text_escape();
    return check_exit("test_json");
}
