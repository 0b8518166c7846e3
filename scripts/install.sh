#!/bin/sh
# `make install`: installs BUILD_DIR into PREFIX with cmake --install, notes
# the directories the install created (BUILD_DIR/install_dirs.txt, for
# uninstall.sh to remove once empty), and, as root into the running system
# (no DESTDIR), refreshes the dynamic linker's cache with ldconfig, so that
# a program linked with `pkg-config --libs gputracker` finds
# libgputracker.so.1 in /usr/local/lib at once. A library directory the
# linker does not search is named, with what to do.
# usage: install.sh BUILD_DIR PREFIX
set -eu
build=${1:?usage: install.sh BUILD_DIR PREFIX}
prefix=${2:?usage: install.sh BUILD_DIR PREFIX}
root=${DESTDIR:-}
before=$(mktemp)
after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
list_dirs() { if [ -d "$root$prefix" ]; then find "$root$prefix" -type d | sort; fi; }
list_dirs >"$before"
cmake --install "$build" --prefix "$prefix"
list_dirs >"$after"
comm -13 "$before" "$after" >"$build/install_dirs.txt"

[ -z "$root" ] || exit 0 # staged for a package: its scripts run ldconfig
libdir=$(dirname "$(grep '/libgputracker\.so$' "$build/install_manifest.txt" | head -n 1)")
if [ "$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null; then
    ldconfig
    if ! ldconfig -p | grep -q "libgputracker\.so\.[0-9.]* .*=> $libdir/"; then
        echo "install: $libdir is not a directory the dynamic linker searches: add it to" \
            "/etc/ld.so.conf.d/ and run ldconfig, or set LD_LIBRARY_PATH=$libdir" >&2
    fi
else
    case "$libdir" in
    /usr/lib | /usr/lib/* | /lib | /lib/*) ;;
    *) echo "install: programs linked with libgputracker find it in $libdir only with" \
        "LD_LIBRARY_PATH=$libdir (or, as root, after ldconfig with that directory in" \
        "/etc/ld.so.conf.d/)" >&2 ;;
    esac
fi
