/* metrics_sink.h - the exporter: the figures so far served to Prometheus
 * over HTTP (gt_options.metrics_listen) and written for node_exporter's
 * textfile collector (gt_options.metrics_textfile_dir). docs/metrics.md
 * lists the metrics.
 *
 * One more sink (sink.h): after each sample the sampling thread hands it
 * the sample's metrics_point, which it copies under its own lock (a few
 * hundred bytes: nothing else is done while no one scrapes). The I/O
 * counters cost a file per process, so they are read only while someone
 * looks (a scrape in the last METRICS_SCRAPER_GONE seconds, or the
 * textfile), at most every METRICS_IO_PERIOD. A scrape is
 * answered by libmicrohttpd's thread, which renders the newest point
 * (metrics_text.h) then; the textfile is rendered and replaced by the
 * sampling thread at most once a second, and removed at the end. */
#ifndef GT_METRICS_SINK_H
#define GT_METRICS_SINK_H

#include <pthread.h>
#include <sys/socket.h>

#include "common/file_io.h"
#include "output/output.h"
#include "sink/sink_interface.h"
#include "common/warn.h"

#define METRICS_TEXTFILE_PERIOD 1.0 /* seconds: at most one write in this */
#define METRICS_IO_PERIOD 1.0       /* seconds: I/O counters at most this stale */
#define METRICS_SCRAPER_GONE 120.0  /* seconds without a scrape: no one is looking */
#define METRICS_MAX_CONNECTIONS 16  /* scrapers at once */
#define METRICS_CONNECTION_TIMEOUT 10 /* seconds a connection may idle */
#define METRICS_REQUEST_SECONDS 5.0 /* a connection's whole request, from its start */

struct MHD_Daemon;
struct request_guard;

struct metrics_sink {
    struct sink base;
    struct warn_channel *warn_channel;
    struct metrics_static st;   /* the labels and GPUs; start_time under lock */
    pthread_mutex_t lock;       /* guards latest, have_latest, st.start_time, scrapes */
    struct metrics_point latest;
    int have_latest;
    long scrapes;               /* answered so far */
    double last_scrape;         /* monotonic; 0: never */
    /* HTTP: daemon NULL when not serving. */
    struct MHD_Daemon *daemon;
    struct request_guard *guard; /* the requests' deadline, with the daemon */
    char address[96];           /* "127.0.0.1:9101", "[::1]:9101" */
    /* The textfile: path NULL when none. Owned by the sampling thread. */
    char *path;
    struct output_target target;
    double last_write;          /* monotonic; 0: never */
    double last_io;             /* when the I/O counters were last asked for */
    int failed;                 /* a write failed: warned once, no more */
};

/* An exporter for listen (NULL: no HTTP) and textfile_dir (NULL: no file,
 * else DIR/gpu-tracker-<pid>.prom): binds and starts serving, checks the
 * file can be written. st: the run's labels and GPUs (copied).
 * GT_ERR_INVALID_ARGUMENT / GT_ERR_IO with the reason (the port is in use,
 * not an address of this machine, the directory cannot be written), then
 * nothing is left to free. */
gt_status metrics_sink_init(struct metrics_sink *m, const char *listen, const char *textfile_dir,
                            pid_t pid, const struct metrics_static *st, struct warn_channel *w);

/* The newest point from the sampling thread (at now, monotonic seconds):
 * kept for scrapes, and written to the textfile when due. */
void metrics_sink_update(struct metrics_sink *m, const struct metrics_point *p, double now);

/* Whether the sample about to be taken at now (monotonic seconds) should
 * read the I/O counters: someone looks, and the last were read
 * METRICS_IO_PERIOD ago or more. Called by the sampling thread. */
int metrics_sink_wants_io(struct metrics_sink *m, double now);

/* The epoch time of the baseline, for start_time_seconds. */
void metrics_sink_set_start(struct metrics_sink *m, double epoch);

/* Ends it: stops serving, removes the textfile. Safe twice and on an
 * exporter that init left zeroed. */
void metrics_sink_finish(struct metrics_sink *m);

/* Frees its memory only: for a child made by fork(), which must not touch
 * the parent's server thread or file. */
void metrics_sink_forget(struct metrics_sink *m);

/* finish(), forget() and its lock destroyed. */
void metrics_sink_destroy(struct metrics_sink *m);

#endif
