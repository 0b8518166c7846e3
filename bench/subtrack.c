/* subtrack.c - gt-bench-subtrack: what a sub-tracking begin/end pair costs
 * (gt_subtrack_begin + gt_subtrack_end), in a CSV and in an SQLite file in
 * $TMPDIR (default /tmp), for one thread and for four at once. Prints
 * figures; asserts nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"

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
    gt_subtracker_close(s);
    unlink(path);
    *wall_us = (w1 - w0) / npairs * 1e6;
    *cpu_us = (c1 - c0) / npairs * 1e6;
    return failed ? -1 : 0;
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
    return 0;
}
