/* background.c - clock, condition variables, library threads and their
 * registry, background jobs (see background.h). */
#define _GNU_SOURCE
#include "common/background.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <dirent.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/file_read.h"
#include "common/parse/proc_parse.h"

#define YEAR_SECONDS (366.0 * 86400.0)

double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double epoch_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec to_timespec(double seconds)
{
    /* Deadlines are now + a validated option; the clamp only keeps a
     * caller's mistake from overflowing time_t. */
    if (!(seconds > 0))
        seconds = 0;
    double cap = monotonic_now() + YEAR_SECONDS;
    if (seconds > cap)
        seconds = cap;
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

void cond_init_monotonic(pthread_cond_t *c)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(c, &ca);
    pthread_condattr_destroy(&ca);
}

/* ---- the registry of library threads ----------------------------------- */

/* A library thread. Its creator links it into `running` (with its tid,
 * while holding the lock through the whole creation, so that no library
 * thread is ever unknown to a reader of the registry); the thread moves it
 * to `ending` when its work is done (its final ticks counted); it is freed
 * once the kernel says the thread is gone. */
struct registered {
    pid_t tid;
    int stat_fd; /* /proc/self/task/<tid>/stat, kept open; -1 if none */
    int clock_ok;
    clockid_t clock; /* its CPU clock (nanosecond run time), with clock_ok */
    /* Its stat's ticks as last read, and its run time then (ticks_ns):
     * the kernel's utime + stime follow the run time, so while that stays
     * within one clock tick the file is not read again (a sample of one's
     * own process would otherwise read it for nothing). */
    int have_ticks;
    unsigned long long utime, stime, ticks_ns;
    struct registered *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static struct registered *running, *ending;
static unsigned long long ended_utime, ended_stime;
static unsigned long long ended_ns; /* run time of the threads that ended */
static unsigned long long tick_ns;  /* a clock tick (sysconf), once known */
/* Bumped whenever running or ending changes; with the process's thread
 * count it tells whether the last listing of /proc/self/task still holds
 * (others_total: the count then, -1: none yet). */
static unsigned registry_gen, others_gen;
static long others_total = -1, others_cached;
static int ended_ns_ok = 1;         /* every ended thread's run time is in ended_ns */
/* /proc/self/task, listed at every sample of a tracker of this process:
 * kept open while a library thread runs (opening it costs a path walk each
 * time), closed once none does and in a forked child (it names the
 * parent's threads). */
static int task_dir_fd = -1;

static void close_task_dir_locked(void)
{
    if (task_dir_fd >= 0)
        close(task_dir_fd);
    task_dir_fd = -1;
}

static void free_list(struct registered *r)
{
    while (r) {
        struct registered *next = r->next;
        if (r->stat_fd >= 0)
            close(r->stat_fd);
        free(r);
        r = next;
    }
}

static void registry_before_fork(void)
{
    pthread_mutex_lock(&registry_lock);
}

static void registry_after_fork_parent(void)
{
    pthread_mutex_unlock(&registry_lock);
}

/* In the child only the forking thread exists, and its CPU counters start
 * from zero: nothing of the parent's library threads applies. */
static void registry_after_fork_child(void)
{
    free_list(running);
    free_list(ending);
    running = ending = NULL;
    registry_gen++;
    others_total = -1;
    ended_utime = ended_stime = 0;
    ended_ns = 0;
    ended_ns_ok = 1;
    close_task_dir_locked();
    pthread_mutex_unlock(&registry_lock);
}

static void registry_init(void)
{
    pthread_atfork(registry_before_fork, registry_after_fork_parent, registry_after_fork_child);
}

static unsigned long long timespec_ns(const struct timespec *ts)
{
    return (unsigned long long)ts->tv_sec * 1000000000ULL + (unsigned long long)ts->tv_nsec;
}

static int read_ticks(int fd, unsigned long long *utime, unsigned long long *stime)
{
    char buf[4096];
    size_t len;
    struct proc_stat st;
    if (fd < 0 || file_pread(fd, buf, sizeof buf, &len) < 0 ||
        proc_parse_stat(buf, len, &st) < 0)
        return -1;
    *utime = st.utime;
    *stime = st.stime;
    return 0;
}

/* Frees the ending threads that have exited. Caller holds the lock. */
static void prune_ending_locked(void)
{
    pid_t pid = getpid();
    for (struct registered **p = &ending; *p;) {
        struct registered *r = *p;
        if (syscall(SYS_tgkill, pid, r->tid, 0) < 0 && errno == ESRCH) {
            *p = r->next;
            free(r);
            registry_gen++;
        } else {
            p = &r->next;
        }
    }
}

static int is_library_tid_locked(pid_t tid)
{
    for (const struct registered *r = running; r; r = r->next)
        if (r->tid == tid)
            return 1;
    for (const struct registered *r = ending; r; r = r->next)
        if (r->tid == tid)
            return 1;
    return 0;
}

/* The threads of this process now that are not the library's, from one
 * listing of /proc/self/task; -1 when it cannot be listed. Caller holds the
 * lock: no library thread starts meanwhile, and one that ends is either
 * listed and known, or gone. */
static long other_threads_locked(void)
{
    if (task_dir_fd < 0)
        task_dir_fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (task_dir_fd < 0 || lseek(task_dir_fd, 0, SEEK_SET) < 0)
        return -1;
    _Alignas(struct dirent64) char dents[4096];
    long n = 0;
    for (;;) {
        ssize_t r = getdents64(task_dir_fd, dents, sizeof dents);
        if (r < 0)
            return -1;
        if (r == 0)
            return n;
        for (ssize_t off = 0; off < r;) {
            const struct dirent64 *de = (const struct dirent64 *)(dents + off);
            off += de->d_reclen;
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
                n += !is_library_tid_locked((pid_t)strtol(de->d_name, NULL, 10));
        }
    }
}

int is_running_library_thread(pid_t tid)
{
    pthread_once(&registry_once, registry_init);
    pthread_mutex_lock(&registry_lock);
    int mine = 0;
    for (const struct registered *r = running; r && !mine; r = r->next)
        mine = r->tid == tid;
    pthread_mutex_unlock(&registry_lock);
    return mine;
}

static void registry_leave(struct registered *self)
{
    /* Called by the thread itself: its own clock is its whole run time. */
    struct timespec ts;
    int ns_ok = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0;
    pthread_mutex_lock(&registry_lock);
    if (ns_ok)
        ended_ns += timespec_ns(&ts);
    else
        ended_ns_ok = 0;
    unsigned long long u, s;
    if (read_ticks(self->stat_fd, &u, &s) == 0) {
        ended_utime += u;
        ended_stime += s;
    }
    if (self->stat_fd >= 0)
        close(self->stat_fd);
    self->stat_fd = -1;
    for (struct registered **p = &running; *p; p = &(*p)->next)
        if (*p == self) {
            *p = self->next;
            break;
        }
    prune_ending_locked();
    self->next = ending;
    ending = self;
    registry_gen++;
    if (!running)
        close_task_dir_locked();
    pthread_mutex_unlock(&registry_lock);
}

void library_threads_usage(struct library_threads *out, int fresh, long threads_total)
{
    pthread_once(&registry_once, registry_init);
    pthread_mutex_lock(&registry_lock);
    prune_ending_locked();
    out->utime = ended_utime;
    out->stime = ended_stime;
    out->run_ns = ended_ns;
    out->run_ns_ok = ended_ns_ok;
    if (!tick_ns) {
        long tck = sysconf(_SC_CLK_TCK);
        tick_ns = 1000000000ULL / (unsigned long long)(tck > 0 ? tck : 100);
    }
    for (struct registered *r = running; r; r = r->next) {
        /* A running thread is alive: it leaves the list under this lock. */
        struct timespec ts;
        int have_ns = r->clock_ok && clock_gettime(r->clock, &ts) == 0;
        unsigned long long ns = have_ns ? timespec_ns(&ts) : 0;
        if (have_ns)
            out->run_ns += ns;
        else
            out->run_ns_ok = 0;
        int same_tick = have_ns && r->have_ticks && ns / tick_ns == r->ticks_ns / tick_ns;
        unsigned long long u, s;
        if (!fresh && same_tick) {
            out->utime += r->utime;
            out->stime += r->stime;
        } else if (read_ticks(r->stat_fd, &u, &s) == 0) {
            out->utime += u;
            out->stime += s;
            r->utime = u;
            r->stime = s;
            r->ticks_ns = ns;
            r->have_ticks = have_ns;
        }
    }
    /* The same number of threads and the same library threads: the same
     * others (a thread that ended and another that began change the
     * registry, or are both the user's). */
    if (!fresh && threads_total >= 0 && threads_total == others_total &&
        registry_gen == others_gen) {
        out->others = others_cached;
    } else {
        out->others = other_threads_locked();
        others_total = out->others >= 0 ? threads_total : -1;
        others_gen = registry_gen;
        others_cached = out->others;
    }
    if (!running)
        close_task_dir_locked(); /* a final sample after the threads ended */
    pthread_mutex_unlock(&registry_lock);
}

struct thread_start {
    void *(*fn)(void *);
    void *arg;
    char name[16];
    struct registered *entry;
    sem_t started;  /* posted by the thread once tid and clock are set */
    pid_t tid;
    int clock_ok;
    clockid_t clock;
};

static void *library_thread_main(void *arg)
{
    struct thread_start *start = arg;
    void *(*fn)(void *) = start->fn;
    void *fn_arg = start->arg;
    struct registered *entry = start->entry;
    pthread_setname_np(pthread_self(), start->name);
    start->tid = (pid_t)syscall(SYS_gettid);
    start->clock_ok = pthread_getcpuclockid(pthread_self(), &start->clock) == 0;
    sem_post(&start->started); /* start belongs to the creator again */
    void *ret = fn(fn_arg);
    registry_leave(entry);
    return ret;
}

int start_library_thread(pthread_t *thread, const char *name, void *(*fn)(void *), void *arg)
{
    pthread_once(&registry_once, registry_init);
    struct registered *entry = malloc(sizeof *entry);
    if (!entry)
        return ENOMEM;
    struct thread_start start = {.fn = fn, .arg = arg, .entry = entry};
    snprintf(start.name, sizeof start.name, "%s", name);
    sem_init(&start.started, 0, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_mutex_lock(&registry_lock);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(thread, NULL, library_thread_main, &start);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        while (sem_wait(&start.started) < 0 && errno == EINTR)
            ;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)start.tid);
        entry->tid = start.tid;
        entry->clock_ok = start.clock_ok;
        entry->clock = start.clock;
        entry->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
        entry->next = running;
        running = entry;
        registry_gen++;
    } else {
        free(entry);
    }
    pthread_mutex_unlock(&registry_lock);
    sem_destroy(&start.started);
    return rc;
}

/* The calling thread's entry while it has entered the registry itself
 * (library_thread_enter), for its leave. */
static __thread struct registered *entered_self;

int library_thread_enter(void)
{
    pthread_once(&registry_once, registry_init);
    if (entered_self)
        return 0;
    struct registered *entry = calloc(1, sizeof *entry);
    if (!entry)
        return ENOMEM;
    entry->tid = (pid_t)syscall(SYS_gettid);
    entry->clock_ok = pthread_getcpuclockid(pthread_self(), &entry->clock) == 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)entry->tid);
    entry->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    pthread_mutex_lock(&registry_lock);
    entry->next = running;
    running = entry;
    registry_gen++;
    pthread_mutex_unlock(&registry_lock);
    entered_self = entry;
    return 0;
}

void library_thread_leave(void)
{
    if (!entered_self)
        return;
    registry_leave(entered_self);
    entered_self = NULL;
}

/* ---- background jobs ---------------------------------------------------- */

struct background {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    pthread_t thread;
    int done, abandoned;
    void (*run)(void *ctx);
    void (*drop)(void *ctx);
    void *ctx;
};

static void background_free(struct background *b)
{
    pthread_cond_destroy(&b->done_cond);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void *background_main(void *arg)
{
    struct background *b = arg;
    b->run(b->ctx);
    pthread_mutex_lock(&b->lock);
    b->done = 1;
    pthread_cond_signal(&b->done_cond);
    int abandoned = b->abandoned;
    pthread_mutex_unlock(&b->lock);
    if (abandoned) {
        b->drop(b->ctx);
        background_free(b);
    }
    return NULL;
}

struct background *background_start(const char *name, void (*run)(void *ctx), void *ctx,
                                    void (*drop)(void *ctx))
{
    struct background *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->run = run;
    b->drop = drop;
    b->ctx = ctx;
    pthread_mutex_init(&b->lock, NULL);
    cond_init_monotonic(&b->done_cond);
    if (start_library_thread(&b->thread, name, background_main, b) != 0) {
        background_free(b);
        return NULL;
    }
    return b;
}

int background_done(struct background *b)
{
    pthread_mutex_lock(&b->lock);
    int done = b->done;
    pthread_mutex_unlock(&b->lock);
    return done;
}

int background_wait(struct background *b, double timeout)
{
    pthread_mutex_lock(&b->lock);
    struct timespec deadline = to_timespec(monotonic_now() + (timeout > 0 ? timeout : 0));
    int rc = 0;
    while (!b->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&b->done_cond, &b->lock, &deadline);
    int done = b->done;
    b->abandoned = !done;
    if (!done)
        pthread_detach(b->thread); /* before unlocking: then it may free b */
    pthread_mutex_unlock(&b->lock);
    if (done) {
        /* Joined, not left to finish on its own: once we return, the job's
         * thread is gone (a program tracking itself must not see it). */
        pthread_join(b->thread, NULL);
        background_free(b);
    }
    return done;
}

int wakeup_sleep_until(struct wakeup *w, double deadline)
{
    struct timespec at = to_timespec(deadline);
    for (;;) {
        if (__atomic_load_n(&w->set, __ATOMIC_ACQUIRE))
            return 1;
        /* FUTEX_WAIT_BITSET takes an absolute time on CLOCK_MONOTONIC; it
         * returns at once (EAGAIN) when the flag is no longer 0. */
        long rc = syscall(SYS_futex, &w->set, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &at,
                          NULL, FUTEX_BITSET_MATCH_ANY);
        if (rc < 0 && errno == ETIMEDOUT)
            return __atomic_load_n(&w->set, __ATOMIC_ACQUIRE);
        if (rc < 0 && errno != EINTR && errno != EAGAIN) {
            /* No futex (a seccomp filter): sleep plainly, in short steps so
             * that a stop is still seen. */
            double left = deadline - monotonic_now();
            if (left <= 0)
                return __atomic_load_n(&w->set, __ATOMIC_ACQUIRE);
            struct timespec step = {0, (long)((left < 0.01 ? left : 0.01) * 1e9)};
            nanosleep(&step, NULL);
        }
    }
}

void wakeup_set(struct wakeup *w)
{
    __atomic_store_n(&w->set, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &w->set, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL, 0);
}
