#!/bin/bash
# run_spin.sh MODEL.pml pass|fail
#
# Checks a spin model of the llog pipeline (see tests/model/README.md) in a
# few configurations (spin -D flags), each an exhaustive search:
#   pass: every configuration verifies: "errors: 0" and a complete search
#         (no depth/memory truncation);
#   fail: some configuration reports errors > 0; its counterexample is
#         replayed (spin -t -p) and summarised.
# Assertions and invalid end states are both checked (-DSAFETY turns off
# only the cycle searches; pan still reports "invalid end states +").
#
# Environment:
#   LLOG_SPIN_FULL=1      also run the two large configurations (about 30 M
#                         states each, ~1 minute and ~2 GB each)
#   LLOG_SPIN_CONFIGS     replace the configuration list: "name:flags;..."
set -u

if [ $# -ne 2 ] || { [ "$2" != pass ] && [ "$2" != fail ]; }; then
	echo "usage: $0 MODEL.pml pass|fail" >&2
	exit 2
fi
model=$1
expect=$2
command -v spin >/dev/null || { echo "spin not found (Debian package 'spin')" >&2; exit 2; }
command -v gcc >/dev/null || { echo "gcc not found" >&2; exit 2; }
[ -f "$model" ] || { echo "no such model: $model" >&2; exit 2; }

srcdir=$(cd "$(dirname "$model")" && pwd)
base=$(basename "$model")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llog-spin.XXXXXX") || exit 2
# wait: a build of the next configuration may still run in the background
trap 'wait; rm -rf "$tmp"' EXIT
# The broken model #includes pipeline.pml: copy every model file so that
# spin's preprocessor finds it (once, so that later edits do not mix in),
# then into one directory per configuration, where pan's trail lands.
mkdir "$tmp/src" && cp "$srcdir"/*.pml "$tmp/src"/ || exit 2
cd "$tmp" || exit 2

# name:spin flags. Producer 0 has room for one record (its second BLOCKs),
# producer 1 for two; each logs one ERROR record (p0 its last, p1 its first).
# race-*: shutdown runs concurrently with everyone (the shutdown race);
# late-*: shutdown starts after the others finished, so only the wake-up
# handshakes can wake the flusher (a lost wake-up = invalid end state);
# *-nohw: without the arena high-water wake-up, which otherwise hides a
# missing BLOCK wake-up; init-fail: no flusher thread, llog_init runs the
# final round itself.
configs=(
	"race-2p:-DNO_FLUSH"                              # p0 x2, p1 x2
	"race-flush:-DONE_PRODUCER -DK=3"                 # p0 x3 + llog_flush
	"race-all:-DK=1 -DK1=1"                           # p0 x1, p1 x1 + llog_flush
	"late-all:-DLATE_SHUTDOWN -DK1=1"                 # p0 x2, p1 x1 + llog_flush
	"late-all-nohw:-DLATE_SHUTDOWN -DK1=1 -DNO_HIGHWATER"
	"late-2p-nohw:-DLATE_SHUTDOWN -DNO_FLUSH -DNO_HIGHWATER"  # p0 x2, p1 x2
	"late-flush:-DLATE_SHUTDOWN -DONE_PRODUCER -DK=3" # p0 x3 + llog_flush
	"init-fail:-DINIT_FAIL -DK1=1"                    # p0 x2, p1 x1 + llog_flush, llog_init's
	                                                  # pthread_create fails: one final round
)
if [ "${LLOG_SPIN_FULL:-0}" = 1 ]; then
	configs+=(
		"race-big:-DK1=1"                 # p0 x 2, p1 x 1, llog_flush, shutdown concurrent
		"late-big:-DLATE_SHUTDOWN"        # p0 x 2, p1 x 2, llog_flush, shutdown after them
	)
fi
if [ -n "${LLOG_SPIN_CONFIGS:-}" ]; then
	IFS=';' read -r -a configs <<<"$LLOG_SPIN_CONFIGS"
fi

memlim=2048
[ "${LLOG_SPIN_FULL:-0}" = 1 ] && memlim=8192

echo "model: $model (expect: $expect)"
echo "checks: assertions (no lost / duplicated / reordered record, flush barrier after"
echo "        everything pushed before it, also on a closed list; per-thread order"
echo "        across shutdown) and invalid end states (no lost wake-up)"

# Builds configuration $1 (spin -a, gcc) in $tmp/c$1; on failure leaves
# build.fail naming the step. Run in the background while the previous
# configuration's search runs, which hides most of the compile time.
build_cfg() {
	local d="$tmp/c$1" f=${configs[$1]#*:}
	mkdir "$d" && cp "$tmp"/src/*.pml "$d"/ && cd "$d" || { echo copy >"$d/build.fail"; return; }
	# shellcheck disable=SC2086
	if ! spin $f -a "$base" >spin.out 2>&1; then
		echo "spin -a" >build.fail
	elif ! gcc -O1 -w -DSAFETY -DCOLLAPSE -DMEMLIM=$memlim -o pan pan.c 2>gcc.out; then
		echo gcc >build.fail
	fi
}

nerr_total=0
ncfg=${#configs[@]}
(build_cfg 0) &
bpid=$!
for ((i = 0; i < ncfg; i++)); do
	cfg=${configs[$i]}
	name=${cfg%%:*}
	flags=${cfg#*:}
	wait "$bpid"
	if ((i + 1 < ncfg)); then
		(build_cfg $((i + 1))) &
		bpid=$!
	fi
	cd "$tmp/c$i" || exit 2
	if [ -f build.fail ]; then
		step=$(cat build.fail)
		[ "$step" = gcc ] && cat gcc.out
		[ "$step" = "spin -a" ] && cat spin.out
		echo "FAIL: $step failed ($name)"
		exit 1
	fi
	start=$(date +%s.%N)
	./pan -m20000 >pan.out 2>&1
	end=$(date +%s.%N)
	errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.out | head -n1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' pan.out | head -n1)
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' pan.out | head -n1)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	printf '  %-13s %-48s errors=%s states=%s depth=%s %ss\n' \
		"$name" "$flags" "${errors:-?}" "${states:-?}" "${depth:-?}" "$secs"
	if [ -z "$errors" ]; then
		tail -n 20 pan.out
		echo "FAIL: could not parse pan's result ($name)"
		exit 1
	fi
	# pan stops at the first error ("Search not completed" then is
	# normal); a search without errors must have run to completion.
	if [ "$errors" = 0 ] &&
		grep -Eqi 'max search depth too small|search not completed|out of memory|reached -DMEMLIM' pan.out; then
		grep -Ei 'depth too small|not completed|out of memory|MEMLIM' pan.out | head -n 5
		echo "FAIL: incomplete search ($name)"
		exit 1
	fi
	if [ "$errors" != 0 ]; then
		nerr_total=$((nerr_total + errors))
		grep -E '^pan:[0-9]*: ' pan.out | head -n 3 | sed 's/^/    /'
		if [ -f "$base.trail" ]; then
			echo "    counterexample ($name): events replayed by spin -t (printf MSC lines):"
			# shellcheck disable=SC2086
			spin $flags -t "$base" >trail.out 2>&1
			grep -E 'MSC:|assert|invalid|Error' trail.out | sed 's/^ *//' | tail -n 30 | sed 's/^/      /'
			echo "    last steps (spin -t -p):"
			# shellcheck disable=SC2086
			spin $flags -t -p "$base" 2>&1 | grep -E '^ *[0-9]+:' | grep -v 'MSC:' |
				tail -n 12 | sed 's/^/      /'
			echo "    replay: cd to a copy of tests/model; spin -a $flags $base; gcc -DSAFETY -o pan pan.c; ./pan; spin $flags -t -p $base"
		fi
		if [ "$expect" = fail ]; then
			echo "OK: the model fails as expected ($name)"
			exit 0
		fi
		echo "FAIL: $base has errors ($name)"
		exit 1
	fi
done

if [ "$expect" = pass ]; then
	echo "OK: all ${#configs[@]} configurations verified (errors: 0, complete search)"
	exit 0
fi
echo "FAIL: expected spin to find an error in $base, none found"
exit 1
