/* measure.h - what the bench programs measure with: the calling thread's
 * CPU clock, the monotonic wall clock, and an order of doubles for qsort
 * (medians). */
#ifndef GT_BENCH_MEASURE_H
#define GT_BENCH_MEASURE_H

#include <time.h>

/* The calling thread's CPU time so far, seconds. */
static inline double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds on CLOCK_MONOTONIC: wall time between two points. */
static inline double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort's order of doubles, smallest first. */
static inline int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
