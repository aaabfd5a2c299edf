#!/usr/bin/env bash
# bench/stall.sh - a stalled syslog collector (or a blocked callback sink)
# against the file sink alone, interleaved, in one run.
#
#   bash bench/stall.sh [--records N] [--reps N]
#
# Each rep runs every mode of llog_stall (bench/stall.c) once, in a process
# of its own, in turn; prints each run, then per mode the median seconds of
# the LOG calls and its ratio to the file sink alone, and checks that every
# file holds every record (zstdcat | wc -l). Numbers are reported, never
# asserted.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
records=300000 reps=5
while (($#)); do
	case $1 in
	--records) records=$2; shift ;;
	--reps) reps=$2; shift ;;
	*) echo "usage: $0 [--records N] [--reps N]" >&2; exit 2 ;;
	esac
	shift
done
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLOG_BUILD_BENCH=ON \
	-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" --target llog_stall --parallel "$(nproc)" >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llog-stall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
modes=(file stalled stalled-inline blocked-cb)
echo "mode records log_s rec_per_s written queue_dropped sink_lost flush_s"
for ((r = 0; r < reps; r++)); do
	for m in "${modes[@]}"; do
		f=$tmp/$m-$r.zst
		line=$("$build/bench/llog_stall" -m "$m" -n "$records" -f "$f" 2>/dev/null)
		echo "$line"
		echo "$line" >>"$tmp/all"
		lines=$(zstdcat "$f" | wc -l)
		if ((lines != records)); then
			echo "error: $f holds $lines records, not $records" >&2
			exit 1
		fi
		rm -f "$f"
	done
done
echo
echo "| mode | median s of the LOG calls | ratio to file alone | median rec/s |"
echo "|---|---|---|---|"
# median FIELD MODE: the median of one field over a mode's runs.
median() {
	awk -v m="$2" -v f="$1" '$1 == m { print $f }' "$tmp/all" | sort -g |
		awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
base=$(median 3 file)
for m in "${modes[@]}"; do
	s=$(median 3 "$m")
	printf '| %s | %s | %s | %s |\n' "$m" "$s" "$(awk -v a="$s" -v b="$base" 'BEGIN { printf "%.2f", a / b }')" "$(median 4 "$m")"
done
echo "(every file checked: $records records each)"
