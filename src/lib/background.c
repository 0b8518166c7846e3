/* background.c - clock, condition variables, quiet threads and background
 * jobs (see background.h). */
#define _GNU_SOURCE
#include "background.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

double monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct timespec to_timespec(double seconds)
{
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

int start_quiet_thread(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(thread, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

struct background {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
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

struct background *background_start(void (*run)(void *ctx), void *ctx, void (*drop)(void *ctx))
{
    struct background *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->run = run;
    b->drop = drop;
    b->ctx = ctx;
    pthread_mutex_init(&b->lock, NULL);
    cond_init_monotonic(&b->done_cond);
    pthread_t thread;
    if (start_quiet_thread(&thread, background_main, b) != 0) {
        background_free(b);
        return NULL;
    }
    pthread_detach(thread);
    return b;
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
    pthread_mutex_unlock(&b->lock);
    if (done)
        background_free(b);
    return done;
}
