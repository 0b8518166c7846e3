/* push_sink.h - the run's metrics pushed to a Prometheus Pushgateway
 * (gt_options.metrics_push_url): for batch jobs that end before any scrape
 * would come. The text is the exporter's (metrics_text.h: the same names,
 * help texts and labels), PUT to
 *   URL/metrics/job/gpu-tracker/job_id/J/step_id/S/task_rank/T/host/H
 * (the labels the run has of these; outside a batch job host and pid), so
 * that each task's group replaces only its own last push.
 *
 * When: at the end (the stop's own sample), and every interval seconds
 * before that when an interval is given. A push during the run is made by
 * a thread of its own (the sampling thread only renders the text and hands
 * it over, never waits on the network); the last one by the caller of
 * stop(), while that thread abandons a push it has under way (within a
 * second). Each request takes at most PUSH_TIMEOUT seconds, and the stop
 * waits PUSH_TIMEOUT at most for all of them. A push that fails is one warning (the first; the
 * run goes on, the others are tried all the same) and never an error. */
#ifndef GT_PUSH_SINK_H
#define GT_PUSH_SINK_H

#include <pthread.h>
#include <stdatomic.h>

#include "output/output.h"
#include "sink/sink_interface.h"
#include "common/warn.h"

#define PUSH_TIMEOUT 5.0   /* seconds a push may take, connection included */
#define PUSH_JOB "gpu-tracker" /* the Pushgateway's job label of every push */

struct push_sink {
    struct sink base;
    struct warn_channel *warn_channel;
    struct metrics_static st;  /* the labels and GPUs */
    char *url;                 /* the group's whole URL */
    double interval;           /* seconds; 0: at the end only */
    double last_push;          /* monotonic time of the last hand-over; 0: none */
    /* The thread of the pushes during the run (started with the first). */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;      /* guards pending, stop, warned */
    pthread_cond_t wake;
    char *pending;             /* text waiting to be pushed (newest only) */
    size_t pending_len;
    int stop;
    _Atomic int abandon;       /* the run stops: a push under way is given up */
    int warned;                /* a push failed and was said */
};

/* A pusher to base_url (an http:// or https:// URL, checked by the
 * options) for the run labelled st (copied), grouped by job (NULL:
 * none) or else host and pid. GT_ERR_NO_MEMORY only. */
gt_status push_sink_init(struct push_sink *p, const char *base_url, double interval,
                         const struct metrics_static *st, const gt_job_info *job,
                         const char *host, long pid, struct warn_channel *w);

/* Whether the sample about to be taken at now (monotonic; final: the
 * stop's own) will be pushed, so that the reader reads each process's I/O
 * counters for it: the last one, and, with an interval, one an interval
 * after the last hand-over. Called by the sampling thread. */
int push_sink_wants_io(const struct push_sink *p, double now, int final);

/* The whole URL a push of base_url for this run goes to (malloc'd; NULL
 * when out of memory): what push_sink_init() pushes to. */
char *push_group_url(const char *base_url, const gt_job_info *job, const char *host, long pid);

/* For the copy in a child made by fork(): frees our memory, joins no
 * thread (the child has none of ours). */
void push_sink_forget(struct push_sink *p);

/* Ends the thread (abandoning a push under way: a second at most) and
 * frees everything; safe twice and on a sink init left zeroed. */
void push_sink_destroy(struct push_sink *p);

#endif
