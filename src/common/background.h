/* background.h - the library's threads: the monotonic clock, condition
 * variables whose timed waits use it, named threads that take no signals
 * (signals belong to the program), a registry of the threads the library
 * runs (so that a program tracking itself can leave them out), and jobs run
 * in a thread of their own that a caller waits for with a timeout (a GPU
 * library's init, cloud metadata requests: either can hang): a job the
 * caller gives up on frees itself when it ends. */
#ifndef GT_BACKGROUND_H
#define GT_BACKGROUND_H

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
double monotonic_now(void);

/* Seconds on CLOCK_REALTIME (epoch time). */
double epoch_now(void);

/* A CLOCK_MONOTONIC time in seconds as a struct timespec, for the timed
 * waits; a time more than a year ahead is cut to that (no overflow). */
struct timespec to_timespec(double seconds);

/* A condition variable whose timed waits use CLOCK_MONOTONIC. */
void cond_init_monotonic(pthread_cond_t *c);

/* A wake-up a thread sleeps on until a deadline or until another thread
 * sets it (a flag on a futex): one system call per sleep (a futex with an absolute CLOCK_MONOTONIC
 * timeout), where a condition variable's timed wait takes two (its mutex
 * is taken back marked contended, so its unlock wakes no one, by a system
 * call). For the sampling thread, which sleeps once per sample. Zeroed
 * memory is an unset wake-up. */
struct wakeup {
    int set; /* 0 or 1, atomically */
};

/* Sleeps until deadline (seconds on CLOCK_MONOTONIC) or until
 * wakeup_set(). 1 when it is set, 0 at the deadline. */
int wakeup_sleep_until(struct wakeup *w, double deadline);

/* Sets the wake-up and wakes its sleeper; it stays set. */
void wakeup_set(struct wakeup *w);

/* Starts fn(arg) in a thread with every signal blocked, named name (at most
 * 15 characters: what `top -H` and /proc/PID/task/TID/comm show; ours all
 * start with "gt:", as "gt:sampler"), and
 * registered as a library thread while fn runs. pthread_create's result. */
int start_library_thread(pthread_t *thread, const char *name, void *(*fn)(void *), void *arg);

/* Registers the calling thread, which the library did not start, as one
 * of its threads until library_thread_leave() (called by the same thread
 * before it ends): a tracker of this process leaves its CPU and its count
 * out, as for start_library_thread's. For a helper the tracker's user
 * runs on the tracker's behalf (the Python Tracker's reading of PyTorch's
 * allocator). 0, or ENOMEM. Entering twice is once. */
int library_thread_enter(void);
void library_thread_leave(void);

/* What the library's threads in this process have used, CPU clock ticks
 * (user and system, as /proc/PID/task/TID/stat counts them) of those running
 * now and of those that have ended, and how many threads the process has
 * now that are not the library's (-1 when that cannot be known). A tracker
 * of the calling process counts only the latter and takes the ticks out of
 * its figures: they are not the user's work. */
struct library_threads {
    unsigned long long utime, stime;
    unsigned long long run_ns; /* their run time in nanoseconds, when run_ns_ok */
    int run_ns_ok;
    long others;
};

/* What the library's threads have used now. In a child made by fork() the
 * parent's threads are forgotten (they do not run there, and their ticks
 * are not the child's). A thread's ticks are read again only when its run
 * time has passed into another clock tick, or when fresh (the first and
 * last samples): in between utime and stime may each be a tick behind.
 * threads_total: the process's thread count now (its status's Threads; -1
 * unknown): while it and the library's threads stay the same, others is
 * the last listing's. */
void library_threads_usage(struct library_threads *out, int fresh, long threads_total);

/* 1 when tid is a thread of the library's that is running now (started by
 * start_library_thread and not yet done): one that never forks, so a walk
 * of this process's threads can skip its children file. */
int is_running_library_thread(pid_t tid);

struct background;

/* Runs run(ctx) in a library thread named name. NULL when none could
 * start: ctx is then still the caller's. */
struct background *background_start(const char *name, void (*run)(void *ctx), void *ctx,
                                    void (*drop)(void *ctx));

/* Waits up to timeout seconds for run() to end. 1 when it has: the thread
 * is joined (gone), ctx is the caller's again, and b is freed. 0 when it
 * has not: b and ctx now belong to the job, which calls drop(ctx) when
 * run() returns. */
int background_wait(struct background *b, double timeout);

/* 1 when run() has ended (background_wait would return 1 at once), without
 * waiting or giving anything up. */
int background_done(struct background *b);

#endif
