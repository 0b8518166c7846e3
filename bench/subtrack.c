/* subtrack.c - gt-bench-subtrack: what a sub-tracking begin/end pair costs
 * (gt_subtrack_begin + gt_subtrack_end), in a CSV and in an SQLite file in
 * $TMPDIR (default /tmp), for one thread and for four at once; and what
 * the analysis of a session costs as its code blocks grow (time, and the
 * peak RSS of a process that does only that). Prints figures; asserts
 * nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"

#define PAIRS 20000

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct job {
    gt_subtracker *s;
    int pairs, failed;
};

static void *pairs(void *arg)
{
    struct job *j = arg;
    for (int i = 0; i < j->pairs; i++)
        j->failed |= gt_subtrack_begin(j->s, "block") != GT_OK ||
                     gt_subtrack_end(j->s, "block") != GT_OK;
    return NULL;
}

/* Microseconds of wall time and of CPU (the process's) per pair. */
static int measure(const char *path, int nthreads, int npairs, double *wall_us, double *cpu_us)
{
    gt_subtracker *s;
    if (gt_subtracker_open(path, 1, &s) != GT_OK) {
        fprintf(stderr, "gt-bench-subtrack: %s\n", gt_last_error());
        return -1;
    }
    pthread_t th[4];
    struct job jobs[4];
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (struct job){s, npairs / nthreads, 0};
        pthread_create(&th[i], NULL, pairs, &jobs[i]);
    }
    int failed = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        failed |= jobs[i].failed;
    }
    double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    gt_subtracker_free(s);
    unlink(path);
    *wall_us = (w1 - w0) / npairs * 1e6;
    *cpu_us = (c1 - c0) / npairs * 1e6;
    return failed ? -1 : 0;
}

/* A tracking file of 1000 timepoints and 21 columns (as gpu-tracker's
 * CSV), and a sub-tracking file of nblocks blocks, one call each, spread
 * over it. */
static int write_session(const char *tf, const char *stf, int nblocks)
{
    FILE *f = fopen(tf, "w");
    if (!f)
        return -1;
    fputs("ram_unit,gpu_ram_unit,time_unit\r\ngigabytes,gigabytes,hours\r\n", f);
    for (int c = 0; c < 21; c++)
        fprintf(f, "col_%d,", c);
    fputs("timestamp\r\n", f);
    for (int t = 0; t < 1000; t++) {
        for (int c = 0; c < 21; c++)
            fprintf(f, "%d.5,", (t * 7 + c) % 100);
        fprintf(f, "%d.0\r\n", 1000 + t);
    }
    fclose(f);
    f = fopen(stf, "w");
    if (!f)
        return -1;
    fputs("process_id,code_block_name,position,timestamp\n", f);
    for (int b = 0; b < nblocks; b++) {
        double start = 1000.0 + 990.0 * b / nblocks;
        fprintf(f, "1,block-%d,0,%.6f\n1,block-%d,1,%.6f\n", b, start, b, start + 10.0);
    }
    fclose(f);
    return 0;
}

/* The analysis (JSON) in a child of its own: wall seconds and its peak
 * RSS in KiB. */
static int analyse(const char *tf, const char *stf, double *wall, long *rss_kib)
{
    double w0 = now(CLOCK_MONOTONIC);
    pid_t pid = fork();
    if (pid == 0) {
        char *out = NULL;
        _exit(gt_subtrack_analyze(tf, stf, GT_FORMAT_JSON, &out, NULL) == GT_OK ? 0 : 1);
    }
    int ws;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &ws, 0, &ru) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        return -1;
    *wall = now(CLOCK_MONOTONIC) - w0;
    *rss_kib = ru.ru_maxrss;
    return 0;
}

int main(void)
{
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    printf("Sub-tracking: a begin/end pair (two rows written), %d pairs, files in %s\n", PAIRS,
           dir);
    printf("%-8s %8s %14s %14s\n", "format", "threads", "wall us/pair", "CPU us/pair");
    const char *formats[2] = {"csv", "sqlite"};
    for (int f = 0; f < 2; f++)
        for (int threads = 1; threads <= 4; threads += 3) {
            char path[4096];
            snprintf(path, sizeof path, "%s/gt-bench-subtrack-%d.%s", dir, (int)getpid(),
                     formats[f]);
            double wall, cpu;
            if (measure(path, threads, f ? PAIRS / 10 : PAIRS, &wall, &cpu) < 0)
                return 1;
            printf("%-8s %8d %14.2f %14.2f\n", formats[f], threads, wall, cpu);
        }

    printf("\nSub-tracking analysis (-f json) of 1000 timepoints x 21 columns, one call a "
           "block: what a code block costs\n");
    printf("%8s %10s %14s %16s\n", "blocks", "wall s", "peak RSS MiB", "KiB per block");
    long base_rss = 0;
    const int counts[] = {10, 1000, 10000, 50000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        char tf[4096], stf[4096];
        snprintf(tf, sizeof tf, "%s/gt-bench-analyze-%d.csv", dir, (int)getpid());
        snprintf(stf, sizeof stf, "%s/gt-bench-analyze-%d-marks.csv", dir, (int)getpid());
        double wall;
        long rss;
        int failed = write_session(tf, stf, counts[i]) < 0 || analyse(tf, stf, &wall, &rss) < 0;
        unlink(tf);
        unlink(stf);
        if (failed) {
            fprintf(stderr, "gt-bench-subtrack: the analysis of %d blocks failed\n", counts[i]);
            return 1;
        }
        if (i == 0)
            base_rss = rss;
        printf("%8d %10.2f %14.1f %16.2f\n", counts[i], wall, (double)rss / 1024.0,
               i ? (double)(rss - base_rss) / counts[i] : 0.0);
    }
    return 0;
}
