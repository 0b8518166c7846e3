/* test_subtrack.c - gpu_tracker 5's sub-tracking analysis (gpu-tracker
 * sub-track combine|analyze|compare, gt_subtrack_*): statistics checked
 * against figures worked out by hand from small files written here in
 * gpu_tracker's documented layout (CSV and SQLite), the text layout, and
 * every refusal as a one-line error. (tests/python/test_sub_tracking.py
 * checks real tracking sessions against pandas, and the pickles.) */
#include <math.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "gpu_tracker_tools.h"
#include "runner.h"
#include "common/table_read.h"

/* A path in the test's directory, kept (tmp_path's buffers are reused). */
#define TMP(var, name)                                                                  \
    char var[256];                                                                      \
    snprintf(var, sizeof var, "%s", tmp_path(name))

/* ---- fixtures: gpu_tracker's layout, values chosen to work out by hand ---- */

/* Timepoints at t = 10 .. 19 s: main_ram = t - 10, main_n_threads = t % 3. */
static void write_tracking_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    fputs("ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,"
          "system_core_count,n_expected_cores,system_gpu_count,n_expected_gpus\r\n"
          "megabytes,megabytes,seconds,1000.0,0.0,4,2,0,0\r\n"
          "main_ram,main_n_threads,timestamp\r\n", f);
    for (int t = 10; t < 20; t++)
        fprintf(f, "%d.0,%d,%d.0\r\n", t - 10, t % 3, t);
    fclose(f);
}

/* Block "a" (process 7): calls [10.5, 12.5] and [15, 16], and a start at
 * 18.5 with no stop (still running: left out). Block "b,x" (process 9):
 * [13, 13.5]. Block "empty": [100, 101], after every timepoint. */
static const char marks_csv[] = "process_id,code_block_name,position,timestamp\n"
                                "7,a,0,10.5\n7,a,1,12.5\n9,\"b,x\",0,13\n7,a,0,15\n"
                                "9,\"b,x\",1,13.5\n7,a,1,16\n7,a,0,18.5\n9,empty,0,100\n"
                                "9,empty,1,101\n";

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void sql(sqlite3 *db, const char *statement)
{
    char *why = NULL;
    int rc = sqlite3_exec(db, statement, NULL, NULL, &why);
    CHECK_MSG(rc == SQLITE_OK, "%s: %s", statement, why ? why : "?");
    sqlite3_free(why);
}

/* The same runs as gpu_tracker's SQLAlchemy writes them: tables static_data
 * and data, typed VARCHAR, INTEGER, FLOAT. */
static void write_sqlite(const char *tracking, const char *marks)
{
    sqlite3 *db;
    sqlite3_open(tracking, &db);
    sql(db, "CREATE TABLE static_data (ram_unit VARCHAR, gpu_ram_unit VARCHAR, time_unit VARCHAR,"
            " ram_system_capacity FLOAT, gpu_ram_system_capacity FLOAT, system_core_count INTEGER,"
            " n_expected_cores INTEGER, system_gpu_count INTEGER, n_expected_gpus INTEGER)");
    sql(db, "INSERT INTO static_data VALUES ('megabytes','megabytes','seconds',1000.0,0.0,4,2,0,0)");
    sql(db, "CREATE TABLE data (main_ram FLOAT, main_n_threads INTEGER, timestamp FLOAT)");
    for (int t = 10; t < 20; t++) {
        char row[128];
        snprintf(row, sizeof row, "INSERT INTO data VALUES (%d.0, %d, %d.0)", t - 10, t % 3, t);
        sql(db, row);
    }
    sqlite3_close(db);
    sqlite3_open(marks, &db);
    sql(db, "CREATE TABLE data (process_id INTEGER, code_block_name VARCHAR, position INTEGER,"
            " timestamp FLOAT)");
    sql(db, "INSERT INTO data VALUES (7,'a',0,10.5),(7,'a',1,12.5),(9,'b,x',0,13),(7,'a',0,15),"
            "(9,'b,x',1,13.5),(7,'a',1,16),(7,'a',0,18.5),(9,'empty',0,100),(9,'empty',1,101)");
    sqlite3_close(db);
}

/* ---- the figures --------------------------------------------------------- */

static json_object *block_named(json_object *r, const char *name)
{
    json_object *blocks = json_object_object_get(r, "code_block_results");
    for (size_t i = 0; i < json_object_array_length(blocks); i++) {
        json_object *b = json_object_array_get_idx(blocks, i);
        if (strcmp(json_object_get_string(json_object_object_get(b, "name")), name) == 0)
            return b;
    }
    return NULL;
}

static int near_value(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (1 + fabs(b));
}
#define NEAR(a, b) near_value((a), (b))

static void check_figures(const char *json, const char *what)
{
    json_object *r = parse_or_fail(json, what);
    if (!r)
        return;
    /* Overall: main_ram 0..9 (mean 4.5, std sqrt(8.25)); threads
     * 1,2,0,1,2,0,1,2,0,1 (mean 1, std sqrt(0.6)). */
    CHECK(NEAR(jnum(r, "overall.main_ram.min"), 0) && NEAR(jnum(r, "overall.main_ram.max"), 9));
    CHECK(NEAR(jnum(r, "overall.main_ram.mean"), 4.5));
    CHECK(NEAR(jnum(r, "overall.main_ram.std"), sqrt(8.25)));
    CHECK(NEAR(jnum(r, "overall.main_n_threads.mean"), 1.0));
    CHECK(NEAR(jnum(r, "overall.main_n_threads.std"), sqrt(0.6)));
    CHECK(json_object_object_get(json_object_object_get(r, "overall"), "timestamp") == NULL);
    CHECK_STR(json_object_get_string(json_object_object_get(
                  json_object_object_get(r, "static_data"), "ram_unit")), "megabytes");
    CHECK(json_object_is_type(json_object_object_get(json_object_object_get(r, "static_data"),
                                                     "system_core_count"), json_type_int));
    CHECK(NEAR(jnum(r, "static_data.ram_system_capacity"), 1000.0));
    /* Blocks in name order. */
    json_object *blocks = json_object_object_get(r, "code_block_results");
    CHECK(json_object_array_length(blocks) == 3);
    CHECK_STR(json_object_get_string(json_object_object_get(json_object_array_get_idx(blocks, 1),
                                                            "name")), "b,x");
    /* "a": timepoints 11, 12, 15, 16 -> main_ram 1, 2, 5, 6 (mean 3.5,
     * std sqrt(17/4)); threads 2, 0, 0, 1. Calls of 2 s and 1 s. */
    json_object *a = block_named(r, "a");
    CHECK(a && jnum(a, "num_timepoints") == 4 && jnum(a, "num_calls") == 2 &&
          jnum(a, "num_non_empty_calls") == 2);
    CHECK(a && NEAR(jnum(a, "resource_usage.main_ram.min"), 1) &&
          NEAR(jnum(a, "resource_usage.main_ram.max"), 6));
    CHECK(a && NEAR(jnum(a, "resource_usage.main_ram.mean"), 3.5));
    CHECK(a && NEAR(jnum(a, "resource_usage.main_ram.std"), sqrt(17.0 / 4)));
    CHECK(a && NEAR(jnum(a, "resource_usage.main_n_threads.mean"), 0.75));
    CHECK(a && NEAR(jnum(a, "compute_time.min"), 1) && NEAR(jnum(a, "compute_time.max"), 2));
    CHECK(a && NEAR(jnum(a, "compute_time.mean"), 1.5) && NEAR(jnum(a, "compute_time.std"), 0.5));
    CHECK(a && NEAR(jnum(a, "compute_time.total"), 3));
    /* "b,x": the timepoint at 13 only. */
    json_object *b = block_named(r, "b,x");
    CHECK(b && jnum(b, "num_timepoints") == 1 && NEAR(jnum(b, "resource_usage.main_ram.max"), 3));
    CHECK(b && NEAR(jnum(b, "resource_usage.main_ram.std"), 0));
    /* "empty": one call, no timepoint in it: NaN statistics are null. */
    json_object *e = block_named(r, "empty");
    CHECK(e && jnum(e, "num_calls") == 1 && jnum(e, "num_timepoints") == 0 &&
          jnum(e, "num_non_empty_calls") == 0);
    json_object *usage = e ? json_object_object_get(json_object_object_get(e, "resource_usage"),
                                                    "main_ram") : NULL;
    json_object *mean = NULL;
    CHECK(usage && json_object_object_get_ex(usage, "mean", &mean) && mean == NULL);
    CHECK(e && NEAR(jnum(e, "compute_time.total"), 1));
    json_object_put(r);
}

/* What gpu_tracker prints for these files (its _dict_to_str over pandas
 * tables; tests/python compares ours with pandas' own rendering). */
static const char expected_text[] =
    "Overall:\n"
    "\t                min  max  mean        std\n"
    "\tmain_ram        0.0  9.0   4.5 2.87228132\n"
    "\tmain_n_threads  0.0  2.0   1.0 0.77459667\n"
    "Static Data:\n"
    "\t   ram_unit gpu_ram_unit time_unit ram_system_capacity gpu_ram_system_capacity "
    "system_core_count n_expected_cores system_gpu_count n_expected_gpus\n"
    "\t  megabytes    megabytes   seconds              1000.0                     0.0 "
    "                4                2                0               0\n"
    "Code Block Results:\n"
    "\tName:                a\n"
    "\tNum Timepoints:      4\n"
    "\tNum Calls:           2\n"
    "\tNum Non Empty Calls: 2\n"
    "\tCompute Time:\n"
    "\t\t  min  max  mean  std  total\n"
    "\t\t  1.0  2.0   1.5  0.5    3.0\n"
    "\tResource Usage:\n"
    "\t\t                min  max  mean        std\n"
    "\t\tmain_ram        1.0  6.0   3.5 2.06155281\n"
    "\t\tmain_n_threads  0.0  2.0  0.75  0.8291562\n"
    "\n";

static void test_analyze(void)
{
    TMP(tf, "tracking.csv");
    TMP(stf, "marks.csv");
    write_tracking_csv(tf);
    write_text(stf, marks_csv);

    struct result r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-f", "json", NULL);
    CHECK_MSG(r.status == 0, "analyze -f json: %s", r.err.data);
    check_figures(r.out.data, "analyze -f json");
    result_free(&r);

    /* The library call gives the same document. */
    char *json = NULL;
    CHECK(gt_subtrack_analyze(tf, stf, GT_FORMAT_JSON, &json, NULL) == GT_OK);
    check_figures(json, "gt_subtrack_analyze");
    free(json);

    /* The calls of each block, paired (the trailing start of "a" left out). */
    char *calls = NULL;
    CHECK(gt_subtrack_calls(stf, &calls) == GT_OK);
    json_object *cj = parse_or_fail(calls ? calls : "", "gt_subtrack_calls");
    CHECK(cj && json_object_object_length(cj) == 3);
    CHECK(NEAR(jnum(cj, "a.0.0"), 10.5) && NEAR(jnum(cj, "a.0.1"), 12.5));
    CHECK(NEAR(jnum(cj, "a.1.0"), 15) && NEAR(jnum(cj, "a.1.1"), 16));
    CHECK(json_object_array_length(json_object_object_get(cj, "a")) == 2);
    CHECK(NEAR(jnum(cj, "empty.0.1"), 101));
    json_object_put(cj);
    free(calls);

    /* Marks with a header and no row: no blocks, the overall figures. */
    TMP(no_marks, "no-marks.csv");
    write_text(no_marks, "process_id,code_block_name,position,timestamp\n");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", no_marks, "-f", "json", NULL);
    CHECK_MSG(r.status == 0, "no marks: %s", r.err.data);
    json_object *nm = parse_or_fail(r.out.data ? r.out.data : "", "analyze of no marks");
    CHECK(nm && json_object_array_length(json_object_object_get(nm, "code_block_results")) == 0);
    CHECK(nm && NEAR(jnum(nm, "overall.main_ram.mean"), 4.5));
    json_object_put(nm);
    result_free(&r);

    /* SQLite files, as gpu_tracker's SQLAlchemy writes them. */
    TMP(tq, "tracking.sqlite");
    TMP(sq, "marks.sqlite");
    write_sqlite(tq, sq);
    r = gt("sub-track", "analyze", "--tf", tq, "--stf", sq, "--format=json", NULL);
    CHECK_MSG(r.status == 0, "analyze sqlite: %s", r.err.data);
    check_figures(r.out.data, "analyze of SQLite files");
    result_free(&r);
    /* Mixed: a CSV tracking file with SQLite marks. */
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", sq, "-f", "json", NULL);
    check_figures(r.out.data, "analyze of mixed files");
    result_free(&r);

    /* Text: gpu_tracker's layout, printed as print() does (a newline more). */
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, NULL);
    CHECK(r.status == 0);
    CHECK_MSG(r.out.data && strncmp(r.out.data, expected_text, sizeof expected_text - 1) == 0,
              "text:\n%s", r.out.data ? r.out.data : "(none)");
    CHECK_CONTAINS(r.out.data, "\tName:                empty\n\tNum Timepoints:      0\n");
    CHECK_CONTAINS(r.out.data, "\t\tmain_ram        NaN  NaN   NaN  NaN\n");
    size_t n = r.out.data ? strlen(r.out.data) : 0;
    CHECK(n > 3 && strcmp(r.out.data + n - 3, "\n\n\n") == 0);
    result_free(&r);
    /* -o writes the text as gpu_tracker does (no newline added). */
    TMP(out, "analysis.txt");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-o", out, NULL);
    CHECK(r.status == 0 && r.out.len == 0);
    result_free(&r);
    char *text = slurp(out);
    CHECK(text && strncmp(text, expected_text, sizeof expected_text - 1) == 0);
    n = text ? strlen(text) : 0;
    CHECK(n > 2 && strcmp(text + n - 2, "\n\n") == 0 && text[n - 3] != '\n');
    free(text);
}

static void test_combine(void)
{
    /* Two processes' files, combined, analyse as the one file above. */
    TMP(p1, "c1.csv");
    TMP(p2, "c2.csv");
    write_text(p1, "process_id,code_block_name,position,timestamp\n"
                   "7,a,0,10.5\n7,a,1,12.5\n7,a,0,15\n7,a,1,16\n7,a,0,18.5\n");
    /* columns in another order: matched by name */
    write_text(p2, "timestamp,position,code_block_name,process_id\n"
                   "13,0,\"b,x\",9\n13.5,1,\"b,x\",9\n100,0,empty,9\n101,1,empty,9\n");
    TMP(combined, "combined.csv");
    struct result r = gt("sub-track", "combine", "--stf", combined, "-p", p1, "-p", p2, NULL);
    CHECK_MSG(r.status == 0 && r.out.len == 0 && r.err.len == 0, "combine: %s", r.err.data);
    result_free(&r);
    char *text = slurp(combined);
    CHECK_STR(text, "process_id,code_block_name,position,timestamp\r\n7,a,0,10.5\r\n"
                    "7,a,1,12.5\r\n7,a,0,15.0\r\n7,a,1,16.0\r\n7,a,0,18.5\r\n9,\"b,x\",0,13.0\r\n"
                    "9,\"b,x\",1,13.5\r\n9,empty,0,100.0\r\n9,empty,1,101.0\r\n");
    free(text);
    TMP(tf, "tracking.csv");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", combined, "-f", "json", NULL);
    check_figures(r.out.data, "analyze of the combined file");
    result_free(&r);

    /* A directory: its files of the combined file's format, by name. */
    char dir[300];
    snprintf(dir, sizeof dir, "%s", tmp_path("marks.d"));
    mkdir(dir, 0755);
    char path[400];
    snprintf(path, sizeof path, "%s/2.csv", dir);
    write_text(path, "process_id,code_block_name,position,timestamp\n9,\"b,x\",0,13\n"
                     "9,\"b,x\",1,13.5\n9,empty,0,100\n9,empty,1,101\n");
    snprintf(path, sizeof path, "%s/1.csv", dir);
    write_text(path, "process_id,code_block_name,position,timestamp\n"
                     "7,a,0,10.5\n7,a,1,12.5\n7,a,0,15\n7,a,1,16\n7,a,0,18.5\n");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_text(path, "not a sub-tracking file\n");
    TMP(from_dir, "from-dir.sqlite");
    r = gt("sub-track", "combine", "--stf", from_dir, "-p", dir, NULL);
    CHECK_MSG(r.status == 2 || r.status == 1, "no .sqlite files in the directory");
    CHECK_CONTAINS(r.err.data, "has no .sqlite files to combine");
    result_free(&r);
    TMP(dir_csv, "from-dir.csv");
    r = gt("sub-track", "combine", "--stf", dir_csv, "-p", dir, NULL);
    CHECK_MSG(r.status == 0, "combine DIR: %s", r.err.data);
    result_free(&r);
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", dir_csv, "-f", "json", NULL);
    check_figures(r.out.data, "analyze of a directory combined");
    result_free(&r);

    /* A link another user planted in the directory, to a root-only file
     * that reads as a sub-tracking CSV: not followed, so none of that
     * file reaches the combined one; the error names the link. */
    if (geteuid() == 0) {
        TMP(secret, "root-only.csv");
        write_text(secret, "process_id,code_block_name,position,timestamp\n"
                           "1,secret,0,1\n1,secret,1,2\n");
        CHECK(chmod(secret, 0600) == 0);
        snprintf(path, sizeof path, "%s/3.csv", dir);
        CHECK(symlink(secret, path) == 0 && lchown(path, 65534, 65534) == 0);
        TMP(planted_out, "planted.csv");
        r = gt("sub-track", "combine", "--stf", planted_out, "-p", dir, NULL);
        char want[1024];
        snprintf(want, sizeof want, "gpu-tracker: sub-track: cannot read sub-tracking file "
                 "'%s': '3.csv' is a symbolic link owned by user 65534, neither you nor root: not "
                 "following it (remove the link, or give another path)\n", path);
        check_error(&r, 1, want);
        struct stat none;
        CHECK(stat(planted_out, &none) != 0);
        unlink(path);
    }

    /* SQLite into SQLite. */
    TMP(sq, "marks.sqlite");
    TMP(sq2, "marks-combined.sqlite");
    r = gt("sub-track", "combine", "--stf", sq2, "-p", sq, NULL);
    CHECK_MSG(r.status == 0, "combine sqlite: %s", r.err.data);
    result_free(&r);
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", sq2, "-f", "json", NULL);
    check_figures(r.out.data, "analyze of a combined SQLite file");
    result_free(&r);

    /* Refusals: nothing is made, the one line says why. */
    char line[1024];
    r = gt("sub-track", "combine", "--stf", combined, "-p", p1, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: cannot combine into '%s': it already "
             "exists (give a new name; its marks would be lost)\n", combined);
    check_error(&r, 1, line);
    TMP(fresh, "fresh.csv");
    r = gt("sub-track", "combine", "--stf", fresh, "-p", p1, "-p", sq, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: cannot combine '%s' into '%s': every "
             "file must end in .csv, as the combined one\n", sq, fresh);
    check_error(&r, 1, line);
    TMP(bad, "bad-position.csv");
    write_text(bad, "process_id,code_block_name,position,timestamp\n7,a,2,10.5\n");
    r = gt("sub-track", "combine", "--stf", fresh, "-p", p1, "-p", bad, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: sub-tracking file '%s' record 2: "
             "position should be 0 (start) or 1 (stop), not '2'\n", bad);
    check_error(&r, 1, line);
    struct stat st;
    CHECK(stat(fresh, &st) != 0); /* no half-combined file */
    r = gt("sub-track", "combine", "--stf", fresh, NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: combine needs the files to combine: -p FILE "
                       "(repeated), or -p DIR\n");
    r = gt("sub-track", "combine", "-p", p1, NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: combine needs --stf OUT, the combined file to "
                       "make\n");
}

static void test_compare(void)
{
    TMP(tf, "tracking.csv");
    TMP(stf, "marks.csv");
    /* Session B: main_ram 50 at t = 15 (inside block a). */
    TMP(tf2, "tracking-b.csv");
    FILE *f = fopen(tf2, "w");
    fputs("ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,"
          "system_core_count,n_expected_cores,system_gpu_count,n_expected_gpus\r\n"
          "megabytes,megabytes,seconds,1000.0,0.0,4,2,0,0\r\n"
          "main_ram,main_n_threads,timestamp\r\n", f);
    for (int t = 10; t < 20; t++)
        fprintf(f, "%d.0,%d,%d.0\r\n", t == 15 ? 50 : t - 10, t % 3, t);
    fclose(f);
    TMP(ra, "a.json");
    TMP(rb, "b.json");
    struct result r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-f", "json", "-o",
                         ra, NULL);
    CHECK(r.status == 0);
    result_free(&r);
    r = gt("sub-track", "analyze", "--tf", tf2, "--stf", stf, "-f", "json", "-o", rb, NULL);
    CHECK(r.status == 0);
    result_free(&r);

    char ma[400], mb[400];
    snprintf(ma, sizeof ma, "A=%s", ra);
    snprintf(mb, sizeof mb, "B=%s", rb);
    r = gt("sub-track", "compare", "-m", mb, "-m", ma, "--stat", "max", "-f", "json", NULL);
    CHECK_MSG(r.status == 0, "compare: %s", r.err.data);
    json_object *c = parse_or_fail(r.out.data, "compare -f json");
    /* max main_ram: A 9, B 50 (sorted: A first); in block a: 6 and 50. */
    CHECK(NEAR(jnum(c, "overall_resource_usage.main_ram.A"), 9));
    CHECK(NEAR(jnum(c, "overall_resource_usage.main_ram.B"), 50));
    CHECK(NEAR(jnum(c, "code_block_resource_usage.main_ram.a.A"), 6));
    CHECK(NEAR(jnum(c, "code_block_resource_usage.main_ram.a.B"), 50));
    CHECK(NEAR(jnum(c, "code_block_compute_time.a.B"), 2));
    json_object *sorted = json_object_object_get(
        json_object_object_get(c, "overall_resource_usage"), "main_ram");
    struct json_object_iterator it = json_object_iter_begin(sorted);
    CHECK_STR(json_object_iter_peek_name(&it), "A"); /* the smaller first */
    json_object_put(c);
    result_free(&r);
    r = gt("sub-track", "compare", "-m", mb, "-m", ma, "--stat", "max", NULL);
    CHECK_CONTAINS(r.out.data, "Overall Resource Usage:\n\tMain Ram:\n\t\t   A    B\n"
                               "\t\t 9.0 50.0\n");
    CHECK_CONTAINS(r.out.data, "Code Block Compute Time:\n\ta:\n\t\t   B   A\n\t\t 2.0 2.0\n");
    result_free(&r);
    /* The attack: 40 sessions of one big results file (64 MB each held
     * 12 GB). Every session is held parsed at once, so the total is
     * bounded: past 64 MiB in all, one line names the session that passed
     * it, before anything is parsed. Here a 2 MiB file (results padded
     * with blanks, still JSON) 40 times: the 33rd passes the bound. */
    {
        TMP(padded, "padded.json");
        char *doc = slurp(ra);
        FILE *pf = fopen(padded, "w");
        CHECK(doc && pf);
        size_t doclen = doc ? strlen(doc) : 0, size = 2u << 20;
        if (doc && pf) {
            fputs(doc, pf);
            for (size_t k = doclen; k < size; k++)
                fputc(' ', pf);
            fclose(pf);
        }
        free(doc);
        char *argv[100], maps[40][600];
        int n = 0;
        argv[n++] = GT_BIN;
        argv[n++] = "sub-track";
        argv[n++] = "compare";
        for (int i = 0; i < 40; i++) {
            snprintf(maps[i], sizeof maps[i], "S%02d=%s", i + 1, padded);
            argv[n++] = "-m";
            argv[n++] = maps[i];
        }
        argv[n] = NULL;
        r = run_argv(argv);
        char want[900];
        snprintf(want, sizeof want, "gpu-tracker: sub-track: results file '%s' (session 'S33') "
                 "takes the sessions' results past 64 MiB in all: compare holds every session "
                 "parsed at once (about 18 bytes of memory a byte), so it reads at most that "
                 "much\n", padded);
        check_error(&r, 2, want);
        /* The library says the same of what it is given. */
        const char *names[40], *texts[40];
        char *big = calloc(size + 1, 1);
        if (big) {
            memset(big, ' ', size);
            big[0] = '{';
            big[size - 1] = '}';
        }
        for (int i = 0; i < 40; i++) {
            names[i] = maps[i];
            texts[i] = big ? big : "{}";
        }
        char *out = NULL, *warnings = NULL;
        CHECK(gt_subtrack_compare(names, texts, 40, "mean", GT_FORMAT_JSON, &out, &warnings) ==
              GT_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(gt_last_error(), "compare: the sessions' results come to more than 64 MiB "
                                        "with session 'S33=");
        free(big);
    }
    /* --cconfig: the map and statistic from a file; -m adds, --stat wins. */
    TMP(cc, "compare.json");
    f = fopen(cc, "w");
    fprintf(f, "{\"file_path_map\": {\"B\": \"%s\"}, \"statistic\": \"min\"}", rb);
    fclose(f);
    r = gt("sub-track", "compare", "--cconfig", cc, "-m", ma, "-f", "json", NULL);
    c = parse_or_fail(r.out.data, "compare --cconfig");
    CHECK(NEAR(jnum(c, "code_block_resource_usage.main_ram.a.B"), 1)); /* min */
    json_object_put(c);
    result_free(&r);
    r = gt("sub-track", "compare", "--cconfig", cc, "-m", ma, "--stat", "mean", "-f", "json",
           NULL);
    c = parse_or_fail(r.out.data, "compare --cconfig --stat");
    CHECK(NEAR(jnum(c, "code_block_resource_usage.main_ram.a.B"), (1 + 2 + 50 + 6) / 4.0));
    json_object_put(c);
    result_free(&r);

    /* Block names that differ only in their line number match by order,
     * with a warning; names that differ otherwise do not. */
    TMP(m1, "lines1.csv");
    TMP(m2, "lines2.csv");
    write_text(m1, "process_id,code_block_name,position,timestamp\n1,run.py:9,0,11\n"
                   "1,run.py:9,1,12\n1,run.py:30,0,14\n1,run.py:30,1,16\n");
    write_text(m2, "process_id,code_block_name,position,timestamp\n1,run.py:10,0,11\n"
                   "1,run.py:10,1,12\n1,run.py:31,0,14\n1,run.py:31,1,16\n");
    TMP(l1, "l1.json");
    TMP(l2, "l2.json");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", m1, "-f", "json", "-o", l1, NULL);
    result_free(&r);
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", m2, "-f", "json", "-o", l2, NULL);
    result_free(&r);
    char x1[400], x2[400];
    snprintf(x1, sizeof x1, "old=%s", l1);
    snprintf(x2, sizeof x2, "new=%s", l2);
    r = gt("sub-track", "compare", "-m", x1, "-m", x2, "-f", "json", NULL);
    CHECK(r.status == 0);
    CHECK_CONTAINS(r.err.data, "gpu-tracker: sub-track: warning: Code block name \"run.py:10\" "
                               "of tracking session \"new\" matched with code block name "
                               "\"run.py:9\" of tracking session \"old\" but they differ by "
                               "line number. ");
    c = parse_or_fail(r.out.data, "compare by line numbers");
    /* 9 < 30 numerically: the zero-filled sort pairs 9 with 10, 30 with 31 */
    json_object *times = json_object_object_get(c, "code_block_compute_time");
    json_object *first = json_object_object_get(times, "run.py:10 -> run.py:9");
    json_object *second = json_object_object_get(times, "run.py:30 -> run.py:31");
    CHECK(first && NEAR(json_object_get_double(json_object_object_get(first, "old")), 1));
    CHECK(second && NEAR(json_object_get_double(json_object_object_get(second, "new")), 2));
    json_object_put(c);
    result_free(&r);
    char line[1024];
    snprintf(x2, sizeof x2, "other=%s", ra);
    r = gt("sub-track", "compare", "-m", x1, "-m", x2, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: All sub-tracking results must have the same "
                       "number of code blocks. The first has 2 code blocks but tracking session "
                       "\"other\" has 3 code blocks.\n");
    /* A line number as Python's int() reads it (gpu_tracker's
     * _get_line_num): a sign and single underscores between digits are
     * part of one ("run.py:+1_0" matches "run.py:9" by order, with the
     * warning); "run.py:1__0" has none, and matches no "run.py:30". */
    write_text(m2, "process_id,code_block_name,position,timestamp\n1,run.py:+1_0,0,11\n"
                   "1,run.py:+1_0,1,12\n1,run.py:1__0,0,14\n1,run.py:1__0,1,16\n");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", m2, "-f", "json", "-o", l2, NULL);
    CHECK(r.status == 0);
    result_free(&r);
    snprintf(x2, sizeof x2, "new=%s", l2);
    r = gt("sub-track", "compare", "-m", x1, "-m", x2, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: Code block name \"run.py:1__0\" of tracking "
                       "session \"new\" does not match code block name \"run.py:30\" of "
                       "tracking session \"old\"\n");

    /* Refusals. */
    r = gt("sub-track", "compare", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: compare needs tracking sessions: -m NAME=FILE "
                       "(repeated), or --cconfig FILE with a file_path_map\n");
    r = gt("sub-track", "compare", "-m", "A", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: -m 'A' should be NAME=FILE (a session's name, "
                       "and its results from sub-track analyze -f json)\n");
    r = gt("sub-track", "compare", "-m", ma, "--stat", "median", NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: invalid statistic 'median': valid statistics "
                       "are min, max, mean and std\n");
    snprintf(x2, sizeof x2, "T=%s", tf);
    r = gt("sub-track", "compare", "-m", ma, "-m", x2, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: the results of tracking session 'T' are not "
                       "JSON results of sub-track analyze (unexpected character)\n");
    TMP(pkl, "results.pkl");
    write_text(pkl, "\x80\x04\x95 a pickle");
    snprintf(x2, sizeof x2, "P=%s", pkl);
    r = gt("sub-track", "compare", "-m", x2, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: results file '%s' (session 'P') is a "
             "pickle: this command reads the JSON of sub-track analyze -f json; the Python "
             "package's gpu-tracker compares pickles (docs/sub-tracking.md)\n", pkl);
    check_error(&r, 2, line);
    write_text(cc, "{\"file_path_map\": {\"B\": \"b.json\"}, \"stat\": \"min\"}");
    r = gt("sub-track", "compare", "--cconfig", cc, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: config file '%s': unknown key 'stat'; "
             "valid keys are file_path_map and statistic\n", cc);
    check_error(&r, 2, line);
    /* An unknown key (the file's text) and the file's path, escaped. */
    write_text(cc, "{\"file_path_map\": {\"B\": \"b.json\"}, \"\\u001b]52;c;SGVsbG8=\\u0007\": 1}");
    r = gt("sub-track", "compare", "--cconfig", cc, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: config file '%s': unknown key "
             "'\\x1b]52;c;SGVsbG8=\\x07'; valid keys are file_path_map and statistic\n", cc);
    check_error(&r, 2, line);
    char bell_path[400];
    snprintf(bell_path, sizeof bell_path, "%s\033[2J.json", cc);
    write_text(bell_path, "[1]");
    r = gt("sub-track", "compare", "--cconfig", bell_path, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: config file '%s\\x1b[2J.json': it is "
             "not a JSON object\n", cc);
    check_error(&r, 2, line);
    write_text(cc, "{\"file_path_map\": [\"b.json\"]}");
    r = gt("sub-track", "compare", "--cconfig", cc, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: config file '%s': file_path_map should "
             "be an object of session names to results files\n", cc);
    check_error(&r, 2, line);
    /* A JSON document that is not an analysis. */
    TMP(wrong, "wrong.json");
    write_text(wrong, "{\"overall\": {}}");
    snprintf(x2, sizeof x2, "W=%s", wrong);
    r = gt("sub-track", "compare", "-m", x2, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: the results of tracking session 'W': missing "
                       "key \"code_block_results\"\n");
    r = gt("sub-track", "compare", "-m", ma, "-f", "pickle", NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "-f pickle is written by the Python package's gpu-tracker");
    result_free(&r);
}

/* Every malformed or unreadable input: one line naming the file, the
 * record and what is valid; nothing on standard output. */
static void test_refusals(void)
{
    TMP(tf, "tracking.csv");
    TMP(stf, "marks.csv");
    char line[2048];
    struct result r;
#define REFUSED(status, marks_text, ...)                                                    \
    do {                                                                                    \
        TMP(m_, "refused.csv");                                                             \
        write_text(m_, marks_text);                                                         \
        r = gt("sub-track", "analyze", "--tf", tf, "--stf", m_, NULL);                      \
        snprintf(line, sizeof line, __VA_ARGS__);                                           \
        check_error(&r, status, line);                                                      \
    } while (0)
    TMP(m, "refused.csv");
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,1,10.5\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' is invalid: code block 'a' of "
            "process 7 has a stop without a start at 10.500000\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,0,10\n7,a,0,11\n7,a,1,12\n"
               "7,a,1,13\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' is invalid: code block 'a' of "
            "process 7 has two starts in a row (entered again before it stopped: nested calls "
            "of one name cannot be paired) at 11.000000\n", m);
    /* Where gpu_tracker 5.0.1 refuses a pair (load_timestamp_pairs), its words
     * to the byte: process 7's extra stop pairs with process 8's start. The
     * timestamps are printed as pandas reads them: 1700000000.7654321 and
     * 1700000012.5000001 read as 1700000000.765432 and 1700000012.5. */
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,0,10\n7,a,1,11\n7,a,1,12\n"
               "8,a,0,13.5\n8,a,1,14\n",
            "gpu-tracker: sub-track: Sub-tracking file is invalid. Detected timestamp pair (12.0, "
            "13.5) with differing process IDs: 7 and 8.\n");
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,0,10\n7,a,1,11\n"
               "7,a,1,1700000000.7654321\n8,a,0,1700000012.5000001\n8,a,1,1700000013\n",
            "gpu-tracker: sub-track: Sub-tracking file is invalid. Detected timestamp pair "
            "(1700000000.765432, 1700000012.5) with differing process IDs: 7 and 8.\n");
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,1,10\n7,a,0,11\n7,a,0,12\n"
               "7,a,1,13\n",
            "gpu-tracker: sub-track: Sub-tracking file is invalid. Detected timestamp pair (10.0, "
            "11.0) of process ID 7 with a start time greater than the stop time.\n");
    REFUSED(1, "process_id,code_block_name,position\n7,a,0\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' has no column 'timestamp' (a "
            "sub-tracking file has process_id, code_block_name, position and timestamp)\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,\"a,0,10.5\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' is not valid CSV after record 1: a "
            "quoted field is not closed\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,0,ten\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' record 2: timestamp is not a "
            "number: 'ten'\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,a,0,\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' record 2: timestamp is missing\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7.5,a,0,10\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' record 2: process_id is not an "
            "integer: 7.5\n", m);
    REFUSED(1, "process_id,code_block_name,position,timestamp\n7,,0,10\n",
            "gpu-tracker: sub-track: sub-tracking file '%s' record 2: code_block_name is "
            "missing\n", m);
    REFUSED(1, "", "gpu-tracker: sub-track: sub-tracking file '%s' is empty (no header)\n", m);
    /* A field past the bound: refused, not read into memory whole. */
    {
        FILE *f = fopen(m, "w");
        fputs("process_id,code_block_name,position,timestamp\n7,", f);
        for (int i = 0; i < (2 << 20); i++)
            fputc('a', f);
        fputs(",0,1\n", f);
        fclose(f);
        r = gt("sub-track", "analyze", "--tf", tf, "--stf", m, NULL);
        snprintf(line, sizeof line, "gpu-tracker: sub-track: sub-tracking file '%s' is not valid "
                 "CSV in record 2: a field is longer than 1 MiB\n", m);
        check_error(&r, 1, line);
    }
    /* The tracking file. */
    TMP(bad, "tracking-bad.csv");
    write_tracking_csv(bad);
    FILE *f = fopen(bad, "a");
    fputs("abc,1,20.0\r\n", f);
    fclose(f);
    r = gt("sub-track", "analyze", "--tf", bad, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' record 14: main_ram "
             "is not a number: 'abc'\n", bad);
    check_error(&r, 1, line);
    write_text(bad, "a,b\r\n1,2\r\nmain_ram,main_n_threads\r\n1,2\r\n");
    r = gt("sub-track", "analyze", "--tf", bad, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' has no column "
             "'timestamp' in its timepoints' header (line 3): is it a tracking file (--tf)?\n",
             bad);
    check_error(&r, 1, line);
    write_text(bad, "main_ram,timestamp\r\n1,2\r\n");
    r = gt("sub-track", "analyze", "--tf", bad, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' has no timepoints' "
             "header: is it a tracking file (--tf)?\n", bad);
    check_error(&r, 1, line);
    TMP(fifo, "fifo.csv");
    mkfifo(fifo, 0600);
    r = gt("sub-track", "analyze", "--tf", fifo, "--stf", stf, NULL); /* no wait for a writer */
    snprintf(line, sizeof line, "gpu-tracker: sub-track: cannot read tracking file '%s': it is "
             "not a regular file (FIFOs, devices and sockets are not read)\n", fifo);
    check_error(&r, 1, line);
    r = gt("sub-track", "analyze", "--tf", "/nonexistent/t.csv", "--stf", stf, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: cannot read tracking file '/nonexistent/t.csv': "
                       "No such file or directory\n");
    r = gt("sub-track", "analyze", "--tf", "t.txt", "--stf", stf, NULL);
    check_error(&r, 1, "gpu-tracker: sub-track: invalid tracking file name 't.txt': valid "
                       "extensions are .csv and .sqlite\n");
    /* SQLite: not a database; a view where the table should be. */
    TMP(notdb, "not-a-db.sqlite");
    write_text(notdb, "this is not a database, but long enough to look at its header.......\n");
    r = gt("sub-track", "analyze", "--tf", notdb, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' is not an SQLite "
             "database: file is not a database\n", notdb);
    check_error(&r, 1, line);
    TMP(view, "view.sqlite");
    sqlite3 *db;
    sqlite3_open(view, &db);
    sql(db, "CREATE TABLE static_data (ram_unit VARCHAR)");
    sql(db, "INSERT INTO static_data VALUES ('megabytes')");
    sql(db, "CREATE TABLE rows (main_ram FLOAT, timestamp FLOAT)");
    sql(db, "CREATE VIEW data AS SELECT * FROM rows");
    sqlite3_close(db);
    r = gt("sub-track", "analyze", "--tf", view, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' has a table 'rows': "
             "a tracking or sub-tracking file has only the plain tables 'data' and "
             "'static_data', and nothing else is read\n", view);
    check_error(&r, 1, line);
    TMP(sq, "marks.sqlite");
    r = gt("sub-track", "analyze", "--tf", sq, "--stf", stf, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-track: tracking file '%s' has no table "
             "'static_data'\n", sq);
    check_error(&r, 1, line);

    /* Usage. */
    r = gt("sub-track", "analyze", "--tf", tf, NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: analyze needs --tf TRACKING_FILE and --stf "
                       "SUB_TRACKING_FILE\n");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-f", "yaml", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: invalid format 'yaml': valid formats are text, "
                       "json (and pickle from the Python package)\n");
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "--stat", "max", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track analyze: unknown option '--stat'; it takes: "
                       "--tf, --stf, -o, --output, -f, --format\n");
    r = gt("sub-track", "analyze", "--tf", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: --tf needs a value\n");
    r = gt("sub-track", "anlyze", NULL);
    check_error(&r, 2, "gpu-tracker: sub-track: unknown action 'anlyze' (did you mean "
                       "'analyze'?); valid actions are combine, analyze and compare\n");
    r = gt("sub-track", NULL);
    CHECK(r.status == 2);
    CHECK_CONTAINS(r.err.data, "usage: gpu-tracker sub-track combine");
    result_free(&r);
    r = gt("sub-track", "--help", NULL);
    CHECK(r.status == 0 && r.err.len == 0);
    CHECK_CONTAINS(r.out.data, "gpu-tracker sub-track analyze --tf TRACKING --stf SUB_TRACKING");
    result_free(&r);
    /* An unwritable output: the analysis is not lost silently. */
    r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-o", "/nonexistent/a.txt", NULL);
    CHECK(r.status == 1 && r.out.len == 0);
    CHECK_CONTAINS(r.err.data, "/nonexistent/a.txt");
    result_free(&r);
}

/* An untrusted SQLite file made to run heavy SQL as it is read. The
 * attack: a generated column (timestamp AS (... zeroblob(200000000) ...))
 * in a 12 KB tracking file made analyze spin past 30 s at 980 MB. A
 * schema of anything but the plain tables is refused before a row is
 * read; SQLite's own limits, a wall-time and a heap bound stop the rest. */
static sqlite3 *hostile_db(const char *path)
{
    unlink(path);
    sqlite3 *db;
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    sql(db, "CREATE TABLE static_data (ram_unit VARCHAR)");
    sql(db, "INSERT INTO static_data VALUES ('megabytes')");
    return db;
}

static void check_refused(const char *tracking, const char *stf, const char *want_part)
{
    struct result r = gt("sub-track", "analyze", "--tf", tracking, "--stf", stf, NULL);
    CHECK_MSG(r.status == 1 && r.out.len == 0, "%s: status %d", tracking, r.status);
    CHECK_CONTAINS(r.err.data, want_part);
    CHECK_MSG(strchr(r.err.data, '\n') == r.err.data + r.err.len - 1, "not one line: %s",
              r.err.data);
    result_free(&r);
}

static void test_hostile_sqlite(void)
{
    TMP(stf, "hostile-marks.csv");
    write_text(stf, marks_csv);
    TMP(gen, "generated.sqlite");
    sqlite3 *db = hostile_db(gen);
    sql(db, "CREATE TABLE data (main_ram FLOAT, t0 FLOAT, timestamp FLOAT AS "
            "(t0 + length(zeroblob(200000000)) * 0))");
    for (int t = 10; t < 20; t++) {
        char row[128];
        snprintf(row, sizeof row, "INSERT INTO data (main_ram, t0) VALUES (%d.0, %d.0)", t - 10, t);
        sql(db, row);
    }
    sqlite3_close(db);
    check_refused(gen, stf, "column 'timestamp' of table 'data' is computed (a generated "
                            "column): its expression would run as the file is read");
    /* The check alone, for a reader of its own: by name, and through a
     * descriptor with the name in the message. */
    CHECK(gt_subtrack_check_file(gen, NULL) == GT_ERR_PARSE);
    int gen_fd = open(gen, O_RDONLY);
    char by_fd[64];
    snprintf(by_fd, sizeof by_fd, "/proc/self/fd/%d", gen_fd);
    CHECK(gt_subtrack_check_file(by_fd, gen) == GT_ERR_PARSE);
    char want[512];
    snprintf(want, sizeof want, "tracking file '%s': column 'timestamp'", gen);
    CHECK_CONTAINS(gt_last_error(), want);
    close(gen_fd);
    CHECK(gt_subtrack_check_file(stf, NULL) == GT_OK);
    CHECK(gt_subtrack_check_file("marks.txt", NULL) == GT_ERR_INVALID_ARGUMENT);

    /* A stored generated column, a trigger, an index, a virtual table,
     * another table: each refused by name. */
    struct {
        const char *name, *schema, *want;
    } cases[] = {
        {"stored.sqlite", "CREATE TABLE data (t0 FLOAT, timestamp FLOAT AS (t0 * 2) STORED)",
         "column 'timestamp' of table 'data' is computed"},
        {"trigger.sqlite", "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT); CREATE TRIGGER "
                           "t AFTER INSERT ON data BEGIN SELECT 1; END",
         "has a trigger 't'"},
        {"index.sqlite", "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT); CREATE INDEX i "
                         "ON data (length(zeroblob(100000)))",
         "has a index 'i'"},
        {"virtual.sqlite", "CREATE VIRTUAL TABLE data USING fts4(main_ram, timestamp)",
         "is not a plain table"},
        {"extra.sqlite", "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT); CREATE TABLE "
                         "other (x)",
         "has a table 'other'"},
        /* Names with a terminal's escapes (OSC 52 sets the clipboard,
         * ESC[2J clears the screen): shown escaped, never acted on. */
        {"osc-view.sqlite", "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT); CREATE VIEW "
                            "\"\033]52;c;SGVsbG8=\007\" AS SELECT 1",
         "has a view '\\x1b]52;c;SGVsbG8=\\x07'"},
        {"clear-trigger.sqlite", "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT); CREATE "
                                 "TRIGGER \"\033[2J\302\233\" AFTER INSERT ON data BEGIN "
                                 "SELECT 1; END",
         "has a trigger '\\x1b[2J\\xc2\\x9b'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TMP(path, cases[i].name);
        db = hostile_db(path);
        char *why = NULL;
        if (sqlite3_exec(db, cases[i].schema, NULL, NULL, &why) != SQLITE_OK) {
            /* fts4 may not be built in: then that case is not made */
            CHECK_MSG(strstr(cases[i].name, "virtual") != NULL, "%s: %s", cases[i].name, why);
            sqlite3_free(why);
            sqlite3_close(db);
            continue;
        }
        sqlite3_close(db);
        check_refused(path, stf, cases[i].want);
    }

    /* A value past SQLite's length limit (2 MiB): refused, not read. */
    TMP(big, "big-value.sqlite");
    db = hostile_db(big);
    sql(db, "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT)");
    sql(db, "INSERT INTO data VALUES (CAST(zeroblob(3000000) AS TEXT), 10.0)");
    sqlite3_close(db);
    check_refused(big, stf, "a row or a value is larger than 2 MiB");

    /* The wall-time and heap bounds, made small here (they are 120 s and
     * 64 MiB): a long table, and a big schema. */
    TMP(longf, "long.sqlite");
    db = hostile_db(longf);
    sql(db, "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT)");
    sql(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) "
            "INSERT INTO data SELECT i, 10.0 + i / 100000.0 FROM n");
    sqlite3_close(db);
    table_read_set_sqlite_bounds(1e-6, 0);
    char *out = NULL;
    CHECK(gt_subtrack_analyze(longf, stf, GT_FORMAT_JSON, &out, NULL) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "reading it takes more than 1e-06 s");
    free(out);
    out = NULL;
    table_read_set_sqlite_bounds(0, 1 << 20);
    TMP(wide, "wide-schema.sqlite");
    db = hostile_db(wide);
    sql(db, "CREATE TABLE data (main_ram FLOAT, timestamp FLOAT)");
    sql(db, "BEGIN");
    for (int i = 0; i < 3000; i++) {
        char stmt[256];
        snprintf(stmt, sizeof stmt, "CREATE TABLE filler_%d (a FLOAT, b FLOAT, c FLOAT, d FLOAT, "
                 "e FLOAT, f FLOAT, g FLOAT, h FLOAT)", i);
        sql(db, stmt);
    }
    sql(db, "COMMIT");
    sqlite3_close(db);
    CHECK(gt_subtrack_analyze(wide, stf, GT_FORMAT_JSON, &out, NULL) == GT_ERR_PARSE);
    CHECK_CONTAINS(gt_last_error(), "reading it takes more than 1 MiB of memory");
    free(out);
    out = NULL;
    /* With the defaults, the long table reads. */
    table_read_set_sqlite_bounds(0, 0);
    CHECK_MSG(gt_subtrack_analyze(longf, stf, GT_FORMAT_JSON, &out, NULL) == GT_OK, "%s",
              gt_last_error());
    free(out);
}

/* Many code blocks: memory grows with the results (a few KB a block, where
 * the whole JSON tree took ~40 KB: 10 000 blocks took 288 MB), and a file
 * whose blocks' results would pass 512 MiB is refused before the analysis
 * begins, in one line (200 000 blocks took 5.5 GB in 55 s). A tracking
 * file of 1000 columns makes 3000 blocks enough to pass the bound. */
static void test_many_blocks(void)
{
    TMP(tf, "wide.csv");
    TMP(stf, "many-blocks.csv");
    FILE *f = fopen(tf, "w");
    fputs("ram_unit,gpu_ram_unit,time_unit\r\nmegabytes,megabytes,seconds\r\n", f);
    for (int c = 0; c < 1000; c++)
        fprintf(f, "c%d,", c);
    fputs("timestamp\r\n", f);
    for (int t = 10; t < 20; t++) {
        for (int c = 0; c < 1000; c++)
            fprintf(f, "%d,", c + t);
        fprintf(f, "%d.0\r\n", t);
    }
    fclose(f);
    f = fopen(stf, "w");
    fputs("process_id,code_block_name,position,timestamp\n", f);
    for (int b = 0; b < 3000; b++)
        fprintf(f, "1,block-%d,0,%.4f\n1,block-%d,1,%.4f\n", b, 10 + b * 0.003, b,
                11 + b * 0.003);
    fclose(f);
    struct result r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, "-f", "json", NULL);
    char want[2048];
    snprintf(want, sizeof want, "gpu-tracker: sub-track: sub-tracking file '%s' has 3000 code "
             "blocks: their results over the 1000 columns of tracking file '%s' would take "
             "about 688 MiB, more than the 512 MiB an analysis may take (at most 2230 blocks "
             "with this tracking file)\n", stf, tf);
    check_error(&r, 1, want);
    /* Under the bound, the same file analyses, each block as alone. */
    f = fopen(stf, "w");
    fputs("process_id,code_block_name,position,timestamp\n", f);
    for (int b = 0; b < 200; b++)
        fprintf(f, "1,block-%d,0,%d.5\n1,block-%d,1,%d.5\n", b, 10 + b % 9, b, 11 + b % 9);
    fclose(f);
    char *out = NULL;
    CHECK_MSG(gt_subtrack_analyze(tf, stf, GT_FORMAT_JSON, &out, NULL) == GT_OK, "%s", gt_last_error());
    json_object *doc = out ? json_tokener_parse(out) : NULL;
    json_object *blocks = NULL;
    CHECK(doc && json_object_object_get_ex(doc, "code_block_results", &blocks) &&
          json_object_array_length(blocks) == 200);
    /* block-7 (sorted 7th of block-0, block-1, block-10, ...): [17.5, 18.5]
     * holds timepoint 18 only: c0 = 18. */
    for (size_t i = 0; blocks && i < json_object_array_length(blocks); i++) {
        json_object *b = json_object_array_get_idx(blocks, i), *name;
        json_object_object_get_ex(b, "name", &name);
        if (strcmp(json_object_get_string(name), "block-7") == 0) {
            CHECK(jnum(b, "num_timepoints") == 1);
            CHECK(jnum(b, "resource_usage.c0.max") == 18);
            CHECK(jnum(b, "resource_usage.c999.min") == 1017);
        }
    }
    json_object_put(doc);
    free(out);

    /* Blocks are found by a sweep over time; a file out of time order gives
     * the same results (its late rows looked up block by block), to the
     * text's 8 decimals (the running sums add in another order). */
    TMP(sorted, "sorted.csv");
    TMP(shuffled, "shuffled.csv");
    TMP(marks, "sweep-marks.csv");
    write_tracking_csv(sorted);
    write_text(marks, marks_csv);
    char *text = slurp(sorted);
    char *lines[16];
    int n = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < 16;
         l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    f = fopen(shuffled, "w");
    for (int i = 0; i < 3; i++)
        fprintf(f, "%s\n", lines[i]);
    const int order[] = {7, 3, 12, 4, 9, 5, 11, 6, 10, 8};
    for (int i = 0; i < 10; i++)
        fprintf(f, "%s\n", lines[order[i]]);
    fclose(f);
    free(text);
    /* Many calls of one block between two timepoints (none holds one): the
     * sweep keeps at most one interval of a block at a time. */
    TMP(between, "between-marks.csv");
    f = fopen(between, "w");
    fputs("process_id,code_block_name,position,timestamp\n", f);
    for (int k = 0; k < 8; k++)
        fprintf(f, "3,burst,0,%.2f\n3,burst,1,%.2f\n", 11.1 + k * 0.1, 11.15 + k * 0.1);
    fputs("3,burst,0,13\n3,burst,1,14\n", f);
    fclose(f);
    char *burst = NULL;
    CHECK(gt_subtrack_analyze(sorted, between, GT_FORMAT_JSON, &burst, NULL) == GT_OK);
    json_object *bdoc = burst ? json_tokener_parse(burst) : NULL;
    CHECK(bdoc && jnum(bdoc, "code_block_results.0.num_timepoints") == 2 &&
          jnum(bdoc, "code_block_results.0.num_calls") == 9 &&
          jnum(bdoc, "code_block_results.0.num_non_empty_calls") == 1);
    json_object_put(bdoc);
    free(burst);
    char *a = NULL, *b = NULL;
    CHECK(gt_subtrack_analyze(sorted, marks, GT_FORMAT_TEXT, &a, NULL) == GT_OK);
    CHECK(gt_subtrack_analyze(shuffled, marks, GT_FORMAT_TEXT, &b, NULL) == GT_OK);
    CHECK_STR(a, b);
    free(a);
    free(b);
}

/* Names from another user's file reach the terminal escaped, as `show`
 * prints them: the attack named a block with an OSC title sequence, a
 * screen clear and a carriage return, which analyze printed raw. */
static void test_names_escaped(void)
{
    TMP(tf, "esc-tracking.csv");
    TMP(stf, "esc-marks.csv");
    write_tracking_csv(tf);
    write_text(stf, "process_id,code_block_name,position,timestamp\n"
                    "7,\"\x1b]0;pwned\x07\x1b[2Jfake\rblock\",0,10.5\n"
                    "7,\"\x1b]0;pwned\x07\x1b[2Jfake\rblock\",1,12.5\n"
                    "7,caf\xc3\xa9,0,13\n7,caf\xc3\xa9,1,14\n");
    struct result r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, NULL);
    CHECK_MSG(r.status == 0, "%s", r.err.data);
    CHECK_MSG(!strchr(r.out.data, '\x1b') && !strchr(r.out.data, '\r') &&
                  !strchr(r.out.data, '\x07'),
              "a control character reached the text: %s", r.out.data);
    CHECK_CONTAINS(r.out.data, "\\x1b]0;pwned\\x07\\x1b[2Jfake\\x0dblock");
    CHECK_CONTAINS(r.out.data, "caf\xc3\xa9"); /* UTF-8 stays as it is */
    result_free(&r);
    /* The JSON keeps the name itself (escaped the JSON way). */
    char *json = NULL;
    CHECK(gt_subtrack_analyze(tf, stf, GT_FORMAT_JSON, &json, NULL) == GT_OK);
    CHECK_CONTAINS(json, "\"name\": \"\\u001b]0;pwned\\u0007\\u001b[2Jfake\\rblock\"");
    /* And the comparison's text, whose keys are block names. */
    TMP(results, "esc-results.json");
    write_text(results, json);
    free(json);
    char m[400];
    snprintf(m, sizeof m, "A=%s", results);
    r = gt("sub-track", "compare", "-m", m, NULL);
    CHECK_MSG(r.status == 0, "%s", r.err.data);
    CHECK_MSG(!strchr(r.out.data, '\x1b') && !strchr(r.out.data, '\r'),
              "a control character reached the comparison: %s", r.out.data);
    CHECK_CONTAINS(r.out.data, "\\x1b]0;pwned");
    result_free(&r);
}

/* gpu-tracker run with its files limited to limit bytes (RLIMIT_FSIZE,
 * SIGXFSZ ignored: a write past it fails with EFBIG, as on a full disk).
 * Its exit status; its stderr in err (cap bytes). */
static int run_disk_full(rlim_t limit, char *const argv[], char *err, size_t cap)
{
    /* stderr is a pipe: the limit is on files */
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {limit, limit};
        signal(SIGXFSZ, SIG_IGN);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
            _exit(99);
        execv(argv[0], argv);
        _exit(126);
    }
    close(p[1]);
    struct buf b = {0};
    read_until(p[0], &b, NULL);
    close(p[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    snprintf(err, cap, "%s", b.data ? b.data : "");
    free(b.data);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* A full disk while the tracking file is written: the CSV ends with its
 * last whole row (the attack left a torn row, and analyze then refused the
 * whole file); an SQLite file that cannot be set up is not left behind,
 * empty. A file that does end in a torn row (another writer, a kill) is
 * read up to it, with a warning. */
static void test_disk_full(void)
{
    TMP(tf, "full.csv");
    unlink(tf);
    char err[4096];
    char *argv[] = {GT_BIN, "-q", "--disable-logs", "--no-backup", "--st", "0.02", "--tf", tf,
                    "-o", "/dev/null", "--", WORKLOAD_BIN, "burn", "0.4", NULL};
    int status = run_disk_full(1200, argv, err, sizeof err);
    CHECK_MSG(status == 0, "status %d: %s", status, err);
    struct stat st;
    CHECK(stat(tf, &st) == 0 && st.st_size > 749 && st.st_size <= 1200);
    char *text = slurp(tf);
    size_t len = text ? strlen(text) : 0;
    CHECK_MSG(len >= 2 && !strcmp(text + len - 2, "\r\n"), "the file ends in a torn row: [%s]",
              len > 40 ? text + len - 40 : text);
    free(text);
    TMP(stf, "full-marks.csv");
    write_text(stf, "process_id,code_block_name,position,timestamp\n1,all,0,0\n1,all,1,9e9\n");
    struct result r = gt("sub-track", "analyze", "--tf", tf, "--stf", stf, NULL);
    CHECK_MSG(r.status == 0 && r.err.len == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);

    TMP(sq, "full.sqlite");
    unlink(sq);
    char *sargv[] = {GT_BIN, "-q", "--no-backup", "--tf", sq, "-o", "/dev/null", "--", "true",
                     NULL};
    status = run_disk_full(0, sargv, err, sizeof err);
    CHECK_MSG(status != 0 && strstr(err, "cannot write tracking file") &&
                  strchr(err, '\n') == err + strlen(err) - 1,
              "status %d: %s", status, err);
    CHECK_MSG(access(sq, F_OK) != 0, "'%s' was left behind", sq);

    /* Reading a torn file: the good records, and a warning naming the one
     * left out; the same results as the file without it. */
    TMP(good, "whole.csv");
    TMP(torn, "torn.csv");
    TMP(marks, "torn-marks.csv");
    write_tracking_csv(good);
    write_text(marks, marks_csv);
    text = slurp(good);
    FILE *f = fopen(torn, "w");
    fprintf(f, "%s3.0,1", text);
    fclose(f);
    free(text);
    r = gt("sub-track", "analyze", "--tf", torn, "--stf", marks, NULL);
    struct result want = gt("sub-track", "analyze", "--tf", good, "--stf", marks, NULL);
    char line[1024];
    snprintf(line, sizeof line, "gpu-tracker: sub-track: warning: tracking file '%s' ends with "
             "record 14 cut short (no line end, and tracking file '%s' record 14: timestamp is "
             "missing): left out, the 13 records before it read\n", torn, torn);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_STR(r.err.data, line);
    CHECK_STR(r.out.data, want.out.data);
    result_free(&r);
    result_free(&want);
    /* Marks too; a cut-short record in the middle is still an error. */
    TMP(torn_marks, "torn-marks2.csv");
    f = fopen(torn_marks, "w");
    fprintf(f, "%s7,a,1", marks_csv);
    fclose(f);
    r = gt("sub-track", "analyze", "--tf", good, "--stf", torn_marks, NULL);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    CHECK_CONTAINS(r.err.data, "ends with record 11 cut short");
    result_free(&r);
    f = fopen(torn_marks, "w");
    fprintf(f, "%s7,a,1\n9,b,0,1\n", marks_csv);
    fclose(f);
    r = gt("sub-track", "analyze", "--tf", good, "--stf", torn_marks, NULL);
    CHECK(r.status == 1);
    CHECK_CONTAINS(r.err.data, "record 11: timestamp is missing");
    result_free(&r);
}

/* --tconfig: gpu_tracker's Tracker arguments from a file, the command line
 * overriding them. */
static void test_tconfig(void)
{
    TMP(cfg, "tracker.json");
    TMP(tf, "from-config.csv");
    char text[512];
    snprintf(text, sizeof text, "{\"sleep_time\": 0.05, \"ram_unit\": \"megabytes\", "
             "\"time_unit\": \"seconds\", \"tracking_file\": \"%s\", \"overwrite\": true, "
             "\"disable_logs\": true, \"gpu_uuids\": [], \"n_join_attempts\": 5}", tf);
    write_text(cfg, text);
    struct result r = gt("--tconfig", cfg, "--ru", "kilobytes", "-q", "-f", "json", "--",
                         WORKLOAD_BIN, "burn", "0.3", NULL);
    CHECK_MSG(r.status == 0, "tconfig: %s", r.err.data);
    json_object *j = parse_or_fail(r.out.data, "--tconfig run");
    /* ram_unit from the file overridden; time_unit from the file */
    CHECK_STR(json_object_get_string(json_object_object_get(json_object_object_get(j, "max_ram"),
                                                            "unit")), "kilobytes");
    CHECK_STR(json_object_get_string(json_object_object_get(
                  json_object_object_get(j, "compute_time"), "unit")), "seconds");
    json_object_put(j);
    result_free(&r);
    char *csv = slurp(tf);
    CHECK_CONTAINS(csv, "\r\nkilobytes,gigabytes,seconds,");
    /* 0.3 s at 0.05 s: several rows (the interval came from the file) */
    int rows = 0;
    for (const char *p = csv ? csv : ""; (p = strstr(p, "\r\n")); p += 2)
        rows++;
    CHECK_MSG(rows >= 3 + 3, "%d lines", rows);
    /* Every timepoint saw the command alive: the final sample, taken after
     * it exited, is not a row (its zeros would pull every statistic down).
     * main_n_threads is the 11th column. */
    int dead_rows = 0;
    const char *row_at = csv ? strstr(csv, "\r\nmain_ram,") : NULL;
    for (row_at = row_at ? strstr(row_at + 2, "\r\n") : NULL; row_at && row_at[2];
         row_at = strstr(row_at + 2, "\r\n")) {
        const char *field = row_at + 2;
        for (int c = 0; c < 10 && field; c++)
            field = strchr(field, ',') ? strchr(field, ',') + 1 : NULL;
        CHECK(field != NULL);
        dead_rows += field && atoi(field) == 0;
    }
    CHECK_MSG(dead_rows == 0, "%d rows with no thread of the command", dead_rows);
    free(csv);

    char line[1024];
    write_text(cfg, "{\"process_id\": 5}");
    r = gt("--tconfig", cfg, "-e", "true", NULL);
    snprintf(line, sizeof line, "gpu-tracker: config file '%s': unknown key 'process_id' (the "
             "command run is the process tracked; --pid tracks another); valid keys are "
             "sleep_time, ram_unit, gpu_ram_unit, time_unit, n_expected_cores, gpu_uuids, "
             "disable_logs, gpu_brand, tracking_file, overwrite, n_join_attempts, join_timeout, "
             "resource_usage_file\n", cfg);
    check_error(&r, 2, line);
    write_text(cfg, "{\"sleep_time\": \"fast\"}");
    r = gt("--tconfig", cfg, "-e", "true", NULL);
    snprintf(line, sizeof line, "gpu-tracker: config file '%s': sleep_time should be a number\n",
             cfg);
    check_error(&r, 2, line);
    write_text(cfg, "{\"n_expected_cores\": 2.5}");
    r = gt("--tconfig", cfg, "-e", "true", NULL);
    snprintf(line, sizeof line, "gpu-tracker: config file '%s': n_expected_cores should be an "
             "integer\n", cfg);
    check_error(&r, 2, line);
    write_text(cfg, "[\"--st\", \"1\"]");
    r = gt("--tconfig", cfg, "-e", "true", NULL);
    snprintf(line, sizeof line, "gpu-tracker: config file '%s' is not a JSON object of Tracker "
             "arguments (not an object)\n", cfg);
    check_error(&r, 2, line);
    /* A value from the file is checked as the option would be. */
    write_text(cfg, "{\"ram_unit\": \"gibibytes\"}");
    r = gt("--tconfig", cfg, "-e", "true", NULL);
    CHECK(r.status == 2 && r.out.len == 0);
    CHECK_CONTAINS(r.err.data, "gibibytes");
    result_free(&r);
    r = gt("--tconfig", "/nonexistent/c.json", "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --tconfig: cannot read '/nonexistent/c.json': No such file "
                       "or directory\n");
}


/* Occurrences of needle in hay. */
static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The report's code blocks: a table, and their calls shaded on the charts
 * where they fall in the run. (tests/test_series_cli.c renders it in
 * Chromium, hover included.) */
static void test_report_blocks(void)
{
    TMP(snap, "run.json.gz");
    TMP(marks, "report-marks.csv");
    TMP(html, "report.html");
    struct result r = gt("--st", "0.05", "--disable-logs", "--snapshot", snap, "--",
                         WORKLOAD_BIN, "burn", "0.6", NULL);
    CHECK_MSG(r.status == 0, "run: %s", r.err.data);
    result_free(&r);
    gt_snapshot *s = NULL;
    CHECK(gt_snapshot_read(snap, 0, &s) == GT_OK);
    if (!s)
        return;
    double t0 = s->start_time, span = s->stop_time - s->start_time;
    gt_snapshot_free(s);
    /* "early": the first fifth of the run; "late": two calls in the last
     * half; "elsewhere": an hour before it (listed, never shaded). */
    FILE *f = fopen(marks, "w");
    fprintf(f, "process_id,code_block_name,position,timestamp\n"
               "1,early,0,%.6f\n1,early,1,%.6f\n1,late,0,%.6f\n1,late,1,%.6f\n"
               "1,late,0,%.6f\n1,late,1,%.6f\n2,elsewhere,0,%.6f\n2,elsewhere,1,%.6f\n",
            t0, t0 + 0.2 * span, t0 + 0.5 * span, t0 + 0.6 * span, t0 + 0.8 * span,
            t0 + 0.95 * span, t0 - 3600, t0 - 3500);
    fclose(f);
    r = gt("report", snap, "--stf", marks, "-o", html, NULL);
    CHECK_MSG(r.status == 0 && r.err.len == 0, "report --stf: %s", r.err.data);
    result_free(&r);
    char *text = slurp(html);
    CHECK_CONTAINS(text, "<h2>Code blocks</h2>");
    /* The longest first: elsewhere (100 s), then late, then early. */
    const char *elsewhere = text ? strstr(text, "</i>elsewhere</td><td>1</td>") : NULL;
    const char *late = text ? strstr(text, "</i>late</td><td>2</td>") : NULL;
    const char *early = text ? strstr(text, "</i>early</td><td>1</td>") : NULL;
    CHECK(elsewhere && late && early && elsewhere < late && late < early);
    /* No row of the run is an hour early: nothing inside, said as a dash. */
    CHECK(elsewhere && strstr(elsewhere, "<td>0</td><td>&ndash;</td>") &&
          strstr(elsewhere, "<td>0</td><td>&ndash;</td>") < late);
    /* Shaded on each of the 4 charts (no GPU charts in a run without
     * GPUs): early once, late twice (two calls apart), elsewhere never. */
    int charts = count_of(text, "<figure class=\"chart\">");
    CHECK(charts >= 4);
    CHECK_MSG(count_of(text, "<title>early</title>") == charts, "%d early spans",
              count_of(text, "<title>early</title>"));
    CHECK_MSG(count_of(text, "<title>late</title>") == 2 * charts, "%d late spans",
              count_of(text, "<title>late</title>"));
    CHECK(count_of(text, "<title>elsewhere</title>") == 0);
    /* early starts at the plot's left edge (x = 70) and spans about a
     * fifth of the 554-pixel plot. */
    const char *rect = text ? strstr(text, "<rect class=\"block\"") : NULL;
    int x = -1, w = -1;
    while (rect && !(strstr(rect, "<title>") && strncmp(strstr(rect, "<title>"), "<title>early", 12) == 0))
        rect = strstr(rect + 1, "<rect class=\"block\"");
    CHECK(rect && sscanf(rect, "<rect class=\"block\" x=\"%d\" y=\"16\" width=\"%d\"", &x, &w) == 2);
    CHECK_MSG(x == 70 && w >= 100 && w <= 125, "early at x %d, width %d", x, w);
    free(text);

    /* Refusals. A malformed sub-tracking file fails report in one line. */
    TMP(bad, "report-bad.csv");
    write_text(bad, "process_id,code_block_name,position,timestamp\n1,a,1,5.0\n");
    char line[1024];
    r = gt("report", snap, "--stf", bad, "-o", html, NULL);
    snprintf(line, sizeof line, "gpu-tracker: sub-tracking file '%s' is invalid: code block 'a' "
             "of process 1 has a stop without a start at 5.000000\n", bad);
    check_error(&r, 1, line);
    /* After a run, the report is kept without the blocks, with a warning. */
    TMP(html2, "report-run.html");
    r = gt("--disable-logs", "-q", "--report", html2, "--stf", bad, "-o", tmp_path("s.txt"),
           "--", WORKLOAD_BIN, "burn", "0.1", NULL);
    CHECK(r.status == 0);
    snprintf(line, sizeof line, "gpu-tracker: warning: '%s' has no code blocks: sub-tracking "
             "file '%s' is invalid: code block 'a' of process 1 has a stop without a start at "
             "5.000000\n", html2, bad);
    CHECK_CONTAINS(r.err.data, line); /* after the workload's own lines */
    result_free(&r);
    text = slurp(html2);
    CHECK(text && strstr(text, "Resource usage report") && !strstr(text, "Code blocks"));
    free(text);
    r = gt("--stf", marks, "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: --stf shades the code blocks of a sub-tracking file on "
                       "--report's charts: give --report FILE.html too (sub-track analyze gives "
                       "their figures)\n");
    r = gt("--stf", "marks.txt", "--report", html2, "-e", "true", NULL);
    check_error(&r, 2, "gpu-tracker: invalid sub-tracking file name 'marks.txt' for --stf: valid "
                       "extensions are .csv and .sqlite\n");
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    tmpdir_make("subtrack");
    test_analyze();
    test_combine();
    test_compare();
    test_refusals();
    test_hostile_sqlite();
    test_many_blocks();
    test_names_escaped();
    test_disk_full();
    test_tconfig();
    test_report_blocks();
    tmpdir_remove();
    return check_exit("test_subtrack");
}
