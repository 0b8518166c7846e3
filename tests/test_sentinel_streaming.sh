#!/bin/sh
# test_sentinel_streaming.sh SOURCE_DIR WORK_DIR - the Sentinel streaming
# round trip against a real S3 server (test_sentinel_streaming.py): S3rver,
# installed from the npm registry into WORK_DIR by its lock file
# (tests/s3rver/), run by the machine's Node.js; the package built into
# WORK_DIR/package/venv. Skipped (77), with the reason, where node or npm is
# missing or S3rver cannot be installed.
set -eu
src=${1:?usage: test_sentinel_streaming.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: test_sentinel_streaming.sh SOURCE_DIR WORK_DIR}
skip() { echo "sentinel_streaming: SKIPPED: $*"; exit 77; }
command -v node >/dev/null 2>&1 || skip "node is not installed (Debian: apt-get install nodejs)"
command -v npm >/dev/null 2>&1 || skip "npm is not installed (Debian: apt-get install npm)"
mkdir -p "$work/s3rver"
if ! cmp -s "$src/tests/s3rver/package-lock.json" "$work/s3rver/package-lock.json" ||
   [ ! -d "$work/s3rver/node_modules/@20minutes/s3rver" ]; then
    cp "$src/tests/s3rver/package.json" "$src/tests/s3rver/package-lock.json" "$work/s3rver/"
    if ! (cd "$work/s3rver" && timeout 600 npm ci --no-audit --no-fund --cache "$work/npm-cache" \
            >"$work/npm.log" 2>&1); then
        skip "S3rver could not be installed from the npm registry: $(tail -n 1 "$work/npm.log")"
    fi
fi
status=0
reason=$("$src/scripts/python-venv.sh" "$src" "$work/package") || status=$?
if [ "$status" = 77 ]; then
    skip "$reason"
elif [ "$status" != 0 ]; then
    printf '%s\n' "$reason"
    echo "sentinel_streaming: building the package failed (exit $status)"
    exit "$status"
fi
cd "$work"
NODE_PATH="$work/s3rver/node_modules" exec "$work/package/venv/bin/python" \
    "$src/tests/test_sentinel_streaming.py" "$src/tests/s3rver/s3_server.js"
