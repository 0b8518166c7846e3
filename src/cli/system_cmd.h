/* system_cmd.h - gpu-tracker system: the system series on its own. */
#ifndef GT_CLI_SYSTEM_CMD_H
#define GT_CLI_SYSTEM_CMD_H

/* Runs `gpu-tracker system [options]`; argv[0] is "system". Returns the exit
 * status: 0 when the series was written (to its end, or until SIGINT /
 * SIGTERM / SIGHUP), 2 for bad options, 1 when the output failed. */
int system_command(int argc, char **argv);

#endif
