#!/bin/sh
# test_python_build.sh SOURCE_DIR WORK_DIR: the Python package built where
# its build requirements are missing stops with one line naming each, not
# pip's "invalid command 'bdist_wheel'". The Python people have without an
# index: a plain venv of Debian's Python 3.11 (setuptools 66, no wheel), as
# pyenv's often is. Exit 77 with the reason when that venv cannot be made or
# already builds wheels (setuptools 70.1 or later).
set -eu
src=${1:?usage: test_python_build.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_python_build.sh SOURCE_DIR WORK_DIR}
python=/usr/bin/python3
skip() { echo "test_python_build: SKIPPED: $*"; exit 77; }
fail() { echo "test_python_build: $*"; exit 1; }

"$python" -c 'import venv, ensurepip' 2>/dev/null ||
    skip "$python cannot make a venv with pip (make check installs python3-venv)"
rm -rf "$work"
mkdir -p "$work/tree"
"$python" -m venv "$work/venv" || skip "$python -m venv failed"
venv_python="$work/venv/bin/python"
"$venv_python" -c 'import wheel' 2>/dev/null && skip "the venv has the wheel package"
"$venv_python" -c 'import setuptools, sys
v = tuple(int(p) for p in setuptools.__version__.split(".")[:2])
sys.exit(v >= (70, 1))' || skip "the venv's setuptools makes wheels without the wheel package"

cp -r "$src/python" "$src/src" "$src/include" "$src/cmake" "$src/CMakeLists.txt" "$work/tree/"
# what pip's in-tree build of the checkout left (python/build: a CMake tree
# of that path) is not the package's source
rm -rf "$work/tree/python/build" "$work/tree/python/"*.egg-info
status=0
"$venv_python" -m pip install --no-build-isolation --no-index --no-deps "$work/tree/python" \
    >"$work/out" 2>&1 || status=$?
[ "$status" != 0 ] || fail "the package built without the wheel package"
grep -q "gputracker: cannot build with $venv_python: it lacks the 'wheel' package" "$work/out" ||
    { cat "$work/out"; fail "no line naming the missing wheel package"; }
grep -q "python3-wheel" "$work/out" || fail "the line does not say where to get it"
rm -rf "$work"
echo "test_python_build: the missing wheel package is named"
