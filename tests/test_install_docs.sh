#!/bin/sh
# What `make install` puts beside the program for people: the man page
# (rendered with man -l), the bash, zsh and fish completions (loaded in
# each shell and asked for completions), the docs. Every long option
# `gpu-tracker --help all` lists must be in the page and in each completion.
# Called by test_install.sh on its temporary prefix.
# usage: test_install_docs.sh PREFIX
set -eu
prefix=$1
bin="$prefix/bin/gpu-tracker"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install docs: $*"; exit 1; }

# The long options --help all lists (the tracked command's and the subcommands').
"$bin" --help all >"$work/help"
options=$(grep -o -- '--[a-z][a-z-]*' "$work/help" | sort -u)
[ "$(echo "$options" | wc -l)" -ge 20 ] || fail "too few options found in --help all: $options"

# The man page: installed, rendered, and saying what --help says.
page="$prefix/share/man/man1/gpu-tracker.1"
[ -f "$page" ] || fail "no man page at $page"
command -v man >/dev/null || fail "man is not installed (make check installs man-db)"
MANWIDTH=100 man -l "$page" 2>"$work/man.err" | col -b >"$work/man.txt"
[ ! -s "$work/man.err" ] || { cat "$work/man.err"; fail "man -l warned"; }
grep -q "gpu-tracker - track the resource usage of a command and its descendants" "$work/man.txt" ||
    fail "the page has no NAME line"
grep -q "^SYNOPSIS" "$work/man.txt" || fail "the page has no SYNOPSIS"
grep -q "^EXAMPLES" "$work/man.txt" || fail "the page has no EXAMPLES"
grep -q "gpu-tracker -q -f json -- python train.py | jq" "$work/man.txt" ||
    fail "the EXAMPLES lack the pipe into jq"
grep -q "^FILES" "$work/man.txt" && grep -q "gpu-tracker/config" "$work/man.txt" ||
    fail "the page's FILES do not name the config file"
grep -q "$("$bin" --version | head -n 1)" "$work/man.txt" || fail "the page does not name the version"
for o in $options; do
    grep -q -- "$o" "$work/man.txt" || fail "the man page lacks $o"
done

# Completions: each option of --help in each file.
bash_c="$prefix/share/bash-completion/completions/gpu-tracker"
zsh_c="$prefix/share/zsh/vendor-completions/_gpu-tracker"
fish_c="$prefix/share/fish/vendor_completions.d/gpu-tracker.fish"
for f in "$bash_c" "$zsh_c" "$fish_c"; do
    [ -f "$f" ] || fail "no completion file $f"
done
# --execute and --format's subcommand-only spellings are in the main lists.
for o in $options; do
    case "$o" in --duration|--max-rows|--server) continue ;; esac # subcommands' own
    grep -q -- "$o\\b" "$bash_c" || fail "bash completion lacks $o"
    grep -q -- "$o\\[" "$zsh_c" || grep -q -- "$o'\\[" "$zsh_c" || grep -q -- ",$o}" "$zsh_c" ||
        fail "zsh completion lacks $o"
    grep -q -- "-l ${o#--}\\b" "$fish_c" || fail "fish completion lacks $o"
done

# bash: load it and ask, as the shell does on Tab.
complete_bash() {
    bash --norc --noprofile -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
        _gpu_tracker; printf "%s\n" "${COMPREPLY[@]}"' bash "$bash_c" "$@"
}
[ "$(complete_bash gpu-tracker --wa)" = "--wait-all" ] || fail "bash: --wa gave '$(complete_bash gpu-tracker --wa)'"
[ "$(complete_bash gpu-tracker --ru meg)" = "megabytes" ] || fail "bash: --ru meg"
[ "$(complete_bash gpu-tracker -f hu)" = "human" ] || fail "bash: -f hu"
[ -z "$(complete_bash gpu-tracker stats -f hu)" ] || fail "bash: stats has no human format"
[ "$(complete_bash gpu-tracker sta)" = "stats" ] || fail "bash: sta gave '$(complete_bash gpu-tracker sta)'"
[ "$(complete_bash gpu-tracker report x.json.gz --se)" = "--server" ] || fail "bash: report --se"
[ "$(complete_bash gpu-tracker sub-track an)" = "analyze" ] || fail "bash: sub-track an"
[ "$(complete_bash gpu-tracker sub-track compare --st)" = "--stat" ] || fail "bash: compare --st"
[ "$(complete_bash gpu-tracker sub-track analyze -f pi)" = "pickle" ] || fail "bash: analyze -f pi"
[ "$(complete_bash gpu-tracker --tcon)" = "--tconfig" ] || fail "bash: --tcon"
complete_bash gpu-tracker --st 1 -- ech | grep -qx echo || fail "bash: the command after -- is not completed"

# fish: load it and ask with complete -C.
fish_out=$(fish --no-config -c "source '$fish_c'; complete -C 'gpu-tracker --wa'")
echo "$fish_out" | grep -q "^--wait-all" || fail "fish: --wa gave '$fish_out'"
fish_out=$(fish --no-config -c "source '$fish_c'; complete -C 'gpu-tracker --tu '")
echo "$fish_out" | grep -q "^hours" || fail "fish: --tu gave '$fish_out'"

# zsh: it parses, and compinit finds it on the fpath and binds it.
zsh -n "$zsh_c" || fail "zsh: the completion does not parse"
bound=$(HOME="$work" zsh -fc "fpath=('$prefix/share/zsh/vendor-completions' \$fpath);
    autoload -Uz compinit; compinit -u -d '$work/zcompdump'; print -r -- \${_comps[gpu-tracker]}")
[ "$bound" = "_gpu-tracker" ] || fail "zsh: compinit bound gpu-tracker to '$bound'"

# The docs, where Debian keeps them.
for d in README.md cli.md metrics.md series.md snapshot.md api.md; do
    [ -f "$prefix/share/doc/gpu-tracker/$d" ] || fail "share/doc/gpu-tracker/$d not installed"
done
echo "man page, completions (bash, zsh, fish) and docs installed and working: ok"
