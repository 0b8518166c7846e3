#!/bin/sh
# Removes what `make install` installed, as listed in the install manifest
# CMake wrote (BUILD_DIR/install_manifest.txt), the directories that are
# ours alone (share/doc/gpu-tracker, lib/cmake/gputracker) once empty, and
# the directories the install created (install_dirs.txt beside the
# manifest, written by install.sh) once empty, deepest first. A directory
# that was there before the install stays, even when empty.
# usage: uninstall.sh MANIFEST
set -eu
manifest=${1:?usage: uninstall.sh MANIFEST}
if [ ! -f "$manifest" ]; then
    echo "uninstall: no install manifest '$manifest': nothing was installed from this build directory (run make install first, with the same BUILD_DIR)" >&2
    exit 1
fi
removed=0
while IFS= read -r f || [ -n "$f" ]; do
    [ -n "$f" ] || continue
    if [ -f "$f" ] || [ -L "$f" ]; then
        rm -f -- "$f"
        removed=$((removed + 1))
    fi
    dir=$(dirname -- "$f")
    case "$(basename -- "$dir")" in
    gpu-tracker | gputracker) rmdir -- "$dir" 2>/dev/null || true ;;
    esac
done <"$manifest"
dirs="$(dirname -- "$manifest")/install_dirs.txt"
if [ -f "$dirs" ]; then
    # Deepest first: a parent is empty only once its children are gone.
    awk '{ print length($0) "\t" $0 }' "$dirs" | sort -rn | cut -f 2- |
        while IFS= read -r d; do
            [ -n "$d" ] && rmdir -- "$d" 2>/dev/null || true
        done
fi
echo "uninstall: removed $removed files listed in $manifest"
