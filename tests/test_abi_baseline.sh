#!/bin/sh
# The shared library against its stored ABI baseline (abi/libgputracker.abi,
# docs/api.md "Versions and the ABI"): abidiff must find no change to what
# the baseline holds (a function or type changed, a symbol removed): new
# functions are allowed. An incompatible change fails here until the
# baseline is refreshed on purpose with `make abi-baseline`, which goes with
# a new SONAME before 1.0 and is not allowed within a major version after.
# First, the check itself is checked: a baseline with one function more
# than the library (a removal) must fail it. Skips (77) without abidiff
# (make check installs abigail-tools).
# usage: test_abi_baseline.sh SOURCE_DIR LIBRARY
set -eu
src=$1
lib=$2
baseline="$src/abi/libgputracker.abi"
# The opaque types (gt_tracker, gt_subtracker): their layout is not the ABI.
suppr="$src/abi/opaque.suppr"
# The structs that carry struct_size may grow at their end (abidiff only).
grows="$src/abi/grows.suppr"
if ! command -v abidiff >/dev/null; then
    echo "SKIP: abidiff is not installed (make check installs it: scripts/install-deps.sh check)"
    exit 77
fi
[ -f "$baseline" ] || { echo "abi: no baseline $baseline (make abi-baseline writes it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
stored=$(sed -n "s/^<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$baseline")
if [ "$soname" != "$stored" ]; then
    echo "abi: the library's SONAME is $soname, the baseline's $stored: a new SONAME is a new"
    echo "abi: ABI on purpose; store its baseline with: make abi-baseline"
    exit 1
fi

# The check can fail: a function the library lacks is a removal.
sed "0,/<elf-symbol name='gt_version'/s//<elf-symbol name='gt_abi_selfcheck_removed' type='func-type' binding='global-binding' visibility='default-visibility' is-defined='yes'\/>\n    <elf-symbol name='gt_version'/" \
    "$baseline" >"$work/doctored.abi"
rc=0
abidiff --no-added-syms --suppressions "$suppr" "$work/doctored.abi" "$lib" >"$work/doctored.out" 2>&1 || rc=$?
if [ $((rc & 8)) -eq 0 ] || ! grep -q gt_abi_selfcheck_removed "$work/doctored.out"; then
    cat "$work/doctored.out"
    echo "abi: abidiff did not report a removed function (exit $rc): the check cannot fail"
    exit 1
fi

rc=0
abidiff --no-added-syms --suppressions "$suppr" --suppressions "$grows" "$baseline" "$lib" \
    >"$work/report" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    cat "$work/report"
    echo "abi: libgputracker's ABI differs from abi/libgputracker.abi (abidiff exit $rc)."
    echo "abi: if that is meant (a new SONAME before 1.0), refresh it: make abi-baseline"
    exit 1
fi
added=$(abidiff --suppressions "$suppr" --suppressions "$grows" "$baseline" "$lib" 2>/dev/null | sed -n 's/.* \([0-9][0-9]*\) Added function.*/\1/p' | head -n 1)
echo "abi: no change to the $(grep -c '<elf-symbol' "$baseline") symbols of the baseline (${added:-0} function(s) added since)"
