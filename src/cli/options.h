/* options.h - the gpu-tracker command line. */
#ifndef GT_CLI_OPTIONS_H
#define GT_CLI_OPTIONS_H

#include <sys/types.h>

#include "gpu_tracker_tools.h"
#include "gpu_tracker_internal.h"

enum cli_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_HUMAN };
enum cli_action { ACTION_RUN, ACTION_HELP, ACTION_HELP_ALL, ACTION_VERSION };
/* The user's config file (user_config.h): what became of it. */
enum config_state { CONFIG_ABSENT, CONFIG_READ, CONFIG_PRESENT, CONFIG_IGNORED };

struct cli_options {
    enum cli_action action;
    gt_options tracker;       /* units, interval, cores, GPU choices, logs */
    gt_limit_options limits;  /* --max-*, --on-limit, --kill-after */
    char **command;           /* argv of the command to run (owned), or NULL */
    pid_t attach_pid;         /* --pid, or 0 */
    const char *output;       /* -o FILE, or NULL for stdout */
    enum cli_format format;
    const char *process_csv;  /* --process-csv FILE ("-": stdout), or NULL */
    const char *system_csv;   /* --system-csv FILE, or NULL */
    const char *snapshot;     /* --snapshot FILE.json.gz, or NULL */
    const char *report;       /* --report FILE.html, or NULL */
    const char *benchmark_tsv; /* --benchmark-tsv FILE (Snakemake's format), or NULL */
    gt_snapshot_format snapshot_format; /* --snapshot-format */
    int quiet;                /* -q/--quiet: no status line */
    int verbose;              /* --verbose: -f human says why a figure is missing */
    int wait_all;             /* --wait-all: track the command's leftovers to their end */
    int command_status;       /* --command-status: the command's exit status even when a
                                 limit was breached */
    int backup_set, no_backup; /* --backup FILE (in tracker), --no-backup */
    char *command_line;       /* the command as one string, for the backup (owned) */
    const char *tconfig;      /* --tconfig FILE, or NULL */
    const char *stf;          /* --stf FILE (with --report), or NULL */
    char *expanded[8];        /* output names made from %j, %t, ... patterns (owned) */
    char **tconfig_args;      /* the options it stood for (owned) */
    int no_config;            /* --no-config */
    char **config_args;       /* the user's config file's options (owned) */
    char config_path[4096];   /* where it is looked for ("" when there is no home) */
    enum config_state config_state; /* read, not there, ... (PRESENT: -h/-v do not read it) */
    gt_job_info job;          /* the Slurm job this run is in (tracker.job points here) */
    char names_note[200];     /* what stood in for %j, %a, %t outside Slurm ("": nothing) */
};

/* Parses argv. Returns 0, or -1 with a one-line message (no program name, no
 * newline) in err. Nothing is run or created. */
int cli_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errcap);
void cli_options_free(struct cli_options *o);

/* A number of seconds from min to max (strtod's syntax, nothing after it):
 * 0, or -1 when s is not one. */
int parse_seconds(const char *s, double min, double max, double *out);

/* The --help text (the common options) and the --help all text. */
extern const char cli_help[];
extern const char cli_help_all[];

#endif
