/* sub_track_blocks.c - mark code blocks for gpu_tracker 5's sub-tracking.
 *
 * Build (installed library):
 *     cc sub_track_blocks.c $(pkg-config --cflags --libs gputracker) -o sub_track_blocks
 * Run under the tracker, then analyse:
 *     gpu-tracker --tf tracking.csv -- ./sub_track_blocks blocks.csv
 *     gpu-tracker sub-track analyze --tf tracking.csv --stf blocks.csv
 *
 * Three epochs of two blocks: "load" holds MIB mebibytes (default 200) for
 * 0.4 s, "compute" burns 0.4 s of CPU. The marks go to the sub-tracking
 * file named by the first argument (replaced if it exists). */
#define _GNU_SOURCE
#include <gpu_tracker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Where the burning loop stores its work, so that the compiler keeps it. */
static volatile unsigned long sink;

static double now(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void burn_cpu(double seconds)
{
    double start = now(CLOCK_PROCESS_CPUTIME_ID);
    while (now(CLOCK_PROCESS_CPUTIME_ID) - start < seconds)
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
}

/* Holds mib mebibytes for seconds. mmap, not malloc: munmap gives the
 * memory back at once, whatever the allocator keeps (a sanitizer's
 * quarantine would keep a freed block resident into the next block). */
static void hold(size_t mib, double seconds)
{
    size_t n = mib << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    memset(p, 1, n); /* resident, not just reserved */
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
    sink += (unsigned long)p[n - 1];
    munmap(p, n);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s MARKS.csv|MARKS.sqlite [MIB]\n", argv[0]);
        return 2;
    }
    size_t mib = argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 200;
    gt_subtracker *marks;
    if (gt_subtracker_open(argv[1], 1, &marks) != GT_OK) {
        fprintf(stderr, "%s\n", gt_last_error());
        return 1;
    }
    for (int epoch = 0; epoch < 3; epoch++) {
        gt_subtrack_begin(marks, "load");
        hold(mib, 0.4);
        gt_subtrack_end(marks, "load");
        gt_subtrack_begin(marks, "compute");
        burn_cpu(0.4);
        gt_subtrack_end(marks, "compute");
    }
    gt_subtracker_free(marks);
    return 0;
}
