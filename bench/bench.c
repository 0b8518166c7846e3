/* bench/bench.c - what tracking costs and how exact it is, as tables
 * (figures, not tests: `make bench`).
 *
 *   gt-bench GPU_TRACKER GT_BENCH_WORKLOAD [quick]
 *
 * Overhead: gpu-tracker --pid on idle trees of 1, 10, 100, 1000 and 5000
 * processes at --st 1, 0.1 and 0.01; its CPU time and peak RSS from its own
 * rusage (wait4: measured from outside), samples and schedule lateness from
 * its JSON.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char out_json[] = "/tmp/gt-bench-XXXXXX";

/* A tree: one root that forks n-1 idle children; returns the root's pid. */
static pid_t idle_tree(int n)
{
    int ready[2];
    if (pipe(ready) < 0)
        exit(1);
    pid_t root = fork();
    if (root == 0) {
        setpgid(0, 0); /* one group, so that the bench can kill it whole */
        close(ready[0]);
        for (int i = 1; i < n; i++)
            if (fork() == 0) {
                for (;;)
                    pause();
            }
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
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
    double cpu, samples, late, late_max;
    long maxrss_kib;
};

static struct run attach_run(const char *gt, int n, double interval, double seconds, int series)
{
    struct run r = {0};
    pid_t root = idle_tree(n);
    char pid[16], st[16];
    snprintf(pid, sizeof pid, "%d", (int)root);
    snprintf(st, sizeof st, "%g", interval);
    pid_t g = fork();
    if (g == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        if (series)
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", "--process-csv", "/dev/null", "--system-csv", "/dev/null",
                  (char *)NULL);
        else
            execl(gt, gt, "--pid", pid, "--st", st, "-f", "json", "-o", out_json,
                  "--disable-logs", (char *)NULL);
        _exit(127);
    }
    nap(seconds);
    kill(g, SIGINT);
    int status;
    struct rusage ru;
    wait4(g, &status, 0, &ru);
    kill(-root, SIGKILL);
    waitpid(root, NULL, 0);
    r.cpu = cpu_of(&ru);
    r.maxrss_kib = ru.ru_maxrss;
    json_object *j = json_object_from_file(out_json);
    if (j) {
        r.samples = jget(j, "measurement.samples");
        r.late = jget(j, "measurement.schedule.lateness_mean_ms");
        r.late_max = jget(j, "measurement.schedule.lateness_max_ms");
        json_object_put(j);
    }
    return r;
}

static void overhead(const char *gt, int quick)
{
    printf("Overhead: gpu-tracker --pid on N idle processes, from its own rusage (wait4).\n"
           "A sample's cost is the difference between a run of 2T and one of T seconds,\n"
           "per sample more; the fixed cost (start, GPU probe, exit) is what remains.\n");
    printf("%6s %9s %8s %13s %14s %9s %12s %9s %9s\n", "--st", "processes", "samples",
           "us/sample", "us/sample/proc", "fixed ms", "peak RSS MiB", "late avg", "late max");
    const double intervals[] = {1, 0.1, 0.01};
    const int sizes[] = {1, 10, 100, 1000, 5000};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            double t = intervals[i] >= 1 ? (quick ? 2 : 3) : 1;
            struct run a = attach_run(gt, sizes[k], intervals[i], t, 0);
            struct run b = attach_run(gt, sizes[k], intervals[i], 2 * t, 0);
            double per = b.samples > a.samples ? (b.cpu - a.cpu) / (b.samples - a.samples) : 0;
            double fixed = a.cpu - per * a.samples;
            printf("%6g %9d %8.0f %13.1f %14.2f %9.1f %12.1f %7.2fms %7.2fms\n", intervals[i],
                   sizes[k], b.samples, per * 1e6, per * 1e6 / sizes[k], fixed * 1e3,
                   (double)(a.maxrss_kib > b.maxrss_kib ? a.maxrss_kib : b.maxrss_kib) / 1024.0,
                   b.late, b.late_max);
            fflush(stdout);
        }
}

/* What the time series add: both series (to /dev/null) read every process's
 * smaps_rollup and io, and diskstats, net/dev, mountinfo and statvfs. */
static void series_cost(const char *gt)
{
    printf("\nTime series: per-sample cost at --st 0.1 without and with both series\n");
    printf("%9s %16s %16s\n", "processes", "summary us", "with series us");
    const int sizes[] = {1, 10, 100};
    for (size_t k = 0; k < 3; k++) {
        double per[2];
        for (int series = 0; series < 2; series++) {
            struct run a = attach_run(gt, sizes[k], 0.1, 1, series);
            struct run b = attach_run(gt, sizes[k], 0.1, 2, series);
            per[series] = b.samples > a.samples ? (b.cpu - a.cpu) / (b.samples - a.samples) : 0;
        }
        printf("%9d %16.1f %16.1f\n", sizes[k], per[0] * 1e6, per[1] * 1e6);
        fflush(stdout);
    }
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

/* Runs the workload under gpu-tracker --st 1; the combined peak (KiB) and
 * CPU seconds it reports. */
static void tracked(const char *gt, const char *wl, char *const args[], int sampled,
                    const char *truth_file, double *peak_kib, double *cpu)
{
    unlink(truth_file);
    pid_t g = fork();
    if (g == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        setenv("GT_TRUTH_FILE", truth_file, 1);
        char *argv[24];
        int n = 0;
        argv[n++] = (char *)gt;
        argv[n++] = "--st";
        argv[n++] = "1";
        argv[n++] = "-f";
        argv[n++] = "json";
        argv[n++] = "--ru";
        argv[n++] = "bytes";
        argv[n++] = "--tu";
        argv[n++] = "seconds";
        argv[n++] = "--disable-logs";
        argv[n++] = "-o";
        argv[n++] = out_json;
        if (sampled)
            argv[n++] = "--sampled-only";
        argv[n++] = "--";
        argv[n++] = (char *)wl;
        for (int i = 0; args[i] && n < 23; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(gt, argv);
        _exit(127);
    }
    waitpid(g, NULL, 0);
    json_object *j = json_object_from_file(out_json);
    *peak_kib = j ? jget(j, "max_ram.combined.total_rss") / 1024.0 : -1;
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
        tracked(gt, wl, runs[i].args, 0, truth_file, &exact_peak, &exact_cpu);
        truth(truth_file, &tmax, &tsum, &tcpu);
        tracked(gt, wl, runs[i].args, 1, truth_file, &naive_peak, &naive_cpu);
        double t = (runs[i].sum ? tsum : tmax) / 1024.0;
        printf("%-30s %10.1f %10.1f (%+4.0f%%) %10.1f (%+4.0f%%) %8.2f %8.2f (%+3.0f%%) %8.2f "
               "(%+3.0f%%)\n",
               runs[i].label, t, exact_peak / 1024.0, (exact_peak / 1024.0 / t - 1) * 100,
               naive_peak / 1024.0, (naive_peak / 1024.0 / t - 1) * 100, tcpu, exact_cpu,
               tcpu > 0 ? (exact_cpu / tcpu - 1) * 100 : 0, naive_cpu,
               tcpu > 0 ? (naive_cpu / tcpu - 1) * 100 : 0);
        fflush(stdout);
    }
    unlink(truth_file);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gt-bench GPU_TRACKER GT_BENCH_WORKLOAD [quick]\n");
        return 2;
    }
    int fd = mkstemp(out_json);
    if (fd < 0)
        return 1;
    close(fd);
    int quick = argc > 3 && !strcmp(argv[3], "quick");
    overhead(argv[1], quick);
    series_cost(argv[1]);
    accuracy(argv[1], argv[2]);
    unlink(out_json);
    return 0;
}
