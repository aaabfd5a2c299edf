#!/usr/bin/env bash
# bench/caller_cost.sh - the caller's instructions per LOG call,
# measured with callgrind on llog_bench's throughput mode.
#
#   bash bench/caller_cost.sh [--baseline REV] [CALLS]     default 200000
#
# Builds llog_bench (and llog_cxx_bench, the same program as C++: its rows
# "now, C++") in Release with -g into build/prof (and, with
# --baseline, REV's llog_bench in a worktree, build/prof-base), runs
#   valgrind --tool=callgrind --separate-threads=yes \
#     build/prof/bench/llog_bench tput -t 1 -m MSG -n CALLS -f FILE
# for each message (static, fmt, kv) and prints, for the producer thread
# only (the thread file holding bench_run_worker), per call:
#   - llog's entry points, inclusive: every call the producer's loop makes
#     (llog__log_t for a typed call, llog__log or llog__log_kv otherwise;
#     with the call site's own path, llog/detail.h, the calls it makes
#     out of line: the library on its rare paths, memchr for a long
#     string), llog_thread_prepare excepted;
#   - the macro's own code inlined in the caller (the lines of llog.h and
#     llog/detail.h: the level check, a typed call's temporaries and
#     slots, the call site's own path).
# The throughput mode keeps the ring past half full at times, so a share
# of the calls also wakes the flusher (as a busy service's would). Counts
# are exact and repeatable, unlike times on a shared machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
baseline=""
if [[ ${1:-} == --baseline ]]; then
	baseline=$2
	shift 2
fi
n=${1:-200000}
command -v valgrind >/dev/null || bash scripts/deps.sh bench >&2
flags=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DCMAKE_CXX_FLAGS=-g -DLLOG_BUILD_BENCH=ON -DLLOG_BUILD_TESTS=OFF
	-DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=OFF -DLLOG_BENCH_PEERS= -DLLOG_BENCH_NANOLOG_RUNTIME=)
cmake -S . -B build/prof "${flags[@]}" >&2
cmake --build build/prof --parallel 2 --target llog_bench llog_cxx_bench >&2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
builds=(build/prof)
names=(now)
if [[ -n $baseline ]]; then
	rev=$(git rev-parse --short "$baseline^{commit}")
	git worktree add --detach "$out/src" "$rev" >&2
	# a fresh build: its source is a new temporary worktree each run
	rm -rf build/prof-base
	cmake -S "$out/src" -B build/prof-base "${flags[@]}" >&2
	cmake --build build/prof-base --parallel 2 --target llog_bench >&2
	git worktree remove --force "$out/src"
	builds=(build/prof-base build/prof)
	names=("$rev" now)
fi

# per_call DIR MSG [PROGRAM]: "entry macro" instructions per call
per_call() {
	local f pf=""
	rm -f "$out"/cg.*
	valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.%p" \
		"$1/bench/${3:-llog_bench}" tput -t 1 -m "$2" -n "$n" -f "$out/x.zst" >/dev/null 2>"$out/vg.txt"
	for f in "$out"/cg.*-*; do
		callgrind_annotate --tree=calling --inclusive=yes "$f" >"$f.txt" 2>/dev/null
		grep -q 'bench_common\.h:bench_run_worker' "$f.txt" && pf=$f
	done
	[[ -n $pf ]] || { echo "caller_cost: no producer thread found" >&2; exit 1; }
	# every call the producer's loop makes, inclusive, but the thread's
	# llog_thread_prepare: llog's entry points (the macro's call, which
	# the compiler files under the calling line or under llog/detail.h's
	# inlined lines) and what the call site's own path calls (memchr)
	entry=$(awk '/\*  .*:bench_run_worker/ { p = 1; next }
		p && /^ *[0-9,]+ .*  >   / && !/llog_thread_prepare/ { gsub(",", "", $1); s += $1; next }
		/\*  / { p = 0 } END { print s + 0 }' "$pf.txt")
	macro=$(callgrind_annotate "$pf" 2>/dev/null |
		awk '/include\/llog(\/detail)?\.h:bench_run_worker/ && !/=>/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	awk -v n="$n" -v e="$entry" -v m="$macro" 'BEGIN { printf "%.0f %.0f", e / n, m / n }'
}

printf "| message | build | llog's entry points, inclusive | the macro, inlined in the caller | total |\n|---|---|---|---|---|\n"
for msg in static fmt kv; do
	for i in "${!builds[@]}"; do
		read -r e m <<<"$(per_call "${builds[$i]}" "$msg")"
		printf "| %s | %s | %s | %s | %s |\n" "$msg" "${names[$i]}" "$e" "$m" $((e + m))
	done
	read -r e m <<<"$(per_call build/prof "$msg" llog_cxx_bench)"
	printf "| %s | now, C++ | %s | %s | %s |\n" "$msg" "$e" "$m" $((e + m))
done
