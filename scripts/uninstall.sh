#!/bin/sh
# Removes what `make install` installed, as listed in the install manifest
# CMake wrote (BUILD_DIR/install_manifest.txt), and the directories that
# are ours alone (share/doc/gpu-tracker, lib/cmake/gputracker) once empty.
# Shared directories (bin, share/man/man1, ...) stay, even when empty.
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
echo "uninstall: removed $removed files listed in $manifest"
