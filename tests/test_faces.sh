#!/bin/sh
# The tracking library's users go through its faces (docs/architecture.md,
# "Faces"): the command (src/cli), the Slurm plugin (src/spank), the Python
# module (python/src) and the example include, of ours, only
#   - the headers of their own folder,
#   - the library's public face (gpu_tracker.h), the tools' face
#     (gpu_tracker_tools.h) and gpu_tracker_internal.h (where a tracker
#     reads the system from, for the tests and --sampled-only),
#   - the toolkit's face (common/toolkit.h),
#   - for the Python module, the command's entry (src/cli/cli_main.h),
# never a header of the library's wings or one of the toolkit's own; and
# their objects take from the library's objects only what libgputracker.so
# exports, besides the calls tests/library_door.txt lists (the
# tracker's results as structs, which have no other way out yet: the list
# may only shrink, and a name no user calls any more must leave it).
# usage: test_faces.sh SOURCE_DIR LIBRARY.so DOOR_LIST -- USER_OBJECTS... -- LIBRARY_OBJECTS...
set -eu
src=$(cd "${1:?usage: test_faces.sh SOURCE_DIR LIBRARY.so DOOR_LIST -- USER_OBJECTS... -- LIBRARY_OBJECTS...}" && pwd)
so=$2
door=$3
shift 3
[ "$1" = -- ] || { echo "test_faces: expected -- before the users' objects"; exit 2; }
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/users"
while [ $# -gt 0 ] && [ "$1" != -- ]; do echo "$1" >>"$work/users"; shift; done
[ "$1" = -- ] || { echo "test_faces: expected -- before the library's objects"; exit 2; }
shift
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
nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRV]$/ {print $3}' | sort -u >"$work/library"
xargs nm -u <"$work/users" | awk '$1 == "U" {print $2}' | sort -u >"$work/taken"
comm -12 "$work/taken" "$work/library" | comm -23 - "$work/exported" >"$work/inner"
sed 's/#.*//; /^[[:space:]]*$/d' "$door" | sort -u >"$work/door"
for name in $(comm -23 "$work/inner" "$work/door"); do
    fail "a user of the library calls $name, which it does not export: go through gpu_tracker.h, a tool (gpu_tracker_tools.h) or the toolkit (common/toolkit.h)"
done
for name in $(comm -13 "$work/inner" "$work/door"); do
    fail "$name is in ${door#"$src"/} but no user calls it any more: take it out of the list"
done
if [ "$failures" -gt 0 ]; then
    echo "test_faces: $failures problem(s)"
    exit 1
fi
echo "test_faces: $(wc -l <"$work/users") objects of the library's users include only its faces, and call it beyond its $(wc -l <"$work/exported") exported functions only through the $(wc -l <"$work/door") of ${door#"$src"/}"
