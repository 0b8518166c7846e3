/* suggest.h - "did you mean": the valid word nearest a mistyped one, and
 * the message for an option given with one dash or a wrong name. */
#ifndef GT_CLI_SUGGEST_H
#define GT_CLI_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* The word of words (NULL-terminated) nearest to typed, when it is at most
 * max_edits edits away (an insertion, a deletion, a substitution or two
 * neighbours swapped, each one edit); NULL when none is. */
const char *suggest_nearest(const char *typed, const char *const *words, int max_edits);

/* The one-line error for the argument arg that getopt could not take
 * (err, errcap): a long option given with one dash ("-st": "long options
 * take two dashes: --st"), a long option nearly named right ("--nce": "did
 * you mean --nec?"), or an unknown option. see names the help to read. */
void suggest_option_error(const char *arg, const struct option *options, const char *see,
                          char *err, size_t errcap);

#endif
