#!/bin/sh
# The report's page is files (src/tools/report/page/): cmake/embed_page.cmake
# makes them into C and refuses a page whose slots report.c fills are
# missing, doubled or out of order, naming the slot; the script parses
# where node is installed.
# usage: test_report_page.sh SOURCE_DIR
set -eu
src=$(cd "${1:?usage: test_report_page.sh SOURCE_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
embed() { cmake -DPAGE_DIR="$1" -DOUT="$work/page.c" -P "$src/cmake/embed_page.cmake"; }

# The page as it is: every slot once, the style and script inlined.
embed "$src/src/tools/report/page"
grep -q 'const char report_page\[\] = {' "$work/page.c"
for part in css js; do
    if grep -q "<!--@$part-->" "$work/page.c"; then echo "test_report_page: <!--@$part--> not filled"; exit 1; fi
done
# The bytes hold the style's first rule and the script's first function.
text=$(python3 -c 'import re, sys
print(bytes(int(h, 16) for h in re.findall(r"0x([0-9a-f]{2})", open(sys.argv[1]).read())).decode())' "$work/page.c")
case "$text" in
*':root {'*'function clock(s)'*'<!--@version-->'*) ;;
*) echo "test_report_page: the made page lacks the style, the script or a slot"; exit 1 ;;
esac

# A page that lost a slot, doubled one or swapped two is refused by name.
bad() {
    mkdir -p "$work/bad"
    cp "$src/src/tools/report/page/"* "$work/bad/"
    sed -i "$1" "$work/bad/report.html"
    if embed "$work/bad" >"$work/out" 2>&1; then
        echo "test_report_page: a page edited with '$1' was accepted"; exit 1
    fi
    grep -q "$2" "$work/out" || { echo "test_report_page: no word of $2:"; cat "$work/out"; exit 1; }
}
bad 's/<!--@main-->//' '<!--@main-->'
bad 's/<!--@title-->/<!--@title--><!--@title-->/' '<!--@title-->'
bad 's/<!--@main-->/<!--@x-->/; s/<!--@version-->/<!--@main-->/; s/<!--@x-->/<!--@version-->/' '<!--@version-->'
bad 's/<!--@css-->//' '<!--@css-->'

if command -v node >/dev/null 2>&1; then
    node --check "$src/src/tools/report/page/report.js"
    echo "test_report_page: the page is made and checked; report.js parses (node)"
else
    echo "test_report_page: the page is made and checked (no node: report.js not parsed)"
fi
