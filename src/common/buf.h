/* buf.h - the library's one growable buffer, and its growth for arrays
 * (grow_array). The buffer: bytes appended at its end,
 * always NUL-terminated, doubling as it grows, the first failure kept
 * (every later append does nothing), optionally starting in a block of the
 * caller's (on the stack: no allocation for a short text). Every writer or
 * reader that grows memory for text uses it: the report, the tracking
 * file's lines, the CSV reader's fields, the JSON stream to memory. */
#ifndef GT_BUF_H
#define GT_BUF_H

#include <stddef.h>

#include "common/internal.h"

struct buf {
    char *data;      /* len bytes then a NUL (NULL while nothing was added) */
    size_t len, cap;
    int failed;      /* ENOMEM once an allocation failed */
    char *stack;     /* the caller's first block (data starts there), or NULL */
    size_t stack_cap;
    size_t first;    /* the first allocation's size (0: 256 bytes) */
};

/* An empty buffer whose first allocation is first bytes (0: 256). */
void buf_init(struct buf *b, size_t first);

/* An empty buffer in the caller's block of cap bytes (cap >= 1), moved to
 * the heap only when it does not fit. */
void buf_init_in(struct buf *b, char *block, size_t cap);

/* Room for n more bytes (and the NUL). 0, or -1 (the buffer failed). */
int buf_reserve(struct buf *b, size_t n);

/* Appends n bytes at p / the string s / printf's text. */
void buf_add(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) GT_PRINTF(2, 3);

/* Empties the buffer, keeping its memory (and its failure). */
void buf_clear(struct buf *b);

/* The text, malloc'd, for the caller to free (the buffer is left empty);
 * NULL when the buffer failed or memory runs out. */
char *buf_take(struct buf *b);

/* Frees what the buffer allocated. */
void buf_free(struct buf *b);

/* The same growth for an array of elem-byte elements (*array, a T *, with
 * room for *cap): room for at least need, doubling from first (0: 16).
 * 0, or -1 with errno ENOMEM (the array as it was). Every array the
 * library grows goes through here. */
int grow_array(void *array, size_t *cap, size_t need, size_t elem, size_t first);

#endif
