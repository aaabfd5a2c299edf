#!/usr/bin/env bash
# check_labels.sh [SOURCE_ROOT] - the spin model's references to the C code
# still hold.
#
# Every step of tests/model/*.pml that models C code says which, in a
# comment of this form (one per line):
#
#   /* C: liblog/queue.c llog__queue_take ord llog__q.pending llog__fence_seq_cst */
#
# that is: the file (relative to the source root), the function (or
# function-like macro) defined in it, and optionally after "ord" the words
# that must occur in the function's body, comments removed, in that order
# (each after the one before it; a word may come again). The order is the model's order of the steps: F1
# (pending = 0, fence) before F2 (stop) before F3 (the exchange), the fence
# before the read of pending, and so on. The check fails when a file or a
# function named by the model is gone or renamed, or when a body lost a
# step or changed their order, so that the model cannot silently drift
# from the code it is the proof of. It prints each reference it checked.
set -euo pipefail

root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
models=("$root"/tests/model/*.pml)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llog-labels.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The C file with comments blanked out (newlines kept), cached per file.
stripped() {
	local f=$1 out
	out=$tmp/$(echo "$f" | tr / _)
	[[ -f $out ]] || perl -0777 -pe 's{/\*.*?\*/}{my $c = $&; $c =~ tr/\n//cd; $c}gse; s{//[^\n]*}{}g' \
		"$root/$f" >"$out"
	echo "$out"
}

# body FILE FUNC: prints the definition of FUNC in FILE, from the line
# that names it at column 0 (a definition: not a declaration ending in ";")
# or its #define, to the first "}" at column 0 (or the macro's last line).
body() {
	awk -v fn="$2" '
		function names(line) {
			return line ~ ("(^|[^A-Za-z0-9_])" fn "[ \t]*\\(") && line !~ /^[ \t]/
		}
		!inb && /^#[ \t]*define[ \t]/ && names(substr($0, index($0, "define") + 6)) {
			inb = 2; print; if ($0 !~ /\\$/) exit; next
		}
		!inb && names($0) && $0 !~ /;[ \t]*$/ { inb = 1; print; next }
		inb == 2 { print; if ($0 !~ /\\$/) exit; next }
		inb == 1 { print; if ($0 ~ /^}/) exit }
	' "$1"
}

n=0
fail=0
refs=$(grep -ho 'C: [^*]*\*/' "${models[@]}" | sed 's/[[:space:]]*\*\/$//' | sort -u)
[[ -n $refs ]] || { echo "FAIL: no 'C:' references in ${models[*]}"; exit 1; }
while read -r _ file func rest; do
	n=$((n + 1))
	if [[ ! -f $root/$file ]]; then
		echo "FAIL: $file (named for $func by the model) does not exist"
		fail=1
		continue
	fi
	src=$(stripped "$file")
	def=$(body "$src" "$func")
	if [[ -z $def ]]; then
		echo "FAIL: $file has no definition of $func (renamed or moved? update the model's C: comment)"
		fail=1
		continue
	fi
	words=()
	if [[ -n $rest ]]; then
		read -r kw words_str <<<"$rest"
		if [[ $kw != ord ]]; then
			echo "FAIL: bad reference 'C: $file $func $rest' (expected 'ord WORD...')"
			fail=1
			continue
		fi
		read -r -a words <<<"$words_str"
	fi
	# the words as a subsequence of the body: each after the previous one
	last=0
	ok=1
	prev=""
	for w in "${words[@]}"; do
		tail=${def:last}
		head=${tail%%"$w"*}
		if [[ $head == "$tail" ]]; then
			if [[ -n $prev && $def == *"$w"* ]]; then
				echo "FAIL: in $func ($file) $w no longer comes after $prev; the model has that order"
			else
				echo "FAIL: $func ($file) no longer contains $w, a step the model has"
			fi
			ok=0
			break
		fi
		last=$((last + ${#head} + ${#w}))
		prev=$w
	done
	if ((ok)); then
		echo "ok: $file $func${words[*]:+: ${words[*]}}"
	else
		fail=1
	fi
done <<<"$refs"

((fail == 0)) && echo "OK: $n references of the model to the C code hold"
exit $fail
