#!/bin/sh
# The tracking library's users go through its faces (docs/architecture.md,
# "Faces"): the command (src/cli), the Slurm plugin (src/spank), the Python
# module (python/src) and the example include, of ours, only
#   - the headers of their own folder,
#   - the library's public face (gpu_tracker.h), the tools' face
#     (gpu_tracker_tools.h) and gpu_tracker_internal.h (for the results'
#     types only),
#   - the toolkit's face (common/toolkit.h),
#   - for the Python module, the command's entry (src/cli/cli_main.h),
# never a header of the library's wings or one of the toolkit's own;
# and their objects take from the library's objects only what
# libgputracker.so exports: the inner face's calls are the tools' (and the
# tests').
# Each face declares what its own side defines: every gt_ function of
# gpu_tracker_tools.h is a tool's (or the toolkit's), every one of
# gpu_tracker_internal.h the library's (or the toolkit's).
# usage: test_faces.sh SOURCE_DIR LIBRARY.so -- USER_OBJECTS... -- LIBRARY_OBJECTS...
#        -- TOOLS_OBJECTS... -- TOOLKIT_OBJECTS...
set -eu
usage="usage: test_faces.sh SOURCE_DIR LIBRARY.so -- USER_OBJECTS... -- LIBRARY_OBJECTS... -- TOOLS_OBJECTS... -- TOOLKIT_OBJECTS..."
src=$(cd "${1:?$usage}" && pwd)
so=$2
shift 2
[ "$1" = -- ] || { echo "test_faces: expected -- before the users' objects"; exit 2; }
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/users"
while [ $# -gt 0 ] && [ "$1" != -- ]; do echo "$1" >>"$work/users"; shift; done
[ "$1" = -- ] || { echo "test_faces: expected -- before the library's objects"; exit 2; }
shift
# the library's objects, the tools', the toolkit's: one list each
for part in library tools toolkit; do
    : >"$work/$part.o"
    while [ $# -gt 0 ] && [ "$1" != -- ]; do echo "$1" >>"$work/$part.o"; shift; done
    [ $# -gt 0 ] && shift
done
[ -s "$work/library.o" ] && [ -s "$work/tools.o" ] && [ -s "$work/toolkit.o" ] ||
    { echo "test_faces: $usage"; exit 2; }
failures=0
fail() {
    echo "test_faces: $*"
    failures=$((failures + 1))
}

# 1. Includes.
for dir in src/cli src/spank python/src examples; do
    for f in $(find "$src/$dir" -name '*.[ch]' | sort); do
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
            case "$inc" in
            gpu_tracker.h | gpu_tracker_tools.h | gpu_tracker_internal.h | common/toolkit.h) ;;
            cli_main.h) # the command's entry, which the Python module runs in-process
                [ "$dir" = python/src ] || [ "$dir" = src/cli ] ||
                    fail "${f#"$src"/} includes cli_main.h: only the command and the Python module run it" ;;
            */*) fail "${f#"$src"/} includes \"$inc\": outside the library, include its faces (gpu_tracker.h, gpu_tracker_tools.h, common/toolkit.h)" ;;
            *) [ -f "$(dirname "$f")/$inc" ] ||
                fail "${f#"$src"/} includes \"$inc\", which is not a header of its own folder" ;;
            esac
        done
    done
done

# 2. Calls.
nm -D --defined-only "$so" | awk '{print $3}' | sort -u >"$work/exported"
defined() { # the functions and data the objects listed in $1 define
    xargs nm -g --defined-only <"$1" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRV]$/ {print $3}' | sort -u
}
defined "$work/library.o" >"$work/library"
defined "$work/tools.o" >"$work/tools"
defined "$work/toolkit.o" >"$work/toolkit"
xargs nm -u <"$work/users" | awk '$1 == "U" {print $2}' | sort -u |
    comm -12 - "$work/library" | comm -23 - "$work/exported" >"$work/inner"
for name in $(cat "$work/inner"); do
    fail "a user of the library calls $name, which it does not export: go through gpu_tracker.h, a tool (gpu_tracker_tools.h) or the toolkit (common/toolkit.h)"
done
# 3. Each face declares its own side's functions.
declared() { # the gt_ functions a header declares
    sed -n 's/^\(GT_INTERNAL \)\{0,1\}[a-z][a-z_ ]*[ *]\(gt_[a-z0-9_]*\)(.*/\2/p' "$1" | sort -u
}
declared "$src/include/gpu_tracker_tools.h" >"$work/tools_face"
declared "$src/include/gpu_tracker_internal.h" >"$work/inner_face"
[ -s "$work/tools_face" ] && [ -s "$work/inner_face" ] || fail "no declaration read from include/: the pattern in declared() no longer matches"
sort -u "$work/tools" "$work/toolkit" >"$work/tools_side"
sort -u "$work/library" "$work/toolkit" >"$work/library_side"
for name in $(comm -23 "$work/tools_face" "$work/tools_side"); do
    fail "gpu_tracker_tools.h declares $name, which no tool (src/tools) or the toolkit defines: the library's go in gpu_tracker_internal.h"
done
for name in $(comm -23 "$work/inner_face" "$work/library_side"); do
    fail "gpu_tracker_internal.h declares $name, which the library (src/lib) does not define: a tool's goes in gpu_tracker_tools.h"
done
# The tools promise no ABI: their structs are plain, and a call that grows
# an argument keeps its one name.
if grep -n 'struct_size' "$src/include/gpu_tracker_tools.h"; then
    fail "gpu_tracker_tools.h has a struct_size: the tools' structs are plain (no ABI to keep)"
fi
for name in $(grep '_ex$' "$work/tools_face"); do
    fail "gpu_tracker_tools.h declares $name: give the call its fuller signature under one name"
done
if [ "$failures" -gt 0 ]; then
    echo "test_faces: $failures problem(s)"
    exit 1
fi
echo "test_faces: $(wc -l <"$work/users") objects of the library's users include only its faces and call nothing of it beyond its $(wc -l <"$work/exported") exported functions; the tools' face declares $(wc -l <"$work/tools_face") of theirs, the inner face $(wc -l <"$work/inner_face") of the library's"
