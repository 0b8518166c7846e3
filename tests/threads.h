/* threads.h - the library's threads in this test process (they are named
 * "gt:..."; a sanitizer runs threads of its own, started whenever it likes),
 * waiting for them to end, and the descriptors the process has open. */
#ifndef GT_TEST_THREADS_H
#define GT_TEST_THREADS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How many threads of this process have a name starting with "gt:"
 * (library 1) or do not (library 0). (The test programs are gt-...) */
static inline long count_threads(int library)
{
    DIR *d = opendir("/proc/self/task");
    long n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", de->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(name, sizeof name, f))
            n += (strncmp(name, "gt:", 3) == 0) == library;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

/* The library's threads now. */
static inline long library_threads(void)
{
    return count_threads(1);
}

/* The other threads now: the program's own (one in the tests), and a
 * sanitizer's. What a tracker of this process must count as "main". */
static inline long program_threads(void)
{
    return count_threads(0);
}

/* Waits until no library thread is left; 0 when none is, -1 when some are
 * still there after 60 s (a deadline so that a bug fails the test instead
 * of hanging it; the threads end in milliseconds when all is well). */
static inline int wait_library_threads_gone(void)
{
    for (int i = 0; i < 60000; i++) {
        if (library_threads() == 0)
            return 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Descriptors this process has open. */
static inline int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1; /* the directory's own */
}

#endif
