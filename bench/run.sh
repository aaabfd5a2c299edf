#!/usr/bin/env bash
# bench/run.sh - llog against spdlog, side by side, in one run (issue 7).
#
#   bash bench/run.sh            full run: 1, 2 and 4 threads, 5 repeats
#   bash bench/run.sh --quick    smoke test: seconds, 1 thread, 1 repeat;
#                                checks only that llog's file has every record
#   options: --reps N  --bursts N (per thread, latency)  --records N (throughput)
#            --threads "1 2 4"  --out DIR (default bench/results)
#
# Installs what it needs (scripts/deps.sh bench: g++, libspdlog-dev,
# gnuplot-nox), builds in Release into build/bench, runs llog_bench and
# spdlog_bench (same modes, same command line: bench/bench_common.h), each
# measurement in a process of its own, and prints a markdown table (also
# written to OUT/latest.md) and plots the caller latency (OUT/latency.png).
# Numbers are reported, never asserted. See bench/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0 reps=5 bursts=1000 records=1000000 threads="1 2 4" out=bench/results
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=$2; shift ;;
	--bursts) bursts=$2; shift ;;
	--records) records=$2; shift ;;
	--threads) threads=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: $0 [--quick] [--reps N] [--bursts N] [--records N] [--threads LIST] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
if ((quick)); then
	reps=1 bursts=100 records=100000 threads=1
	[[ $out == bench/results ]] && out=build/bench/quick
fi

bash scripts/deps.sh bench >&2
build=build/bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLOG_BUILD_BENCH=ON \
	-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=ON >&2
cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 2)" \
	--target llog_bench spdlog_bench llogcat >&2
bin=$build/bench
work=$build/files # a real directory on disk (not /tmp, which may be tmpfs)
mkdir -p "$work" "$out"
raw=$out/raw.txt
: >"$raw"

# one LOGGER ARGS...: run one measurement in its own process; appends its line.
one() {
	local logger=$1 ext=log
	shift
	[[ $logger == llog ]] && ext=log.zst
	"$bin/${logger}_bench" "$@" -f "$work/$logger.$ext" | sed "s/^/rep=$rep /" | tee -a "$raw" >&2
}

echo "bench: reps=$reps bursts=$bursts records=$records threads=$threads" >&2
for rep in $(seq 1 "$reps"); do
	for t in $threads; do
		for m in fmt static; do
			for mode in burst each; do
				for lg in llog spdlog; do
					curve=()
					[[ $rep == 1 && $t == "${threads%% *}" && $m == fmt ]] &&
						curve=(-c "$out/curve-$mode-$lg.dat")
					one $lg $mode -t "$t" -m $m -n "$bursts" "${curve[@]}"
				done
			done
			for lg in llog spdlog; do
				one $lg tput -t "$t" -m $m -n "$records"
				if [[ $rep == 1 && $t == "${threads%% *}" ]]; then
					# size of the file as plain text, and (llog) the record count
					if [[ $lg == llog ]]; then
						text=$(zstdcat "$work/llog.log.zst" | wc -c)
						lines=$("$build/tools/llogcat" "$work/llog.log.zst" | wc -l)
					else
						text=$(wc -c <"$work/spdlog.log")
						lines=$(wc -l <"$work/spdlog.log")
					fi
					echo "rep=1 logger=$lg mode=text threads=$t msg=$m text_bytes=$text lines=$lines records=$records" | tee -a "$raw" >&2
					if [[ $lines != "$records" ]]; then
						echo "bench: FAIL: $lg wrote $lines records of $records" >&2
						exit 1
					fi
				fi
			done
		done
		for lg in llog spdlog; do
			one $lg tput -d -t "$t" -m fmt -n "$records"
		done
	done
done
rm -rf "$work"

table=$out/latest.md
awk -v reps="$reps" -v bursts="$bursts" -v records="$records" -v date="$(date -u +%Y-%m-%d)" \
	-v cpu="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)" -v ncpu="$(nproc)" '
function val(line, key,   i, n, kv) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == key) return kv[2] }
	return ""
}
function add(k, v) { cnt[k]++; vals[k, cnt[k]] = v + 0 }
function med(k,   n, i, j, a, t) {
	n = cnt[k]; if (n == 0) return ""
	for (i = 1; i <= n; i++) a[i] = vals[k, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	lo = a[1]; hi = a[n]
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmtn(x) {
	if (x >= 1e6) return sprintf("%.2fM", x / 1e6)
	if (x >= 1e4) return sprintf("%.0fk", x / 1e3)
	if (x >= 100) return sprintf("%.0f", x)
	return sprintf("%.1f", x)
}
function cell(k,   m) {
	m = med(k); if (m == "") return "-"
	if (cnt[k] == 1) return fmtn(m)
	return fmtn(m) " (" fmtn(lo) "-" fmtn(hi) ")"
}
function ratio(a, b,   x, y) {
	x = med(a); y = med(b)
	if (x == "" || y == "" || y == 0) return "-"
	return sprintf("%.2f", x / y)
}
{
	lg = val($0, "logger"); mode = val($0, "mode"); t = val($0, "threads"); m = val($0, "msg")
	if (mode == "" ) next
	T[t] = 1; M[m] = 1
	if (mode == "burst" || mode == "each") {
		split("p50 p90 p99 p999 max timer", P, " ")
		for (i = 1; i <= 6; i++) add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP P[i], val($0, P[i]))
	} else if (mode == "tput" || mode == "drop") {
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "rps", val($0, "rps"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "rss", val($0, "rss_kb"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "bytes", val($0, "bytes"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "dropped", val($0, "dropped"))
	} else if (mode == "text") {
		add("text" SUBSEP lg SUBSEP t SUBSEP m, val($0, "text_bytes"))
	}
}
END {
	nt = 0; for (t in T) tl[++nt] = t + 0
	for (i = 2; i <= nt; i++) { x = tl[i]; for (j = i - 1; j >= 1 && tl[j] > x; j--) tl[j + 1] = tl[j]; tl[j + 1] = x }
	printf "## llog vs spdlog (%s, %s, %s CPUs; %d repeats: median (min-max))\n\n", date, cpu, ncpu, reps
	for (mi = 1; mi <= 2; mi++) {
		mode = mi == 1 ? "burst" : "each"
		if (mode == "burst")
			printf "### 1a. Caller latency, ns per call: bursts of 20 timed with rdtsc, 2.0-2.2 ms apart (%d bursts per thread)\n\n", bursts
		else
			printf "### 1b. Caller latency, ns per call: each call timed alone (lfence;rdtsc ... rdtscp;lfence, overhead %s ns included)\n\n", cell("each" SUBSEP "llog" SUBSEP tl[1] SUBSEP "fmt" SUBSEP "timer")
		print "| threads | message | logger | p50 | p90 | p99 | p99.9 | max |"
		print "|---|---|---|---|---|---|---|---|"
		for (ti = 1; ti <= nt; ti++) for (m in M) {
			t = tl[ti]
			for (li = 1; li <= 3; li++) {
				lg = li == 1 ? "llog" : li == 2 ? "spdlog" : "llog/spdlog"
				printf "| %d | %s | %s |", t, m, lg
				split("p50 p90 p99 p999 max", P, " ")
				for (i = 1; i <= 5; i++) {
					if (li < 3) printf " %s |", cell(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP P[i])
					else printf " %s |", ratio(mode SUBSEP "llog" SUBSEP t SUBSEP m SUBSEP P[i], mode SUBSEP "spdlog" SUBSEP t SUBSEP m SUBSEP P[i])
				}
				printf "\n"
			}
		}
		printf "\n"
	}
	printf "### 2. End-to-end throughput, records/s (%d records back to back, until the last is on disk); 4. peak RSS, KiB\n\n", records
	print "| threads | message | llog rec/s | spdlog rec/s | llog/spdlog | llog RSS | spdlog RSS | llog/spdlog |"
	print "|---|---|---|---|---|---|---|---|"
	for (ti = 1; ti <= nt; ti++) for (m in M) {
		t = tl[ti]; a = "tput" SUBSEP "llog" SUBSEP t SUBSEP m; b = "tput" SUBSEP "spdlog" SUBSEP t SUBSEP m
		printf "| %d | %s | %s | %s | %s | %s | %s | %s |\n", t, m, cell(a SUBSEP "rps"), cell(b SUBSEP "rps"), ratio(a SUBSEP "rps", b SUBSEP "rps"), cell(a SUBSEP "rss"), cell(b SUBSEP "rss"), ratio(a SUBSEP "rss", b SUBSEP "rss")
	}
	printf "\n### 3. Bytes on disk per record (%d threads; plain text = the same records as text lines)\n\n", tl[1]
	print "| message | llog (zstd) | llog plain text | text/llog | spdlog (text) | llog/spdlog |"
	print "|---|---|---|---|---|---|"
	for (m in M) {
		t = tl[1]; a = "tput" SUBSEP "llog" SUBSEP t SUBSEP m; b = "tput" SUBSEP "spdlog" SUBSEP t SUBSEP m
		lb = med(a SUBSEP "bytes") / records; sb = med(b SUBSEP "bytes") / records
		lt = med("text" SUBSEP "llog" SUBSEP t SUBSEP m) / records
		printf "| %s | %.1f | %.1f | %.1f | %.1f | %.3f |\n", m, lb, lt, lt / lb, sb, lb / sb
	}
	printf "\n### 5. Overflow by dropping (llog: LLOG_OVERFLOW_DROP, 16 KiB arena; spdlog: overrun_oldest, 256-slot queue), %d records\n\n", records
	print "| threads | llog calls/s | llog dropped | spdlog calls/s | spdlog dropped | llog/spdlog calls/s |"
	print "|---|---|---|---|---|---|"
	for (ti = 1; ti <= nt; ti++) {
		t = tl[ti]; a = "drop" SUBSEP "llog" SUBSEP t SUBSEP "fmt"; b = "drop" SUBSEP "spdlog" SUBSEP t SUBSEP "fmt"
		printf "| %d | %s | %s (%.0f%%) | %s | %s (%.0f%%) | %s |\n", t, cell(a SUBSEP "rps"), cell(a SUBSEP "dropped"), 100 * med(a SUBSEP "dropped") / records, cell(b SUBSEP "rps"), cell(b SUBSEP "dropped"), 100 * med(b SUBSEP "dropped") / records, ratio(a SUBSEP "rps", b SUBSEP "rps")
	}
}' "$raw" >"$table"
cat "$table"

if command -v gnuplot >/dev/null 2>&1 && [[ -s $out/curve-burst-llog.dat ]]; then
	gnuplot <<-GP
		set terminal pngcairo size 1000,600 noenhanced
		set output "$out/latency.png"
		set title "Caller latency, 1 thread, LOG_INFO(\"request %d took %.3f ms from %s\")"
		set logscale x
		set xlabel "ns per call (log scale)"
		set ylabel "percentile"
		set yrange [0:100]
		set key bottom right
		set grid
		plot "$out/curve-burst-llog.dat" using 1:2 with lines lw 2 title "llog, (a) bursts of 20", \
		     "$out/curve-burst-spdlog.dat" using 1:2 with lines lw 2 title "spdlog, (a) bursts of 20", \
		     "$out/curve-each-llog.dat" using 1:2 with lines lw 2 dt 2 title "llog, (b) each call", \
		     "$out/curve-each-spdlog.dat" using 1:2 with lines lw 2 dt 2 title "spdlog, (b) each call"
	GP
	echo "bench: plot in $out/latency.png" >&2
fi
