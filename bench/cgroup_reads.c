/* bench/cgroup_reads.c - gt-bench-cgroup: what reading the job's cgroup
 * costs a sample, measured directly (the difference of two gpu-tracker runs
 * is a few microseconds in run-to-run noise of tens).
 *
 *   gt-bench-cgroup N
 *
 * makes a cgroup beneath the bench's own (v1: in the memory hierarchy),
 * puts N idle processes in it, opens the reader gpu-tracker uses
 * (src/lib/read/cgroup.c) on it and times 2000 periodic reads (members, usage,
 * high-water mark, OOM counters) and 200 full ones (also CPU, throttling,
 * pressure, limits: the baseline and the final sample's). Prints
 * "periodic_us full_us" of CPU per read, or a line saying why not. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "read/cgroup.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int join(const char *group, pid_t pid)
{
    char path[1200], me[24];
    snprintf(path, sizeof path, "%s/cgroup.procs", group);
    snprintf(me, sizeof me, "%d\n", (int)pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int ok = fd >= 0 && write(fd, me, strlen(me)) == (ssize_t)strlen(me);
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    int n = argc == 2 ? atoi(argv[1]) : 0;
    if (n < 1) {
        fprintf(stderr, "usage: gt-bench-cgroup N\n");
        return 2;
    }
    struct cgroup_location loc;
    char why[512];
    if (cgroup_locate("/proc", "/sys", "self", &loc, why, sizeof why) < 0) {
        printf("not measured: %s\n", why);
        return 0;
    }
    char group[1100];
    snprintf(group, sizeof group, "%s%.900s/gt-bench-cgroup-%d",
             loc.version == 1 ? "/sys/fs/cgroup/memory"
             : access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0 ? "/sys/fs/cgroup"
                                                                       : "/sys/fs/cgroup/unified",
             strcmp(loc.path, "/") ? loc.path : "", (int)getpid());
    cgroup_location_close(&loc);
    if (mkdir(group, 0755) < 0) {
        printf("not measured: cannot make %s: %s\n", group, strerror(errno));
        return 0;
    }
    pid_t *kids = calloc((size_t)n, sizeof *kids);
    int ready[2];
    if (!kids || pipe(ready) < 0)
        return 1;
    for (int i = 0; i < n; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            if (join(group, getpid()) < 0 || write(ready[1], "x", 1) != 1)
                _exit(1);
            for (;;)
                pause();
        }
    }
    char c;
    for (int i = 0; i < n; i++)
        if (read(ready[0], &c, 1) != 1)
            return 1;
    struct cgroup_reader r;
    int rc = cgroup_reader_open(&r, "/proc", "/sys", kids[0], 100);
    if (rc < 0 || r.version == 0) {
        printf("not measured: %s\n", rc < 0 ? "out of memory" : r.reason);
    } else {
        struct cgroup_sample s;
        const int periodic = 2000, full = 200;
        double t0 = cpu_now();
        for (int i = 0; i < periodic; i++)
            cgroup_read(&r, 0, NULL, NULL, 0, &s);
        double t1 = cpu_now();
        for (int i = 0; i < full; i++)
            cgroup_read(&r, 1, NULL, NULL, 0, &s);
        double t2 = cpu_now();
        printf("%.2f %.2f\n", (t1 - t0) / periodic * 1e6, (t2 - t1) / full * 1e6);
    }
    cgroup_reader_close(&r);
    for (int i = 0; i < n; i++)
        kill(kids[i], SIGKILL);
    while (wait(NULL) > 0)
        ;
    rmdir(group);
    free(kids);
    return 0;
}
