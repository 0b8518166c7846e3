#!/bin/sh
# test_versions.sh SOURCE_DIR BUILD_DIR: one version, from one place. The
# project() line of CMakeLists.txt holds it; --version, the man page, the
# library (gt_version, GT_VERSION_STRING: test_library), the Debian package,
# the Python package (its version read from the same line) and every doc
# that prints a version of ours must say the same.
set -eu
src=${1:?usage: test_versions.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: test_versions.sh SOURCE_DIR BUILD_DIR}
fail=0
bad() { echo "test_versions: $*"; fail=1; }

v=$(sed -n 's/^project(gpu_tracker VERSION \([0-9][0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
[ -n "$v" ] || { echo "test_versions: no version in $src/CMakeLists.txt's project()"; exit 1; }

said=$("$build/gpu-tracker" --version | head -n 1)
[ "$said" = "gpu-tracker $v" ] || bad "--version says '$said', CMakeLists.txt $v"
if [ -f "$build/gpu-tracker.1" ]; then
    grep -q "gpu-tracker $v" "$build/gpu-tracker.1" || bad "the man page does not say $v"
fi
deb=$(sed -n '1s/^gpu-tracker (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$deb" = "$v" ] || bad "debian/changelog's first entry is $deb, not $v"
grep -q '^dynamic = \["version"\]' "$src/python/pyproject.toml" ||
    bad "python/pyproject.toml does not take its version from setup.py (dynamic)"
if grep -q '^version *=' "$src/python/pyproject.toml"; then
    bad "python/pyproject.toml sets a version of its own"
fi
py=$(cd "$src/python" && /usr/bin/python3 -c 'import setup_version; print(setup_version.project_version())')
[ "$py" = "$v" ] || bad "the Python package's version is $py, not $v"

# Every doc that prints our version: "gpu-tracker X.Y.Z", the snapshot's
# "name": "gpu-tracker", "version": "X.Y.Z", a package gpu-tracker_X.Y.Z_.
for f in "$src/README.md" "$src"/docs/*.md "$src/python/README.md"; do
    grep -oE 'gpu-tracker [0-9]+\.[0-9]+\.[0-9]+|"name": "gpu-tracker", "version": "[0-9.]+"|gpu-tracker_[0-9.]+_' "$f" |
        while read -r hit; do
            case "$hit" in
            *"$v"*) ;;
            *) echo "test_versions: $f says '$hit', not $v"; echo x >>"$build/versions-bad" ;;
            esac
        done
done
if [ -f "$build/versions-bad" ]; then
    rm -f "$build/versions-bad"
    fail=1
fi
[ "$fail" = 0 ] && echo "test_versions: $v everywhere"
exit "$fail"
