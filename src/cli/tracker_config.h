/* tracker_config.h - gpu_tracker's --tconfig FILE.json: the Tracker's keyword
 * arguments from a file, turned into the options they stand for, which
 * the command line then overrides. */
#ifndef GT_CLI_TRACKER_CONFIG_H
#define GT_CLI_TRACKER_CONFIG_H

#include <stddef.h>

/* Reads the config file path into options (*args, NULL-terminated,
 * malloc'd: free with tracker_config_free), e.g. {"sleep_time": 0.5} gives
 * "--st=0.5". 0, or -1 with a one-line message in err naming the file and
 * the key. */
int tracker_config_args(const char *path, char ***args, int *nargs, char *err, size_t errcap);
void tracker_config_free(char **args);

#endif
