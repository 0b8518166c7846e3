/* figures.c - gt-bench-figures: what one gt_tracker_figure() call costs a
 * host that asks at every sample (as the limits' watch does, src/tools/
 * limits), on a tracker of this process and ten idle children sampling
 * every 0.1 s: a figure kept as it is (peak RSS, CPU time) and one taken
 * from the summary (peak GPU memory, samples). The calling thread's CPU
 * clock around 20000 calls, the median of five rounds. Prints figures;
 * asserts nothing. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker.h"
#include "measure.h"

#define CALLS 20000
#define ROUNDS 5
#define CHILDREN 10

int main(void)
{
    pid_t kids[CHILDREN];
    for (int i = 0; i < CHILDREN; i++)
        if ((kids[i] = fork()) == 0) {
            for (;;)
                pause();
        }
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.1;
    o.resource_usage_file = "";
    gt_tracker *t = NULL;
    if (gt_tracker_new(&o, &t) != GT_OK || gt_tracker_start(t) != GT_OK) {
        fprintf(stderr, "gt-bench-figures: %s\n", gt_last_error());
        for (int i = 0; i < CHILDREN; i++)
            kill(kids[i], SIGKILL);
        return 1;
    }
    struct timespec settle = {0, 300 * 1000 * 1000};
    nanosleep(&settle, NULL);
    static const struct {
        gt_figure which;
        const char *name;
    } figures[] = {
        {GT_FIGURE_PEAK_RSS_BYTES, "peak RSS (kept as it is)"},
        {GT_FIGURE_CPU_SECONDS, "CPU time (kept as it is)"},
        {GT_FIGURE_PEAK_GPU_RAM_BYTES, "peak GPU memory (from the summary)"},
        {GT_FIGURE_SAMPLES, "samples (from the summary)"},
    };
    printf("gt_tracker_figure(): CPU us a call, this process and %d children sampled every "
           "0.1 s (median of %d rounds of %d calls)\n", CHILDREN, ROUNDS, CALLS);
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++) {
        double us[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            double v, t0 = thread_cpu();
            for (int i = 0; i < CALLS; i++)
                gt_tracker_figure(t, figures[k].which, &v);
            us[r] = (thread_cpu() - t0) / CALLS * 1e6;
        }
        qsort(us, ROUNDS, sizeof us[0], by_value);
        printf("  %-36s %6.2f\n", figures[k].name, us[ROUNDS / 2]);
    }
    gt_tracker_stop(t);
    gt_tracker_free(t);
    for (int i = 0; i < CHILDREN; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    return 0;
}
