/* subtrack_cmd.h - `gpu-tracker sub-track ...` (gpu_tracker 5's
 * combine, analyze and compare). */
#ifndef GT_CLI_SUBTRACK_CMD_H
#define GT_CLI_SUBTRACK_CMD_H

extern const char subtrack_usage[];

/* argv[0] is "sub-track". Returns the exit status: 0, 1 (a file could not
 * be read or written, or is malformed), 2 (a usage error). */
int subtrack_command(int argc, char **argv);

#endif
