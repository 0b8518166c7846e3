/* cli_main.h - the gpu-tracker command as a function, so that it can be
 * entered from main() (entry.c) and from the Python package's console
 * script (python/src/native.c), which compiles the CLI in. */
#ifndef GT_CLI_MAIN_H
#define GT_CLI_MAIN_H

/* Runs the command line argv[0..argc) and returns the exit status. It may
 * install signal handlers and change the process's limits, as a program's
 * main does: call it only in a process that is the command. */
int gt_cli_main(int argc, char **argv);

#endif
