# fish completion for gpu-tracker (installed as
# share/fish/vendor_completions.d/gpu-tracker.fish). The option lists are
# checked against `gpu-tracker --help` by tests/test_install_docs.sh.

set -l subcommands show system stats recommend report merge job sub-track compare
set -l units bytes kilobytes megabytes gigabytes terabytes

complete -c gpu-tracker -f
complete -c gpu-tracker -n "not __fish_seen_subcommand_from $subcommands" -a "$subcommands"

# Tracking a command.
set -l main "not __fish_seen_subcommand_from $subcommands"
complete -c gpu-tracker -n $main -s h -l help -d "show the help and exit"
complete -c gpu-tracker -n $main -s v -l version -d "show the version and exit"
complete -c gpu-tracker -n $main -s e -l execute -x -a "(__fish_complete_command)" -d "command and arguments in one string"
complete -c gpu-tracker -n $main -s o -l output -r -F -d "file for the summary"
complete -c gpu-tracker -n $main -s f -l format -x -a "text json human" -d "summary format"
complete -c gpu-tracker -n $main -l st -x -d "seconds between samples"
complete -c gpu-tracker -n $main -l ru -x -a "$units" -d "RAM unit"
complete -c gpu-tracker -n $main -l gru -x -a "$units" -d "GPU RAM unit"
complete -c gpu-tracker -n $main -l tu -x -a "seconds minutes hours days" -d "time unit"
complete -c gpu-tracker -n $main -l nec -x -d "expected cores"
complete -c gpu-tracker -n $main -l guuids -x -d "GPUs to count, by UUID"
complete -c gpu-tracker -n $main -l gb -x -a "nvidia amd intel drm" -d "GPU brand"
complete -c gpu-tracker -n $main -l disable-logs -d "no warnings, no status line"
complete -c gpu-tracker -n $main -l verbose -d "-f human: why a figure is missing"
complete -c gpu-tracker -n $main -s q -l quiet -d "no status line"
complete -c gpu-tracker -n $main -l wait-all -d "track what the command leaves running to its end"
complete -c gpu-tracker -n $main -l backup -r -F -d "file for the results so far"
complete -c gpu-tracker -n $main -l no-backup -d "keep no backup file"
complete -c gpu-tracker -n $main -l no-config -d "do not read the config file of defaults"
complete -c gpu-tracker -n $main -l tf -r -F -d "tracking file, every sample (.csv or .sqlite)"
complete -c gpu-tracker -n $main -l overwrite -d "replace an existing tracking file"
complete -c gpu-tracker -n $main -l tconfig -r -F -d "Tracker arguments from a JSON file"
complete -c gpu-tracker -n $main -l stf -r -F -d "sub-tracking file: code blocks in --report"
complete -c gpu-tracker -n $main -l metrics-listen -x -d "serve Prometheus metrics at ADDR:PORT"
complete -c gpu-tracker -n $main -l metrics-textfile -x -a "(__fish_complete_directories)" -d "node_exporter textfile directory"
complete -c gpu-tracker -n $main -l metrics-push -x -d "push metrics to this Pushgateway URL at the end"
complete -c gpu-tracker -n $main -l metrics-push-interval -x -d "also push every SECONDS"
complete -c gpu-tracker -n $main -l pid -x -a "(__fish_complete_pids)" -d "track a running process"
complete -c gpu-tracker -n $main -l process-csv -r -F -d "process series CSV"
complete -c gpu-tracker -n $main -l system-csv -r -F -d "system series CSV"
complete -c gpu-tracker -n $main -l snapshot -r -F -d "save the run as gzipped JSON"
complete -c gpu-tracker -n $main -l report -r -F -d "HTML report of the run"
complete -c gpu-tracker -n $main -l cloud -d "ask the cloud metadata services"
complete -c gpu-tracker -n $main -l snapshot-format -x -a "gpu_tracker resource_tracker resource_tracker-0.5" -d "snapshot format"
complete -c gpu-tracker -n $main -l no-children -d "track the main process alone"
complete -c gpu-tracker -n $main -l cgroup -d "run the command in a cgroup of its own"
complete -c gpu-tracker -n $main -l gpu-details -d "per-process GPU utilization and throttle reasons every sample"
complete -c gpu-tracker -n $main -l max-ram -x -d "limit on the peak RAM (500MB, 2GiB)"
complete -c gpu-tracker -n $main -l max-gpu-ram -x -d "limit on the peak GPU RAM"
complete -c gpu-tracker -n $main -l max-time -x -d "limit on the wall time (90, 1h30m)"
complete -c gpu-tracker -n $main -l max-cpu-time -x -d "limit on the CPU time"
complete -c gpu-tracker -n $main -l on-limit -x -a "warn kill" -d "what a breached limit does"
complete -c gpu-tracker -n $main -l kill-after -x -d "SIGKILL this long after SIGTERM"
complete -c gpu-tracker -n $main -l command-status -d "the command's exit status even when a limit was breached"
complete -c gpu-tracker -n $main -l benchmark-tsv -r -F -d "append a row to a Snakemake benchmark file"
complete -c gpu-tracker -n $main -l carbon-intensity -x -d "grams of CO2e per kWh (the energy as CO2e)"
complete -c gpu-tracker -n $main -l pue -x -d "the data centre's power usage effectiveness"
complete -c gpu-tracker -n $main -l start-at -x -a aligned -d "when sampling begins"
complete -c gpu-tracker -n $main -l no-csv-header -d "CSVs without header"
complete -c gpu-tracker -n $main -l sampled-only -d "figures of a plain sampler, for comparison"

# The subcommands.
complete -c gpu-tracker -n "__fish_seen_subcommand_from show" -s f -l format -x -a "text json human" -d "output format"
complete -c gpu-tracker -n "__fish_seen_subcommand_from show" -l verbose -d "why a figure is missing"
complete -c gpu-tracker -n "__fish_seen_subcommand_from stats recommend" -s f -l format -x -a "text json" -d "output format"
complete -c gpu-tracker -n "__fish_seen_subcommand_from system" -l st -x -d "seconds between rows"
complete -c gpu-tracker -n "__fish_seen_subcommand_from system" -l duration -x -d "stop after this long"
complete -c gpu-tracker -n "__fish_seen_subcommand_from system report merge" -s o -l output -r -F -d "output file"
complete -c gpu-tracker -n "__fish_seen_subcommand_from system" -l disable-logs -d "no warnings"
complete -c gpu-tracker -n "__fish_seen_subcommand_from recommend report" -l server -d "cheapest matching cloud server"
complete -c gpu-tracker -n "__fish_seen_subcommand_from report" -l history -r -F -d "earlier runs of the job"
complete -c gpu-tracker -n "__fish_seen_subcommand_from stats recommend report merge" -l max-rows -x -d "rows read per series"
complete -c gpu-tracker -n "__fish_seen_subcommand_from report" -l stf -r -F -d "sub-tracking file: code blocks"
complete -c gpu-tracker -n "__fish_seen_subcommand_from show stats recommend report merge job" -F
complete -c gpu-tracker -n "__fish_seen_subcommand_from job" -s f -l format -x -a "text human json" -d "output format"
complete -c gpu-tracker -n "__fish_seen_subcommand_from job" -l user -x -a "(__fish_complete_users)" -d "whose job"
complete -c gpu-tracker -n "__fish_seen_subcommand_from job" -l plugstack -r -F -d "where the plugin is configured"
complete -c gpu-tracker -n "__fish_seen_subcommand_from job" -l max-rows -x -d "rows read per series"

# compare (a run against a baseline), not sub-track's.
set -l gate "__fish_seen_subcommand_from compare; and not __fish_seen_subcommand_from sub-track"
complete -c gpu-tracker -n $gate -l tolerance -x -d "growth allowed: 10% or METRIC=PCT"
complete -c gpu-tracker -n $gate -l metric -x -a "peak_ram peak_gpu_ram cpu_time wall_time mean_cpu" -d "a metric to gate"
complete -c gpu-tracker -n $gate -s f -l format -x -a "text markdown json" -d "output format"
complete -c gpu-tracker -n $gate -F

# sub-track (gpu_tracker 5).
set -l actions combine analyze compare
complete -c gpu-tracker -n "__fish_seen_subcommand_from sub-track; and not __fish_seen_subcommand_from $actions" -a "$actions"
complete -c gpu-tracker -n "__fish_seen_subcommand_from analyze" -l tf -r -F -d "tracking file"
complete -c gpu-tracker -n "__fish_seen_subcommand_from combine analyze" -l stf -r -F -d "sub-tracking file"
complete -c gpu-tracker -n "__fish_seen_subcommand_from combine" -s p -r -F -d "file or directory to combine"
complete -c gpu-tracker -n "__fish_seen_subcommand_from analyze compare" -s o -l output -r -F -d "output file"
complete -c gpu-tracker -n "__fish_seen_subcommand_from analyze compare" -s f -l format -x -a "text json pickle" -d "output format"
complete -c gpu-tracker -n "__fish_seen_subcommand_from compare" -s m -r -F -d "NAME=RESULTS of a session"
complete -c gpu-tracker -n "__fish_seen_subcommand_from compare" -l cconfig -r -F -d "comparison config (JSON)"
complete -c gpu-tracker -n "__fish_seen_subcommand_from compare" -l stat -x -a "min max mean std" -d "statistic compared"
