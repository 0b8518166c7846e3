/* workload.c - gt-workload: small programs with known resource use, for the
 * end-to-end tests and `make demo`. Each mode prints nothing on stdout unless
 * it says so, so that JSON on stdout stays clean. burn, children,
 * busy-threads and work end by printing the kernel's count of their CPU on
 * stderr: "main cpu S" (their own) and "children cpu S" (what they reaped).
 *
 *   alloc MIB                allocate and touch MIB MiB, free, exit
 *   burn SECONDS             burn SECONDS of CPU time (by the CPU clock)
 *   spike MIB                wait for a line on stdin, allocate and touch
 *                            MIB MiB, free, print "spiked", wait for EOF
 *   children N MIB SECONDS   N children, each alloc MIB and burn SECONDS
 *   ignore-children N MIB SECONDS  as children, with SIGCHLD ignored: the
 *                            kernel reaps them, and their CPU and peaks
 *                            reach none of our counters; waits until all
 *                            have ended (wait() then fails with ECHILD)
 *   orphan MIB SECONDS       a child forks a grandchild and exits at once;
 *                            the grandchild allocs (and holds) MIB, burns,
 *                            and sleeps until killed; main prints
 *                            "grandchild PID" and exits. The grandchild stays
 *                            in the tree only through gpu-tracker's subreaper
 *   orphan-reaped MIB SECONDS  as orphan, but the grandchild exits and main
 *                            waits until something else reaped it (both
 *                            print "grandchild cpu SECONDS" on stderr: the
 *                            kernel's count of its CPU)
 *   leave MIB SECONDS        a worker allocates and touches MIB MiB, then,
 *                            once we have exited (printing "worker PID"),
 *                            burns SECONDS of CPU and exits
 *   threads N                start N idle threads, print "ready", wait for EOF
 *   busy-threads N SECONDS   N threads, each burning SECONDS of its own CPU
 *   gpu-register FILE DEV BYTES [CHILD_BYTES]
 *                            append "process DEV <pid> BYTES" to a fake NVML
 *                            scenario FILE and exit; with CHILD_BYTES a child
 *                            registers too, prints "child PID" and waits to be
 *                            killed (it holds the caller's pipes until then)
 *   hold MIB SECONDS         allocate and touch MIB MiB (kept), burn SECONDS
 *                            of CPU, print "held cpu S" (the kernel's count
 *                            of its CPU) on stdout, and wait for EOF on stdin
 *   exit CODE                exit with CODE
 *   kill SIG                 kill itself with signal SIG
 *   wait-signal              print "ready", exit 40+N on signal N
 *   work MIB N CMIB SECONDS  shared_work() of work.h (also done in-process by
 *                            gt-selftrack, for comparison)
 *   demo                     two children, each holding 100 MiB while it
 *                            burns 1 s of CPU
 *   io-alloc WMIB AMIB FILE CSV ROWS
 *                            write WMIB MiB to FILE, allocate and touch AMIB
 *                            MiB, then hold them until the CSV file CSV (the
 *                            tracker's process series) has ROWS more lines:
 *                            the last of those rows was sampled after both
 *   tree N CSV ROWS          N-1 idle children (N processes in all), held until
 *                            CSV has ROWS more lines, then killed and reaped
 *   burst N MIB DELAY        after DELAY seconds, N children hold MIB each at
 *                            the same time (a barrier) for 100 ms and exit;
 *                            main then waits 1.2 s more (a sample after it)
 *   churn N                  N children one after another, each exiting at
 *                            once and reaped; prints the rusage of all of them
 *                            and of itself as "cpu SECONDS"
 *   climb MIB CSV ROWS       wait until CSV (a series the tracker writes) has
 *                            ROWS more lines, allocate and touch MIB MiB (kept),
 *                            print "climbed", wait ROWS more lines, print
 *                            "seen", then hold it until EOF on stdin
 *   feeder FILE DEV BYTES N SECONDS
 *                            what a training script under a launcher does:
 *                            append "process DEV <pid> BYTES" to a fake NVML
 *                            scenario FILE (it holds GPU memory), start N
 *                            workers of its own name that spin (a DataLoader
 *                            decoding), sleep SECONDS, end them and exit
 *   stop-helpers SECONDS     what a hostile job does to the SPANK plugin:
 *                            leaves a process behind that, once we have
 *                            exited, watches for slurmstepd's new children
 *                            (ns_last_pid) and sends each SIGSTOP as soon
 *                            as it takes our uid (the plugin's opener), for
 *                            SECONDS; says "stopped PID" on stderr */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

static void alloc_touch(long mib)
{
    size_t n = (size_t)mib << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("gt-workload: mmap");
        exit(3);
    }
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
    munmap(p, n);
}

static void wait_eof(void)
{
    char buf[256];
    while (read(0, buf, sizeof buf) > 0)
        ;
}

static void *idle_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *busy_thread(void *arg)
{
    double end = thread_cpu_seconds() + *(double *)arg;
    while (thread_cpu_seconds() < end)
        for (int i = 0; i < 10000; i++)
            work_sink += (unsigned long)i; /* threads race on it: only the work counts */
    return NULL;
}

/* Prints the kernel's count of main's own CPU seconds and of its reaped
 * children's on stderr ("main cpu S", "children cpu S"): what a test
 * compares a tracker's figures with, instead of bounds that load breaks. */
static void report_cpu(void)
{
    fprintf(stderr, "main cpu %.6f\nchildren cpu %.6f\n", work_cpu_seconds(),
            work_children_cpu_seconds());
}

static void on_signal(int sig)
{
    _exit(40 + sig);
}

static void orphan(long mib, double seconds, int reaped)
{
    int done[2];
    if (pipe(done) < 0)
        exit(3);
    pid_t child = fork();
    if (child == 0) {
        if (fork() == 0) {
            /* The grandchild: orphaned as soon as its parent exits. */
            close(done[0]);
            if (reaped) {
                alloc_touch(mib);
            } else {
                work_hold(mib); /* held until it is killed */
            }
            work_burn(seconds);
            /* Its pid, and the kernel's count of its CPU (all it will use,
             * give or take the exit). */
            struct {
                pid_t pid;
                double cpu;
            } me = {getpid(), work_cpu_seconds()};
            if (write(done[1], &me, sizeof me) != (ssize_t)sizeof me)
                _exit(3);
            close(done[1]);
            if (!reaped)
                for (;;)
                    pause(); /* the test kills us */
            _exit(0);
        }
        _exit(0);
    }
    close(done[1]);
    waitpid(child, NULL, 0);
    struct {
        pid_t pid;
        double cpu;
    } grandchild;
    if (read(done[0], &grandchild, sizeof grandchild) != (ssize_t)sizeof grandchild)
        exit(4);
    pid_t gc = grandchild.pid;
    fprintf(stderr, "grandchild cpu %.6f\n", grandchild.cpu);
    if (!reaped) {
        printf("grandchild %d\n", (int)gc);
        fflush(stdout);
    } else {
        /* The grandchild is not our child: gpu-tracker, its new parent,
         * reaps it. Wait until that has happened. */
        while (kill(gc, 0) == 0) {
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

/* A worker left running: it allocates and touches mib MiB, tells us, and
 * only then burns seconds of CPU and exits; we exit as soon as it has
 * told us, printing "worker PID". Everything it burns is burnt after the
 * command (we) ended. */
static void leave(long mib, double seconds)
{
    int ready[2];
    if (pipe(ready) < 0)
        exit(3);
    pid_t parent = getpid();
    pid_t worker = fork();
    if (worker == 0) {
        close(ready[0]);
        alloc_touch(mib);
        if (write(ready[1], "r", 1) != 1)
            _exit(3);
        close(ready[1]);
        /* Not before our parent has gone (we are then reparented): then
         * all of the burn comes after the command ended. */
        while (getppid() == parent) {
            struct timespec ts = {0, 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        work_burn(seconds);
        _exit(0);
    }
    close(ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1)
        exit(4);
    printf("worker %d\n", (int)worker);
    fflush(stdout);
}

static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void wait_rows(const char *csv, long rows);

static int io_alloc(long write_mib, long alloc_mib, const char *file, const char *csv, long rows)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 3;
    char *block = calloc(1, 1 << 20);
    for (long i = 0; block && i < write_mib; i++)
        if (write(fd, block, 1 << 20) != 1 << 20)
            return 3;
    free(block);
    close(fd);
    char *held = work_hold(alloc_mib);
    wait_rows(csv, rows);
    free(held);
    return 0;
}

static void wait_rows(const char *csv, long rows)
{
    long want = count_lines(csv) + rows;
    while (count_lines(csv) < want) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void sleep_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) < 0)
        ;
}

static int climb(long mib, const char *csv, long rows)
{
    wait_rows(csv, rows);
    char *held = work_hold(mib);
    printf("climbed\n");
    fflush(stdout);
    wait_rows(csv, rows);
    printf("seen\n");
    fflush(stdout);
    wait_eof();
    free(held);
    return 0;
}

static int feeder(const char *scenario, const char *dev, const char *bytes, int n,
                  double seconds)
{
    FILE *f = fopen(scenario, "a");
    if (!f)
        return 3;
    fprintf(f, "process %s %d %s\n", dev, (int)getpid(), bytes);
    fclose(f);
    pid_t workers[16];
    if (n < 0 || n > 16)
        return 2;
    for (int i = 0; i < n; i++) {
        workers[i] = fork();
        if (workers[i] == 0)
            for (;;)
                ; /* a busy loop until killed */
    }
    sleep_for(seconds);
    for (int i = 0; i < n; i++)
        if (workers[i] > 0) {
            kill(workers[i], SIGKILL);
            waitpid(workers[i], NULL, 0);
        }
    return 0;
}

/* N children holding MIB each at once, for 100 ms, after delay seconds. */
static int burst(int n, long mib, double delay)
{
    sleep_for(delay);
    int ready[2], go[2];
    if (pipe(ready) < 0 || pipe(go) < 0)
        return 3;
    for (int i = 0; i < n; i++)
        if (fork() == 0) {
            char *p = work_hold(mib);
            char c;
            if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
                _exit(3);
            sleep_for(0.1); /* all hold theirs now */
            free(p);
            _exit(0);
        }
    char c;
    for (int i = 0; i < n; i++)
        if (read(ready[0], &c, 1) != 1)
            return 3;
    for (int i = 0; i < n; i++)
        if (write(go[1], "x", 1) != 1)
            return 3;
    while (wait(NULL) > 0)
        ;
    sleep_for(1.2);
    return 0;
}

static int tree(long n, const char *csv, long rows)
{
    pid_t *kids = calloc((size_t)(n > 1 ? n : 1), sizeof *kids);
    if (!kids)
        return 3;
    int ready[2];
    if (pipe(ready) < 0)
        return 3;
    for (long i = 0; i < n - 1; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            if (write(ready[1], "x", 1) != 1)
                _exit(3);
            for (;;)
                pause();
        }
        if (kids[i] < 0)
            return 3;
    }
    char c;
    for (long i = 0; i < n - 1; i++) /* every child runs */
        if (read(ready[0], &c, 1) != 1)
            return 3;
    wait_rows(csv, rows);
    for (long i = 0; i < n - 1; i++)
        kill(kids[i], SIGKILL);
    while (wait(NULL) > 0)
        ;
    free(kids);
    return 0;
}

static int churn(long n)
{
    for (long i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        if (p < 0)
            return 3;
        waitpid(p, NULL, 0);
    }
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    double cpu = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
                          kids.ru_stime.tv_sec) +
                 (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
                          kids.ru_stime.tv_usec) / 1e6;
    printf("cpu %.6f\n", cpu);
    return 0;
}

/* The pid last given out in our pid namespace, or -1. */
static long last_pid(int fd)
{
    char b[32];
    ssize_t n = pread(fd, b, sizeof b - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = '\0';
    return atol(b);
}

/* Whether process pid is a child of slurmstepd that has not run another
 * program: its name is still slurmstepd. */
static int is_stepd_fork(long pid)
{
    char path[64], comm[64] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    return ok && strcmp(comm, "slurmstepd\n") == 0;
}

static int stop_helpers(double seconds)
{
    pid_t parent = getpid();
    if (fork() != 0)
        return 0;
    int fd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        _exit(1);
    long seen = last_pid(fd);
    while (getppid() == parent) /* the task must exit for the plugin to act */
        ;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        long last = last_pid(fd);
        if (last < seen)
            seen = last - 1; /* wrapped */
        for (long p = seen + 1; p <= last; p++) {
            if (p == getpid() || !is_stepd_fork(p))
                continue;
            /* EPERM while it is still root; ours from its setresuid on */
            for (long tries = 0; tries < 20 * 1000 * 1000; tries++) {
                if (kill((pid_t)p, SIGSTOP) == 0) {
                    fprintf(stderr, "stopped %ld\n", p);
                    break;
                }
                if (errno == ESRCH)
                    break;
            }
        }
        seen = last;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gt-workload MODE [ARGS]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "alloc") && argc == 3) {
        alloc_touch(atol(argv[2]));
    } else if (!strcmp(mode, "burn") && argc == 3) {
        work_burn(atof(argv[2]));
        report_cpu();
    } else if (!strcmp(mode, "spike") && argc == 3) {
        char line[64];
        if (!fgets(line, sizeof line, stdin))
            return 3;
        alloc_touch(atol(argv[2]));
        printf("spiked\n");
        fflush(stdout);
        wait_eof();
    } else if ((!strcmp(mode, "children") || !strcmp(mode, "ignore-children")) && argc == 5) {
        if (!strcmp(mode, "ignore-children"))
            signal(SIGCHLD, SIG_IGN);
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++)
            if (fork() == 0) {
                alloc_touch(atol(argv[3]));
                work_burn(atof(argv[4]));
                _exit(0);
            }
        /* With SIGCHLD ignored, wait() returns ECHILD once every child has
         * ended (and their CPU is in no "children cpu" of ours). */
        while (wait(NULL) > 0 || errno == EINTR)
            ;
        report_cpu();
    } else if ((!strcmp(mode, "orphan") || !strcmp(mode, "orphan-reaped")) && argc == 4) {
        orphan(atol(argv[2]), atof(argv[3]), !strcmp(mode, "orphan-reaped"));
    } else if (!strcmp(mode, "leave") && argc == 4) {
        leave(atol(argv[2]), atof(argv[3]));
    } else if (!strcmp(mode, "threads") && argc == 3) {
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, idle_thread, NULL) != 0)
                return 3;
        }
        printf("ready\n");
        fflush(stdout);
        wait_eof();
    } else if (!strcmp(mode, "busy-threads") && argc == 4) {
        int n = atoi(argv[2]);
        double seconds = atof(argv[3]);
        pthread_t t[64];
        for (int i = 0; i < n && i < 64; i++)
            if (pthread_create(&t[i], NULL, busy_thread, &seconds) != 0)
                return 3;
        for (int i = 0; i < n && i < 64; i++)
            pthread_join(t[i], NULL);
        report_cpu();
    } else if (!strcmp(mode, "work") && argc == 6) {
        shared_work(atol(argv[2]), atoi(argv[3]), atol(argv[4]), atof(argv[5]));
        report_cpu();
    } else if (!strcmp(mode, "gpu-register") && (argc == 5 || argc == 6)) {
        if (argc == 6) {
            int ready[2];
            if (pipe(ready) < 0)
                return 3;
            pid_t child = fork();
            if (child == 0) {
                FILE *f = fopen(argv[2], "a");
                if (!f)
                    _exit(3);
                fprintf(f, "process %s %d %s\n", argv[3], (int)getpid(), argv[5]);
                fclose(f);
                if (write(ready[1], "x", 1) != 1)
                    _exit(3);
                for (;;)
                    pause();
            }
            char c;
            if (read(ready[0], &c, 1) != 1)
                return 3;
            printf("child %d\n", (int)child);
            fflush(stdout);
        }
        FILE *f = fopen(argv[2], "a");
        if (!f)
            return 3;
        fprintf(f, "process %s %d %s\n", argv[3], (int)getpid(), argv[4]);
        fclose(f);
    } else if (!strcmp(mode, "hold") && argc == 4) {
        size_t n = (size_t)atol(argv[2]) << 20;
        char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return 3;
        for (size_t i = 0; i < n; i += 4096)
            p[i] = 1;
        work_burn(atof(argv[3]));
        printf("held cpu %.6f\n", work_cpu_seconds());
        fflush(stdout);
        wait_eof();
        munmap(p, n);
    } else if (!strcmp(mode, "exit") && argc == 3) {
        return atoi(argv[2]);
    } else if (!strcmp(mode, "kill") && argc == 3) {
        signal(atoi(argv[2]), SIG_DFL);
        kill(getpid(), atoi(argv[2]));
        return 3;
    } else if (!strcmp(mode, "wait-signal") && argc == 2) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    } else if (!strcmp(mode, "demo") && argc == 2) {
        for (int i = 0; i < 2; i++)
            if (fork() == 0) {
                char *held = work_hold(100);
                work_burn(1.0);
                free(held);
                _exit(0);
            }
        while (wait(NULL) > 0)
            ;
    } else if (!strcmp(mode, "tree") && argc == 5) {
        return tree(atol(argv[2]), argv[3], atol(argv[4]));
    } else if (!strcmp(mode, "burst") && argc == 5) {
        return burst(atoi(argv[2]), atol(argv[3]), atof(argv[4]));
    } else if (!strcmp(mode, "churn") && argc == 3) {
        return churn(atol(argv[2]));
    } else if (!strcmp(mode, "climb") && argc == 5) {
        return climb(atol(argv[2]), argv[3], atol(argv[4]));
    } else if (!strcmp(mode, "feeder") && argc == 7) {
        return feeder(argv[2], argv[3], argv[4], atoi(argv[5]), atof(argv[6]));
    } else if (!strcmp(mode, "stop-helpers") && argc == 3) {
        return stop_helpers(atof(argv[2]));
    } else if (!strcmp(mode, "io-alloc") && argc == 7) {
        return io_alloc(atol(argv[2]), atol(argv[3]), argv[4], argv[5], atol(argv[6]));
    } else {
        fprintf(stderr, "gt-workload: unknown mode or wrong arguments: %s\n", mode);
        return 2;
    }
    return 0;
}
