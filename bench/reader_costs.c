/* reader_costs.c - gt-bench-readers: what each reader of a sample costs and
 * how often a run makes it (docs/performance.md, "What each reader costs"),
 * and the line that holds it: a comparison with a stored table.
 *
 *   gt-bench-readers [--tsv OUT.tsv] [--compare BASELINE.tsv]
 *
 * Opens the reader gpu-tracker opens (src/lib/read/sample_reader.c, every
 * source on: both series, the job's cgroup, RAPL, the GPU library of
 * GPU_TRACKER_NVML_LIBRARY / GPU_TRACKER_RSMI_LIBRARY or the system's) on a
 * tree of idle processes of its own, and times each reader alone: 200
 * calls, 1 ms apart so that caches cool a little as between real samples,
 * the thread's CPU time around each call; five rounds, the median round's
 * mean per call and the range of the five. A source this machine lacks
 * (no RAPL, no GPU, no cgroup of the job's) is a row saying why.
 *
 * --compare: a row whose fastest round is more than 50 % slower than the
 * stored fastest round, in a first measurement and again in a second one
 * made because of it, is
 * named ("MOVED ...") and the exit status is 3: `make bench` stops there.
 * The stored figures are first scaled by the machine's pace now against
 * then: two rows of ours measured alike, a floor that preads the system
 * sample's files parsing nothing (the kernel's side) and a loop over a
 * buffer (the CPU's), the larger of their two ratios. A shared VM's slow
 * phase (every reader, old code and new alike, 2-3 times slower) is not a
 * change of the code; a reader that grew half as costly again beyond what
 * the machine slowed down is.
 * With --tsv every reader is measured twice, each row keeping its lower
 * median. Figures are this machine's: compare tables of the same machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"
#include "measure.h"
#include "read/sample_reader.h"
#include "read/gpu/gpu.h"
#include "read/gpu/kfd.h"
#include "read/procfs.h"
#include "common/warn.h"

#define CALLS 200
#define ROUNDS 5
#define MAX_ROWS 32

struct row {
    char name[80];
    char cadence[48];
    double median_us, min_us, max_us;
    char missing[160]; /* "": measured */
};

static struct row rows[MAX_ROWS];
static int nrows;

static struct row *add_row(const char *name, const char *cadence)
{
    if (nrows == MAX_ROWS) {
        fprintf(stderr, "gt-bench-readers: more than %d rows\n", MAX_ROWS);
        exit(1);
    }
    struct row *r = &rows[nrows++];
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->cadence, sizeof r->cadence, "%s", cadence);
    return r;
}

/* What one reader call is, for time(). */
struct reader_call {
    void (*fn)(struct sample_reader *r, void *arg);
    void *arg;
};

/* Times c on r: ROUNDS rounds of CALLS calls 1 ms apart. */
static void time_call(struct row *row, struct sample_reader *r, struct reader_call c, int per)
{
    double round_us[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        double total = 0;
        for (int i = 0; i < CALLS; i++) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            double t0 = thread_cpu();
            c.fn(r, c.arg);
            total += thread_cpu() - t0;
        }
        round_us[k] = total / CALLS * 1e6 / per;
    }
    qsort(round_us, ROUNDS, sizeof round_us[0], by_value);
    row->median_us = round_us[ROUNDS / 2];
    row->min_us = round_us[0];
    row->max_us = round_us[ROUNDS - 1];
}

static void call_system(struct sample_reader *r, void *arg)
{
    (void)arg;
    struct sys_cpu cpu;
    struct meminfo mem;
    const char *what;
    system_read(&r->sys, &cpu, &mem, &what);
}

static struct tree_sample tree_out;
static void call_tree(struct sample_reader *r, void *arg)
{
    (void)arg;
    tree_walk(&r->tree, &tree_out);
}

static void call_system_series(struct sample_reader *r, void *arg)
{
    (void)arg;
    system_series_read(&r->sysx, &r->extra);
}

static struct cgroup_sample cgroup_out;
static void call_cgroup(struct sample_reader *r, void *arg)
{
    cgroup_read(&r->cg, *(int *)arg, NULL, NULL, 0, &cgroup_out);
}

static struct rapl_sample rapl_out;
static void call_rapl(struct sample_reader *r, void *arg)
{
    (void)arg;
    rapl_read(&r->rapl, &rapl_out);
}

static struct gpu_sample gpu_out;
static void call_gpu(struct sample_reader *r, void *arg)
{
    gpu_sample(&r->gpu, 0, *(int *)arg, r->tree_pids, 0, &gpu_out);
}

/* The machine's pace (see the file comment): what a floor of a system
 * sample does in the kernel, and what a walk over a buffer does in the
 * CPU, none of our code. */
#define PACE_KERNEL "pace: preads of /proc/stat, meminfo, self/stat"
#define PACE_CPU "pace: a loop over 16 KiB"
struct pace {
    int fd[3];
    unsigned char buf[16384];
    unsigned long sink;
};
static void call_pace_kernel(struct sample_reader *r, void *arg)
{
    (void)r;
    struct pace *p = arg;
    for (int i = 0; i < 3; i++) {
        ssize_t n = pread(p->fd[i], p->buf, sizeof p->buf, 0);
        p->sink += n > 0 ? (unsigned long)n : 0;
    }
}
static void call_pace_cpu(struct sample_reader *r, void *arg)
{
    (void)r;
    struct pace *p = arg;
    for (size_t i = 0; i < sizeof p->buf; i++)
        p->sink = p->sink * 31 + p->buf[i];
}

static gt_peak_breakdown breakdown_out;
static void call_memory_breakdown(struct sample_reader *r, void *arg)
{
    (void)arg;
    tree_memory_breakdown(&r->tree, &breakdown_out);
}

static void call_census(struct sample_reader *r, void *arg)
{
    (void)arg;
    tree_census_pass(&r->tree);
}

/* A root process holding n - 1 idle children; its PID. */
static pid_t idle_tree(int n)
{
    pid_t root = fork();
    if (root == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        for (int i = 1; i < n; i++)
            if (fork() == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;)
                    pause();
            }
        for (;;)
            pause();
    }
    return root;
}

static void end_tree(pid_t root)
{
    kill(root, SIGKILL);
    waitpid(root, NULL, 0);
}

/* Opens the reader on pid with every source on; 0, or -1 (said). */
static int open_reader(struct sample_reader *r, pid_t pid, struct warn_channel *w)
{
    gt_options o;
    gt_options_init(&o);
    o.process_id = pid;
    o.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;
    o.nvml_library = getenv("GPU_TRACKER_NVML_LIBRARY");
    o.rsmi_library = getenv("GPU_TRACKER_RSMI_LIBRARY");
    struct reader_place at = {.proc_root = "/proc", .sys_root = "/sys", .pid = pid};
    sample_reader_init(r);
    if (reader_open(r, &o, &at, w) != GT_OK) {
        fprintf(stderr, "gt-bench-readers: cannot open the reader: %s\n", gt_last_error());
        return -1;
    }
    r->tree.census_deferred = 0; /* the walk rows hold the census, as a sample's walk does */
    return 0;
}

/* The tree walk on a tree of n processes, as a summary reads it, with the
 * exporter's I/O counters, and with the process series. */
static int measure_tree(int n, struct warn_channel *w)
{
    pid_t root = idle_tree(n);
    struct sample_reader r;
    /* let the tree be made: walks until it has n processes (bounded) */
    if (open_reader(&r, root, w) < 0) {
        end_tree(root);
        return -1;
    }
    for (int i = 0; i < 5000; i++) {
        r.tree.series = r.tree.io = 0;
        if (tree_walk(&r.tree, &tree_out) == 0 && r.tree.nprocs >= (size_t)n)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    char name[80];
    const char *each = n == 1 ? "" : ", per process";
    struct reader_call c = {call_tree, NULL};
    snprintf(name, sizeof name, "tree walk, %d process%s%s", n, n == 1 ? "" : "es", each);
    time_call(add_row(name, "every sample"), &r, c, n);
    /* The walk's two per-process readers for the corners (docs/metrics.md):
     * each process's CPU clock (nanosecond CPU) and its schedstat (the
     * run-queue delay); what the walk costs without each, the difference
     * being its cost. */
    int clock_was = r.tree.run_clock, sched_was = r.tree.schedstat;
    r.tree.run_clock = 0;
    snprintf(name, sizeof name, "  without CPU clocks (ticks)%s", each);
    time_call(add_row(name, "(the walk less one reader)"), &r, c, n);
    r.tree.run_clock = clock_was;
    r.tree.schedstat = -1;
    snprintf(name, sizeof name, "  without schedstat (run-queue)%s", each);
    time_call(add_row(name, "(the walk less one reader)"), &r, c, n);
    r.tree.schedstat = sched_was;
    r.tree.io = 1;
    snprintf(name, sizeof name, "  with I/O counters (exporter)%s", each);
    time_call(add_row(name, "every sample, exporter seen"), &r, c, n);
    r.tree.io = 0;
    r.tree.series = 1;
    snprintf(name, sizeof name, "  with the process series%s", each);
    time_call(add_row(name, "every sample, series on"), &r, c, n);
    r.tree.series = 0;
    /* Who was in the tree: the census's pass over the walk's processes
     * (part of every walk above, timed alone). */
    snprintf(name, sizeof name, "  census: by command, top process%s", each);
    time_call(add_row(name, "every sample (in the walk)"), &r,
              (struct reader_call){call_census, NULL}, n);
    /* Who held the peak: a pass over the walk's processes and the comm and
     * cmdline of the largest 8, only at a sample that makes a new peak. */
    snprintf(name, sizeof name, "  peak breakdown (at_peak)%s", each);
    time_call(add_row(name, "at a new peak"), &r, (struct reader_call){call_memory_breakdown, NULL},
              n);
    sample_reader_close(&r);
    end_tree(root);
    return 0;
}

/* The other threads' schedstat (tree.c, read_thread_schedstats): read for
 * a process whose threads ran over the last interval, one file a thread.
 * Timed on a process of THREADS_N idle threads (the reads cost the same
 * whatever the threads do; the gate that picks the process is the walk's
 * arithmetic), per thread. */
#define THREADS_N 8
static struct proc_handle threads_handle;

static void *idle_thread(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static void no_thread(void *arg, pid_t tid, const struct proc_schedstat *st)
{
    (void)arg;
    (void)tid;
    (void)st;
}

static void call_threads(struct sample_reader *r, void *arg)
{
    (void)arg;
    procfs_threads_schedstat(&threads_handle, r->tree.buf, r->tree.bufcap, no_thread, NULL);
}

static int measure_threads(struct warn_channel *w)
{
    int ready[2];
    if (pipe(ready) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        pthread_t t;
        for (int i = 0; i < THREADS_N - 1; i++)
            if (pthread_create(&t, NULL, idle_thread, NULL) != 0)
                _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    int ok = pid > 0 && read(ready[0], &c, 1) == 1;
    close(ready[0]);
    close(ready[1]);
    struct sample_reader r;
    int root_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!ok || root_fd < 0 || open_reader(&r, pid, w) < 0 ||
        procfs_open(root_fd, pid, NULL, &threads_handle) < 0) {
        if (pid > 0)
            end_tree(pid);
        if (root_fd >= 0)
            close(root_fd);
        return -1;
    }
    time_call(add_row("  other threads' schedstat, per thread", "every sample, threads ran"), &r,
              (struct reader_call){call_threads, NULL}, THREADS_N - 1);
    procfs_close(&threads_handle);
    close(root_fd);
    sample_reader_close(&r);
    end_tree(pid);
    return 0;
}

/* ROCm compute's memory per process (kfd.h), read at every sample of an
 * AMD GPU without ROCm SMI: this machine has no KFD, so a sysfs laid out
 * as the amdkfd driver writes it is made in a temporary directory, one GPU
 * and 100 processes with their vram file, and the read timed over them. */
#define KFD_PROCS 100
static struct gpu_vendor kfd_vendor;
static struct kfd_gpus kfd_map;
static void call_kfd(struct sample_reader *r, void *arg)
{
    (void)r;
    (void)arg;
    kfd_vendor.nprocs = 0;
    kfd_sample(&kfd_map, &kfd_vendor);
}

static int measure_kfd(void)
{
    char root[] = "/tmp/gt-bench-kfd-XXXXXX";
    if (!mkdtemp(root))
        return -1;
    char cmd[512], path[512];
    snprintf(cmd, sizeof cmd, "mkdir -p %s/class/kfd/kfd/topology/nodes/1", root);
    if (system(cmd) != 0)
        return -1;
    static const struct {
        const char *rel, *text;
    } files[] = {{"class/kfd/kfd/topology/nodes/1/gpu_id", "4660\n"},
                 {"class/kfd/kfd/topology/nodes/1/properties", "location_id 768\ndomain 0\n"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, files[i].rel);
        FILE *f = fopen(path, "w");
        if (!f)
            return -1;
        fputs(files[i].text, f);
        fclose(f);
    }
    static pid_t pids[KFD_PROCS];
    for (int i = 0; i < KFD_PROCS; i++) {
        pids[i] = 1000 + i;
        snprintf(cmd, sizeof cmd, "mkdir -p %s/class/kfd/kfd/proc/%d && echo 1073741824 > "
                 "%s/class/kfd/kfd/proc/%d/vram_4660", root, (int)pids[i], root, (int)pids[i]);
        if (system(cmd) != 0)
            return -1;
    }
    static const char pdev[1][DRM_NAME_LEN] = {"0000:03:00.0"};
    kfd_gpus_find(&kfd_map, root, pdev, 1);
    kfd_vendor.sys_root = root;
    kfd_vendor.tree_pids = pids;
    kfd_vendor.ntree_pids = KFD_PROCS;
    struct row *row = add_row("  KFD memory (AMD, no ROCm SMI), per process", "every sample, AMD");
    if (kfd_map.n == 1)
        time_call(row, NULL, (struct reader_call){call_kfd, NULL}, KFD_PROCS);
    else
        snprintf(row->missing, sizeof row->missing, "the KFD fixture was not read");
    free(kfd_vendor.procs);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    return system(cmd) == 0 ? 0 : -1;
}

static int measure_sources(struct warn_channel *w)
{
    pid_t root = idle_tree(1);
    struct sample_reader r;
    if (open_reader(&r, root, w) < 0) {
        end_tree(root);
        return -1;
    }
    time_call(add_row("system: /proc/stat, meminfo", "every sample"), &r,
              (struct reader_call){call_system, NULL}, 1);
    struct row *row = add_row("system series: disks, interfaces, space", "every sample, series on");
    if (r.extra_open)
        time_call(row, &r, (struct reader_call){call_system_series, NULL}, 1);
    else
        snprintf(row->missing, sizeof row->missing, "not open");
    int periodic = 0, full = 1;
    struct row *cg_periodic = add_row("cgroup: members, usage, peak, OOM", "every sample");
    struct row *cg_full = add_row("cgroup: also CPU, throttling, PSI, limits", "first, last sample");
    if (r.cg.version) {
        time_call(cg_periodic, &r, (struct reader_call){call_cgroup, &periodic}, 1);
        time_call(cg_full, &r, (struct reader_call){call_cgroup, &full}, 1);
    } else {
        snprintf(cg_periodic->missing, sizeof cg_periodic->missing, "%.150s", r.cg.reason);
        snprintf(cg_full->missing, sizeof cg_full->missing, "%.150s", r.cg.reason);
    }
    row = add_row("RAPL: package and DRAM energy", "every sample");
    if (r.rapl.nzones)
        time_call(row, &r, (struct reader_call){call_rapl, NULL}, 1);
    else
        snprintf(row->missing, sizeof row->missing, "%.150s", r.rapl.reason);
    int summary = 0, details = 1;
    struct row *gs = add_row("GPU sample, summary tier", "every sample");
    struct row *gd = add_row("GPU sample, with details", "every sample, series/exporter");
    if (r.gpu.nvendors) {
        time_call(gs, &r, (struct reader_call){call_gpu, &summary}, 1);
        time_call(gd, &r, (struct reader_call){call_gpu, &details}, 1);
    } else {
        snprintf(gs->missing, sizeof gs->missing, "%.150s", r.gpu_reason);
        snprintf(gd->missing, sizeof gd->missing, "%.150s", r.gpu_reason);
    }
    sample_reader_close(&r);
    end_tree(root);
    return 0;
}

/* The rows of a stored table (name -> median, min, max); 0 rows when it
 * cannot be read. */
static int load(const char *path, struct row *out, int cap)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int n = 0;
    while (n < cap && fgets(line, sizeof line, f)) {
        char *tab1 = strchr(line, '\t');
        if (!tab1 || line[0] == '#')
            continue;
        *tab1 = '\0';
        struct row *r = &out[n];
        snprintf(r->name, sizeof r->name, "%.79s", line);
        if (sscanf(tab1 + 1, "%lf\t%lf\t%lf", &r->median_us, &r->min_us, &r->max_us) == 3)
            n++;
    }
    fclose(f);
    return n;
}

/* The two pace rows (PACE_KERNEL, PACE_CPU). 0, or -1 (said). */
static int measure_pace(void)
{
    static struct pace p;
    const char *files[3] = {"/proc/stat", "/proc/meminfo", "/proc/self/stat"};
    for (int i = 0; i < 3; i++)
        if ((p.fd[i] = open(files[i], O_RDONLY | O_CLOEXEC)) < 0) {
            fprintf(stderr, "gt-bench-readers: cannot open %s: %s\n", files[i], strerror(errno));
            return -1;
        }
    time_call(add_row(PACE_KERNEL, "(the machine, not ours)"), NULL,
              (struct reader_call){call_pace_kernel, &p}, 1);
    time_call(add_row(PACE_CPU, "(the machine, not ours)"), NULL,
              (struct reader_call){call_pace_cpu, &p}, 1);
    for (int i = 0; i < 3; i++)
        close(p.fd[i]);
    return 0;
}

/* Every reader measured once more into rows (nrows reset first). */
static int measure_all(struct warn_channel *w)
{
    nrows = 0;
    return measure_pace() < 0 || measure_sources(w) < 0 || measure_kfd() < 0 ||
                   measure_tree(1, w) < 0 || measure_tree(100, w) < 0 || measure_threads(w) < 0
               ? -1
               : 0;
}

/* How much slower the machine is now than when base was stored: the larger
 * ratio of the pace rows' fastest rounds, at least 1 (a faster machine
 * holds the stored line as it is); 1 when base has no pace rows. */
static double pace_factor(const struct row *now, int nnow, const struct row *base, int nbase)
{
    double factor = 1;
    const char *names[2] = {PACE_KERNEL, PACE_CPU};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < nnow; i++)
            for (int j = 0; j < nbase; j++)
                if (!strcmp(now[i].name, names[k]) && !strcmp(base[j].name, names[k]) &&
                    base[j].min_us > 0 && now[i].min_us / base[j].min_us > factor)
                    factor = now[i].min_us / base[j].min_us;
    return factor;
}

static int is_pace(const struct row *r)
{
    return !strncmp(r->name, "pace: ", 6);
}

/* Whether row r moved against the stored row b: its fastest round more
 * than 50 % slower than the stored fastest round. Noise on a shared machine
 * only adds (a whole run of rounds can land in a slow phase: medians moved
 * by 70 % between runs of the same code here), so the fastest round is
 * what a change of the code moves and the noise moves least. */
/* Half as slow again, and by at least 0.5 us: a row of a few hundredths of
 * a microsecond (the census per process) doubles on its rounding alone. */
static int moved_from(const struct row *r, const struct row *b, double pace)
{
    double then = b->min_us * pace;
    return !*r->missing && !is_pace(r) && r->min_us > then * 1.5 && r->min_us > then + 0.5;
}

static const struct row *stored_row(const struct row *base, int nbase, const char *name)
{
    for (int j = 0; j < nbase; j++)
        if (!strcmp(base[j].name, name))
            return &base[j];
    return NULL;
}

int main(int argc, char **argv)
{
    const char *tsv = NULL, *baseline = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tsv") && i + 1 < argc)
            tsv = argv[++i];
        else if (!strcmp(argv[i], "--compare") && i + 1 < argc)
            baseline = argv[++i];
        else {
            fprintf(stderr, "usage: gt-bench-readers [--tsv OUT.tsv] [--compare BASELINE.tsv]\n");
            return 2;
        }
    }
    struct warn_channel w;
    warn_channel_init(&w, NULL, NULL, 1);
    if (measure_all(&w) < 0)
        return 1;
    static struct row base[MAX_ROWS];
    int nbase = baseline ? load(baseline, base, MAX_ROWS) : -1;
    int load_errno = errno;
    /* A row that looks moved is measured again (all of them, in the same
     * order): a whole run of rounds on this shared VM can land in a slow
     * phase (a cgroup read once took 31 us for 17). It counts as moved only
     * if it moved both times; the table keeps each row's lower median. */
    int suspects = 0;
    double pace = nbase > 0 ? pace_factor(rows, nrows, base, nbase) : 1;
    for (int i = 0; i < nrows && nbase > 0; i++) {
        const struct row *b = stored_row(base, nbase, rows[i].name);
        suspects += b && moved_from(&rows[i], b, pace);
    }
    static struct row first[MAX_ROWS];
    int nfirst = 0;
    /* A table to be stored (--tsv) is measured twice too, so that one slow
     * phase does not set a lax line. */
    if (suspects || tsv) {
        memcpy(first, rows, sizeof rows);
        nfirst = nrows;
        if (measure_all(&w) < 0)
            return 1;
    }
    double first_pace = pace;
    if (nfirst && nbase > 0)
        pace = pace_factor(rows, nrows, base, nbase);
    int moved[MAX_ROWS] = {0};
    for (int i = 0; i < nrows; i++) {
        const struct row *b = nbase > 0 ? stored_row(base, nbase, rows[i].name) : NULL;
        const struct row *f = i < nfirst && !strcmp(first[i].name, rows[i].name) ? &first[i] : NULL;
        moved[i] = b && moved_from(&rows[i], b, pace) &&
                   (!nfirst || (f && moved_from(f, b, first_pace)));
        if (f && !*f->missing && f->median_us < rows[i].median_us)
            rows[i] = *f;
    }
    printf("\nWhat each reader costs: CPU us a call (the thread's clock, %d calls 1 ms apart,\n"
           "median of %d rounds, and their range), and when a run makes it\n", CALLS, ROUNDS);
    printf("%-48s %-30s %10s %17s\n", "reader", "made", "us", "range");
    for (int i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        if (*r->missing)
            printf("%-48s %-30s %10s   not measured: %s\n", r->name, r->cadence, "-", r->missing);
        else
            printf("%-48s %-30s %10.1f %8.1f-%-8.1f\n", r->name, r->cadence, r->median_us,
                   r->min_us, r->max_us);
    }
    if (tsv) {
        FILE *f = fopen(tsv, "w");
        if (!f) {
            fprintf(stderr, "gt-bench-readers: cannot write %s: %s\n", tsv, strerror(errno));
            return 1;
        }
        fprintf(f, "# reader\tmedian_us\tmin_us\tmax_us (gt-bench-readers)\n");
        for (int i = 0; i < nrows; i++)
            if (!*rows[i].missing)
                fprintf(f, "%s\t%.2f\t%.2f\t%.2f\n", rows[i].name, rows[i].median_us,
                        rows[i].min_us, rows[i].max_us);
        if (fclose(f) != 0)
            return 1;
    }
    if (!baseline)
        return 0;
    if (nbase < 0) {
        printf("\nno comparison: cannot read %s: %s\n", baseline, strerror(load_errno));
        return 0;
    }
    int nmoved = 0;
    printf("\nAgainst %s (moved: the fastest round more than 50 %% slower than the stored "
           "one's, in two measurements),\nthe stored figures scaled by the machine's pace now "
           "against then: x%.2f\n", baseline, pace);
    for (int i = 0; i < nrows; i++) {
        const struct row *r = &rows[i], *b = stored_row(base, nbase, r->name);
        if (*r->missing || !b)
            continue;
        nmoved += moved[i];
        printf("%s %-48s %8.1f us (%.1f-%.1f), stored %.1f us (%.1f-%.1f), %+.0f %%\n",
               moved[i] ? "MOVED" : "     ", r->name, r->median_us, r->min_us, r->max_us,
               b->median_us * pace, b->min_us * pace, b->max_us * pace,
               b->median_us > 0 ? (r->median_us / (b->median_us * pace) - 1) * 100 : 0.0);
    }
    if (nmoved)
        printf("%d reader%s cost more than the stored table: see the MOVED line%s above\n",
               nmoved, nmoved == 1 ? "" : "s", nmoved == 1 ? "" : "s");
    return nmoved ? 3 : 0;
}
