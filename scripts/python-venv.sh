#!/bin/sh
# python-venv.sh SOURCE_DIR WORK_DIR: builds the Python package (python/)
# into a throwaway virtual environment WORK_DIR/venv of Debian's Python, as a
# user without a package index would (pip install --no-build-isolation,
# from a copy in WORK_DIR/tree, so that pip's in-tree build leaves the
# checkout clean). Used by the tests (tests/test_python.sh) and the
# benchmark (make bench). Exit 77 with the reason on stdout when that Python,
# venv, setuptools or wheel is missing (make check installs them as root);
# GT_PYTHON picks another interpreter, GT_PYTHON_MODULES more modules it
# must have.
set -eu
src=${1:?usage: python-venv.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: python-venv.sh SOURCE_DIR WORK_DIR}

# Debian's interpreter, which the project's dependencies go into; another
# one first on PATH (pyenv) has not got them.
python=${GT_PYTHON:-/usr/bin/python3}
if ! [ -x "$python" ]; then
    echo "no $python (install python3, or set GT_PYTHON)"
    exit 77
fi
for module in venv ensurepip setuptools wheel ${GT_PYTHON_MODULES:-}; do
    if ! "$python" -c "import $module" 2>/dev/null; then
        echo "$python cannot import $module (make check installs python3-venv" \
             "python3-pytest python3-setuptools python3-wheel as root)"
        exit 77
    fi
done

rm -rf "$work"
mkdir -p "$work/tree"
cp -r "$src/python" "$src/src" "$src/include" "$src/cmake" "$src/CMakeLists.txt" "$work/tree/"
# what pip's in-tree build of the checkout left (python/build: a CMake tree
# of that path) is not the package's source
rm -rf "$work/tree/python/build" "$work/tree/python/"*.egg-info
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-build-isolation --no-index --no-deps \
    "$work/tree/python"
