#!/bin/sh
# test_python_in_tree.sh SOURCE_DIR WORK_DIR: the README's steps in its own
# order, in one clone: `pip install ./python` first (pip builds in the
# clone's python/build), then what make check does with the package (the
# python test: scripts/python-venv.sh copies the clone and builds it
# again). The second build must not trip over the first's CMake tree, and
# the package must import. Exit 77 with the reason when Debian's Python
# cannot make the venv (make check installs it as root).
set -eu
src=${1:?usage: test_python_in_tree.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_python_in_tree.sh SOURCE_DIR WORK_DIR}
python=/usr/bin/python3
skip() { echo "test_python_in_tree: SKIPPED: $*"; exit 77; }
fail() { echo "test_python_in_tree: $*"; exit 1; }
for module in venv ensurepip setuptools wheel; do
    "$python" -c "import $module" 2>/dev/null ||
        skip "$python cannot import $module (make check installs python3-venv python3-setuptools python3-wheel)"
done
rm -rf "$work"
mkdir -p "$work/clone"
cp -r "$src/python" "$src/src" "$src/include" "$src/cmake" "$src/CMakeLists.txt" "$src/scripts" \
    "$work/clone/"
rm -rf "$work/clone/python/build" "$work/clone/python/"*.egg-info
# The README's way: a venv of Debian's Python, pip in the clone.
"$python" -m venv --system-site-packages "$work/v"
(cd "$work/clone" && "$work/v/bin/pip" install --quiet --no-build-isolation --no-index \
    --no-deps ./python) >"$work/pip.out" 2>&1 || { cat "$work/pip.out"; fail "pip install ./python failed"; }
[ -d "$work/clone/python/build" ] || fail "pip left no python/build (this test's premise)"
# Then make check's python test on that clone.
status=0
out=$("$work/clone/scripts/python-venv.sh" "$work/clone" "$work/second" 2>&1) || status=$?
[ "$status" = 0 ] || { printf '%s\n' "$out"; fail "building the package again after pip failed (exit $status)"; }
"$work/second/venv/bin/python" -c 'import gputracker; print(gputracker.__version__)' >/dev/null ||
    fail "the package built after pip does not import"
"$work/v/bin/python" -c 'import gputracker' || fail "pip's own install does not import"
rm -rf "$work"
echo "test_python_in_tree: pip install ./python, then the suite's own build: both work"
