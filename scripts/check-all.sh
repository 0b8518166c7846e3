#!/bin/sh
# check-all.sh: what `make check` runs, each step whatever the ones before
# did, then one screen saying what failed where; exit 0 only when every step
# passed. Steps: the three builds (gcc, gcc with ASan+UBSan, clang with
# TSan, warnings as errors), each build's tests (ctest), the fuzz targets.
# A build that fails has its tests reported as not run. Called by make with
# the directories and settings in the environment: BUILD_DIR ASAN_DIR
# TSAN_DIR MAKE JOBS CHECK_FUZZ_SECONDS.
set -u
: "${BUILD_DIR:?}" "${ASAN_DIR:?}" "${TSAN_DIR:?}" "${MAKE:=make}" "${JOBS:=2}"
: "${CHECK_FUZZ_SECONDS:=10}"
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
failed=0
step() { # step NAME COMMAND...: runs it, notes how it ended
    name=$1
    shift
    echo "== make check: $name"
    if "$@"; then
        echo "ok      $name" >>"$summary"
    else
        echo "FAILED  $name (exit $?)" >>"$summary"
        failed=1
        return 1
    fi
}
tests() { # tests NAME DIR [ENV=VALUE...]: the build's ctest, its failures named
    name=$1 dir=$2
    shift 2
    if ! (cd "$dir" && env "$@" ctest --output-on-failure -j "$JOBS"); then
        list=$(sed 's/^[0-9]*://' "$dir/Testing/Temporary/LastTestsFailed.log" 2>/dev/null |
               tr '\n' ' ')
        echo "FAILED  $name: ${list:-see its log above}" >>"$summary"
        failed=1
    else
        echo "ok      $name" >>"$summary"
    fi
}
if step "gcc build" "$MAKE" --no-print-directory check-build; then
    tests "gcc tests" "$BUILD_DIR"
else
    echo "not run gcc tests (its build failed)" >>"$summary"
fi
if step "ASan+UBSan build" "$MAKE" --no-print-directory check-asan; then
    tests "ASan+UBSan tests" "$ASAN_DIR"
else
    echo "not run ASan+UBSan tests (its build failed)" >>"$summary"
fi
if step "TSan build" "$MAKE" --no-print-directory check-tsan; then
    tests "TSan tests" "$TSAN_DIR" TSAN_OPTIONS=second_deadlock_stack=1
else
    echo "not run TSan tests (its build failed)" >>"$summary"
fi
step "fuzz targets" "$MAKE" --no-print-directory fuzz FUZZ_SECONDS="$CHECK_FUZZ_SECONDS" || true
echo
echo "make check: what ran"
cat "$summary"
if [ "$failed" != 0 ]; then
    echo "make check: FAILED (see the lines above, and each step's output before them)"
    exit 1
fi
echo "make check: every build, test and fuzz target passed"
