/* background.h - the library's thread helpers: the monotonic clock,
 * condition variables whose timed waits use it, threads that take no
 * signals (they belong to the program), and jobs run in a thread of their
 * own that a caller waits for with a timeout (a GPU library's init, cloud
 * metadata requests: either can hang): a job the caller gives up on frees
 * itself when it ends. */
#ifndef GT_BACKGROUND_H
#define GT_BACKGROUND_H

#include <pthread.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
double monotonic_now(void);

/* A time in seconds as a struct timespec (for the timed waits). */
struct timespec to_timespec(double seconds);

/* A condition variable whose timed waits use CLOCK_MONOTONIC. */
void cond_init_monotonic(pthread_cond_t *c);

/* Starts a thread with every signal blocked. pthread_create's result. */
int start_quiet_thread(pthread_t *thread, void *(*fn)(void *), void *arg);

struct background;

/* Runs run(ctx) in a quiet thread of its own. NULL when none could start:
 * ctx is then still the caller's. */
struct background *background_start(void (*run)(void *ctx), void *ctx, void (*drop)(void *ctx));

/* Waits up to timeout seconds for run() to end. 1 when it has: ctx is the
 * caller's again, and b is freed. 0 when it has not: b and ctx now belong
 * to the job, which calls drop(ctx) when run() returns. */
int background_wait(struct background *b, double timeout);

#endif
