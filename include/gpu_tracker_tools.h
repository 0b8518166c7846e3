/*
 * gpu_tracker_tools.h - the tools' face (src/tools): what they offer the
 * command, the Python module, the plugin, the tests and the benchmark on
 * top of the tracking library: results and summary files, snapshots and
 * their statistics, recommendations, the report, job merge, sub-tracking
 * analysis, limits, judgements for people. The results' types are the
 * inner face's (gpu_tracker_internal.h, included). No promise: the header
 * is not installed, and the tools are linked into each user, never into
 * libgputracker.
 */
#ifndef GPU_TRACKER_TOOLS_H
#define GPU_TRACKER_TOOLS_H

#include "gpu_tracker_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_report_extras gt_report_extras; /* below, with the report */

/* ---- Writers and readers of results ------------------------------------ */

/* Parses a summary (usage_to_json's, or gpu_tracker's to_json(): the old
 * "descendents" accepted, sections it lacks marked unknown), every value
 * checked. GT_ERR_PARSE naming the first bad key (*usage unspecified). */
gt_status gt_usage_from_json(const char *json, gt_resource_usage *usage);

/* Who writes a backup file (options.resource_usage_file), as recorded
 * beside the summary, and whether that run still goes on. */
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

/* The identity in a backup file (read as gt_usage_read_file): GT_OK with
 * out->present 0 when it has none; GT_ERR_IO, GT_ERR_PARSE (a missing or
 * mistyped field), GT_ERR_INVALID_ARGUMENT (NULL). */
gt_status gt_backup_read_info(const char *path, gt_backup_info *out);

/* Output formats of the sub-tracking analysis and comparison. */
typedef enum gt_format { GT_FORMAT_TEXT, GT_FORMAT_JSON } gt_format;

/* Reads a summary file (ours, a backup file, gpu_tracker's to_json()): a
 * regular file of at most 16 MiB only. GT_ERR_IO, GT_ERR_PARSE (as
 * gt_usage_from_json). */
gt_status gt_usage_read_file(const char *path, gt_resource_usage *usage);

/* Frees the GPU list gt_usage_from_json() or _read_file() allocated (NULL: nothing). */
void gt_usage_release(gt_resource_usage *usage);

/* A STOPPED tracker's results as structs (for -f human, the warnings, the
 * Python module's caveats), read back from what the library publishes:
 * gt_tracker_to_json() and gt_tracker_figure(). Parts the document leaves
 * out are NULL; job_energy's carbon_intensity and pue come only with CO2e. */
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

/* *out = t's results. GT_ERR_STATE unless STOPPED, GT_ERR_NO_MEMORY;
 * GT_ERR_PARSE would mean writer and reader disagree (tests/results_check.h
 * holds them together). */
gt_status gt_run_results_read(gt_tracker *t, gt_run_results **out);

/* Frees what gt_run_results_read() gave (NULL: nothing). */
void gt_run_results_free(gt_run_results *r);

/* ---- resource_tracker's views of a live run and of the system now -------
 * What the Python package builds rt's server_info, cloud_info,
 * get_process_stats() and get_system_stats() from. */

/* The machine t runs on, as described at the start, its allocation judged
 * from the rows so far; its GPU names are t's until the next call on it.
 * GT_ERR_STATE when NEW. */
gt_status gt_rt_server_info(gt_tracker *t, gt_server_info *out);

/* The cloud instance (options.discover_cloud), its discovery waited for
 * up to max_wait seconds: 1 with *out filled once it has ended, 0 while it
 * goes on, when it was not asked for, or when t is NEW. */
int gt_rt_cloud_info(gt_tracker *t, double max_wait, gt_cloud_info *out);

/* One reading, now, of process pid (its descendants too when children)
 * and of the system, into *out (free with gt_rt_counters_free).
 * GT_ERR_INVALID_ARGUMENT for a pid below 1, GT_ERR_NO_PROCESS when there
 * is no such process, with gt_last_error(). */
gt_status gt_rt_counters_read(int pid, int children, gt_counters **out);
void gt_rt_counters_free(gt_counters *c);

/* One process's own figures, now, as the library's parsers read them
 * (resource_tracker 0.5.0's tracker_procfs helpers are made of it). */
typedef struct gt_rt_process {
    long long rss_kb;   /* VmRSS of /proc/PID/status (0 for a zombie) */
    long long pss_kb;   /* Pss of smaps_rollup; -1 where it cannot be read */
    unsigned long long utime, stime;   /* clock ticks, its own */
    unsigned long long cutime, cstime; /* of the children it waited for */
    long long read_bytes, write_bytes; /* /proc/PID/io; -1 where it cannot be read */
    int *descendants;   /* every live descendant (children of all its threads, recursively) */
    size_t ndescendants;
} gt_rt_process;

/* Fills *out (release with gt_rt_process_release). GT_ERR_INVALID_ARGUMENT
 * for a pid below 1, GT_ERR_NO_PROCESS when there is none, GT_ERR_IO when
 * its stat cannot be read, GT_ERR_NO_MEMORY. */
gt_status gt_rt_process_read(int pid, gt_rt_process *out);
void gt_rt_process_release(gt_rt_process *p);

/* ---- Sub-tracking analysis (gpu_tracker 5's `sub-track` commands) --------
 * Tracking and sub-tracking files (ours or gpu_tracker's, CSV or SQLite)
 * into gpu_tracker's results per code block (docs/sub-tracking.md), a row
 * at a time; a malformed file is GT_ERR_PARSE naming file, record, column. */

/* The results in *out (malloc'd), as gpu_tracker's text or its
 * SubTrackingResults.to_json(). A CSV file cut in its last record (a full
 * disk, a kill) is refused when warnings is NULL, else that record is left
 * out and *warnings (malloc'd, NULL when none) says so. */
gt_status gt_subtrack_analyze(const char *tracking_file, const char *sub_tracking_file,
                              gt_format format, char **out, char **warnings);

/* Each block's calls as JSON in *out (malloc'd): {name: [[start, stop],
 * ...]}, names sorted, calls in process then time order (gpu_tracker's
 * load_timestamp_pairs). */
gt_status gt_subtrack_calls(const char *sub_tracking_file, char **out);

/* Checks, reading no row, that path is a file the analysis reads: a
 * regular .csv or .sqlite, SQLite with the plain tables "data" and
 * "static_data" only (docs/tracking-file.md). path may be "/proc/self/fd/N"
 * with name the file's name (NULL: path), for a reader of its own. */
gt_status gt_subtrack_check_file(const char *path, const char *name);

/* The marks of the n inputs, in order, into the new file output (all of
 * one format), every input checked first. GT_ERR_IO, GT_ERR_PARSE,
 * GT_ERR_INVALID_ARGUMENT (mixed or unknown formats, n == 0). */
gt_status gt_subtrack_combine(const char *output, const char *const *inputs, size_t n);

/* The most results text gt_subtrack_compare() takes in all: held parsed,
 * about 18 bytes a byte, this bounds a comparison near 1.2 GB. */
#define GT_SUBTRACK_COMPARE_MAX_BYTES ((size_t)64 << 20)

/* gpu_tracker's TrackingComparison of the n analyses results[i] (JSON) of
 * sessions names[i] by statistic (min, max, mean, std): blocks matched by
 * name (a trailing ":<line>" aside, in order), *out text or JSON; *warnings
 * (may be NULL) the blocks matched only by order. GT_ERR_INVALID_ARGUMENT,
 * GT_ERR_PARSE naming the session. */
gt_status gt_subtrack_compare(const char *const *names, const char *const *results,
                         size_t n, const char *statistic, gt_format format,
                         char **out, char **warnings);


/* ---- Snapshots, statistics, recommendations, reports --------------------
 * A run saved as gzipped JSON (summary, both series, what ran where), its
 * statistics, recommendations and the HTML report (docs/snapshot.md). */

/* The most rows per series a read takes by default (12 days at 1 s): what
 * a read may cost follows from it (docs/snapshot.md, "Limits"). */
#define GT_SNAPSHOT_MAX_ROWS 1000000

/* The most tasks a merged snapshot may hold. */
#define GT_MERGE_MAX_TASKS 4096

/* A snapshot's formats; gt_snapshot_read() reads all three. */
typedef enum gt_snapshot_format {
    GT_SNAPSHOT_GPU_TRACKER = 0,      /* ours (docs/snapshot.md): summary,
                                         series by column, command, exit status */
    GT_SNAPSHOT_RESOURCE_TRACKER = 1, /* resource_tracker's ResourceTracker.dump()
                                         in its 0.4 shape (memory in kB), whose
                                         columns our series have */
    GT_SNAPSHOT_RESOURCE_TRACKER_05 = 2 /* the same in its 0.5 shape (memory_mib,
                                         gpu_vram_mib, decimal GB) */
} gt_snapshot_format;

/* A snapshot of a STOPPED tracker (STARTED: the run so far) in memory,
 * every row copied (gt_tracker_write_snapshot streams them), the cloud
 * discovery waited for a few seconds at most. command and exit_status may
 * be NULL, -1. GT_ERR_STATE when NEW or before a delayed start. */
gt_status gt_tracker_snapshot(gt_tracker *t, const char *command, int exit_status,
                              gt_snapshot **out);

/* The rows of kind t has kept from row first on, so far, copied into *rows
 * (malloc'd gt_process_row or gt_system_row, *n of them; NULL when none).
 * GT_ERR_STATE when NEW, GT_ERR_INVALID_ARGUMENT (kind), GT_ERR_NO_MEMORY,
 * GT_ERR_IO. */
gt_status gt_tracker_rows_since(gt_tracker *t, gt_series_kind kind, size_t first, void **rows,
                                size_t *n);

/* gt_snapshot_write of gt_tracker_snapshot, the rows streamed: memory that
 * does not grow with the run. GT_ERR_STATE unless STOPPED, GT_ERR_IO. */
gt_status gt_tracker_write_snapshot(gt_tracker *t, const char *command, int exit_status,
                                    gt_snapshot_format format, const char *path);

/* gt_snapshot_write_report of a STOPPED tracker's snapshot, streamed too. */
gt_status gt_tracker_write_report(gt_tracker *t, const char *command, int exit_status,
                                  const char *server_json, const gt_report_extras *extras,
                                  const char *path);

/* s in format as gzipped JSON, written to path atomically. GT_ERR_IO. */
gt_status gt_snapshot_write(const gt_snapshot *s, gt_snapshot_format format, const char *path);

/* s in format as JSON text (caller frees; NULL: no memory, no format). */
char *gt_snapshot_to_json(const gt_snapshot *s, gt_snapshot_format format);

/* Reads a snapshot (gzipped or plain JSON), at most max_rows rows per
 * series (0: GT_SNAPSHOT_MAX_ROWS), its cost bounded before anything is
 * parsed and every value checked (docs/snapshot.md, "Limits"). GT_ERR_IO
 * (unreadable, not a regular file, too big), GT_ERR_PARSE naming the first
 * problem. */
gt_status gt_snapshot_read(const char *path, size_t max_rows, gt_snapshot **out);

/* Many snapshots read under one allowance for them all (max_rows rows and
 * the bytes they allow, docs/snapshot.md "Limits"), however many files a
 * directory holds; a second name of a file read is refused unread, and
 * with distinct_tasks a task read already, from its metadata. */
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

/* gt_snapshot_read() of len bytes in memory; name for messages. */
gt_status gt_snapshot_from_memory(const void *data, size_t len, const char *name,
                             size_t max_rows, gt_snapshot **out);

/* One Slurm job's task snapshots merged, by array task, step and rank; the
 * runs are taken (set to NULL) on success. GT_ERR_INVALID_ARGUMENT naming
 * (names[i]) a file of no job, another job or a task seen twice, or more
 * than GT_MERGE_MAX_TASKS tasks. */
gt_status gt_snapshot_merge(gt_snapshot **runs, size_t n, const char *const *names,
                       gt_snapshot **out);

/* resource_tracker's default stats(): rows paired by position, means exact
 * and maxima rounded to 2 decimals as Python rounds, sums exact, the
 * duration last - first + one interval. */
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
    /* an integer column's mean was whole (Python gives an int); 0 once
     * combined */
    int memory_mean_whole, gpu_utilized_mean_whole;
} gt_stats;

/* GT_ERR_INVALID_ARGUMENT when a series has no row. */
gt_status gt_snapshot_stats(const gt_snapshot *s, gt_stats *out);

/* The same of a tracker's rows so far, not copied. GT_ERR_STATE when NEW. */
gt_status gt_tracker_stats(gt_tracker *t, gt_stats *out);

/* Runs as one (resource_tracker's aggregate_stats): means and durations
 * averaged, unrounded; maxima and sums the largest; samples added. n >= 1. */
gt_status gt_stats_combine(const gt_stats *runs, size_t n, gt_stats *out);

/* The same rule on stats() dictionaries as JSON ({column: {aggregation:
 * value}}), into *out (JSON; n 0: {}). GT_ERR_INVALID_ARGUMENT
 * ("Unsupported aggregation type: min", a value not a number),
 * GT_ERR_PARSE. */
gt_status gt_stats_combine_json(const char *const *runs, size_t n, char **out);

/* resource_tracker's stats() dictionary of s as JSON text, floats as
 * Python prints them. Caller frees; NULL when out of memory. */
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

/* A job: its tasks side by side, how evenly they worked, what to ask Slurm
 * for next time. */
typedef struct gt_job_summary {
    gt_job_info job;          /* the first task's ids, rank left empty */
    size_t ntasks;
    gt_task_summary *tasks;   /* in the snapshot's order */
    int nnodes;               /* distinct nodes (or hosts) */
    int max_tasks_per_node;
    double start_time, stop_time; /* the first start, the last stop */
    double late_margin;       /* seconds: max(10% of the job's span, 2 intervals) */
    /* The tasks together over the job's span: means of the tasks' sum
     * (weighted by duration), maxima summed (a bound), samples summed. */
    gt_stats total;
    /* max / mean over the tasks (1.0: even; 0 when the mean is 0) */
    double imbalance_cpu, imbalance_memory, imbalance_gpu;
    size_t nlate, nidle;
    /* Next time's --cpus-per-task, --gpus-per-task (the largest task's),
     * --mem-per-cpu, --mem (the node whose tasks need most). */
    int cpus_per_task, gpus_per_task, mem_per_cpu_mib, mem_per_node_mib;
} gt_job_summary;

/* The job view of a snapshot (one task for a single run). GT_ERR_NO_MEMORY. */
gt_status gt_job_summarize(const gt_snapshot *s, gt_job_summary **out);
void gt_job_summary_free(gt_job_summary *j);

/* Task i of j, or NULL past the last. */
const gt_task_summary *gt_job_summary_task(const gt_job_summary *j, size_t i);

/* The summary as JSON (job, tasks, total, imbalance, stragglers, slurm).
 * Caller frees; NULL when out of memory. */
char *gt_job_summary_to_json(const gt_job_summary *j);

/* {"cpu": N, "memory": MiB, "gpu": N, "vram": MiB}, or with server_json
 * (gt_recommend_server's) {"resources": ..., "server": ...}. Caller frees;
 * NULL when out of memory or (GT_ERR_PARSE) server_json is no object. */
char *gt_recommendation_to_json(const gt_recommendation *r, const char *server_json);

/* MiB rounded up to 128, 256, 512, 1024, 2048, then whole GiB (saturating). */
int gt_round_memory_mib(double mib);

/* The cheapest cloud server with at least r, from the Spare Cores Keeper
 * API at base_url (NULL: GT_KEEPER_URL), as its JSON (caller frees).
 * GT_ERR_IO (unreachable, an HTTP error), GT_ERR_PARSE. */
#define GT_KEEPER_URL "https://keeper.sparecores.net"
gt_status gt_recommend_server(const gt_recommendation *r, const char *base_url,
                              char **json_out);

/* The on-demand price per hour (USD) of an instance type from the Keeper
 * API: region's, else another's (resource_tracker's rule), 0 when none.
 * GT_ERR_INVALID_ARGUMENT (vendor or type not [A-Za-z0-9._-]), GT_ERR_IO,
 * GT_ERR_PARSE. */
gt_status gt_instance_price_at(const char *vendor, const char *region,
                          const char *instance_type, const char *base_url,
                          double *price_per_hour);

/* A self-contained HTML report of a run (no external file; charts in
 * inline SVG). server_json: gt_recommend_server's answer, {"unavailable":
 * "why"}, or NULL (no section); extras may be NULL. Caller frees; NULL when
 * out of memory or extras' sub-tracking file does not read (GT_ERR_IO,
 * GT_ERR_PARSE). */
char *gt_snapshot_report_html(const gt_snapshot *s, const char *server_json,
                              const gt_report_extras *extras);

/* gt_snapshot_report_html() written to path atomically. */
gt_status gt_snapshot_write_report(const gt_snapshot *s, const char *server_json,
                                   const gt_report_extras *extras, const char *path);

/* What a report can show beside the run itself: 0 for what it has not. */
struct gt_report_extras {
    /* earlier runs of the job: gt_stats_combine() of their stats, and how
     * many (0: none) */
    size_t history_runs;
    gt_stats history;
    /* the run's instance's price per hour (USD; 0: not known) */
    double current_price_per_hour;
    /* the run's sub-tracking file: its blocks tabled and, the longest
     * eight, shaded on the charts (NULL: none) */
    const char *sub_tracking_file;
};

/* ---- Limits (src/tools/limits; docs/limits.md) ----------------------------
 * A watch over a tracker: after every sample and at the moments between
 * that matter, it compares the figures with the limits, warns of a breach
 * once and, with GT_ON_LIMIT_KILL, ends the tree as timeout(1) does. */

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

/* The limits of a run (0: none), each compared after every sample with the
 * summary's figure (peaks the kernel kept between samples included): bytes
 * of peak RSS and GPU memory, seconds of wall and CPU time. GT_ON_LIMIT_KILL
 * sends SIGTERM at the breach, SIGKILL kill_after seconds later (default
 * 5; above 0, at most GT_STOP_TIMEOUT_MAX). */
typedef struct gt_limit_options {
    double max_ram, max_gpu_ram, max_time, max_cpu_time;
    int on_limit;
    double kill_after;
} gt_limit_options;

/* No limits, warn, kill_after 5 s. */
void gt_limit_options_init(gt_limit_options *lo);

/* GT_OK, or GT_ERR_INVALID_ARGUMENT naming the bad value and the valid ones. */
gt_status gt_limit_options_validate(const gt_limit_options *lo);

/* One limit of the run: bytes or seconds. */
typedef struct gt_limit {
    int set;          /* a limit was given */
    int breached;     /* the figure passed it */
    double limit;
    double peak;      /* the figure's highest value so far */
    double at;        /* seconds into the run at the breach; -1: none */
    int warned;       /* a sample saw it and on_warning was told (0: found
                         only at the stop) */
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

/* Checks lo and makes a watch the tracker made from *o will feed: with a
 * limit set, o's on_sample becomes the watch's (which calls o's after it). */
gt_status gt_limit_watch_new(const gt_limit_options *lo, gt_options *o,
                             gt_limit_watch **out);

/* Before the tracked program runs: the tracker made from those options.
 * With kill, GT_ERR_INVALID_ARGUMENT when the tree holds this program
 * (gt_tracker_signal); starts the thread that keeps max_time and
 * kill_after to the moment (GT_ERR_SYSTEM). */
gt_status gt_limit_watch_attach(gt_limit_watch *w, gt_tracker *t);

/* The limits, what the run reached and what breached them, checked again
 * against the figures of the moment. GT_ERR_INVALID_ARGUMENT for NULL. */
gt_status gt_limit_watch_report(gt_limit_watch *w, gt_limits *out);

/* gt_tracker_to_json() / _to_text() with the limits in them when any was
 * set (JSON: "limits" before "cgroup"); w NULL: the tracker's alone. */
char *gt_limit_watch_json(gt_limit_watch *w, gt_tracker *t);
char *gt_limit_watch_text(gt_limit_watch *w, gt_tracker *t);

/* Stops the watch's thread and frees w: after gt_tracker_stop(), before
 * gt_tracker_free(). */
void gt_limit_watch_free(gt_limit_watch *w);

/* ---- Judgements for people (src/lib/analysis, src/tools/stats) --------- */

/* Figure i's breach in one line, as the watch warns it. */
void gt_limits_describe(const gt_limits *l, int i, char *out, size_t cap);

/* Whether the job was starved of CPU (waiting for one, or throttled by
 * its quota: stats/contention.c): 1 with a sentence in why, 0 (why "")
 * when not or when the figures cannot say. cg may be NULL. */
int gt_cpu_contention(const gt_resource_usage *u, const gt_cgroup_usage *cg,
                      double wall_seconds, char *why, size_t cap);

/* Of a cgroup's memory peak: the page cache the kernel could have taken
 * back, and the rest, which a request must hold (bytes; 0: not measured). */
double gt_cgroup_reclaimable(const gt_cgroup_usage *cg);
double gt_cgroup_working_peak(const gt_cgroup_usage *cg);

/* Where u's figures are bounds, not exact (docs/metrics.md, "Corners"):
 * each() gets a sentence per corner met (escaped, no newline); cg may be
 * NULL. Returns how many. */
int gt_measurement_caveats(const gt_resource_usage *u, const gt_cgroup_usage *cg,
                           void (*each)(const char *sentence, void *arg),
                           void *arg);

#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_TOOLS_H */
