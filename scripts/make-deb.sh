#!/bin/sh
# Builds the Debian packages (gpu-tracker, libgputracker1,
# libgputracker-dev) from this tree with dpkg-buildpackage and debian/,
# in a copy of the tree under OUT (dpkg-buildpackage writes beside the
# source), and leaves the .deb files in OUT.
# usage: make-deb.sh SOURCE_DIR OUT
set -eu
src=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
work="$out/src"
rm -rf "$work"
mkdir -p "$work/gpu-tracker-$version"
# The tree without build directories or VCS data.
(cd "$src" && tar --exclude='./build*' --exclude=./.git --exclude='./obj-*' \
    --exclude='./debian/.debhelper' --exclude='./debian/tmp' -cf - .) |
    (cd "$work/gpu-tracker-$version" && tar -xf -)
if [ -n "${DEBFULLNAME:-}" ] && [ -n "${DEBEMAIL:-}" ]; then
    case "$DEBFULLNAME$DEBEMAIL" in
    *'|'* | *'<'* | *'>'*) echo "make deb: DEBFULLNAME and DEBEMAIL cannot hold | < or >" >&2; exit 2 ;;
    esac
    maintainer="$DEBFULLNAME <$DEBEMAIL>"
    deb="$work/gpu-tracker-$version/debian"
    sed -i "s|^Maintainer: .*|Maintainer: $maintainer|" "$deb/control"
    # The newest entry's trailer line: " -- NAME <EMAIL>  DATE".
    sed -i "0,/^ -- .*>  /s|^ -- .*>  | -- $maintainer  |" "$deb/changelog"
fi
log="$out/dpkg-buildpackage.log"
if ! (cd "$work/gpu-tracker-$version" && dpkg-buildpackage -b -us -uc) >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "make deb: dpkg-buildpackage failed (log: $log)" >&2
    exit 1
fi
rm -f "$out"/*.deb
mv "$work"/*.deb "$out"/
rm -rf "$work"
ls "$out"/*.deb
