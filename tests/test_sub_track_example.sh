#!/bin/sh
# docs/tour.md's sub-tracking session, run: the example marks "load" and
# "compute" three times while gpu-tracker writes the tracking file; the
# analysis must show three calls of each, the load blocks holding the
# example's 200 MiB (209.7 MB) and the compute blocks far less; two runs
# compare.
# usage: test_sub_track_example.sh GPU_TRACKER EXAMPLE
set -eu
gt=$1
example=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$gt" -q --disable-logs --st 0.1 --ru megabytes --tf tracking.csv --report run.html \
    --stf blocks.csv -o summary.txt -- "$example" blocks.csv
"$gt" sub-track analyze --tf tracking.csv --stf blocks.csv -f json -o before.json
"$gt" sub-track analyze --tf tracking.csv --stf blocks.csv | tee analysis.txt
grep -q "<h2>Code blocks</h2>" run.html || { echo "no code blocks in the report"; exit 1; }
python3 - <<'PY'
import json
r = json.load(open('before.json'))
blocks = {b['name']: b for b in r['code_block_results']}
assert sorted(blocks) == ['compute', 'load'], blocks.keys()
for b in blocks.values():
    assert b['num_calls'] == 3 and b['num_non_empty_calls'] == 3, b
load = blocks['load']['resource_usage']['main_ram']['max']
compute = blocks['compute']['resource_usage']['main_ram']['max']
assert load >= 209.7 and compute < 100, (load, compute)
print(f'ok: load holds {load} MB, compute {compute} MB')
PY
"$gt" -q --disable-logs --st 0.1 --ru megabytes --tf tracking2.csv -o summary2.txt -- \
    "$example" blocks2.csv 50
"$gt" sub-track analyze --tf tracking2.csv --stf blocks2.csv -f json -o after.json
"$gt" sub-track compare -m before=before.json -m after=after.json --stat max | tee compare.txt
# The load block's peak: after (50 MiB) before before (200 MiB), sorted.
awk '/^Code Block Resource Usage:/ { c = 1 } c && /^\tMain Ram:/ { m = 1; next }
     m && /^\t\tload:/ { getline; print; exit }' compare.txt | grep -q 'after *before' ||
    { echo "compare did not sort after before before for load's main_ram"; exit 1; }
