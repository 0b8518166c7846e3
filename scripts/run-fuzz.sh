#!/bin/sh
# Runs every libFuzzer target of a GT_FUZZ build for SECONDS each, from the
# checked-in seed corpus (fuzz/corpus/TARGET, read only: new inputs go to a
# temporary directory). A crash, leak or sanitizer report fails the run and
# leaves the input that caused it in the build directory. A target that
# leaves files in its TMPDIR (a directory of its own here) fails too.
# usage: run-fuzz.sh BUILD_DIR SECONDS
set -eu
build=$1
seconds=$2
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for target in "$build"/fuzz/fuzz_*; do
    name=$(basename "$target")
    mkdir -p "$work/$name" "$work/$name.tmp"
    echo "fuzz: $name for ${seconds}s"
    if ! TMPDIR="$work/$name.tmp" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$build/fuzz/$name-" -print_final_stats=1 \
        "$work/$name" "$src/fuzz/corpus/$name" >"$work/$name.log" 2>&1; then
        tail -n 60 "$work/$name.log"
        echo "fuzz: $name FAILED (the input is in $build/fuzz/$name-*)"
        status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "$work/$name.log" | tail -n 2
        left=$(find "$work/$name.tmp" -mindepth 1 | head -n 3)
        if [ -n "$left" ]; then
            echo "fuzz: $name left files in its TMPDIR: $left"
            status=1
        fi
    fi
done
exit $status
