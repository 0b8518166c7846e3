#!/bin/sh
# Runs the example that tracks a block of its own code: it must succeed and its
# summary must hold the block's 50 MiB (52.4 MB) in main and the child's CPU
# time under descendants; its figures through gt_tracker_figure() must say
# the same in bytes and seconds, and its on_sample callback must have seen
# the baseline and at least one sample more.
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
    /^peak RSS of main: / { fig_rss = $5; fig_cpu = $10; seen = $14 }
    END {
        if (main_rss < 52.4) { print "main Total RSS " main_rss " MB < 52.4"; exit 1 }
        if (desc_mean <= 0) { print "descendants mean CPU " desc_mean " <= 0"; exit 1 }
        if (fig_rss < 52428800) { print "GT_FIGURE_PEAK_RSS_MAIN_BYTES " fig_rss " < 50 MiB"; exit 1 }
        if (fig_rss / 1e6 < main_rss - 0.01 || fig_rss / 1e6 > main_rss + 0.01) {
            print "the figure " fig_rss " B is not the summary'"'"'s " main_rss " MB"; exit 1 }
        if (fig_cpu < 0.25) { print "GT_FIGURE_CPU_DESCENDANTS_SECONDS " fig_cpu " < 0.25"; exit 1 }
        if (seen < 2) { print "on_sample saw " seen " samples"; exit 1 }
        print "ok: main " main_rss " MB (" fig_rss " B), descendants mean " desc_mean " % (" \
            fig_cpu " s), " seen " samples seen"
    }'
