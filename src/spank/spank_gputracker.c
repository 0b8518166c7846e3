/* spank_gputracker.c - gpu-tracker as a Slurm SPANK plugin: every task of
 * every step tracked by slurmstepd itself, with no change to anyone's
 * script (docs/slurm.md, "Every job, tracked by Slurm").
 *
 * plugstack.conf:
 *   optional /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_gputracker.so \
 *       default=on output=/var/spool/gpu-tracker/%u/%j/%s-%t.json.gz \
 *       push=http://pushgw:9091
 *
 * Arguments (all optional): default=on|off (track every task, or only
 * those of jobs run with --gpu-track; off by default), output=TEMPLATE (a
 * snapshot per task: %u user, %j job, %s step, %t task, %n node; none by
 * default), push=URL and push_interval=SECONDS (Pushgateway), sleep_time=
 * SECONDS (1 by default). Users get the option --gpu-track (srun, sbatch,
 * salloc).
 *
 * In slurmstepd (remote context): task_post_fork starts a tracker on each
 * task as it is forked, before it runs its program; task_exit stops it,
 * writes the snapshot into a file the job's user opened (task_output.h)
 * and, through the tracker, pushes. Whatever fails is one line in slurmd's log (at info
 * level: slurmstepd sends errors to the job's own stderr, which is not
 * ours to write to); every callback returns success, so a failure of ours
 * never fails the job. */
#define _GNU_SOURCE
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "gpu_tracker.h"
#include "gpu_tracker_tools.h"
#include "task_output.h"
#include "common/toolkit.h"

SPANK_PLUGIN(gputracker, 1)

#define LOG_PREFIX "spank_gputracker: "

/* What task_exit may wait for that others control, in seconds: the
 * sampling thread's last sample (a read of the job's /proc files), the
 * last push (PUSH_TIMEOUT of the library: a Pushgateway that never
 * answers), and, beside both, the opener the job's user may stop
 * (TASK_OUTPUT_OPEN_DEADLINE_MS from its start). With the reaping of a
 * killed opener (TASK_OUTPUT_REAP_MS) task_exit waits 5.5 s at most before
 * it writes the snapshot's rows (docs/slurm.md). */
#define TRACKER_STOP_TIMEOUT 5.0

/* The site's arguments from plugstack.conf. */
static struct {
    int default_on;
    char output[4096];   /* "" none */
    char push[1024];     /* "" none */
    double push_interval;
    double sleep_time;
} site = {.sleep_time = 1.0};

static int user_asked; /* --gpu-track */

static int on_gpu_track(int val, const char *arg, int remote)
{
    (void)val;
    (void)arg;
    (void)remote;
    user_asked = 1;
    return ESPANK_SUCCESS;
}

static struct spank_option gpu_track_option = {
    "gpu-track", NULL,
    "Track every task of this job with gpu-tracker: peak RAM and GPU memory, CPU and GPU use, "
    "a snapshot per task where the site keeps them (gpu-tracker job JOBID sums them up).",
    0, 0, on_gpu_track};

/* One tracked task of this step on this node. */
struct task {
    pid_t pid;
    uint32_t rank;
    gt_tracker *tracker;
    char *command;
    double cpu_seconds; /* CPU of the callbacks for it (their thread; the sampler is apart) */
};

static struct task *tasks;
static size_t ntasks, captasks;

static double own_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* A line of slurmd's log about task rank of job (job 0: not said) that
 * ends with a reason from the library or the task's files: those may quote
 * the job's text (a process's name, a path), so escaped, and no line of
 * the log is forged from inside a job. */
static void log_reason(uint32_t job, uint32_t rank, const char *what, const char *reason)
{
    char *safe = text_escape(reason);
    if (job)
        slurm_info(LOG_PREFIX "job %u task %u: %s%s", job, rank, what, safe ? safe : "?");
    else
        slurm_info(LOG_PREFIX "task %u: %s%s", rank, what, safe ? safe : "?");
    free(safe);
}

/* The library's warnings go to slurmd's log, never to the job's output. */
static void log_warning(const char *message, void *data)
{
    (void)data;
    char *safe = text_escape(message);
    slurm_info(LOG_PREFIX "%s", safe ? safe : "(a warning; out of memory to show it)");
    free(safe);
}

static int parse_number(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= 0))
        return -1;
    *out = v;
    return 0;
}

/* plugstack.conf's arguments. An argument that is not understood is said
 * in the log and left out: the plugin never stops a job. */
static void parse_arguments(int ac, char **av)
{
    memset(&site, 0, sizeof site);
    site.sleep_time = 1.0;
    for (int i = 0; i < ac; i++) {
        const char *a = av[i];
        if (strcmp(a, "default=on") == 0)
            site.default_on = 1;
        else if (strcmp(a, "default=off") == 0)
            site.default_on = 0;
        else if (strncmp(a, "output=", 7) == 0 && strlen(a + 7) < sizeof site.output)
            snprintf(site.output, sizeof site.output, "%s", a + 7);
        else if (strncmp(a, "push=", 5) == 0 && strlen(a + 5) < sizeof site.push)
            snprintf(site.push, sizeof site.push, "%s", a + 5);
        else if (strncmp(a, "push_interval=", 14) == 0 &&
                 parse_number(a + 14, &site.push_interval) == 0)
            ;
        else if (strncmp(a, "sleep_time=", 11) == 0 && parse_number(a + 11, &site.sleep_time) == 0)
            ;
        else
            slurm_info(LOG_PREFIX "ignoring the argument '%s' (valid: default=on|off, "
                        "output=TEMPLATE, push=URL, push_interval=SECONDS, sleep_time=SECONDS)", a);
    }
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    parse_arguments(ac, av);
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_ALLOCATOR || ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE)
        if (spank_option_register(sp, &gpu_track_option) != ESPANK_SUCCESS)
            slurm_info(LOG_PREFIX "cannot register --gpu-track");
    return ESPANK_SUCCESS;
}

/* The task's command line, its words joined by spaces (NULL: not known),
 * in one pass over them after one to size it. */
static char *task_command(spank_t sp)
{
    int argc = 0;
    char **argv = NULL;
    if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS || argc <= 0 || !argv)
        return NULL;
    size_t len = 1;
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    char *at = s;
    for (int i = 0; i < argc; i++) {
        if (i)
            *at++ = ' ';
        size_t k = strlen(argv[i]);
        memcpy(at, argv[i], k);
        at += k;
    }
    *at = '\0';
    return s;
}

/* How GPUs given are said when the job's own environment is all that
 * says it: "the job's " before the variable's name. */
static void mark_job_environment(gt_job_info *ji)
{
    if (!ji->gpus_requested_by[0])
        return;
    char by[sizeof ji->gpus_requested_by];
    int n = snprintf(by, sizeof by, "the job's %s", ji->gpus_requested_by);
    if (n > 0 && (size_t)n < sizeof by)
        memcpy(ji->gpus_requested_by, by, sizeof by);
}

/* Who the task is, for the snapshot and the Pushgateway's group, from
 * Slurm's own items and this host's name: the job's environment is the
 * job's to change (SLURMD_NODENAME=othernode would forge it), so only the
 * GPUs given come from it, for nothing else says them to a plugin, and
 * the output says whose word that is. */
static void task_job_info(spank_t sp, uint32_t job, uint32_t step, uint32_t rank,
                          gt_job_info *ji)
{
    char **env = NULL;
    memset(ji, 0, sizeof *ji);
    ji->struct_size = sizeof *ji;
    if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS)
        env = NULL;
    char *none[] = {NULL};
    gt_job_info from_env;
    memset(&from_env, 0, sizeof from_env);
    from_env.struct_size = sizeof from_env;
    gt_job_info_from_environ(env ? env : none, &from_env);
    ji->gpus_requested = from_env.gpus_requested;
    memcpy(ji->gpus_requested_by, from_env.gpus_requested_by, sizeof ji->gpus_requested_by);
    mark_job_environment(ji);
    char stepbuf[16];
    snprintf(ji->scheduler, sizeof ji->scheduler, "slurm");
    snprintf(ji->job_id, sizeof ji->job_id, "%lu", (unsigned long)job);
    snprintf(ji->step_id, sizeof ji->step_id, "%s",
             task_step_name(step, stepbuf, sizeof stepbuf));
    snprintf(ji->task_rank, sizeof ji->task_rank, "%lu", (unsigned long)rank);
    /* An array job's ids are Slurm's own in its batch step only: for a
     * step srun launched, slurmstepd takes them from the step's environment
     * (SLURM_ARRAY_JOB_ID=777 srun ... would forge them), so they are left
     * out there; each array task has its own job id all the same. */
    uint32_t array_job = 0, array_task = 0;
    if (step == STEP_BATCH && spank_get_item(sp, S_JOB_ARRAY_ID, &array_job) == ESPANK_SUCCESS &&
        array_job > 0) {
        snprintf(ji->array_job_id, sizeof ji->array_job_id, "%lu", (unsigned long)array_job);
        if (spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &array_task) == ESPANK_SUCCESS)
            snprintf(ji->array_task_id, sizeof ji->array_task_id, "%lu",
                     (unsigned long)array_task);
    }
    /* The node as Slurm names it by default: this host's name up to its
     * first dot (only the characters a node name has). */
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    host[strcspn(host, ".")] = '\0';
    if (host[0] && host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_")] == '\0')
        snprintf(ji->node, sizeof ji->node, "%s", host);
    uint32_t total = 0;
    if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &total) == ESPANK_SUCCESS && total > 0)
        ji->ntasks = (int)total;
    /* What Slurm gave the step, as it says it (the environment has only
     * what the user asked for); each item in its own type (spank.h): a
     * wider one would write past it. */
    uint32_t per_task = 0;
    uint16_t on_node = 0;
    uint64_t mem = 0;
    if (spank_get_item(sp, S_STEP_CPUS_PER_TASK, &per_task) == ESPANK_SUCCESS && per_task > 0 &&
        per_task <= 1000000)
        ji->cpus_per_task = (int)per_task;
    if (spank_get_item(sp, S_JOB_NCPUS, &on_node) == ESPANK_SUCCESS && on_node > 0)
        ji->cpus_on_node = on_node;
    if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mem) == ESPANK_SUCCESS && mem > 0 &&
        mem <= (1ULL << 30)) {
        ji->mem_per_node_mib = (long long)mem;
        ji->mem_per_cpu_mib = 0;
    }
}

/* slurmstepd, as root, after forking a task and before it runs: a tracker
 * on it. */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (!spank_remote(sp) || !(site.default_on || user_asked))
        return ESPANK_SUCCESS;
    double cpu0 = own_cpu_seconds();
    pid_t pid = 0;
    uint32_t job = 0, step = 0, rank = 0;
    if (spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS) {
        slurm_info(LOG_PREFIX "cannot tell which task was forked: not tracked");
        return ESPANK_SUCCESS;
    }
    if (step == STEP_EXTERN) /* nothing of the job's own runs there */
        return ESPANK_SUCCESS;
    if (ntasks == captasks) {
        size_t cap = captasks ? captasks * 2 : 8;
        struct task *grown = realloc(tasks, cap * sizeof *grown);
        if (!grown) {
            slurm_info(LOG_PREFIX "task %u: out of memory: not tracked", rank);
            return ESPANK_SUCCESS;
        }
        tasks = grown;
        captasks = cap;
    }
    gt_job_info ji;
    task_job_info(sp, job, step, rank, &ji);
    struct task *t = &tasks[ntasks];
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->rank = rank;
    t->command = task_command(sp);
    gt_options o;
    gt_options_init(&o);
    o.process_id = pid;
    o.sleep_time = site.sleep_time > 0 ? site.sleep_time : 1.0;
    o.series = site.output[0] ? GT_SERIES_PROCESS | GT_SERIES_SYSTEM : 0;
    o.resource_usage_file = ""; /* no backup file in slurmstepd's directory */
    o.stop_timeout = TRACKER_STOP_TIMEOUT;
    o.command = t->command;
    o.job = &ji;
    o.on_warning = log_warning;
    o.metrics_push_url = site.push[0] ? site.push : NULL;
    o.metrics_push_interval = site.push[0] ? site.push_interval : 0;
    if (gt_tracker_new(&o, &t->tracker) != GT_OK || gt_tracker_start(t->tracker) != GT_OK) {
        log_reason(job, rank, "not tracked: ", gt_last_error());
        gt_tracker_free(t->tracker);
        free(t->command);
        return ESPANK_SUCCESS;
    }
    t->cpu_seconds = own_cpu_seconds() - cpu0;
    ntasks++;
    return ESPANK_SUCCESS;
}

/* Where a task's snapshot goes, and the opener making it as the job's
 * user, started before the tracker stops so that the two waits of
 * task_exit (the last push, the opener) overlap: see TRACKER_STOP_TIMEOUT. */
struct snapshot_target {
    uint32_t job;
    char path[4096];
    struct task_opener opener;
    int started;
    char why[1024]; /* why there is none ("" while there may be one) */
};

static void start_snapshot(spank_t sp, const struct task *t, struct snapshot_target *s)
{
    uid_t uid = 0;
    gid_t gid = 0;
    uint32_t step = 0;
    memset(s, 0, sizeof *s);
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_ID, &s->job) != ESPANK_SUCCESS ||
        spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
        snprintf(s->why, sizeof s->why, "the job's user is not known");
        return;
    }
    struct passwd pw, *found = NULL;
    char pwbuf[4096], user[64], jobbuf[16], stepbuf[16], rankbuf[16], node[256] = "";
    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &found) == 0 && found)
        snprintf(user, sizeof user, "%s", pw.pw_name);
    else
        snprintf(user, sizeof user, "%ld", (long)uid);
    if (gethostname(node, sizeof node - 1) != 0)
        node[0] = '\0';
    char *dot = strchr(node, '.');
    if (dot)
        *dot = '\0';
    snprintf(jobbuf, sizeof jobbuf, "%lu", (unsigned long)s->job);
    snprintf(rankbuf, sizeof rankbuf, "%lu", (unsigned long)t->rank);
    struct task_names names = {user, jobbuf, task_step_name(step, stepbuf, sizeof stepbuf),
                               rankbuf, node};
    size_t fixed = 0;
    if (task_output_expand(site.output, &names, s->path, sizeof s->path, &fixed, s->why,
                           sizeof s->why) < 0 ||
        task_output_prepare(s->path, fixed, uid, gid, s->why, sizeof s->why) < 0 ||
        task_output_start_opener(uid, gid, s->path, &s->opener, s->why, sizeof s->why) < 0)
        return;
    s->started = 1;
}

/* The snapshot written into the file the opener made (the rows streamed
 * from here: a long task's snapshot is never whole in slurmstepd's memory),
 * or the opener given up; write: the tracker stopped and has one. */
static void finish_snapshot(struct snapshot_target *s, struct task *t, int exit_status, int write)
{
    int fd = -1;
    if (s->started && task_output_finish_opener(&s->opener, write ? TASK_OUTPUT_OPEN_DEADLINE_MS
                                                                  : 0,
                                                &fd, s->why, sizeof s->why) == 0 && write) {
        char through[32];
        snprintf(through, sizeof through, "/dev/fd/%d", fd);
        if (gt_tracker_write_snapshot(t->tracker, t->command, exit_status,
                                      GT_SNAPSHOT_GPU_TRACKER, through) != GT_OK)
            snprintf(s->why, sizeof s->why, "%s", gt_last_error());
    } else if (s->started && !write) {
        snprintf(s->why, sizeof s->why, "the tracker did not stop (its file '%.900s' is left empty)",
                 s->path);
    }
    if (fd >= 0)
        close(fd);
    if (s->why[0])
        log_reason(s->job, t->rank, "no snapshot: ", s->why);
}

/* The exit status as a shell shows it: the code, or 128 + the signal. */
static int shell_status(int wait_status)
{
    if (WIFEXITED(wait_status))
        return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status))
        return 128 + WTERMSIG(wait_status);
    return -1;
}

/* slurmstepd, as root, after a task has exited: its tracker stopped, its
 * snapshot left, its last push made. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    pid_t pid = 0;
    int status = 0;
    if (!spank_remote(sp) || ntasks == 0 || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
        return ESPANK_SUCCESS;
    if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS)
        status = -1;
    for (size_t i = 0; i < ntasks; i++) {
        struct task *t = &tasks[i];
        if (t->pid != pid)
            continue;
        double cpu0 = own_cpu_seconds();
        struct snapshot_target target;
        if (site.output[0])
            start_snapshot(sp, t, &target);
        int stopped = gt_tracker_stop(t->tracker) == GT_OK;
        if (!stopped)
            log_reason(0, t->rank, "", gt_last_error());
        if (site.output[0])
            finish_snapshot(&target, t, status == -1 ? -1 : shell_status(status), stopped);
        t->cpu_seconds += own_cpu_seconds() - cpu0;
        slurm_verbose(LOG_PREFIX "task %u tracked; the callbacks took %.1f ms of CPU", t->rank,
                      t->cpu_seconds * 1e3);
        gt_tracker_free(t->tracker);
        free(t->command);
        tasks[i] = tasks[--ntasks];
        break;
    }
    return ESPANK_SUCCESS;
}

/* The step ends: whatever is still tracked is let go. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    for (size_t i = 0; i < ntasks; i++) {
        gt_tracker_free(tasks[i].tracker);
        free(tasks[i].command);
    }
    free(tasks);
    tasks = NULL;
    ntasks = captasks = 0;
    return ESPANK_SUCCESS;
}
