#!/bin/sh
# Installs the Debian packages gpu-tracker needs, if any is missing. Runs
# apt-get when we are root; otherwise says what to install.
#
# usage: install-deps.sh build|deb|check
#        install-deps.sh --list build|deb|check   (prints the packages, installs nothing)
#        install-deps.sh --report build|deb|check (says what is missing and
#                        how to install it, exit 1; installs nothing, root or not:
#                        what a plain `make` runs)
#   build  what `make` and `make demo` need: a C compiler, CMake, json-c,
#          zlib, SQLite, libcsv, libmicrohttpd and libcurl's headers,
#          help2man (the man page)
#   deb    also what `make deb` needs: debhelper, dpkg-dev, fakeroot
#   check  also what `make check` needs so that no test has to skip: clang
#          and its runtimes (the ThreadSanitizer build and the libFuzzer
#          targets), Chromium (the HTML report is rendered and hovered in it)
#          util-linux's unshare (the PID namespace tests), and Debian's
#          Python with venv, pip, setuptools, wheel and pytest (the Python
#          package is built into a throwaway virtual environment and tested),
#          zsh and fish (the installed completions are loaded in them),
#          man-db (the installed man page is rendered), the deb tools and
#          lintian (the package is built and checked), Prometheus (a real
#          server scrapes the exporter; promtool checks its text), Slurm and
#          munge (a one-node cluster runs srun -n 2 gpu-tracker), abigail-tools
#          (abidiff checks the shared library against its ABI baseline),
#          tmux (the status line is checked in a real terminal emulator)
#
# Another apt may hold the package database (a fresh VM's
# unattended-upgrades): apt-get waits for its lock up to
# GT_APT_LOCK_TIMEOUT seconds (default 900) instead of failing at once.
set -eu

list=0
report=0
if [ "${1:-}" = "--list" ]; then
    list=1
    shift
elif [ "${1:-}" = "--report" ]; then
    report=1
    shift
fi
mode=${1:-build}
packages="gcc libc6-dev make cmake pkg-config binutils libjson-c-dev zlib1g-dev libsqlite3-dev libcsv-dev libmicrohttpd-dev libcurl4-openssl-dev help2man"
deb_packages="debhelper dpkg-dev fakeroot"
case "$mode" in
build) ;;
deb) packages="$packages $deb_packages" ;;
check) packages="$packages $deb_packages lintian clang libclang-rt-14-dev chromium util-linux python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pytest python3-psutil python3-pandas python3-ipython zsh fish man-db prometheus prometheus-pushgateway slurmctld libslurm-dev slurmd slurm-client munge abigail-tools tmux snakemake python3-pytest-xdist python3-markdown" ;;
*) echo "usage: install-deps.sh [--list|--report] build|deb|check" >&2; exit 2 ;;
esac
# The Sentinel streaming test's S3 server runs on Node.js and comes from the
# npm registry. Debian's npm only where no npm is there already: a Node.js
# from elsewhere (NodeSource) carries its own, which Debian's would conflict with.
if [ "$mode" = check ]; then
    packages="$packages nodejs"
    command -v npm >/dev/null 2>&1 || packages="$packages npm"
fi
if [ "$list" -eq 1 ]; then
    echo $packages
    exit 0
fi

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$report" -eq 1 ]; then
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: install them with 'make deps' as root (or: sudo apt-get install$missing);" \
        "make demo and make check do it themselves" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    echo "install-deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    timeout=${GT_APT_LOCK_TIMEOUT:-900}
    lock="-o DPkg::Lock::Timeout=$timeout"
    # apt-get update takes the package lists' lock, which (unlike dpkg's)
    # it does not wait for: a lock held by another apt is retried every
    # 10 s (GT_APT_RETRY_SLEEP) until the timeout, any other failure is not.
    waited=0
    # shellcheck disable=SC2086
    while ! apt-get $lock update -qq 2>"${TMPDIR:-/tmp}/gt-apt-update.$$"; do
        if ! grep -q "Could not get lock" "${TMPDIR:-/tmp}/gt-apt-update.$$" ||
            [ "$waited" -ge "$timeout" ]; then
            cat "${TMPDIR:-/tmp}/gt-apt-update.$$" >&2
            rm -f "${TMPDIR:-/tmp}/gt-apt-update.$$"
            exit 1
        fi
        [ "$waited" -gt 0 ] || echo "install-deps: another apt holds the package lists; waiting" >&2
        sleep "${GT_APT_RETRY_SLEEP:-10}"
        waited=$((waited + ${GT_APT_RETRY_SLEEP:-10}))
    done
    rm -f "${TMPDIR:-/tmp}/gt-apt-update.$$"
    # shellcheck disable=SC2086
    apt-get $lock install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "install-deps: missing Debian packages:$missing" >&2
    echo "install-deps: run: sudo apt-get install$missing" >&2
    exit 1
fi
