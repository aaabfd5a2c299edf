#!/usr/bin/env bash
# bench/flusher_cost.sh - the flusher's instructions per record, split by
# stage, measured with callgrind on llog_bench's throughput mode.
#
#   bash bench/flusher_cost.sh [RECORDS] [bin] [kv] [own] [nowriter] [level=N]
#                                                       RECORDS: default 200000
#
# With "nowriter", the file sink compresses and writes on the flusher
# (LLOG_BENCH_FILE_WRITER=flusher: LLOG_FILE_WRITER_FLUSHER) instead of
# on its writer thread.
# With "own", the file sink runs on a thread of its own (llog_bench's
# LLOG_BENCH_SINK_THREAD=own: LLOG_SINK_THREAD_OWN, its queue BLOCK): the
# flusher renders each record's message and copies the entry into the
# sink's queue (llog__sinkq_put); the line, the binary record and zstd are
# the sink's thread's, whose total per record is printed after the table.
# With level=N, the file's zstd level is N (LLOG_BENCH_ZSTD_LEVEL; negative
# levels are zstd's fast ones) instead of the sink's default.
# With "kv", the record is llog_bench's -m kv (the fmt record's values as
# three fields: an int, a double, a string) instead of -m fmt, and the text
# split shows the fields' share (llog__line_put_fields).
# With "bin", the same with a binary file sink (llog_bin_bench):
# the stages are then zstd, the record's capture taken from the arena
# (llog__render_capture_run for a record of a run, llog__render_capture_rec
# for one handed alone), the sink's write of it (file_write_run for a run,
# file_write_rec alone: the chunk's bookkeeping and the encoding) and, of
# that, packing its arguments (llog__pack); where the record goes as an
# entry instead (a queued sink, "own"), encoding the entry
# (llog__bin_encode).
#
# Builds llog_bench in Release with -g into build/prof, runs
#   valgrind --tool=callgrind --separate-threads=yes \
#     build/prof/bench/llog_bench tput -t 1 -m fmt -n RECORDS -f FILE
# and prints, for the flusher thread only (the thread file holding
# flusher_main), the inclusive instruction counts divided by RECORDS:
# the whole flusher, zstd and the write where the flusher does them
# (llog__file_write_chunk: the final llog_flush's frame; an ordinary round's
# frames are the file sink's writer thread's, whose total per record is
# printed after the table), rendering the message
# (llog__render_record*), building the line (llog__line_format) and the
# rest. Counts are exact and repeatable, unlike times on a shared machine.
# With FLUSHER_COST_KEEP=DIR the callgrind outputs stay in DIR (for
# callgrind_annotate --auto=yes on the flusher's thread file).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n=${1:-200000}
prog=llog_bench
mode=fmt
for a in "${@:2}"; do
	case $a in
	bin) prog=llog_bin_bench ;;
	kv) mode=kv ;;
	level=*) export LLOG_BENCH_ZSTD_LEVEL=${a#level=} ;;
	own) export LLOG_BENCH_SINK_THREAD=own ;;
	nowriter) export LLOG_BENCH_FILE_WRITER=flusher ;;
	*) echo "usage: $0 [RECORDS] [bin] [kv] [own] [nowriter] [level=N]" >&2; exit 2 ;;
	esac
done
command -v valgrind >/dev/null || bash scripts/deps.sh bench >&2
cmake -S . -B build/prof -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-g -DLLOG_BUILD_BENCH=ON \
	-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=OFF \
	-DLLOG_BENCH_PEERS= -DLLOG_BENCH_NANOLOG_RUNTIME= >&2
cmake --build build/prof --parallel 2 --target "$prog" >&2
out=$(mktemp -d)
if [[ -n ${FLUSHER_COST_KEEP:-} ]]; then # keep the outputs there (callgrind_annotate)
	rm -rf "$out"
	out=$FLUSHER_COST_KEEP
	mkdir -p "$out"
	rm -f "$out"/cg.*
else
	trap 'rm -rf "$out"' EXIT
fi
valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg.%p" \
	"build/prof/bench/$prog" tput -t 1 -m "$mode" -n "$n" -f "$out/x.zst" >&2 2>"$out/vg.txt"
for f in "$out"/cg.*-*; do
	callgrind_annotate --inclusive=yes "$f" >"$f.txt" 2>/dev/null
	grep -q 'flusher_main' "$f.txt" && fl=$f.txt
	grep -q 'sinkq_worker\.c:worker_main' "$f.txt" && wk=$f.txt
	grep -q 'file_writer\.c:writer_main' "$f.txt" && wr=$f.txt
done
# the sink's own thread, with "own": its whole work per record
own_line() {
	[[ -n ${wk:-} ]] || return 0
	awk -v n="$n" '/sinkq_worker\.c:worker_main/ && !/=>/ { gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 }
		END { printf "\nThe sink'"'"'s own thread (own): %.0f instructions per record (the line or the binary record, zstd, the write).\n", m / n }' "$wk"
}
# the file sink's writer thread: its whole work per record
writer_line() {
	[[ -n ${wr:-} ]] || return 0
	awk -v n="$n" '/file_writer\.c:writer_main/ && !/=>/ { gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 }
		END { printf "\nThe file sink'"'"'s writer thread: %.0f instructions per record (zstd and the write of the rounds'"'"' frames).\n", m / n }' "$wr"
}
# inclusive FUNCTION: the largest inclusive count of a function whose name
# matches, from the flusher's annotation
inclusive() {
	awk -v pat="$1" '$0 ~ pat && $0 !~ /=>/ { gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 }
		END { print m + 0 }' "$fl"
}
total=$(inclusive 'flusher\.c:flusher_main')
zstd=$(inclusive 'file_frames\.c:llog__file_write_chunk ')
if [[ $prog == llog_bin_bench ]]; then
	enc=$(inclusive 'file_bin\.c:llog__bin_encode ')
	# a run's (file_write_run, llog__render_capture_run) or a record's
	wrec=$(($(inclusive 'file\.c:file_write_rec( |$)') + $(inclusive 'file\.c:file_write_run( |$)')))
	cap=$(($(inclusive 'render\.c:llog__render_capture_rec ') + $(inclusive 'render\.c:llog__render_capture_run ')))
	pack=$(inclusive 'binpack\.c:llog__pack ')
	awk -v n="$n" -v t="$total" -v z="$zstd" -v e="$enc" -v w="$wrec" -v c="$cap" -v k="$pack" \
		-v b="$(stat -c %s "$out/x.zst")" -v m="$mode" 'BEGIN {
		printf "| binary file, flusher, per %s record (%d records, %.2f bytes each) | instructions | share |\n|---|---|---|\n", m, n, b / n
		printf "| total | %.0f | 100 %% |\n", t / n
		printf "| zstd and the write, on the flusher (llog__file_write_chunk) | %.0f | %.0f %% |\n", z / n, 100 * z / t
		if (w > 0) {
			printf "| the capture from the arena (llog__render_capture_run, _rec) | %.0f | %.0f %% |\n", c / n, 100 * c / t
			printf "| the sink'"'"'s write: chunk and encoding (file_write_run, _rec) | %.0f | %.0f %% |\n", w / n, 100 * w / t
			e = w + c
		} else {
			printf "| encoding the record (llog__bin_encode) | %.0f | %.0f %% |\n", e / n, 100 * e / t
		}
		printf "| of which packing the arguments (llog__pack) | %.0f | %.0f %% |\n", k / n, 100 * k / t
		printf "| the rest (list, rounds, sink loop, clock, release) | %.0f | %.0f %% |\n", (t - z - e) / n, 100 * (t - z - e) / t
	}'
	own_line
	writer_line
	exit 0
fi
render=$(inclusive 'render\.c:llog__render_record')
line=$(inclusive 'line\.c:llog__line_format ')
fields=$(inclusive 'line_fields\.c:llog__line_put_fields ')
awk -v n="$n" -v t="$total" -v z="$zstd" -v r="$render" -v l="$line" -v f="$fields" -v m="$mode" \
	-v b="$(stat -c %s "$out/x.zst")" 'BEGIN {
	printf "| flusher, per %s record (%d records, %.2f bytes each) | instructions | share |\n|---|---|---|\n", m, n, b / n
	printf "| total | %.0f | 100 %% |\n", t / n
	printf "| zstd and the write, on the flusher (llog__file_write_chunk) | %.0f | %.0f %% |\n", z / n, 100 * z / t
	printf "| rendering the message (llog__render_record) | %.0f | %.0f %% |\n", r / n, 100 * r / t
	printf "| building the line (llog__line_format) | %.0f | %.0f %% |\n", l / n, 100 * l / t
	if (f > 0)
		printf "| of which the fields (llog__line_put_fields) | %.0f | %.0f %% |\n", f / n, 100 * f / t
	printf "| the rest (sink calls, rounds, release) | %.0f | %.0f %% |\n", (t - z - r - l) / n, 100 * (t - z - r - l) / t
}'
own_line
writer_line
