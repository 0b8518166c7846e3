/* bench/workload.c - gt-bench-workload: workloads that know their own truth.
 * Every process of a workload appends, when it ends, one line
 * "PEAK_KB CPU_SECONDS" to the file named by GT_TRUTH_FILE: its VmHWM and
 * its own CPU time (getrusage RUSAGE_SELF), the kernel's figures that the
 * tracker's are compared with.
 *
 *   steady MIB SECONDS      hold MIB for SECONDS, burning half of them
 *   growing MIB SECONDS     grow to MIB in 10 steps over SECONDS
 *   bursty MIB N            N bursts: MIB held for 100 ms, then 400 ms idle
 *   tree N MIB              N children hold MIB each at the same time (a
 *                           barrier), burn 0.2 s, hold 300 ms more
 *   orphan MIB SECONDS      a child starts a grandchild and exits at once; the
 *                           grandchild holds MIB and burns SECONDS; main waits
 *                           until the grandchild is gone
 *   ignored N MIB           as tree, with SIGCHLD ignored: the kernel reaps
 *                           the children, and none of their figures reaches
 *                           main's counters */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

static void nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

/* Appends this process's truth line. */
static void report(void)
{
    const char *path = getenv("GT_TRUTH_FILE");
    if (!path)
        return;
    unsigned long long hwm = 0;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %llu", &hwm) == 1)
            break;
    if (f)
        fclose(f);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    char out[128];
    int n = snprintf(out, sizeof out, "%llu %.6f\n", hwm, cpu);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
        if (write(fd, out, (size_t)n) != n)
            perror("truth");
        close(fd);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gt-bench-workload MODE ARGS\n");
        return 2;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "steady") && argc == 4) {
        char *p = work_hold(atol(argv[2]));
        double s = atof(argv[3]);
        work_burn(s / 2);
        nap(s / 2);
        free(p);
    } else if (!strcmp(mode, "growing") && argc == 4) {
        long mib = atol(argv[2]);
        double s = atof(argv[3]);
        char *parts[10];
        for (int i = 0; i < 10; i++) {
            parts[i] = work_hold(mib / 10);
            nap(s / 10);
        }
        for (int i = 0; i < 10; i++)
            free(parts[i]);
    } else if (!strcmp(mode, "bursty") && argc == 4) {
        for (int i = 0; i < atoi(argv[3]); i++) {
            char *p = work_hold(atol(argv[2]));
            nap(0.1);
            free(p);
            nap(0.4);
        }
    } else if ((!strcmp(mode, "tree") || !strcmp(mode, "ignored")) && argc == 4) {
        if (!strcmp(mode, "ignored"))
            signal(SIGCHLD, SIG_IGN);
        int n = atoi(argv[2]);
        long mib = atol(argv[3]);
        int ready[2], go[2];
        if (pipe(ready) < 0 || pipe(go) < 0)
            return 3;
        for (int i = 0; i < n; i++)
            if (fork() == 0) {
                char *p = work_hold(mib);
                char c = 'x';
                if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
                    _exit(3);
                work_burn(0.2);
                nap(0.3);
                free(p);
                report();
                _exit(0);
            }
        char c;
        for (int i = 0; i < n; i++) /* all hold their memory now */
            if (read(ready[0], &c, 1) != 1)
                return 3;
        for (int i = 0; i < n; i++)
            if (write(go[1], "x", 1) != 1)
                return 3;
        while (wait(NULL) > 0)
            ; /* with SIGCHLD ignored: until all have ended, then ECHILD */
    } else if (!strcmp(mode, "orphan") && argc == 4) {
        int pidpipe[2];
        if (pipe(pidpipe) < 0)
            return 3;
        pid_t child = fork();
        if (child == 0) {
            pid_t gc = fork();
            if (gc == 0) {
                char *p = work_hold(atol(argv[2]));
                work_burn(atof(argv[3]));
                free(p);
                report();
                _exit(0);
            }
            if (write(pidpipe[1], &gc, sizeof gc) != sizeof gc)
                _exit(3);
            _exit(0); /* the grandchild is an orphan now */
        }
        pid_t gc = 0;
        if (read(pidpipe[0], &gc, sizeof gc) != sizeof gc)
            return 3;
        waitpid(child, NULL, 0);
        while (kill(gc, 0) == 0) /* until it is gone (reaped by its new parent) */
            nap(0.005);
    } else {
        fprintf(stderr, "gt-bench-workload: unknown mode or arguments: %s\n", mode);
        return 2;
    }
    report();
    return 0;
}
