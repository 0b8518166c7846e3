/* file_read.h - the library's one way of reading a small file whole into a
 * buffer: the kernel's files (procfs, sysfs, cgroupfs) and the few regular
 * files read the same way. No stdio, no allocation but where asked
 * (file_pread_grow); a kept descriptor is re-read with pread from offset 0,
 * so that a sample costs one system call a file. */
#ifndef GT_FILE_READ_H
#define GT_FILE_READ_H

#include <stddef.h>

/* Reads fd to its end into buf (cap bytes, NUL-terminated, *len set). A
 * kept descriptor is re-read from offset 0 (positional: procfs regenerates
 * the file); a fresh one is read in order. EFBIG when it does not fit in
 * cap-1 bytes. */
int file_read_fd(int fd, int positional, char *buf, size_t cap, size_t *len);

/* Reads the whole file name (relative to dirfd) into buf, NUL-terminated.
 * Sets *len. A file that does not fit in cap-1 bytes fails with EFBIG. */
int file_read_at(int dirfd, const char *name, char *buf, size_t cap, size_t *len);

/* Reads a kept-open file from offset 0 (procfs and sysfs regenerate it). */
int file_pread(int fd, char *buf, size_t cap, size_t *len);

/* file_pread into a malloc'd *buf (NULL with *cap 0: allocated here),
 * doubling *cap (up to max bytes) while the file does not fit. -1 with
 * errno (EFBIG past max, ENOMEM). */
int file_pread_grow(int fd, char **buf, size_t *cap, size_t max, size_t *len);

/* The first cap - 1 bytes of the file path at most (all of a shorter one),
 * NUL-terminated, *len set: for a file whose beginning is all that is
 * wanted (the first processor of a long /proc/cpuinfo). -1 with errno. */
int file_read_prefix(const char *path, char *buf, size_t cap, size_t *len);

/* Opens <root>/<name> read-only, close-on-exec, with extra flags
 * (O_DIRECTORY); -1 with errno. */
int file_open_in(const char *root, const char *name, int flags);

#endif
