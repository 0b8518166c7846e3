/* snapshot_cmd.h - saved runs: --snapshot/--report of a run, and the
 * stats, recommend and report subcommands. */
#ifndef GT_CLI_SNAPSHOT_CMD_H
#define GT_CLI_SNAPSHOT_CMD_H

#include "gpu_tracker_tools.h"

/* After a run: writes the snapshot (in format) and/or the report (either
 * path may be NULL), the report with the code blocks of the sub-tracking
 * file stf (NULL: none; one that cannot be read leaves them out, with a
 * warning); a failure is one line on stderr. Returns 0, or 1 if one
 * failed. */
int save_run(gt_tracker *t, const char *command, int exit_status, const char *snapshot_path,
             gt_snapshot_format format, const char *report_path, const char *stf);

/* `gpu-tracker stats|recommend|report ...`, argv[0] the subcommand. Each
 * returns the exit status: 0, 1 (a snapshot cannot be read, the Keeper API
 * cannot be reached, the output cannot be written), 2 (usage). */
int stats_command(int argc, char **argv);
int recommend_command(int argc, char **argv);
int report_command(int argc, char **argv);

/* `gpu-tracker merge SNAPSHOT... -o JOB.json.gz`: the task snapshots of one
 * job joined into one (gt_snapshot_merge). 0, 1 (a file cannot be read, is
 * of another job or the same task twice; the output cannot be written), 2
 * (usage). */
int merge_command(int argc, char **argv);

/* `gpu-tracker job JOBID|DIR|SNAPSHOT...` (job_cmd.c): a Slurm job's
 * efficiency from its tasks' snapshots. argv[0] is "job". */
int job_command(int argc, char **argv);

#endif
