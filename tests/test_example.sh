#!/bin/sh
# Runs the example that tracks a block of its own code: it must succeed and its
# summary must hold the block's 50 MiB (52.4 MB) in main and the child's CPU
# time under descendants.
# usage: test_example.sh EXAMPLE_BINARY
set -eu
out=$(cd "$(mktemp -d)" && "$1")
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
    /^   Main:$/ && !ram_main { in_main = 1; next }
    in_main && /Total RSS:/ { main_rss = $3; in_main = 0; ram_main = 1 }
    /^CPU utilization:/ { cpu = 1 }
    cpu && /^   Descendants:$/ { in_desc = 1; next }
    in_desc && /Mean sum percent:/ { desc_mean = $4; in_desc = 0 }
    END {
        if (main_rss < 52.4) { print "main Total RSS " main_rss " MB < 52.4"; exit 1 }
        if (desc_mean <= 0) { print "descendants mean CPU " desc_mean " <= 0"; exit 1 }
        print "ok: main " main_rss " MB, descendants mean " desc_mean " %"
    }'
