/* subtracker.c - gpu_tracker 5's SubTracker in C (gpu_tracker.h,
 * "Sub-tracking"): the start and stop of code blocks, a row per mark, in a
 * table_file. */
#define _GNU_SOURCE
#include "common/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/table_file.h"

#define SUBTRACK_COLUMNS 4

static const char *const subtrack_columns[SUBTRACK_COLUMNS] = {
    "process_id", "code_block_name", "position", "timestamp",
};

struct gt_subtracker {
    pthread_mutex_t lock;  /* one mark at a time: rows never interleave */
    struct table_file file;
    pid_t owner;           /* the process that opened it */
    char *path;
};

gt_status gt_subtracker_open(const char *path, int overwrite, gt_subtracker **out)
{
    error_clear();
    if (!out)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no place for the sub-tracker (out is NULL)");
    *out = NULL;
    gt_subtracker *s = calloc(1, sizeof *s);
    char name[32];
    if (!path) {
        snprintf(name, sizeof name, "%d.csv", (int)getpid());
        path = name;
    }
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    gt_status st = table_file_create(&s->file, path, overwrite, "sub-tracking file");
    if (st == GT_OK) {
        /* The types of the table's columns, for SQLite. */
        const struct table_value types[SUBTRACK_COLUMNS] = {
            {TABLE_INT, 0, NULL}, {TABLE_TEXT, 0, ""}, {TABLE_INT, 0, NULL}, {TABLE_FLOAT, 0, NULL}};
        if (table_file_table(&s->file, "data", subtrack_columns, types, SUBTRACK_COLUMNS) < 0)
            st = error_set(GT_ERR_IO, "cannot write sub-tracking file '%s': %s", path,
                           table_file_error(&s->file));
    }
    if (st != GT_OK) {
        table_file_discard(&s->file);
        free(s->path);
        free(s);
        return st;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->owner = getpid();
    *out = s;
    return GT_OK;
}

static gt_status mark(gt_subtracker *s, const char *name, int position)
{
    error_clear();
    if (!s || !name)
        return error_set(GT_ERR_INVALID_ARGUMENT, "no %s given to mark a code block",
                         s ? "code block name" : "sub-tracker");
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    pid_t pid = getpid();
    if (pid != s->owner && s->file.db)
        return error_set(GT_ERR_STATE, "sub-tracking file '%s' was opened by process %d: an SQLite "
                         "file cannot be written from its child %d (made by fork()); open one "
                         "there", s->path, (int)s->owner, (int)pid);
    const struct table_value row[SUBTRACK_COLUMNS] = {
        {TABLE_INT, (double)pid, NULL},
        {TABLE_TEXT, 0, name},
        {TABLE_INT, position, NULL},
        {TABLE_FLOAT, (double)now.tv_sec + (double)now.tv_nsec / 1e9, NULL},
    };
    pthread_mutex_lock(&s->lock);
    int rc = table_file_row(&s->file, row, SUBTRACK_COLUMNS);
    gt_status st = rc == 0 ? GT_OK
                           : error_set(GT_ERR_IO, "cannot write sub-tracking file '%s': %s",
                                       s->path, table_file_error(&s->file));
    pthread_mutex_unlock(&s->lock);
    return st;
}

gt_status gt_subtrack_begin(gt_subtracker *s, const char *code_block_name)
{
    return mark(s, code_block_name, 0);
}

gt_status gt_subtrack_end(gt_subtracker *s, const char *code_block_name)
{
    return mark(s, code_block_name, 1);
}

void gt_subtracker_free(gt_subtracker *s)
{
    if (!s)
        return;
    /* A child made by fork() must not touch the parent's SQLite handle;
     * its descriptor and memory are its own to let go. */
    if (getpid() == s->owner || !s->file.db)
        table_file_close(&s->file);
    pthread_mutex_destroy(&s->lock);
    free(s->path);
    free(s);
}
