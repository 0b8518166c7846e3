/* request_guard.c - see request_guard.h. */
#define _GNU_SOURCE
#include "common/request_guard.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "common/background.h"

struct guard_slot {
    int used;        /* between started and closed */
    int fd;
    int pending;     /* started, its request not yet whole, not yet cut */
    int cut;         /* shut down by us: the server closes it soon */
    double deadline; /* monotonic seconds: its start and the guard's seconds */
};

struct request_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int quit;
    double seconds;
    int limit;  /* the server's connections at once */
    int nslots; /* twice that: cut ones stay until the server closes them */
    struct guard_slot slots[];
};

/* Cuts s (under the lock): the server sees the end of the connection and
 * closes it (telling us, under this lock, before its close). */
static void cut(struct guard_slot *s)
{
    shutdown(s->fd, SHUT_RDWR);
    s->pending = 0;
    s->cut = 1;
}

static void *guard_main(void *arg)
{
    struct request_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->quit) {
        double now = monotonic_now(), next = 0;
        for (int i = 0; i < g->nslots; i++) {
            struct guard_slot *s = &g->slots[i];
            if (!s->used || !s->pending)
                continue;
            if (s->deadline <= now) {
                cut(s);
            } else if (next == 0 || s->deadline < next) {
                next = s->deadline;
            }
        }
        if (next == 0) {
            pthread_cond_wait(&g->wake, &g->lock);
        } else {
            struct timespec until = to_timespec(next);
            pthread_cond_timedwait(&g->wake, &g->lock, &until);
        }
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

struct request_guard *request_guard_start(double seconds, int limit)
{
    int slots = 2 * limit;
    struct request_guard *g = calloc(1, sizeof *g + (size_t)slots * sizeof g->slots[0]);
    if (!g)
        return NULL;
    g->seconds = seconds;
    g->limit = limit;
    g->nslots = slots;
    pthread_mutex_init(&g->lock, NULL);
    cond_init_monotonic(&g->wake);
    if (start_library_thread(&g->thread, "gt:http-guard", guard_main, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return NULL;
    }
    return g;
}

void *request_guard_started(struct request_guard *g, int fd)
{
    struct guard_slot *found = NULL, *oldest = NULL;
    int live = 1; /* this one */
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < g->nslots; i++) {
        struct guard_slot *s = &g->slots[i];
        if (!s->used) {
            if (!found)
                found = s;
            continue;
        }
        if (s->cut)
            continue;
        live++;
        if (s->pending && (!oldest || s->deadline < oldest->deadline))
            oldest = s;
    }
    /* The server's last connection taken: room for the next one, made by
     * the connection that has been sending its request longest. */
    if (live >= g->limit && oldest)
        cut(oldest);
    if (found) {
        *found = (struct guard_slot){1, fd, 1, 0, monotonic_now() + g->seconds};
        pthread_cond_signal(&g->wake);
    }
    pthread_mutex_unlock(&g->lock);
    return found;
}

void request_guard_received(struct request_guard *g, void *token)
{
    if (!token)
        return;
    pthread_mutex_lock(&g->lock);
    ((struct guard_slot *)token)->pending = 0;
    pthread_mutex_unlock(&g->lock);
}

void request_guard_closed(struct request_guard *g, void *token)
{
    if (!token)
        return;
    pthread_mutex_lock(&g->lock);
    ((struct guard_slot *)token)->used = 0;
    pthread_mutex_unlock(&g->lock);
}

void request_guard_stop(struct request_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    g->quit = 1;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}
