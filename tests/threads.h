/* threads.h - how many threads this test process has, to wait for a
 * tracker's threads to end. A sanitizer may run threads of its own, so
 * tests compare with the count they started with. */
#ifndef GT_TEST_THREADS_H
#define GT_TEST_THREADS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline long own_threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long n = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Threads:", 8))
            n = strtol(line + 8, NULL, 10);
    if (f)
        fclose(f);
    return n;
}

/* Waits until the thread count is back to baseline (not for a time). */
static inline void wait_threads_back_to(long baseline)
{
    while (own_threads() > baseline) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

#endif
