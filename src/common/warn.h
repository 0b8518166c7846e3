/* warn.h - the library's warnings: one mechanism for "say it once".
 *
 * The library never prints: a warning is a one-line message handed to the
 * user's callback (gt_options.on_warning), or dropped. Most warnings name a
 * condition that, once true, stays true for the run (a file we cannot read,
 * a descriptor that failed): those are said once per tracker, keyed by a
 * warn_id. A tracker's warnings come from whoever owns its readers at the
 * time (the sampling thread, or the API call after it has stopped) and
 * from the backup's writer thread: the said-once flags are set atomically,
 * so each is said once even when two threads notice it together. */
#ifndef GT_WARN_H
#define GT_WARN_H

#include "common/internal.h"

enum warn_id {
    WARN_SYSTEM_UNREADABLE,   /* /proc/stat or meminfo */
    WARN_TREE_WALK,           /* the walk itself failed */
    WARN_TREE_PERMISSION,     /* a tree process's file: EACCES */
    WARN_TREE_DESCRIPTORS,    /* no descriptor left for a process */
    WARN_SERIES_MEMORY,       /* rows or system counters lost to ENOMEM */
    WARN_CSV_PROCESS,         /* writing the process CSV failed */
    WARN_CSV_SYSTEM,          /* writing the system CSV failed */
    WARN_BACKUP,              /* the backup file cannot be written */
    WARN_TRACKING_FILE,       /* the tracking file cannot be written */
    WARN_METRICS_TEXTFILE,    /* the metrics textfile cannot be written */
    WARN_CGROUP_GONE,         /* the job's cgroup can no longer be read */
    WARN_ID_COUNT
};

struct warn_channel {
    gt_warning_fn fn;         /* NULL: every warning is dropped */
    void *data;
    unsigned char said[WARN_ID_COUNT];
};

/* Warnings go to fn(message, data); disabled: nowhere. */
void warn_channel_init(struct warn_channel *w, gt_warning_fn fn, void *data, int disabled);

/* Says the message (formatted, cut at 511 bytes). */
void warn_always(struct warn_channel *w, const char *fmt, ...) GT_PRINTF(2, 3);

/* Says the message the first time id comes; later ones are dropped.
 * Returns 1 the first time, 0 after. */
int warn_once(struct warn_channel *w, enum warn_id id, const char *fmt, ...) GT_PRINTF(3, 4);

#endif
