/* user_config.h - the per-user defaults file, $XDG_CONFIG_HOME/gpu-tracker/
 * config (else ~/.config/gpu-tracker/config): one long option per line, as
 * on the command line, the way curl reads .curlrc. Its options come before
 * the command line's, which therefore win. */
#ifndef GT_CLI_USER_CONFIG_H
#define GT_CLI_USER_CONFIG_H

#include <stddef.h>

/* Where the file is looked for, in path (cap bytes): 0, or -1 when there is
 * no home to look in (neither XDG_CONFIG_HOME nor HOME nor a passwd entry)
 * or the name does not fit. */
int user_config_path(char *path, size_t cap);

/* Tells whether long option name exists (and *has_arg: 1 needs a value,
 * 0 takes none) and may be set in the file: 1 yes, 0 unknown, -1 known but
 * not for a config file (what to run, help). Given by the parser. */
typedef int (*user_config_option_fn)(const char *name, int *has_arg);

/* Reads path into options (*args, NULL-terminated, malloc'd, each
 * "--name" or "--name=value"; free with user_config_free). A file that
 * does not exist gives none (*found 0); one that exists must be a regular
 * file of at most 64 KiB, owned by us or root and writable by no one else
 * (root must not take its options from a file another user can change).
 * Lines: blank, "# comment", "--name", "--name=value", "--name value" or
 * "name = value" (the "--" may be left out), a value in double quotes kept
 * whole. 0, or -1 with a one-line message naming the file and line. */
int user_config_read(const char *path, user_config_option_fn known, char ***args, int *nargs,
                     int *found, char *err, size_t errcap);
void user_config_free(char **args);

#endif
