/* options.c - parsing and checking gpu-tracker's options. */
#define _GNU_SOURCE
#include "options.h"

#include "environment.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shlex.h"
#include "suggest.h"
#include "tracker_config.h"
#include "job_names.h"
#include "user_config.h"
#include "common/toolkit.h"

/* --help: the common options, within 80 columns and one screen. */
const char cli_help[] =
    "Usage: gpu-tracker [options] -- <command> [<argument>...]\n"
    "  or:  gpu-tracker --execute=<command> [options]\n"
    "  or:  gpu-tracker --pid=<pid> [options]\n"
    "  or:  gpu-tracker show|stats|recommend|report|merge|job|compare|system ...\n"
    "  or:  gpu-tracker sub-track combine|analyze|compare ...\n"
    "\n"
    "Tracks the resource usage (RAM, GPU RAM, CPU and GPU utilization, compute\n"
    "time) of a command and of all its descendant processes.\n"
    "\n"
    "Common options:\n"
    "    -e --execute=<command>  The command and its arguments in one string, split\n"
    "                            as a shell would but run without one.\n"
    "    --pid=<pid>             Track a running process until it ends.\n"
    "    -o --output=<output>    Write the summary to this file, not the screen.\n"
    "    -f --format=<format>    'text' (gpu_tracker's, the default), 'json', or\n"
    "                            'human' (a line per figure, KiB/MiB/GiB).\n"
    "    --st=<sleep-time>       Seconds between samples (default 1.0).\n"
    "    -q --quiet              The summary alone: no status line while tracking.\n"
    "    --tf=<tracking-file>    Every sample's figures, in a .csv or .sqlite file.\n"
    "    --snapshot=<file>       Save the run (summary, time series) as .json.gz.\n"
    "    --report=<file>         Write a self-contained HTML report of the run.\n"
    "    --max-ram=<size>        Limit the peak RAM (500MB: 500 x 10^6 bytes; 2GiB:\n"
    "                            2 x 2^30); also --max-gpu-ram and --max-time.\n"
    "    --on-limit=<what>       'warn' (default) or 'kill' the command on a breach.\n"
    "    --cgroup                Run the command in a cgroup of its own: the exact\n"
    "                            group peak, OOM kills, CPU throttling.\n"
    "    -h --help [all]         This help; 'all': every option, the subcommands,\n"
    "                            exit status, files and environment.\n"
    "    -v --version            Show the version and exit.\n"
    "\n"
    "Everything else: gpu-tracker --help all, or man gpu-tracker.\n";

/* --help all (and the man page, which help2man makes from it): every
 * option, the subcommands, exit status, files and environment. */
const char cli_help_all[] =
    "Usage: gpu-tracker [options] -- <command> [<argument>...]\n"
    "  or:  gpu-tracker --execute=<command> [options]\n"
    "  or:  gpu-tracker --pid=<pid> [options]\n"
    "  or:  gpu-tracker show <file> [--format=<format>] [--verbose]\n"
    "  or:  gpu-tracker system [--st=<sleep-time>] [--duration=<seconds>] [-o <file>]\n"
    "  or:  gpu-tracker stats <snapshot>... [--format=<format>] [--max-rows=<n>]\n"
    "  or:  gpu-tracker recommend <snapshot>... [--format=<format>] [--server]\n"
    "  or:  gpu-tracker report <snapshot> [-o <file>] [--server] [--history <old>...]\n"
    "  or:  gpu-tracker merge <snapshot>... -o <job-snapshot> [--max-rows=<n>]\n"
    "  or:  gpu-tracker job <jobid>|<dir>|<snapshot>... [--format=<format>]\n"
    "  or:  gpu-tracker compare <base>... <new> (gpu-tracker compare --help)\n"
    "  or:  gpu-tracker sub-track combine|analyze|compare ... (sub-track --help)\n"
    "  or:  gpu-tracker -h | --help [all] | -v | --version\n"
    "\n"
    "Tracks the computational resource usage (RAM, GPU RAM, CPU utilization, GPU\n"
    "utilization, and compute time) of a process corresponding to a given shell\n"
    "command, and of all its descendant processes.\n"
    "\n"
    "Options:\n"
    "    -h --help [all]         Show the common options and exit; 'all': every\n"
    "                            option, the subcommands, exit status and files.\n"
    "    -v --version            Show package version and exit.\n"
    "    -e --execute=<command>  The command to run along with its arguments all\n"
    "                            within quotes e.g. \"ls -l -a\". Split like a shell\n"
    "                            would (quotes, backslashes) but run without a shell:\n"
    "                            no variables, globs or pipes.\n"
    "    --pid=<pid>             Track a process that is already running (not\n"
    "                            gpu-tracker itself), until it ends. Ctrl-C stops\n"
    "                            tracking and leaves the process running.\n"
    "    -o --output=<output>    File path to store the computational-resource-usage\n"
    "                            measurements. If not set, prints measurements to the\n"
    "                            screen.\n"
    "    -f --format=<format>    File format of the output: 'text' (the default),\n"
    "                            'json', or 'human': one line per figure, in units\n"
    "                            chosen by size (KiB, MiB, GiB: powers of 1024; s,\n"
    "                            m:ss), with CPU seconds and I/O bytes, wrapped to\n"
    "                            the terminal's width; --ru, --gru and --tu do not\n"
    "                            apply to it.\n"
    "    --verbose               With -f human: why a figure is missing (no GPU, no\n"
    "                            energy counter), which the JSON always says.\n"
    "    --st=<sleep-time>       The number of seconds to sleep in between\n"
    "                            usage-collection iterations, from 0.0001 to 86400.\n"
    "                            Defaults to 1.0.\n"
    "    --ru=<ram-unit>         One of 'bytes', 'kilobytes', 'megabytes',\n"
    "                            'gigabytes', or 'terabytes' (decimal: 1 gigabyte =\n"
    "                            1e9 bytes). Default gigabytes.\n"
    "    --gru=<gpu-ram-unit>    One of 'bytes', 'kilobytes', 'megabytes',\n"
    "                            'gigabytes', or 'terabytes'. Default gigabytes.\n"
    "    --tu=<time-unit>        One of 'seconds', 'minutes', 'hours', or 'days'.\n"
    "                            Default hours.\n"
    "    --nec=<num-cores>       The number of cores expected to be used. Defaults to\n"
    "                            the CPUs this job may use (its CPU affinity and\n"
    "                            cgroup CPU quota, rounded up), not the whole\n"
    "                            machine's.\n"
    "    --guuids=<gpu-uuids>    Comma separated list of the UUIDs of the GPUs for\n"
    "                            which to track utilization e.g.\n"
    "                            gpu-uuid1,gpu-uuid2,etc. Defaults to all GPUs.\n"
    "    --gb=<gpu-brand>        'nvidia' (NVML), 'amd' (ROCm SMI, or the kernel's\n"
    "                            DRM figures of amdgpu GPUs where ROCm SMI is\n"
    "                            missing), 'intel' (the kernel's DRM figures of\n"
    "                            i915/xe GPUs) or 'drm' (the kernel's figures of\n"
    "                            every AMD and Intel GPU). Defaults to every brand\n"
    "                            found, NVIDIA first.\n"
    "    --disable-logs          If set, warnings are suppressed during tracking (and\n"
    "                            no status line is shown).\n"
    "    -q --quiet              Print the summary alone: no status line (while\n"
    "                            tracking, gpu-tracker shows one on the last row of\n"
    "                            the terminal when standard error is one: elapsed\n"
    "                            time, CPU cores, RSS now and peak, GPU memory and\n"
    "                            utilization, samples; erased when tracking ends) and\n"
    "                            no \"Resource tracking complete\" line, and no advice\n"
    "                            on standard error (caveats, CPU starved, processes\n"
    "                            left running: the summary's JSON and -f human say\n"
    "                            them). Warnings of problems are still shown\n"
    "                            (--disable-logs hides them).\n"
    "    --backup=<file>         Keep the results so far in this file while tracking\n"
    "                            (removed when tracking ends normally; 'gpu-tracker\n"
    "                            show FILE' reads it). Defaults to\n"
    "                            .gpu-tracker_<uuid>.json in the working directory.\n"
    "    --no-backup             Keep no backup file.\n"
    "    --wait-all              When the command exits, keep tracking until every\n"
    "                            process it started has ended too. Without it, those\n"
    "                            still running are measured up to the command's exit\n"
    "                            and named in a warning.\n"
    "    --tf=<tracking-file>    If specified, stores the individual resource usage\n"
    "                            measurements at each iteration, as gpu_tracker 5\n"
    "                            does. Valid file formats are CSV (.csv) and SQLite\n"
    "                            (.sqlite) where the SQLite file format stores the\n"
    "                            data in a table called \"data\"\n"
    "                            (docs/tracking-file.md).\n"
    "    --overwrite             Whether to overwrite the tracking file if it already\n"
    "                            existed before the beginning of this tracking\n"
    "                            session.\n"
    "    --stf=<sub-track-file>  With --report: the sub-tracking file the command\n"
    "                            writes (gpu_tracker's SubTracker,\n"
    "                            gt_subtrack_begin/end); its code blocks are listed\n"
    "                            in the report and the longest shaded on its charts.\n"
    "    --tconfig=<config-file>\n"
    "                            JSON file of the Tracker's keyword arguments\n"
    "                            (sleep_time, ram_unit, gpu_ram_unit, time_unit,\n"
    "                            n_expected_cores, gpu_uuids, disable_logs,\n"
    "                            gpu_brand, tracking_file, overwrite), as gpu_tracker\n"
    "                            takes; options on the command line override them.\n"
    "    --metrics-listen=<[addr:]port>\n"
    "                            Serve the figures so far at http://ADDR:PORT/metrics\n"
    "                            for Prometheus while tracking (127.0.0.1 when no\n"
    "                            address is given; [::1]:PORT for IPv6; port 0: a\n"
    "                            free one, named on standard error). Labels name the\n"
    "                            host, the Slurm job and task, and the command\n"
    "                            (docs/metrics.md).\n"
    "    --metrics-textfile=<dir>\n"
    "                            Write the same to DIR/gpu-tracker-<pid>.prom after\n"
    "                            every sample, atomically, for node_exporter's\n"
    "                            textfile collector; removed when tracking ends.\n"
    "    --metrics-push=<url>    Push the same to the Prometheus Pushgateway at URL\n"
    "                            (http://HOST:PORT) when tracking ends, grouped by\n"
    "                            job, step, task and host (host and PID outside\n"
    "                            Slurm). A push that fails is one warning.\n"
    "    --metrics-push-interval=<seconds>\n"
    "                            Also push every SECONDS while tracking (0: at the\n"
    "                            end only, the default).\n"
    "    --process-csv=<file>    Also write a row of process-tree metrics every sleep\n"
    "                            time: timestamp, pid, children, utime, stime,\n"
    "                            cpu_usage, memory (PSS, kB), read_bytes,\n"
    "                            write_bytes, gpu_usage, gpu_vram (MiB),\n"
    "                            gpu_utilized. '-' writes to standard output.\n"
    "    --system-csv=<file>     Also write a row of system-wide metrics every sleep\n"
    "                            time (CPU, memory, disk and network I/O, disk space,\n"
    "                            GPUs). '-' writes to standard output.\n"
    "    --benchmark-tsv=<file>  Append the run's row to a benchmark file in\n"
    "                            Snakemake's format (its benchmark: TSV; max_gpu_ram\n"
    "                            and mean_gpu_load after its ten columns), the header\n"
    "                            first in a new file.\n"
    "    --snapshot=<file>       Save the run (summary, both series, server, command,\n"
    "                            exit status) as gzipped JSON, e.g. run.json.gz.\n"
    "    --report=<file>         Write a self-contained HTML report of the run.\n"
    "    --cloud                 Ask the cloud metadata services (AWS, GCP, Azure,\n"
    "                            Hetzner, UpCloud, Vultr, Alibaba, OVH)\n"
    "                            which instance this is, for the snapshot and report\n"
    "                            (no effect without --snapshot or --report).\n"
    "    --snapshot-format=<f>   'gpu_tracker' (default: ours, with the summary),\n"
    "                            'resource_tracker' (what its ResourceTracker.load()\n"
    "                            reads, memory in kB) or 'resource_tracker-0.5' (its\n"
    "                            0.5 columns).\n"
    "    --no-children           Track the main process alone, not its descendants.\n"
    "    --cgroup                Run the command in a cgroup of its own, made beneath\n"
    "                            gpu-tracker's (where that is delegated or writable)\n"
    "                            and removed at the end, for the job's exact group\n"
    "                            figures: peak memory between samples, OOM kills, CPU\n"
    "                            throttling, pressure (docs/metrics.md). Where none\n"
    "                            can be made, the reason is said and the run goes on\n"
    "                            without.\n"
    "    --gpu-details           Read every GPU's per-process utilization, why its\n"
    "                            clocks are lowered and its activity counters at\n"
    "                            every sample (by default only on the GPUs the job\n"
    "                            uses), for the summary alone (a series, --snapshot,\n"
    "                            --report or the exporter read them anyway); it costs\n"
    "                            more calls to the driver each sample.\n"
    "    --max-ram=<size>        A limit on the tree's peak RAM (500MB, 2GiB; the\n"
    "                            kernel's high-water marks count, so a peak between\n"
    "                            two samples is caught at the next one). Also\n"
    "                            --max-gpu-ram=<size>, --max-time=<duration> (wall\n"
    "                            time: 90, 90s, 1h30m, 1:30:00) and\n"
    "                            --max-cpu-time=<duration> (the tree's CPU time).\n"
    "    --on-limit=<what>       'warn' (default): run on, report the breach; 'kill':\n"
    "                            end the command's whole tree as timeout(1) does,\n"
    "                            SIGTERM at the sample that saw it, SIGKILL\n"
    "                            --kill-after later (default 5s); refused with a\n"
    "                            --pid that started gpu-tracker (PID 1, its shell):\n"
    "                            that tree holds gpu-tracker and its pipeline.\n"
    "    --command-status        Exit with the command's status even when a limit was\n"
    "                            breached (else 124; see Exit status).\n"
    "    --carbon-intensity=<g>  Grams of CO2e per kWh of the electricity: the job's\n"
    "                            energy is also given as CO2e (nothing is looked up).\n"
    "    --pue=<n>               The data centre's power usage effectiveness for that\n"
    "                            figure (default 1).\n"
    "    --start-at=<when>       Begin sampling at an epoch time in seconds, or\n"
    "                            'aligned': at the next multiple of the sleep time,\n"
    "                            as resource_tracker does (rows then have round\n"
    "                            timestamps).\n"
    "    --no-csv-header         Write the CSVs without their header line.\n"
    "    --no-config             Do not read the config file of defaults (see Files).\n"
    "    --sampled-only          For comparison: the figures a plain sampling tracker\n"
    "                            gets (no kernel high-water marks, no subreaper, CPU\n"
    "                            only between samples). make bench uses it.\n"
    "\n"
    "Exit status and signals:\n"
    "The command's exit status is gpu-tracker's exit status (128+N if signal N\n"
    "killed it); 124 when a limit (--max-ram, ...) was breached, unless the\n"
    "option --command-status is given (as timeout(1) says 124 for its limit); 127\n"
    "when the command cannot be run, 2 for a usage error. SIGINT, SIGTERM and SIGHUP\n"
    "sent to gpu-tracker are passed on to the command (then SIGCONT, in case it was\n"
    "stopped), and the measurements are still written; once the command has ended\n"
    "they end gpu-tracker.\n"
    "\n"
    "Subcommands:\n"
    "'gpu-tracker show FILE' prints a backup file, a JSON summary or a snapshot (a\n"
    "name ending in .gz) as a summary in the format -f gives (text, json or human),\n"
    "and whether the run a backup is from is still going on.\n"
    "'gpu-tracker system' writes only the system series (to standard output, or -o\n"
    "FILE) until --duration seconds have passed or it gets SIGINT/SIGTERM. Rows come\n"
    "at start + k * sleep time; the CSV columns are those of resource_tracker\n"
    "(docs/series.md).\n"
    "'gpu-tracker stats' prints the statistics of saved runs, 'recommend' the\n"
    "resources to ask for next time (with --server: the cheapest matching cloud\n"
    "server, from the Spare Cores Keeper API), 'report' an HTML report\n"
    "(docs/snapshot.md; with --history: earlier runs' statistics beside this one's).\n"
    "They read at most the --max-rows rows per series (default 1000000) and only\n"
    "regular files: a snapshot from another user cannot make them hang or exhaust\n"
    "memory.\n"
    "'gpu-tracker merge' joins the snapshots of a Slurm job's tasks into one; stats,\n"
    "recommend and report then show each task, the imbalance, the stragglers and the\n"
    "Slurm request to make (docs/slurm.md). 'gpu-tracker job' does it all at once\n"
    "for a job's task snapshots (a directory, the files, or the job id where the\n"
    "SPANK plugin leaves them: --user, --plugstack): CPUs, memory and GPUs asked\n"
    "for against used, who held the peaks, idle GPUs, energy and the request for\n"
    "next time, as text, human or json. To run a program named like a subcommand\n"
    "(stat, show), write: gpu-tracker -- stat ...\n"
    "\n"
    "Files:\n"
    "While tracking, the results so far are kept in a backup file from about a\n"
    "second in (--backup; by default .gpu-tracker_<uuid>.json in the working\n"
    "directory; not named, to keep standard error clean: 'ls .gpu-tracker_*' finds\n"
    "it after a run that was killed), deleted when tracking ends normally. It says\n"
    "which run it is (PIDs, host, command, start); 'gpu-tracker show FILE' tells a\n"
    "run still going on from one that did not finish. With a series on standard\n"
    "output, the summary goes to standard error unless -o is set. Output files\n"
    "(-o, --snapshot, --report, the CSVs, the backup) follow a symbolic link only\n"
    "when it is yours or root's, get mode 0666 less the umask (an existing file\n"
    "keeps its mode and owner), and must all be different files (docs/cli.md,\n"
    "\"Output files\"). In their names (and --tf's), %j is the Slurm job id, %a the\n"
    "array task id, %t the task's rank, %n the node, %h the host, %p gpu-tracker's\n"
    "PID, %% a '%': with srun, run-%j-%t.json.gz gives each task its own file.\n"
    "\n"
    "Defaults of your own go in $XDG_CONFIG_HOME/gpu-tracker/config (else\n"
    "~/.config/gpu-tracker/config): one long option per line, as on the command line\n"
    "('format=human', '--st 0.5', 'quiet'; '#' starts a comment), read before the\n"
    "command line, which wins; -e, --pid and --tconfig cannot be defaults. It must\n"
    "be yours (or root's) and writable by you alone. --no-config ignores it (for\n"
    "scripts); -v says which file.\n"
    "\n"
    "Environment:\n"
    "GPU_TRACKER_PROC_ROOT points the tracker at another procfs mount,\n"
    "GPU_TRACKER_SYS_ROOT at another sysfs; GPU_TRACKER_NVML_LIBRARY and\n"
    "GPU_TRACKER_RSMI_LIBRARY name the GPU library file to load; TMPDIR is where a\n"
    "long run's rows are kept (an unlinked file; else /var/tmp, /tmp).\n";

enum {
    OPT_ST = 256, OPT_RU, OPT_GRU, OPT_TU, OPT_NEC, OPT_GUUIDS, OPT_GB, OPT_DISABLE_LOGS, OPT_PID,
    OPT_PROCESS_CSV, OPT_SYSTEM_CSV, OPT_SNAPSHOT, OPT_REPORT, OPT_CLOUD, OPT_SAMPLED_ONLY,
    OPT_NO_CHILDREN, OPT_START_AT, OPT_NO_CSV_HEADER, OPT_SNAPSHOT_FORMAT, OPT_WAIT_ALL,
    OPT_BACKUP, OPT_NO_BACKUP, OPT_TF, OPT_OVERWRITE, OPT_TCONFIG, OPT_STF, OPT_METRICS_LISTEN,
    OPT_METRICS_TEXTFILE, OPT_METRICS_PUSH, OPT_METRICS_PUSH_INTERVAL, OPT_CGROUP, OPT_NO_CONFIG, OPT_GPU_DETAILS, OPT_MAX_RAM, OPT_MAX_GPU_RAM,
    OPT_MAX_TIME, OPT_MAX_CPU_TIME, OPT_ON_LIMIT, OPT_KILL_AFTER, OPT_COMMAND_STATUS,
    OPT_BENCHMARK_TSV, OPT_CARBON_INTENSITY, OPT_PUE, OPT_VERBOSE,
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'v'},
    {"execute", required_argument, NULL, 'e'},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'f'},
    {"st", required_argument, NULL, OPT_ST},
    {"ru", required_argument, NULL, OPT_RU},
    {"gru", required_argument, NULL, OPT_GRU},
    {"tu", required_argument, NULL, OPT_TU},
    {"nec", required_argument, NULL, OPT_NEC},
    {"guuids", required_argument, NULL, OPT_GUUIDS},
    {"gb", required_argument, NULL, OPT_GB},
    {"disable-logs", no_argument, NULL, OPT_DISABLE_LOGS},
    {"verbose", no_argument, NULL, OPT_VERBOSE},
    {"pid", required_argument, NULL, OPT_PID},
    {"process-csv", required_argument, NULL, OPT_PROCESS_CSV},
    {"system-csv", required_argument, NULL, OPT_SYSTEM_CSV},
    {"snapshot", required_argument, NULL, OPT_SNAPSHOT},
    {"report", required_argument, NULL, OPT_REPORT},
    {"cloud", no_argument, NULL, OPT_CLOUD},
    {"sampled-only", no_argument, NULL, OPT_SAMPLED_ONLY},
    {"no-children", no_argument, NULL, OPT_NO_CHILDREN},
    {"start-at", required_argument, NULL, OPT_START_AT},
    {"no-csv-header", no_argument, NULL, OPT_NO_CSV_HEADER},
    {"snapshot-format", required_argument, NULL, OPT_SNAPSHOT_FORMAT},
    {"quiet", no_argument, NULL, 'q'},
    {"wait-all", no_argument, NULL, OPT_WAIT_ALL},
    {"backup", required_argument, NULL, OPT_BACKUP},
    {"no-backup", no_argument, NULL, OPT_NO_BACKUP},
    {"tf", required_argument, NULL, OPT_TF},
    {"overwrite", no_argument, NULL, OPT_OVERWRITE},
    {"tconfig", required_argument, NULL, OPT_TCONFIG},
    {"stf", required_argument, NULL, OPT_STF},
    {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
    {"metrics-textfile", required_argument, NULL, OPT_METRICS_TEXTFILE},
    {"metrics-push", required_argument, NULL, OPT_METRICS_PUSH},
    {"metrics-push-interval", required_argument, NULL, OPT_METRICS_PUSH_INTERVAL},
    {"cgroup", no_argument, NULL, OPT_CGROUP},
    {"gpu-details", no_argument, NULL, OPT_GPU_DETAILS},
    {"max-ram", required_argument, NULL, OPT_MAX_RAM},
    {"max-gpu-ram", required_argument, NULL, OPT_MAX_GPU_RAM},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"max-cpu-time", required_argument, NULL, OPT_MAX_CPU_TIME},
    {"on-limit", required_argument, NULL, OPT_ON_LIMIT},
    {"kill-after", required_argument, NULL, OPT_KILL_AFTER},
    {"command-status", no_argument, NULL, OPT_COMMAND_STATUS},
    {"benchmark-tsv", required_argument, NULL, OPT_BENCHMARK_TSV},
    {"carbon-intensity", required_argument, NULL, OPT_CARBON_INTENSITY},
    {"pue", required_argument, NULL, OPT_PUE},
    {"no-config", no_argument, NULL, OPT_NO_CONFIG},
    {NULL, 0, NULL, 0},
};

/* What a config file may set (user_config.h): every option but those that
 * say what to run or ask for help, and the files of other options. */
static int config_option(const char *name, int *has_arg)
{
    static const char *const not_defaults[] = {"help", "version", "execute", "pid",
                                               "no-config", "tconfig"};
    for (size_t i = 0; i < sizeof not_defaults / sizeof not_defaults[0]; i++)
        if (!strcmp(name, not_defaults[i]))
            return -1;
    for (const struct option *opt = long_options; opt->name; opt++)
        if (!strcmp(name, opt->name)) {
            *has_arg = opt->has_arg == required_argument;
            return 1;
        }
    return 0;
}

static int has_extension(const char *s, const char *ext)
{
    size_t n = strlen(s), m = strlen(ext);
    return n > m && strcmp(s + n - m, ext) == 0;
}

static int parse_positive_long(const char *s, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > max)
        return -1;
    *out = v;
    return 0;
}

int parse_seconds(const char *s, double min, double max, double *out)
{
    double v;
    errno = 0;
    if (units_parse_decimal(s, &v) != 0 || errno || !(v >= min && v <= max))
        return -1;
    *out = v;
    return 0;
}

/* argv[1] to argv[config_end - 1] came from the config file: defaults,
 * which the command line's options after them override. */
/* What take_option() and its helpers did with an option: took it, or the
 * parse ends there (help or the version asked for, or an error in err). */
enum { OPTION_TAKEN, OPTION_STOP, OPTION_BAD };

/* A limit's option (--max-ram, --max-gpu-ram, --max-time, --max-cpu-time,
 * --kill-after, --on-limit) into l. */
static int take_limit_option(int c, const char *arg, gt_limit_options *l, char *err,
                             size_t errcap)
{
    switch (c) {
    case OPT_MAX_RAM:
    case OPT_MAX_GPU_RAM: {
        char why[400];
        double *to = c == OPT_MAX_RAM ? &l->max_ram : &l->max_gpu_ram;
        if (units_parse_size(arg, to, why, sizeof why) < 0) {
            snprintf(err, errcap, "%s: %s", c == OPT_MAX_RAM ? "--max-ram" : "--max-gpu-ram",
                     why);
            return OPTION_BAD;
        }
        break;
    }
    case OPT_MAX_TIME:
    case OPT_MAX_CPU_TIME:
    case OPT_KILL_AFTER: {
        char why[400];
        double *to = c == OPT_MAX_TIME       ? &l->max_time
                     : c == OPT_MAX_CPU_TIME ? &l->max_cpu_time
                                             : &l->kill_after;
        if (units_parse_duration(arg, to, why, sizeof why) < 0) {
            snprintf(err, errcap, "%s: %s",
                     c == OPT_MAX_TIME ? "--max-time"
                     : c == OPT_MAX_CPU_TIME ? "--max-cpu-time" : "--kill-after", why);
            return OPTION_BAD;
        }
        break;
    }
    case OPT_ON_LIMIT:
        if (strcmp(arg, "warn") == 0)
            l->on_limit = GT_ON_LIMIT_WARN;
        else if (strcmp(arg, "kill") == 0)
            l->on_limit = GT_ON_LIMIT_KILL;
        else {
            snprintf(err, errcap, "unknown --on-limit '%s'; valid: warn (run on and report "
                     "the breach) or kill (end the command)", arg);
            return OPTION_BAD;
        }
        break;
    }
    return OPTION_TAKEN;
}

/* An option whose value is one of a few words or a number in a range
 * (-f, --carbon-intensity, --pue, --start-at, --snapshot-format) into o. */
static int take_valued_option(int c, const char *arg, struct cli_options *o, char *err,
                              size_t errcap)
{
    switch (c) {
    case 'f':
        if (strcmp(arg, "text") == 0)
            o->format = FORMAT_TEXT;
        else if (strcmp(arg, "json") == 0)
            o->format = FORMAT_JSON;
        else if (strcmp(arg, "human") == 0)
            o->format = FORMAT_HUMAN;
        else {
            snprintf(err, errcap, "unknown format '%s'; valid formats: text, json, human",
                     arg);
            return OPTION_BAD;
        }
        break;
    case OPT_CARBON_INTENSITY:
        if (parse_seconds(arg, 0.001, 10000, &o->tracker.carbon_intensity) < 0) {
            snprintf(err, errcap, "invalid --carbon-intensity '%s': give the electricity's "
                     "grams of CO2e per kWh, above 0 and at most 10000 (e.g. 400)", arg);
            return OPTION_BAD;
        }
        break;
    case OPT_PUE:
        if (parse_seconds(arg, 1, 10, &o->tracker.pue) < 0) {
            snprintf(err, errcap, "invalid --pue '%s': a power usage effectiveness is a "
                     "number from 1 to 10 (e.g. 1.2)", arg);
            return OPTION_BAD;
        }
        break;
    case OPT_START_AT:
        if (strcmp(arg, "aligned") == 0)
            o->tracker.start_at = GT_START_ALIGNED;
        else if (parse_seconds(arg, 1, 1e10, &o->tracker.start_at) < 0) {
            snprintf(err, errcap, "invalid --start-at '%s': give 'aligned' (the next multiple "
                     "of the sleep time) or an epoch time in seconds", arg);
            return OPTION_BAD;
        }
        break;
    case OPT_SNAPSHOT_FORMAT:
        if (strcmp(arg, "gpu_tracker") == 0)
            o->snapshot_format = GT_SNAPSHOT_GPU_TRACKER;
        else if (strcmp(arg, "resource_tracker") == 0)
            o->snapshot_format = GT_SNAPSHOT_RESOURCE_TRACKER;
        else if (strcmp(arg, "resource_tracker-0.5") == 0)
            o->snapshot_format = GT_SNAPSHOT_RESOURCE_TRACKER_05;
        else {
            snprintf(err, errcap, "unknown snapshot format '%s'; valid formats: gpu_tracker, "
                     "resource_tracker, resource_tracker-0.5", arg);
            return OPTION_BAD;
        }
        break;
    }
    return OPTION_TAKEN;
}

/* Option c of getopt_long (its value optarg; it was argv[current]) into o,
 * -e's command into *execute. */
static int take_option(int c, int argc, char **argv, int current, int config_end,
                       struct cli_options *o, const char **execute, char *err, size_t errcap)
{
    long v;
    switch (c) {
    case 'h':
        /* curl's way: --help all for everything */
        o->action = optind < argc && strcmp(argv[optind], "all") == 0 ? ACTION_HELP_ALL
                                                                       : ACTION_HELP;
        return OPTION_STOP;
    case 'v':
        /* Alone, or it would silently run nothing of what follows (a
         * user who meant "verbose" would think the job ran). */
        if (argc != 2) {
            snprintf(err, errcap, "'%s' prints the version and runs nothing: give it alone, "
                     "or leave it out to track a command", argv[current]);
            return OPTION_BAD;
        }
        o->action = ACTION_VERSION;
        return OPTION_STOP;
    case 'e': *execute = optarg; break;
    case 'o': o->output = optarg; break;
    case OPT_ST:
        if (parse_seconds(optarg, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX,
                          &o->tracker.sleep_time) < 0) {
            snprintf(err, errcap, "invalid --st '%s': the sleep time must be a number of "
                     "seconds from %g to %g", optarg, GT_SLEEP_TIME_MIN, GT_SLEEP_TIME_MAX);
            return OPTION_BAD;
        }
        break;
    case OPT_RU: o->tracker.ram_unit = optarg; break;
    case OPT_GRU: o->tracker.gpu_ram_unit = optarg; break;
    case OPT_TU: o->tracker.time_unit = optarg; break;
    case OPT_NEC:
        if (parse_positive_long(optarg, INT_MAX, &v) < 0) {
            snprintf(err, errcap, "invalid --nec '%s': the number of expected cores must be a positive integer",
                     optarg);
            return OPTION_BAD;
        }
        o->tracker.n_expected_cores = (int)v;
        break;
    case OPT_GUUIDS: o->tracker.gpu_uuids = optarg; break;
    case OPT_GB: o->tracker.gpu_brand = optarg; break;
    case OPT_DISABLE_LOGS: o->tracker.disable_logs = 1; break;
    case OPT_VERBOSE: o->verbose = 1; break;
    case 'q': o->quiet = 1; break;
    case OPT_WAIT_ALL: o->wait_all = 1; break;
    case OPT_BACKUP:
        if (!*optarg) {
            snprintf(err, errcap, "empty file name for --backup; give a file, or "
                     "--no-backup for none");
            return OPTION_BAD;
        }
        o->tracker.resource_usage_file = optarg;
        /* A default gives way to the command line's --no-backup. */
        if (current >= config_end)
            o->backup_set = 1;
        break;
    case OPT_NO_BACKUP:
        o->tracker.resource_usage_file = "";
        if (current >= config_end)
            o->no_backup = 1;
        break;
    case OPT_NO_CONFIG: o->no_config = 1; break;
    case OPT_TF: o->tracker.tracking_file = optarg; break;
    case OPT_OVERWRITE: o->tracker.overwrite = 1; break;
    case OPT_TCONFIG: o->tconfig = optarg; break;
    case OPT_STF: o->stf = optarg; break;
    case OPT_METRICS_LISTEN: o->tracker.metrics_listen = optarg; break;
    case OPT_METRICS_TEXTFILE:
        if (!*optarg) {
            snprintf(err, errcap, "empty directory name for --metrics-textfile; give "
                     "node_exporter's textfile directory");
            return OPTION_BAD;
        }
        o->tracker.metrics_textfile_dir = optarg;
        break;
    case OPT_METRICS_PUSH: o->tracker.metrics_push_url = optarg; break;
    case OPT_METRICS_PUSH_INTERVAL: {
        char why[400];
        if (units_parse_duration(optarg, &o->tracker.metrics_push_interval, why, sizeof why) < 0) {
            snprintf(err, errcap, "--metrics-push-interval: %s", why);
            return OPTION_BAD;
        }
        break;
    }
    case OPT_PID:
        if (parse_positive_long(optarg, INT_MAX, &v) < 0) {
            snprintf(err, errcap, "invalid --pid '%s': a process ID is a positive integer", optarg);
            return OPTION_BAD;
        }
        o->attach_pid = (pid_t)v;
        break;
    case OPT_PROCESS_CSV: o->process_csv = optarg; break;
    case OPT_SYSTEM_CSV: o->system_csv = optarg; break;
    case OPT_SNAPSHOT: o->snapshot = optarg; break;
    case OPT_REPORT: o->report = optarg; break;
    case OPT_CLOUD: o->tracker.discover_cloud = 1; break;
    case OPT_SAMPLED_ONLY: o->tracker.sampled_only = 1; break;
    case OPT_NO_CHILDREN: o->tracker.main_only = 1; break;
    case OPT_CGROUP: o->tracker.own_cgroup = 1; break;
    case OPT_GPU_DETAILS: o->tracker.gpu_details = 1; break;
    case OPT_COMMAND_STATUS: o->command_status = 1; break;
    case OPT_BENCHMARK_TSV: o->benchmark_tsv = optarg; break;
    case OPT_NO_CSV_HEADER: o->tracker.csv_no_header = 1; break;
    case OPT_MAX_RAM:
    case OPT_MAX_GPU_RAM:
    case OPT_MAX_TIME:
    case OPT_MAX_CPU_TIME:
    case OPT_KILL_AFTER:
    case OPT_ON_LIMIT: return take_limit_option(c, optarg, &o->limits, err, errcap);
    case 'f':
    case OPT_CARBON_INTENSITY:
    case OPT_PUE:
    case OPT_START_AT:
    case OPT_SNAPSHOT_FORMAT: return take_valued_option(c, optarg, o, err, errcap);
    case ':':
        snprintf(err, errcap, "option '%s' needs a value", argv[current]);
        return OPTION_BAD;
    default:
        suggest_option_error(argv[current], long_options, "see gpu-tracker --help", err,
                             errcap);
        return OPTION_BAD;
    }
    return OPTION_TAKEN;
}

/* The options together: what one needs of another, what cannot go with
 * what, and how the command is given (has_rest: after the options). */
static int check_options(struct cli_options *o, const char *execute, int has_rest, char *err,
                         size_t errcap)
{
    /* The human format picks its units by size from bytes and seconds. */
    if (o->format == FORMAT_HUMAN) {
        o->tracker.ram_unit = o->tracker.gpu_ram_unit = "bytes";
        o->tracker.time_unit = "seconds";
    }
    if (o->tracker.metrics_push_interval > 0 && !o->tracker.metrics_push_url) {
        snprintf(err, errcap, "--metrics-push-interval needs --metrics-push URL (the Pushgateway "
                 "to push to)");
        return -1;
    }
    if (gt_options_validate(&o->tracker) != GT_OK ||
        gt_limit_options_validate(&o->limits) != GT_OK) {
        snprintf(err, errcap, "%s", gt_last_error());
        return -1;
    }

    if (o->process_csv && o->system_csv && strcmp(o->process_csv, "-") == 0 &&
        strcmp(o->system_csv, "-") == 0) {
        snprintf(err, errcap, "--process-csv and --system-csv cannot both be '-': give one of "
                 "them a file");
        return -1;
    }
    if ((o->process_csv && !*o->process_csv) || (o->system_csv && !*o->system_csv)) {
        snprintf(err, errcap, "empty file name for --%s-csv; give a file or '-' for standard output",
                 o->process_csv && !*o->process_csv ? "process" : "system");
        return -1;
    }

    if ((o->snapshot && !*o->snapshot) || (o->report && !*o->report)) {
        snprintf(err, errcap, "empty file name for --%s", o->snapshot && !*o->snapshot ? "snapshot"
                                                                                      : "report");
        return -1;
    }
    /* A snapshot or report is made of both series. */
    if (o->snapshot || o->report)
        o->tracker.series = GT_SERIES_PROCESS | GT_SERIES_SYSTEM;

    int ways = (execute != NULL) + has_rest + (o->attach_pid != 0);
    if (ways == 0) {
        snprintf(err, errcap, "no command given: use -e \"COMMAND ARGS\", -- COMMAND ARGS, or --pid PID");
        return -1;
    }
    if (ways > 1) {
        snprintf(err, errcap, "give only one of -e COMMAND, -- COMMAND and --pid PID");
        return -1;
    }
    if (o->stf && !o->report) {
        snprintf(err, errcap, "--stf shades the code blocks of a sub-tracking file on --report's "
                 "charts: give --report FILE.html too (sub-track analyze gives their figures)");
        return -1;
    }
    if (o->stf && !has_extension(o->stf, ".csv") && !has_extension(o->stf, ".sqlite")) {
        snprintf(err, errcap, "invalid sub-tracking file name '%s' for --stf: valid extensions "
                 "are .csv and .sqlite", o->stf);
        return -1;
    }
    if (o->backup_set && o->no_backup) {
        snprintf(err, errcap, "give --backup FILE or --no-backup, not both");
        return -1;
    }
    if (o->tracker.own_cgroup && o->attach_pid) {
        snprintf(err, errcap, "--cgroup starts a command in a cgroup of its own; a running "
                 "process (--pid) keeps its memory charged to the group it is in");
        return -1;
    }
    if (o->wait_all && o->attach_pid) {
        snprintf(err, errcap, "--wait-all waits for what a command it runs leaves behind; with "
                 "--pid, tracking already ends when that process does");
        return -1;
    }
    return 0;
}

/* The command to run, from -e's string (split as a shell would) or the
 * arguments after the options (argv[first..argc)), and the line the
 * backup says it as. */
static int take_command(struct cli_options *o, const char *execute, int argc, char **argv,
                        int first, char *err, size_t errcap)
{
    int has_rest = first < argc;
    if (execute) {
        const char *why = NULL;
        o->command = shlex_split(execute, &why);
        if (!o->command) {
            snprintf(err, errcap, "cannot split the command '%s': %s", execute, why);
            return -1;
        }
        if (!o->command[0]) {
            cli_options_free(o);
            snprintf(err, errcap, "no command given: the -e string is empty");
            return -1;
        }
    } else if (has_rest) {
        int n = argc - first;
        o->command = calloc((size_t)n + 1, sizeof *o->command);
        for (int i = 0; o->command && i < n; i++) {
            o->command[i] = strdup(argv[first + i]);
            if (!o->command[i]) {
                cli_options_free(o);
                break;
            }
        }
        if (!o->command) {
            snprintf(err, errcap, "out of memory");
            return -1;
        }
    }
    /* The backup says what runs. */
    if (o->command) {
        o->command_line = shlex_join(o->command);
        if (!o->command_line) {
            cli_options_free(o);
            snprintf(err, errcap, "out of memory");
            return -1;
        }
        o->tracker.command = o->command_line;
    }
    return 0;
}


static int parse_args(int argc, char **argv, int config_end, struct cli_options *o, char *err,
                      size_t errcap)
{
    memset(o, 0, sizeof *o);
    gt_options_init(&o->tracker);
    gt_limit_options_init(&o->limits);
    cli_read_environment(&o->tracker);
    const char *execute = NULL;

    opterr = 0;
    optind = 1;
    int c;
    /* '+': stop at the first non-option, so the command's own options after
     * "--" (or after its name) are left alone. */
    /* The argument getopt works on: optind before the call (in a cluster of
     * short options, optind moves past it only after its last letter). */
    int current = optind;
    while ((c = getopt_long(argc, argv, "+:hvqe:o:f:", long_options, NULL)) != -1) {
        int taken = take_option(c, argc, argv, current, config_end, o, &execute, err, errcap);
        if (taken != OPTION_TAKEN)
            return taken == OPTION_STOP ? 0 : -1;
        current = optind;
    }
    if (check_options(o, execute, optind < argc, err, errcap) < 0)
        return -1;
    return take_command(o, execute, argc, argv, optind, err, errcap);
}

/* Output names with %j, %t, ... fields (job_names.h) made into the names
 * they stand for, before anything checks or opens them. */
static int expand_names(struct cli_options *o, char *err, size_t errcap)
{
    struct {
        const char **name;
        const char *what;
    } outputs[] = {
        {&o->output, "-o"},
        {&o->snapshot, "--snapshot"},
        {&o->report, "--report"},
        {&o->process_csv, "--process-csv"},
        {&o->system_csv, "--system-csv"},
        {&o->tracker.resource_usage_file, "--backup"},
        {&o->tracker.tracking_file, "--tf"},
    };
    struct job_identity id;
    job_identity_read(&id);
    o->job = id.job; /* for snapshots and the exporter's labels */
    o->tracker.job = &o->job;
    for (size_t i = 0; i < sizeof outputs / sizeof outputs[0]; i++) {
        const char *name = *outputs[i].name;
        if (!name || !strchr(name, '%'))
            continue;
        if (job_name_expand(name, &id, outputs[i].what, &o->expanded[i], err, errcap) != 0)
            return -1;
        *outputs[i].name = o->expanded[i];
    }
    job_names_stood_in(&id, o->names_note, sizeof o->names_note);
    return 0;
}

/* The config file's options: checked alone first, so that a bad value is
 * said to be the file's (with a command to make the options complete). */
static int read_user_config(struct cli_options *o, char *argv0, char ***args, int *n, char *err,
                            size_t errcap)
{
    *args = NULL;
    *n = 0;
    if (user_config_path(o->config_path, sizeof o->config_path) != 0) {
        o->config_path[0] = '\0';
        return 0;
    }
    if (o->action != ACTION_RUN || o->no_config) {
        o->config_state = o->no_config ? CONFIG_IGNORED
                          : access(o->config_path, F_OK) == 0 ? CONFIG_PRESENT : CONFIG_ABSENT;
        return 0;
    }
    int found = 0;
    if (user_config_read(o->config_path, config_option, args, n, &found, err, errcap) != 0)
        return -1;
    o->config_state = found ? CONFIG_READ : CONFIG_ABSENT;
    if (*n == 0)
        return 0;
    char **alone = calloc((size_t)*n + 4, sizeof *alone);
    if (!alone) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    alone[0] = argv0;
    memcpy(alone + 1, *args, (size_t)*n * sizeof *alone);
    alone[*n + 1] = "--";
    alone[*n + 2] = "true";
    struct cli_options check;
    char why[400];
    int rc = parse_args(*n + 3, alone, *n + 1, &check, why, sizeof why);
    free(alone);
    if (rc != 0) {
        snprintf(err, errcap, "config file %s: %s (--no-config ignores the file)", o->config_path,
                 why);
        user_config_free(*args);
        *args = NULL;
        return -1;
    }
    cli_options_free(&check);
    return 0;
}

/* The options come from three places, in this order, each overriding the
 * one before: the user's config file (unless --no-config), --tconfig
 * FILE's keys, the command line. */
int cli_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errcap)
{
    int rc = parse_args(argc, argv, 1, o, err, errcap);
    if (rc != 0)
        return rc;
    char **config = NULL;
    int nconfig = 0;
    if (read_user_config(o, argv[0], &config, &nconfig, err, errcap) != 0) {
        cli_options_free(o);
        return -1;
    }
    char path[sizeof o->config_path];
    memcpy(path, o->config_path, sizeof path);
    enum config_state state = o->config_state;
    if (o->action != ACTION_RUN || (!o->tconfig && nconfig == 0)) {
        user_config_free(config);
        return o->action == ACTION_RUN ? expand_names(o, err, errcap) : 0;
    }
    char **tconfig = NULL;
    int ntconfig = 0;
    if (o->tconfig) {
        char *tpath = strdup(o->tconfig);
        rc = tpath ? tracker_config_args(tpath, &tconfig, &ntconfig, err, errcap) : -1;
        if (!tpath)
            snprintf(err, errcap, "out of memory");
        free(tpath);
    }
    cli_options_free(o);
    char **spliced = rc == 0 ? calloc((size_t)(argc + nconfig + ntconfig + 1), sizeof *spliced)
                             : NULL;
    if (rc == 0 && !spliced) {
        snprintf(err, errcap, "out of memory");
        rc = -1;
    }
    if (rc != 0) {
        tracker_config_free(tconfig);
        user_config_free(config);
        memset(o, 0, sizeof *o);
        return -1;
    }
    spliced[0] = argv[0];
    if (nconfig) /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(spliced + 1, config, (size_t)nconfig * sizeof *spliced);
    if (ntconfig)
        memcpy(spliced + 1 + nconfig, tconfig, (size_t)ntconfig * sizeof *spliced);
    memcpy(spliced + 1 + nconfig + ntconfig, argv + 1, (size_t)(argc - 1) * sizeof *spliced);
    rc = parse_args(argc + nconfig + ntconfig, spliced, 1 + nconfig, o, err, errcap);
    free(spliced);
    o->tconfig_args = tconfig; /* the options point into them */
    o->config_args = config;
    memcpy(o->config_path, path, sizeof path);
    o->config_state = state;
    if (rc == 0)
        rc = expand_names(o, err, errcap);
    return rc;
}

void cli_options_free(struct cli_options *o)
{
    tracker_config_free(o->tconfig_args);
    o->tconfig_args = NULL;
    user_config_free(o->config_args);
    o->config_args = NULL;
    for (size_t i = 0; i < sizeof o->expanded / sizeof o->expanded[0]; i++) {
        free(o->expanded[i]);
        o->expanded[i] = NULL;
    }
    shlex_free(o->command);
    o->command = NULL;
    free(o->command_line);
    o->command_line = NULL;
}
