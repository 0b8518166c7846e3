/* subtrack_analysis.c - gpu_tracker 5's SubTrackingAnalyzer and the
 * combining of sub-tracking files (gpu_tracker.h, "Sub-tracking analysis").
 *
 * The semantics are gpu_tracker's (its _helper_classes.py and
 * sub_tracker.py), with these choices where it is silent or fails:
 *  - A code block's marks are sorted by process, time and position; a
 *    trailing start of a process (a call still running at the end) is left
 *    out; the rest must pair as start, stop of one process. Two starts in a
 *    row (a block entered again before it ended: recursion under one name)
 *    is an error naming the block, where gpu_tracker pairs them silently.
 *  - The statistics are over every column of the tracking file but the
 *    timestamp, in the file's order; a missing value (an empty CSV field,
 *    an SQLite NULL) is left out of its column, as pandas does.
 *  - A statistic over no values is NaN: null in JSON, "NaN" in text. */
#define _GNU_SOURCE
#include "common/internal.h"
#include "gpu_tracker_tools.h"

#include "common/buf.h"

#include <errno.h>
#include <math.h>
#include <json-c/linkhash.h> /* the code block names: a seeded string hash */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/json_write.h"
#include "common/pyfloat.h"
#include "subtrack/pandas_text.h"
#include "subtrack/subtrack_blocks.h"
#include "subtrack/subtrack_results.h"
#include "common/table_file.h"
#include "common/table_read.h"

/* Marks kept in memory at most (24 bytes each): a file with more is refused
 * rather than allowed to take the machine's memory. */
#define MAX_MARKS (100u * 1000 * 1000)
/* Timepoints at most (8 bytes each kept). */
#define MAX_TIMEPOINTS (500u * 1000 * 1000)
/* What the code blocks' statistics and results may take: an analysis
 * whose blocks would take more (BLOCK_BYTES + COLUMN_BYTES a column each)
 * is refused before it begins. COLUMN_BYTES: a running statistic (48
 * bytes) and its JSON in the results (about 180 bytes); BLOCK_BYTES: the
 * block and its fixed lines. */
#define MAX_BLOCKS_BYTES (512ull << 20)
#define BLOCK_BYTES 700u
#define COLUMN_BYTES 240u

/* ---- running statistics ------------------------------------------------- */

struct running {
    size_t n;
    double min, max, mean, m2, sum;
};

/* Welford's update: a stable mean and sum of squared deviations. */
static void running_add(struct running *r, double v)
{
    if (r->n == 0 || v < r->min)
        r->min = v;
    if (r->n == 0 || v > r->max)
        r->max = v;
    r->n++;
    r->sum += v;
    double d = v - r->mean;
    r->mean += d / (double)r->n;
    r->m2 += d * (v - r->mean);
}

/* {min, max, mean, std} (std with ddof 0, as gpu_tracker's _summary_stats),
 * NaN (null) over no values. */
static json_object *running_json(const struct running *r)
{
    json_object *o = json_object_new_object();
    int none = r->n == 0;
    json_object_object_add(o, "min", json_new_pyfloat(none ? NAN : r->min));
    json_object_object_add(o, "max", json_new_pyfloat(none ? NAN : r->max));
    json_object_object_add(o, "mean", json_new_pyfloat(none ? NAN : r->mean));
    json_object_object_add(o, "std", json_new_pyfloat(none ? NAN : sqrt(r->m2 / (double)r->n)));
    return o;
}

/* ---- the sub-tracking file ------------------------------------------------ */

struct mark {
    long long pid;
    double ts;
    double ts_pandas; /* ts as pandas reads the CSV text, for gpu_tracker's messages */
    unsigned block; /* index into names */
    int position;   /* 0 start, 1 stop */
};

/* A block of the analysis: its calls, and what the timepoints inside them
 * used. */
struct block {
    struct subtrack_block span;
    struct running *usage; /* a column each */
    size_t timepoints;
    size_t non_empty;
};

struct marks {
    const char *path;
    int col[4]; /* process_id, code_block_name, position, timestamp */
    struct mark *v;
    size_t n, cap;
    char **names; /* the code block names, by index */
    size_t nnames, names_cap;
    /* name -> index + 1: json-c's hash table, whose string hash is seeded
     * at random (a file cannot choose names that all collide, as they did
     * in glibc's hsearch: 200 000 names took 20 s) */
    struct lh_table *table;
    int header; /* the header was read */
};

static const char *const mark_columns[4] = {"process_id", "code_block_name", "position",
                                            "timestamp"};

/* The index of name, added when new; -1 when memory runs out. */
static long intern(struct marks *m, const char *name)
{
    if (!m->table && !(m->table = lh_kchar_table_new(64, NULL)))
        return -1;
    void *found;
    if (lh_table_lookup_ex(m->table, name, &found))
        return (long)(uintptr_t)found - 1;
    if (grow_array(&m->names, &m->names_cap, m->nnames + 1, sizeof *m->names, 64) < 0)
        return -1;
    char *key = strdup(name);
    if (!key || lh_table_insert(m->table, key, (void *)(uintptr_t)(m->nnames + 1)) != 0) {
        free(key);
        return -1;
    }
    m->names[m->nnames] = key;
    return (long)m->nnames++;
}

/* Finds each of wanted[] among the header's cells: col[i] its position.
 * what/path name the file in the message when one is missing. */
static gt_status header_columns(const struct table_cell *cells, size_t n,
                                const char *const *wanted, int nwanted, int *col,
                                const char *what, const char *path)
{
    for (int i = 0; i < nwanted; i++) {
        col[i] = -1;
        for (size_t c = 0; c < n; c++)
            if (strcmp(cells[c].text, wanted[i]) == 0)
                col[i] = (int)c;
        if (col[i] < 0)
            return error_set(GT_ERR_PARSE, "%s '%s' has no column '%s' (a sub-tracking file has "
                             "process_id, code_block_name, position and timestamp)", what, path,
                             wanted[i]);
    }
    return GT_OK;
}

static gt_status mark_record(void *ctx, size_t record, const struct table_cell *cells, size_t n)
{
    struct marks *m = ctx;
    const char *what = "sub-tracking file";
    if (record == 1) {
        m->header = 1;
        return header_columns(cells, n, mark_columns, 4, m->col, what, m->path);
    }
    if (m->n >= MAX_MARKS)
        return error_set(GT_ERR_PARSE, "%s '%s' has more than %u marks", what, m->path, MAX_MARKS);
    double v[4];
    for (int i = 0; i < 4; i++) {
        if (i == 1)
            continue;
        size_t c = (size_t)m->col[i];
        int rc = c < n ? table_cell_number(&cells[c], &v[i]) : 1;
        if (rc == 1)
            return error_set(GT_ERR_PARSE, "%s '%s' record %zu: %s is missing", what, m->path,
                             record, mark_columns[i]);
        if (rc != 0 || !isfinite(v[i]))
            return error_set(GT_ERR_PARSE, "%s '%s' record %zu: %s is not a number: '%s'", what,
                             m->path, record, mark_columns[i], cells[c].text);
    }
    if (v[0] != floor(v[0]) || fabs(v[0]) > 9e15)
        return error_set(GT_ERR_PARSE, "%s '%s' record %zu: process_id is not an integer: %s", what,
                         m->path, record, cells[m->col[0]].text);
    if (v[2] != 0 && v[2] != 1)
        return error_set(GT_ERR_PARSE, "%s '%s' record %zu: position should be 0 (start) or 1 "
                         "(stop), not '%s'", what, m->path, record, cells[m->col[2]].text);
    size_t c = (size_t)m->col[1];
    if (c >= n || cells[c].missing)
        return error_set(GT_ERR_PARSE, "%s '%s' record %zu: code_block_name is missing", what,
                         m->path, record);
    long block = intern(m, cells[c].text);
    if (grow_array(&m->v, &m->cap, m->n + 1, sizeof *m->v, 1024) < 0)
        block = -1;
    if (block < 0)
        return error_set(GT_ERR_NO_MEMORY, "out of memory reading %s '%s'", what, m->path);
    m->v[m->n++] = (struct mark){.pid = (long long)v[0], .ts = v[3],
                                 /* an SQLite REAL is read exactly, by gpu_tracker too */
                                 .ts_pandas = cells[m->col[3]].is_num
                                                  ? v[3]
                                                  : pyfloat_pandas_read(cells[m->col[3]].text, v[3]),
                                 .block = (unsigned)block, .position = (int)v[2]};
    return GT_OK;
}

static void marks_free(struct marks *m)
{
    if (m->table)
        lh_table_free(m->table);
    for (size_t i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    free(m->v);
}

/* Reads a table file. torn (NULL: refused): where a CSV file's cut-short
 * last record, left out, is said (table_read_csv). */
static gt_status read_table_file(const char *path, const char *what, const char *table,
                                 table_record_fn fn, void *ctx, char *torn, size_t torncap)
{
    switch (table_file_kind(path)) {
    case 0:
        return table_read_csv(path, what, fn, ctx, torn, torncap);
    case 1:
        return table_read_sqlite(path, what, table, fn, ctx);
    default:
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid %s name '%s': valid extensions are "
                         ".csv and .sqlite", what, path);
    }
}

/* The marks of path. torn: as read_table_file. */
static gt_status read_marks(const char *path, struct marks *m, char *torn, size_t torncap)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    gt_status st = read_table_file(path, "sub-tracking file", "data", mark_record, m, torn,
                                   torncap);
    if (st == GT_OK && !m->header)
        st = error_set(GT_ERR_PARSE, "sub-tracking file '%s' is empty (no header)", path);
    return st;
}

static int mark_order(const void *a, const void *b)
{
    const struct mark *x = a, *y = b;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->position - y->position;
}

static int interval_order(const void *a, const void *b)
{
    const struct subtrack_interval *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int double_order(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Whether the mark m->v[i] of [.., end) is a process's trailing start (a call
 * still running when the file ended), which pairing leaves out. */
static int trailing_start(const struct marks *m, size_t i, size_t end)
{
    return m->v[i].position == 0 && (i + 1 == end || m->v[i + 1].pid != m->v[i].pid);
}

/* Pairs the marks m->v[first .. end) of one block (sorted) into b->calls.
 * As gpu_tracker's load_timestamp_pairs: the trailing starts left out, the
 * rest taken two by two across processes; where gpu_tracker refuses a pair
 * (two processes, or a stop before a start) the error holds its words, where
 * it pairs two starts or two stops silently, or fails with an IndexError on
 * an odd count, the error says what is wrong. The accepted files are the
 * same either way: each process's marks start, stop, start, stop... */
static gt_status pair_marks(const struct marks *m, size_t first, size_t end,
                            struct subtrack_block *b)
{
    b->calls = malloc((end - first) / 2 * sizeof *b->calls + sizeof *b->calls);
    if (!b->calls)
        return error_set(GT_ERR_NO_MEMORY, "out of memory analysing '%s'", m->path);
    size_t i = first;
    for (;;) {
        while (i < end && trailing_start(m, i, end))
            i++;
        if (i == end)
            break;
        size_t j = i + 1;
        while (j < end && trailing_start(m, j, end))
            j++;
        const struct mark *s = &m->v[i], *e = j < end ? &m->v[j] : NULL;
        char s_ts[32], e_ts[32];
        /* The pairs gpu_tracker refuses, in its words to the byte, with the
         * timestamps as pandas read them from the CSV file. */
        pyfloat_repr(s->ts_pandas, s_ts, sizeof s_ts);
        pyfloat_repr(e ? e->ts_pandas : 0, e_ts, sizeof e_ts);
        if (e && e->pid != s->pid)
            return error_set(GT_ERR_PARSE, "Sub-tracking file is invalid. Detected timestamp pair "
                             "(%s, %s) with differing process IDs: %lld and %lld.", s_ts, e_ts,
                             s->pid, e->pid);
        if (e && s->position == 1 && e->position == 0)
            return error_set(GT_ERR_PARSE, "Sub-tracking file is invalid. Detected timestamp pair "
                             "(%s, %s) of process ID %lld with a start time greater than the stop "
                             "time.", s_ts, e_ts, s->pid);
        if (s->position != 0 || !e || e->position != 1) {
            const char *why = s->position != 0 ? "a stop without a start"
                              : !e           ? "a start without a stop"
                                             : "two starts in a row (entered again before it "
                                               "stopped: nested calls of one name cannot be "
                                               "paired)";
            return error_set(GT_ERR_PARSE, "sub-tracking file '%s' is invalid: code block '%s' "
                             "of process %lld has %s at %.6f", m->path, b->name, s->pid, why,
                             s->position != 0 || !e ? s->ts : e->ts);
        }
        b->calls[b->ncalls++] = (struct subtrack_interval){s->ts, e->ts};
        i = j + 1;
    }
    /* The union of the calls, for the timepoints inside any of them. */
    b->merged = malloc((b->ncalls + 1) * sizeof *b->merged);
    if (!b->merged)
        return error_set(GT_ERR_NO_MEMORY, "out of memory analysing '%s'", m->path);
    memcpy(b->merged, b->calls, b->ncalls * sizeof *b->calls);
    qsort(b->merged, b->ncalls, sizeof *b->merged, interval_order);
    for (size_t k = 0; k < b->ncalls; k++) {
        struct subtrack_interval c = b->merged[k];
        if (b->nmerged && c.start <= b->merged[b->nmerged - 1].stop) {
            if (c.stop > b->merged[b->nmerged - 1].stop)
                b->merged[b->nmerged - 1].stop = c.stop;
        } else {
            b->merged[b->nmerged++] = c;
        }
    }
    return GT_OK;
}

int subtrack_block_holds(const struct subtrack_block *b, double t)
{
    size_t lo = 0, hi = b->nmerged; /* the first interval starting after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->merged[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && t <= b->merged[lo - 1].stop;
}

/* ---- the tracking file ------------------------------------------------------ */

struct tracking {
    const char *path;
    int sqlite;
    json_object *static_data;
    char *static_names[TABLE_READ_MAX_COLUMNS]; /* the static header, until its values */
    size_t nstatic;
    char **columns; /* the timepoint columns but the timestamp */
    size_t ncolumns;
    int *source;     /* the record's cell of each column */
    double *values;  /* a record's value of each column, once checked */
    unsigned char *have; /* ... and whether it has one */
    int ts_col;
    struct running *overall;
    double *ts;
    size_t nts, ts_cap;
    struct block *blocks;
    size_t nblocks;
    const char *stf;           /* the sub-tracking file, for messages */
    char torn[1024];           /* the cut-short last record left out, said; "" none */
    int warn_torn;             /* 0: such a record fails the read (no one to tell) */
    /* Which blocks a timepoint is inside, swept over time: every block's
     * merged calls sorted by start, the next to enter, and those entered
     * and not yet left (at most one interval of each block). A timepoint
     * before the last one (a file out of time order) is looked up in
     * every block instead. */
    struct sweep_interval *intervals;
    size_t nintervals, next;
    struct sweep_interval *active;
    size_t nactive;
    double last_ts;
    unsigned *inside;          /* the blocks of the current timepoint */
};

struct sweep_interval {
    double start, stop;
    unsigned block;
};

/* A static value typed as pandas reads one from a CSV file. */
static json_object *static_value(const struct table_cell *c)
{
    if (c->is_num)
        return c->is_int ? json_object_new_int64((int64_t)c->num) : json_new_pyfloat(c->num);
    double v;
    if (table_cell_number(c, &v) == 0) {
        const char *s = c->text + strspn(c->text, " ");
        if (strspn(s + (*s == '-' || *s == '+'), "0123456789") ==
                strlen(s + (*s == '-' || *s == '+')) && fabs(v) < 9e18)
            return json_object_new_int64((int64_t)v);
        return json_new_pyfloat(v);
    }
    return json_new_text(c->text);
}

static gt_status static_record(void *ctx, size_t record, const struct table_cell *cells,
                               size_t n)
{
    struct tracking *t = ctx;
    if (record == 1) {
        t->static_data = json_object_new_object();
        for (; t->nstatic < n; t->nstatic++)
            if (!(t->static_names[t->nstatic] = strdup(cells[t->nstatic].text)))
                return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
        return GT_OK;
    }
    if (record == 2) {
        if (n > t->nstatic)
            return error_set(GT_ERR_PARSE, "tracking file '%s': the static data has %zu values "
                             "for %zu names", t->path, n, t->nstatic);
        for (size_t i = 0; i < t->nstatic; i++)
            json_object_object_add(t->static_data, t->static_names[i],
                                   i < n && !cells[i].missing ? static_value(&cells[i]) : NULL);
    }
    return GT_OK;
}

static gt_status timepoint_header(struct tracking *t, const struct table_cell *cells, size_t n)
{
    t->ts_col = -1;
    t->columns = calloc(n + 1, sizeof *t->columns);
    t->source = calloc(n + 1, sizeof *t->source);
    t->overall = calloc(n + 1, sizeof *t->overall);
    t->values = calloc(n + 1, sizeof *t->values);
    t->have = calloc(n + 1, sizeof *t->have);
    if (!t->columns || !t->source || !t->overall || !t->values || !t->have)
        return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cells[i].text, "timestamp") == 0) {
            t->ts_col = (int)i;
            continue;
        }
        t->source[t->ncolumns] = (int)i;
        if (!(t->columns[t->ncolumns++] = strdup(cells[i].text)))
            return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
    }
    if (t->ts_col < 0)
        return error_set(GT_ERR_PARSE, "tracking file '%s' has no column 'timestamp' in its "
                         "timepoints' header (%s): is it a tracking file (--tf)?", t->path,
                         t->sqlite ? "table 'data'" : "line 3");
    unsigned long long per_block = BLOCK_BYTES + (unsigned long long)t->ncolumns * COLUMN_BYTES;
    if ((unsigned long long)t->nblocks * per_block > MAX_BLOCKS_BYTES)
        return error_set(GT_ERR_PARSE, "sub-tracking file '%s' has %zu code blocks: their results "
                         "over the %zu columns of tracking file '%s' would take about %llu MiB, "
                         "more than the %llu MiB an analysis may take (at most %llu blocks with "
                         "this tracking file)", t->stf, t->nblocks, t->ncolumns, t->path,
                         (unsigned long long)t->nblocks * per_block >> 20, MAX_BLOCKS_BYTES >> 20,
                         MAX_BLOCKS_BYTES / per_block);
    for (size_t b = 0; b < t->nblocks; b++)
        if (!(t->blocks[b].usage = calloc(t->ncolumns + 1, sizeof *t->blocks[b].usage)))
            return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
    return GT_OK;
}

static int sweep_order(const void *a, const void *b)
{
    const struct sweep_interval *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Lays out the sweep over every block's merged calls. 0, or -1 when memory
 * runs out. */
static int sweep_init(struct tracking *t)
{
    size_t n = 0;
    for (size_t b = 0; b < t->nblocks; b++)
        n += t->blocks[b].span.nmerged;
    t->intervals = malloc((n + 1) * sizeof *t->intervals);
    t->active = malloc((t->nblocks + 1) * sizeof *t->active);
    t->inside = malloc((t->nblocks + 1) * sizeof *t->inside);
    if (!t->intervals || !t->active || !t->inside)
        return -1;
    for (size_t b = 0; b < t->nblocks; b++)
        for (size_t k = 0; k < t->blocks[b].span.nmerged; k++)
            t->intervals[t->nintervals++] = (struct sweep_interval){
                t->blocks[b].span.merged[k].start, t->blocks[b].span.merged[k].stop,
                (unsigned)b};
    if (t->nintervals)
        qsort(t->intervals, t->nintervals, sizeof *t->intervals, sweep_order);
    t->last_ts = -INFINITY;
    return 0;
}

/* The blocks timepoint ts is inside, into t->inside; their count. */
static size_t sweep_to(struct tracking *t, double ts)
{
    size_t n = 0;
    if (ts < t->last_ts) {
        /* Out of time order: every block, by binary search. */
        for (size_t b = 0; b < t->nblocks; b++)
            if (subtrack_block_holds(&t->blocks[b].span, ts))
                t->inside[n++] = (unsigned)b;
        return n;
    }
    t->last_ts = ts;
    /* Those that ended before ts leave first; then those that began by ts
     * and go on past it enter (one that began and ended between two
     * timepoints holds none, and never enters). A block's merged calls
     * are disjoint: at most one of each is inside, so at most nblocks. */
    size_t kept = 0;
    for (size_t i = 0; i < t->nactive; i++)
        if (t->active[i].stop >= ts)
            t->active[kept++] = t->active[i];
    for (; t->next < t->nintervals && t->intervals[t->next].start <= ts; t->next++)
        if (t->intervals[t->next].stop >= ts)
            t->active[kept++] = t->intervals[t->next];
    t->nactive = kept;
    for (size_t i = 0; i < kept; i++)
        t->inside[n++] = t->active[i].block;
    return n;
}

static gt_status timepoint_record(void *ctx, size_t record, const struct table_cell *cells,
                                  size_t n)
{
    struct tracking *t = ctx;
    if (!t->sqlite && record < 3)
        return static_record(ctx, record, cells, n);
    if (record == (t->sqlite ? 1u : 3u))
        return timepoint_header(t, cells, n);
    size_t expected = t->ncolumns + 1;
    if (n > expected)
        return error_set(GT_ERR_PARSE, "tracking file '%s' record %zu has %zu fields, the header "
                         "%zu", t->path, record, n, expected);
    /* Every cell is checked before anything is counted: a refused record
     * (the cut-short last one of a file, left out) changes nothing. */
    for (size_t c = 0; c < t->ncolumns; c++) {
        size_t cell = (size_t)t->source[c];
        int got = cell < n ? table_cell_number(&cells[cell], &t->values[c]) : 1;
        if (got < 0)
            return error_set(GT_ERR_PARSE, "tracking file '%s' record %zu: %s is not a number: "
                             "'%s'", t->path, record, t->columns[c], cells[cell].text);
        t->have[c] = got == 0 && !isnan(t->values[c]); /* NaN is missing, as in pandas */
    }
    double ts;
    int rc = (size_t)t->ts_col < n ? table_cell_number(&cells[t->ts_col], &ts) : 1;
    if (rc != 0 || !isfinite(ts))
        return error_set(GT_ERR_PARSE, "tracking file '%s' record %zu: timestamp %s%s%s",
                         t->path, record, rc == 1 ? "is missing" : "is not a number: '",
                         rc == 1 ? "" : cells[t->ts_col].text, rc == 1 ? "" : "'");
    if (t->nts >= MAX_TIMEPOINTS)
        return error_set(GT_ERR_PARSE, "tracking file '%s' has more than %u timepoints", t->path,
                         MAX_TIMEPOINTS);
    if (grow_array(&t->ts, &t->ts_cap, t->nts + 1, sizeof *t->ts, 4096) < 0)
        return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
    t->ts[t->nts++] = ts;
    /* Which blocks this timepoint is inside, once per timepoint. */
    if (!t->intervals && sweep_init(t) < 0)
        return error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", t->path);
    size_t nin = sweep_to(t, ts);
    for (size_t i = 0; i < nin; i++)
        t->blocks[t->inside[i]].timepoints++;
    for (size_t c = 0; c < t->ncolumns; c++) {
        if (!t->have[c])
            continue;
        running_add(&t->overall[c], t->values[c]);
        for (size_t i = 0; i < nin; i++)
            running_add(&t->blocks[t->inside[i]].usage[c], t->values[c]);
    }
    return GT_OK;
}

static gt_status read_tracking(const char *path, struct tracking *t)
{
    t->path = path;
    int kind = table_file_kind(path);
    if (kind < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid tracking file name '%s': valid "
                         "extensions are .csv and .sqlite", path);
    t->sqlite = kind == 1;
    gt_status st;
    if (t->sqlite) {
        st = table_read_sqlite(path, "tracking file", "static_data", static_record, t);
        if (st == GT_OK)
            st = table_read_sqlite(path, "tracking file", "data", timepoint_record, t);
    } else {
        st = table_read_csv(path, "tracking file", timepoint_record, t,
                            t->warn_torn ? t->torn : NULL, sizeof t->torn);
    }
    if (st == GT_OK && !t->columns)
        st = error_set(GT_ERR_PARSE, "tracking file '%s' has no timepoints' header: is it a "
                       "tracking file (--tf)?", path);
    if (st == GT_OK && !t->static_data)
        st = error_set(GT_ERR_PARSE, "tracking file '%s' has no static data", path);
    return st;
}

/* ---- the results -------------------------------------------------------------- */

static json_object *usage_json(char **columns, size_t n, const struct running *r)
{
    json_object *o = json_object_new_object();
    for (size_t c = 0; c < n; c++)
        json_object_object_add(o, columns[c], running_json(&r[c]));
    return o;
}

static json_object *block_json(const struct tracking *t, const struct block *b)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_new_text(b->span.name));
    json_object_object_add(o, "num_timepoints", json_object_new_int64((int64_t)b->timepoints));
    json_object_object_add(o, "num_calls", json_object_new_int64((int64_t)b->span.ncalls));
    json_object_object_add(o, "num_non_empty_calls",
                           json_object_new_int64((int64_t)b->non_empty));
    struct running time = {0};
    for (size_t k = 0; k < b->span.ncalls; k++)
        running_add(&time, b->span.calls[k].stop - b->span.calls[k].start);
    json_object *ct = running_json(&time);
    json_object_object_add(ct, "total", json_new_pyfloat(time.sum));
    json_object_object_add(o, "compute_time", ct);
    json_object_object_add(o, "resource_usage", usage_json(t->columns, t->ncolumns, b->usage));
    return o;
}

/* The first timepoint at or after v in the sorted ts. */
static size_t lower_bound(const double *ts, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ts[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void tracking_free(struct tracking *t)
{
    for (size_t i = 0; i < t->nstatic; i++)
        free(t->static_names[i]);
    for (size_t c = 0; c < t->ncolumns; c++)
        free(t->columns[c]);
    free(t->columns);
    free(t->source);
    free(t->overall);
    free(t->values);
    free(t->have);
    free(t->ts);
    for (size_t b = 0; b < t->nblocks; b++) {
        free(t->blocks[b].span.calls);
        free(t->blocks[b].span.merged);
        free(t->blocks[b].usage);
    }
    free(t->blocks);
    free(t->intervals);
    free(t->active);
    free(t->inside);
    json_object_put(t->static_data);
}

/* The results ({overall, static_data, code_block_results}) as JSON or
 * gpu_tracker's text, malloc'd (NULL when memory runs out). Written a
 * block at a time: only one block's JSON tree lives at once, so memory
 * grows with the results' text, not with a tree of them (a few KB a
 * block, where the tree took ~40 KB). The text is the same, byte for
 * byte, as that of the whole tree. */
static char *results_text(const struct tracking *t, gt_format format)
{
    json_object *r = json_object_new_object();
    json_object_object_add(r, "overall", usage_json(t->columns, t->ncolumns, t->overall));
    json_object_object_add(r, "static_data", json_object_get(t->static_data));
    json_object_object_add(r, "code_block_results", json_object_new_array());
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int ok = f != NULL;
    if (ok && format == GT_FORMAT_JSON) {
        /* The whole document with no blocks ends "[\n  ]\n}": the blocks go
         * in before that end, each indented to the array's depth. */
        const char *head = json_object_to_json_string_ext(r, JSON_PEOPLE_FLAGS);
        static const char tail[] = "\n  ]\n}";
        size_t hn = head ? strlen(head) : 0;
        ok = hn >= sizeof tail - 1 && strcmp(head + hn - (sizeof tail - 1), tail) == 0;
        if (ok)
            fwrite(head, 1, hn - (sizeof tail - 1), f);
        for (size_t b = 0; ok && b < t->nblocks; b++) {
            json_object *block = block_json(t, &t->blocks[b]);
            const char *bt = json_object_to_json_string_ext(block, JSON_PEOPLE_FLAGS);
            ok = bt != NULL;
            fputs(b ? ",\n    " : "\n    ", f);
            for (const char *c = bt; ok && *c; c++) {
                fputc(*c, f);
                if (*c == '\n') /* a string's line break is written \n: never here */
                    fputs("    ", f);
            }
            json_object_put(block);
        }
        if (ok)
            fputs(t->nblocks ? "\n  ]\n}" : tail, f);
    } else if (ok) {
        ok = subtrack_results_text_head(f, r) == 0;
        for (size_t b = 0; ok && b < t->nblocks; b++) {
            json_object *block = block_json(t, &t->blocks[b]);
            ok = subtrack_results_text_block(f, block) == 0;
            json_object_put(block);
        }
    }
    json_object_put(r);
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

static int name_order(const void *a, const void *b)
{
    return strcmp(((const struct block *)a)->span.name, ((const struct block *)b)->span.name);
}

/* The warnings of an analysis, one a line: the cut-short last records
 * left out. NULL when none (or out of memory: they are not worth failing
 * the results for). */
static char *analysis_warnings(const char *marks_torn, const char *tracking_torn)
{
    if (!marks_torn[0] && !tracking_torn[0])
        return NULL;
    char *w = NULL;
    if (asprintf(&w, "%s%s%s%s", marks_torn, marks_torn[0] ? "\n" : "", tracking_torn,
                 tracking_torn[0] ? "\n" : "") < 0)
        return NULL;
    return w;
}

gt_status gt_subtrack_analyze(const char *tracking_file, const char *sub_tracking_file,
                                 gt_format format, char **out, char **warnings)
{
    if (warnings)
        *warnings = NULL;
    if (!tracking_file || !sub_tracking_file || !out ||
        (format != GT_FORMAT_TEXT && format != GT_FORMAT_JSON))
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_subtrack_analyze: a tracking file, a "
                         "sub-tracking file, a format (text or json) and out are needed");
    *out = NULL;
    struct marks m;
    struct tracking t = {0};
    char marks_torn[1024] = "";
    /* Without a place to say so, a cut-short last record fails the read. */
    gt_status st = read_marks(sub_tracking_file, &m, warnings ? marks_torn : NULL,
                              sizeof marks_torn);
    if (!warnings)
        marks_torn[0] = '\0';
    if (st == GT_OK) {
        if (m.n) /* m.v is NULL without marks: qsort may not be given NULL */
            qsort(m.v, m.n, sizeof *m.v, mark_order);
        t.blocks = calloc(m.nnames + 1, sizeof *t.blocks);
        if (!t.blocks)
            st = error_set(GT_ERR_NO_MEMORY, "out of memory analysing '%s'", sub_tracking_file);
        t.nblocks = t.blocks ? m.nnames : 0;
        for (size_t i = 0; i < t.nblocks; i++)
            t.blocks[i].span.name = m.names[i];
        for (size_t i = 0, first = 0; st == GT_OK && i <= m.n; i++)
            if (i == m.n || m.v[i].block != m.v[first].block) {
                if (i > first)
                    st = pair_marks(&m, first, i, &t.blocks[m.v[first].block].span);
                first = i;
            }
    }
    t.stf = sub_tracking_file;
    t.warn_torn = warnings != NULL;
    if (st == GT_OK)
        st = read_tracking(tracking_file, &t);
    if (st == GT_OK) {
        if (t.nts)
            qsort(t.ts, t.nts, sizeof *t.ts, double_order);
        for (size_t b = 0; b < t.nblocks; b++)
            for (size_t k = 0; k < t.blocks[b].span.ncalls; k++) {
                const struct subtrack_interval *call = &t.blocks[b].span.calls[k];
                size_t i = lower_bound(t.ts, t.nts, call->start);
                t.blocks[b].non_empty += i < t.nts && t.ts[i] <= call->stop;
            }
        qsort(t.blocks, t.nblocks, sizeof *t.blocks, name_order);
        if (!(*out = results_text(&t, format)))
            st = error_set(GT_ERR_NO_MEMORY, "out of memory writing the analysis");
    }
    if (st == GT_OK && warnings)
        *warnings = analysis_warnings(marks_torn, t.torn);
    tracking_free(&t);
    marks_free(&m);
    return st;
}

static int span_order(const void *a, const void *b)
{
    return strcmp(((const struct subtrack_block *)a)->name,
                  ((const struct subtrack_block *)b)->name);
}

gt_status subtrack_blocks_read(const char *path, struct subtrack_blocks *out)
{
    memset(out, 0, sizeof *out);
    struct marks m;
    gt_status st = read_marks(path, &m, NULL, 0);
    if (st == GT_OK) {
        if (m.n) /* m.v is NULL without marks: qsort may not be given NULL */
            qsort(m.v, m.n, sizeof *m.v, mark_order);
        out->v = calloc(m.nnames + 1, sizeof *out->v);
        if (!out->v)
            st = error_set(GT_ERR_NO_MEMORY, "out of memory reading '%s'", path);
    }
    if (st == GT_OK) {
        /* The names move to out: m no longer frees them. */
        out->names = m.names;
        out->n = m.nnames;
        m.names = NULL;
        m.nnames = 0;
        for (size_t i = 0; i < out->n; i++)
            out->v[i].name = out->names[i];
        for (size_t i = 0, first = 0; st == GT_OK && i <= m.n; i++)
            if (i == m.n || m.v[i].block != m.v[first].block) {
                if (i > first)
                    st = pair_marks(&m, first, i, &out->v[m.v[first].block]);
                first = i;
            }
        qsort(out->v, out->n, sizeof *out->v, span_order);
    }
    marks_free(&m);
    return st;
}

void subtrack_blocks_free(struct subtrack_blocks *b)
{
    for (size_t i = 0; b->v && i < b->n; i++) {
        free(b->v[i].calls);
        free(b->v[i].merged);
    }
    for (size_t i = 0; b->names && i < b->n; i++)
        free(b->names[i]);
    free(b->names);
    free(b->v);
    memset(b, 0, sizeof *b);
}

gt_status gt_subtrack_calls(const char *sub_tracking_file, char **out)
{
    if (!sub_tracking_file || !out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_subtrack_calls: a sub-tracking file and "
                         "out are needed");
    *out = NULL;
    struct subtrack_blocks blocks;
    gt_status st = subtrack_blocks_read(sub_tracking_file, &blocks);
    if (st == GT_OK) {
        json_object *o = json_object_new_object();
        for (size_t b = 0; b < blocks.n; b++) {
            json_object *calls = json_object_new_array();
            for (size_t k = 0; k < blocks.v[b].ncalls; k++) {
                json_object *pair = json_object_new_array();
                json_object_array_add(pair, json_new_pyfloat(blocks.v[b].calls[k].start));
                json_object_array_add(pair, json_new_pyfloat(blocks.v[b].calls[k].stop));
                json_object_array_add(calls, pair);
            }
            json_object_object_add(o, blocks.v[b].name, calls);
        }
        if (!(*out = json_pretty_text(o)))
            st = error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    subtrack_blocks_free(&blocks);
    return st;
}

gt_status gt_subtrack_check_file(const char *path, const char *name)
{
    if (!path)
        return error_set(GT_ERR_INVALID_ARGUMENT, "gt_subtrack_check_file: a path is needed");
    if (!name)
        name = path;
    gt_status st = GT_OK;
    switch (table_file_kind(name)) {
    case 0: {
        struct stat sb;
        if (stat(path, &sb) != 0)
            st = error_set(GT_ERR_IO, "cannot read tracking file '%s': %s", name, strerror(errno));
        else if (!S_ISREG(sb.st_mode))
            st = error_set(GT_ERR_IO, "cannot read tracking file '%s': it is not a regular file "
                           "(FIFOs, devices and sockets are not read)", name);
        return st;
    }
    case 1:
        st = table_read_sqlite_check(path, "tracking file");
        if (st != GT_OK && strcmp(path, name) != 0) {
            /* the message names the file, not the descriptor */
            char message[2048];
            text_copy(message, sizeof message, gt_last_error());
            char *at = strstr(message, path);
            if (at)
                st = error_set(st, "%.*s%s%s", (int)(at - message), message, name,
                               at + strlen(path));
        }
        return st;
    default:
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid tracking file name '%s': valid "
                         "extensions are .csv and .sqlite", name);
    }
}

/* ---- combining sub-tracking files ------------------------------------------- */

struct combine {
    struct table_file out;
    int col[4];
    int writing; /* 0: checking the inputs, 1: writing them out */
    const char *path;
};

static gt_status combine_record(void *ctx, size_t record, const struct table_cell *cells,
                                size_t n)
{
    struct combine *c = ctx;
    if (record == 1) {
        gt_status st = header_columns(cells, n, mark_columns, 4, c->col, "sub-tracking file",
                                      c->path);
        if (st == GT_OK && n != 4)
            st = error_set(GT_ERR_PARSE, "sub-tracking file '%s' has %zu columns: a sub-tracking "
                           "file has process_id, code_block_name, position and timestamp", c->path,
                           n);
        return st;
    }
    /* The checks of analysis, so that a combined file always analyses. */
    struct marks check = {.path = c->path};
    memcpy(check.col, c->col, sizeof check.col);
    gt_status st = mark_record(&check, record, cells, n);
    if (st == GT_OK && c->writing) {
        const struct mark *k = &check.v[0];
        struct table_value row[4] = {
            {TABLE_INT, (double)k->pid, NULL},
            {TABLE_TEXT, 0, check.names[0]},
            {TABLE_INT, (double)k->position, NULL},
            {TABLE_FLOAT, k->ts, NULL},
        };
        if (table_file_row(&c->out, row, 4) != 0)
            st = error_set(GT_ERR_IO, "cannot write the combined file: %s",
                           table_file_error(&c->out));
    }
    marks_free(&check);
    return st;
}

gt_status gt_subtrack_combine(const char *output, const char *const *inputs, size_t n)
{
    if (!output || !inputs || n == 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "combine: an output file and at least one "
                         "sub-tracking file to combine are needed");
    int kind = table_file_kind(output);
    if (kind < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid sub-tracking file name '%s': valid "
                         "extensions are .csv and .sqlite", output);
    for (size_t i = 0; i < n; i++)
        if (table_file_kind(inputs[i]) != kind)
            return error_set(GT_ERR_INVALID_ARGUMENT, "cannot combine '%s' into '%s': every file "
                             "must end in %s, as the combined one", inputs[i], output,
                             kind ? ".sqlite" : ".csv");
    struct stat sb;
    if (lstat(output, &sb) == 0)
        return error_set(GT_ERR_IO, "cannot combine into '%s': it already exists (give a new "
                         "name; its marks would be lost)", output);
    struct combine c = {0};
    c.out.fd = -1;
    gt_status st = GT_OK;
    /* First every input is read and checked: a bad one leaves no output. */
    for (size_t i = 0; st == GT_OK && i < n; i++) {
        c.path = inputs[i];
        st = read_table_file(inputs[i], "sub-tracking file", "data", combine_record, &c, NULL, 0);
    }
    if (st != GT_OK)
        return st;
    st = table_file_create(&c.out, output, 0, "combined sub-tracking file");
    if (st != GT_OK)
        return st;
    static const struct table_value types[4] = {
        {TABLE_INT, 0, NULL}, {TABLE_TEXT, 0, NULL}, {TABLE_INT, 0, NULL}, {TABLE_FLOAT, 0, NULL}};
    if (table_file_table(&c.out, "data", mark_columns, types, 4) != 0)
        st = error_set(GT_ERR_IO, "cannot write '%s': %s", output, table_file_error(&c.out));
    c.writing = 1;
    for (size_t i = 0; st == GT_OK && i < n; i++) {
        c.path = inputs[i];
        st = read_table_file(inputs[i], "sub-tracking file", "data", combine_record, &c, NULL, 0);
    }
    if (st != GT_OK)
        table_file_discard(&c.out); /* ours, made just now: no half-combined file stays */
    else
        table_file_close(&c.out);
    return st;
}
