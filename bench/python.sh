#!/bin/sh
# bench/python.sh BUILD_DIR [SECONDS [REPEATS]]: the benchmark's Python part
# (make bench). Builds the package into a throwaway virtual environment
# (scripts/python-venv.sh, under BUILD_DIR/bench/python) and runs
# bench/python_overhead.py there against BUILD_DIR's gpu-tracker. Without
# Debian's Python and its venv, says why and skips the part.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:?usage: bench/python.sh BUILD_DIR [SECONDS [REPEATS]]}" && pwd)
shift
work="$build/bench/python"
status=0
reason=$("$src/scripts/python-venv.sh" "$src" "$work") || status=$?
if [ "$status" = 77 ]; then
    echo "bench: the Python part is skipped: $reason"
    exit 0
elif [ "$status" != 0 ]; then
    printf '%s\n' "$reason"
    echo "bench: building the Python package failed (exit $status)"
    exit "$status"
fi
cd "$work"
"$work/venv/bin/python" "$here/python_overhead.py" "$build/bench/gt-bench" "$build/gpu-tracker" "$@"
