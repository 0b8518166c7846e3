#!/bin/sh
# test_python.sh SOURCE_DIR WORK_DIR: builds the Python package (python/)
# into a throwaway virtual environment of Debian's Python
# (scripts/python-venv.sh) and runs the pytest suite of tests/python in it.
# Exit 77 (skipped) with the reason when that Python, venv or pytest is
# missing (make check installs them as root).
set -eu
src=${1:?usage: test_python.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_python.sh SOURCE_DIR WORK_DIR}

status=0
reason=$(GT_PYTHON_MODULES=pytest "$src/scripts/python-venv.sh" "$src" "$work") || status=$?
if [ "$status" = 77 ]; then
    echo "test_python: SKIPPED: $reason"
    exit 77
elif [ "$status" != 0 ]; then
    printf '%s\n' "$reason"
    echo "test_python: building the package failed (exit $status)"
    exit "$status"
fi
# Run from the work directory: nothing of the source tree shadows the
# installed package, and what the tests leave behind stays there.
cd "$work"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/tests/python"
