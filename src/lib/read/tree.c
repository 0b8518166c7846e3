/* tree.c - finding and summing the tracked process tree.
 *
 * Private/shared RSS come from smaps_rollup, which walks every mapping of a
 * process (hundreds of microseconds to milliseconds) and so is read only when
 * a process's RSS reaches a new high (by more than ROLLUP_GROWTH), on first
 * sight, and every ROLLUP_REFRESH samples. In between, the current RSS (read
 * every sample from status) is split in the proportions of the latest rollup.
 * Where smaps_rollup cannot be read (old kernel, another user's process),
 * RssAnon stands for private and RssFile + RssShmem for shared. */
#define _GNU_SOURCE
#include "read/tree.h"

#include "common/buf.h"

#include "common/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ROLLUP_REFRESH 10            /* samples between background re-reads */
#define ROLLUP_GROWTH_MIN_KB 1024    /* a "new high" is at least this much... */
#define ROLLUP_GROWTH_SHIFT 5        /* ...or 1/32 of the last peak, if more */
#define SCRATCH_BYTES (64 * 1024)
#define REAPER_RETRIES 4

enum role { ROLE_MAIN, ROLE_DESC };

/* A thread's run and run-queue time as last read (schedstat, ns). */
struct thread_sched {
    pid_t tid;
    unsigned seen;                   /* the walk that read it */
    unsigned long long run_ns, wait_ns;
};

/* A process's other threads are read when they ran at least this much
 * more than its main thread over the last interval: their work, not the
 * main thread's, is what may have waited for a CPU. */
#define THREADS_RUN_MIN_NS 10000000ULL

/* The most processes born since the last walk that tree_signal() reaches
 * (a fork bomb must not keep it going). */
#define TREE_SIGNAL_MAX_NEW 100000

struct tracked_proc {
    pid_t pid;
    unsigned long long starttime;
    struct proc_handle h;
    enum role role;
    unsigned seen;                   /* generation of the last walk that saw it */
    int hwm_counts;                  /* every byte of VmHWM happened while tracked */
    unsigned long long first_hwm_kb; /* VmHWM when first seen */
    struct proc_stat st;
    struct proc_status status;
    int rollup_state;                /* 0 never read, 1 have one, -1 unreadable */
    struct proc_rollup rollup;
    unsigned long long rollup_peak_kb;
    int samples_since_rollup;
    unsigned walks_seen;             /* walks that saw it (sampled_only) */
    unsigned long long prev_own_ticks;
    int io_state;                    /* 0 never read, 1 have one, -1 unreadable */
    struct proc_io io;               /* the latest we could read */
    int clock_state;                 /* 0 not looked up, 1 clock set, -1 none */
    clockid_t clock;                 /* its CPU clock (run_clock) */
    int run_ns_ok;                   /* run_ns is from this walk */
    unsigned long long run_ns;       /* its run time, all threads (run_clock) */
    int sched_seen;                  /* sched is from an earlier walk */
    int zombie_read;                 /* its last status and schedstat, read
                                        once as a zombie (they move no more) */
    struct proc_schedstat sched;     /* its main thread's, as last read */
    unsigned long long walk_runnable_ns; /* run + wait since the last walk (0
                                        when schedstat was not read at both) */
    int gpu_holder;                  /* held GPU memory at a GPU sample: it is
                                        fed, never one of the workers that
                                        feed (census) */
    /* Its other threads' schedstat, read where they ran (read_schedstat):
     * as last read, and the walk that read them (0: not the last one). */
    struct thread_sched *threads;
    size_t nthreads, capthreads;
    unsigned threads_walk;
    int prev_run_ok;                 /* prev_run_ns is from the last walk */
    unsigned long long prev_run_ns;  /* run_ns at the last walk */
    struct census_slot census;       /* its command's group */
    unsigned long long pss_kb;       /* this walk's PSS estimate (split_rss), for the census */
};

/* Whether the kernel counts block I/O delays (stat field 42): its
 * kernel.task_delayacct sysctl (since 5.14, off by default), read once;
 * a kernel without the sysctl counts them when built to (1). 1 on, 0 off. */
static int delay_accounting(int root_fd)
{
    int fd = openat(root_fd, "sys/kernel/task_delayacct", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 1;
    char c = '1';
    ssize_t n = read(fd, &c, 1);
    close(fd);
    return n == 1 && c == '0' ? 0 : 1;
}

int tree_init(struct tree *t, const char *proc_root, pid_t main_pid, pid_t reaper_pid,
              int max_kept_files)
{
    memset(t, 0, sizeof *t);
    census_init(&t->census);
    t->reaper.dirfd = t->reaper.stat_fd = t->reaper.status_fd = -1;
    t->reaper.task_fd = t->reaper.children_fd = t->reaper.io_fd = -1;
    t->reaper.schedstat_fd = -1;
    t->main_pid = main_pid;
    t->reaper_pid = reaper_pid;
    t->root_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (t->root_fd < 0)
        return -1;
    /* By default keep at most a quarter of our descriptor limit open for
     * re-reading: the rest belongs to the program we may be linked into. */
    struct rlimit rl;
    rlim_t limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
    t->fd_budget = max_kept_files > 0 ? max_kept_files
                   : limit == RLIM_INFINITY || limit > (1u << 20) ? (1 << 18)
                   : (int)(limit / 4);
    t->fd_budget_total = t->fd_budget;
    long tck = sysconf(_SC_CLK_TCK);
    t->tick_ns = 1000000000ULL / (unsigned long long)(tck > 0 ? tck : 100);
    t->census.tick_ns = t->tick_ns;
    t->delayacct = delay_accounting(t->root_fd);
    t->bufcap = SCRATCH_BYTES;
    t->buf = malloc(t->bufcap);
    if (!t->buf) {
        tree_free(t);
        errno = ENOMEM;
        return -1;
    }
    /* Whether it is there: the walk opens it (one lookup, no descriptor). */
    char name[24];
    snprintf(name, sizeof name, "%d", (int)main_pid);
    if (faccessat(t->root_fd, name, F_OK, 0) < 0) {
        int saved = errno;
        tree_free(t);
        errno = saved;
        return -1;
    }
    if (reaper_pid > 0 && procfs_open(t->root_fd, reaper_pid, &t->fd_budget, &t->reaper) < 0) {
        int saved = errno;
        tree_free(t);
        errno = saved;
        return -1;
    }
    return 0;
}

void tree_free(struct tree *t)
{
    for (size_t i = 0; i < t->nprocs; i++) {
        procfs_close(&t->procs[i].h);
        free(t->procs[i].threads);
    }
    free(t->procs);
    free(t->roles);
    pid_index_free(&t->index);
    free(t->queue);
    free(t->buf);
    if (t->reaper_pid > 0 && t->reaper.dirfd >= 0)
        procfs_close(&t->reaper);
    if (t->root_fd >= 0)
        close(t->root_fd);
    census_free(&t->census);
    memset(t, 0, sizeof *t);
    t->root_fd = -1;
    t->reaper.dirfd = t->reaper.stat_fd = t->reaper.status_fd = -1;
    t->reaper.task_fd = t->reaper.children_fd = t->reaper.io_fd = -1;
}

static struct tracked_proc *find_proc(const struct tree *t, pid_t pid)
{
    size_t i;
    return pid_index_get(&t->index, pid, &i) ? &t->procs[i] : NULL;
}

void tree_roles(const struct tree *t, struct pid_roles *out)
{
    out->index = &t->index;
    out->role = t->roles;
}

long tree_pids(const struct tree *t, pid_t **pids, size_t *cap)
{
    if (grow_array(pids, cap, t->nprocs, sizeof **pids, t->nprocs) < 0)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < t->nprocs; i++)
        if (t->roles[i])
            (*pids)[n++] = t->procs[i].pid;
    return (long)n;
}

/* sig to the process behind h (its /proc directory): through a pidfd, so
 * that a PID reused since it was listed gets nothing; kill() where the
 * kernel lacks the call (before 5.1). 0 when sent. */
static int signal_process(const struct proc_handle *h, int sig)
{
#ifdef SYS_pidfd_send_signal
    if (h->dirfd >= 0) {
        if (syscall(SYS_pidfd_send_signal, h->dirfd, sig, NULL, 0) == 0)
            return 0;
        if (errno != ENOSYS)
            return -1;
    }
#endif
    return kill(h->pid, sig);
}

int tree_signal(struct tree *t, int sig)
{
    pid_t self = getpid();
    int sent = 0;
    /* The tree as the last walk found it, and the children each has now:
     * those born since (not in the index) are signalled too, and theirs. */
    pid_t *born = NULL;
    size_t nborn = 0, capborn = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        struct tracked_proc *p = &t->procs[i];
        if (!t->roles[i] || p->pid == self || p->pid == t->reaper_pid)
            continue;
        sent += signal_process(&p->h, sig) == 0;
        procfs_list_children(&p->h, 2, &t->buf, &t->bufcap, &born, &nborn, &capborn);
    }
    /* With a reaper, its children are the tree's orphans (a parent killed
     * just after it forked leaves its child there). */
    if (t->reaper_pid > 0 && t->reaper.dirfd >= 0)
        procfs_list_children(&t->reaper, 2, &t->buf, &t->bufcap, &born, &nborn, &capborn);
    for (size_t k = 0; k < nborn && k < TREE_SIGNAL_MAX_NEW; k++) {
        pid_t pid = born[k];
        size_t known;
        struct proc_handle h;
        if (pid == self || pid == t->reaper_pid || pid_index_get(&t->index, pid, &known) ||
            procfs_open(t->root_fd, pid, NULL, &h) < 0)
            continue;
        sent += signal_process(&h, sig) == 0;
        procfs_list_children(&h, 2, &t->buf, &t->bufcap, &born, &nborn, &capborn);
        procfs_close(&h);
    }
    free(born);
    return sent;
}

/* A small text file of the process behind h (its cmdline), at most
 * cap - 1 bytes, NULs (cmdline's separators) and the final newline made
 * spaces and cut; "" when it cannot be read. */
static void read_small(const struct proc_handle *h, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    int fd = h->dirfd >= 0 ? openat(h->dirfd, name, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return;
    ssize_t n = read(fd, out, cap - 1);
    close(fd);
    if (n <= 0)
        return;
    for (ssize_t i = 0; i < n; i++)
        if (out[i] == '\0' || out[i] == '\n')
            out[i] = ' ';
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

/* Who procs[i] is, for a peak's list. */
static void peak_identity(struct tree *t, size_t i, double bytes, gt_peak_process *e)
{
    const struct tracked_proc *p = &t->procs[i];
    memset(e, 0, sizeof *e);
    e->pid = p->pid;
    e->role = t->roles[i];
    e->bytes = bytes;
    e->private_bytes = -1;
    e->pss_bytes = p->rollup_state == 1 ? (double)p->rollup.pss_kb * 1024.0 : -1;
    e->threads = p->st.num_threads;
    memcpy(e->command, p->st.comm, sizeof e->command); /* the walk's stat had it */
    read_small(&p->h, "cmdline", e->cmdline, sizeof e->cmdline);
    const size_t n = sizeof t->peak_names / sizeof t->peak_names[0];
    size_t k = 0;
    while (k < n && !(t->peak_names[k].pid == p->pid && t->peak_names[k].starttime == p->starttime))
        k++;
    if (!e->cmdline[0]) {
        if (k < n) /* exiting since the walk: the line it had */
            memcpy(e->cmdline, t->peak_names[k].cmdline, sizeof e->cmdline);
        return;
    }
    if (k == n) {
        k = (size_t)t->next_peak_name;
        t->next_peak_name = (int)((k + 1) % n);
    }
    t->peak_names[k].pid = p->pid;
    t->peak_names[k].starttime = p->starttime;
    memcpy(t->peak_names[k].cmdline, e->cmdline, sizeof e->cmdline);
}

/* Keeps the n largest of what it is offered (slot and size), largest
 * first: the top of a peak's list without sorting the whole tree. */
struct top_n {
    size_t slot[GT_AT_PEAK_MAX];
    double size[GT_AT_PEAK_MAX];  /* what the list is ordered by */
    double bytes[GT_AT_PEAK_MAX]; /* RSS or GPU memory */
    int n;
    long offered;
    double offered_bytes, offered_size;
};

static void top_offer(struct top_n *top, size_t slot, double size, double bytes)
{
    top->offered++;
    top->offered_bytes += bytes;
    top->offered_size += size;
    int at = top->n;
    while (at > 0 && top->size[at - 1] < size)
        at--;
    if (at >= GT_AT_PEAK_MAX)
        return;
    int last = top->n < GT_AT_PEAK_MAX ? top->n : GT_AT_PEAK_MAX - 1;
    for (int k = last; k > at; k--) {
        top->slot[k] = top->slot[k - 1];
        top->size[k] = top->size[k - 1];
        top->bytes[k] = top->bytes[k - 1];
    }
    top->slot[at] = slot;
    top->size[at] = size;
    top->bytes[at] = bytes;
    if (top->n < GT_AT_PEAK_MAX)
        top->n++;
}

static void top_fill(struct tree *t, const struct top_n *top, gt_peak_breakdown *out)
{
    out->nprocesses = top->n;
    double listed = 0, listed_size = 0;
    for (int k = 0; k < top->n; k++) {
        peak_identity(t, top->slot[k], top->bytes[k], &out->processes[k]);
        listed += top->bytes[k];
        listed_size += top->size[k];
    }
    out->others = top->offered - top->n;
    out->others_bytes = top->offered_bytes - listed;
    out->others_private_bytes = top->offered_size - listed_size;
}

/* A process's own memory: its private RSS where smaps_rollup was read (at
 * its new highs, and every tenth sample), its RSS otherwise. The rollup may
 * be older than this sample's RSS: what the process gained since counts as
 * its own (new pages are private until it forks), so a child caught while
 * it allocates is not taken for a small one with shared memory. */
static double own_bytes(const struct tracked_proc *p)
{
    unsigned long long rss = p->status.vm_rss_kb, kb = rss;
    if (p->rollup_state == 1) {
        kb = p->rollup.private_kb;
        if (rss > p->rollup.rss_kb)
            kb += rss - p->rollup.rss_kb;
        if (kb > rss)
            kb = rss;
    }
    return (double)kb * 1024.0;
}

void tree_memory_breakdown(struct tree *t, gt_peak_breakdown *out)
{
    struct top_n top = {.n = 0};
    for (size_t i = 0; i < t->nprocs; i++)
        if (t->roles[i] && t->procs[i].status.has_memory)
            top_offer(&top, i, own_bytes(&t->procs[i]),
                      (double)t->procs[i].status.vm_rss_kb * 1024.0);
    top_fill(t, &top, out);
    for (int k = 0; k < top.n; k++)
        out->processes[k].private_bytes =
            t->procs[top.slot[k]].rollup_state == 1 ? top.size[k] : -1;
}

void tree_gpu_breakdown(struct tree *t, const struct gpu_process *procs, size_t nprocs,
                        gt_peak_breakdown *out)
{
    struct top_n top = {.n = 0};
    for (size_t k = 0; k < nprocs; k++) {
        size_t i;
        if (procs[k].bytes > 0 && pid_index_get(&t->index, procs[k].pid, &i) && t->roles[i])
            top_offer(&top, i, (double)procs[k].bytes, (double)procs[k].bytes);
    }
    top_fill(t, &top, out);
}

void tree_mark_gpu_holders(struct tree *t, const struct gpu_process *procs, size_t nprocs)
{
    for (size_t k = 0; k < nprocs; k++) {
        size_t i;
        if (procs[k].bytes > 0 && pid_index_get(&t->index, procs[k].pid, &i))
            t->procs[i].gpu_holder = 1;
    }
}

/* Forgets procs[i]; the last entry takes its place (and its index entry
 * follows it). */
static void drop_proc(struct tree *t, size_t i)
{
    procfs_close(&t->procs[i].h);
    free(t->procs[i].threads);
    pid_index_remove(&t->index, t->procs[i].pid);
    if (i != --t->nprocs) {
        t->procs[i] = t->procs[t->nprocs];
        t->roles[i] = t->roles[t->nprocs];
        /* Cannot fail: the pid is there, only its value changes. */
        pid_index_put(&t->index, t->procs[i].pid, i);
    }
}

static void remove_proc(struct tree *t, size_t i)
{
    if (t->procs[i].role == ROLE_MAIN)
        t->main_gone = 1; /* its pid may be reused: never adopt the newcomer */
    drop_proc(t, i);
}

/* CPU ticks a process holds now: its own, and (for counting into
 * descendants) those of the children it reaped. */
static unsigned long long own_ticks(const struct tracked_proc *p)
{
    return p->st.utime + p->st.stime;
}
static unsigned long long reaped_ticks(const struct tree *t, const struct tracked_proc *p)
{
    return t->main_only ? 0 : p->st.cutime + p->st.cstime;
}

/* p's own CPU in nanoseconds: its run time where read, else its ticks. */
static unsigned long long own_ns(const struct tree *t, const struct tracked_proc *p)
{
    return p->run_ns_ok ? p->run_ns : own_ticks(p) * t->tick_ns;
}

/* The CPU of p in nanoseconds: its own and, in ticks, what it reaped. */
static unsigned long long series_ns(const struct tree *t, const struct tracked_proc *p)
{
    return own_ns(t, p) + reaped_ticks(t, p) * t->tick_ns;
}

/* Reads p's run time from its CPU clock: the kernel's nanosecond sum over
 * all its threads, the exited ones included, in one system call, for any
 * process of our PID namespace (no ptrace permission needed). Called right
 * after its stat was read through its kept directory, and before its other
 * files are: those reads fail if the process is gone, so a PID reused in
 * between cannot pass its clock off as p's. */
static void read_run_time(const struct tree *t, struct tracked_proc *p)
{
    p->run_ns_ok = 0;
    /* About 1.4 us a process (make bench: "CPU clocks"); a plain
     * sampler's comparison run counts ticks as the peers do. */
    if (!t->run_clock || t->sampled_only || p->clock_state < 0)
        return;
    if (p->clock_state == 0) {
        p->clock_state = clock_getcpuclockid(p->pid, &p->clock) == 0 ? 1 : -1;
        if (p->clock_state < 0)
            return;
    }
    struct timespec ts;
    if (clock_gettime(p->clock, &ts) < 0)
        return; /* gone: the reads that follow notice */
    p->run_ns = (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
    p->run_ns_ok = 1;
}

/* One thread's schedstat, as procfs_threads_schedstat() finds it. */
struct thread_pass {
    struct tree *t;
    struct tracked_proc *p;
    int counting;    /* the threads were read at the last walk too */
    size_t hint;     /* where the next tid likely is (task/ lists in order) */
    int failed;      /* out of memory: the rest of this pass uncounted */
};

static void add_thread(struct thread_pass *x, unsigned long long run, unsigned long long wait)
{
    x->t->sched_run_ns += run;
    x->t->sched_wait_ns += wait;
    x->p->walk_runnable_ns += run + wait;
}

static void each_thread(void *arg, pid_t tid, const struct proc_schedstat *st)
{
    struct thread_pass *x = arg;
    struct tracked_proc *p = x->p;
    size_t i = x->hint < p->nthreads && p->threads[x->hint].tid == tid ? x->hint : p->nthreads;
    for (size_t k = 0; i == p->nthreads && k < p->nthreads; k++)
        if (p->threads[k].tid == tid)
            i = k;
    if (i == p->nthreads) {
        if (x->failed || grow_array(&p->threads, &p->capthreads, p->nthreads + 1,
                                    sizeof *p->threads, 8) < 0) {
            x->failed = 1;
            return;
        }
        p->threads[p->nthreads++] = (struct thread_sched){.tid = tid};
        if (x->counting)
            add_thread(x, st->run_ns, st->wait_ns); /* born since the last walk */
    } else if (x->counting && st->run_ns >= p->threads[i].run_ns &&
               st->wait_ns >= p->threads[i].wait_ns) {
        add_thread(x, st->run_ns - p->threads[i].run_ns, st->wait_ns - p->threads[i].wait_ns);
    }
    p->threads[i].run_ns = st->run_ns;
    p->threads[i].wait_ns = st->wait_ns;
    p->threads[i].seen = x->t->generation;
    x->hint = i + 1;
}

/* The run-queue delay of p's other threads since the last walk, where
 * they did the work: a process whose main thread waits in a join while a
 * pool computes (PyTorch, OpenMP, BLAS) waits for a CPU in those threads.
 * Read when, over the last interval, the process ran THREADS_RUN_MIN_NS
 * more than its main thread; the first such walk only notes where each
 * thread stands. A thread that ended between two walks takes its last
 * interval with it. */
static void read_thread_schedstats(struct tree *t, struct tracked_proc *p,
                                   unsigned long long main_run_ns)
{
    int others_ran = p->run_ns_ok && p->prev_run_ok && p->run_ns >= p->prev_run_ns &&
                     p->run_ns - p->prev_run_ns >= main_run_ns + THREADS_RUN_MIN_NS;
    p->prev_run_ok = p->run_ns_ok;
    p->prev_run_ns = p->run_ns;
    if (p->st.num_threads <= 1 || !others_ran) {
        p->threads_walk = 0;
        p->nthreads = 0;
        return;
    }
    struct thread_pass x = {.t = t, .p = p, .counting = p->threads_walk + 1 == t->generation};
    if (procfs_threads_schedstat(&p->h, t->buf, t->bufcap, each_thread, &x) < 0) {
        p->threads_walk = 0;
        p->nthreads = 0;
        return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i].seen == t->generation)
            p->threads[kept++] = p->threads[i];
    p->nthreads = kept;
    p->threads_walk = x.failed ? 0 : t->generation;
}

/* Adds what p's main thread ran and waited for a CPU since the last walk
 * to the tree's totals (tree.h, schedstat), and its other threads' where
 * they did the work (read_thread_schedstats); a zombie's are its last. A
 * kernel without the file (no CONFIG_SCHED_INFO) turns the reading off for
 * good; one that prints zeros is not counted as having the figure until a
 * process shows run time. */
static void read_schedstat(struct tree *t, struct tracked_proc *p)
{
    struct proc_schedstat now;
    if (procfs_read_schedstat(&p->h, t->buf, t->bufcap, &now) < 0) {
        if (errno == ENOENT)
            t->schedstat = -1;
        p->sched_seen = 0;
        return;
    }
    if (now.run_ns > 0)
        t->schedstat_seen_run = 1;
    unsigned long long main_run = 0;
    if (p->sched_seen && now.run_ns >= p->sched.run_ns && now.wait_ns >= p->sched.wait_ns) {
        main_run = now.run_ns - p->sched.run_ns;
        t->sched_run_ns += main_run;
        t->sched_wait_ns += now.wait_ns - p->sched.wait_ns;
        p->walk_runnable_ns = main_run + now.wait_ns - p->sched.wait_ns;
    }
    p->sched = now;
    p->sched_seen = 1;
    read_thread_schedstats(t, p, main_run);
}

/* 1 when ppid is the reaper or a process this walk has already seen. */
static int parent_in_tree(struct tree *t, pid_t ppid)
{
    if (t->reaper_pid > 0 && ppid == t->reaper_pid)
        return 1;
    const struct tracked_proc *parent = find_proc(t, ppid);
    return parent && parent->seen == t->generation;
}

/* A process we saw last walk is gone. Its CPU time either moved into a
 * tracked process's cutime/cstime (its parent reaped it, or the reaper did)
 * or left our view; only in the second case do we keep the last figures we
 * read, so that the cumulative sums never step backwards. */
static void note_departed(struct tree *t, const struct tracked_proc *p)
{
    if (p->role == ROLE_MAIN) {
        t->departed_main_ticks += own_ticks(p);
        t->departed_desc_ticks += reaped_ticks(t, p);
        t->departed_main_ns += own_ns(t, p);
        t->departed_desc_ns += reaped_ticks(t, p) * t->tick_ns;
        if (t->reaper_pid > 0)
            return; /* the reaper's counters take over the series' totals */
    } else {
        if (t->reaper_pid > 0)
            return; /* every orphan comes to the reaper, which we count */
        if (parent_in_tree(t, p->st.ppid))
            return; /* reaped by its (tracked) parent, whose io counts it too */
        t->departed_desc_ticks += own_ticks(p) + reaped_ticks(t, p);
        t->departed_desc_ns += series_ns(t, p);
    }
    /* The same for the series' split counters. */
    t->departed_utime += p->st.utime + (t->main_only ? 0 : p->st.cutime);
    t->departed_stime += p->st.stime + (t->main_only ? 0 : p->st.cstime);
    t->departed_read += p->io.read_bytes;
    t->departed_write += p->io.write_bytes;
    t->departed_ns += series_ns(t, p);
}

/* Notes a file we may not read (EACCES/EPERM) for the warning. */
static void note_unreadable(struct tree *t, pid_t pid, const char *file)
{
    if (!t->nunreadable++)
        snprintf(t->unreadable, sizeof t->unreadable, "%d/%s", (int)pid, file);
}

/* Makes room in the descriptor budget for a new process's directory,
 * which is kept whatever the budget (it is the process's identity): the
 * files other processes keep are given back, round-robin, so that the
 * budget bounds directories and files together while it can. */
static void make_room(struct tree *t)
{
    /* Files kept: the budget spent less one directory per process (and the
     * reaper's). None: nothing to give back, and no scan (a tree past the
     * limit would otherwise scan itself for every new process). */
    long dirs = (long)t->nprocs + (t->reaper_pid > 0 && t->reaper.dirfd >= 0);
    if (t->fd_budget > 0 || (long)t->fd_budget_total - t->fd_budget - dirs <= 0)
        return;
    for (size_t tried = 0; t->fd_budget <= 0 && tried < t->nprocs; tried++) {
        if (t->release_next >= t->nprocs)
            t->release_next = 0;
        procfs_release_files(&t->procs[t->release_next++].h);
    }
}

/* p's stat into *out: with its block I/O delay for the main process, whose
 * wait on storage is looked at, and without for the others (twenty fields
 * fewer to parse at every walk). */
static int read_stat(struct tree *t, struct tracked_proc *p, struct proc_stat *out)
{
    if (p->role == ROLE_MAIN)
        return procfs_read_stat_delay(&p->h, t->buf, t->bufcap, out);
    return procfs_read_stat(&p->h, t->buf, t->bufcap, out);
}

/* Reads a newly found process: opens it and takes its identity. */
static struct tracked_proc *add_proc(struct tree *t, pid_t pid, enum role role)
{
    if (t->nprocs == t->capprocs) {
        /* Two arrays of one capacity: the roles grow to what the
         * processes grew to. */
        size_t cap = t->capprocs, rcap = t->capprocs;
        if (grow_array(&t->procs, &cap, t->nprocs + 1, sizeof *t->procs, 16) < 0 ||
            grow_array(&t->roles, &rcap, cap, sizeof *t->roles, cap) < 0)
            return NULL;
        t->capprocs = cap;
    }
    struct tracked_proc *p = &t->procs[t->nprocs];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    p->role = role;
    make_room(t);
    if (procfs_open(t->root_fd, pid, &t->fd_budget, &p->h) < 0)
        return NULL;
    if (read_stat(t, p, &p->st) < 0) {
        int e = errno;
        if (e == EACCES || e == EPERM)
            note_unreadable(t, pid, "stat");
        procfs_close(&p->h);
        errno = e;
        return NULL;
    }
    p->starttime = p->st.starttime;
    /* With a reaper, the whole tree was started under tracking. Otherwise
     * what we find on the first walk may have peaked before we came. */
    p->hwm_counts = t->reaper_pid > 0 || t->generation > 1;
    p->first_hwm_kb = (unsigned long long)-1;
    if (pid_index_put(&t->index, pid, t->nprocs) < 0) {
        procfs_close(&p->h);
        errno = ENOMEM;
        return NULL;
    }
    t->roles[t->nprocs] = role == ROLE_MAIN ? 1 : 2;
    t->nprocs++;
    return p;
}

/* Decides whether this sample re-reads smaps_rollup (see the file comment). */
static int rollup_due(const struct tree *t, const struct tracked_proc *p)
{
    if (p->rollup_state == 0)
        return 1;
    if (p->rollup_state < 0)
        return 0;
    if (t->series)
        return 1; /* the series report PSS at every row */
    unsigned long long grow = p->rollup_peak_kb >> ROLLUP_GROWTH_SHIFT;
    if (grow < ROLLUP_GROWTH_MIN_KB)
        grow = ROLLUP_GROWTH_MIN_KB;
    return p->status.vm_rss_kb > p->rollup_peak_kb + grow ||
           p->samples_since_rollup >= ROLLUP_REFRESH;
}

/* Refreshes io (the series and the exporter only). -1 when the process is gone. A zombie's io
 * still holds all it did, until its parent reaps it. */
static int read_io(struct tree *t, struct tracked_proc *p)
{
    if (!(t->series || t->io) || p->io_state < 0)
        return 0;
    struct proc_io io;
    if (procfs_read_io(&p->h, t->buf, t->bufcap, &io) == 0) {
        p->io = io;
        p->io_state = 1;
    } else if (errno == EACCES || errno == EPERM || errno == ERR_MALFORMED) {
        if (errno != ERR_MALFORMED)
            note_unreadable(t, p->pid, "io");
        p->io_state = -1; /* another user's process: its bytes are not ours to see */
    } else if (errno != ENOENT) {
        return -1;
    } else if (faccessat(p->h.dirfd, "stat", R_OK, 0) < 0) {
        return -1; /* gone */
    } else {
        p->io_state = -1; /* a kernel without task I/O accounting */
    }
    return 0;
}

static int read_memory(struct tree *t, struct tracked_proc *p)
{
    if (read_io(t, p) < 0)
        return -1;
    if (p->st.state == 'Z' || p->st.state == 'X') {
        /* A zombie holds no memory and has no status memory lines; but
         * until it is reaped its signal dispositions are there, and a job
         * that ended before any sample saw it alive still says whether the
         * kernel reaped its children (read at the first walk that finds
         * it a zombie). */
        struct proc_status last;
        int ignored = p->status.sigchld_ignored;
        if (!ignored && !p->zombie_read && !t->sampled_only &&
            procfs_read_status(&p->h, t->buf, t->bufcap, &last) == 0)
            ignored = last.sigchld_ignored;
        memset(&p->status, 0, sizeof p->status);
        p->status.sigchld_ignored = ignored;
        return 0;
    }
    if (t->reaper_pid > 0 && t->generation == 1 && p->role == ROLE_MAIN) {
        /* The first walk of a tree we reap is the baseline, taken while the
         * command is held before its exec (run.c): the memory there is
         * gpu-tracker's fork's, which no figure uses (usage.c leaves the
         * baseline's memory out), so smaps_rollup is not read. Its counters
         * (stat, io) are the ones that count from here, and its VmHWM is
         * kept: the kernel carries it across the exec into the command's
         * own wait4 ru_maxrss, which is then at least ours. */
        struct proc_status fork;
        if (procfs_read_status(&p->h, t->buf, t->bufcap, &fork) == 0)
            t->fork_hwm_kb = fork.vm_hwm_kb;
        memset(&p->status, 0, sizeof p->status);
        return 0;
    }
    if (procfs_read_status(&p->h, t->buf, t->bufcap, &p->status) < 0) {
        if (errno == EACCES || errno == EPERM) {
            note_unreadable(t, p->pid, "status"); /* counted without its memory */
            memset(&p->status, 0, sizeof p->status);
            return 0;
        }
        return errno == ERR_MALFORMED ? 0 : -1;
    }
    if (p->first_hwm_kb == (unsigned long long)-1)
        p->first_hwm_kb = p->status.vm_hwm_kb;
    if (rollup_due(t, p)) {
        struct proc_rollup r;
        if (procfs_read_rollup(&p->h, t->buf, t->bufcap, &r) == 0) {
            p->rollup = r;
            p->rollup_state = 1;
            p->samples_since_rollup = 0;
            if (r.rss_kb > p->rollup_peak_kb)
                p->rollup_peak_kb = r.rss_kb;
        } else if (errno == ENOENT || errno == EACCES || errno == EPERM || errno == ERR_MALFORMED) {
            if (faccessat(p->h.dirfd, "stat", R_OK, 0) < 0)
                return -1; /* not unreadable: gone */
            /* smaps_rollup is mode 0444 but needs ptrace access: another
             * user's process shows EACCES. RssAnon stands in (tree.c). */
            p->rollup_state = -1;
        } else {
            return -1;
        }
    } else {
        p->samples_since_rollup++;
    }
    return 0;
}

/* Splits the current RSS of p into private, shared and Pss (kB). */
static void split_rss(const struct tracked_proc *p, unsigned long long *priv,
                      unsigned long long *shared, unsigned long long *pss)
{
    unsigned long long rss = p->status.vm_rss_kb;
    if (p->rollup_state == 1 && p->rollup.rss_kb > 0) {
        double scale = (double)rss / (double)p->rollup.rss_kb;
        *priv = (unsigned long long)((double)p->rollup.private_kb * scale + 0.5);
        if (*priv > rss)
            *priv = rss;
        *shared = rss - *priv;
        *pss = (unsigned long long)((double)p->rollup.pss_kb * scale + 0.5);
    } else {
        *priv = p->status.rss_anon_kb < rss ? p->status.rss_anon_kb : rss;
        *shared = rss - *priv;
        *pss = *priv; /* unknown share: claim no part of the shared pages */
    }
}

/* The high-water mark of p that we may report as reached while tracked. */
static unsigned long long tracked_hwm(const struct tracked_proc *p)
{
    if (p->hwm_counts || p->status.vm_hwm_kb > p->first_hwm_kb)
        return p->status.vm_hwm_kb;
    return 0;
}

/* Appends the children of a process with nthreads threads to the queue. */
static int queue_children(struct tree *t, struct proc_handle *h, pid_t pid, long nthreads)
{
    if (!t->scan_fallback) {
        if (procfs_list_children(h, nthreads, &t->buf, &t->bufcap, &t->queue, &t->nqueue,
                                 &t->capqueue) == 0)
            return 0;
        if (errno == ENOENT || errno == ESRCH)
            return 0; /* it died while we listed */
        if (errno != ENOTSUP)
            return -1;
        t->scan_fallback = 1;
    }
    return procfs_scan_children(t->root_fd, pid, t->buf, t->bufcap, &t->queue,
                                &t->nqueue, &t->capqueue);
}

static int reaper_stat(struct tree *t, struct proc_stat *st)
{
    return procfs_read_stat(&t->reaper, t->buf, t->bufcap, st);
}

/* One pass over the tree: visit main, its descendants and (with a reaper
 * of reaper_threads threads) the reaper's other children, updating the table. */
static int walk_once(struct tree *t, long reaper_threads)
{
    t->generation++;
    t->nqueue = 0;
    if (pid_list_push(&t->queue, &t->nqueue, &t->capqueue, t->main_pid) < 0)
        return -1;
    if (t->reaper_pid > 0) {
        /* Orphans re-parented to us belong to the tree (as descendants). */
        if (queue_children(t, &t->reaper, t->reaper_pid, reaper_threads) < 0 && errno != ESRCH)
            return -1;
    }

    for (size_t qi = 0; qi < t->nqueue; qi++) {
        pid_t pid = t->queue[qi];
        enum role role = pid == t->main_pid ? ROLE_MAIN : ROLE_DESC;
        if (role == ROLE_MAIN && t->main_gone)
            continue;
        struct tracked_proc *p = find_proc(t, pid);
        if (p && p->seen == t->generation)
            continue; /* listed twice: re-parented while we walked */
        struct proc_stat st;
        if (p && read_stat(t, p, &st) == 0 && st.starttime == p->starttime) {
            p->st = st;
        } else {
            if (p) { /* gone, or its pid now names another process */
                note_departed(t, p);
                remove_proc(t, (size_t)(p - t->procs));
            }
            if (role == ROLE_MAIN && t->main_gone)
                continue;
            p = add_proc(t, pid, role);
            if (!p) {
                if (errno == ENOMEM)
                    return -1;
                if (errno == EMFILE || errno == ENFILE)
                    t->fd_exhausted = 1; /* alive, but we cannot read it */
                continue; /* or it vanished before we could read it */
            }
            /* Listed as a child, but its parent is not in the tree: the
             * child exited and its pid went to an unrelated process between
             * the listing and the reading. Not ours. */
            if (role == ROLE_DESC && !parent_in_tree(t, p->st.ppid)) {
                drop_proc(t, (size_t)(p - t->procs));
                continue;
            }
        }
        read_run_time(t, p);
        if (read_memory(t, p) < 0) {
            if (errno == EMFILE || errno == ENFILE)
                t->fd_exhausted = 1;
            p->run_ns_ok = 0; /* its clock may have been another's: its stat stands */
            note_departed(t, p);
            remove_proc(t, (size_t)(p - t->procs));
            continue;
        }
        p->seen = t->generation;
        p->walks_seen++;
        p->walk_runnable_ns = 0;
        if (t->schedstat >= 0 && !t->sampled_only && !p->zombie_read)
            read_schedstat(t, p);
        if (p->st.state == 'Z' || p->st.state == 'X')
            p->zombie_read = 1;
        if (!t->main_only && p->st.state != 'Z' &&
            queue_children(t, &p->h, pid, p->st.num_threads) < 0)
            return -1;
    }

    /* Whatever we did not see this time has gone. */
    for (size_t i = 0; i < t->nprocs;) {
        if (t->procs[i].seen != t->generation) {
            note_departed(t, &t->procs[i]);
            remove_proc(t, i);
        } else {
            i++;
        }
    }
    return 0;
}

void tree_census_pass(struct tree *t)
{
    census_begin(&t->census);
    for (size_t i = 0; i < t->nprocs; i++) {
        struct tracked_proc *p = &t->procs[i];
        if (p->role == ROLE_MAIN || p->gpu_holder) /* neither is a worker */
            census_add(&t->census, &p->census, p->pid, p->st.comm, own_ticks(p), p->pss_kb,
                       p->st.state != 'Z');
        else
            census_add_worker(&t->census, &p->census, p->pid, p->st.comm, own_ticks(p),
                              p->pss_kb, p->st.state != 'Z', p->walk_runnable_ns);
    }
    census_end(&t->census, t->walk_time);
}

/* Bytes read and written by the children the calling process has reaped
 * (wait4 moved their io counters into its RUSAGE_CHILDREN, in 512-byte
 * blocks). Only the series use them, and only a reaper that is the calling
 * process can ask. */
static void reaped_io(const struct tree *t, unsigned long long *rd, unsigned long long *wr)
{
    struct rusage ru;
    *rd = *wr = 0;
    if (!(t->series || t->io) || t->reaper_pid != getpid() ||
        getrusage(RUSAGE_CHILDREN, &ru) < 0)
        return;
    *rd = (unsigned long long)ru.ru_inblock * 512;
    *wr = (unsigned long long)ru.ru_oublock * 512;
}

/* The CPU time (ticks) of the children the reaper has reaped, as its stat
 * gives cutime and cstime; from getrusage() when the reaper is the calling
 * process on the real procfs (a system call, not a file to format and
 * parse: the same counters, in microseconds, whose whole ticks are the
 * stat's). */
static int reaper_reaped(struct tree *t, unsigned long long *cu, unsigned long long *cs)
{
    struct rusage ru;
    if (t->run_clock && t->reaper_pid == getpid() && getrusage(RUSAGE_CHILDREN, &ru) == 0) {
        unsigned long long us_per_tick = t->tick_ns / 1000;
        *cu = ((unsigned long long)ru.ru_utime.tv_sec * 1000000 +
               (unsigned long long)ru.ru_utime.tv_usec) / us_per_tick;
        *cs = ((unsigned long long)ru.ru_stime.tv_sec * 1000000 +
               (unsigned long long)ru.ru_stime.tv_usec) / us_per_tick;
        return 0;
    }
    struct proc_stat st;
    if (reaper_stat(t, &st) < 0)
        return -1;
    *cu = st.cutime;
    *cs = st.cstime;
    return 0;
}

int tree_walk(struct tree *t, struct tree_sample *s)
{
    unsigned long long reaped = 0, reaped_u = 0, reaped_s = 0, reaped_rd = 0, reaped_wr = 0;
    if (t->reaper_pid > 0) {
        /* The reaper may reap a tree process while we walk; its time would
         * then be counted twice or not at all. Reaping is rare: walk again
         * until the reaper's counters did not move during the walk. */
        for (int attempt = 0;; attempt++) {
            struct proc_stat before;
            unsigned long long rd0, wr0;
            reaped_io(t, &rd0, &wr0);
            if (reaper_stat(t, &before) < 0 || walk_once(t, before.num_threads) < 0 ||
                reaper_reaped(t, &reaped_u, &reaped_s) < 0)
                return -1;
            reaped_io(t, &reaped_rd, &reaped_wr);
            reaped = reaped_u + reaped_s;
            if ((reaped == before.cutime + before.cstime && reaped_rd == rd0 && reaped_wr == wr0) ||
                attempt + 1 >= REAPER_RETRIES)
                break;
        }
    } else if (walk_once(t, 0) < 0) {
        return -1;
    }

    memset(s, 0, sizeof *s);
    s->main_ticks = t->departed_main_ticks;
    s->desc_ticks = t->departed_desc_ticks + reaped;
    s->main_ns = t->departed_main_ns;
    s->desc_ns = t->departed_desc_ns + reaped * t->tick_ns;
    s->utime_ticks = t->departed_utime + reaped_u;
    s->stime_ticks = t->departed_stime + reaped_s;
    s->read_bytes = t->departed_read + reaped_rd;
    s->write_bytes = t->departed_write + reaped_wr;
    s->cpu_ns = t->departed_ns + reaped * t->tick_ns;
    s->sched_ok = t->schedstat >= 0 && t->schedstat_seen_run;
    s->fork_hwm_kb = t->fork_hwm_kb;
    s->cpu_resolution_ns = 1;
    s->sched_run_ns = t->sched_run_ns;
    s->sched_wait_ns = t->sched_wait_ns;
    unsigned long long desc_pss_total = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        struct tracked_proc *p = &t->procs[i];
        unsigned long long priv, shared, pss;
        split_rss(p, &priv, &shared, &pss);
        p->pss_kb = pss;
        long threads = p->st.state == 'Z' ? 0 : p->st.num_threads;
        s->utime_ticks += p->st.utime + (t->main_only ? 0 : p->st.cutime);
        s->stime_ticks += p->st.stime + (t->main_only ? 0 : p->st.cstime);
        s->cpu_ns += series_ns(t, p);
        s->read_bytes += p->io.read_bytes;
        s->write_bytes += p->io.write_bytes;
        s->pss_kb += pss;
        if (!p->run_ns_ok && p->st.state != 'Z' && p->st.state != 'X')
            s->cpu_resolution_ns = t->tick_ns;
        if (p->status.sigchld_ignored && !s->sigchld_ignorer) {
            s->sigchld_ignorer = p->pid;
            memcpy(s->sigchld_ignorer_comm, p->st.comm, sizeof s->sigchld_ignorer_comm);
        }
        if (p->role == ROLE_MAIN) {
            s->main_alive = 1;
            s->main_zombie = p->st.state == 'Z' || p->st.state == 'X';
            s->main_ticks += own_ticks(p);
            s->desc_ticks += reaped_ticks(t, p);
            s->main_ns += own_ns(t, p);
            s->desc_ns += reaped_ticks(t, p) * t->tick_ns;
            s->main_threads = threads;
            s->main_rss_kb = p->status.vm_rss_kb;
            s->main_private_kb = priv;
            s->main_shared_kb = shared;
            s->main_pss_kb = pss;
            s->main_hwm_kb = tracked_hwm(p);
            s->main_cminflt = p->st.cminflt;
            s->main_cmajflt = p->st.cmajflt;
            s->main_faults = p->st.minflt + p->st.majflt;
            memcpy(s->main_comm, p->st.comm, sizeof s->main_comm);
            s->blkio = !t->delayacct ? -1 : p->st.has_blkio;
            s->main_blkio_ticks = p->st.blkio_ticks;
        } else {
            s->desc_ticks += own_ticks(p) + reaped_ticks(t, p);
            s->desc_ns += series_ns(t, p);
            s->desc_threads += threads;
            if (p->st.state != 'Z')
                s->children++;
            s->desc_rss_kb += p->status.vm_rss_kb;
            s->desc_private_kb += priv;
            s->desc_shared_kb += shared;
            if (shared > s->desc_shared_max_kb)
                s->desc_shared_max_kb = shared;
            desc_pss_total += pss > priv ? pss - priv : 0;
            unsigned long long hwm = tracked_hwm(p);
            if (hwm > s->desc_hwm_max_kb)
                s->desc_hwm_max_kb = hwm;
        }
    }
    if (!t->census_deferred) {
        tree_census_pass(t);
        s->workers = t->census.busiest;
    }
    s->desc_pss_shared_kb = desc_pss_total;
    if (t->sampled_only) {
        /* What a plain sampler counts: each live process's change since it
         * was last seen; nothing of departed or reaped processes. */
        for (size_t i = 0; i < t->nprocs; i++) {
            struct tracked_proc *p = &t->procs[i];
            unsigned long long now = own_ticks(p);
            if (p->walks_seen > 1 && now >= p->prev_own_ticks) {
                if (p->role == ROLE_MAIN)
                    t->sampled_main_ticks += now - p->prev_own_ticks;
                else
                    t->sampled_desc_ticks += now - p->prev_own_ticks;
            }
            p->prev_own_ticks = now;
        }
        s->main_ticks = t->sampled_main_ticks;
        s->desc_ticks = t->sampled_desc_ticks;
        s->main_ns = s->main_ticks * t->tick_ns;
        s->desc_ns = s->desc_ticks * t->tick_ns;
        s->cpu_resolution_ns = t->tick_ns;
        s->main_hwm_kb = s->desc_hwm_max_kb = 0;
    }
    return 0;
}
