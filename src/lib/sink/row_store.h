/* row_store.h - the rows of a run's two series, in constant memory.
 *
 * A week at --st 0.01 is 60 million rows; kept in memory they would cost
 * gigabytes (3.7 KB a sample, all told, before this). The store keeps the
 * newest ROW_STORE_TAIL rows of each series in memory and appends each full
 * batch to a file of its own, unlinked (O_TMPFILE) in $TMPDIR, else
 * /var/tmp, else /tmp: the rows stay on disk (264 bytes a row pair; what
 * the page cache keeps is the kernel's to drop), the process stays small
 * however long the run. If no such file can be made or written, the rows
 * stay in memory instead (row_store_spill_error says why): none is lost.
 *
 * One thread appends (the sampler); reads happen once the appends are over
 * or frozen, under the caller's lock discipline (tracker.c): appending
 * never writes to a file while holding the caller's lock, see
 * row_store_flush. */
#ifndef GT_ROW_STORE_H
#define GT_ROW_STORE_H

#include <stddef.h>

#include "gpu_tracker_internal.h"
#include "common/row_source.h"

/* Rows of each series kept in memory. The sanitizer builds make it 7, so
 * that nearly every run of the test suite keeps rows on disk there. */
#ifndef ROW_STORE_TAIL
#define ROW_STORE_TAIL 1024
#endif

struct row_series {
    size_t row_size;
    size_t on_disk;   /* rows 0 .. on_disk - 1 are in the file */
    char *tail;       /* the rows after them */
    size_t ntail, captail;
    int fd;           /* the file, -1 before the first batch or without one */
    int in_memory;    /* the file failed: the tail grows instead */
};

struct row_store {
    struct row_series series[2]; /* by gt_series_kind */
    char spill_error[256];       /* why rows stay in memory ("" if they do not) */
    const char *dir;             /* the directory for the files; NULL: $TMPDIR,
                                    /var/tmp, /tmp, the first that takes one */
};

void row_store_init(struct row_store *s);
void row_store_free(struct row_store *s);

/* Rows kept, by kind. */
size_t row_store_count(const struct row_store *s, gt_series_kind kind);

/* Appends a row. Returns 1 when the tail of that series is full: the caller
 * then calls row_store_flush() (outside its lock), then row_store_commit()
 * (inside it). -1 with ENOMEM when a row could not be kept in memory. */
int row_store_add(struct row_store *s, gt_series_kind kind, const void *row);

/* Writes the full tail of kind to the file (made on first use). Reads only
 * the tail, touches nothing a reader looks at: safe without the lock.
 * Returns 0, or -1 (errno) when the file cannot be made or written. */
int row_store_flush(struct row_store *s, gt_series_kind kind);

/* After row_store_flush() returned rc: on 0 the tail's rows count as on
 * disk and the tail is emptied; on -1 the series keeps its rows in memory
 * from now on (the reason in spill_error; returns 1 the first time, for
 * one warning). */
int row_store_commit(struct row_store *s, gt_series_kind kind, int rc);

/* Reads rows first .. first + n - 1 (of row_size bytes) from a series'
 * file: the rows a commit has counted on disk are never written again, so
 * a reader may do this without the caller's lock once it has read fd and
 * on_disk under it. 0, or -1 with errno. */
int row_store_read_file(int fd, size_t row_size, size_t first, size_t n, void *out);

/* A row source over the store (valid while it is not appended to). */
void row_store_source(const struct row_store *s, struct row_source *src);

/* A copy of rows first .. first + max - 1 of kind (fewer past the end) in
 * two steps, so that the file is read without the caller's lock while
 * rows may be added: row_store_copy_begin(), under the lock, copies the
 * rows in memory into out and says in *rest which to read from the part
 * of the file already committed (never written again); it returns how
 * many rows the copy holds. row_store_copy_rest(), after the lock, reads
 * those: 0, or -1 with errno. */
struct row_copy_rest {
    int fd;
    size_t row_size, first, n;
};
size_t row_store_copy_begin(const struct row_store *s, gt_series_kind kind, size_t first,
                            size_t max, void *out, struct row_copy_rest *rest);
int row_store_copy_rest(const struct row_copy_rest *rest, void *out);

#endif
