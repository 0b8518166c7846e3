#!/bin/sh
# Installs the Debian packages gpu-tracker needs to build and test, if any is
# missing. Runs apt-get when we are root; otherwise says what to install.
set -eu

# clang and libclang-rt-14-dev: the libFuzzer targets (make fuzz, and a short
# run of each in make check).
packages="gcc libc6-dev make cmake pkg-config libjson-c-dev zlib1g-dev libcurl4-openssl-dev
clang libclang-rt-14-dev"
missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    echo "install-deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: run: sudo apt-get install$missing" >&2
    exit 1
fi
