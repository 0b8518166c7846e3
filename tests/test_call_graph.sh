#!/bin/sh
# No circles in the call graph of the library and the tools
# (docs/architecture.md, "Wings and faces"): from the objects themselves
# (nm), module A calls module B when A uses a symbol B defines; tsort finds
# any loop among those edges, and the test names it, and every call between
# wings goes down their order (the tools' wings above the whole library). A
# module is a source file (src/lib/WING/NAME.c, src/tools/WING/NAME.c,
# src/common/NAME.c: the toolkit, "common"). Prints the edges between
# wings, the picture docs/architecture.md draws.
# usage: test_call_graph.sh OBJECT...
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for obj in "$@"; do
    # .../src/lib/read/procfs.c.o -> read/procfs
    mod=$(echo "$obj" | sed 's|.*/src/lib/||; s|.*/src/tools/||; s|.*/src/common/|common/|; s|\.c\.o$||')
    nm "$obj" | awk -v m="$mod" '$2 ~ /^[TDBRV]$/ {print $3, m}' >>"$work/defs"
    nm "$obj" | awk -v m="$mod" '$1 == "U" {print $2, m}' >>"$work/uses"
done
sort -u "$work/defs" >"$work/defs.s"
sort -u "$work/uses" >"$work/uses.s"
# symbol user definer -> "user definer", self-calls left out
join "$work/uses.s" "$work/defs.s" | awk '$2 != $3 {print $2, $3}' | sort -u >"$work/edges"
[ -s "$work/edges" ] || { echo "call_graph: no edges found: are these the library's objects?"; exit 1; }
if ! tsort "$work/edges" >/dev/null 2>"$work/loop"; then
    echo "call_graph: the modules call each other in a circle:"
    sed 's/^tsort: /  /' "$work/loop"
    exit 1
fi
echo "call_graph: $(wc -l <"$work/edges") calls between $(cut -d' ' -f1,2 "$work/edges" | tr ' ' '\n' | sort -u | wc -l) modules, no circle"
# Between wings (WING/..., the root's sample.c as "sample"): every
# call goes down the order of tests/test_layers.sh, never between read/ and
# pipeline/.
awk '
function wing(m,  a) {
    split(m, a, "/")
    if (a[2] == "") return m == "sample" ? "sample" : "hub"
    if (a[1] == "read" && a[2] == "gpu" && a[3] != "") return "read/gpu"
    return a[1]
}
BEGIN { r["common"] = 0; r["sample"] = 2; r["read/gpu"] = 3; r["read"] = 4; r["pipeline"] = 4;
        r["analysis"] = 5; r["output"] = 6; r["sink"] = 7; r["hub"] = 8
        r["limits"] = 9; r["stats"] = 9; r["subtrack"] = 9; r["snapshot"] = 9; r["report"] = 10 }
{ wa = wing($1); wb = wing($2)
  if (wa == wb) next
  n[wa " -> " wb]++
  if (!(wa in r) || !(wb in r) || r[wb] >= r[wa]) { bad = 1; print "call_graph: " $1 " (" wa ") calls " $2 " (" wb "), not a wing below it" } }
END { for (e in n) print "  " e " (" n[e] ")"; exit bad }' "$work/edges" >"$work/wings" || rc=$?
sort "$work/wings"
exit "${rc:-0}"
