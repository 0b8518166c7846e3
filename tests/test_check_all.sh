#!/bin/sh
# test_check_all.sh SOURCE_DIR WORK_DIR: make check's driver
# (scripts/check-all.sh) runs every step when one fails and says what failed
# where: run here with a make and a ctest of the test's own on PATH, the
# ASan build failing and one plain test failing; the TSan tests and the
# fuzz targets still run, the summary names each, the exit status is 1.
set -eu
src=${1:?usage: test_check_all.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_check_all.sh SOURCE_DIR WORK_DIR}
fail() { echo "test_check_all: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work/bin" "$work/plain" "$work/asan" "$work/tsan"
cat >"$work/bin/make" <<'SH'
#!/bin/sh
# the steps make check's driver asks make for
for a in "$@"; do
    case $a in
    check-asan) echo "asan: compile error"; exit 2 ;;
    check-build|check-tsan) exit 0 ;;
    fuzz) echo fuzzed >"$WORK/fuzzed"; exit 0 ;;
    esac
done
SH
cat >"$work/bin/ctest" <<'SH'
#!/bin/sh
# a build's tests: the plain build has one that fails
echo "ran in $(basename "$PWD")" >>"$WORK/ran"
mkdir -p Testing/Temporary
case $(basename "$PWD") in
plain) echo "12:cli_launcher_peak" >Testing/Temporary/LastTestsFailed.log; exit 8 ;;
esac
exit 0
SH
chmod +x "$work/bin/make" "$work/bin/ctest"
status=0
(cd "$work" && PATH="$work/bin:$PATH" WORK="$work" BUILD_DIR="$work/plain" ASAN_DIR="$work/asan" \
    TSAN_DIR="$work/tsan" MAKE=make JOBS=2 sh "$src/scripts/check-all.sh") >"$work/out" 2>&1 ||
    status=$?
[ "$status" = 1 ] || { cat "$work/out"; fail "exit $status, not 1"; }
for line in "FAILED  gcc tests: cli_launcher_peak" "FAILED  ASan+UBSan build (exit 2)" \
            "not run ASan+UBSan tests (its build failed)" "ok      TSan tests" \
            "ok      fuzz targets" "make check: FAILED"; do
    grep -qF "$line" "$work/out" || { cat "$work/out"; fail "no line '$line'"; }
done
grep -q "ran in tsan" "$work/ran" || fail "the TSan tests did not run after a failure"
[ -f "$work/fuzzed" ] || fail "the fuzz targets did not run after a failure"
# the summary is one screen: its lines after "what ran"
n=$(sed -n '/^make check: what ran$/,$p' "$work/out" | wc -l)
[ "$n" -le 24 ] || fail "the summary is $n lines"
rm -rf "$work"
echo "test_check_all: every step ran, and the summary names what failed"
