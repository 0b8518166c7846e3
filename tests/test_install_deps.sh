#!/bin/sh
# scripts/install-deps.sh as root on a fresh VM, where another apt
# (unattended-upgrades) may hold the locks: every apt-get call waits for
# dpkg's lock (DPkg::Lock::Timeout), and an update refused for the lists'
# lock is tried again rather than failing at once; another failure is not
# retried; --report (a plain `make`) installs nothing. apt-get, dpkg-query
# and id are stand-ins on PATH (a real apt would change this machine): they
# record what the script asks.
# usage: test_install_deps.sh SOURCE_DIR
set -eu
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install-deps: $*"; exit 1; }
mkdir "$work/bin"
# Nothing is installed; we are root.
printf '#!/bin/sh\nexit 1\n' >"$work/bin/dpkg-query"
printf '#!/bin/sh\necho 0\n' >"$work/bin/id"
# apt-get: the first update fails as with a held lock, then all succeed.
cat >"$work/bin/apt-get" <<FAKE
#!/bin/sh
echo "\$*" >>"$work/calls"
case "\$*" in
*update*)
    if [ ! -e "$work/updated-once" ]; then
        : >"$work/updated-once"
        echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
        exit 100
    fi ;;
esac
exit 0
FAKE
chmod +x "$work/bin/"*
PATH="$work/bin:$PATH" GT_APT_RETRY_SLEEP=0 sh "$src/scripts/install-deps.sh" build \
    >"$work/out" 2>&1 || { cat "$work/out"; fail "failed while another apt held the lists' lock"; }
grep -q "another apt holds the package lists; waiting" "$work/out" || fail "no word of the wait"
[ "$(grep -c update "$work/calls")" -eq 2 ] || fail "update not tried again: $(cat "$work/calls")"
grep -q "install" "$work/calls" || fail "nothing installed: $(cat "$work/calls")"
if grep -v -- "-o DPkg::Lock::Timeout=900" "$work/calls" | grep -q .; then
    fail "an apt-get call that does not wait for dpkg's lock: $(cat "$work/calls")"
fi
# Another failure (no network) is said at once, not retried.
rm -f "$work/calls"
cat >"$work/bin/apt-get" <<FAKE
#!/bin/sh
echo "\$*" >>"$work/calls"
echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease" >&2
exit 100
FAKE
if PATH="$work/bin:$PATH" GT_APT_RETRY_SLEEP=0 sh "$src/scripts/install-deps.sh" build \
    >"$work/out" 2>&1; then
    fail "a failed update was taken for success"
fi
grep -q "Failed to fetch" "$work/out" || fail "the failure was not shown: $(cat "$work/out")"
[ "$(wc -l <"$work/calls")" -eq 1 ] || fail "a failure other than the lock was retried"
# What a plain `make` runs (--report): even as root it installs nothing,
# names what is missing and how to get it, and fails.
rm -f "$work/calls"
if PATH="$work/bin:$PATH" sh "$src/scripts/install-deps.sh" --report build >"$work/out" 2>&1; then
    fail "--report with packages missing succeeded"
fi
[ ! -e "$work/calls" ] || fail "--report ran apt-get: $(cat "$work/calls")"
grep -q "missing Debian packages: gcc" "$work/out" || fail "--report did not name them: $(cat "$work/out")"
grep -q "make deps" "$work/out" || fail "--report did not say how: $(cat "$work/out")"
grep -q '^build: deps-report$' "$src/Makefile" || fail "the Makefile's build target does not only report"
echo "install-deps waits for another apt's locks, and --report installs nothing: ok"
