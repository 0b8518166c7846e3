/* bench/overhead.c - what tracking costs: gpu-tracker's own CPU time per
 * sample and its peak RSS, attached (--pid) to trees of N idle processes,
 * for the summary alone and with both time series (written to /dev/null).
 * Prints a table; asserts nothing (figures, not tests).
 *
 *   overhead GPU_TRACKER_BINARY [SECONDS] [INTERVAL]
 */
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

static void sleep_seconds(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: overhead GPU_TRACKER_BINARY [SECONDS] [INTERVAL]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 3.0;
    const char *interval = argc > 3 ? argv[3] : "0.01";
    char out[] = "/tmp/gt-bench-XXXXXX";
    int fd = mkstemp(out);
    if (fd < 0)
        return 1;
    close(fd);

    printf("gpu-tracker --pid on N idle processes, --st %s, %.0f s each\n", interval, seconds);
    printf("%10s %8s %10s %14s %16s %14s\n", "processes", "series", "samples", "CPU ms total",
           "CPU us/sample", "peak RSS MiB");
    const int sizes[] = {1, 8, 64};
    for (size_t run = 0; run < 2 * sizeof sizes / sizeof sizes[0]; run++) {
        size_t k = run / 2;
        int series = run % 2; /* the series read io and smaps_rollup at every sample */
        pid_t root = idle_tree(sizes[k]);
        char pid[16];
        snprintf(pid, sizeof pid, "%d", (int)root);
        pid_t gt = fork();
        if (gt == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            if (series)
                execl(argv[1], argv[1], "--pid", pid, "--st", interval, "-f", "json", "-o", out,
                      "--disable-logs", "--process-csv", "/dev/null", "--system-csv",
                      "/dev/null", (char *)NULL);
            else
                execl(argv[1], argv[1], "--pid", pid, "--st", interval, "-f", "json", "-o", out,
                      "--disable-logs", (char *)NULL);
            _exit(127);
        }
        sleep_seconds(seconds);
        kill(gt, SIGINT);
        int status;
        struct rusage ru;
        wait4(gt, &status, 0, &ru);
        kill(-root, SIGKILL);
        waitpid(root, NULL, 0);

        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        long samples = 0;
        json_object *j = json_object_from_file(out), *m, *s;
        if (j && json_object_object_get_ex(j, "measurement", &m) &&
            json_object_object_get_ex(m, "samples", &s))
            samples = json_object_get_int64(s);
        if (j)
            json_object_put(j);
        printf("%10d %8s %10ld %14.1f %16.1f %14.1f\n", sizes[k], series ? "both" : "none",
               samples, cpu * 1e3,
               samples ? cpu * 1e6 / (double)samples : 0.0, (double)ru.ru_maxrss / 1024.0);
    }
    unlink(out);
    return 0;
}
