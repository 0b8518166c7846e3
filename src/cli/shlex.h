/* shlex.h - splitting a command line the way Python's shlex.split() does
 * (POSIX rules: quotes and backslashes, no expansion of any kind). */
#ifndef GT_SHLEX_H
#define GT_SHLEX_H

#include <stddef.h>

/* Splits s into a NULL-terminated argv (free with shlex_free). Returns NULL
 * and sets *error to a fixed message ("no closing quotation", ...) when the
 * text is malformed, or to "out of memory". */
char **shlex_split(const char *s, const char **error);
void shlex_free(char **argv);

/* The inverse, as Python's shlex.join(): words that need it in single
 * quotes, however long. A malloc'd string, or NULL when out of memory. */
char *shlex_join(char *const *argv);

#endif
