# bash completion for gpu-tracker (installed as
# share/bash-completion/completions/gpu-tracker). Self-contained: needs
# only bash's own compgen, not the bash-completion package's helpers.
# The option lists are checked against `gpu-tracker --help` by
# tests/test_install_docs.sh, so that they do not drift.

_gpu_tracker()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local i sub=""
    # After "--" (or -e's value) the words are the tracked command's.
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if ((COMP_CWORD == i + 1)); then
                mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            return
        fi
    done
    if ((COMP_CWORD > 1)); then
        case ${COMP_WORDS[1]} in
        show | system | stats | recommend | report | merge | job | sub-track) sub=${COMP_WORDS[1]} ;;
        esac
    fi

    local words=""
    case $prev in
    --ru | --gru) words="bytes kilobytes megabytes gigabytes terabytes" ;;
    --tu) words="seconds minutes hours days" ;;
    -f | --format)
        words="text json"
        [[ -z $sub || $sub == show ]] && words="text json human"
        [[ $sub == sub-track ]] && words="text json pickle"
        ;;
    --stat) words="min max mean std" ;;
    --gb) words="nvidia amd intel drm" ;;
    --snapshot-format) words="gpu_tracker resource_tracker resource_tracker-0.5" ;;
    --start-at) words="aligned" ;;
    --on-limit) words="warn kill" ;;
    --pid) words=$(ps -e -o pid= 2>/dev/null) ;;
    -e | --execute)
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        return
        ;;
    -o | --output | --process-csv | --system-csv | --snapshot | --report | --backup | --tf | \
        --benchmark-tsv | \
        --stf | --tconfig | --cconfig | -p | -m)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
        ;;
    --metrics-textfile)
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return
        ;;
    --st | --nec | --guuids | --duration | --max-rows | --metrics-listen | --metrics-push | \
        --metrics-push-interval | --max-ram | \
        --max-gpu-ram | --max-time | --max-cpu-time | --kill-after | --carbon-intensity | --pue)
        COMPREPLY=()
        return
        ;;
    esac
    if [[ -n $words ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return
    fi

    if [[ $cur == -* ]]; then
        case $sub in
        show) words="--format -f --verbose --help" ;;
        system) words="--st --duration --output -o --disable-logs --help -h" ;;
        stats) words="--format -f --max-rows --help -h" ;;
        recommend) words="--format -f --server --max-rows --help -h" ;;
        report) words="--output -o --server --max-rows --history --stf --help -h" ;;
        merge) words="--output -o --max-rows --help -h" ;;
        job) words="--format -f --user --plugstack --max-rows" ;;
        compare) words="--tolerance --metric --format -f --help -h" ;;
        sub-track)
            case ${COMP_WORDS[2]} in
            combine) words="--stf -p --help" ;;
            analyze) words="--tf --stf --output -o --format -f --help" ;;
            compare) words="-m --cconfig --stat --output -o --format -f --help" ;;
            *) words="--help" ;;
            esac
            ;;
        *) words="--help -h --version -v --execute -e --output -o --format -f --st --ru --gru
                  --tu --nec --guuids --gb --disable-logs --verbose --quiet -q --wait-all --pid
                  --process-csv --system-csv --snapshot --report --cloud --snapshot-format
                  --no-children --cgroup --gpu-details --start-at --no-csv-header --sampled-only --backup
                  --no-backup --no-config --tf --overwrite --tconfig --stf --metrics-listen
                  --metrics-textfile --metrics-push --metrics-push-interval --max-ram --max-gpu-ram --max-time --max-cpu-time
                  --on-limit --kill-after --command-status --benchmark-tsv --carbon-intensity
                  --pue --" ;;
        esac
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return
    fi
    if ((COMP_CWORD == 1)); then
        mapfile -t COMPREPLY < <(compgen -W "show system stats recommend report merge job sub-track compare" -- "$cur")
        return
    fi
    if [[ $sub == sub-track ]] && ((COMP_CWORD == 2)); then
        mapfile -t COMPREPLY < <(compgen -W "combine analyze compare" -- "$cur")
        return
    fi
    # Snapshots and summaries for the subcommands that read files.
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _gpu_tracker gpu-tracker
