/* compare_cmd.h - `gpu-tracker compare`: a run's figures against a
 * baseline's, for a regression gate in CI (docs/ci.md). */
#ifndef GT_CLI_COMPARE_CMD_H
#define GT_CLI_COMPARE_CMD_H

/* `gpu-tracker compare [--tolerance PCT|METRIC=PCT]... [--metric METRIC]...
 * [-f text|markdown|json] BASE... NEW`, argv[0] "compare". Returns 0 (no
 * gated metric grew past its tolerance), 1 (one did) or 2 (usage, a file
 * that cannot be read). */
int compare_command(int argc, char **argv);

#endif
