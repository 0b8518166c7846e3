/* subtrack_results.c - the text of sub-tracking results, and the
 * comparison of tracking sessions (gpu_tracker's TrackingComparison:
 * gpu_tracker.h, "Sub-tracking analysis"). */
#define _GNU_SOURCE
#include "subtrack/subtrack_results.h"
#include "gpu_tracker_tools.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "common/internal.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "subtrack/pandas_text.h"

/* ---- text -------------------------------------------------------------------- */

static int is_scalar(json_object *v)
{
    json_type t = json_object_get_type(v);
    return t != json_type_object && t != json_type_array;
}

/* An object of scalars only: what gpu_tracker holds as a pandas Series. */
static int is_series(json_object *v)
{
    if (!json_object_is_type(v, json_type_object) || json_object_object_length(v) == 0)
        return 0;
    json_object_object_foreach(v, key, value) {
        (void)key;
        if (!is_scalar(value))
            return 0;
    }
    return 1;
}

/* A copy of o with every key and string escaped (escape_untrusted), for the
 * text; o itself keeps the names as they are (the JSON escapes its own).
 * NULL when memory runs out. */
static json_object *escaped_copy(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_string: {
        char *e = text_escape_untrusted(json_object_get_string(o));
        json_object *copy = e ? json_object_new_string(e) : NULL;
        free(e);
        return copy;
    }
    case json_type_array: {
        json_object *copy = json_object_new_array();
        for (size_t i = 0; copy && i < json_object_array_length(o); i++) {
            json_object *item = escaped_copy(json_object_array_get_idx(o, i));
            if (!item || json_object_array_add(copy, item) != 0) {
                json_object_put(item);
                json_object_put(copy);
                return NULL;
            }
        }
        return copy;
    }
    case json_type_object: {
        json_object *copy = json_object_new_object();
        json_object_object_foreach(o, key, value) {
            char *e = text_escape_untrusted(key);
            json_object *item = value ? escaped_copy(value) : NULL;
            if (!copy || !e || (value && !item) || json_object_object_add(copy, e, item) != 0) {
                free(e);
                json_object_put(item);
                json_object_put(copy);
                return NULL;
            }
            free(e);
        }
        return copy;
    }
    default:
        return json_object_get(o);
    }
}

static void tabs(FILE *f, int indent)
{
    for (int i = 0; i < indent; i++)
        fputc('\t', f);
}

/* gpu_tracker's _dict_to_str: each key titled ("num_calls" -> "Num Calls")
 * unless it is one of untitled's keys, scalars after a colon padded to the
 * longest key, nested values on the lines after, a tab deeper. frames: the
 * keys whose objects are DataFrames ({index: {column: value}}). */
static void write_dict(FILE *f, json_object *o, int indent, json_object *untitled,
                       const char *const *frames)
{
    size_t longest = 0;
    char key_text[1024];
    json_object_object_foreach(o, k0, v0) {
        (void)v0;
        if (untitled && json_object_object_get_ex(untitled, k0, NULL))
            snprintf(key_text, sizeof key_text, "%s", k0);
        else
            pandas_title(k0, key_text, sizeof key_text);
        if (strlen(key_text) + (size_t)indent > longest)
            longest = strlen(key_text) + (size_t)indent;
    }
    json_object_object_foreach(o, key, value) {
        if (untitled && json_object_object_get_ex(untitled, key, NULL))
            snprintf(key_text, sizeof key_text, "%s", key);
        else
            pandas_title(key, key_text, sizeof key_text);
        tabs(f, indent);
        fputs(key_text, f);
        fputc(':', f);
        int frame = 0;
        for (size_t i = 0; frames && frames[i]; i++)
            frame |= strcmp(key, frames[i]) == 0;
        if (json_object_is_type(value, json_type_array)) {
            fputc('\n', f);
            for (size_t i = 0; i < json_object_array_length(value); i++) {
                write_dict(f, json_object_array_get_idx(value, i), indent + 1, untitled, frames);
                fputc('\n', f);
            }
        } else if (frame && json_object_is_type(value, json_type_object)) {
            fputc('\n', f);
            pandas_frame_write(f, value, indent + 1);
        } else if (is_series(value)) {
            fputc('\n', f);
            pandas_series_write(f, value, indent + 1);
        } else if (json_object_is_type(value, json_type_object)) {
            fputc('\n', f);
            write_dict(f, value, indent + 1, untitled, frames);
        } else {
            for (size_t pad = strlen(key_text) + (size_t)indent; pad < longest; pad++)
                fputc(' ', f);
            fputc(' ', f);
            switch (json_object_get_type(value)) {
            case json_type_double:
                fprintf(f, "%.8f", json_object_get_double(value));
                break;
            case json_type_null:
                fputs("None", f);
                break;
            case json_type_boolean:
                fputs(json_object_get_boolean(value) ? "True" : "False", f);
                break;
            default:
                fputs(json_object_get_string(value), f);
                break;
            }
            fputc('\n', f);
        }
    }
}

static char *dict_text(json_object *o, json_object *untitled, const char *const *frames)
{
    json_object *safe = escaped_copy(o);
    json_object *safe_untitled = untitled ? escaped_copy(untitled) : NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = safe && (!untitled || safe_untitled) ? open_memstream(&text, &len) : NULL;
    if (f) {
        write_dict(f, safe, 0, safe_untitled, frames);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    json_object_put(safe);
    json_object_put(safe_untitled);
    return text;
}

static const char *const result_frames[] = {"overall", "resource_usage", NULL};

int subtrack_results_text_head(FILE *f, json_object *r)
{
    json_object *safe = escaped_copy(r);
    if (safe)
        write_dict(f, safe, 0, NULL, result_frames);
    json_object_put(safe);
    return safe ? 0 : -1;
}

int subtrack_results_text_block(FILE *f, json_object *block)
{
    json_object *safe = escaped_copy(block);
    if (safe) {
        write_dict(f, safe, 1, NULL, result_frames);
        fputc('\n', f);
    }
    json_object_put(safe);
    return safe ? 0 : -1;
}

char *subtrack_comparison_text(json_object *c)
{
    json_object *times = NULL;
    json_object_object_get_ex(c, "code_block_compute_time", &times);
    return dict_text(c, times, NULL);
}

/* ---- comparison ----------------------------------------------------------------- */

static const char *const statistics[] = {"min", "max", "mean", "std", NULL};

struct session {
    const char *name;
    json_object *doc;
    json_object *overall; /* {measurement: {statistic: value}} */
    json_object **blocks; /* the code block results, sorted as gpu_tracker sorts them */
    size_t nblocks;
};

/* The line number of a name "<file>:<line>": what follows its last colon
 * when Python's int() takes it (gpu_tracker's _get_line_num: spaces
 * around, a sign, digits with single underscores between them), as it is
 * written, and its length; NULL when there is none. */
static const char *line_number(const char *name, size_t *len)
{
    const char *colon = strrchr(name, ':');
    if (!colon)
        return NULL;
    const char *p = colon + 1;
    while (isspace((unsigned char)*p))
        p++;
    p += *p == '+' || *p == '-';
    if (!isdigit((unsigned char)*p))
        return NULL;
    while (isdigit((unsigned char)*p) || (*p == '_' && isdigit((unsigned char)p[1])))
        p++;
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return NULL;
    *len = strlen(colon + 1);
    return colon + 1;
}

/* The sort key of a block name: its line number as str.zfill(width) pads
 * it (zeros after a leading sign), so that "f.py:9" comes before "f.py:10"
 * (gpu_tracker's _sort_code_block_name). malloc'd. */
static char *sort_key(const char *name, size_t width)
{
    size_t len;
    const char *line = line_number(name, &len);
    char *key = NULL;
    if (!line || len >= width)
        return strdup(name);
    int sign = *line == '+' || *line == '-';
    const char *colon = line - 1;
    if (asprintf(&key, "%.*s:%.*s%0*d%s", (int)(colon - name), name, sign, line,
                 (int)(width - len), 0, line + sign) < 0)
        return NULL;
    return key;
}

struct keyed {
    char *key;
    size_t order;
    json_object *block;
};

static int keyed_order(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static const char *block_name(json_object *block)
{
    json_object *name = NULL;
    json_object_object_get_ex(block, "name", &name);
    return json_object_get_string(name);
}

/* Reads one session's document: its overall results and its blocks,
 * sorted. */
static gt_status read_session(struct session *s, const char *text)
{
    char what[512];
    snprintf(what, sizeof what, "the results of tracking session '%s'", s->name);
    struct json_reader r = {GT_OK, what};
    /* Not json_read_parse's strict mode: gpu_tracker's json.dumps writes
     * NaN for a statistic over no timepoints. */
    json_tokener *tok = json_tokener_new_ex(JSON_READ_MAX_DEPTH);
    if (!tok)
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    s->doc = json_tokener_parse_ex(tok, text, (int)strlen(text));
    enum json_tokener_error e = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (e != json_tokener_success || !json_object_is_type(s->doc, json_type_object))
        return error_set(GT_ERR_PARSE, "%s are not JSON results of sub-track analyze (%s)", what,
                         e != json_tokener_success ? json_tokener_error_desc(e)
                                                 : "not an object");
    s->overall = json_read_member(&r, s->doc, "overall", json_type_object, "");
    json_object *blocks = json_read_member(&r, s->doc, "code_block_results", json_type_array,
                                           "");
    if (r.status != GT_OK)
        return r.status; /* json_read_fail has said why */
    json_object_object_foreach(s->overall, m, stats) {
        (void)m;
        if (!json_object_is_type(stats, json_type_object))
            return error_set(GT_ERR_PARSE, "%s: overall.%s should be an object", what, m);
    }
    s->nblocks = json_object_array_length(blocks);
    struct keyed *k = calloc(s->nblocks + 1, sizeof *k);
    s->blocks = calloc(s->nblocks + 1, sizeof *s->blocks);
    if (!k || !s->blocks) {
        free(k);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    size_t width = 0;
    gt_status st = GT_OK;
    for (size_t i = 0; i < s->nblocks && st == GT_OK; i++) {
        json_object *b = json_object_array_get_idx(blocks, i);
        char path[64];
        snprintf(path, sizeof path, "code_block_results[%zu]", i);
        json_read_member(&r, b, "name", json_type_string, path);
        json_read_member(&r, b, "compute_time", json_type_object, path);
        json_read_member(&r, b, "resource_usage", json_type_object, path);
        if (r.status != GT_OK)
            st = r.status;
        size_t len;
        if (st == GT_OK && line_number(block_name(b), &len) && len > width)
            width = len;
    }
    for (size_t i = 0; i < s->nblocks && st == GT_OK; i++) {
        json_object *b = json_object_array_get_idx(blocks, i);
        k[i] = (struct keyed){sort_key(block_name(b), width), i, b};
        if (!k[i].key)
            st = error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    if (st == GT_OK) {
        qsort(k, s->nblocks, sizeof *k, keyed_order);
        for (size_t i = 0; i < s->nblocks; i++)
            s->blocks[i] = k[i].block;
    }
    for (size_t i = 0; i < s->nblocks; i++)
        free(k[i].key);
    free(k);
    return st;
}

/* The statistic of a {statistic: value} object: NaN when null or absent
 * (*absent set); *integral says whether it was written as an integer (a
 * thread count's min or max, from a pandas column of integers). */
static double statistic_of(json_object *stats, const char *statistic, int *absent, int *integral)
{
    json_object *v = NULL;
    *integral = 0;
    if (!json_object_object_get_ex(stats, statistic, &v) ||
        (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int) &&
         !json_object_is_type(v, json_type_null))) {
        *absent = 1;
        return NAN;
    }
    *integral = json_object_is_type(v, json_type_int);
    return v ? json_object_get_double(v) : NAN;
}

struct entry {
    const char *session;
    double value;
    int integral; /* written as an integer */
    size_t order;
};

static int entry_order(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int xn = isnan(x->value), yn = isnan(y->value);
    if (xn != yn)
        return xn - yn; /* NaN last, as pandas sorts */
    if (!xn && x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* {session: value}, sorted by value, as gpu_tracker's pandas Series: of
 * integers when every session's value is one (pandas keeps an integer
 * column's min and max integers: "15", not "15.0"), else of floats. */
static json_object *ranked(struct entry *e, size_t n)
{
    qsort(e, n, sizeof *e, entry_order);
    int integers = 1;
    for (size_t i = 0; i < n; i++)
        integers &= e[i].integral;
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < n; i++)
        json_object_object_add(o, e[i].session,
                               integers ? json_object_new_int64((int64_t)e[i].value)
                                        : json_new_pyfloat(e[i].value));
    return o;
}

/* The statistic of measurement m in each session (stats_of picks the
 * {statistic: value} object of a session). */
typedef json_object *(*stats_fn)(const struct session *s, size_t block, const char *m);

static json_object *overall_stats(const struct session *s, size_t block, const char *m)
{
    (void)block;
    json_object *o = NULL;
    json_object_object_get_ex(s->overall, m, &o);
    return o;
}

static json_object *block_usage_stats(const struct session *s, size_t block, const char *m)
{
    json_object *usage = NULL, *o = NULL;
    json_object_object_get_ex(s->blocks[block], "resource_usage", &usage);
    json_object_object_get_ex(usage, m, &o);
    return o;
}

static json_object *block_time_stats(const struct session *s, size_t block, const char *m)
{
    (void)m;
    json_object *o = NULL;
    json_object_object_get_ex(s->blocks[block], "compute_time", &o);
    return o;
}

static gt_status compare_one(const struct session *s, size_t n, size_t block, const char *m,
                             const char *statistic, stats_fn pick, struct entry *e,
                             json_object **out)
{
    for (size_t i = 0; i < n; i++) {
        int absent = 0, integral = 0;
        json_object *stats = pick(&s[i], block, m);
        double v = stats ? statistic_of(stats, statistic, &absent, &integral) : NAN;
        e[i] = (struct entry){s[i].name, v, integral, i};
        if (!stats || absent)
            return error_set(GT_ERR_PARSE, "the results of tracking session '%s' have no %s of "
                             "%s%s%s", s[i].name, statistic, m ? m : "compute time",
                             pick == overall_stats ? "" : " in code block ",
                             pick == overall_stats ? "" : block_name(s[i].blocks[block]));
    }
    *out = ranked(e, n);
    return GT_OK;
}

/* " -> ".join(sorted(set(names))) of the block at index block. */
static char *joined_name(const struct session *s, size_t n, size_t block)
{
    const char **names = calloc(n + 1, sizeof *names);
    if (!names)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = block_name(s[i].blocks[block]);
        size_t j = 0;
        while (j < k && strcmp(names[j], name) < 0)
            j++;
        if (j < k && strcmp(names[j], name) == 0)
            continue;
        memmove(&names[j + 1], &names[j], (k - j) * sizeof *names);
        names[j] = name;
        k++;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (size_t j = 0; f && j < k; j++)
        fprintf(f, "%s%s", j ? " -> " : "", names[j]);
    if (f)
        fclose(f);
    free(names);
    return text;
}

/* Each block's comparison (compare_one) into into, under its joined name. */
static gt_status compare_blocks(const struct session *s, size_t n, size_t nblocks, const char *m,
                                const char *statistic, stats_fn pick, struct entry *e,
                                json_object *into)
{
    for (size_t b = 0; b < nblocks; b++) {
        json_object *o = NULL;
        char *name = joined_name(s, n, b);
        gt_status st = name ? compare_one(s, n, b, m, statistic, pick, e, &o)
                            : error_set(GT_ERR_NO_MEMORY, "out of memory");
        if (st == GT_OK)
            json_object_object_add(into, name, o);
        free(name);
        if (st != GT_OK)
            return st;
    }
    return GT_OK;
}

static gt_status check_blocks(const struct session *s, size_t n, size_t first, FILE *warn)
{
    const struct session *a = &s[first];
    for (size_t i = 0; i < n; i++) {
        if (i == first)
            continue;
        /* gpu_tracker's words (TrackingComparison.__init__), which code
         * matching them relies on. */
        if (s[i].nblocks != a->nblocks)
            return error_set(GT_ERR_PARSE, "All sub-tracking results must have the same number of "
                             "code blocks. The first has %zu code blocks but tracking session "
                             "\"%s\" has %zu code blocks.", a->nblocks, s[i].name, s[i].nblocks);
        for (size_t b = 0; b < a->nblocks; b++) {
            const char *x = block_name(a->blocks[b]), *y = block_name(s[i].blocks[b]);
            if (strcmp(x, y) == 0)
                continue;
            size_t lx, ly;
            const char *cx = strrchr(x, ':'), *cy = strrchr(y, ':');
            if (line_number(x, &lx) && line_number(y, &ly) && cx - x == cy - y &&
                strncmp(x, y, (size_t)(cx - x)) == 0) {
                fprintf(warn, "Code block name \"%s\" of tracking session \"%s\" matched with "
                        "code block name \"%s\" of tracking session \"%s\" but they differ by "
                        "line number. If these code blocks were not meant to match, their "
                        "comparison will not be valid and their names must be disambiguated.\n",
                        x, a->name, y, s[i].name);
                continue;
            }
            return error_set(GT_ERR_PARSE, "Code block name \"%s\" of tracking session \"%s\" "
                             "does not match code block name \"%s\" of tracking session \"%s\"",
                             x, a->name, y, s[i].name);
        }
    }
    return GT_OK;
}

gt_status gt_subtrack_compare(const char *const *names, const char *const *results, size_t n,
                              const char *statistic, gt_format format, char **out,
                              char **warnings)
{
    if (out)
        *out = NULL;
    if (warnings)
        *warnings = NULL;
    if (!names || !results || !out || n == 0 ||
        (format != GT_FORMAT_TEXT && format != GT_FORMAT_JSON))
        return error_set(GT_ERR_INVALID_ARGUMENT, "compare: at least one tracking session (a "
                         "name and its results), a format (text or json) and out are needed");
    int known = 0;
    for (size_t i = 0; statistic && statistics[i]; i++)
        known |= strcmp(statistic, statistics[i]) == 0;
    if (!known)
        return error_set(GT_ERR_INVALID_ARGUMENT, "invalid statistic '%s': valid statistics are "
                         "min, max, mean and std", statistic ? statistic : "(none)");
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return error_set(GT_ERR_INVALID_ARGUMENT, "tracking session '%s' is given twice",
                                 names[i]);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += results[i] ? strlen(results[i]) : 0;
        if (total > GT_SUBTRACK_COMPARE_MAX_BYTES)
            return error_set(GT_ERR_INVALID_ARGUMENT, "compare: the sessions' results come to more "
                             "than %zu MiB with session '%s': a comparison holds every session "
                             "parsed at once (about 18 bytes of memory a byte), so it takes at "
                             "most that much results in all", GT_SUBTRACK_COMPARE_MAX_BYTES >> 20,
                             names[i]);
    }
    struct session *s = calloc(n, sizeof *s);
    struct entry *e = calloc(n, sizeof *e);
    char *warn_text = NULL;
    size_t warn_len = 0;
    FILE *warn = open_memstream(&warn_text, &warn_len);
    json_object *c = NULL;
    gt_status st = GT_OK;
    if (!s || !e || !warn) {
        st = error_set(GT_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    size_t first = 0; /* gpu_tracker compares against the session first by name */
    for (size_t i = 0; i < n && st == GT_OK; i++) {
        s[i].name = names[i];
        st = read_session(&s[i], results[i]);
        if (strcmp(names[i], names[first]) < 0)
            first = i;
    }
    if (st == GT_OK)
        st = check_blocks(s, n, first, warn);
    if (st != GT_OK)
        goto out;
    c = json_object_new_object();
    json_object *overall = json_object_new_object(), *usage = json_object_new_object(),
                *times = json_object_new_object();
    json_object_object_add(c, "overall_resource_usage", overall);
    json_object_object_add(c, "code_block_resource_usage", usage);
    json_object_object_add(c, "code_block_compute_time", times);
    json_object_object_foreach(s[first].overall, m, unused) {
        (void)unused;
        json_object *o = NULL;
        st = compare_one(s, n, 0, m, statistic, overall_stats, e, &o);
        if (st != GT_OK)
            goto out;
        json_object_object_add(overall, m, o);
        if (s[first].nblocks == 0)
            continue;
        json_object *per_block = json_object_new_object();
        json_object_object_add(usage, m, per_block);
        st = compare_blocks(s, n, s[first].nblocks, m, statistic, block_usage_stats, e,
                            per_block);
        if (st != GT_OK)
            goto out;
    }
    st = compare_blocks(s, n, s[first].nblocks, NULL, statistic, block_time_stats, e, times);
    if (st != GT_OK)
        goto out;
    *out = format == GT_FORMAT_JSON ? json_pretty_text(json_object_get(c))
                                    : subtrack_comparison_text(c);
    if (!*out)
        st = error_set(GT_ERR_NO_MEMORY, "out of memory writing the comparison");
out:
    json_object_put(c);
    if (warn && fclose(warn) == 0 && st == GT_OK && warn_len && warnings)
        *warnings = warn_text;
    else
        free(warn_text);
    for (size_t i = 0; s && i < n; i++) {
        json_object_put(s[i].doc);
        free(s[i].blocks);
    }
    free(s);
    free(e);
    return st;
}
