#!/usr/bin/env bash
# bench/shards.sh - llog with one queue head against a sharded queue
# (llog_config.queue_shards, docs/architecture/queue.md 9): the same llog_bench
# binary, LLOG_BENCH_SHARDS=1 and =HEADS taking turns in one run.
#
#   bash bench/shards.sh [--heads N] [--reps N] [--threads "1 2 4"]
#                        [--bursts N] [--records N]
#
# Defaults: 4 heads, 3 repetitions, 1, 2 and 4 threads, 1000 bursts of 20
# calls per thread (latency), 1,000,000 records (throughput). For each
# thread count: bursts (2 ms apart), warm (50 us gaps for one thread,
# 200 us for more, as bench/run.sh) and throughput to a zstd file, the
# fmt message; prints the median over the repetitions of p50 / p99 (ns
# per call) and of records/s, and the sharded queue's ratio to one head.
# Every throughput file is read back with llogcat: all records, or FAIL.
# The producers contend for the head only when they log at the same
# moment: on a 2-vCPU machine that is rare in bursts; bench/push_contention
# isolates the push itself.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
heads=4 reps=3 threads="1 2 4" bursts=1000 records=1000000
while (($#)); do
	case $1 in
	--heads) heads=$2; shift ;;
	--reps) reps=$2; shift ;;
	--threads) threads=$2; shift ;;
	--bursts) bursts=$2; shift ;;
	--records) records=$2; shift ;;
	*) echo "usage: $0 [--heads N] [--reps N] [--threads LIST] [--bursts N] [--records N]" >&2; exit 2 ;;
	esac
	shift
done

build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLOG_BUILD_BENCH=ON -DLLOG_BUILD_TESTS=OFF \
	-DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=ON -DLLOG_BENCH_PEERS= \
	-DLLOG_BENCH_NANOLOG_RUNTIME= >&2
cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 2)" --target llog_bench llogcat >&2
work=$build/files
mkdir -p "$work"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

for rep in $(seq 1 "$reps"); do
	for t in $threads; do
		gap=50
		((t > 1)) && gap=200
		for h in 1 "$heads"; do
			f=$work/shards-$h.log.zst
			run() { LLOG_BENCH_SHARDS=$h "$build/bench/llog_bench" "$@" -t "$t" -m fmt -f "$f" | sed "s/^/heads=$h /" | tee -a "$raw" >&2; }
			run burst -n "$bursts"
			run warm -n "$bursts" -g "$gap"
			run tput -n "$records"
			lines=$("$build/tools/llogcat" "$f" | wc -l)
			if [[ $lines != "$records" ]]; then
				echo "shards: FAIL: $h heads, $t threads: $lines records of $records" >&2
				exit 1
			fi
		done
	done
done

awk -v heads="$heads" '
function val(line, k) { line = " " line; return match(line, " " k "=[^ ]*") ? substr(line, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "" }
function median(key,   n, a, i, j, t) {
	n = split(samples[key], a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	h = val($0, "heads"); m = val($0, "mode"); t = val($0, "threads")
	if (m == "tput") samples[t SUBSEP m SUBSEP h SUBSEP "rps"] = samples[t SUBSEP m SUBSEP h SUBSEP "rps"] " " val($0, "rps")
	else {
		samples[t SUBSEP m SUBSEP h SUBSEP "p50"] = samples[t SUBSEP m SUBSEP h SUBSEP "p50"] " " val($0, "p50")
		samples[t SUBSEP m SUBSEP h SUBSEP "p99"] = samples[t SUBSEP m SUBSEP h SUBSEP "p99"] " " val($0, "p99")
	}
	seen[t] = 1
}
END {
	printf "| threads | case | 1 head p50 / p99 ns, or M records/s | %d heads | ratio (heads / 1) |\n", heads
	print "|---|---|---|---|---|"
	for (t = 1; t <= 64; t++) {
		if (!(t in seen)) continue
		split("burst warm", ms, " ")
		for (i = 1; i <= 2; i++) {
			m = ms[i]
			a50 = median(t SUBSEP m SUBSEP 1 SUBSEP "p50"); a99 = median(t SUBSEP m SUBSEP 1 SUBSEP "p99")
			b50 = median(t SUBSEP m SUBSEP heads SUBSEP "p50"); b99 = median(t SUBSEP m SUBSEP heads SUBSEP "p99")
			printf "| %d | %s | %.1f / %.1f | %.1f / %.1f | %.2f / %.2f |\n", t, m, a50, a99, b50, b99, b50 / a50, b99 / a99
		}
		a = median(t SUBSEP "tput" SUBSEP 1 SUBSEP "rps"); b = median(t SUBSEP "tput" SUBSEP heads SUBSEP "rps")
		printf "| %d | throughput | %.2f | %.2f | %.2f |\n", t, a / 1e6, b / 1e6, b / a
	}
}' "$raw"
