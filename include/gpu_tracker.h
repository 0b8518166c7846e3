/*
 * gpu_tracker.h - libgputracker 1.0: track what a process and all of its
 * descendants use while they run.
 *
 * A tracker samples the tree of a process (the calling one, or one given by
 * PID) every sleep_time seconds and keeps the figures gpu_tracker's
 * ResourceUsage has and more: peak RAM (total / private / shared RSS, the
 * kernel's high-water marks included), peak GPU RAM, CPU and GPU
 * utilization, threads, CPU time, I/O and energy. It gives them as
 * gpu_tracker's text and JSON (gt_tracker_to_text, gt_tracker_to_json), as
 * single figures in fixed units (gt_tracker_figure), and, sample by sample,
 * to a callback (gt_options.on_sample).
 *
 * Typical use:
 *
 *     gt_options opts;
 *     gt_options_init(&opts);
 *     opts.sleep_time = 0.1;
 *     gt_tracker *t;
 *     if (gt_tracker_new(&opts, &t) != GT_OK) { puts(gt_last_error()); ... }
 *     gt_tracker_start(t);
 *     ... work ...
 *     gt_tracker_stop(t);
 *     double peak;
 *     gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &peak);
 *     char *json = gt_tracker_to_json(t);   (caller frees, with free())
 *     gt_tracker_free(t);
 *
 * The library never prints and never exits. Every call that can fail returns
 * a gt_status; gt_last_error() gives a one-line message about the last
 * failure in the calling thread, and warnings found while tracking go to the
 * on_warning callback (none by default). What 1.0 promises (this header's
 * functions, types and meanings, kept through every 1.x): docs/api.md.
 */
#ifndef GPU_TRACKER_H
#define GPU_TRACKER_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. gt_version() gives the library's, which may
 * be newer (docs/api.md, "What 1.0 promises"). */
#define GT_VERSION_MAJOR 1
#define GT_VERSION_MINOR 1
#define GT_VERSION_PATCH 0
#define GT_VERSION_STRING "1.1.0"

/* Only the gt_* functions below are exported from the shared library. */
#if defined(__GNUC__)
#define GT_API __attribute__((visibility("default")))
#else
#define GT_API
#endif

/* Every enum below only grows: values are appended, never renumbered or
 * removed, so a program compiled against this header keeps its meaning
 * with a newer library. A switch over one should have a default. */

/* Status codes returned by every fallible call. */
typedef enum gt_status {
    GT_OK = 0,
    GT_ERR_INVALID_ARGUMENT, /* an option or argument is not valid */
    GT_ERR_STATE,            /* the call does not fit the tracker's state */
    GT_ERR_NO_PROCESS,       /* the process to track does not exist */
    GT_ERR_IO,               /* a file could not be read or written */
    GT_ERR_PARSE,            /* a document or /proc file is malformed */
    GT_ERR_NO_MEMORY,        /* an allocation failed */
    GT_ERR_SYSTEM,           /* a system call failed (thread, clock) */
    GT_ERR_UNAVAILABLE       /* the figure asked for was not measured in
                                this run (no GPU, no energy counter, ...) */
} gt_status;

/* A fixed text for a status code; never NULL. */
GT_API const char *gt_strerror(gt_status status);

/* A one-line description of the last failure in the calling thread (what was
 * wrong and what is valid). Valid until the next libgputracker call in that
 * thread; "" when nothing has failed. */
GT_API const char *gt_last_error(void);

/* The library's version, e.g. "1.0.0". */
GT_API const char *gt_version(void);

/* A tracker: made by gt_tracker_new(), freed by gt_tracker_free(). */
typedef struct gt_tracker gt_tracker;

/* Called with a one-line warning (no trailing newline) from whichever thread
 * noticed it, the sampling thread included. */
typedef void (*gt_warning_fn)(const char *message, void *user_data);

/* One sample as gt_options.on_sample is given it. The struct grows at its
 * end: struct_size is the size of the library's struct, and a field past
 * what a program's header knows is simply not read by it. */
typedef struct gt_sample {
    size_t struct_size;
    double elapsed;           /* seconds since the baseline sample (0 for it) */
    /* The sample's rows of the series asked for (gt_options.series), as
     * the CSV lines the series' descriptors get, without the newline
     * (columns: docs/series.md); NULL when that series is not kept,
     * and for the baseline, which makes no row. Valid during the call. */
    const char *process_row;
    const char *system_row;
    int last;                 /* 1: the stop's own sample, after the schedule's
                                 (no rows): the figures are the run's but for
                                 gt_tracker_add_reaped()'s */
} gt_sample;

/* Called after each sample the schedule takes and after the stop's own,
 * from the thread that took it (the sampling thread; gt_tracker_start()'s
 * caller for the baseline, gt_tracker_stop()'s for the last),
 * the tracker's lock not held. It may call gt_tracker_figure(t, ...) for
 * the figures so far and gt_tracker_signal(t, ...), and nothing else on t;
 * the next sample waits for it to return, so it should be brief. */
typedef void (*gt_sample_fn)(gt_tracker *t, const gt_sample *sample, void *user_data);

/* The valid ranges of the options that are durations, in seconds. A
 * value outside them (NaN and infinities included) is an error naming the
 * range; none can make the scheduler overflow or wait for ever. */
#define GT_SLEEP_TIME_MIN 0.0001          /* 0.1 ms: a sample costs more */
#define GT_SLEEP_TIME_MAX 86400.0         /* a day */
#define GT_STOP_TIMEOUT_MAX 3600.0        /* an hour; more than 0 */
#define GT_DURATION_MAX (366.0 * 86400.0) /* a year; 0 = no duration */
/* gt_options.start_at: at the next whole multiple of sleep_time. */
#define GT_START_ALIGNED (-1.0)
#define GT_START_AHEAD_MAX 86400.0 /* a day */

/* gt_options.series: which series to keep (either or both). */
typedef enum gt_series_flags { GT_SERIES_PROCESS = 1, GT_SERIES_SYSTEM = 2 } gt_series_flags;


/* Who a run is in a batch system, from Slurm's environment. An empty
 * string: not set (not in a Slurm job, not an array job, ...). Ids keep
 * Slurm's text; a variable whose value is not what Slurm sets (digits for
 * ids; letters, digits, '.', '-' and '_' for the node) is left out, so that
 * none can put a '/' into a file name made from it. */
typedef struct gt_job_info {
    size_t struct_size;     /* sizeof(gt_job_info) in the caller's header */
    char scheduler[16];     /* "slurm" when SLURM_JOB_ID is set, else "" */
    char job_id[32];        /* SLURM_JOB_ID */
    char array_job_id[32];  /* SLURM_ARRAY_JOB_ID */
    char array_task_id[32]; /* SLURM_ARRAY_TASK_ID */
    char step_id[32];       /* SLURM_STEP_ID */
    char task_rank[32];     /* SLURM_PROCID: the task's rank in the step */
    int ntasks;             /* SLURM_STEP_NUM_TASKS, else SLURM_NTASKS; 0: not known */
    char node[256];         /* SLURMD_NODENAME, else the host name up to its
                               first dot (as Slurm names nodes) */
    /* The GPUs the job was given: SLURM_GPUS_ON_NODE (a count), else the
     * list in SLURM_STEP_GPUS or SLURM_JOB_GPUS, else in
     * CUDA_VISIBLE_DEVICES (indices or UUIDs; "", "-1" and "NoDevFiles" are
     * none), counted; 0: none said. gpus_requested_by names the variable. */
    int gpus_requested;
    char gpus_requested_by[32];
    /* --- 1.1 --- */
    /* What Slurm gave the step (0: not said): CPUs per task
     * (SLURM_CPUS_PER_TASK), CPUs on this node (SLURM_CPUS_ON_NODE), and
     * memory per node or per CPU in MiB (SLURM_MEM_PER_NODE,
     * SLURM_MEM_PER_CPU; Slurm sets one of the two). */
    int cpus_per_task;
    int cpus_on_node;
    long long mem_per_node_mib;
    long long mem_per_cpu_mib;
} gt_job_info;

/* Fills *out from envp (an environ-style NULL-terminated array; NULL: this
 * process's environment). The one call of the library that looks at the
 * environment, and only when called. */
GT_API gt_status gt_job_info_from_environ(char *const *envp, gt_job_info *out);

/* Tracker options. Fill with gt_options_init() and change what you need; the
 * strings are copied by gt_tracker_new().
 *
 * The struct grows at its end, one release to the next, without breaking a
 * compiled program: gt_options_init() records in struct_size how big the
 * struct was in the header the program was compiled with, and the library
 * reads that many bytes, taking its defaults for any field added since. A
 * struct from a newer header is accepted when the fields this library does
 * not know are all zero. Always fill it with gt_options_init(). */
typedef struct gt_options {
    size_t struct_size;       /* set by gt_options_init(); never change it */
    double sleep_time;        /* seconds between samples, GT_SLEEP_TIME_MIN to
                                 GT_SLEEP_TIME_MAX (default 1.0) */
    const char *ram_unit;     /* bytes|kilobytes|megabytes|gigabytes|terabytes
                                 (default "gigabytes"; decimal units) */
    const char *gpu_ram_unit; /* same choices (default "gigabytes") */
    const char *time_unit;    /* seconds|minutes|hours|days (default "hours") */
    int n_expected_cores;     /* denominator of the hardware percents of
                                 main/descendants/combined; 0 = all cores */
    const char *gpu_uuids;    /* comma-separated GPU UUIDs; NULL = all GPUs */
    const char *gpu_brand;    /* NULL (every vendor found), "nvidia", "amd",
                                 "intel" or "drm" (the kernel's DRM figures of
                                 every AMD and Intel GPU; docs/metrics.md) */
    int disable_logs;         /* non-zero: on_warning is never called */
    pid_t process_id;         /* process to track; 0 = the calling process
                                 (then the sampling thread's own CPU time and
                                 thread are left out of "main") */
    const char *resource_usage_file; /* backup of the results so far, rewritten
                                 atomically when a peak changes (a memory peak
                                 at the next look, about a second; others at
                                 most every 5 s; the means and time at least
                                 every 30 s: docs/api.md) and deleted by a clean
                                 gt_tracker_stop(); NULL (default): a
                                 ".gpu-tracker_<random UUID>.json" in the working
                                 directory; "": no backup file */
    double stop_timeout;      /* seconds gt_tracker_stop() and gt_tracker_free()
                                 wait for the sampling thread, and
                                 gt_tracker_new() for the GPU library's init:
                                 more than 0, at most GT_STOP_TIMEOUT_MAX
                                 (default 10) */
    gt_warning_fn on_warning; /* NULL: warnings are dropped */
    void *warning_data;       /* passed to on_warning */

    /* The process that will reap the tracked tree, or 0. Set it to getpid()
     * when the calling process started process_id itself and made itself a
     * child subreaper (PR_SET_CHILD_SUBREAPER): then its other children are
     * adopted orphans of the tree, counted as descendants, and the CPU time
     * of everything it reaps (its cutime/cstime) is counted exactly. */
    pid_t reaper_pid;

    /* ---- Time series (resource_tracker's ProcessTracker/SystemTracker) ----
     * Which series to keep: GT_SERIES_PROCESS, GT_SERIES_SYSTEM or both
     * (default 0: none). Rows come at start + k * sleep_time (k = 1, 2, ...)
     * and are kept (the newest in memory, a long run's others in an
     * unlinked temporary file) and handed to on_sample; each is also
     * written as a CSV line to the descriptor below when it is >= 0, the
     * header when sampling begins (at gt_tracker_start(), or at start_at
     * when that is later). The descriptors stay the caller's (never closed);
     * a write that fails stops the writing with one warning, the rows in
     * memory are kept. */
    int series;
    int process_csv_fd;       /* default -1: none */
    int system_csv_fd;        /* default -1: none */
    /* Seconds after which sampling ends by itself (the last row is the one
     * at start + duration): from sleep_time to GT_DURATION_MAX; 0
     * (default): until gt_tracker_stop(). */
    double duration;
    /* Non-zero: ask the cloud metadata services (AWS, GCP, Azure) which
     * instance this is, in a background thread started by
     * gt_tracker_start(), each request with a 1 s timeout (at
     * http://169.254.169.254, and metadata.google.internal for GCP). The
     * answer goes into the command's snapshots. Default 0. */
    int discover_cloud;

    /* The vendor libraries to load (a path, or a file name dlopen searches
     * for); NULL (default): the system's, libnvidia-ml.so.1 and
     * librocm_smi64.so.  The library reads no environment variable: the
     * gpu-tracker command maps GPU_TRACKER_NVML_LIBRARY and
     * GPU_TRACKER_RSMI_LIBRARY to these. */
    const char *nvml_library;
    const char *rsmi_library;
    /* How many /proc files the tracker may keep open between samples, to
     * re-read them without opening them again (about 4 per tracked
     * process, 5 with the process series). Past it, files are opened and
     * closed at each sample: slower, nothing is left out (a process's
     * directory, one descriptor, is kept whatever the limit). 0 (default): a
     * quarter of the RLIMIT_NOFILE soft limit at gt_tracker_new(), the rest
     * being the program's; a program that does little else (as the
     * gpu-tracker command) may give nearly all of its limit. */
    int max_kept_files;

    /* Non-zero: the main process alone, none of its descendants
     * (resource_tracker's children=False): the summary's descendants
     * sections and the series' children column stay 0, and the CPU time of
     * the children the main process reaps is not counted. Default 0. */
    int main_only;
    /* When sampling begins (the baseline sample; rows come at start +
     * k * sleep_time): 0 (default) at gt_tracker_start(); GT_START_ALIGNED:
     * at the next whole multiple of sleep_time in epoch time that is at
     * least 50 ms away, as resource_tracker schedules (rows then have round
     * timestamps); an epoch time in seconds: then, which may be at most
     * GT_START_AHEAD_MAX seconds ahead (one already past: at once). Either
     * way gt_tracker_start() returns at once; the sampling thread waits, and
     * gt_tracker_stop() before the start ends a run that has no rows. */
    double start_at;
    /* Non-zero: the CSV written to process_csv_fd / system_csv_fd has no
     * header line (rows only, as resource_tracker's print_header=False).
     * Default 0. */
    int csv_no_header;
    /* What the tracked process runs (a command line), for the backup
     * file's identity; NULL: not said. */
    const char *command;
    /* gpu_tracker 5's tracking file (its tracking_file): every sample
     * appended as it is taken, a ".csv" or ".sqlite" file laid out as
     * gpu_tracker writes it (docs/tracking-file.md), so that its analyzer
     * and `gpu-tracker sub-track analyze` read it. Created by
     * gt_tracker_new(), which fails when the file exists unless overwrite
     * is non-zero (then it is replaced). NULL (default): none. */
    const char *tracking_file;
    int overwrite;
    /* Who the run is in a batch system (gt_job_info_from_environ), copied
     * into the exporter's labels and the command's snapshots; NULL: none. */
    const struct gt_job_info *job;
    /* Serve the figures so far at http://ADDR:PORT/metrics while sampling,
     * in Prometheus's text format (OpenMetrics when the scraper asks):
     * "PORT", ":PORT" (127.0.0.1), "ADDR:PORT" or "[IPv6]:PORT"; PORT 0
     * takes a free one. The socket is bound by
     * gt_tracker_new(), which fails with the reason when it cannot be (in
     * use, no such address). docs/metrics.md lists the metrics. NULL: none. */
    const char *metrics_listen;
    /* Write the same text to DIR/gpu-tracker-<pid>.prom, replaced
     * atomically after every sample, for node_exporter's textfile
     * collector; removed by gt_tracker_stop(). gt_tracker_new() fails when
     * it cannot be written there. NULL: none. */
    const char *metrics_textfile_dir;
    /* Non-zero: gt_tracker_new() makes a cgroup of the job's own beneath
     * the calling process's (where that is delegated or writable), moves
     * process_id into it, and gt_tracker_free() removes it (moving out what
     * still runs there first). Start process_id held (as gpu-tracker holds
     * its command on a pipe) to have it inside from its first instruction.
     * Where no cgroup can be made, tracking goes on without one and one
     * warning says why (the JSON summary's cgroup section says so too). Default 0: the
     * group the process is in is used when the tree is alone in it. */
    int own_cgroup;
    /* Non-zero: read each GPU's per-process utilization and clock throttle
     * reasons at every sample (two or three more vendor calls a GPU, about
     * 2.5 ms of CPU a sample on an H100) and its energy counter every 10 s,
     * for the summary alone. A series (any `series` bit) or the exporter
     * reads them anyway; without any of these a GPU sample makes only the
     * calls the summary needs (memory, utilization, running processes), the
     * energy is read at the first and last samples, and the summary says
     * why per-process utilization and throttle reasons are missing.
     * Default 0. */
    int gpu_details;
    /* The job's energy as CO2e (GT_FIGURE_CO2E_GRAMS): the electricity's carbon intensity in grams of CO2e per kWh (0,
     * default: no CO2e figure; nothing is looked up) and the data centre's
     * PUE (0, default: 1; at least 1 otherwise, at most 10). */
    double carbon_intensity;
    double pue;
    /* Called after every sample the schedule takes (the baseline included)
     * and after the stop's own, with that sample's series rows: a host that exports or stores the
     * figures itself takes them here (gt_sample_fn). NULL (default): none. */
    gt_sample_fn on_sample;
    void *sample_data;        /* passed to on_sample */
    /* --- 1.1 --- */
    /* Push the figures, as metrics_listen serves them, to the Prometheus
     * Pushgateway at this base URL ("http://pushgw:9091"; http or https):
     * at the end, and every metrics_push_interval seconds before it when
     * that is above 0. Each push replaces the run's group: job
     * "gpu-tracker" with the job's id, step, task rank and host
     * (options.job), or the host and PID outside a batch job. A push takes
     * 5 s at most; one that fails is a warning, never an error and never a
     * lost run. NULL (default): none. docs/metrics.md, "Pushgateway". */
    const char *metrics_push_url;
    double metrics_push_interval;
    /* Where procfs and sysfs are mounted: "/proc" and "/sys" (NULL,
     * default), or another absolute path (the host's, mounted into a
     * container; a fixture tree in a test). */
    const char *proc_root;
    const char *sys_root;
    /* The cloud metadata services' base URL ("http://127.0.0.1:8080"; a
     * server on loopback in a test). NULL (default): the real ones,
     * 169.254.169.254 and metadata.google.internal. */
    const char *metadata_url;
    /* Non-zero: the figures a plain sampling tracker gets, for comparison
     * (the command's --sampled-only): peaks only from samples (no VmHWM
     * or ru_maxrss floor), CPU only from the changes seen between two
     * samples of a live process (nothing of what exited between samples,
     * nothing of reaped children). Default 0. */
    int sampled_only;
} gt_options;

/* Fills opts with the defaults of gpu_tracker's Tracker(), struct_size
 * with size. Call it as gt_options_init(&opts), which passes the size of
 * the struct in the header you compile with. */
GT_API void gt_options_init_size(gt_options *opts, size_t size);
#define gt_options_init(opts) gt_options_init_size((opts), sizeof(gt_options))

/* Checks every option but process_id's existence: struct_size, units,
 * sleep_time, n_expected_cores, gpu_brand. GT_ERR_INVALID_ARGUMENT with
 * gt_last_error() naming the bad value and the valid ones. gt_tracker_new()
 * does the same. */
GT_API gt_status gt_options_validate(const gt_options *opts);

/* ---- The tracker: NEW -> STARTED -> STOPPED ------------------------------ */

/* Validates opts (units, interval, cores, brand, process) and creates a
 * tracker in the NEW state. On success *out owns it (gt_tracker_free). On
 * failure *out is NULL and gt_last_error() says which option is wrong and
 * what is valid: GT_ERR_INVALID_ARGUMENT, or GT_ERR_NO_PROCESS when
 * process_id does not exist. */
GT_API gt_status gt_tracker_new(const gt_options *opts, gt_tracker **out);

/* NEW -> STARTED: takes the baseline sample, writes the backup file (if any)
 * and starts the sampling thread, which samples at start + k * sleep_time.
 * GT_ERR_STATE unless NEW; GT_ERR_SYSTEM if the thread cannot start. */
GT_API gt_status gt_tracker_start(gt_tracker *t);

/* gt_tracker_start() for a caller with a wait loop of its own (a command
 * that waits for its child, a plugin called at a task's end): the baseline
 * is taken, but the sampling thread is made only when the caller calls
 * gt_tracker_start_sampler(), by gt_tracker_sampler_due(); a tracked
 * program that ends sooner costs no thread. Where the thread must keep a
 * moment before then (options.start_at or duration) it is made at once, as
 * by gt_tracker_start(). Errors as gt_tracker_start(). */
GT_API gt_status gt_tracker_start_deferred(gt_tracker *t);

/* The monotonic time (CLOCK_MONOTONIC, seconds) by which the caller of
 * gt_tracker_start_deferred() is to call gt_tracker_start_sampler(); 0
 * when the thread runs, or the tracker is not STARTED. */
GT_API double gt_tracker_sampler_due(const gt_tracker *t);

/* Makes the sampling thread of a tracker started deferred (GT_OK when it
 * runs already, or the tracker is not STARTED). The schedule is the
 * baseline's: a thread made after the first slot takes that sample at
 * once, counted as late. GT_ERR_SYSTEM if the thread cannot start. */
GT_API gt_status gt_tracker_start_sampler(gt_tracker *t);

/* STARTED -> STOPPED: stops the sampling thread, takes a final sample, fixes
 * the compute time and deletes the backup file. If the thread does not stop
 * within stop_timeout (a system call that hangs), the results are those of
 * the samples it finished and a warning says so. GT_ERR_STATE when NEW
 * ("stopped before started") or already STOPPED. */
GT_API gt_status gt_tracker_stop(gt_tracker *t);

/* With options.duration: waits up to timeout seconds for sampling to end by
 * itself. Returns 1 when it has ended (the last row is in), 0 when the
 * timeout came first (or there is no duration). Then call gt_tracker_stop(). */
GT_API int gt_tracker_wait(gt_tracker *t, double timeout);

/* Waits up to timeout seconds until every series options.series keeps has
 * at least n rows (each sample after the baseline makes one): for a host
 * that reads the series as they grow (process_csv_fd, on_sample). 1 when
 * they have; 0 when the timeout came first, when sampling has ended with
 * fewer (stopped, or options.duration reached), when no series is kept,
 * or the tracker is NEW. From any thread. (1.1) */
GT_API int gt_tracker_wait_rows(gt_tracker *t, size_t n, double timeout);

/* Tells the tracker that the caller reaped process pid with wait4() and got
 * ru: its ru_maxrss is a high-water mark no sample may have seen, its block
 * I/O the tree's. Only for a reaper (options.reaper_pid); allowed while
 * STARTED or STOPPED. */
struct rusage;
GT_API gt_status gt_tracker_add_reaped(gt_tracker *t, pid_t pid, const struct rusage *ru);

/* Sends signal sig to every process of the tracked tree: those the last
 * sample found, and what they started since (their children, found now).
 * What a limit needs to end a job (a host's own state machine, fed by
 * on_sample, decides when), from any thread, on_sample included, while
 * STARTED or STOPPED. GT_OK and *reached (may be NULL) the processes
 * signalled; GT_ERR_STATE when NEW; GT_ERR_INVALID_ARGUMENT for sig outside
 * 0 to 64, and for a tree that holds the calling program (process_id 0 or
 * its own, or one of its ancestors): it would signal itself. sig 0 sends
 * nothing and only checks the latter, from NEW on (as kill(2) does). */
GT_API gt_status gt_tracker_signal(gt_tracker *t, int sig, int *reached);

/* Stops the sampling thread if it runs and frees everything. A tracker freed
 * while STARTED keeps its backup file (its results could not be read
 * otherwise). A sampling thread still stuck after stop_timeout frees the
 * tracker itself when it returns. NULL is a no-op. */
GT_API void gt_tracker_free(gt_tracker *t);

/* ---- The results --------------------------------------------------------- */

/* gpu_tracker's text summary of a STOPPED tracker (its ResourceUsage's
 * str(), in the options' units, and like it without a final newline:
 * gpu_tracker's print(tracker) adds one, so print it with puts() or
 * "%s\n"; its -o file has none), followed by a "GPUs held idle:" section
 * when a GPU was held idle or given and unused; and the JSON: gpu_tracker's to_json() keys first, then
 * every part of our own (docs/api.md, "Results"; docs/metrics.md). NULL when not
 * STOPPED (GT_ERR_STATE) or out of memory. Caller frees with free(). */
GT_API char *gt_tracker_to_text(gt_tracker *t);
GT_API char *gt_tracker_to_json(gt_tracker *t);

/* The figures of a run one at a time, in fixed units whatever the options'
 * (bytes, seconds, percent of one core or GPU, joules, grams): so far while
 * STARTED, the run's once STOPPED. Peaks are the summary's (never below the
 * kernel's high-water marks where it keeps them); "main" is the tracked
 * process, "descendants" everything it started. */
typedef enum gt_figure {
    GT_FIGURE_ELAPSED_SECONDS,      /* baseline sample to now (to the final one) */
    GT_FIGURE_START_EPOCH,          /* epoch time of the baseline sample; with a
                                       delayed start (options.start_at), the
                                       time it is scheduled for until it is
                                       taken (1.1; GT_ERR_STATE before) */
    GT_FIGURE_SAMPLES,              /* samples taken, the baseline included */
    GT_FIGURE_PEAK_RSS_BYTES,       /* the tree's peak RSS, shared pages once */
    GT_FIGURE_PEAK_RSS_MAIN_BYTES,
    GT_FIGURE_PEAK_RSS_DESCENDANTS_BYTES,
    GT_FIGURE_PEAK_SYSTEM_RAM_BYTES, /* the machine's: MemTotal - MemAvailable */
    GT_FIGURE_SYSTEM_RAM_BYTES,     /* MemTotal */
    GT_FIGURE_PEAK_GPU_RAM_BYTES,   /* the tree's (GT_ERR_UNAVAILABLE: no GPU) */
    GT_FIGURE_PEAK_GPU_RAM_MAIN_BYTES,
    GT_FIGURE_PEAK_GPU_RAM_DESCENDANTS_BYTES,
    GT_FIGURE_PEAK_SYSTEM_GPU_RAM_BYTES, /* all processes on the selected GPUs */
    GT_FIGURE_SYSTEM_GPU_RAM_BYTES, /* the selected GPUs' memory */
    GT_FIGURE_CPU_SECONDS,          /* the tree's user + system CPU time */
    GT_FIGURE_CPU_MAIN_SECONDS,
    GT_FIGURE_CPU_DESCENDANTS_SECONDS,
    GT_FIGURE_CPU_MEAN_PERCENT,     /* the tree's mean, 100 = one core */
    GT_FIGURE_CPU_MAX_PERCENT,      /* the busiest interval's */
    GT_FIGURE_THREADS_MAX,          /* the tree's most threads at a sample */
    GT_FIGURE_GPU_UTIL_MEAN_PERCENT, /* the selected GPUs' summed, 100 = one busy GPU */
    GT_FIGURE_GPU_UTIL_MAX_PERCENT,
    GT_FIGURE_READ_BYTES,           /* block I/O of reaped processes
                                       (gt_tracker_add_reaped; GT_ERR_UNAVAILABLE
                                       until the main process is among them) */
    GT_FIGURE_WRITE_BYTES,
    GT_FIGURE_ENERGY_JOULES,        /* the job's: GPU + CPU share (docs/metrics.md) */
    GT_FIGURE_GPU_ENERGY_JOULES,
    GT_FIGURE_CPU_ENERGY_JOULES,
    GT_FIGURE_CO2E_GRAMS,           /* with options.carbon_intensity */
    GT_FIGURE_CGROUP_PEAK_BYTES,    /* the job's cgroup memory high-water mark,
                                       when the tree is alone in its group */
    GT_FIGURE_UNSEEN_CHILDREN_PID,  /* a tracked process that ignores SIGCHLD
                                       (0: none seen): the kernel reaps its
                                       children, and those that live between
                                       two samples are missing from the RAM
                                       peaks and the CPU time (the job's
                                       cgroup, where it has one, holds them) */
    /* --- 1.1: the newest sample's, for a status line (cheap: no summary
     * is made; the last sample's once STOPPED) --- */
    GT_FIGURE_RSS_BYTES,            /* the tree's RSS, shared pages once */
    GT_FIGURE_CPU_PERCENT,          /* the tree's CPU over the newest interval,
                                       100 = one core (GT_ERR_UNAVAILABLE until
                                       an interval of at least half the sleep
                                       time was sampled) */
    GT_FIGURE_GPU_RAM_BYTES,        /* the tree's GPU memory (GT_ERR_UNAVAILABLE:
                                       no GPU, or none sampled yet) */
    GT_FIGURE_GPU_UTIL_PERCENT      /* the selected GPUs' summed, 100 = one busy
                                       GPU (GT_ERR_UNAVAILABLE as above) */
} gt_figure;

/* *value = the figure which of t. GT_OK; GT_ERR_UNAVAILABLE (*value 0,
 * gt_last_error() says why: no GPU, no energy counter, no cgroup of the
 * job's own, ...); GT_ERR_STATE when NEW; GT_ERR_INVALID_ARGUMENT for a
 * figure this library does not know (a newer header's). */
GT_API gt_status gt_tracker_figure(gt_tracker *t, gt_figure which, double *value);

/* Where options.metrics_listen serves ("127.0.0.1:9101", "[::1]:9101"),
 * the port a PORT of 0 got included (gt_tracker_new() bound it); NULL
 * when not serving. Valid until gt_tracker_free(). (1.1) */
GT_API const char *gt_tracker_metrics_address(gt_tracker *t);

/* The two series options.series keeps (1.1). */
typedef enum gt_series_kind { GT_SERIES_KIND_PROCESS, GT_SERIES_KIND_SYSTEM } gt_series_kind;

/* 1 when writing rows of kind to options.process_csv_fd / system_csv_fd
 * failed at some row (a warning said why): that descriptor lacks rows the
 * tracker kept, which gt_tracker_write_series_csv() can write elsewhere.
 * Known once STOPPED (the sampler is done writing); 0 before, with
 * GT_ERR_STATE in gt_last_error(). (1.1) */
GT_API int gt_tracker_csv_failed(gt_tracker *t, gt_series_kind kind);

/* A series of a STOPPED tracker as CSV (the header and every row kept,
 * "\r\n" line ends, as process_csv_fd / system_csv_fd get them) written to
 * the descriptor fd, a batch of rows at a time (fd stays the caller's).
 * GT_ERR_STATE unless STOPPED, GT_ERR_INVALID_ARGUMENT for another kind,
 * GT_ERR_IO when writing fails. (1.1) */
GT_API gt_status gt_tracker_write_series_csv(gt_tracker *t, gt_series_kind kind, int fd);

/* ---- Work done on a tracker's behalf (1.1) --------------------------------- */

/* The calling thread counted as one of the library's until
 * gt_library_thread_leave() (by the same thread, before it ends): a
 * tracker of this process (process_id 0, or this program's PID) leaves its
 * CPU time and its count out of the figures, as it does for its own
 * threads. For work a host does for the tracker in a thread of its own
 * (the Python package's reading of PyTorch's allocator). 0, or ENOMEM (the
 * thread is not counted as the library's then). */
GT_API int gt_library_thread_enter(void);
GT_API void gt_library_thread_leave(void);

/* ---- Sub-tracking (gpu_tracker 5's SubTracker) ----------------------------
 * Marks when code blocks start and stop, in a sub-tracking file that, with
 * the tracking file of the same run (gt_options.tracking_file), tells what
 * each block used: `gpu-tracker sub-track analyze`, or gpu_tracker's own
 * SubTrackingAnalyzer, reads the pair. A row per mark: process_id,
 * code_block_name, position (0 start, 1 stop), timestamp (epoch seconds),
 * in CSV or SQLite (table "data") as gpu_tracker writes them
 * (docs/sub-tracking.md). */
typedef struct gt_subtracker gt_subtracker;

/* Creates the sub-tracking file path (".csv" or ".sqlite"; NULL: "<PID>.csv"
 * in the working directory, gpu_tracker's default, one file per process).
 * An existing file is an error unless overwrite. GT_OK and *out, or
 * GT_ERR_INVALID_ARGUMENT (the name), GT_ERR_IO (exists, cannot be
 * written), GT_ERR_NO_MEMORY, with gt_last_error(). */
GT_API gt_status gt_subtracker_open(const char *path, int overwrite, gt_subtracker **out);

/* Marks the start (gt_subtrack_begin) or the stop (gt_subtrack_end) of the
 * code block name, now, for the calling process: one row written at once
 * (one write() for CSV), so a killed program keeps its marks. Safe from
 * any thread; a few microseconds a mark (make bench measures a pair).
 * GT_ERR_IO when the row cannot be written (the mark is lost), GT_ERR_STATE
 * for an SQLite file used in a child made by fork() (open one there). */
GT_API gt_status gt_subtrack_begin(gt_subtracker *s, const char *code_block_name);
GT_API gt_status gt_subtrack_end(gt_subtracker *s, const char *code_block_name);

/* Closes the file and frees s (NULL: nothing). */
GT_API void gt_subtracker_free(gt_subtracker *s);

#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_H */
