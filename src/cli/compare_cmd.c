/* compare_cmd.c - `gpu-tracker compare BASE... NEW`: a regression gate for CI
 * (docs/ci.md). Each file is a run's figures:
 *   - a JSON summary (ours, -f json or -o; gpu_tracker's to_json(); a backup
 *     file), read with gt_usage_from_json in the units it names;
 *   - a snapshot (FILE.json.gz, or a .json whose document says
 *     "format_version"), its summary;
 *   - the figures of a test suite, `pytest --gputracker-json` (its document
 *     says "format": "gputracker-pytest"): one run per test.
 * What a file is comes from its name and what its document declares, never
 * from guessing at bytes. The last file is the new run; the ones before it
 * the baseline, whose median the change is counted from and whose spread a
 * new figure must leave before it fails: a metric fails when it grew past
 * median x (1 + tolerance) and past the highest baseline run. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_cmd.h"
#include "output.h"
#include "gpu_tracker_internal.h"
#include "human.h"
#include "common/toolkit.h"

enum { METRIC_RAM, METRIC_GPU_RAM, METRIC_CPU_TIME, METRIC_WALL, METRIC_MEAN_CPU, NMETRICS };

static const char *const metric_keys[NMETRICS] = {"peak_ram", "peak_gpu_ram", "cpu_time",
                                                  "wall_time", "mean_cpu"};
static const char *const metric_titles[NMETRICS] = {"peak RAM", "peak GPU RAM", "CPU time",
                                                    "wall time", "mean CPU"};

#define COMPARE_MAX_FILES 64
#define COMPARE_MAX_TESTS 10000
#define COMPARE_MAX_BYTES (64 << 20) /* a test suite's figures: 10,000 tests fit */

/* One run of one subject (the whole run, or one test): bytes, seconds, cores. */
struct figures {
    double v[NMETRICS];
};

/* The subjects of one file: one ("run") for a summary or snapshot, one per
 * test for a test suite's file. */
struct subject {
    char *name;
    struct figures f;
};

struct run_file {
    struct subject *s;
    size_t n;
    /* The subjects by name (json-c's table: a seeded hash, so that names
     * made to collide cost no more than others): each name is hashed once
     * here and once as it is looked up, so matching a new run's tests
     * against the baselines takes time linear in the files' bytes. NULL
     * until run_file_index(). */
    struct lh_table *by_name;
};

static void run_file_free(struct run_file *r)
{
    if (r->by_name)
        lh_table_free(r->by_name);
    for (size_t i = 0; i < r->n; i++)
        free(r->s[i].name);
    free(r->s);
    r->s = NULL;
    r->n = 0;
    r->by_name = NULL;
}

/* Makes r->by_name: 0, or -1 when memory runs out. A name twice (two
 * files' worth cannot be one JSON object) keeps its first subject. */
static int run_file_index(struct run_file *r)
{
    r->by_name = lh_kchar_table_new(r->n > 16 ? (int)r->n * 2 : 32, NULL);
    for (size_t i = 0; r->by_name && i < r->n; i++) {
        void *seen;
        if (!lh_table_lookup_ex(r->by_name, r->s[i].name, &seen) &&
            lh_table_insert(r->by_name, r->s[i].name, &r->s[i]) != 0)
            return -1;
    }
    return r->by_name ? 0 : -1;
}

/* r's subject called name, NULL when it has none. */
static const struct subject *run_file_find(const struct run_file *r, const char *name)
{
    void *found = NULL;
    return lh_table_lookup_ex(r->by_name, name, &found) ? found : NULL;
}

static int add_subject(struct run_file *r, const char *name, const struct figures *f)
{
    struct subject *grown = realloc(r->s, (r->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->s = grown;
    if (!(r->s[r->n].name = strdup(name)))
        return -1;
    r->s[r->n].f = *f;
    r->n++;
    return 0;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* A summary's figures, in bytes, seconds and cores whatever its units. */
static int figures_of_usage(const gt_resource_usage *u, struct figures *f, char *err,
                            size_t cap, const char *path)
{
    double ram = units_ram_divisor(u->max_ram.unit);
    double gram = units_ram_divisor(u->max_gpu_ram.unit);
    double t = units_time_divisor(u->compute_time.unit);
    if (!(ram > 0 && gram > 0 && t > 0)) {
        snprintf(err, cap, "'%s': units '%s', '%s', '%s' are not ones gpu-tracker knows", path,
                 u->max_ram.unit, u->max_gpu_ram.unit, u->compute_time.unit);
        return -1;
    }
    f->v[METRIC_RAM] = u->max_ram.combined.total_rss * ram;
    f->v[METRIC_GPU_RAM] = u->max_gpu_ram.combined * gram;
    f->v[METRIC_WALL] = u->compute_time.time * t;
    f->v[METRIC_MEAN_CPU] = u->cpu_utilization.combined.mean_sum_percent / 100.0;
    /* the mean is the CPU time over the wall time: back to CPU seconds */
    f->v[METRIC_CPU_TIME] = f->v[METRIC_MEAN_CPU] * f->v[METRIC_WALL];
    return 0;
}

static double number_at(json_object *o, const char *key, int *bad)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v) ||
        !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) {
        *bad = 1;
        return 0;
    }
    double d = json_object_get_double(v);
    if (!isfinite(d) || d < 0)
        *bad = 1;
    return d;
}

/* A test suite's figures (python/gputracker/pytest_plugin.py writes them). */
/* A test's name from another user's file, safe to print: through the one
 * escaper (text_escape: control characters and bytes that are not UTF-8
 * as \xNN), and in markdown '|' (a cell's end) as '/'; cut to fit cap, at
 * a character's start. */
static const char *printable(const char *name, int markdown, char *out, size_t cap)
{
    text_escape_into(name, out, cap);
    for (char *p = out; markdown && *p; p++)
        if (*p == '|')
            *p = '/';
    return out;
}

static int read_tests(json_object *doc, struct run_file *r, char *err, size_t cap,
                      const char *path)
{
    json_object *tests = NULL;
    if (!json_object_object_get_ex(doc, "tests", &tests) ||
        !json_object_is_type(tests, json_type_object)) {
        snprintf(err, cap, "'%s': a gputracker-pytest file needs a \"tests\" object", path);
        return -1;
    }
    if (json_object_object_length(tests) > COMPARE_MAX_TESTS) {
        snprintf(err, cap, "'%s': more than %d tests", path, COMPARE_MAX_TESTS);
        return -1;
    }
    json_object_object_foreach(tests, name, t)
    {
        int bad = !json_object_is_type(t, json_type_object);
        struct figures f = {{0}};
        static const char *const keys[NMETRICS] = {"peak_ram_bytes", "peak_gpu_ram_bytes",
                                                   "cpu_seconds", "wall_seconds", "mean_cpu_cores"};
        for (int m = 0; !bad && m < NMETRICS; m++)
            f.v[m] = number_at(t, keys[m], &bad);
        if (bad) {
            char shown[256];
            snprintf(err, cap, "'%s': test '%s' lacks a figure (peak_ram_bytes, "
                     "peak_gpu_ram_bytes, cpu_seconds, wall_seconds, mean_cpu_cores: numbers "
                     "of 0 or more)", path, printable(name, 0, shown, sizeof shown));
            return -1;
        }
        if (add_subject(r, name, &f) < 0) {
            snprintf(err, cap, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int read_run_file(const char *path, struct run_file *r, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    struct figures f;
    if (ends_with(path, ".json.gz")) {
        gt_snapshot *s = NULL;
        if (gt_snapshot_read(path, 0, &s) != GT_OK) {
            snprintf(err, cap, "%s", gt_last_error());
            return -1;
        }
        int rc = s->no_summary ? -1 : figures_of_usage(&s->usage, &f, err, cap, path);
        if (s->no_summary)
            snprintf(err, cap, "'%s' is a resource_tracker snapshot: it has no summary to "
                     "compare (make one with gpu-tracker --snapshot)", path);
        gt_snapshot_free(s);
        if (rc == 0 && add_subject(r, "run", &f) < 0) {
            snprintf(err, cap, "out of memory");
            rc = -1;
        }
        return rc;
    }
    if (!ends_with(path, ".json")) {
        snprintf(err, cap, "'%s': give a JSON summary or test-suite file (.json) or a snapshot "
                 "(.json.gz)", path);
        return -1;
    }
    char *text = NULL;
    size_t len = 0;
    if (input_file_read(path, COMPARE_MAX_BYTES, "file", &text, &len) != GT_OK) {
        snprintf(err, cap, "%s", gt_last_error());
        return -1;
    }
    json_tokener *tok = json_tokener_new_ex(64);
    json_object *doc = tok ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
    int complete = tok && json_tokener_get_error(tok) == json_tokener_success;
    if (tok)
        json_tokener_free(tok);
    int rc = -1;
    json_object *kind = NULL, *version = NULL;
    if (!complete || !json_object_is_type(doc, json_type_object)) {
        snprintf(err, cap, "'%s' is not a JSON object", path);
    } else if (json_object_object_get_ex(doc, "format", &kind) &&
               json_object_is_type(kind, json_type_string) &&
               strcmp(json_object_get_string(kind), "gputracker-pytest") == 0) {
        rc = read_tests(doc, r, err, cap, path);
    } else if (json_object_object_get_ex(doc, "format_version", &version)) {
        gt_snapshot *s = NULL;
        if (gt_snapshot_from_memory(text, len, path, 0, &s) != GT_OK) {
            snprintf(err, cap, "%s", gt_last_error());
        } else {
            rc = s->no_summary ? -1 : figures_of_usage(&s->usage, &f, err, cap, path);
            if (s->no_summary)
                snprintf(err, cap, "'%s' is a resource_tracker snapshot: it has no summary to "
                         "compare", path);
            gt_snapshot_free(s);
            if (rc == 0 && (rc = add_subject(r, "run", &f)) < 0)
                snprintf(err, cap, "out of memory");
        }
    } else {
        gt_resource_usage *u = calloc(1, sizeof *u);
        if (!u) {
            snprintf(err, cap, "out of memory");
        } else if ((u->struct_size = sizeof *u, gt_usage_from_json(text, u)) != GT_OK) {
            snprintf(err, cap, "'%s' is not a summary: %s", path, gt_last_error());
        } else if ((rc = figures_of_usage(u, &f, err, cap, path)) == 0 &&
                   (rc = add_subject(r, "run", &f)) < 0) {
            snprintf(err, cap, "out of memory");
        }
        free(u);
    }
    json_object_put(doc);
    free(text);
    if (rc < 0)
        run_file_free(r);
    return rc;
}

static int parse_percent(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return -1;
    if (*end == '%')
        end++;
    if (*end)
        return -1;
    *out = v / 100.0;
    return 0;
}

static int metric_index(const char *name, size_t n)
{
    for (int m = 0; m < NMETRICS; m++)
        if (strlen(metric_keys[m]) == n && strncmp(metric_keys[m], name, n) == 0)
            return m;
    return -1;
}

#define METRIC_NAMES "peak_ram, peak_gpu_ram, cpu_time, wall_time, mean_cpu"

static const char compare_usage[] =
    "usage: gpu-tracker compare [--tolerance PCT|METRIC=PCT]... [--metric METRIC]...\n"
    "                           [-f text|markdown|json] BASE... NEW\n";

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A figure for a person: KiB/MiB/GiB, s/min/h, cores. */
static void show_value(int m, double v, char *out, size_t cap)
{
    if (m == METRIC_RAM || m == METRIC_GPU_RAM)
        human_bytes(out, cap, v);
    else if (m == METRIC_MEAN_CPU)
        snprintf(out, cap, "%.2f cores", v);
    else
        human_duration(out, cap, v);
}

/* The base's median, range and the new figure of metric m (v[0..3]: median,
 * lo, hi, new), each in out[i], with the figures needed to tell apart those
 * that differ: three significant figures as a rule (101 MiB), more where
 * that would print a spread of 0.2 % as "101 MiB-101 MiB" (101.0 MiB-101.2
 * MiB). One unit for all four: the median's. */
static void show_values(int m, const double v[4], char out[4][48])
{
    double scale = 1;
    const char *unit = "s";
    if (m == METRIC_RAM || m == METRIC_GPU_RAM) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        size_t u = 0;
        for (double x = v[0]; x >= 1024.0 && u + 1 < sizeof units / sizeof units[0]; x /= 1024.0)
            u++;
        scale = pow(1024.0, (double)u);
        unit = units[u];
    } else if (m == METRIC_MEAN_CPU) {
        unit = "cores";
    }
    for (int i = 0; i < 4; i++) /* the usual forms first */
        show_value(m, v[i], out[i], sizeof out[i]);
    double first = v[0] / scale;
    int decimals = m == METRIC_MEAN_CPU ? 2 : first < 10 ? 2 : first < 100 ? 1 : 0;
    for (int extra = 0; extra <= 6; extra++) {
        int clash = 0;
        for (int i = 0; i < 4 && !clash; i++)
            for (int j = i + 1; j < 4; j++)
                if (v[i] != v[j] && !strcmp(out[i], out[j]))
                    clash = 1;
        if (!clash)
            return;
        /* (a clock, 1:23, that hides a spread gives way to seconds) */
        for (int i = 0; i < 4; i++)
            snprintf(out[i], sizeof out[i], "%.*f %s", decimals + extra, v[i] / scale, unit);
    }
}

struct row {
    const char *subject;
    int metric;
    double median, lo, hi, now;
    int nbase;
    double change; /* fraction, NAN when the base is 0 and the new is not */
    double tolerance;
    int gated, failed;
};

/* compare's options. */
struct compare_options {
    double tolerance[NMETRICS]; /* by metric: a growth allowed, 0.10 = 10 % */
    int gated[NMETRICS];        /* by metric: a growth past it fails */
    const char *format;         /* text, markdown or json */
};

/* compare's options into *co (zeroed by the caller): -1 to go on, or the
 * exit status when it ends here (--help, or an error said). */
static int compare_parse(int argc, char **argv, struct compare_options *co)
{
    for (int m = 0; m < NMETRICS; m++)
        co->tolerance[m] = 0.10;
    int any_metric = 0;
    co->format = "text";
    static const struct option longs[] = {
        {"tolerance", required_argument, NULL, 't'}, {"metric", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":f:h", longs, NULL)) != -1) {
        char msg[512];
        if (c == 'h') {
            fputs(compare_usage, stdout);
            return 0;
        } else if (c == 'f') {
            if (strcmp(optarg, "text") && strcmp(optarg, "markdown") && strcmp(optarg, "json")) {
                snprintf(msg, sizeof msg, "compare: unknown format '%s'; valid formats: text, "
                         "markdown, json", optarg);
                return cli_fail(msg, 2);
            }
            co->format = optarg;
        } else if (c == 't') {
            const char *eq = strchr(optarg, '=');
            int m = eq ? metric_index(optarg, (size_t)(eq - optarg)) : -1;
            double v;
            if ((eq && m < 0) || parse_percent(eq ? eq + 1 : optarg, &v) < 0) {
                snprintf(msg, sizeof msg, "compare: invalid --tolerance '%s': give a percentage "
                         "(10%%) or METRIC=PERCENT, METRIC one of " METRIC_NAMES, optarg);
                return cli_fail(msg, 2);
            }
            for (int k = 0; k < NMETRICS; k++)
                if (!eq || k == m)
                    co->tolerance[k] = v;
        } else if (c == 'm') {
            int m = metric_index(optarg, strlen(optarg));
            if (m < 0) {
                snprintf(msg, sizeof msg, "compare: unknown metric '%s'; valid: " METRIC_NAMES,
                         optarg);
                return cli_fail(msg, 2);
            }
            co->gated[m] = any_metric = 1;
        } else {
            snprintf(msg, sizeof msg, "compare: %s '%s'\n%s",
                     c == ':' ? "missing value for" : "unknown option", argv[optind - 1],
                     compare_usage);
            msg[strcspn(msg, "\n")] = '\0';
            return cli_fail(msg, 2);
        }
    }
    /* By default the memory peaks are gated: times move with the machine
     * (docs/ci.md says how much). */
    if (!any_metric)
        co->gated[METRIC_RAM] = co->gated[METRIC_GPU_RAM] = 1;
    return -1;
}

/* The rows of the comparison: each subject of the new run (the last file)
 * against its baselines, metric by metric (*rows_out, malloc'd; *nrows,
 * *missing: subjects with no baseline; *failed: a gated metric grew past
 * its tolerance). 0, or -1 when memory runs out (*rows_out freed). */
static int compare_rows(struct run_file *files, int nfiles, const struct compare_options *co,
                        struct row **rows_out, size_t *nrows_out, size_t *missing_out,
                        int *failed_out)
{
    const struct run_file *now = &files[nfiles - 1];
    int nbase = nfiles - 1;
    struct row *rows = *rows_out = calloc(now->n * NMETRICS + 1, sizeof *rows);
    double *vals = calloc((size_t)nbase, sizeof *vals);
    const struct subject **found = calloc((size_t)nbase, sizeof *found);
    int indexed = 1;
    for (int b = 0; b < nbase; b++)
        indexed &= run_file_index(&files[b]) == 0;
    size_t nrows = 0, missing = 0;
    int failed = 0;
    for (size_t s = 0; indexed && rows && vals && found && s < now->n; s++) {
        int nfound = 0;
        for (int b = 0; b < nbase; b++)
            if ((found[nfound] = run_file_find(&files[b], now->s[s].name)))
                nfound++;
        for (int m = 0; m < NMETRICS; m++) {
            int n = 0;
            for (int k = 0; k < nfound; k++)
                vals[n++] = found[k]->f.v[m];
            if (n == 0) {
                missing += m == 0;
                continue;
            }
            qsort(vals, (size_t)n, sizeof *vals, by_double);
            /* No GPU in any of the runs: no row to read. */
            if (m == METRIC_GPU_RAM && vals[n - 1] == 0 && now->s[s].f.v[m] == 0)
                continue;
            struct row *r = &rows[nrows++];
            r->subject = now->s[s].name;
            r->metric = m;
            r->nbase = n;
            r->lo = vals[0];
            r->hi = vals[n - 1];
            r->median = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
            r->now = now->s[s].f.v[m];
            r->change = r->median > 0 ? r->now / r->median - 1 : r->now > 0 ? NAN : 0;
            r->tolerance = co->tolerance[m];
            r->gated = co->gated[m];
            r->failed = r->gated && r->now > r->median * (1 + r->tolerance) && r->now > r->hi &&
                        r->now > 0;
            failed |= r->failed;
        }
    }
    int matched = indexed && rows && vals && found;
    free(found);
    free(vals);
    if (!matched) {
        free(rows);
        *rows_out = NULL;
        return -1;
    }
    *nrows_out = nrows;
    *missing_out = missing;
    *failed_out = failed;
    return 0;
}

/* The comparison as JSON on standard output. */
static void compare_print_json(const struct row *rows, size_t nrows, int nbase, int failed)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "passed", json_object_new_boolean(!failed));
    json_object_object_add(o, "baseline_runs", json_object_new_int(nbase));
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "subject", json_object_new_string(r->subject));
        json_object_object_add(x, "metric", json_object_new_string(metric_keys[r->metric]));
        json_object_object_add(x, "base_median", json_object_new_double(r->median));
        json_object_object_add(x, "base_min", json_object_new_double(r->lo));
        json_object_object_add(x, "base_max", json_object_new_double(r->hi));
        json_object_object_add(x, "base_runs", json_object_new_int(r->nbase));
        json_object_object_add(x, "new", json_object_new_double(r->now));
        json_object_object_add(x, "change_percent", isnan(r->change) ? NULL
                               : json_object_new_double(r->change * 100));
        json_object_object_add(x, "tolerance_percent",
                               json_object_new_double(r->tolerance * 100));
        json_object_object_add(x, "gated", json_object_new_boolean(r->gated));
        json_object_object_add(x, "failed", json_object_new_boolean(r->failed));
        json_object_array_add(arr, x);
    }
    json_object_object_add(o, "rows", arr);
    puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
}

/* The comparison as a table (markdown: GitHub's) on standard output; tests:
 * the rows are of several tests (pytest's), named at their first row. */
static void compare_print_table(const struct row *rows, size_t nrows, int nbase, int failed,
                                int md, int tests)
{
    if (md)
        printf("| %sMetric | Base%s | New | Change | Tolerance | Result |\n|%s---|---:|---:|---:|"
               "---:|---|\n", tests ? "Test | " : "", nbase > 1 ? " (median, range)" : "",
               tests ? "---|" : "");
    else
        printf("%s%-13s %-36s %-12s %9s %9s  %s\n", tests ? "test  " : "", "metric",
               nbase > 1 ? "base (median, range)" : "base", "new", "change", "tolerance",
               "result");
    for (size_t i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        char shown[4][48], base[160], change[32], tol[32];
        const double values[4] = {r->median, r->lo, r->hi, r->now};
        show_values(r->metric, values, shown);
        const char *med = shown[0], *lo = shown[1], *hi = shown[2], *nw = shown[3];
        if (r->nbase > 1)
            snprintf(base, sizeof base, "%s (%s-%s)", med, lo, hi);
        else
            snprintf(base, sizeof base, "%s", med);
        if (isnan(r->change))
            snprintf(change, sizeof change, "new");
        else
            snprintf(change, sizeof change, "%+.1f %%", r->change * 100);
        snprintf(tol, sizeof tol, r->gated ? "%.0f %%" : "-", r->tolerance * 100);
        const char *result = r->failed ? "FAIL" : r->gated ? "ok" : "(shown)";
        char subject[512];
        printable(r->subject, md, subject, sizeof subject);
        if (md)
            printf("| %s%s%s | %s | %s | %s | %s | %s |\n", tests ? subject : "",
                   tests ? " | " : "", metric_titles[r->metric], base, nw, change, tol,
                   r->failed ? "**FAIL**" : result);
        else if (tests)
            printf("%s\n      %-13s %-36s %-12s %9s %9s  %s\n",
                   i == 0 || strcmp(rows[i - 1].subject, r->subject) ? subject : "",
                   metric_titles[r->metric], base, nw, change, tol, result);
        else
            printf("%-13s %-36s %-12s %9s %9s  %s\n", metric_titles[r->metric], base, nw,
                   change, tol, result);
    }
    if (md)
        printf("\n%s\n", failed ? "**A metric grew past its tolerance.**"
                                : "No gated metric grew past its tolerance.");
    else
        printf("%s\n", failed ? "FAIL: a metric grew past its tolerance"
                              : "ok: no gated metric grew past its tolerance");
}

int compare_command(int argc, char **argv)
{
    struct compare_options co = {0};
    int stop = compare_parse(argc, argv, &co);
    if (stop >= 0)
        return stop;
    int nfiles = argc - optind;
    if (nfiles < 2 || nfiles > COMPARE_MAX_FILES) {
        char msg[256];
        snprintf(msg, sizeof msg, "compare: give a baseline and a new run (2 to %d files: "
                 "BASE... NEW)", COMPARE_MAX_FILES);
        return cli_fail(msg, 2);
    }
    struct run_file files[COMPARE_MAX_FILES];
    char err[1024];
    for (int i = 0; i < nfiles; i++)
        if (read_run_file(argv[optind + i], &files[i], err, sizeof err) < 0) {
            for (int k = 0; k < i; k++)
                run_file_free(&files[k]);
            char msg[1100];
            snprintf(msg, sizeof msg, "compare: %s", err);
            return cli_fail(msg, 2);
        }
    struct row *rows = NULL;
    size_t nrows = 0, missing = 0;
    int failed = 0;
    if (compare_rows(files, nfiles, &co, &rows, &nrows, &missing, &failed) < 0) {
        for (int i = 0; i < nfiles; i++)
            run_file_free(&files[i]);
        return cli_fail("compare: out of memory", 2);
    }
    const struct run_file *now = &files[nfiles - 1];
    int tests = now->n > 1 || (now->n == 1 && strcmp(now->s[0].name, "run") != 0);
    if (!strcmp(co.format, "json"))
        compare_print_json(rows, nrows, nfiles - 1, failed);
    else
        compare_print_table(rows, nrows, nfiles - 1, failed, !strcmp(co.format, "markdown"), tests);
    if (missing)
        cli_error("compare: %zu test%s of the new run %s no baseline: not "
                  "compared\n", missing, missing == 1 ? "" : "s", missing == 1 ? "has" : "have");
    free(rows);
    for (int i = 0; i < nfiles; i++)
        run_file_free(&files[i]);
    return failed ? 1 : 0;
}
