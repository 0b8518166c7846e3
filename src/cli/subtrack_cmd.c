/* subtrack_cmd.c - `gpu-tracker sub-track combine|analyze|compare`:
 * gpu_tracker 5's sub-tracking commands, with its options and output. */
#define _GNU_SOURCE
#include "subtrack_cmd.h"
#include "gpu_tracker_tools.h"

#include "output.h"

#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_tracker_internal.h"
#include "suggest.h"
#include "common/toolkit.h"

/* A results or config file bigger than this is not one of ours. */
#define MAX_DOCUMENT (64u << 20)
#define MAX_PATHS 4096

const char subtrack_usage[] =
    "usage: gpu-tracker sub-track combine --stf OUT -p FILE [-p FILE...] | -p DIR\n"
    "       gpu-tracker sub-track analyze --tf TRACKING --stf SUB_TRACKING [-o FILE]\n"
    "                                     [-f text|json]\n"
    "       gpu-tracker sub-track compare [-m NAME=RESULTS...] [--cconfig FILE]\n"
    "                                     [--stat min|max|mean|std] [-o FILE]\n"
    "                                     [-f text|json]\n"
    "\n"
    "  combine   joins the sub-tracking files of several processes (-p FILE...,\n"
    "            or -p DIR: every file of DIR with OUT's extension) into the new\n"
    "            file OUT\n"
    "  analyze   per code block of the sub-tracking file: its calls, their time, and\n"
    "            the min/max/mean/std of each resource over the tracking file's\n"
    "            timepoints inside them (gpu_tracker's SubTrackingAnalyzer)\n"
    "  compare   the analyses of tracking sessions (-m NAME=FILE: analyze -f json\n"
    "            output; --cconfig: a JSON file with file_path_map and statistic), by\n"
    "            statistic\n"
    "\n"
    "  --tf FILE       the tracking file (gpu-tracker --tf, or gpu_tracker's):\n"
    "                  .csv or .sqlite\n"
    "  --stf FILE      the sub-tracking file: .csv or .sqlite\n"
    "  -o, --output F  write there rather than to standard output\n"
    "  -f, --format F  text (gpu_tracker's layout, the default) or json; pickle needs\n"
    "                  the Python package's gpu-tracker (docs/sub-tracking.md)\n"
    "  --stat S        the statistic compared: min, max, mean (the default) or std\n";

static int fail(const char *msg)
{
    cli_error("sub-track: %s\n", msg);
    return 2;
}

static int fail_lib(void)
{
    cli_error("sub-track: %s\n", gt_last_error());
    return 1;
}

struct sub_options {
    const char *tf, *stf, *output, *format, *cconfig, *stat;
    const char *paths[MAX_PATHS];
    int npaths;
    const char *maps[MAX_PATHS];
    int nmaps;
};

/* The value of option name at argv[*i]: "--name=V", "--name V", "-xV" or
 * "-x V". NULL (error printed) when it has none. */
static const char *value_of(int argc, char **argv, int *i, size_t name_len)
{
    const char *arg = argv[*i];
    if (arg[name_len] == '=')
        return arg + name_len + 1;
    if (arg[1] != '-' && arg[name_len])
        return arg + name_len; /* -ofile */
    if (*i + 1 >= argc) {
        cli_error("sub-track: %.*s needs a value\n", (int)name_len, arg);
        return NULL;
    }
    return argv[++*i];
}

/* 1 when arg is option name, alone or with its value attached. */
static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return 0;
    return arg[n] == '\0' || arg[n] == '=' || (name[1] != '-' && name[2] == '\0');
}

/* Parses the options after the action; allowed: the long names this action
 * takes. -1 after printing the error. */
static int parse(int argc, char **argv, const char *action, const char *const *allowed,
                 struct sub_options *o)
{
    static const char *const names[] = {"--tf", "--stf", "-o", "--output", "-f", "--format",
                                        "--cconfig", "--stat", "-p", "-m", NULL};
    memset(o, 0, sizeof *o);
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            fputs(subtrack_usage, stdout);
            return 1;
        }
        const char *name = NULL;
        for (int k = 0; names[k] && !name; k++)
            if (is_option(arg, names[k]))
                name = names[k];
        int ok = 0;
        for (int k = 0; name && allowed[k]; k++)
            ok |= !strcmp(allowed[k], name);
        if (!ok) {
            char takes[256] = "";
            for (int k = 0, n = 0; allowed[k] && n >= 0 && (size_t)n < sizeof takes; k++)
                n += snprintf(takes + n, sizeof takes - (size_t)n, "%s%s", k ? ", " : "",
                              allowed[k]);
            cli_error("sub-track %s: unknown %s '%s'; it takes: %s\n", action,
                      arg[0] == '-' ? "option" : "argument", arg, takes);
            return -1;
        }
        const char *v = value_of(argc, argv, &i, strlen(name));
        if (!v)
            return -1;
        if (!strcmp(name, "--tf"))
            o->tf = v;
        else if (!strcmp(name, "--stf"))
            o->stf = v;
        else if (!strcmp(name, "-o") || !strcmp(name, "--output"))
            o->output = v;
        else if (!strcmp(name, "-f") || !strcmp(name, "--format"))
            o->format = v;
        else if (!strcmp(name, "--cconfig"))
            o->cconfig = v;
        else if (!strcmp(name, "--stat"))
            o->stat = v;
        else if (o->npaths >= MAX_PATHS || o->nmaps >= MAX_PATHS) {
            cli_error("sub-track: more than %d files\n", MAX_PATHS);
            return -1;
        } else if (!strcmp(name, "-p"))
            o->paths[o->npaths++] = v;
        else
            o->maps[o->nmaps++] = v;
    }
    return 0;
}

/* -f: 0 text, 1 json; -1 after the error (pickle says where to get it). */
static int format_of(const char *format)
{
    if (!format || !strcmp(format, "text"))
        return 0;
    if (!strcmp(format, "json"))
        return 1;
    if (!strcmp(format, "pickle")) {
        cli_error("sub-track: -f pickle is written by the Python package's "
                  "gpu-tracker (pip install ./python: the same command, run by Python), which "
                  "pickles gputracker.SubTrackingResults; this command writes text or json (-f "
                  "json, then gputracker.SubTrackingResults.from_json in Python)\n");
        return -1;
    }
    cli_error("sub-track: invalid format '%s': valid formats are text, "
              "json (and pickle from the Python package)\n", format);
    return -1;
}

/* Prints text as Python's print() does, or writes it to path as gpu_tracker
 * writes its output file (no newline added). */
static int emit(const char *text, const char *path)
{
    if (!path) {
        if (printf("%s\n", text) < 0 || fflush(stdout) != 0) {
            cli_error("sub-track: cannot write the output: %s\n",
                      strerror(errno));
            return 1;
        }
        return 0;
    }
    return output_file_write(path, text, strlen(text)) == GT_OK ? 0 : fail_lib();
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int combine(struct sub_options *o)
{
    if (!o->stf)
        return fail("combine needs --stf OUT, the combined file to make");
    if (o->npaths == 0)
        return fail("combine needs the files to combine: -p FILE (repeated), or -p DIR");
    struct stat st;
    char **listed = NULL;
    size_t nlisted = 0;
    int rc;
    if (o->npaths == 1 && stat(o->paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        /* gpu_tracker: one path is a directory of files to combine. Ours
         * takes those of the combined file's format only, in name order. */
        const char *dir = o->paths[0];
        const char *ext = strrchr(o->stf, '.');
        DIR *d = opendir(dir);
        if (!d) {
            cli_error("sub-track: cannot read directory '%s': %s\n", dir,
                      strerror(errno));
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t n = strlen(e->d_name), m = ext ? strlen(ext) : 0;
            if (!ext || n <= m || strcmp(e->d_name + n - m, ext) != 0)
                continue;
            char **more = nlisted < MAX_PATHS ? realloc(listed, (nlisted + 1) * sizeof *more)
                                              : NULL;
            if (!more || asprintf(&more[nlisted], "%s/%s", dir, e->d_name) < 0) {
                closedir(d);
                cli_error("sub-track: '%s' has too many files (at most "
                          "%d), or memory ran out\n", dir, MAX_PATHS);
                listed = more ? more : listed;
                for (size_t i = 0; i < nlisted; i++)
                    free(listed[i]);
                free(listed);
                return 1;
            }
            listed = more;
            nlisted++;
        }
        closedir(d);
        if (nlisted == 0) {
            cli_error("sub-track: directory '%s' has no %s files to "
                      "combine\n", dir, ext ? ext : "sub-tracking");
            free(listed);
            return 1;
        }
        qsort(listed, nlisted, sizeof *listed, by_name);
        rc = gt_subtrack_combine(o->stf, (const char *const *)listed, nlisted) == GT_OK
                 ? 0 : fail_lib();
        for (size_t i = 0; i < nlisted; i++)
            free(listed[i]);
        free(listed);
        return rc;
    }
    return gt_subtrack_combine(o->stf, o->paths, (size_t)o->npaths) == GT_OK ? 0 : fail_lib();
}

/* Prints the library's warning lines on stderr (their names from files
 * escaped), and frees them. */
static void say_warnings(char *warnings)
{
    for (char *line = warnings, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        else
            next = line + strlen(line);
        fputs("gpu-tracker: sub-track: warning: ", stderr);
        output_print_untrusted(stderr, line);
        fputc('\n', stderr);
    }
    free(warnings);
}

static int analyze(struct sub_options *o)
{
    if (!o->tf || !o->stf)
        return fail("analyze needs --tf TRACKING_FILE and --stf SUB_TRACKING_FILE");
    int json = format_of(o->format);
    if (json < 0)
        return 2;
    char *out = NULL, *warnings = NULL;
    if (gt_subtrack_analyze(o->tf, o->stf, json ? GT_FORMAT_JSON : GT_FORMAT_TEXT, &out,
                               &warnings) != GT_OK)
        return fail_lib();
    say_warnings(warnings);
    int rc = emit(out, o->output);
    free(out);
    return rc;
}

struct session_map {
    char *names[MAX_PATHS];
    char *files[MAX_PATHS];
    int n;
};

/* Adds or replaces name -> file (a later -m replaces the config's). */
static int map_put(struct session_map *m, const char *name, const char *file)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->names[i], name)) {
            char *f = strdup(file);
            if (!f)
                return -1;
            free(m->files[i]);
            m->files[i] = f;
            return 0;
        }
    if (m->n >= MAX_PATHS)
        return -1;
    m->names[m->n] = strdup(name);
    m->files[m->n] = strdup(file);
    if (!m->names[m->n] || !m->files[m->n])
        return -1;
    m->n++;
    return 0;
}

static void map_free(struct session_map *m)
{
    for (int i = 0; i < m->n; i++) {
        free(m->names[i]);
        free(m->files[i]);
    }
}

/* --cconfig: {"file_path_map": {NAME: FILE}, "statistic": S}, both
 * optional. *stat: the statistic (malloc'd) or NULL. -1 after the error. */
static int read_cconfig(const char *path, struct session_map *m, char **stat)
{
    char *text = NULL;
    if (input_file_read(path, MAX_DOCUMENT, "config file", &text, NULL) != GT_OK) {
        fail_lib();
        return -1;
    }
    json_tokener *tok = json_tokener_new_ex(16);
    json_object *doc = tok ? json_tokener_parse_ex(tok, text, (int)strlen(text)) : NULL;
    int bad = !tok || json_tokener_get_error(tok) != json_tokener_success;
    if (tok)
        json_tokener_free(tok);
    free(text);
    const char *why = NULL;
    json_object *map = NULL, *s = NULL;
    if (bad || !json_object_is_type(doc, json_type_object))
        why = "it is not a JSON object";
    else if (json_object_object_get_ex(doc, "file_path_map", &map) &&
             !json_object_is_type(map, json_type_object))
        why = "file_path_map should be an object of session names to results files";
    else if (json_object_object_get_ex(doc, "statistic", &s) &&
             !json_object_is_type(s, json_type_string))
        why = "statistic should be a string: min, max, mean or std";
    if (!why) {
        json_object_object_foreach(doc, key, unused) {
            (void)unused;
            if (strcmp(key, "file_path_map") && strcmp(key, "statistic")) {
                cli_error("sub-track: config file '%s': unknown key '%s'; "
                          "valid keys are file_path_map and statistic\n", path, key);
                json_object_put(doc);
                return -1;
            }
        }
    }
    if (!why && map) {
        json_object_object_foreach(map, name, file) {
            if (!json_object_is_type(file, json_type_string)) {
                why = "every file of file_path_map should be a string (a path)";
                break;
            }
            if (map_put(m, name, json_object_get_string(file)) != 0) {
                why = "too many sessions, or out of memory";
                break;
            }
        }
    }
    if (!why && s && !(*stat = strdup(json_object_get_string(s))))
        why = "out of memory";
    json_object_put(doc);
    if (why) {
        cli_error("sub-track: config file '%s': %s\n", path, why);
        return -1;
    }
    return 0;
}

/* 1 when text starts as a pickle does (protocol 2 and later: 0x80). */
static int looks_pickled(const char *text, size_t len)
{
    return len >= 2 && (unsigned char)text[0] == 0x80 && (unsigned char)text[1] <= 5;
}

static int compare(struct sub_options *o)
{
    int json = format_of(o->format);
    if (json < 0)
        return 2;
    struct session_map m = {.n = 0};
    char *stat = NULL;
    int rc = 0;
    char *docs[MAX_PATHS] = {NULL};
    if (o->cconfig && read_cconfig(o->cconfig, &m, &stat) != 0) {
        rc = 2;
        goto out;
    }
    for (int i = 0; i < o->nmaps; i++) {
        const char *eq = strchr(o->maps[i], '=');
        if (!eq || eq == o->maps[i] || !eq[1]) {
            cli_error("sub-track: -m '%s' should be NAME=FILE (a session's "
                      "name, and its results from sub-track analyze -f json)\n", o->maps[i]);
            rc = 2;
            goto out;
        }
        char *name = strndup(o->maps[i], (size_t)(eq - o->maps[i]));
        if (!name || map_put(&m, name, eq + 1) != 0) {
            free(name);
            rc = fail("too many sessions, or out of memory");
            goto out;
        }
        free(name);
    }
    if (m.n == 0) {
        rc = fail("compare needs tracking sessions: -m NAME=FILE (repeated), or --cconfig FILE "
                  "with a file_path_map");
        goto out;
    }
    size_t total = 0;
    for (int i = 0; i < m.n; i++) {
        size_t len = 0;
        if (input_file_read(m.files[i], MAX_DOCUMENT, "results file", &docs[i], &len) != GT_OK) {
            rc = fail_lib();
            goto out;
        }
        /* Every session is held parsed at once: the total is bounded,
         * said as soon as it is passed (the files after are not read). */
        total += len;
        if (total > GT_SUBTRACK_COMPARE_MAX_BYTES) {
            cli_error("sub-track: results file '%s' (session '%s') takes the sessions' results "
                      "past %zu MiB in all: compare holds every session parsed at once (about "
                      "18 bytes of memory a byte), so it reads at most that much\n", m.files[i],
                      m.names[i], GT_SUBTRACK_COMPARE_MAX_BYTES >> 20);
            rc = 2;
            goto out;
        }
        if (looks_pickled(docs[i], len)) {
            cli_error("sub-track: results file '%s' (session '%s') is a "
                      "pickle: this command reads the JSON of sub-track analyze -f json; the "
                      "Python package's gpu-tracker compares pickles (docs/sub-tracking.md)\n",
                      m.files[i], m.names[i]);
            rc = 2;
            goto out;
        }
    }
    char *out = NULL, *warnings = NULL;
    const char *statistic = o->stat ? o->stat : stat ? stat : "mean";
    if (gt_subtrack_compare((const char *const *)m.names, (const char *const *)docs,
                            (size_t)m.n, statistic, json ? GT_FORMAT_JSON : GT_FORMAT_TEXT, &out,
                            &warnings) != GT_OK) {
        rc = fail_lib();
        goto out;
    }
    /* Each line: "Code block name ... but they differ by line number. ...". */
    say_warnings(warnings);
    rc = emit(out, o->output);
    free(out);
out:
    for (int i = 0; i < m.n; i++)
        free(docs[i]);
    map_free(&m);
    free(stat);
    return rc;
}

int subtrack_command(int argc, char **argv)
{
    static const char *const actions[] = {"combine", "analyze", "compare", NULL};
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(subtrack_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *action = argv[1];
    struct sub_options o;
    if (!strcmp(action, "combine")) {
        static const char *const allowed[] = {"--stf", "-p", NULL};
        int p = parse(argc, argv, action, allowed, &o);
        return p < 0 ? 2 : p > 0 ? 0 : combine(&o);
    }
    if (!strcmp(action, "analyze")) {
        static const char *const allowed[] = {"--tf", "--stf", "-o", "--output", "-f",
                                              "--format", NULL};
        int p = parse(argc, argv, action, allowed, &o);
        return p < 0 ? 2 : p > 0 ? 0 : analyze(&o);
    }
    if (!strcmp(action, "compare")) {
        static const char *const allowed[] = {"-m", "--cconfig", "--stat", "-o", "--output",
                                              "-f", "--format", NULL};
        int p = parse(argc, argv, action, allowed, &o);
        return p < 0 ? 2 : p > 0 ? 0 : compare(&o);
    }
    const char *near = suggest_nearest(action, actions, 2);
    cli_error("sub-track: unknown action '%s'%s%s%s; valid actions are "
              "combine, analyze and compare\n", action, near ? " (did you mean '" : "",
              near ? near : "", near ? "'?)" : "");
    return 2;
}
