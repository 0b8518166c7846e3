#!/bin/sh
# Installs the build into a temporary prefix, then builds the example out of
# tree through pkg-config and through CMake's find_package, shared and
# static, and runs it: what a user of the library does.
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
# A directory that was there before (empty) must be there after uninstall.
mkdir -p "$prefix/share/man"
# make install's script: cmake --install, the directories it made noted;
# as root, ldconfig (here a stand-in that says it ran: the real one would
# change this machine's cache for a temporary prefix).
mkdir "$prefix/fakebin"
printf '#!/bin/sh\necho "ldconfig $*" >>"%s/ldconfig.log"\n' "$prefix" >"$prefix/fakebin/ldconfig"
chmod +x "$prefix/fakebin/ldconfig"
PATH="$prefix/fakebin:$PATH" sh "$src/scripts/install.sh" "$build" "$prefix" >/dev/null 2>"$prefix/install.err"
if [ "$(id -u)" -eq 0 ]; then
    grep -q '^ldconfig $' "$prefix/ldconfig.log" 2>/dev/null ||
        { echo "make install as root did not run ldconfig"; exit 1; }
    grep -q "is not a directory the dynamic linker searches" "$prefix/install.err" ||
        { echo "make install did not say that $prefix/lib is not searched"; exit 1; }
else
    grep -q "LD_LIBRARY_PATH=" "$prefix/install.err" ||
        { echo "make install as a user did not say how the library is found"; exit 1; }
fi
cp "$build/install_manifest.txt" "$prefix/installed.txt"
sh "$src/tests/test_install_docs.sh" "$prefix"
pc=$(find "$prefix" -name gputracker.pc)
test -n "$pc" || { echo "gputracker.pc not installed"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
libdir=$(pkg-config --variable=libdir gputracker)
# Absolute paths of this prefix on the compile and link lines, none
# through '..' (what a user sees in their build log).
cflags=$(pkg-config --cflags gputracker)
case " $cflags " in
*" -I$prefix/include "*) ;;
*) echo "pkg-config --cflags lacks -I$prefix/include: '$cflags'"; exit 1 ;;
esac
case "$cflags" in *..*) echo "pkg-config --cflags goes through '..': '$cflags'"; exit 1 ;; esac
case "$(pkg-config --libs gputracker)" in
*..*) echo "pkg-config --libs goes through '..': $(pkg-config --libs gputracker)"; exit 1 ;;
esac
test -f "$prefix/include/gpu_tracker.h" || { echo "header not installed"; exit 1; }
test ! -e "$prefix/include/gpu_tracker_internal.h" ||
    { echo "gpu_tracker_internal.h (no stability promise) was installed"; exit 1; }
test -f "$libdir/libgputracker.a" || { echo "static library not installed"; exit 1; }

# The shared library has a SONAME and exports nothing but the gt_ API.
soname=$(objdump -p "$libdir/libgputracker.so" | awk '/SONAME/ {print $2}')
test "$soname" = "libgputracker.so.1" || { echo "SONAME is '$soname'"; exit 1; }
others=$(nm -D --defined-only "$libdir/libgputracker.so" | awk '{print $3}' | grep -v '^gt_' || true)
test -z "$others" || { echo "exported besides gt_*: $others"; exit 1; }
# ... and of that API exactly what gpu_tracker.h declares: no tool, testing
# hook or command-only helper (gpu_tracker_tools.h, gpu_tracker_internal.h:
# those stay in the build's internal archive), and at most 30 functions.
nm -D --defined-only "$libdir/libgputracker.so" | awk '$2 == "T" {print $3}' | sort >"$prefix/exported.txt"
sed -n 's/^GT_API [^(]*[ *]\(gt_[a-z_]*\)(.*/\1/p' "$prefix/include/gpu_tracker.h" | sort >"$prefix/declared.txt"
if ! cmp -s "$prefix/exported.txt" "$prefix/declared.txt"; then
    diff "$prefix/declared.txt" "$prefix/exported.txt"
    echo "libgputracker.so exports other functions than gpu_tracker.h declares"; exit 1
fi
nexported=$(wc -l <"$prefix/exported.txt")
test "$nexported" -le 30 || { echo "libgputracker.so exports $nexported functions (at most 30)"; exit 1; }
test ! -e "$prefix/include/gpu_tracker_tools.h" ||
    { echo "gpu_tracker_tools.h (no stability promise) was installed"; exit 1; }

# The SPANK plugin (where the build has it: Slurm's spank.h was there) lands
# in Slurm's plugin directory and shows slurmstepd its entry points only.
if [ -f "$build/spank_gputracker.so" ]; then
    plugin=$(find "$prefix" -path '*/slurm-wlm/spank_gputracker.so')
    test -n "$plugin" || { echo "the SPANK plugin was not installed into lib*/slurm-wlm"; exit 1; }
    shown=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | tr '\n' ' ')
    test "$shown" = "plugin_name plugin_type plugin_version slurm_spank_exit slurm_spank_init slurm_spank_task_exit slurm_spank_task_post_fork spank_plugin_version " ||
        { echo "the SPANK plugin exports more than its entry points: $shown"; exit 1; }
fi

# Nor does the static archive define a global symbol outside the gt_ API:
# a program's own monotonic_now() must not clash with ours at link time.
others=$(nm -g --defined-only "$libdir/libgputracker.a" | awk 'NF == 3 {print $3}' | grep -v '^gt_' || true)
test -z "$others" || { echo "libgputracker.a defines besides gt_*: $others"; exit 1; }
# ... as a program that defines functions named like internal ones proves.
cat >"$prefix/clash.c" <<'CLASH'
#include <gpu_tracker.h>
#include <stdio.h>
double monotonic_now(void);
double monotonic_now(void) { return 42.0; }
int tree_walk(void);
int tree_walk(void) { return 7; }
int main(void) { printf("%s %g %d\n", gt_version(), monotonic_now(), tree_walk()); return 0; }
CLASH

cd "$prefix"
cc "$src/examples/track_block.c" $(pkg-config --cflags --libs gputracker) -o track_block
LD_LIBRARY_PATH="$libdir" sh "$src/tests/test_example.sh" "$prefix/track_block"
# And statically, with what pkg-config --static says (libcurl is loaded at
# run time, only when an HTTP call needs it: it is no link dependency).
cc "$src/examples/track_block.c" $(pkg-config --cflags gputracker) "$libdir/libgputracker.a" \
    $(pkg-config --static --libs-only-other --libs-only-l gputracker | sed 's/-lgputracker//') \
    -o track_block_static
sh "$src/tests/test_example.sh" "$prefix/track_block_static" >/dev/null
cc clash.c $(pkg-config --cflags gputracker) "$libdir/libgputracker.a" \
    $(pkg-config --static --libs-only-other --libs-only-l gputracker | sed 's/-lgputracker//') \
    -o clash
out=$(./clash)
test "${out#* }" = "42 7" || { echo "a program's own monotonic_now/tree_walk: '$out'"; exit 1; }

# find_package(gputracker) from a CMake project of the user's, shared and
# static, against the installed package; a version it does not provide is
# refused.
mkdir "$prefix/cmake-user"
cat >"$prefix/cmake-user/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(user C)
find_package(gputracker 1.0 REQUIRED)
add_executable(track_block_cmake "$src/examples/track_block.c")
target_link_libraries(track_block_cmake PRIVATE gputracker::gputracker)
add_executable(track_block_cmake_static "$src/examples/track_block.c")
target_link_libraries(track_block_cmake_static PRIVATE gputracker::gputracker_static)
CMAKE
cmake -S "$prefix/cmake-user" -B "$prefix/cmake-user/build" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$prefix/cmake.log" 2>&1 || { cat "$prefix/cmake.log"; echo "find_package(gputracker) failed"; exit 1; }
cmake --build "$prefix/cmake-user/build" >"$prefix/build.log" 2>&1 ||
    { cat "$prefix/build.log"; echo "building with gputracker::gputracker failed"; exit 1; }
sh "$src/tests/test_example.sh" "$prefix/cmake-user/build/track_block_cmake" >/dev/null
sh "$src/tests/test_example.sh" "$prefix/cmake-user/build/track_block_cmake_static" >/dev/null
if nm -D "$prefix/cmake-user/build/track_block_cmake_static" 2>/dev/null | grep -q ' U gt_'; then
    echo "track_block_cmake_static takes gt_ functions from a shared library"; exit 1
fi
# 1.x promises 1.0's ABI: a 0.x or a 2.0 is refused.
for other in 0.4 2.0; do
    sed "s/find_package(gputracker 1.0 REQUIRED)/find_package(gputracker $other REQUIRED)/" \
        "$prefix/cmake-user/CMakeLists.txt" >"$prefix/cmake-user/CMakeLists.other"
    mkdir -p "$prefix/cmake-other"
    cp "$prefix/cmake-user/CMakeLists.other" "$prefix/cmake-other/CMakeLists.txt"
    if cmake -S "$prefix/cmake-other" -B "$prefix/cmake-other/build-$other" \
        -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
        echo "find_package(gputracker $other) accepted version 1.0"; exit 1
    fi
done
# make uninstall removes every file install put there, and our own
# directories with them.
(unset MAKEFLAGS MFLAGS MAKELEVEL; make -s -C "$src" uninstall BUILD_DIR="$build") >/dev/null
while IFS= read -r f || [ -n "$f" ]; do
    if [ -e "$f" ] || [ -L "$f" ]; then echo "make uninstall left $f"; exit 1; fi
done <"$prefix/installed.txt"
for d in share/doc/gpu-tracker lib/cmake/gputracker bin lib include share/bash-completion \
    share/man/man1; do
    if [ -d "$prefix/$d" ]; then echo "make uninstall left the directory $d"; exit 1; fi
done
[ -d "$prefix/share/man" ] || { echo "make uninstall removed share/man, which was there before"; exit 1; }
echo "installed, built with pkg-config and with find_package, run, and uninstalled: ok"
