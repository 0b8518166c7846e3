/* spank_task.c - gt-bench-spank: what the SPANK plugin costs slurmstepd per
 * task (docs/slurm.md, "What it costs"). The plugin itself is loaded with
 * dlopen, as slurmstepd loads it, and driven through its callbacks; the
 * Slurm functions it calls (spank_get_item, slurm_info, ...) are this
 * program's stand-ins, answering for one task at a time.
 *
 * usage: gt-bench-spank PLUGIN [TASKS [SECONDS]]
 * For each of TASKS tasks (default 20): a child is forked and held, the
 * plugin's task_post_fork starts a tracker on it, the child sleeps SECONDS
 * (default 0.5) and exits, and task_exit stops the tracker and writes its
 * snapshot (output= in a temporary directory, written as this user). Prints
 * the median CPU time of the whole process per task (the callbacks and the
 * tracker's sampling thread: what slurmstepd pays) and the median wall time
 * of each callback (how long slurmstepd waits in it), at sleep_time 1 and
 * 0.1, with and without a snapshot. Figures, not a verdict. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "measure.h"

/* ---- Slurm's side, for one task at a time ---- */

static pid_t task_pid;
static uint32_t task_rank;
static int task_status;
static char *task_argv[] = {"sleep", "0.5", NULL};
static char *task_env[] = {"SLURM_JOB_ID=4242", "SLURM_STEP_ID=0", NULL};

spank_err_t spank_get_item(spank_t spank, spank_item_t item, ...)
{
    (void)spank;
    va_list ap;
    va_start(ap, item);
    spank_err_t rc = ESPANK_SUCCESS;
    switch (item) {
    case S_TASK_PID: *va_arg(ap, pid_t *) = task_pid; break;
    case S_JOB_ID: *va_arg(ap, uint32_t *) = 4242; break;
    case S_JOB_STEPID: *va_arg(ap, uint32_t *) = 0; break;
    case S_TASK_GLOBAL_ID: *va_arg(ap, uint32_t *) = task_rank; break;
    case S_JOB_TOTAL_TASK_COUNT: *va_arg(ap, uint32_t *) = 1; break;
    case S_STEP_CPUS_PER_TASK: *va_arg(ap, uint32_t *) = 1; break;
    case S_JOB_NCPUS: *va_arg(ap, uint16_t *) = 1; break;
    case S_STEP_ALLOC_MEM: *va_arg(ap, uint64_t *) = 1024; break;
    case S_TASK_EXIT_STATUS: *va_arg(ap, int *) = task_status; break;
    case S_JOB_UID: *va_arg(ap, uid_t *) = getuid(); break;
    case S_JOB_GID: *va_arg(ap, gid_t *) = getgid(); break;
    case S_JOB_ENV: *va_arg(ap, char ***) = task_env; break;
    case S_JOB_ARGV:
        *va_arg(ap, int *) = 2;
        *va_arg(ap, char ***) = task_argv;
        break;
    default: rc = ESPANK_NOT_AVAIL; break;
    }
    va_end(ap);
    return rc;
}

int spank_remote(spank_t spank)
{
    (void)spank;
    return 1;
}

spank_context_t spank_context(void)
{
    return S_CTX_REMOTE;
}

spank_err_t spank_option_register(spank_t spank, struct spank_option *opt)
{
    (void)spank;
    (void)opt;
    return ESPANK_SUCCESS;
}

static int said;

__attribute__((format(printf, 1, 0))) static void say(const char *fmt, va_list ap)
{
    if (said++ < 5) { /* a failure of the plugin is worth seeing, once or twice */
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
}

void slurm_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

void slurm_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
}

void slurm_verbose(const char *fmt, ...)
{
    (void)fmt;
}

/* ---- the measurement ---- */

typedef int (*callback)(spank_t, int, char **);

static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { MAX_TASKS = 1000 };

/* One configuration: the plugin (loaded once, as slurmstepd loads it once
 * a step; its init reads the arguments afresh) over the tasks. */
static int run(void *h, int tasks, double seconds, const char *sleep_time, const char *output)
{
    callback init = (callback)(uintptr_t)dlsym(h, "slurm_spank_init");
    callback post_fork = (callback)(uintptr_t)dlsym(h, "slurm_spank_task_post_fork");
    callback task_exit = (callback)(uintptr_t)dlsym(h, "slurm_spank_task_exit");
    callback done = (callback)(uintptr_t)dlsym(h, "slurm_spank_exit");
    if (!init || !post_fork || !task_exit || !done) {
        fprintf(stderr, "gt-bench-spank: the plugin lacks a SPANK callback\n");
        return -1;
    }
    char *args[4];
    int nargs = 0;
    char st[64];
    snprintf(st, sizeof st, "sleep_time=%s", sleep_time);
    args[nargs++] = "default=on";
    args[nargs++] = st;
    if (output)
        args[nargs++] = (char *)output;
    init(NULL, nargs, args);
    static double cpu[MAX_TASKS], in_fork[MAX_TASKS], in_exit[MAX_TASKS];
    char secs[32];
    snprintf(secs, sizeof secs, "%g", seconds);
    for (int i = 0; i < tasks; i++) {
        int hold[2];
        if (pipe(hold) < 0)
            return -1;
        pid_t child = fork();
        if (child == 0) { /* held until the plugin has its tracker on it, as slurmstepd holds */
            char c;
            close(hold[1]);
            if (read(hold[0], &c, 1) < 0)
                _exit(1);
            execlp("sleep", "sleep", secs, (char *)NULL);
            _exit(127);
        }
        close(hold[0]);
        task_pid = child;
        task_rank = (uint32_t)i;
        double c0 = process_cpu(), w0 = wall_seconds();
        post_fork(NULL, 0, NULL);
        in_fork[i] = wall_seconds() - w0;
        close(hold[1]);
        waitpid(child, &task_status, 0);
        double w1 = wall_seconds();
        task_exit(NULL, 0, NULL);
        in_exit[i] = wall_seconds() - w1;
        cpu[i] = process_cpu() - c0;
    }
    done(NULL, 0, NULL);
    printf("| %s | %s | %.2f | %.2f | %.2f |\n", sleep_time, output ? "yes" : "no",
           median(cpu, tasks) * 1e3, median(in_fork, tasks) * 1e3, median(in_exit, tasks) * 1e3);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gt-bench-spank PLUGIN [TASKS [SECONDS]]\n");
        return 2;
    }
    int tasks = argc > 2 ? atoi(argv[2]) : 20;
    double seconds = argc > 3 ? atof(argv[3]) : 0.5;
    if (tasks < 1 || tasks > MAX_TASKS || !(seconds > 0 && seconds < 3600)) {
        fprintf(stderr, "gt-bench-spank: TASKS from 1 to %d, SECONDS above 0\n", MAX_TASKS);
        return 2;
    }
    char dir[] = "/tmp/gt-bench-spank-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "gt-bench-spank: mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    char output[256];
    snprintf(output, sizeof output, "output=%s/%%u/%%j/%%s-%%t.json.gz", dir);
    printf("The SPANK plugin in slurmstepd, per task (%d tasks of %g s each; medians): the "
           "process's CPU (callbacks and sampling thread), and the time slurmstepd waits in each "
           "callback\n\n", tasks, seconds);
    printf("| sleep_time | snapshot | CPU per task, ms | in task_post_fork, ms | in task_exit, ms |\n");
    printf("| --- | --- | --- | --- | --- |\n");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "gt-bench-spank: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    int rc = 0;
    const char *sleeps[] = {"1", "0.1"};
    for (int s = 0; s < 2 && rc == 0; s++)
        for (int with = 0; with < 2 && rc == 0; with++)
            rc = run(h, tasks, seconds, sleeps[s], with ? output : NULL);
    dlclose(h);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "gt-bench-spank: could not remove %s\n", dir);
    return rc == 0 ? 0 : 1;
}
