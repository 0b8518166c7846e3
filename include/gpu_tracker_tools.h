/*
 * gpu_tracker_tools.h - the tools' face (src/tools): what they offer the
 * gpu-tracker command, the Python module, the plugin, the tests and the
 * benchmark on top of the tracking library: summary files read and
 * written, snapshots (ours and resource_tracker's) and their statistics,
 * recommendations and the Keeper client, the HTML report, job merge,
 * sub-tracking analysis, limits, and judgements for people. The types of
 * the results they work on are the library's inner face's
 * (gpu_tracker_internal.h), which this header includes.
 *
 * Nothing here carries gpu_tracker.h's promise: it may change in any
 * release, the header is not installed, and no tool is part of
 * libgputracker.so or .a: the tools' objects are linked into each of their
 * users (libgputracker_internal.a, or the Python module's own copy).
 */
#ifndef GPU_TRACKER_TOOLS_H
#define GPU_TRACKER_TOOLS_H

#include "gpu_tracker_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_report_extras gt_report_extras; /* below, with the report */

/* ---- Writers and readers of results ------------------------------------ */

/* Parses a document written by usage_to_json() (common/toolkit.h), or by
 * gpu_tracker's own to_json() (the old "descendents" spelling accepted;
 * sections it lacks marked unknown). Every value is checked: numbers
 * finite, not negative and within range, units among the valid ones,
 * strings valid UTF-8 that fit. On failure returns GT_ERR_PARSE and
 * gt_last_error() names the first missing or malformed key; *usage is then
 * unspecified. */
gt_status gt_usage_from_json(const char *json, gt_resource_usage *usage);

/* Who writes a backup file (options.resource_usage_file), as it records
 * itself beside the summary: which run it is and whether it is still
 * going on. */
typedef struct gt_backup_info {
    int present;             /* 0: the file has no identity (an older
                                writer, or not a backup): the rest is 0 */
    int tracker_pid;         /* the process that writes it (gpu-tracker, or
                                the program that links the library) */
    int pid;                 /* the tracked process */
    char host[256];          /* the machine it runs on */
    char command[1024];      /* what the tracked process runs ("" when not
                                said; cut to fit) */
    double start_time;       /* epoch seconds tracking began */
    double updated;          /* epoch seconds of this write */
    int running;             /* 1: its writer still runs: this machine, and a
                                process with that PID and that start time */
} gt_backup_info;

/* Reads the identity in a backup file (a regular file of at most 16 MiB,
 * as gt_usage_read_file). GT_OK with out->present 0 when the file has
 * none; GT_ERR_IO (cannot read), GT_ERR_PARSE (not JSON, or an identity
 * with a missing or mistyped field), GT_ERR_INVALID_ARGUMENT (NULL) with
 * the reason in gt_last_error(). */
gt_status gt_backup_read_info(const char *path, gt_backup_info *out);

/* Output formats of gt_usage_write_file(). */
typedef enum gt_format { GT_FORMAT_TEXT, GT_FORMAT_JSON } gt_format;

/* Writes the text or JSON of usage, plus a newline, to path atomically: a
 * temporary file in the same directory, fsync, rename. A failure never
 * leaves a partial file, nor touches an existing one. GT_ERR_IO with the
 * reason in gt_last_error(), GT_ERR_NO_MEMORY. */
gt_status gt_usage_write_file(const gt_resource_usage *usage, const char *path,
                         gt_format format);

/* Reads a summary file: one written by gt_usage_write_file(GT_FORMAT_JSON)
 * or gpu-tracker -f json -o, a backup file (resource_usage_file), or
 * gpu_tracker's own to_json() output. Only a regular file of at most 16 MiB
 * is read (a FIFO is never waited on). GT_ERR_IO (cannot be read, not a
 * regular file, too big) or GT_ERR_PARSE (as gt_usage_from_json), with the
 * reason in gt_last_error(). */
gt_status gt_usage_read_file(const char *path, gt_resource_usage *usage);

/* Frees what gt_usage_from_json() or gt_usage_read_file() allocated in
 * *usage (its GPU list) and empties that list; NULL or an empty list:
 * nothing. Only for a struct those two filled (the tracker and snapshots
 * own theirs). */
void gt_usage_release(gt_resource_usage *usage);


/* A STOPPED tracker's results as structs, for a caller that shows them
 * (the command's -f human and warnings, the Python module's caveats): read
 * back from what the library publishes, gt_tracker_to_json() and
 * gt_tracker_figure(), as any program linking libgputracker.so could. The
 * parts the document leaves out (no GPU idle, no process table, no peak
 * holder known) are NULL; job_energy's carbon_intensity and pue are there
 * only with a CO2e figure (co2e_available). */
typedef struct gt_run_results {
    gt_resource_usage usage;      /* the summary, in the options' units */
    gt_totals totals;             /* wall and CPU seconds, block I/O */
    const gt_cgroup_usage *cgroup;
    const gt_cpu_energy *cpu_energy;
    const gt_gpu_run *gpu_run;    /* NULL as well when GPUs were not asked for */
    const gt_peak_breakdown *at_peak; /* [GT_PEAK_MEMORY], [GT_PEAK_GPU_MEMORY] */
    const gt_gpu_idle *gpu_idle;
    const gt_job_energy *job_energy;
    const gt_command_groups *processes;
} gt_run_results;

/* *out = t's results (free with gt_run_results_free). GT_ERR_STATE unless
 * STOPPED (gt_last_error() says why), GT_ERR_NO_MEMORY; GT_ERR_PARSE would
 * mean the library's writer and this reader disagree (tests/test_tools.c
 * holds them together). */
gt_status gt_run_results_read(gt_tracker *t, gt_run_results **out);

/* Frees what gt_run_results_read() gave (NULL: nothing). */
void gt_run_results_free(gt_run_results *r);

/* ---- Sub-tracking analysis (gpu_tracker 5's `sub-track` commands) --------
 * Reads tracking and sub-tracking files (ours or gpu_tracker's, CSV or
 * SQLite) and gives gpu_tracker's results: per code block, the calls, the
 * time they took and the min/max/mean/std of every resource over the
 * timepoints inside them (docs/sub-tracking.md). Files are read a row at a
 * time (memory grows with the marks, and 8 bytes a timepoint); a malformed
 * file is GT_ERR_PARSE naming the file, record and column. */

/* Analyses the tracking file and sub-tracking file (the marks of any
 * number of processes) and gives the results in *out (malloc'd, free()):
 * GT_FORMAT_TEXT in gpu_tracker's text layout, GT_FORMAT_JSON as its
 * SubTrackingResults.to_json(). GT_ERR_IO, GT_ERR_PARSE, GT_ERR_NO_MEMORY
 * with gt_last_error(). A CSV file whose last record has no line end and
 * does not read (its writer stopped in the middle of it: a full disk, a
 * kill) is refused when warnings is NULL; otherwise that record is left
 * out and *warnings (malloc'd lines, or NULL when none) says so. */
gt_status gt_subtrack_analyze(const char *tracking_file, const char *sub_tracking_file,
                              gt_format format, char **out, char **warnings);

/* The calls of each code block of a sub-tracking file, paired as
 * gt_subtrack_analyze pairs them, as JSON in *out (malloc'd): {name:
 * [[start, stop], ...]}, names sorted, each block's calls in process then
 * time order (gpu_tracker's load_timestamp_pairs). Errors as
 * gt_subtrack_analyze. */
gt_status gt_subtrack_calls(const char *sub_tracking_file, char **out);

/* Checks that the tracking or sub-tracking file path is one the analysis
 * reads, reading none of its rows: a regular file named .csv or .sqlite,
 * and for SQLite a schema of the plain tables "data" and "static_data"
 * only, nothing computed (docs/tracking-file.md, "Reading a file someone
 * else wrote"). For a reader of its own (pandas) of another user's file,
 * which may check and then read one descriptor: path "/proc/self/fd/N",
 * name the file's name, which gives the format and is used in messages
 * (NULL: path). GT_OK; GT_ERR_INVALID_ARGUMENT (the name), GT_ERR_IO,
 * GT_ERR_PARSE with the reason. */
gt_status gt_subtrack_check_file(const char *path, const char *name);

/* Writes the marks of the n sub-tracking files inputs, in order, into the
 * new file output (every name of one format: .csv or .sqlite). Every input
 * is checked before output is made; output must not exist. GT_ERR_IO (an
 * input unreadable, output exists or cannot be written), GT_ERR_PARSE (an
 * input is not a sub-tracking file), GT_ERR_INVALID_ARGUMENT (names of
 * mixed or unknown formats, n == 0). */
gt_status gt_subtrack_combine(const char *output, const char *const *inputs, size_t n);

/* The most results text gt_subtrack_compare() takes in all, every
 * session together: each session is held parsed at once, about 18 bytes of
 * memory a byte of results (a 63 MB results file took 1.15 GB more), so
 * this bounds a comparison near 1.2 GB. */
#define GT_SUBTRACK_COMPARE_MAX_BYTES ((size_t)64 << 20)

/* Compares the n analyses results[i] (JSON as gt_subtrack_analyze writes
 * it, or gpu_tracker's to_json()) of tracking sessions named names[i], by
 * statistic ("min", "max", "mean" or "std"), as gpu_tracker's
 * TrackingComparison: code blocks matched by name (names that differ only
 * in a trailing ":<line>" match in order). *out (malloc'd) as text or JSON.
 * *warnings (may be NULL): malloc'd lines saying which blocks matched only
 * by order, or NULL when none. GT_ERR_INVALID_ARGUMENT (the statistic, a
 * name given twice, n == 0, more than GT_SUBTRACK_COMPARE_MAX_BYTES of
 * results in all), GT_ERR_PARSE (a document, or blocks that do not match),
 * with gt_last_error() naming the session. */
gt_status gt_subtrack_compare(const char *const *names, const char *const *results,
                         size_t n, const char *statistic, gt_format format,
                         char **out, char **warnings);

/* ---- Time series: the rows as CSV (gt_series_to_csv, gpu_tracker_internal.h) */

/* Writes gt_series_to_csv() to path atomically (as gt_usage_write_file).
 * GT_ERR_IO with the reason in gt_last_error(), GT_ERR_NO_MEMORY. */
gt_status gt_series_write_csv(const gt_series *series, gt_series_kind kind,
                         const char *path);

/* ---- Snapshots, statistics, recommendations, reports --------------------
 * resource_tracker's ResourceTracker: a run saved as gzipped JSON (the
 * summary, both series, what ran where), statistics of the series,
 * resource recommendations, and a self-contained HTML report. docs/snapshot.md
 * describes the file and every rule. */

/* The most rows per series gt_snapshot_read() reads (12 days at the default
 * 1 s interval); gt_snapshot_read() takes another bound. What a read may
 * cost follows from it: docs/snapshot.md, "Limits". */
#define GT_SNAPSHOT_MAX_ROWS 1000000

/* The most tasks a merged snapshot may hold: with the per-series row limit,
 * what bounds the memory reading one takes (docs/snapshot.md, "Limits"). */
#define GT_MERGE_MAX_TASKS 4096

/* The file formats a snapshot can be written in. gt_snapshot_read() reads
 * all three, telling them apart by their content. */
typedef enum gt_snapshot_format {
    GT_SNAPSHOT_GPU_TRACKER = 0,      /* ours (docs/snapshot.md): summary,
                                         series by column, command, exit status */
    GT_SNAPSHOT_RESOURCE_TRACKER = 1, /* resource_tracker's ResourceTracker.dump()
                                         in its 0.4 shape (memory in kB), whose
                                         columns our series have */
    GT_SNAPSHOT_RESOURCE_TRACKER_05 = 2 /* the same in its 0.5 shape (memory_mib,
                                         gpu_vram_mib, decimal GB) */
} gt_snapshot_format;

/* A snapshot of a STOPPED (or STARTED: the run so far) tracker in memory:
 * its summary, its series (options.series should have asked for both),
 * the server it ran on and, with discover_cloud, the cloud (waiting for
 * that discovery to end, at most a few seconds). command and exit_status
 * describe the run (NULL, -1: not known). Free with gt_snapshot_free().
 * GT_ERR_STATE when NEW, or before a delayed start (options.start_at) has
 * begun. Every row is copied into memory: gt_tracker_write_snapshot()
 * streams them instead. */
gt_status gt_tracker_snapshot(gt_tracker *t, const char *command, int exit_status,
                              gt_snapshot **out);

/* The rows of kind t has kept from row first on (while STARTED: so far;
 * none when first is past them), copied into *rows (malloc'd, free();
 * gt_process_row or gt_system_row by kind, *n of them; NULL when none):
 * for a caller that reads the series as they grow. GT_ERR_STATE when NEW,
 * GT_ERR_INVALID_ARGUMENT (kind), GT_ERR_NO_MEMORY, GT_ERR_IO (the row file
 * could not be read back). */
gt_status gt_tracker_rows_since(gt_tracker *t, gt_series_kind kind, size_t first, void **rows,
                                size_t *n);

/* A snapshot of a STOPPED tracker written straight to path (as
 * gt_snapshot_write of gt_tracker_snapshot), its rows streamed from where
 * the tracker keeps them: the memory this takes does not grow with the
 * run, however long (gt_tracker_snapshot copies every row into memory).
 * GT_ERR_STATE unless STOPPED, GT_ERR_IO with the reason. */
gt_status gt_tracker_write_snapshot(gt_tracker *t, const char *command, int exit_status,
                               const char *path);

/* gt_tracker_write_snapshot() in the given format. */
gt_status gt_tracker_write_snapshot_as(gt_tracker *t, const char *command,
                                  int exit_status, gt_snapshot_format format,
                                  const char *path);

/* The HTML report of a STOPPED tracker written straight to path, as
 * gt_snapshot_write_report of its snapshot, in memory that does not grow
 * with the run. server_json and extras as for gt_snapshot_report_html. */
gt_status gt_tracker_write_report(gt_tracker *t, const char *command, int exit_status,
                                  const char *server_json, const gt_report_extras *extras,
                                  const char *path);

/* Writes s as gzipped JSON to path, atomically. GT_ERR_IO with the reason. */
gt_status gt_snapshot_write(const gt_snapshot *s, const char *path);

/* The JSON text of s (not compressed). Caller frees; NULL when out of memory. */
char *gt_snapshot_to_json(const gt_snapshot *s);

/* Reads a file written by gt_snapshot_write() (gzipped or plain JSON), at
 * most max_rows rows per series (0: GT_SNAPSHOT_MAX_ROWS). What reading may cost is
 * bounded before anything is parsed (docs/snapshot.md, "Limits"): the
 * file's and the gunzipped text's size follow from the rows allowed, every
 * array is counted before it is parsed, nesting is at most 16 deep, unknown
 * keys are skipped unparsed. Every value is checked (finite numbers within
 * the column's range, integers without truncation, strings that fit).
 * GT_ERR_IO (cannot read, not a regular file, too big), GT_ERR_PARSE with
 * the first problem in gt_last_error(): not gzip, truncated, data after the
 * gzip stream, not JSON, another format version, a missing, mistyped or out
 * of range value, series columns of different lengths, too many rows. */
gt_status gt_snapshot_read(const char *path, size_t max_rows, gt_snapshot **out);

/* One command's reading of many snapshots (job, merge, stats, recommend,
 * report) under one allowance for them all: max_rows
 * rows per series in all (each file's largest series, a merged file's
 * tasks added), and the file and gunzipped bytes that many rows allow
 * (docs/snapshot.md, "Limits"), so that what root reads in a directory a
 * user filled costs what one allowance does however many files there are;
 * and a second name of a file already read (the same device and inode: a
 * hard link) is refused before it is read. With distinct_tasks set (job,
 * merge: a job's tasks), a file of a task read already is refused from its
 * metadata, before its rows are parsed. Init, a read per file, done. */
typedef struct gt_snapshot_load {
    size_t max_rows;
    int distinct_tasks;
    size_t rows_left;
    unsigned long long bytes_left, text_left;
    struct gt_snapshot_seen {
        dev_t dev;
        ino_t ino;
        char *name;
        gt_job_info job; /* its task */
    } *seen;
    size_t nseen;
} gt_snapshot_load;
void gt_snapshot_load_init(gt_snapshot_load *l, size_t max_rows);
gt_status gt_snapshot_load_read(gt_snapshot_load *l, const char *path,
                                gt_snapshot **out);
void gt_snapshot_load_done(gt_snapshot_load *l);

/* gt_snapshot_read() of len bytes in memory (gzip or plain JSON, any
 * of the formats); name stands for the document in messages. */
gt_status gt_snapshot_from_memory(const void *data, size_t len, const char *name,
                             size_t max_rows, gt_snapshot **out);

/* gt_snapshot_write() / gt_snapshot_to_json() in the given format. */
gt_status gt_snapshot_write_as(const gt_snapshot *s, gt_snapshot_format format,
                          const char *path);
char *gt_snapshot_to_json_as(const gt_snapshot *s, gt_snapshot_format format);


/* Joins the snapshots of one job's tasks (each written by gpu-tracker under
 * Slurm: metadata.job set; a merged snapshot counts as all of its tasks)
 * into one merged snapshot, ordered by array task, step and rank. names[i]
 * names runs[i] in messages. On success the runs are taken (runs[i] set to
 * NULL) and *out is the job; otherwise they are left as they were and
 * GT_ERR_INVALID_ARGUMENT says which file is odd: not from a Slurm job,
 * from another job than the first file's, the same task as another file,
 * more than GT_MERGE_MAX_TASKS tasks. */
gt_status gt_snapshot_merge(gt_snapshot **runs, size_t n, const char *const *names,
                       gt_snapshot **out);

/* resource_tracker's default stats() of a run: its rows of both series,
 * paired by position and cut to the shorter series; means exact (as
 * Python's statistics.mean gives them) and maxima, each then rounded to 2
 * decimals as Python's round() does; sums exact; the duration last - first
 * row + one interval, not rounded. */
typedef struct gt_stats {
    long samples;                        /* row pairs used */
    double cpu_usage_mean, cpu_usage_max;       /* cores (process) */
    double memory_mean, memory_max;             /* kB PSS (process) */
    double gpu_usage_mean, gpu_usage_max;       /* GPUs (process) */
    double gpu_vram_mean, gpu_vram_max;         /* MiB (process) */
    double gpu_utilized_mean, gpu_utilized_max; /* GPUs (process) */
    double disk_space_used_max_gb;              /* GiB (system) */
    double net_recv_bytes_sum, net_sent_bytes_sum; /* bytes (system) */
    double duration;                     /* seconds */
    /* The mean of an integer column (memory, GPUs in use) was a whole
     * number before rounding: Python's statistics.mean() gives an int
     * there, and resource_tracker's stats() holds one. 0 once combined. */
    int memory_mean_whole, gpu_utilized_mean_whole;
} gt_stats;

/* GT_ERR_INVALID_ARGUMENT when s has no row of one series or the other
 * (nothing to say). */
gt_status gt_snapshot_stats(const gt_snapshot *s, gt_stats *out);

/* The same of a tracker's rows so far (while STARTED) or of its run,
 * without copying them (the Python module's ResourceTracker.stats()).
 * GT_ERR_STATE while NEW. */
gt_status gt_tracker_stats(gt_tracker *t, gt_stats *out);

/* Several runs as one (history), as resource_tracker's aggregate_stats():
 * means and durations averaged (nothing rounded: the recommendation rounds
 * once, at the end), maxima and sums the largest of the runs', samples
 * added. n >= 1. */
gt_status gt_stats_combine(const gt_stats *runs, size_t n, gt_stats *out);

/* The same rule on resource_tracker's stats() dictionaries of any columns
 * ({column: {aggregation: value}}, JSON text each; the Python module's
 * aggregate_stats): a max or a sum is the largest value as given (an int
 * stays one), a mean or a duration the average as a float, each column's
 * largest first, then mean, then duration. *out (caller frees) the result
 * as JSON text; n 0: an empty object. GT_ERR_INVALID_ARGUMENT "Unsupported
 * aggregation type: min" for another aggregation, or naming a value that
 * is not a number; GT_ERR_PARSE for a run that is not JSON. */
gt_status gt_stats_combine_json(const char *const *runs, size_t n, char **out);

/* resource_tracker's stats() dictionary of s as JSON text
 * ({"process_cpu_usage": {"mean": .., "max": ..}, ..., "timestamp":
 * {"duration": ..}}), numbers as Python prints floats, laid out as
 * usage_to_json's. Caller frees; NULL when out of memory. */
char *gt_stats_to_json(const gt_stats *s);

/* What to ask for next time (resource_tracker's recommend_resources). */
typedef struct gt_recommendation {
    int cpu;        /* vCPUs: mean CPU usage rounded half to even, at least 1 */
    int memory_mib; /* max memory + 20 %, rounded up by gt_round_memory_mib */
    int gpu;        /* max GPU usage rounded, at least 1, if any GPU was used */
    int vram_mib;   /* max GPU memory + 20 %, rounded up likewise; 0 if none */
} gt_recommendation;

gt_status gt_recommend(const gt_stats *stats, gt_recommendation *out);

/* ---- A job of many tasks (a merged snapshot) ---------------------------- */

/* One task of a job, as gt_job_summarize() sees it. */
typedef struct gt_task_summary {
    gt_job_info job;          /* its ids: rank, step, array task, node */
    char host[256];
    int pid;
    double start_time, stop_time; /* epoch seconds */
    int exit_status;          /* -1: not known */
    int has_rows;             /* 0: a run without rows (stats all 0) */
    gt_stats stats;           /* gt_snapshot_stats() of the task */
    double peak_rss_mib;      /* the summary's combined peak RSS */
    gt_recommendation rec;    /* gt_recommend() of the task; memory_mib from
                                 the larger of its PSS and RSS peaks */
    int late;                 /* ended more than the straggler margin after
                                 the median task */
    int idle;                 /* mean CPU below half the median task's */
} gt_task_summary;

/* A job: its tasks side by side, how evenly they worked, and what to ask
 * Slurm for next time. Made by gt_job_summarize(), freed by
 * gt_job_summary_free(). */
typedef struct gt_job_summary {
    gt_job_info job;          /* the first task's ids, rank left empty */
    size_t ntasks;
    gt_task_summary *tasks;   /* in the snapshot's order */
    int nnodes;               /* distinct nodes (or hosts) */
    int max_tasks_per_node;
    double start_time, stop_time; /* the first start, the last stop */
    double late_margin;       /* seconds: max(10% of the job's span, 2 intervals) */
    /* The tasks together: means over the job's span of the tasks' sum
     * (each task's mean weighted by its duration; a task not running adds
     * 0), maxima summed (a bound: tasks may peak at different times),
     * samples summed, duration the job's. */
    gt_stats total;
    /* max / mean over the tasks of mean CPU, peak memory and mean GPU use;
     * 0 when the mean is 0. 1.0 is perfectly even. */
    double imbalance_cpu, imbalance_memory, imbalance_gpu;
    size_t nlate, nidle;
    /* The request to make next time: --cpus-per-task and --gpus-per-task
     * (the largest task's), --mem-per-cpu (the largest task's memory over
     * its CPUs), --mem (the node whose tasks need most, together). */
    int cpus_per_task, gpus_per_task, mem_per_cpu_mib, mem_per_node_mib;
} gt_job_summary;

/* The job view of a snapshot: one task for a single run, every task for a
 * merged one. GT_ERR_NO_MEMORY. */
gt_status gt_job_summarize(const gt_snapshot *s, gt_job_summary **out);
void gt_job_summary_free(gt_job_summary *j);

/* Task i of j (i < j->ntasks), or NULL. The way to reach a task that stays
 * right when a later library's gt_task_summary is larger than the
 * program's (j->tasks[i] indexes by the program's size). */
const gt_task_summary *gt_job_summary_task(const gt_job_summary *j, size_t i);

/* The summary as JSON: {"job": {...}, "tasks": [...], "total": stats,
 * "imbalance": {...}, "stragglers": {...}, "slurm": {...}}. Caller frees;
 * NULL when out of memory. */
char *gt_job_summary_to_json(const gt_job_summary *j);

/* The recommendation as JSON text: {"cpu": N, "memory": MiB, "gpu": N,
 * "vram": MiB}, or, with server_json (a gt_recommend_server() answer),
 * {"resources": {...}, "server": {...}}. Caller frees; NULL when out of
 * memory, or GT_ERR_PARSE (gt_last_error) when server_json is not a JSON
 * object. */
char *gt_recommendation_to_json(const gt_recommendation *r, const char *server_json);

/* MiB rounded up to 128, 256, 512, 1024 or 2048, or else to whole GiB
 * (at most 2147482624; a recommendation saturates rather than overflow). */
int gt_round_memory_mib(double mib);

/* The cheapest cloud server with at least the recommended resources, from
 * the Spare Cores Keeper API at base_url (NULL: GT_KEEPER_URL), as that
 * API's JSON object. Caller frees. GT_ERR_IO when the API cannot be
 * reached or answers an error (the reason in gt_last_error()),
 * GT_ERR_PARSE when its answer is not what we expect. The gpu-tracker
 * command takes base_url from GPU_TRACKER_KEEPER_URL; the library reads no
 * environment variable. */
#define GT_KEEPER_URL "https://keeper.sparecores.net"
gt_status gt_recommend_server_at(const gt_recommendation *r, const char *base_url,
                            char **json_out);

/* The on-demand Linux price per hour (USD) of a cloud instance type, from
 * the Keeper API's /server/VENDOR/TYPE/prices at base_url (NULL:
 * GT_KEEPER_URL): the price in region, or else that of another region
 * (resource_tracker's rule); 0 when it lists none. GT_ERR_INVALID_ARGUMENT
 * (a vendor or type of other characters than letters, digits, . _ -),
 * GT_ERR_IO (cannot be reached, an HTTP error), GT_ERR_PARSE. */
gt_status gt_instance_price_at(const char *vendor, const char *region,
                          const char *instance_type, const char *base_url,
                          double *price_per_hour);

/* gt_recommend_server_at(r, NULL, json_out). */
gt_status gt_recommend_server(const gt_recommendation *r, char **json_out);

/* A self-contained HTML report of a run (no external file, font or
 * script; one inline script reads values on hover): what ran, when, where
 * and how it ended, summary cards, charts (inline SVG) of CPU, memory,
 * GPU, disk and network over time, the
 * statistics, the recommendation and the server. server_json is a
 * gt_recommend_server() answer, {"unavailable": "why"} (the section then
 * says there is no recommendation and why) or NULL (no section); extras
 * what it shows beside the run (NULL: nothing). Caller frees; NULL when out
 * of memory, or when the sub-tracking file of extras cannot be read
 * (GT_ERR_IO, GT_ERR_PARSE in gt_last_error()). */
char *gt_snapshot_report_html(const gt_snapshot *s, const char *server_json,
                              const gt_report_extras *extras);

/* gt_snapshot_report_html() written to path atomically. GT_ERR_IO with the
 * reason, GT_ERR_NO_MEMORY. */
gt_status gt_snapshot_write_report(const gt_snapshot *s, const char *server_json,
                                   const gt_report_extras *extras, const char *path);

/* What a report can show beside the run itself: 0 for what it has not. */
struct gt_report_extras {
    /* Earlier runs of the same job (resource_tracker's historical stats):
     * gt_stats_combine() of their gt_snapshot_stats(), and how many; shown
     * beside each statistic. 0 runs: none. */
    size_t history_runs;
    gt_stats history;
    /* The on-demand price per hour (USD) of the instance the run was on
     * (gt_instance_price_at() of its cloud info); with a server_json it
     * gives this run's cost beside the recommended server's. 0: not known. */
    double current_price_per_hour;
    /* A sub-tracking file of the run (gt_subtracker_open, gpu_tracker's
     * SubTracker): its code blocks as a table (calls, time, and what the
     * rows inside them used) and, the longest eight, shaded on the charts.
     * NULL: none. An unreadable or malformed file fails the report with
     * the reason (GT_ERR_IO, GT_ERR_PARSE). */
    const char *sub_tracking_file;
};

/* ---- Limits (src/tools/limits; docs/limits.md) ----------------------------
 * A watch over a tracker: after every sample (options.on_sample) and at
 * the moments between samples that matter (max_time, kill_after), it
 * compares the run's figures with the limits given, warns of a breach
 * once (options.on_warning) and, with on_limit GT_ON_LIMIT_KILL, ends the
 * tree as timeout(1) does, through gt_tracker_signal(). */

/* What a breached limit does. */
typedef enum gt_on_limit { GT_ON_LIMIT_WARN = 0, GT_ON_LIMIT_KILL = 1 } gt_on_limit;

/* The figures a limit may be put on (gt_limits.figure). */
typedef enum gt_limit_figure {
    GT_LIMIT_RAM,
    GT_LIMIT_GPU_RAM,
    GT_LIMIT_TIME,
    GT_LIMIT_CPU_TIME,
    GT_LIMIT_COUNT
} gt_limit_figure;

/* The limits of a run; 0: none. Each is compared after every sample with
 * the figure the summary reports, so that a peak between two samples that
 * the kernel's high-water marks kept (VmHWM, a reaped child's maxrss) still
 * trips it at the next sample:
 *   max_ram       bytes: the tree's peak RSS (GT_FIGURE_PEAK_RSS_BYTES)
 *   max_gpu_ram   bytes: the tree's peak GPU memory (GT_FIGURE_PEAK_GPU_RAM_BYTES)
 *   max_time      seconds since the baseline sample (wall time)
 *   max_cpu_time  CPU seconds of the tree (user + system)
 * on_limit GT_ON_LIMIT_WARN (default): run on and report the breach;
 * GT_ON_LIMIT_KILL: also SIGTERM to every process of the tree at the
 * breach, SIGKILL to what is left kill_after seconds later (default 5;
 * more than 0, at most GT_STOP_TIMEOUT_MAX). */
typedef struct gt_limit_options {
    double max_ram, max_gpu_ram, max_time, max_cpu_time;
    int on_limit;
    double kill_after;
} gt_limit_options;

/* No limits, warn, kill_after 5 s. */
void gt_limit_options_init(gt_limit_options *lo);

/* GT_OK, or GT_ERR_INVALID_ARGUMENT with gt_last_error() naming the bad
 * value and the valid ones. */
gt_status gt_limit_options_validate(const gt_limit_options *lo);

/* One limit of the run: bytes or seconds. */
typedef struct gt_limit {
    int set;          /* a limit was given */
    int breached;     /* the figure passed it */
    double limit;
    double peak;      /* the figure's highest value so far (the run's, once
                         STOPPED and the reaped processes added) */
    double at;        /* seconds into the run when the breach was first seen
                         (by a sample, or at the stop); -1: not breached */
    int warned;       /* a sample saw it and on_warning was told; 0 for a
                         breach found after the last sample (the stop's
                         reaped processes' high-water marks) */
} gt_limit;

/* The run's limits. */
typedef struct gt_limits {
    int any_set, any_breached;
    int on_limit;     /* the option: GT_ON_LIMIT_WARN or GT_ON_LIMIT_KILL */
    int killed;       /* on_limit GT_ON_LIMIT_KILL ended the tree */
    double killed_at; /* seconds into the run when SIGTERM went; -1: never */
    gt_limit figure[GT_LIMIT_COUNT]; /* by GT_LIMIT_* */
} gt_limits;

typedef struct gt_limit_watch gt_limit_watch;

/* Checks lo (GT_ERR_INVALID_ARGUMENT naming the bad value and the valid
 * ones) and makes a watch that the tracker made from *o will feed: with a limit set, o's
 * on_sample becomes the watch's (which calls the one o had after it) and
 * warnings go to o's on_warning (none when disable_logs). GT_OK and *out. */
gt_status gt_limit_watch_new(const gt_limit_options *lo, gt_options *o,
                             gt_limit_watch **out);

/* Before the tracked program runs: the tracker made from the options
 * given to gt_limit_watch_new(). With on_limit kill, whether it may signal
 * its tree (GT_ERR_INVALID_ARGUMENT when the tree is the tracking
 * program's own or an ancestor's: gt_tracker_signal()); starts the thread that keeps
 * max_time and kill_after to the moment (GT_ERR_SYSTEM when it cannot). */
gt_status gt_limit_watch_attach(gt_limit_watch *w, gt_tracker *t);

/* Fills *out with the limits, what the run reached and what breached them,
 * checked once more against the tracker's figures of the moment (after
 * gt_tracker_stop() and gt_tracker_add_reaped(), the run's).
 * GT_ERR_INVALID_ARGUMENT for a NULL argument. */
gt_status gt_limit_watch_report(gt_limit_watch *w, gt_limits *out);

/* The tracker's summary as gt_tracker_to_json() and gt_tracker_to_text()
 * give it, with the limits in it (JSON: "limits" before "cgroup"; text: a
 * "Limits:" section after gpu_tracker's) when any was set. w NULL: the
 * tracker's alone. NULL as those calls fail. */
char *gt_limit_watch_json(gt_limit_watch *w, gt_tracker *t);
char *gt_limit_watch_text(gt_limit_watch *w, gt_tracker *t);

/* Stops the watch's thread and frees w (NULL: nothing): after
 * gt_tracker_stop() and before gt_tracker_free(). The tracker is not
 * touched. */
void gt_limit_watch_free(gt_limit_watch *w);

/* ---- Judgements for people (src/lib/analysis, src/tools/stats) --------- */

/* One line for a person about figure i's breach in l, as the watch's
 * warning words it ("peak RAM 211 MB passed the limit of 100 MB
 * (--max-ram) 0.2 s into the run"). */
void gt_limits_describe(const gt_limits *l, int i, char *out, size_t cap);

/* Whether the job was starved of CPU (stats/contention.c says how it is
 * judged): its processes runnable and waiting for a CPU a large share of
 * the time (the job's cgroup cpu.pressure, or the run-queue delay of its
 * processes), or its cgroup's quota throttling it. 1 with a sentence for a
 * person in why, 0 (why "") when not, or when the figures cannot say (no
 * run-queue figure: a busy machine alone is no sign). u in any units;
 * cg may be NULL; wall_seconds the run's. */
int gt_cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg,
                      double wall_seconds, char *why, size_t cap);

/* Of a cgroup's memory peak (stats/group_memory.c): the page cache the
 * kernel could have reclaimed (file pages less shared memory, at the sample
 * with the highest usage), and what is left, which a memory request must
 * hold. Bytes; 0 when the group's memory was not measured. */
double gt_cgroup_reclaimable(const gt_cgroup_usage *cg);
double gt_cgroup_working_peak(const gt_cgroup_usage *cg);

/* Where the figures of u are bounds rather than exact (stats/caveats.c;
 * docs/metrics.md, "Corners"): each() gets one sentence for a person per
 * corner the run met (no newline; untrusted text in it escaped), in the
 * order the outputs print them. cg may be NULL (the cgroup's figures are
 * then not offered). Returns how many. */
int gt_measurement_caveats(const gt_resource_usage *u, const gt_cgroup_usage *cg,
                           void (*each)(const char *sentence, void *arg),
                           void *arg);



#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_TOOLS_H */
