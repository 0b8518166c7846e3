#!/bin/sh
# test_python.sh SOURCE_DIR WORK_DIR: builds the Python package (python/)
# into a throwaway virtual environment of Debian's Python, as a user without
# a package index would (pip install --no-build-isolation), and runs the
# pytest suite of tests/python in it. Exit 77 (skipped) with the reason when
# that Python, venv or pytest is missing (make check installs them as root).
set -eu
src=${1:?usage: test_python.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_python.sh SOURCE_DIR WORK_DIR}

# Debian's interpreter, which the project's dependencies go into; another
# one first on PATH (pyenv) has not got them. GT_PYTHON picks another.
python=${GT_PYTHON:-/usr/bin/python3}
if ! [ -x "$python" ]; then
    echo "test_python: SKIPPED: no $python (install python3, or set GT_PYTHON)"
    exit 77
fi
for module in venv ensurepip pytest setuptools wheel; do
    if ! "$python" -c "import $module" 2>/dev/null; then
        echo "test_python: SKIPPED: $python cannot import $module (make check installs" \
             "python3-venv python3-pytest python3-setuptools python3-wheel as root)"
        exit 77
    fi
done

# Built from a copy, so that pip's in-tree build leaves the checkout clean.
rm -rf "$work"
mkdir -p "$work/tree"
cp -r "$src/python" "$src/src" "$src/include" "$work/tree/"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps \
    "$work/tree/python"
# Run from the work directory: nothing of the source tree shadows the
# installed package, and what the tests leave behind stays there.
cd "$work"
GT_SHARED_DIR="${GT_SHARED_DIR:-$src/../shared}" \
    "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python"
