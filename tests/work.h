/* work.h - one piece of work with known resource use, done both by
 * gt-workload under gpu-tracker and by gt-selftrack inside its own tracker,
 * so that the two can be compared. */
#ifndef GT_WORK_H
#define GT_WORK_H

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static inline double work_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of the children the calling process has reaped (the
 * kernel's count). */
static inline double work_children_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* CPU seconds of the calling thread alone (the kernel's count). */
static inline double work_thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where burning loops store their work, so that the compiler keeps the loop
 * (a local volatile that is only written is "set but not used" to clang). */
static volatile unsigned long work_sink __attribute__((unused));

static inline void work_burn(double seconds)
{
    double end = work_cpu_seconds() + seconds;
    while (work_cpu_seconds() < end)
        for (int i = 0; i < 10000; i++)
            work_sink += (unsigned long)i;
}

/* Allocates and touches mib MiB (through a volatile pointer: the compiler
 * may not drop stores to memory that is freed unread). Free it. */
static inline char *work_hold(long mib)
{
    size_t n = (size_t)mib << 20;
    char *p = malloc(n);
    volatile char *touch = p;
    for (size_t i = 0; p && i < n; i += 4096)
        touch[i] = 1;
    return p;
}

/* main holds main_mib MiB while nchildren children each hold child_mib MiB
 * and burn child_seconds of CPU; main waits for them, then frees. */
static inline void shared_work(long main_mib, int nchildren, long child_mib, double child_seconds)
{
    char *held = work_hold(main_mib);
    for (int i = 0; i < nchildren; i++)
        if (fork() == 0) {
            char *mine = work_hold(child_mib);
            work_burn(child_seconds);
            free(mine);
            _exit(0);
        }
    while (wait(NULL) > 0)
        ;
    free(held);
}

#endif
