/* startup.c - gt-bench-startup: what wrapping a command that does nothing
 * costs, against GNU time wrapping the same (docs/performance.md,
 * "Start-up").
 *
 * usage: gt-bench-startup GPU_TRACKER [ROUNDS [OTHER_GPU_TRACKER]]
 * Each round runs, in this order, each once: `/usr/bin/time -f x /bin/true`
 * (GNU time, when installed), `GPU_TRACKER -q -o /dev/null -- /bin/true`,
 * `GPU_TRACKER --version`, `/bin/true` alone, and the first two again with
 * OTHER_GPU_TRACKER when given (an older build: a change's effect measured
 * in the same rounds, since this VM's speed drifts by 20 % between runs). Each is started with
 * posix_spawn (so it starts from this small process's memory, not a copy of
 * it) with standard output and error on /dev/null and an empty
 * XDG_CONFIG_HOME, and its CPU time (user + system) and peak RSS come from
 * wait4: the whole process tree, the command included. Prints the median
 * and range over ROUNDS (default 31) and the tracker's ratio to GNU time.
 * Figures, not a verdict: exits 0 unless something could not run. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAX_ROUNDS = 1001 };

struct variant {
    const char *name;
    char *argv[10];
    double cpu_ms[MAX_ROUNDS];
    long rss_kib[MAX_ROUNDS];
};

static int run_once(struct variant *v, int round)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawn(&pid, v->argv[0], &fa, NULL, v->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        fprintf(stderr, "gt-bench-startup: cannot run %s: %s\n", v->argv[0], strerror(rc));
        return -1;
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        fprintf(stderr, "gt-bench-startup: wait4: %s\n", strerror(errno));
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "gt-bench-startup: %s failed (status 0x%x)\n", v->name, status);
        return -1;
    }
    v->cpu_ms[round] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
    v->rss_kib[round] = ru.ru_maxrss;
    return 0;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: gt-bench-startup GPU_TRACKER [ROUNDS [OTHER_GPU_TRACKER]]\n");
        return 2;
    }
    int rounds = argc >= 3 ? atoi(argv[2]) : 31;
    if (rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "gt-bench-startup: ROUNDS must be 1 to %d\n", MAX_ROUNDS);
        return 2;
    }
    /* No user's defaults file in what is measured. */
    char config_dir[] = "/tmp/gt-bench-startup.XXXXXX";
    if (!mkdtemp(config_dir) || setenv("XDG_CONFIG_HOME", config_dir, 1) != 0) {
        fprintf(stderr, "gt-bench-startup: cannot make an empty config directory: %s\n",
                strerror(errno));
        return 1;
    }
    static struct variant v[6] = {
        {.name = "GNU time -f x /bin/true",
         .argv = {"/usr/bin/time", "-f", "x", "/bin/true", NULL}},
        {.name = "gpu-tracker -q -o /dev/null -- /bin/true",
         .argv = {NULL, "-q", "-o", "/dev/null", "--", "/bin/true", NULL}},
        {.name = "gpu-tracker --version", .argv = {NULL, "--version", NULL}},
        {.name = "/bin/true", .argv = {"/bin/true", NULL}},
        {.name = "other: gpu-tracker -q -o /dev/null -- /bin/true",
         .argv = {NULL, "-q", "-o", "/dev/null", "--", "/bin/true", NULL}},
        {.name = "other: gpu-tracker --version", .argv = {NULL, "--version", NULL}},
    };
    v[1].argv[0] = v[2].argv[0] = argv[1];
    int nv = 4;
    if (argc == 4) {
        v[4].argv[0] = v[5].argv[0] = argv[3];
        nv = 6;
    }
    int have_time = access("/usr/bin/time", X_OK) == 0;
    int rc = 0;
    for (int r = 0; r < rounds && rc == 0; r++)
        for (int i = have_time ? 0 : 1; i < nv && rc == 0; i++)
            rc = run_once(&v[i], r);
    rmdir(config_dir);
    if (rc != 0)
        return 1;

    printf("Start-up: a command that does nothing, wrapped (CPU of the whole tree and peak RSS, "
           "wait4; median [range] of %d rounds)\n", rounds);
    double median_ms[6] = {0};
    for (int i = have_time ? 0 : 1; i < nv; i++) {
        qsort(v[i].cpu_ms, (size_t)rounds, sizeof(double), by_double);
        qsort(v[i].rss_kib, (size_t)rounds, sizeof(long), by_long);
        median_ms[i] = v[i].cpu_ms[rounds / 2];
        printf("  %-49s %6.2f ms [%.2f-%.2f]  peak RSS %ld KiB\n", v[i].name, median_ms[i],
               v[i].cpu_ms[0], v[i].cpu_ms[rounds - 1], v[i].rss_kib[rounds / 2]);
    }
    if (!have_time) {
        printf("  (no /usr/bin/time here: no GNU time to compare with)\n");
        return 0;
    }
    printf("  gpu-tracker / GNU time: %.2fx\n", median_ms[1] / median_ms[0]);
    if (nv == 6)
        printf("  other gpu-tracker / GNU time: %.2fx\n", median_ms[4] / median_ms[0]);
    return 0;
}
