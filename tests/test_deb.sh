#!/bin/sh
# `make deb` as a packager runs it: the packages build from the tree,
# lintian finds no error in them, apt would install them on this Debian,
# and their contents, unpacked with dpkg-deb -x, run the demo (the
# program), render the man page and build and run the library example.
# Skips (77) only when the Debian packaging tools are missing; make check
# installs them.
# usage: test_deb.sh SOURCE_DIR BUILD_DIR
set -eu
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
for tool in dpkg-buildpackage dh lintian fakeroot; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed (make check installs it: scripts/install-deps.sh check)"
        exit 77
    fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL
fail() { echo "deb: $*"; exit 1; }

DEBFULLNAME="Ana Packager" DEBEMAIL="ana@example.org" \
    make -s -C "$src" deb BUILD_DIR="$work/b" >"$work/make.log" 2>&1 ||
    { cat "$work/make.log"; fail "make deb failed"; }
debs="$work/b/deb"
# Who packaged it, as DEBFULLNAME and DEBEMAIL said.
for deb in "$debs"/*.deb; do
    m=$(dpkg-deb -f "$deb" Maintainer)
    [ "$m" = "Ana Packager <ana@example.org>" ] || fail "$(basename "$deb"): Maintainer is '$m'"
done
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
for p in gpu-tracker libgputracker1 libgputracker-dev; do
    [ -f "$debs/${p}_${version}_$(dpkg --print-architecture).deb" ] || fail "no package $p"
done

# lintian: no error (warnings and notes are printed, not fatal). As root it
# says so on stderr; that line is not a finding.
if ! lintian --fail-on error "$debs"/*.deb >"$work/lintian.out" 2>&1; then
    cat "$work/lintian.out"; fail "lintian reports errors"
fi
grep '^[EW]:' "$work/lintian.out" || true

# apt would install them here (a simulation: nothing is changed).
apt-get -s install "$debs"/gpu-tracker_*.deb "$debs"/libgputracker1_*.deb \
    "$debs"/libgputracker-dev_*.deb >"$work/apt.out" 2>&1 ||
    { cat "$work/apt.out"; fail "apt-get -s install refused the packages"; }
grep -q "^Inst gpu-tracker " "$work/apt.out" || grep -q "gpu-tracker is already" "$work/apt.out" ||
    { cat "$work/apt.out"; fail "apt would not install gpu-tracker"; }

# The contents, unpacked.
root="$work/root"
for p in gpu-tracker libgputracker1 libgputracker-dev; do
    dpkg-deb -x "$debs/${p}_${version}_$(dpkg --print-architecture).deb" "$root"
done
gt="$root/usr/bin/gpu-tracker"
[ "$("$gt" --version | head -n 1)" = "gpu-tracker $version" ] || fail "--version: $("$gt" --version)"
# The demo of make demo, run by the packaged program.
"$gt" --st 0.2 --ru megabytes --tu seconds -- "$build/tests/gt-workload" demo >"$work/demo.out" 2>&1 ||
    { cat "$work/demo.out"; fail "the packaged gpu-tracker failed the demo"; }
grep -q "^Resource tracking complete. Process completed with status code: 0$" "$work/demo.out" ||
    { cat "$work/demo.out"; fail "no summary from the demo"; }
grep -q "^      Total RSS: " "$work/demo.out" || fail "no RSS in the demo's summary"
# The man page, compressed as Debian ships it, renders.
page=$(find "$root/usr/share/man" -name 'gpu-tracker.1*')
[ -n "$page" ] || fail "no man page in the package"
MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q -- "--wait-all" || fail "the man page does not render"
[ -f "$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/slurm-wlm/spank_gputracker.so" ] ||
    fail "the SPANK plugin is not in Slurm's plugin directory in the package"
for f in usr/share/bash-completion/completions/gpu-tracker usr/share/zsh/vendor-completions/_gpu-tracker \
    usr/share/fish/vendor_completions.d/gpu-tracker.fish usr/share/doc/gpu-tracker/copyright; do
    [ -f "$root/$f" ] || fail "$f is not in the packages"
done
# The library example, built with pkg-config from the -dev package.
# The .pc names /usr, where the package installs; unpacked here, the
# sysroot is $root.
pcdir=$(dirname "$(find "$root" -name gputracker.pc)")
includedir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=includedir gputracker)
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir gputracker)
[ "$includedir" = /usr/include ] || fail "the .pc's includedir is '$includedir', not /usr/include"
[ "$libdir" = "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)" ] ||
    fail "the .pc's libdir is '$libdir'"
libdir=$root$libdir
# (pkg-config leaves out -I/usr/include and -L of the system's libdir: the
# unpacked copies are named here instead.)
cc "$src/examples/track_block.c" -I"$root/usr/include" -L"$libdir" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --libs-only-l gputracker) \
    -o "$work/track_block" || fail "the example does not build against libgputracker-dev"
LD_LIBRARY_PATH="$libdir" sh "$src/tests/test_example.sh" "$work/track_block" >/dev/null ||
    fail "the example built against the package does not run"
echo "make deb: $(ls "$debs" | grep -c '\.deb$') packages, lintian without errors, demo and example run: ok"
