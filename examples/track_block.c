/* track_block.c - track a block of your own code with libgputracker.
 *
 * Build (installed library):
 *     cc track_block.c $(pkg-config --cflags --libs gputracker) -o track_block
 *
 * The block allocates and touches 50 MiB, and runs a child process that
 * burns 0.3 s of CPU; the summary shows the 50 MiB in main and the child's
 * CPU time under descendants. A callback counts the samples as they come,
 * and two figures are printed on their own, in bytes and seconds. */
#define _GNU_SOURCE
#include <gpu_tracker.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where the burning loop stores its work, so that the compiler keeps it. */
static volatile unsigned long sink;

/* Called after every sample, from the tracker's thread: here it only
 * counts them (a host could store or export the sample's rows). */
static void count_sample(gt_tracker *t, const gt_sample *sample, void *data)
{
    (void)t;
    (void)sample;
    ++*(int *)data;
}

static void burn_cpu(double seconds)
{
    struct timespec now, start;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    do {
        for (int i = 0; i < 100000; i++)
            sink += (unsigned long)i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 <
             seconds);
}

int main(void)
{
    gt_options opts;
    gt_options_init(&opts);
    opts.sleep_time = 0.1;
    opts.ram_unit = "megabytes";
    opts.time_unit = "seconds";
    int samples_seen = 0;
    opts.on_sample = count_sample;
    opts.sample_data = &samples_seen;

    gt_tracker *tracker;
    if (gt_tracker_new(&opts, &tracker) != GT_OK) {
        fprintf(stderr, "track_block: %s\n", gt_last_error());
        return 1;
    }
    if (gt_tracker_start(tracker) != GT_OK) {
        fprintf(stderr, "track_block: %s\n", gt_last_error());
        gt_tracker_free(tracker);
        return 1;
    }

    /* ---- the block being measured ---- */
    size_t size = (size_t)50 << 20;
    char *data = malloc(size);
    for (size_t i = 0; data && i < size; i += 4096)
        data[i] = 1;
    pid_t child = fork();
    if (child == 0) {
        burn_cpu(0.3);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    free(data);
    /* ---------------------------------- */

    if (gt_tracker_stop(tracker) != GT_OK) {
        fprintf(stderr, "track_block: %s\n", gt_last_error());
        gt_tracker_free(tracker);
        return 1;
    }
    char *text = gt_tracker_to_text(tracker);
    if (text)
        printf("%s\n", text);
    free(text);
    double peak = 0, cpu = 0;
    if (gt_tracker_figure(tracker, GT_FIGURE_PEAK_RSS_MAIN_BYTES, &peak) != GT_OK ||
        gt_tracker_figure(tracker, GT_FIGURE_CPU_DESCENDANTS_SECONDS, &cpu) != GT_OK)
        fprintf(stderr, "track_block: %s\n", gt_last_error());
    printf("peak RSS of main: %.0f bytes; CPU of descendants: %.2f s; samples seen: %d\n",
           peak, cpu, samples_seen);
    gt_tracker_free(tracker);
    return text ? 0 : 1;
}
