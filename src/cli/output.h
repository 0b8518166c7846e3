/* output.h - where the summary goes. */
#ifndef GT_CLI_OUTPUT_H
#define GT_CLI_OUTPUT_H

#include <stddef.h>

/* Checks, before anything runs, that path can be written, without changing
 * an existing file. Returns 0, or -1 with a one-line message in err. */
int output_check_writable(const char *path, char *err, size_t errcap);

#endif
