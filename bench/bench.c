/* bench/bench.c - what tracking costs and how exact it is, as tables
 * (figures, not tests: `make bench`).
 *
 *   gt-bench GPU_TRACKER GT_BENCH_WORKLOAD [quick|overhead|gpu-standin ...]
 *
 * Overhead: gpu-tracker --pid on idle trees of 1, 10, 100, 1000 and 5000
 * processes at --st 1, 0.1 and 0.01; its CPU time and peak RSS from its own
 * rusage (wait4: measured from outside), samples and schedule lateness from
 * its JSON.
 * Beside each, the floor: what a sample cannot cost less than on this
 * machine. A process whose thread wakes on the same absolute schedule and
 * preads the same files (/proc/stat, /proc/meminfo, and each process's stat,
 * status, schedstat and children, and its smaps_rollup on the schedule
 * gpu-tracker reads it for an idle process: the first sample and every
 * 10th) through descriptors kept open for the whole run, and reads each
 * process's CPU clock, parsing nothing, measured the
 * same way, at the same time, on the same CPU; seven fresh pairs a row
 * (REPEATS).
 * Accuracy: workloads that report their own truth (VmHWM, rusage; see
 * workload.c) under gpu-tracker --st 1, with the exactness features and
 * with --sampled-only (what a plain sampling tracker sees). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

static char out_json[] = "/tmp/gt-bench-XXXXXX";

/* The idle tree's root (gt-bench --idle-root N FD): forks n-1 idle
 * children, says so on FD, and pauses. */
static void idle_root(int n, int ready_fd)
{
    for (int i = 1; i < n; i++)
        if (fork() == 0) {
            for (;;)
                pause();
        }
    if (write(ready_fd, "x", 1) != 1)
        _exit(1);
    for (;;)
        pause();
}

/* A tree: one root that forks n-1 idle children; returns the root's pid.
 * The root is gt-bench executed afresh, so that its memory is shared with
 * nothing the bench goes on writing: a forked copy's private/shared split
 * drifts as the bench breaks copy-on-write, and an idle tree's figures
 * should not move. */
static pid_t idle_tree(int n)
{
    int ready[2];
    if (pipe(ready) < 0)
        exit(1);
    pid_t root = fork();
    if (root == 0) {
        setpgid(0, 0); /* one group, so that the bench can kill it whole */
        close(ready[0]);
        char ns[16], fd[16];
        snprintf(ns, sizeof ns, "%d", n);
        snprintf(fd, sizeof fd, "%d", ready[1]);
        execl("/proc/self/exe", "gt-bench", "--idle-root", ns, fd, (char *)NULL);
        _exit(127);
    }
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1)
        exit(1);
    close(ready[0]);
    return root;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

/* A number at a dotted path of the JSON written to out_json; -1 if none. */
static double jget(json_object *j, const char *path)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", path);
    json_object *o = j;
    for (char *save = NULL, *k = strtok_r(copy, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        if (!json_object_object_get_ex(o, k, &o))
            return -1;
    return o ? json_object_get_double(o) : -1;
}

static double cpu_of(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) +
           (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* One run of gpu-tracker --pid on a tree of n idle processes for seconds:
 * its CPU seconds and peak RSS (KiB) from wait4, samples and lateness (ms)
 * from its JSON. */
struct run {
    double cpu, samples, late, late_max, skipped;
    long maxrss_kib;
    double window_cpu; /* CPU seconds between the two looks (see measure) */
    int failed;        /* gpu-tracker refused to run or failed: no figures */
};

/* Sleeps until `after` seconds past the monotonic time t0. */
static void nap_until(const struct timespec *t0, double after)
{
    double at = (double)t0->tv_sec + (double)t0->tv_nsec / 1e9 + after;
    struct timespec ts = {(time_t)at, (long)((at - floor(at)) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* The window is measured in sub-windows of whole samples, and a run's CPU
 * in it is taken as the median sub-window's times their count: a burst of
 * a neighbour on this shared VM lands in one sub-window of one of the two
 * runs, and the median leaves it out (with the whole window alone, the
 * one-process row at 1 s moved from 1.0x to 2.9x between runs). */
#define SUBWINDOWS_MAX 5

static int subwindows(double interval, double window)
{
    long samples = lround(window / interval);
    int k = SUBWINDOWS_MAX;
    while (k > 1 && samples % k)
        k--;
    return k;
}

/* k times the median of the k differences of cpu_at[0..k]; -1 when a
 * reading failed. */
static double median_window(const double *cpu_at, int k)
{
    double d[SUBWINDOWS_MAX];
    for (int i = 0; i < k; i++) {
        if (cpu_at[i] < 0 || cpu_at[i + 1] < cpu_at[i])
            return -1;
        d[i] = cpu_at[i + 1] - cpu_at[i];
    }
    qsort(d, (size_t)k, sizeof d[0], by_value);
    double median = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
    return median * k;
}

/* CPU seconds all threads of pid have run, from the scheduler's nanosecond
 * accounting (/proc/PID/task/TID/schedstat); -1 when it cannot be read. */
static double task_runtime(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    double sum = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char file[320];
        snprintf(file, sizeof file, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        FILE *f = fopen(file, "r");
        unsigned long long ns = 0;
        if (f && fscanf(f, "%llu", &ns) == 1)
            sum += (double)ns / 1e9;
        if (f)
            fclose(f);
    }
    closedir(d);
    return sum;
}

/* The steady state of a run that started just now: after warm seconds (the
 * start, the GPU probe and the baseline are behind), the CPU the process
 * uses over the next window seconds. Start-up costs drop out, and the
 * scheduler's accounting is in nanoseconds, not 10 ms ticks. */
static double measure(pid_t pid, double warm, double window)
{
    nap(warm);
    double a = task_runtime(pid);
    nap(window);
    double b = task_runtime(pid);
    return a >= 0 && b >= a ? b - a : -1;
}

/* Waits for the measured process g (already told to stop) and takes its
 * rusage into r. */
static void end_tracker(pid_t g, struct run *r)
{
    int status;
    struct rusage ru;
    wait4(g, &status, 0, &ru);
    r->cpu = cpu_of(&ru);
    r->maxrss_kib = ru.ru_maxrss;
    /* Stopped by our SIGINT it exits 130 (or 0 if the tree ended first);
     * anything else means it did not track, and its zeros are no figure. */
    if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 130)) {
        r->failed = 1;
        fprintf(stderr, "gt-bench: gpu-tracker failed (%s %d); run it by hand to see why\n",
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
}

/* Kills the idle tree under root. The bench is the tree's subreaper
 * (main): wait for every process of it to be gone, so that the teardown of
 * 5000 processes does not run into the next measurement. */
static void end_tree(pid_t root)
{
    kill(-root, SIGKILL);
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
}

/* The CPU that gpu-tracker and the floor loop both run on (-1: any): on
 * the development VM the same floor loop cost 1.3-1.8x as much on one vCPU
 * as on the other (the first takes more interrupts), so a pair that landed
 * apart compared places, not programs. The last CPU we may use. */
static int shared_cpu = -1;

static void choose_shared_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET((size_t)c, &set)) {
            shared_cpu = c;
            return;
        }
}

static void pin_to_shared_cpu(void)
{
    if (shared_cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((size_t)shared_cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0)
        fprintf(stderr, "gt-bench: cannot pin to CPU %d: %s\n", shared_cpu, strerror(errno));
}

/* What start_attached() adds to the summary: both series (to /dev/null),
 * the process series alone, the exporter on metrics_port, or three limits. */
enum { ATTACH_SERIES = 1, ATTACH_PROCESS_SERIES = 2, ATTACH_METRICS = 3, ATTACH_LIMITS = 4 };
static int metrics_port;

/* Starts gpu-tracker --pid root at interval (with what series asks: 0
 * nothing, else ATTACH_*); its pid. */
/* gpu-standin's second row: gpu-tracker with --gpu-details, the floor making
 * the same calls (what a GPU the job uses costs each sample). */
static int overhead_gpu_details;

static pid_t start_attached(const char *gt, pid_t root, double interval, int series)
{
    char pid[16], st[16], listen[32];
    snprintf(pid, sizeof pid, "%d", (int)root);
    snprintf(st, sizeof st, "%g", interval);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", metrics_port);
    pid_t g = fork();
    if (g == 0) {
        pin_to_shared_cpu();
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        if (series == ATTACH_SERIES)
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--process-csv", "/dev/null", "--system-csv", "/dev/null",
                  (char *)NULL);
        else if (series == ATTACH_PROCESS_SERIES)
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--process-csv", "/dev/null", (char *)NULL);
        else if (series == ATTACH_METRICS)
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--metrics-listen", listen, (char *)NULL);
        else if (series == ATTACH_LIMITS) /* limits never reached: the check alone */
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--max-ram", "1000GB", "--max-gpu-ram", "1000GB",
                  "--max-cpu-time", "1000d", (char *)NULL);
        else if (overhead_gpu_details) /* every GPU's every figure, every sample */
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--gpu-details", (char *)NULL);
        else
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", (char *)NULL);
        _exit(127);
    }
    return g;
}

/* What gpu-tracker wrote of its samples and schedule, into r. */
static void read_attached(struct run *r)
{
    json_object *j = json_object_from_file(out_json);
    if (j) {
        r->samples = jget(j, "measurement.samples");
        r->late = jget(j, "measurement.schedule.lateness_mean_ms");
        r->late_max = jget(j, "measurement.schedule.lateness_max_ms");
        r->skipped = jget(j, "measurement.schedule.skipped");
        json_object_put(j);
    }
}

static struct run attach_run(const char *gt, int n, double interval, double warm, double window,
                             int series)
{
    struct run r = {0};
    pid_t root = idle_tree(n);
    pid_t g = start_attached(gt, root, interval, series);
    r.window_cpu = measure(g, warm, window);
    kill(g, SIGINT);
    end_tracker(g, &r);
    end_tree(root);
    read_attached(&r);
    return r;
}

/* The descriptors of the floor loop: the files a sample of the tree under
 * root reads, opened once. The tree is found once (idle trees do not
 * change). */
struct floor_files {
    int *fd;
    size_t n, cap;
};

/* How often gpu-tracker re-reads an idle process's smaps_rollup (the
 * private/shared split; src/lib/read/tree.c, ROLLUP_REFRESH), and so the floor. */
#define FLOOR_ROLLUP_EVERY 10

static struct floor_files floor_rollups; /* each process's smaps_rollup */

/* Each process's CPU clock, read every sample as gpu-tracker reads it (the
 * nanosecond CPU of the means). */
static clockid_t *floor_clocks;
static size_t floor_nclocks, floor_capclocks;

static void floor_clock_add(pid_t pid)
{
    clockid_t c;
    if (clock_getcpuclockid(pid, &c) != 0)
        return;
    if (floor_nclocks == floor_capclocks) {
        floor_capclocks = floor_capclocks ? 2 * floor_capclocks : 64;
        floor_clocks = realloc(floor_clocks, floor_capclocks * sizeof *floor_clocks);
        if (!floor_clocks)
            exit(1);
    }
    floor_clocks[floor_nclocks++] = c;
}

/* overhead-series: gpu-tracker keeps both series (--process-csv and
 * --system-csv to /dev/null), and the floor reads what they add: each
 * process's smaps_rollup and io at every sample, /proc/diskstats,
 * /proc/net/dev and the root filesystem's space. */
static int overhead_series;

/* Files the floor could not keep for want of descriptors (the table's
 * "Descriptor limit" line says when that happens): counted, not printed
 * one by one. */
static long floor_over_limit;

static void floor_add(struct floor_files *f, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && (errno == EMFILE || errno == ENFILE))
        floor_over_limit++;
    else if (fd < 0 && errno != ENOENT && errno != ESRCH)
        fprintf(stderr, "gt-bench: the floor loop cannot open %s: %s\n", path, strerror(errno));
    if (fd < 0)
        return; /* a process that is gone: nothing to read */
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 64;
        f->fd = realloc(f->fd, f->cap * sizeof *f->fd);
        if (!f->fd)
            exit(1);
    }
    f->fd[f->n++] = fd;
}

static void floor_tree(struct floor_files *f, pid_t pid)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    floor_add(f, path);
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    floor_add(f, path);
    snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid); /* the run-queue delay */
    floor_add(f, path);
    floor_clock_add(pid);
    snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
    floor_add(overhead_series ? f : &floor_rollups, path);
    if (overhead_series) {
        snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
        floor_add(f, path);
    }
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char children[320];
        snprintf(children, sizeof children, "/proc/%d/task/%s/children", (int)pid, e->d_name);
        size_t before = f->n;
        floor_add(f, children);
        if (f->n == before)
            continue;
        /* A children file longer than a page comes a page per read; each
         * level has its own buffer (the recursion reads the next). */
        size_t cap = 1 << 20, len = 0;
        char *buf = malloc(cap);
        if (!buf)
            exit(1);
        for (ssize_t got; len < cap - 1 &&
                          (got = read(f->fd[f->n - 1], buf + len, cap - 1 - len)) > 0;)
            len += (size_t)got;
        buf[len] = '\0';
        for (char *s = buf, *end; *s; s = end) {
            long c = strtol(s, &end, 10);
            if (end == s)
                break;
            floor_tree(f, (pid_t)c);
        }
        free(buf);
    }
    closedir(d);
}

static volatile sig_atomic_t floor_stop;
static void floor_on_signal(int sig)
{
    (void)sig;
    floor_stop = 1;
}

/* The GPU part of the floor: where gpu-tracker would use NVML (the same
 * library: GPU_TRACKER_NVML_LIBRARY or the system's), the three calls a
 * GPU sample cannot do without, on every GPU: memory, utilization, the
 * running compute processes (docs/performance.md, "Tiers of cadence"). */
/* With overhead_gpu_details, also what the verdicts read on a GPU the job
 * uses: the processes' utilization (the count, then the samples), the
 * throttle reasons, and a GPM sample with the metrics over the pair (the
 * ten gpu_nvml.c asks for). */
typedef struct {
    unsigned id;
    int rc;
    double value;
    struct {
        char *short_name, *long_name, *unit;
    } info;
} floor_gpm_metric;
typedef struct {
    unsigned version, count;
    void *sample1, *sample2;
    floor_gpm_metric metrics[210];
} floor_gpm_get;

static struct {
    int ngpus;
    void *dev[64];
    int (*memory)(void *, void *);
    int (*utilization)(void *, void *);
    int (*processes)(void *, unsigned *, void *);
    int (*process_util)(void *, void *, unsigned *, unsigned long long);
    int (*throttle)(void *, unsigned long long *);
    int (*gpm_alloc)(void **);
    int (*gpm_sample)(void *, void *);
    int (*gpm_metrics)(floor_gpm_get *);
    void *gpm[64][2];
} floor_gpu;

static void floor_gpu_open(void)
{
    const char *path = getenv("GPU_TRACKER_NVML_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
    int (*handle)(unsigned, void **) =
        (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    floor_gpu.memory = (int (*)(void *, void *))dlsym(lib, "nvmlDeviceGetMemoryInfo");
    floor_gpu.utilization = (int (*)(void *, void *))dlsym(lib, "nvmlDeviceGetUtilizationRates");
    floor_gpu.processes = (int (*)(void *, unsigned *, void *))dlsym(
        lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (overhead_gpu_details) {
        floor_gpu.process_util = (int (*)(void *, void *, unsigned *, unsigned long long))dlsym(
            lib, "nvmlDeviceGetProcessUtilization");
        floor_gpu.throttle = (int (*)(void *, unsigned long long *))dlsym(
            lib, "nvmlDeviceGetCurrentClocksEventReasons");
        floor_gpu.gpm_alloc = (int (*)(void **))dlsym(lib, "nvmlGpmSampleAlloc");
        floor_gpu.gpm_sample = (int (*)(void *, void *))dlsym(lib, "nvmlGpmSampleGet");
        floor_gpu.gpm_metrics = (int (*)(floor_gpm_get *))dlsym(lib, "nvmlGpmMetricsGet");
    }
    unsigned n = 0;
    if (!init || !count || !handle || !floor_gpu.memory || !floor_gpu.utilization ||
        !floor_gpu.processes || init() != 0 || count(&n) != 0)
        return;
    for (unsigned i = 0; i < n && i < 64; i++)
        if (handle(i, &floor_gpu.dev[floor_gpu.ngpus]) == 0) {
            for (int k = 0; k < 2 && floor_gpu.gpm_alloc; k++)
                floor_gpu.gpm_alloc(&floor_gpu.gpm[floor_gpu.ngpus][k]);
            floor_gpu.ngpus++;
        }
}

/* The details' calls on GPU i (see floor_gpu). */
static void floor_gpu_details(int i)
{
    static unsigned char utils[1024 * 32];
    static floor_gpm_get get;
    static const unsigned ids[] = {2, 3, 5, 10, 11, 12, 13, 20, 21};
    unsigned long long reasons = 0;
    unsigned n = 0;
    if (floor_gpu.process_util) {
        floor_gpu.process_util(floor_gpu.dev[i], NULL, &n, 0);
        n = 1024;
        floor_gpu.process_util(floor_gpu.dev[i], utils, &n, 0);
    }
    if (floor_gpu.throttle)
        floor_gpu.throttle(floor_gpu.dev[i], &reasons);
    if (floor_gpu.gpm_sample && floor_gpu.gpm_metrics && floor_gpu.gpm[i][1]) {
        void *t = floor_gpu.gpm[i][0];
        floor_gpu.gpm[i][0] = floor_gpu.gpm[i][1];
        floor_gpu.gpm[i][1] = t;
        floor_gpu.gpm_sample(floor_gpu.dev[i], floor_gpu.gpm[i][1]);
        memset(&get, 0, sizeof get);
        get.version = 1;
        get.count = sizeof ids / sizeof ids[0];
        get.sample1 = floor_gpu.gpm[i][0];
        get.sample2 = floor_gpu.gpm[i][1];
        for (unsigned m = 0; m < get.count; m++)
            get.metrics[m].id = ids[m];
        floor_gpu.gpm_metrics(&get);
    }
}

static void floor_gpu_sample(void)
{
    unsigned long long mem[3];
    unsigned util[2];
    static unsigned char procs[256 * 24];
    for (int i = 0; i < floor_gpu.ngpus; i++) {
        unsigned n = 256;
        floor_gpu.memory(floor_gpu.dev[i], mem);
        floor_gpu.utilization(floor_gpu.dev[i], util);
        floor_gpu.processes(floor_gpu.dev[i], &n, procs);
        if (overhead_gpu_details)
            floor_gpu_details(i);
    }
}

/* The floor loop on the tree under root, for a run ended by SIGINT: it
 * writes the samples it took to report_fd. */
static void floor_loop(pid_t root, double interval, int report_fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    struct floor_files f = {0};
    floor_add(&f, "/proc/stat");
    floor_add(&f, "/proc/meminfo");
    DIR *proc_dir = NULL;
    if (overhead_series) {
        floor_add(&f, "/proc/diskstats");
        floor_add(&f, "/proc/net/dev");
        floor_add(&f, "/proc/pressure/cpu");
        floor_add(&f, "/proc/pressure/memory");
        floor_add(&f, "/proc/pressure/io");
        proc_dir = opendir("/proc"); /* the system's process count */
    }
    floor_tree(&f, root);
    floor_gpu_open();
    struct sigaction sa = {.sa_handler = floor_on_signal};
    sigaction(SIGINT, &sa, NULL);
    static char buf[65536];
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long samples = 1;
    long failed = 0;
    for (size_t i = 0; i < f.n; i++) /* the baseline */
        failed += pread(f.fd[i], buf, sizeof buf, 0) < 0;
    for (size_t i = 0; i < floor_rollups.n; i++)
        failed += pread(floor_rollups.fd[i], buf, sizeof buf, 0) < 0;
    for (long k = 1; !floor_stop; k++) {
        double at = (double)start.tv_sec + (double)start.tv_nsec / 1e9 + (double)k * interval;
        struct timespec ts = {(time_t)at, (long)((at - floor(at)) * 1e9)};
        if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR || floor_stop)
            break;
        for (size_t i = 0; i < f.n; i++)
            failed += pread(f.fd[i], buf, sizeof buf, 0) < 0;
        for (size_t i = 0; i < floor_nclocks; i++) {
            struct timespec run;
            failed += clock_gettime(floor_clocks[i], &run) < 0;
        }
        floor_gpu_sample();
        struct statvfs space;
        if (overhead_series)
            failed += statvfs("/", &space) < 0;
        if (proc_dir) {
            rewinddir(proc_dir);
            while (readdir(proc_dir))
                ;
        }
        for (size_t i = 0; k % FLOOR_ROLLUP_EVERY == 0 && i < floor_rollups.n; i++)
            failed += pread(floor_rollups.fd[i], buf, sizeof buf, 0) < 0;
        samples++;
    }
    if (failed)
        fprintf(stderr, "gt-bench: the floor loop failed %ld reads of %zu files\n", failed,
                f.n + floor_rollups.n);
    if (floor_over_limit)
        fprintf(stderr, "gt-bench: the floor loop kept %zu files, %ld more were over the "
                        "descriptor limit\n", f.n + floor_rollups.n, floor_over_limit);
    if (write(report_fd, &samples, sizeof samples) != (ssize_t)sizeof samples)
        _exit(1);
    _exit(0);
}

/* gpu-tracker and the floor loop on the same tree at the same time, the
 * floor's schedule half an interval after ours: both meet the same machine
 * (this shared VM's noise moved a row's ratio by +-30 % between separate
 * runs), and their reads do not coincide. Each one's CPU over the same
 * window, as measure() takes it. */
static void paired_run(const char *gt, pid_t root, double interval, double warm, double window,
                       struct run *ours, struct run *fl)
{
    memset(ours, 0, sizeof *ours);
    memset(fl, 0, sizeof *fl);
    pid_t g = start_attached(gt, root, interval, overhead_series ? ATTACH_SERIES : 0);
    nap(interval / 2);
    int report[2];
    if (pipe(report) < 0)
        exit(1);
    pid_t f = fork();
    if (f == 0) {
        pin_to_shared_cpu();
        close(report[0]);
        floor_loop(root, interval, report[1]);
    }
    close(report[1]);
    nap(warm);
    int k = subwindows(interval, window);
    double g_at[SUBWINDOWS_MAX + 1], f_at[SUBWINDOWS_MAX + 1];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i <= k; i++) {
        if (i)
            nap_until(&t0, window * i / k);
        g_at[i] = task_runtime(g);
        f_at[i] = task_runtime(f);
    }
    ours->window_cpu = median_window(g_at, k);
    fl->window_cpu = median_window(f_at, k);
    kill(f, SIGINT);
    long samples = 0;
    if (read(report[0], &samples, sizeof samples) != (ssize_t)sizeof samples)
        samples = 0;
    close(report[0]);
    waitpid(f, NULL, 0);
    fl->samples = (double)samples;
    double due = floor((warm + window) / interval) + 1;
    fl->skipped = due > fl->samples + 2 ? due - fl->samples : 0; /* not the edges' +-1 */
    kill(g, SIGINT);
    end_tracker(g, ours);
    read_attached(ours);
}

/* CPU per sample in the measured window: the samples due in it, less the
 * share a tracker that overran skipped (the run's skipped / due). */
static double per_sample(const struct run *r, double interval, double window)
{
    double taken = r->samples > 0 && r->skipped > 0 ? r->samples / (r->samples + r->skipped) : 1;
    return r->window_cpu >= 0 ? r->window_cpu / (window / interval * taken) : -1;
}

/* The window measured at each interval: whole samples, starting half an
 * interval after a sample, a second or more after the start. Short, for
 * many fresh pairs (REPEATS) rather than a few long ones. */
static double window_of(double interval)
{
    return interval >= 1 ? 4 : interval >= 0.1 ? 2 : 1;
}

static double warm_of(double interval)
{
    return (interval >= 1 ? 1 : 1 + interval) + interval / 2;
}

/* Descriptors a tracker keeps per process: its /proc directory, stat,
 * status, a children file per thread, smaps_rollup, io (the series). */
#define KEPT_PER_PROCESS 6

/* Both gpu-tracker and the floor keep each process's files open; under a
 * hard limit too low for the largest tree the floor reopens nothing (it
 * reads fewer files) and gpu-tracker reopens some each sample, which
 * compares unlike work. Raise the hard limit (inherited by both) where we
 * may (root, up to fs.nr_open); say the limit in the table either way. */
static rlim_t raise_descriptor_limit(int largest_tree)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    rlim_t want = (rlim_t)largest_tree * KEPT_PER_PROCESS + 1024;
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    unsigned long nr_open = 0;
    if (f) {
        if (fscanf(f, "%lu", &nr_open) != 1)
            nr_open = 0;
        fclose(f);
    }
    if (nr_open && want > nr_open)
        want = nr_open;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
        struct rlimit more = {want, want};
        if (setrlimit(RLIMIT_NOFILE, &more) == 0)
            rl = more;
    }
    return rl.rlim_max;
}

/* Paired runs per row, on the same tree, each with a fresh gpu-tracker and
 * floor loop. On this shared VM a process's cost per sample depends on its
 * whole life's luck (two copies of the same floor loop, pinned to the same
 * CPU at the same time, differed by up to 2x for a whole run, either way),
 * so one pair's ratio moved +-40 % between runs; the median of seven short
 * pairs moves much less than one long one. */
#define REPEATS 7

struct pair {
    struct run ours, floor;
    double ratio; /* ours per sample / the floor's; 0 when either failed */
};

static int by_ratio(const void *a, const void *b)
{
    double x = ((const struct pair *)a)->ratio, y = ((const struct pair *)b)->ratio;
    return (x > y) - (x < y);
}

static int overhead_brief; /* the table without its explanation (gpu-standin's) */

/* sizes: the tree sizes to measure (nsizes of them). */
static void overhead(const char *gt, int quick, const int *sizes, size_t nsizes)
{
    if (!overhead_brief)
        printf("Overhead: gpu-tracker --pid on N idle processes. A sample's cost is the CPU\n"
               "all its threads use in a window of whole samples once it runs steadily (the\n"
               "scheduler's nanosecond accounting), over the samples due in it; the fixed\n"
               "cost (start, GPU probe, exit) is what the whole run's rusage (wait4) has beyond.\n"
               "The floor: a loop that wakes on the same schedule and preads the same files\n"
               "(smaps_rollup every 10th sample, as we do) through descriptors kept open,\n"
               "and each process's CPU clock, parsing nothing (see bench.c), measured alike,\n"
               "at the same time on the same\n"
               "tree (half an interval after our samples), so that both meet the same machine\n"
               "(pinned to the same CPU); each one's CPU is the median of 4-5 parts of its\n"
               "window (4 s at --st 1, 2 s at 0.1, 1 s at 0.01). Each row: 7 such pairs on the\n"
               "same tree, each with a fresh gpu-tracker and floor (1 in quick mode); the row\n"
               "shows the pair with the median ratio, x range the lowest and highest ratio.\n"
               "Where NVML works, the floor also makes the three calls a GPU sample cannot do\n"
               "without on each GPU (memory, utilization, compute processes).\n");
    if (overhead_series && !overhead_brief)
        printf("With both series: gpu-tracker writes them (--process-csv, --system-csv to\n"
               "/dev/null); the floor also preads each process's smaps_rollup and io every\n"
               "sample, /proc/diskstats, /proc/net/dev and /proc/pressure/*, lists /proc\n"
               "(the system's process count) and statvfs()s the root.\n");
    int largest = 0;
    for (size_t k = 0; k < nsizes; k++)
        largest = sizes[k] > largest ? sizes[k] : largest;
    rlim_t limit = raise_descriptor_limit(largest);
    if (limit == RLIM_INFINITY)
        printf("Descriptor limit: unlimited.\n");
    else
        printf("Descriptor limit: %llu (%s for %d processes' files).\n",
               (unsigned long long)limit,
               limit >= (rlim_t)largest * KEPT_PER_PROCESS ? "enough" : "NOT enough: rows over "
               "it reopen files each sample", largest);
    printf("%6s %9s %8s %11s %14s %9s %12s %9s %9s %7s %9s %7s %10s\n", "--st", "processes",
           "samples", "us/sample", "us/sample/proc", "fixed ms", "peak RSS MiB", "late avg",
           "late max", "skipped", "floor us", "x floor", "x range");
    const double intervals[] = {1, 0.1, 0.01};
    int repeats = quick ? 1 : REPEATS;
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < nsizes; k++) {
            double iv = intervals[i], win = window_of(iv), warm = warm_of(iv);
            struct pair p[REPEATS];
            pid_t root = idle_tree(sizes[k]);
            for (int r = 0; r < repeats; r++) {
                paired_run(gt, root, iv, warm, win, &p[r].ours, &p[r].floor);
                double per = per_sample(&p[r].ours, iv, win);
                double floor_per = per_sample(&p[r].floor, iv, win);
                p[r].ratio = per > 0 && floor_per > 0 ? per / floor_per : 0;
            }
            end_tree(root);
            /* The row is the repetition with the median ratio, whole: its
             * figures belong together. */
            qsort(p, (size_t)repeats, sizeof p[0], by_ratio);
            const struct pair *m = &p[repeats / 2];
            double per = per_sample(&m->ours, iv, win);
            double fixed = m->ours.cpu - per * m->ours.samples;
            double floor_per = per_sample(&m->floor, iv, win);
            printf("%6g %9d %8.0f %11.1f %14.2f %9.1f %12.1f %7.2fms %7.2fms %7.0f %9.1f %7.2f "
                   "%5.2f-%.2f\n",
                   iv, sizes[k], m->ours.samples, per * 1e6, per * 1e6 / sizes[k], fixed * 1e3,
                   (double)m->ours.maxrss_kib / 1024.0, m->ours.late, m->ours.late_max,
                   m->ours.skipped, floor_per * 1e6, m->ratio, p[0].ratio,
                   p[repeats - 1].ratio);
            fflush(stdout);
        }
}

/* A table of the per-sample cost at --st 0.1 of the command attached to 1,
 * 10 and 100 idle processes, without and with what mode adds
 * (start_attached's ATTACH_*). */
static void with_and_without(const char *gt, const char *title, const char *with, int mode)
{
    printf("\n%s\n", title);
    printf("%9s %16s %16s\n", "processes", "summary us", with);
    const int sizes[] = {1, 10, 100};
    for (size_t k = 0; k < 3; k++) {
        char per[2][32];
        for (int m = 0; m < 2; m++) {
            struct run a = attach_run(gt, sizes[k], 0.1, warm_of(0.1), 3, m ? mode : 0);
            if (a.failed)
                snprintf(per[m], sizeof per[m], "failed");
            else
                snprintf(per[m], sizeof per[m], "%.1f", per_sample(&a, 0.1, 3) * 1e6);
        }
        printf("%9d %16s %16s\n", sizes[k], per[0], per[1]);
        fflush(stdout);
    }
}

/* What the time series add: both series (to /dev/null) read every process's
 * smaps_rollup and io, and diskstats, net/dev, mountinfo and statvfs. */
static void series_cost(const char *gt)
{
    with_and_without(gt, "Time series: per-sample cost at --st 0.1 without and with both series",
                     "with series us", ATTACH_SERIES);
}

/* Limits (--max-ram, --max-gpu-ram, --max-cpu-time, none reached): what
 * the limits' watch adds to each sample, fed by the tracker's per-sample
 * callback (three figures read under the tracker's lock). */
static void limits_cost(const char *gt)
{
    with_and_without(gt, "Limits' watch: per-sample cost at --st 0.1 without and with three "
                     "limits", "with limits us", ATTACH_LIMITS);
}

/* A free port on 127.0.0.1 for the exporter (another program could take
 * it before gpu-tracker binds it: then that run fails, and says so). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
                       getsockname(fd, (struct sockaddr *)&a, &len) == 0
                   ? ntohs(a.sin_port) : 0;
    if (fd >= 0)
        close(fd);
    return port;
}

/* One GET /metrics to 127.0.0.1:port, read to its end: the body's bytes,
 * or -1 when it could not be had. */
static long scrape(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n";
    long n = write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1) ? 0 : -1;
    char buf[65536];
    for (ssize_t got; n >= 0 && (got = read(fd, buf, sizeof buf)) > 0;)
        n += got;
    close(fd);
    return n;
}

/* The exporter (--metrics-listen): what it adds to each sample while no one
 * scrapes, against the summary alone and against the process series (whose
 * files, smaps_rollup and io, it reads for PSS and the I/O counters); and
 * what one scrape costs gpu-tracker, against one sample. */
static void exporter_cost(const char *gt)
{
    metrics_port = free_port();
    printf("\nExporter: per-sample cost at --st 0.1, no scraper connected\n");
    printf("%9s %12s %18s %16s\n", "processes", "summary us", "process series us",
           "--metrics-listen us");
    const int sizes[] = {1, 10, 100};
    const int modes[] = {0, ATTACH_PROCESS_SERIES, ATTACH_METRICS};
    double per100[3] = {0, 0, 0};
    for (size_t k = 0; k < 3; k++) {
        char per[3][32];
        for (int m = 0; m < 3; m++) {
            struct run a = attach_run(gt, sizes[k], 0.1, warm_of(0.1), 3, modes[m]);
            double us = a.failed ? -1 : per_sample(&a, 0.1, 3) * 1e6;
            if (sizes[k] == 100)
                per100[m] = us;
            if (us < 0)
                snprintf(per[m], sizeof per[m], "failed");
            else
                snprintf(per[m], sizeof per[m], "%.1f", us);
        }
        printf("%9d %12s %18s %16s\n", sizes[k], per[0], per[1], per[2]);
        fflush(stdout);
    }

    /* Scrapes: gpu-tracker samples only every 10 s here, so that nearly
     * all of its CPU in the window is the scrapes'. */
    pid_t root = idle_tree(100);
    pid_t g = start_attached(gt, root, 10, ATTACH_METRICS);
    nap(1.5);
    const int n = 200;
    long bytes = 0;
    struct timespec t0, t1;
    double before = task_runtime(g);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < n && bytes >= 0; i++) {
        long b = scrape(metrics_port);
        bytes = b < 0 ? -1 : b;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double after = task_runtime(g);
    kill(g, SIGINT);
    struct run r = {0};
    end_tracker(g, &r);
    end_tree(root);
    if (bytes < 0 || before < 0 || after < before) {
        printf("Scrape: failed (could not reach the exporter on port %d)\n", metrics_port);
        return;
    }
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("Scrape of 100 processes' metrics (%ld bytes): %.1f us of gpu-tracker's CPU each "
           "(%d scrapes; one sample at --st 0.1 with the exporter: %.1f us), %.1f us wall "
           "each from the client\n", bytes, (after - before) / n * 1e6, n, per100[2],
           wall / n * 1e6);
}

/* The truth a workload wrote: the largest peak and the sum of peaks (kB),
 * and the CPU seconds of all its processes. */
static void truth(const char *path, double *max_kb, double *sum_kb, double *cpu)
{
    *max_kb = *sum_kb = *cpu = 0;
    FILE *f = fopen(path, "r");
    double kb, s;
    while (f && fscanf(f, "%lf %lf", &kb, &s) == 2) {
        if (kb > *max_kb)
            *max_kb = kb;
        *sum_kb += kb;
        *cpu += s;
    }
    if (f)
        fclose(f);
}

/* What reading the job's cgroup adds to a sample, against a sample's
 * whole cost: the reads timed directly by gt-bench-cgroup (beside the
 * workload binary wl) on a group of N idle processes, since the difference
 * of two gpu-tracker runs is a few microseconds in tens of run-to-run
 * noise; the sample's cost measured as in the table above. */
static void cgroup_cost(const char *gt, const char *wl)
{
    printf("\ncgroup: what the group's files cost a sample at --st 0.1 (periodic: members, "
           "usage, high-water mark, OOM counters; full: also CPU, throttling, pressure, "
           "limits, at the baseline and the final sample only)\n");
    printf("%9s %12s %14s %12s %10s\n", "processes", "sample us", "periodic us", "full us",
           "share");
    char tool[4096];
    snprintf(tool, sizeof tool, "%s", wl);
    char *slash = strrchr(tool, '/');
    snprintf(slash ? slash + 1 : tool, sizeof tool - (size_t)(slash ? slash + 1 - tool : 0),
             "gt-bench-cgroup");
    const int sizes[] = {1, 10, 100};
    for (size_t k = 0; k < 3; k++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "%s %d", tool, sizes[k]);
        FILE *f = popen(cmd, "r");
        char line[600] = "";
        if (!f || !fgets(line, sizeof line, f))
            snprintf(line, sizeof line, "not measured: %.500s did not run\n", tool);
        if (f)
            pclose(f);
        double periodic, full;
        if (sscanf(line, "%lf %lf", &periodic, &full) != 2) {
            printf("%9d %s", sizes[k], line);
            continue;
        }
        struct run a = attach_run(gt, sizes[k], 0.1, warm_of(0.1), 3, 0);
        double us = a.failed ? -1 : per_sample(&a, 0.1, 3) * 1e6;
        if (us <= 0)
            printf("%9d %12s %14.1f %12.1f\n", sizes[k], "failed", periodic, full);
        else
            printf("%9d %12.1f %14.1f %12.1f %9.1f%%\n", sizes[k], us, periodic, full,
                   100 * periodic / us);
        fflush(stdout);
    }
}

/* One run of argv (output to /dev/null): its wall and CPU seconds. -1 when
 * it could not run or failed. */
static int spawn_cost(char *const argv[], double *wall, double *cpu)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    *cpu = cpu_of(&ru);
    return 0;
}

/* What the GPU part of a sample costs us (one NVML query a sample, the
 * library kept open) against spawning nvidia-smi for the same figures, as
 * other trackers do each sample. Ours: CPU a sample of gpu-tracker --pid
 * on one idle process at --st 1 with the GPU library and without it
 * (GPU_TRACKER_NVML_LIBRARY pointing nowhere), medians of 3 pairs. */
static void gpu_query_cost(const char *gt)
{
    printf("\ngpu-query: one GPU query a sample against spawning nvidia-smi\n");
    if (system("command -v nvidia-smi >/dev/null 2>&1") != 0) {
        printf("not measured: no nvidia-smi on this machine (no NVIDIA driver)\n");
        return;
    }
    enum { PAIRS = 3, SPAWNS = 20 };
    double with[PAIRS], without[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        struct run a = attach_run(gt, 1, 1.0, warm_of(1.0), window_of(1.0), 0);
        setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
        struct run b = attach_run(gt, 1, 1.0, warm_of(1.0), window_of(1.0), 0);
        unsetenv("GPU_TRACKER_NVML_LIBRARY");
        with[i] = a.failed ? -1 : per_sample(&a, 1.0, window_of(1.0));
        without[i] = b.failed ? -1 : per_sample(&b, 1.0, window_of(1.0));
    }
    qsort(with, PAIRS, sizeof with[0], by_value);
    qsort(without, PAIRS, sizeof without[0], by_value);
    printf("%-72s %10s %10s\n", "", "wall ms", "CPU ms");
    printf("%-72s %10s %10.2f\n", "gpu-tracker sample with NVML (1 process)", "-", with[1] * 1e3);
    printf("%-72s %10s %10.2f\n", "gpu-tracker sample without a GPU library", "-",
           without[1] * 1e3);
    printf("%-72s %10s %10.2f\n", "  the GPU query's share", "-", (with[1] - without[1]) * 1e3);
    char *const queries[][5] = {
        {"nvidia-smi", "--query-gpu=memory.used,utilization.gpu", "--format=csv,noheader", NULL},
        {"nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader", NULL},
    };
    for (size_t q = 0; q < 2; q++) {
        double wall[SPAWNS], cpu[SPAWNS];
        int n = 0;
        for (int i = 0; i < SPAWNS; i++)
            if (spawn_cost(queries[q], &wall[n], &cpu[n]) == 0)
                n++;
        if (n == 0) {
            printf("%-72s failed\n", queries[q][1]);
            continue;
        }
        qsort(wall, (size_t)n, sizeof wall[0], by_value);
        qsort(cpu, (size_t)n, sizeof cpu[0], by_value);
        char label[80];
        snprintf(label, sizeof label, "spawn nvidia-smi %s (median of %d)", queries[q][1], n);
        printf("%-72s %10.2f %10.2f\n", label, wall[n / 2] * 1e3, cpu[n / 2] * 1e3);
    }
    fflush(stdout);
}

/* A GPU sample against the floor's three calls, with a stand-in NVML whose
 * every device call costs the same (the tests' fake library, `cost` in its
 * scenario): what the sample's calls cost beyond the three it cannot do
 * without, free of a real driver's unequal prices (docs/performance.md).
 * Two GPUs, one idle process, every interval, 7 pairs a row. The fake
 * library is looked for beside the workload binary's folder
 * (../tests/libfake-nvml.so), as the build lays them out. */
static void gpu_standin_cost(const char *gt, const char *wl, long cost_us)
{
    printf("\ngpu-standin: a sample with 2 GPUs on a stand-in NVML whose every device call "
           "costs %ld us of CPU, against the floor making the 3 calls a sample cannot do "
           "without (memory, utilization, compute processes) on each GPU\n", cost_us);
    char lib[4096];
    snprintf(lib, sizeof lib, "%s", wl);
    char *slash = strrchr(lib, '/');
    snprintf(slash ? slash + 1 : lib, sizeof lib - (size_t)(slash ? slash + 1 - lib : 0),
             "../tests/libfake-nvml.so");
    if (access(lib, R_OK) != 0) {
        printf("not measured: no stand-in library at %s (built with the tests)\n", lib);
        return;
    }
    char scenario[] = "/tmp/gt-bench-nvml-XXXXXX";
    int fd = mkstemp(scenario);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        printf("not measured: cannot write a scenario in /tmp: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    /* (throttle reasons and a process's utilization on each GPU: the
     * details' calls answered, as a driver answers them, not refused) */
    fprintf(f, "cost %ld\n"
               "device GPU-00000000-0000-0000-0000-000000000000 Stand-in 85899345920 0 0\n"
               "device GPU-11111111-1111-1111-1111-111111111111 Stand-in 85899345920 0 0\n"
               "throttle 0 0\nthrottle 1 0\nprocutil 0 1 0\nprocutil 1 1 0\n",
            cost_us);
    if (fclose(f) != 0) {
        printf("not measured: cannot write %s\n", scenario);
        unlink(scenario);
        return;
    }
    setenv("FAKE_NVML_SCENARIO", scenario, 1);
    setenv("GPU_TRACKER_NVML_LIBRARY", lib, 1);
    const int one[] = {1};
    overhead_brief = 1;
    overhead(gt, 0, one, 1);
    printf("\nthe same with --gpu-details: on each GPU, as on a GPU the job uses at every "
           "sample, the processes' utilization (2 calls), the throttle reasons, a GPM sample "
           "and its metrics, the floor making them too (8 calls a GPU)\n");
    overhead_gpu_details = 1;
    overhead(gt, 0, one, 1);
    overhead_gpu_details = 0;
    overhead_brief = 0;
    unsetenv("GPU_TRACKER_NVML_LIBRARY");
    unsetenv("FAKE_NVML_SCENARIO");
    unlink(scenario);
}

/* Runs gpu-tracker (extra options, then the command) with its JSON summary
 * in out_json and its standard output in human_out (when not NULL, for -f
 * human: then out_json is not written); the JSON, or NULL. */
static json_object *run_tracked(const char *gt, const char *truth_file, char *const extra[],
                               char *const command[], const char *human_out)
{
    if (truth_file)
        unlink(truth_file);
    pid_t g = fork();
    if (g == 0) {
        int out = human_out ? open(human_out, O_WRONLY | O_CREAT | O_TRUNC, 0600)
                            : open("/dev/null", O_WRONLY);
        int null = open("/dev/null", O_WRONLY);
        dup2(out, 1);
        dup2(null, 2);
        if (truth_file)
            setenv("GT_TRUTH_FILE", truth_file, 1);
        /* -f human unwrapped: a phrase looked for is on one line */
        setenv("COLUMNS", "1000", 1);
        char *argv[40];
        int n = 0;
        argv[n++] = (char *)gt;
        argv[n++] = "-q";
        argv[n++] = "--ru";
        argv[n++] = "bytes";
        argv[n++] = "--tu";
        argv[n++] = "seconds";
        if (!human_out) {
            argv[n++] = "-f";
            argv[n++] = "json";
            argv[n++] = "-o";
            argv[n++] = out_json;
        } else {
            argv[n++] = "-f";
            argv[n++] = "human";
        }
        for (int i = 0; extra[i] && n < 30; i++)
            argv[n++] = extra[i];
        argv[n++] = "--";
        for (int i = 0; command[i] && n < 39; i++)
            argv[n++] = command[i];
        argv[n] = NULL;
        execv(gt, argv);
        _exit(127);
    }
    /* We are a subreaper (main): an orphan of a --sampled-only run (which
     * is no subreaper) comes to us, and the orphan workload waits until it
     * is reaped. So reap whatever ends until the tracker does. */
    for (pid_t w; (w = waitpid(-1, NULL, 0)) != g;)
        if (w < 0 && errno != EINTR)
            break;
    return human_out ? NULL : json_object_from_file(out_json);
}

/* Runs the workload under gpu-tracker --st 1; the combined peak (KiB) and
 * CPU seconds it reports (group: with --cgroup, the peak is the group's,
 * -1 where it has none). */
static void tracked_as(const char *gt, const char *wl, char *const args[], int sampled, int group,
                       const char *truth_file, double *peak_kib, double *cpu)
{
    char *extra[8];
    int n = 0;
    extra[n++] = "--st";
    extra[n++] = "1";
    extra[n++] = "--disable-logs";
    if (sampled)
        extra[n++] = "--sampled-only";
    if (group)
        extra[n++] = "--cgroup";
    extra[n] = NULL;
    char *command[8];
    command[0] = (char *)wl;
    for (n = 0; args[n] && n < 6; n++)
        command[n + 1] = args[n];
    command[n + 1] = NULL;
    json_object *j = run_tracked(gt, truth_file, extra, command, NULL);
    *peak_kib = j ? jget(j, "max_ram.combined.total_rss") / 1024.0 : -1;
    if (group) {
        json_object *av = NULL;
        int available = j && json_object_object_get_ex(j, "cgroup", &av) &&
                        json_object_object_get_ex(av, "available", &av) &&
                        json_object_get_boolean(av);
        *peak_kib = available ? jget(j, "cgroup.memory.peak") / 1024.0 : -1;
    }
    *cpu = j ? jget(j, "cpu_utilization.combined.mean_sum_percent") / 100.0 *
                   jget(j, "compute_time.time")
             : -1;
    if (j)
        json_object_put(j);
}

static void accuracy(const char *gt, const char *wl)
{
    printf("\nAccuracy at --st 1: combined peak RSS and CPU seconds, against what the kernel "
           "counted (VmHWM, rusage)\n");
    printf("%-30s %10s %18s %18s %8s %14s %14s\n", "workload", "truth MiB", "gpu-tracker MiB",
           "sampled-only MiB", "truth s", "gpu-tracker s", "sampled-only s");
    struct {
        const char *label;
        char *args[6];
        int sum; /* the truth peak is the sum of the processes' peaks (all at once) */
    } runs[] = {
        {"steady 300 MiB, 3 s", {"steady", "300", "3", NULL}, 0},
        {"growing to 400 MiB over 3 s", {"growing", "400", "3", NULL}, 0},
        {"bursty: 5 x 100 ms of 300 MiB", {"bursty", "300", "5", NULL}, 0},
        {"tree: 4 children x 150 MiB", {"tree", "4", "150", NULL}, 1},
        {"orphaned grandchild, 200 MiB", {"orphan", "200", "0.5", NULL}, 0},
    };
    char truth_file[] = "/tmp/gt-bench-truth-XXXXXX";
    int fd = mkstemp(truth_file);
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        double exact_peak, exact_cpu, naive_peak, naive_cpu, tmax, tsum, tcpu;
        tracked_as(gt, wl, runs[i].args, 0, 0, truth_file, &exact_peak, &exact_cpu);
        truth(truth_file, &tmax, &tsum, &tcpu);
        tracked_as(gt, wl, runs[i].args, 1, 0, truth_file, &naive_peak, &naive_cpu);
        double t = (runs[i].sum ? tsum : tmax) / 1024.0;
        printf("%-30s %10.1f %10.1f (%+4.0f%%) %10.1f (%+4.0f%%) %8.2f %8.2f (%+3.0f%%) %8.2f "
               "(%+3.0f%%)\n",
               runs[i].label, t, exact_peak / 1024.0, (exact_peak / 1024.0 / t - 1) * 100,
               naive_peak / 1024.0, (naive_peak / 1024.0 / t - 1) * 100, tcpu, exact_cpu,
               tcpu > 0 ? (exact_cpu / tcpu - 1) * 100 : 0, naive_cpu,
               tcpu > 0 ? (naive_cpu / tcpu - 1) * 100 : 0);
        fflush(stdout);
    }
    /* The tree again with --cgroup: the group's high-water mark. */
    double group_peak, group_cpu, tmax, tsum, tcpu;
    char *tree_args[] = {"tree", "4", "150", NULL};
    tracked_as(gt, wl, tree_args, 0, 1, truth_file, &group_peak, &group_cpu);
    truth(truth_file, &tmax, &tsum, &tcpu);
    if (group_peak < 0)
        printf("%-30s %10.1f %18s (no cgroup could be made: gpu-tracker --cgroup says why)\n",
               "tree, --cgroup (group peak)", tsum / 1024.0, "n/a");
    else
        printf("%-30s %10.1f %10.1f (%+4.0f%%) %18s %8.2f %8.2f (%+3.0f%%)\n",
               "tree, --cgroup (group peak)", tsum / 1024.0, group_peak / 1024.0,
               (group_peak / tsum - 1) * 100, "-", tcpu, group_cpu,
               tcpu > 0 ? (group_cpu / tcpu - 1) * 100 : 0);
    unlink(truth_file);
}

/* Whether the file holds text. */
static int file_says(const char *path, const char *text)
{
    char buf[16384];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

#define MIB (1024.0 * 1024.0)

static pid_t spinners[64];
static int nspinners;

/* Twice as many busy processes as cores (at most 64), or none. */
static void spin(int on)
{
    if (!on) {
        for (int i = 0; i < nspinners; i++) {
            kill(spinners[i], SIGKILL);
            waitpid(spinners[i], NULL, 0);
        }
        nspinners = 0;
        return;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores > 0 && cores < 32 ? (int)cores * 2 : 64;
    for (nspinners = 0; nspinners < n; nspinners++)
        if ((spinners[nspinners] = fork()) == 0)
            for (;;)
                ; /* a busy loop until killed */
}

/* A row of the starvation corner: the command among the spinners, its
 * run-queue figures (JSON) and the verdict (-f human, in the file human);
 * starved: whether the verdict should be "starved". */
static void starved_row(const char *gt, const char *label, char *const command[],
                        const char *human, int starved)
{
    char *st02[] = {"--st", "0.2", NULL};
    json_object *j = run_tracked(gt, NULL, st02, command, NULL);
    double wait = j ? jget(j, "measurement.run_queue.wait_seconds") : -1;
    double run = j ? jget(j, "measurement.run_queue.run_seconds") : -1;
    if (j)
        json_object_put(j);
    run_tracked(gt, NULL, st02, command, human);
    int said = file_says(human, "CPU starved");
    char col[64];
    snprintf(col, sizeof col, "waited %.3f s, %.0f %%", wait,
             wait + run > 0 ? wait / (wait + run) * 100 : 0);
    printf("%-44s %-28s %s\n", label, col,
           starved && wait < 0 ? "no run-queue figure here"
           : said ? (starved ? "starved" : "STARVED (wrong)")
                  : (starved ? "not starved (wrong)" : "not starved"));
}

/* The five corners of docs/metrics.md ("Corners"), each against its truth:
 * what the kernel counted, or what the machine can give. */
static void corners(const char *gt, const char *wl)
{
    printf("\nAccuracy in the corners (docs/metrics.md, \"Corners\"): each against its truth\n");
    printf("%-44s %-28s %s\n", "corner", "truth", "gpu-tracker");
    char truth_file[] = "/tmp/gt-bench-truth-XXXXXX", human[] = "/tmp/gt-bench-human-XXXXXX";
    int fd = mkstemp(truth_file);
    if (fd >= 0)
        close(fd);
    fd = mkstemp(human);
    if (fd >= 0)
        close(fd);
    double tmax, tsum, tcpu;

    /* 1. Children the kernel reaps: 2 x 200 MiB at once, between samples. */
    char *ignored[] = {(char *)wl, "ignored", "2", "200", NULL};
    char *st10[] = {"--st", "10", NULL};
    json_object *j = run_tracked(gt, truth_file, st10, ignored, NULL);
    truth(truth_file, &tmax, &tsum, &tcpu);
    int said = j && jget(j, "measurement.children_reaped_by_kernel.pid") > 0;
    char col[64];
    snprintf(col, sizeof col, "%.1f MiB, %.2f s CPU", tsum / 1024.0, tcpu);
    printf("%-44s %-28s %.1f MiB, %.2f s CPU; %s\n", "1. SIGCHLD ignored, 2 x 200 MiB children",
           col, j ? jget(j, "max_ram.combined.total_rss") / MIB : -1,
           j ? jget(j, "cpu_utilization.combined.mean_sum_percent") / 100 *
                   jget(j, "compute_time.time") : -1,
           said ? "caveat said, figures listed as may_be_low" : "NOT SAID");
    if (j)
        json_object_put(j);
    char *st10_cg[] = {"--st", "10", "--cgroup", NULL};
    j = run_tracked(gt, truth_file, st10_cg, ignored, NULL);
    truth(truth_file, &tmax, &tsum, &tcpu);
    int group = j && jget(j, "cgroup.memory.peak") > 0;
    if (group && jget(j, "cgroup.cpu.seconds") > 0)
        printf("%-44s %-28s %.1f MiB group peak (%+.0f%%), %.2f s group CPU\n",
               "   with --cgroup", "", jget(j, "cgroup.memory.peak") / MIB,
               (jget(j, "cgroup.memory.peak") / 1024 / tsum - 1) * 100,
               jget(j, "cgroup.cpu.seconds"));
    else if (group)
        printf("%-44s %-28s %.1f MiB group peak (%+.0f%%); no CPU controller here\n",
               "   with --cgroup", "", jget(j, "cgroup.memory.peak") / MIB,
               (jget(j, "cgroup.memory.peak") / 1024 / tsum - 1) * 100);
    else
        printf("%-44s (no cgroup could be made here)\n", "   with --cgroup");
    if (j)
        json_object_put(j);

    /* 2. A window of a few milliseconds: 20 runs of a 4 ms burn. */
    char *burn[] = {(char *)wl, "steady", "0", "0.008", NULL};
    char *st01[] = {"--st", "0.1", NULL};
    double worst = 0;
    for (int i = 0; i < 20; i++) {
        j = run_tracked(gt, NULL, st01, burn, NULL);
        double pct = j ? jget(j, "cpu_utilization.combined.mean_sum_percent") : -1;
        if (pct > worst)
            worst = pct;
        if (j)
            json_object_put(j);
    }
    printf("%-44s %-28s %.0f %% at worst of 20 runs\n", "2. one thread, 4 ms, --st 0.1",
           "at most 100 % (one thread)", worst);

    /* 3. A launcher's helper, then exec: 100 MiB is main's. */
    char script[1024];
    snprintf(script, sizeof script, "%s steady 2 0; exec %s steady 100 0", wl, wl);
    char *launcher[] = {"/bin/sh", "-c", script, NULL};
    j = run_tracked(gt, truth_file, st10, launcher, NULL);
    truth(truth_file, &tmax, &tsum, &tcpu);
    int unknown = j && json_object_get_boolean(
        json_object_object_get(json_object_object_get(j, "measurement"),
                               "main_descendants_split_unknown"));
    snprintf(col, sizeof col, "main %.1f MiB", tmax / 1024);
    printf("%-44s %-28s total %.1f MiB, main at most %.1f MiB: %s\n",
           "3. helper, then exec of 100 MiB, no sample", col,
           j ? jget(j, "max_ram.combined.total_rss") / MIB : -1,
           j ? jget(j, "measurement.at_most_rss_bytes.main") / MIB : -1,
           unknown ? "split said unknown" : "NOT SAID");
    if (j)
        json_object_put(j);
    /* A launcher's child that peaks between two samples (`bash run.sh`):
     * 400 MiB is a descendant's. */
    snprintf(script, sizeof script, "sleep 1.25; %s steady 400 0; sleep 1.5", wl);
    char *child_peak[] = {"/bin/sh", "-c", script, NULL};
    char *st1[] = {"--st", "1", NULL};
    j = run_tracked(gt, truth_file, st1, child_peak, NULL);
    truth(truth_file, &tmax, &tsum, &tcpu);
    snprintf(col, sizeof col, "descendant %.1f MiB", tmax / 1024);
    printf("%-44s %-28s main %.1f MiB, descendants %.1f MiB\n",
           "   a launcher's child between samples", col,
           j ? jget(j, "max_ram.main.total_rss") / MIB : -1,
           j ? jget(j, "max_ram.descendants.total_rss") / MIB : -1);
    if (j)
        json_object_put(j);

    /* 4. Starvation: a sleeper and a burner among 2 x cores spinners. */
    spin(1);
    char *sleeper[] = {"/bin/sh", "-c", "echo printed; sleep 1", NULL};
    starved_row(gt, "4. sleeps 1 s, machine saturated", sleeper, human, 0);
    char *burner[] = {(char *)wl, "steady", "0", "1", NULL};
    starved_row(gt, "   burns 0.5 s among them", burner, human, 1);
    spin(0);

    /* 5. 200 MiB streamed through the page cache, in a cgroup of its own. */
    char stream[] = "/tmp/gt-bench-stream-XXXXXX";
    fd = mkstemp(stream);
    if (fd >= 0)
        close(fd);
    snprintf(script, sizeof script, "dd if=/dev/zero of=%s bs=1M count=200 2>/dev/null && cat %s "
             ">/dev/null", stream, stream);
    char *dd[] = {"/bin/sh", "-c", script, NULL};
    char *cg[] = {"--st", "0.2", "--cgroup", NULL};
    run_tracked(gt, NULL, cg, dd, human);
    int cache_said = file_says(human, "page cache the kernel could reclaim");
    j = run_tracked(gt, NULL, cg, dd, NULL);
    if (j && jget(j, "cgroup.memory.peak") > 0) {
        snprintf(col, sizeof col, "RSS %.1f MiB (processes)",
                 jget(j, "max_ram.combined.total_rss") / MIB);
        printf("%-44s %-28s group peak %.1f MiB, %.1f MiB of it reclaimable cache: %s\n",
               "5. dd 200 MiB through the page cache", col,
               jget(j, "cgroup.memory.peak") / MIB,
               (jget(j, "cgroup.memory.at_peak_sample.file") -
                jget(j, "cgroup.memory.at_peak_sample.shmem")) / MIB,
               cache_said ? "said" : "NOT SAID");
    } else
        printf("%-44s (no cgroup could be made here)\n", "5. dd 200 MiB through the page cache");
    if (j)
        json_object_put(j);
    unlink(stream);
    unlink(human);
    unlink(truth_file);
}

/* gt-bench --rusage FILE COMMAND ARGS...: runs COMMAND and writes "CPU_S
 * MAXRSS_KIB EXIT" to FILE, from its wait4 rusage. For python_overhead.py:
 * a child of a Python process starts with the interpreter's high-water mark
 * (Linux carries it across exec), a grandchild of this small process with
 * ours, below any command's own. */
static int rusage_of(const char *file, char **command)
{
    pid_t pid = fork();
    if (pid == 0) {
        execvp(command[0], command);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return 1;
    FILE *f = fopen(file, "w");
    if (!f)
        return 1;
    fprintf(f, "%.6f %ld %d\n",
            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
            ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return fclose(f) != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "--rusage"))
        return rusage_of(argv[2], argv + 3);
    if (argc == 4 && !strcmp(argv[1], "--idle-root")) {
        idle_root(atoi(argv[2]), atoi(argv[3]));
        return 1;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: gt-bench GPU_TRACKER GT_BENCH_WORKLOAD [quick [N...]|overhead [N...]|overhead-series [N...]|exporter|cgroup|gpu-query|gpu-standin [US]|accuracy]\n");
        return 2;
    }
    /* overhead N... / quick N...: only those tree sizes (to look at one
     * closely). */
    int sizes[16] = {1, 10, 100, 1000, 5000};
    size_t nsizes = 5;
    overhead_series = argc > 3 && !strcmp(argv[3], "overhead-series");
    if (argc > 4 && (!strcmp(argv[3], "overhead") || !strcmp(argv[3], "quick") ||
                     overhead_series)) {
        nsizes = 0;
        for (int i = 4; i < argc; i++) {
            char *end;
            long n = strtol(argv[i], &end, 10);
            if (*end || n < 1 || n > 20000 || nsizes == sizeof sizes / sizeof sizes[0]) {
                fprintf(stderr, "gt-bench: tree size '%s': give 1 to 20000 processes, at most "
                                "16 sizes\n", argv[i]);
                return 2;
            }
            sizes[nsizes++] = (int)n;
        }
    }
    /* Orphans of the killed trees come to us, to be waited for (end_tree). */
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
        fprintf(stderr, "gt-bench: cannot become a subreaper: %s; runs may overlap the last "
                        "tree's teardown\n", strerror(errno));
    int fd = mkstemp(out_json);
    if (fd < 0)
        return 1;
    close(fd);
    choose_shared_cpu();
    if (argc > 3 && !strcmp(argv[3], "accuracy")) { /* that section alone */
        accuracy(argv[1], argv[2]);
        corners(argv[1], argv[2]);
        unlink(out_json);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "cgroup")) { /* that section alone */
        cgroup_cost(argv[1], argv[2]);
        unlink(out_json);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "gpu-query")) { /* that section alone */
        gpu_query_cost(argv[1]);
        unlink(out_json);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "gpu-standin")) { /* that section alone */
        long cost = argc > 4 ? strtol(argv[4], NULL, 10) : 300;
        if (cost < 1 || cost > 100000) {
            fprintf(stderr, "gt-bench: gpu-standin '%s': give a call's cost in microseconds, "
                            "1 to 100000\n", argv[4]);
            unlink(out_json);
            return 2;
        }
        gpu_standin_cost(argv[1], argv[2], cost);
        unlink(out_json);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "exporter")) { /* that section alone */
        exporter_cost(argv[1]);
        unlink(out_json);
        return 0;
    }
    if (argc > 3 && !strcmp(argv[3], "limits")) { /* that section alone */
        limits_cost(argv[1]);
        unlink(out_json);
        return 0;
    }
    int quick = argc > 3 && !strcmp(argv[3], "quick");
    int only_overhead = argc > 3 && (!strcmp(argv[3], "overhead") || overhead_series ||
                                     (quick && argc > 4));
    overhead(argv[1], quick, sizes, nsizes);
    if (!only_overhead) {
        series_cost(argv[1]);
        exporter_cost(argv[1]);
        limits_cost(argv[1]);
        cgroup_cost(argv[1], argv[2]);
        gpu_query_cost(argv[1]);
        gpu_standin_cost(argv[1], argv[2], 300);
        accuracy(argv[1], argv[2]);
        corners(argv[1], argv[2]);
    }
    unlink(out_json);
    return 0;
}
