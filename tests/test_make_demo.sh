#!/bin/sh
# `make` and `make demo` are what a new user types first: they must not
# pull in the fuzzing toolchain (clang, its runtimes) or the test-only
# packages, and `make demo` must show the summary, not pages of build
# output. Builds the demo into a fresh directory, as a user would.
# usage: test_make_demo.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Run from make check, we would inherit its make's jobserver and flags.
unset MAKEFLAGS MFLAGS MAKELEVEL

build_pkgs=$("$src/scripts/install-deps.sh" --list build)
for p in $build_pkgs; do
    case "$p" in
    clang*|libclang*|llvm*|chromium*|python3*)
        echo "make/make demo would install $p, which only make check needs"; exit 1 ;;
    esac
done
check_pkgs=$("$src/scripts/install-deps.sh" --list check)
case " $check_pkgs " in
*" clang "*) ;;
*) echo "make check no longer installs clang (its TSan build and fuzzers need it)"; exit 1 ;;
esac

make -s -C "$src" demo BUILD_DIR="$work/build" >"$work/out" 2>&1 ||
    { cat "$work/out"; echo "make demo failed"; exit 1; }
grep -q "^Resource tracking complete. Process completed with status code: 0$" "$work/out" ||
    { cat "$work/out"; echo "make demo printed no summary"; exit 1; }
grep -q "^Max RAM:" "$work/out" || { cat "$work/out"; echo "no Max RAM section"; exit 1; }
# What comes before the summary: two lines of ours and the tracker's
# warnings, no compiler or make chatter.
before=$(sed -n '/^Resource tracking complete/q;p' "$work/out")
if printf '%s\n' "$before" | grep -E -q 'Building C object|Linking|Entering directory|^\[ *[0-9]+%\]|^-- '; then
    printf '%s\n' "$before"; echo "make demo shows build output"; exit 1
fi
nbefore=$(printf '%s\n' "$before" | grep -c . || true)
if [ "$nbefore" -gt 4 ]; then
    printf '%s\n' "$before"; echo "make demo prints $nbefore lines before the summary"; exit 1
fi
# Only what the demo runs was built: no test program, no fuzz target.
test -x "$work/build/gpu-tracker" || { echo "gpu-tracker was not built"; exit 1; }
if [ -e "$work/build/tests/test_cli" ]; then
    echo "make demo built the test programs"; exit 1
fi
echo "make demo: $(printf '%s\n' "$before" | grep -c .) lines before the summary, no build output: ok"
