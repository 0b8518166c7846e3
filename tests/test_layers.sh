#!/bin/sh
# The wings point down (docs/architecture.md, "Wings and faces"): every
# source and header of src/lib (the tracking library) and src/tools (the
# tools on top of it), .c and .h alike, sits in a wing, and includes only
#   - headers of its own wing,
#   - the face of a wing below it (WING/WING.h, e.g. "read/read.h"; every
#     header of the common toolkit, src/common/ and its parse/, is a face:
#     the toolkit is a shelf of separate tools, one helper or file format a
#     header),
#   - the library's faces in include/: the public header (gpu_tracker.h)
#     and the inner one (gpu_tracker_internal.h: the results' types, the
#     gate the tools take a live run through), and for the tools the
#     tools' face (gpu_tracker_tools.h), which the library and the toolkit
#     never include.
# read/ and pipeline/ are side by side, the producers and the consumers of a
# sample: they share sample.h and never include each other. read/gpu/ sits
# inside read/: read/ includes its face, never the other way round. A file
# in a folder that has no rank here fails the test, so that a new wing is
# placed on purpose. The tools' wings sit above the whole library and
# include none of its headers (src/lib): only its faces in include/ and
# the toolkit's headers.
set -eu
lib=$(cd "${1:?usage: test_layers.sh SRC_LIB_DIR SRC_TOOLS_DIR}" && pwd)
tools=$(cd "${2:?usage: test_layers.sh SRC_LIB_DIR SRC_TOOLS_DIR}" && pwd)
src=$(cd "$lib/.." && pwd) # src/common, the toolkit, is "common/..." from here

# rank WING: how low the wing sits (lower is included by higher).
rank() {
    case "$1" in
    common) echo 0 ;;                # common/parse/ (the kernel files' parsers) too
    sample) echo 2 ;;                # sample.h and sample.c, at the root
    read/gpu) echo 3 ;;
    read | pipeline) echo 4 ;;
    analysis) echo 5 ;;
    output) echo 6 ;;
    sink) echo 7 ;;
    hub) echo 8 ;;                   # hub/: the coordinator and the API
    limits | stats | subtrack | snapshot) echo 9 ;; # src/tools/
    report) echo 10 ;;
    *) echo "" ;;
    esac
}

# wing PATH (relative to src/lib): the wing a file or header belongs to.
wing() {
    case "$1" in
    sample.h | sample.c) echo sample ;;
    common/*) echo common ;;
    */*) echo "${1%/*}" ;;
    *) echo hub ;;
    esac
}

# is_tool WING: whether the wing is one of the tools' (src/tools).
is_tool() {
    [ "$(rank "$1")" -ge 9 ]
}

# is_face PATH: whether other wings may include this header.
is_face() {
    case "$1" in
    common/*.h | sample.h) return 0 ;;
    esac
    w=$(wing "$1")
    [ "$1" = "$w/${w##*/}.h" ]
}

failures=0
fail() {
    echo "test_layers: $*"
    failures=$((failures + 1))
}

files=$( (cd "$lib" && find . -name '*.[ch]'; cd "$tools" && find . -name '*.[ch]'
    cd "$src" && find ./common -name '*.[ch]') | sed 's|^\./||' | sort)
# Where a file or header named by its wing path is (src/lib or src/tools).
where() {
    if [ -f "$lib/$1" ]; then echo "$lib/$1"; elif [ -f "$tools/$1" ]; then echo "$tools/$1"
    elif [ -f "$src/$1" ] && [ "${1%%/*}" = common ]; then echo "$src/$1"; fi
}
for f in $files; do
    mine=$(wing "$f")
    myrank=$(rank "$mine")
    if [ -z "$myrank" ]; then
        fail "$f is in $mine/, which is no wing: place it in tests/test_layers.sh and docs/architecture.md"
        continue
    fi
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$(where "$f")"); do
        case "$inc" in
        gpu_tracker.h | gpu_tracker_internal.h) continue ;;
        gpu_tracker_tools.h)
            # The tools' face is above the library and the toolkit.
            is_tool "$mine" ||
                fail "$f ($mine) includes gpu_tracker_tools.h, the face of the tools above it: take the results' types from gpu_tracker_internal.h"
            continue ;;
        esac
        if [ -z "$(where "$inc")" ]; then
            fail "$f includes \"$inc\", which is not a path under src/lib, src/tools or src/common (name a header by its wing: \"read/procfs.h\")"
            continue
        fi
        theirs=$(wing "$inc")
        [ "$theirs" = "$mine" ] && continue
        therank=$(rank "$theirs")
        if is_tool "$mine" && ! is_tool "$theirs" && [ "$theirs" != common ]; then
            fail "$f ($mine) includes $inc, a header of the library's $theirs/: a tool takes the library through its faces (gpu_tracker.h, gpu_tracker_internal.h)"
        elif [ "$therank" -gt "$myrank" ]; then
            fail "$f ($mine) includes $inc ($theirs), a wing above it"
        elif [ "$therank" -eq "$myrank" ]; then
            fail "$f ($mine) includes $inc ($theirs): side-by-side wings share only sample.h"
        elif ! is_face "$inc"; then
            fail "$f ($mine) includes $inc, private to $theirs/: include its face, $theirs/${theirs##*/}.h"
        fi
    done
done
# The public header (docs/api.md, "What 1.0 promises") sizes no array by a
# compile-time maximum of things a run may have (lists are counted), holds
# no struct inside another by value (a member whose type is a gt_ struct
# and not a pointer or a callback: it could not grow), and names nothing
# for testing.
header="$lib/../../include/gpu_tracker.h"
if grep -n '\[GT_MAX_' "$header"; then
    fail "gpu_tracker.h has an array sized by a GT_MAX_ constant: make it a counted array"
fi
if awk '/^typedef struct [a-z_]+ \{/ { in_struct = 1; next } /^\}/ { in_struct = 0 }
        in_struct && /^    (const )?(struct )?gt_[a-z_]+ +[a-z_]+/ && !/\*/ && !/_fn / { print FILENAME ":" FNR ": " $0; bad = 1 }
        END { exit !bad }' "$header"; then
    fail "gpu_tracker.h has a struct inside another by value: point to it, or give its fields"
fi
if grep -n 'testing' "$header"; then
    fail "gpu_tracker.h names something for testing: that belongs in gpu_tracker_internal.h"
fi
# The command and the Python module make trackers as a program does: no
# gt_testing_ call outside the tests.
src_root="$lib/.."
if grep -rn 'gt_testing_' "$src_root/cli" "$lib" "$tools" "$src_root/../python/src" \
    "$src_root/../include" 2>/dev/null; then
    fail "a gt_testing_ call outside the tests"
fi
# The hub coordinates, it does not compute: each of its files under 400
# lines (a new concern goes in its wing).
for f in "$lib"/hub/*.c; do
    n=$(wc -l <"$f")
    [ "$n" -lt 400 ] || fail "${f#"$lib"/} has $n lines (the hub's files stay under 400)"
done

# The root holds sample.h and the source list, not a new module: at most ten files.
root_files=$(find "$lib" -maxdepth 1 -type f | wc -l)
if [ "$root_files" -gt 10 ]; then
    fail "src/lib has $root_files files at its root (at most 10): a new module goes in its wing"
fi
if [ "$failures" -gt 0 ]; then
    echo "test_layers: $failures problem(s) with the wings' order or the 1.0 header's rules"
    exit 1
fi
echo "test_layers: $(echo "$files" | wc -l) files, every include within its wing or down to a face"
