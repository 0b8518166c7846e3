/* backup_sink.h - the crash backup: the summary so far in a file, so that a
 * job killed before gt_tracker_stop() still has its results
 * (gt_options.resource_usage_file; gpu_tracker's pickle of the same name).
 *
 * When it is written (docs/api.md, "The backup file"):
 *  - it is first written at the first look after the baseline (about
 *    BACKUP_PERIOD in; with a longer interval, the first sample after the
 *    baseline), when it has figures to keep: a job that ends sooner leaves
 *    no file and pays for none (a directory that could not be resolved is
 *    still said at the start). Every write is handed to a writer thread
 *    ("gt:backup", started at the first), so that a slow or hung
 *    filesystem never delays a sample: the sampling thread only decides,
 *    and posts the newest summary (a newer one replaces a post the writer
 *    has not taken yet);
 *  - it is looked at about once a second. It is rewritten when
 *    a figure a reader would act on changed: a peak (memory peaks by
 *    BACKUP_MEMORY_STEP or more), a thread count, a GPU reason of the job;
 *    not the running means, the elapsed time, the sample counts, nor the
 *    machine's RAM in use and CPU percentages, which every other program
 *    moves. A memory peak that grew (RAM or GPU memory, by
 *    BACKUP_MEMORY_STEP or more) is written at once, at this look: the
 *    kill during the climb (the OOM killer, a time limit) is what the file
 *    is for, so while a peak climbs the file lags the tracker by at most
 *    a look (one sample, or a second where samples are closer). Any other
 *    change waits until BACKUP_MIN_GAP has passed since the last write: a
 *    write costs about as much as a sample;
 *  - otherwise it is refreshed, so that the means and the elapsed time stay
 *    roughly current, once backup_refresh_period() has passed: a tenth of
 *    the run so far, from 30 s to 5 min. A job whose peaks have settled
 *    costs one comparison a second and a write every 5 minutes;
 *  - it is fsynced at most every BACKUP_FSYNC_PERIOD, the first time that
 *    long after the first write (a short job pays none): a killed process
 *    leaves the page cache behind, only a machine crash needs the file on
 *    disk, and an fsync cost more CPU than the write (75 of 135 us, and
 *    280 us of waiting, measured on the development VM);
 *  - a clean stop removes it (backup_sink_finish), if it was written. */
#ifndef GT_BACKUP_SINK_H
#define GT_BACKUP_SINK_H

#include <pthread.h>

#include "common/file_io.h"
#include "sink/sink_interface.h"
#include "common/warn.h"

#define BACKUP_PERIOD 1.0          /* seconds between looks */
#define BACKUP_MIN_GAP 5.0         /* at most this stale in the other
                                      figures a reader acts on */
#define BACKUP_REFRESH_MIN 30.0    /* the refresh: a tenth of the run, */
#define BACKUP_REFRESH_MAX 300.0   /* within these bounds */
#define BACKUP_FSYNC_PERIOD 30.0
#define BACKUP_MEMORY_STEP 0.01    /* a memory peak's smallest change
                                      that is written before the refresh */

struct backup_writer;

struct backup_sink {
    struct sink base;
    char *path;               /* NULL: no backup file */
    struct output_target target; /* resolved once: dirfd -1 when it could not be */
    char error[512];          /* why it could not be resolved */
    double interval;          /* the tracker's sleep time */
    double wait_limit;        /* seconds finish() waits for a write under way */
    double last_look, first_write, last_write, last_fsync; /* monotonic; 0: never */
    int written;              /* writes so far; last holds what the file has */
    gt_resource_usage last;   /* the summary the file has */
    struct warn_channel *warn_channel;
    pthread_mutex_t lock;     /* guards off: stop() may come mid-write */
    int off;
    /* The writer thread, from the first write on; NULL before, and when
     * none could start (then the sampling thread writes). It owns target
     * and last_fsync while it runs. */
    struct backup_writer *writer;
    /* Who writes the file (backup_identity.h), NULL: no identity (yet:
     * made at the first write from identity_pid and identity_command when
     * identity_wanted); and the epoch time of the first write (the run's
     * start). */
    char *identity;
    int identity_wanted;
    pid_t identity_pid;
    char *identity_command;
    double start_epoch;
};

/* Makes every write carry who writes the file: this process, tracking pid
 * running command (NULL: not said; the string is copied). The identity is
 * made at the first write, not here: a job that ends before it pays for
 * none of it (a /proc read and a JSON object). GT_ERR_NO_MEMORY. */
gt_status backup_sink_set_identity(struct backup_sink *b, pid_t pid, const char *command);

/* Seconds after which a backup whose figures did not change is rewritten,
 * elapsed seconds after its first write: a tenth of that, from
 * BACKUP_REFRESH_MIN to BACKUP_REFRESH_MAX. */
double backup_refresh_period(double elapsed);

/* A backup to path (NULL: none; the string is copied), looked at every
 * interval-seconds sample; wait_limit: how long finish() and
 * backup_sink_destroy_lock() wait for a write under way (a writer still
 * stuck then is left to end by itself). GT_ERR_NO_MEMORY; a path that
 * cannot be resolved is not an error here: the first write warns with why. */
gt_status backup_sink_init(struct backup_sink *b, const char *path, double interval,
                           double wait_limit, struct warn_channel *w);

/* Waits (up to wait_limit) until every summary handed to the writer
 * thread is in the file. 1 when it is, 0 when the wait timed out. */
int backup_sink_flush(struct backup_sink *b);

/* Writes no more, lets the writer thread finish and removes the file (a
 * clean stop). */
void backup_sink_finish(struct backup_sink *b);

/* Frees b's memory and descriptor; the file stays (a tracker freed while
 * running keeps it). Also for the copy of b in a child made by fork(). */
void backup_sink_forget(struct backup_sink *b);

/* Ends the writer thread (the file stays) and destroys b's lock: the
 * owner, before backup_sink_forget (never in a child of fork(), where the
 * thread does not run and another thread may have held the lock). */
void backup_sink_destroy_lock(struct backup_sink *b);

/* 1 when the summary of usage a and b would not call for a rewrite: they
 * differ at most in the running means, the elapsed time, energy, the
 * sample counts, the machine's RAM in use and its CPU percentages. */
int backup_same_figures(const gt_resource_usage *a, const gt_resource_usage *b);

/* 1 when a memory peak of u (RAM or GPU memory: main, descendants,
 * combined) is BACKUP_MEMORY_STEP or more above the same in b: written at
 * once. */
int backup_memory_peak_grew(const gt_resource_usage *u, const gt_resource_usage *b);

#endif
