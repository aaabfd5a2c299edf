#!/usr/bin/env bash
# bench/run.sh - llog against spdlog (async and synchronous) and, with
# --peers, quill, fmtlog and NanoLog, side by side, in one run.
#
#   bash bench/run.sh            full run: 1, 2 and 4 threads, 5 repeats
#   bash bench/run.sh --quick    smoke test: seconds, 1 thread, 1 repeat;
#                                checks only that llog's file has every record
#   options: --reps N  --bursts N (per thread, latency)  --records N (throughput)
#            --threads "1 2 4"  --out DIR (default bench/results)
#            --peers DIR  also build and run quill, fmtlog and NanoLog from their
#                         sources in DIR (the layout of ../shared/peers)
#            --baseline REV  also run llog as of git revision REV ("llog-base",
#                         its llog_bench built in a worktree under build/): a
#                         before/after in the same run, interleaved
#            --build DIR  use the Release build already configured in DIR with
#                         the benchmarks (the release preset's build/release,
#                         as scripts/test.sh does) instead of build/bench; not
#                         with --peers (their targets need a configure of their own)
#
# Installs what it needs (scripts/deps.sh bench: g++, libspdlog-dev,
# gnuplot-nox), builds in Release into build/bench, runs llog_bench and
# spdlog_bench (same modes, same command line: bench/bench_common.h), each
# measurement in a process of its own, and prints a markdown table (also
# written to OUT/latest.md) and plots the caller latency (OUT/latency.png).
# Numbers are reported, never asserted. See bench/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

quick=0 reps=5 bursts=1000 records=1000000 threads="1 2 4" out=bench/results peers="" baseline=""
build=build/bench given_build=""
while (($#)); do
	case $1 in
	--quick) quick=1 ;;
	--reps) reps=$2; shift ;;
	--bursts) bursts=$2; shift ;;
	--records) records=$2; shift ;;
	--threads) threads=$2; shift ;;
	--out) out=$2; shift ;;
	--peers) peers=$(cd "$2" && pwd); shift ;;
	--baseline) baseline=$2; shift ;;
	--build) build=${2%/} given_build=$2; shift ;;
	*) echo "usage: $0 [--quick] [--reps N] [--bursts N] [--records N] [--threads LIST] [--out DIR] [--peers DIR] [--baseline REV] [--build DIR]" >&2; exit 2 ;;
	esac
	shift
done
if ((quick)); then
	reps=1 bursts=100 records=100000 threads=1
	# (llog-cxx is llog's own program compiled as C++: built by the
	# release build, left out of the smoke test)
	[[ $out == bench/results ]] && out=build/bench/quick
fi

bash scripts/deps.sh bench >&2
if [[ -n $given_build ]]; then
	[[ -z $peers ]] || { echo "error: --build and --peers do not go together" >&2; exit 2; }
	grep -qx 'CMAKE_BUILD_TYPE:STRING=Release' "$build/CMakeCache.txt" 2>/dev/null &&
		grep -qx 'LLOG_BUILD_BENCH:BOOL=ON' "$build/CMakeCache.txt" || {
		echo "error: $build is not a Release build configured with LLOG_BUILD_BENCH=ON" >&2
		exit 2
	}
fi
# llog-bin: llog with a binary file sink (LLOG_FILE_BINARY, docs/file-format.md);
# llog-cxx: llog_bench compiled as C++ (llog.h's C++ side), a text file as llog's
loggers=(llog llog-cxx llog-bin spdlog spdlog-sync)
targets=(llog_bench llog_cxx_bench llog_bin_bench spdlog_bench spdlog_sync_bench llogcat filtered llog_bt_bench llog_below_bench)
peer_args=(-DLLOG_BENCH_PEERS= -DLLOG_BENCH_NANOLOG_RUNTIME=)
nanolog_rt=""
if [[ -n $peers ]]; then
	# NanoLog builds in its own tree: a copy of it, once (make keeps it).
	if [[ -d $peers/NanoLog/runtime ]]; then
		mkdir -p "$build/peers"
		[[ -d $build/peers/NanoLog ]] || cp -r "$peers/NanoLog" "$build/peers/"
		nanolog_rt=$(cd "$build/peers/NanoLog/runtime" && pwd)
		make -C "$nanolog_rt" -j"$(nproc 2>/dev/null || echo 2)" libNanoLog.a decompressor >&2
	fi
	peer_args=(-DLLOG_BENCH_PEERS="$peers" -DLLOG_BENCH_NANOLOG_RUNTIME="$nanolog_rt")
	[[ -f $peers/quill/include/quill/Backend.h ]] && loggers+=(quill) targets+=(quill_bench)
	[[ -f $peers/fmtlog/fmtlog.h ]] && loggers+=(fmtlog) targets+=(fmtlog_bench)
	[[ -n $nanolog_rt ]] && loggers+=(nanolog) targets+=(nanolog_bench)
fi
if ((quick)); then
	kept=()
	for lg in "${loggers[@]}"; do [[ $lg == llog-cxx ]] || kept+=("$lg"); done
	loggers=("${kept[@]}")
fi
[[ -n $given_build ]] ||
	cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DLLOG_BUILD_BENCH=ON \
		-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=ON "${peer_args[@]}" >&2
cmake --build "$build" --parallel "$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}" >&2
bin=$build/bench
if [[ -n $baseline ]]; then
	# llog as of REV: its own tree and build, its llog_bench beside ours
	base_rev=$(git rev-parse --short "$baseline^{commit}")
	base_tree=$build/base-src
	git worktree remove --force "$base_tree" 2>/dev/null || rm -rf "$base_tree"
	git worktree prune
	git worktree add --detach "$base_tree" "$base_rev" >&2
	# the same driver (modes, timing) for both: this tree's
	cp bench/bench_common.h "$base_tree/bench/bench_common.h"
	cmake -S "$base_tree" -B "$build/base" -DCMAKE_BUILD_TYPE=Release -DLLOG_BUILD_BENCH=ON \
		-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_EXAMPLES=OFF -DLLOG_BUILD_TOOLS=OFF \
		-DLLOG_BENCH_PEERS= -DLLOG_BENCH_NANOLOG_RUNTIME= >&2
	cmake --build "$build/base" --parallel "$(nproc 2>/dev/null || echo 2)" --target llog_bench >&2
	cp "$build/base/bench/llog_bench" "$bin/llog_base_bench"
	git worktree remove --force "$base_tree"
	loggers=(llog llog-base "${loggers[@]:1}")
fi
work=$build/files # a real directory on disk (not /tmp, which may be tmpfs)
mkdir -p "$work" "$out"
raw=$out/raw.txt
: >"$raw"

file_of() {
	case $1 in
	llog) echo "$work/llog.log.zst" ;;
	llog-base) echo "$work/llog-base.log.zst" ;;
	llog-cxx) echo "$work/llog-cxx.log.zst" ;;
	llog-bin) echo "$work/llog-bin.log.zst" ;;
	nanolog) echo "$work/nanolog.bin" ;;
	*) echo "$work/$1.log" ;;
	esac
}

# one LOGGER ARGS...: run one measurement in its own process; appends its line.
one() {
	local logger=$1
	shift
	# (llog-base's binary calls itself llog)
	"$bin/${logger//-/_}_bench" "$@" -f "$(file_of "$logger")" |
		sed "s/^/rep=$rep ${tag:-}/; s/ logger=llog / logger=$logger /" | tee -a "$raw" >&2
}

# records LOGGER: how many records its file holds, and its size as text.
records_in() {
	local f
	f=$(file_of "$1")
	case $1 in
	llog | llog-base | llog-cxx) lines=$("$build/tools/llogcat" "$f" | wc -l); text=$(zstdcat "$f" | wc -c) ;;
	llog-bin) lines=$("$build/tools/llogcat" "$f" | wc -l); text=$("$build/tools/llogcat" "$f" | wc -c) ;;
	nanolog) lines=$("$nanolog_rt/decompressor" decompress "$f" 2>/dev/null | grep -c ' NOTICE\[') ;
		text=$("$nanolog_rt/decompressor" decompress "$f" 2>/dev/null | grep ' NOTICE\[' | wc -c) ;;
	*) lines=$(wc -l <"$f"); text=$(wc -c <"$f") ;;
	esac
}

echo "bench: reps=$reps bursts=$bursts records=$records threads=$threads loggers=${loggers[*]}" >&2
for rep in $(seq 1 "$reps"); do
	for t in $threads; do
		# warm: 50 us gaps for one thread, 200 us for more (the flusher of
		# every logger then always has work, but is not saturated)
		warm_gap=50
		((t > 1)) && warm_gap=200
		for m in fmt static; do
			for mode in burst warm each cold; do
				[[ $mode == warm && $m == static ]] && continue
				# cold: one thread (the first call after caches and TLB
				# were disturbed); the smoke test, fmt and 20 bursts
				[[ $mode == cold && $t != "${threads%% *}" ]] && continue
				((quick)) && [[ $mode == cold && $m == static ]] && continue
				n=$bursts
				((quick)) && [[ $mode == cold ]] && n=20
				for lg in "${loggers[@]}"; do
					curve=() gap=()
					[[ $rep == 1 && $t == "${threads%% *}" && $m == fmt && $mode != warm && $mode != cold ]] &&
						curve=(-c "$out/curve-$mode-$lg.dat")
					[[ $mode == warm ]] && gap=(-g "$warm_gap")
					one "$lg" $mode -t "$t" -m $m -n "$n" "${curve[@]}" "${gap[@]}"
				done
			done
			for lg in "${loggers[@]}"; do
				one "$lg" tput -t "$t" -m $m -n "$records"
				if [[ $rep == 1 && $t == "${threads%% *}" ]]; then
					records_in "$lg"
					echo "rep=1 logger=$lg mode=text threads=$t msg=$m text_bytes=$text lines=$lines records=$records" | tee -a "$raw" >&2
					if [[ $lg == llog || $lg == llog-bin ]]; then
						# llogcat's rate: the file rendered to text, into /dev/null
						r0=$(date +%s%N)
						"$build/tools/llogcat" "$(file_of "$lg")" >/dev/null
						r1=$(date +%s%N)
						echo "rep=1 logger=$lg mode=render threads=$t msg=$m rps=$(awk -v n="$records" -v ns=$((r1 - r0)) 'BEGIN { printf "%.0f", n / (ns / 1e9) }')" | tee -a "$raw" >&2
					fi
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
	# The backtrace: 1 thread, the fmt message, the three
	# variants interleaved; lines tagged set=bt (table 6 only: its llog
	# runs are not table 1's).
	tag="set=bt "
	for mode in burst each; do
		for lg in llog llog-bt llog-below; do
			one "$lg" $mode -t 1 -m fmt -n "$bursts"
		done
	done
	# Structured fields: the fmt message against the same
	# information as three fields (an int, a double, a string), llog only,
	# 1 thread, interleaved; lines tagged set=kv (table 7 only).
	tag="set=kv "
	for mode in burst each; do
		for m in fmt kv; do
			one llog $mode -t 1 -m $m -n "$bursts"
		done
	done
	for m in fmt kv; do
		one llog tput -t 1 -m $m -n "$records"
		if [[ $rep == 1 ]]; then
			records_in llog
			echo "rep=1 ${tag}logger=llog mode=text threads=1 msg=$m text_bytes=$text lines=$lines records=$records" | tee -a "$raw" >&2
			if [[ $lines != "$records" ]]; then
				echo "bench: FAIL: llog ($m) wrote $lines records of $records" >&2
				exit 1
			fi
		fi
	done
	tag=""
done
rm -rf "$work"

table=$out/latest.md
awk -v reps="$reps" -v bursts="$bursts" -v records="$records" -v date="$(date -u +%Y-%m-%d)" \
	-v loggers="${loggers[*]}" \
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
# llog against the best peer for key suffix `rest` (prefix mode, then
# logger, then rest): the lowest median (latency) or the highest
# (throughput, high = 1). "0.85 (fmtlog)". Peers: every logger that is not
# llog in another form (llog-cxx, llog-bin, llog-base).
function vs_best(mode, rest, high,   i, k, x, best, bname, l) {
	best = ""; bname = ""
	for (i = 2; i <= nl; i++) {
		if (L[i] ~ /^llog-/) continue
		k = mode SUBSEP L[i] SUBSEP rest; x = med(k)
		if (x == "") continue
		if (best == "" || (high ? x > best : x < best)) { best = x; bname = L[i] }
	}
	l = med(mode SUBSEP "llog" SUBSEP rest)
	if (best == "" || l == "" || best == 0) return "-"
	return sprintf("%.2f (%s)", l / best, bname)
}
{
	lg = val($0, "logger"); mode = val($0, "mode"); t = val($0, "threads"); m = val($0, "msg")
	if (mode == "" || val($0, "set") != "") next
	T[t] = 1; M[m] = 1
	if (mode == "burst" || mode == "warm" || mode == "each" || mode == "cold") {
		split("p50 p90 p99 p999 max timer", P, " ")
		for (i = 1; i <= 6; i++) add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP P[i], val($0, P[i]))
	} else if (mode == "tput" || mode == "drop") {
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "rps", val($0, "rps"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "rss", val($0, "rss_kb"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "bytes", val($0, "bytes"))
		add(mode SUBSEP lg SUBSEP t SUBSEP m SUBSEP "dropped", val($0, "dropped"))
	} else if (mode == "text") {
		add("text" SUBSEP lg SUBSEP t SUBSEP m, val($0, "text_bytes"))
	} else if (mode == "render") {
		add("render" SUBSEP lg SUBSEP t SUBSEP m, val($0, "rps"))
	}
}
END {
	nl = split(loggers, L, " ")
	nt = 0; for (t in T) tl[++nt] = t + 0
	for (i = 2; i <= nt; i++) { x = tl[i]; for (j = i - 1; j >= 1 && tl[j] > x; j--) tl[j + 1] = tl[j]; tl[j + 1] = x }
	printf "## llog and its peers (%s, %s, %s CPUs; %d repeats: median (min-max))\n\n", date, cpu, ncpu, reps
	printf "Loggers: %s. \"llog / best\": llog'"'"'s median over the best peer'"'"'s in that column (llog-cxx, llog-bin and llog-base are not peers; below 1: llog is faster).\n\n", loggers
	split("burst warm each cold", MO, " ")
	for (mi = 1; mi <= 4; mi++) {
		mode = MO[mi]
		if (mode == "burst")
			printf "### 1a. Caller latency, ns per call: bursts of 20 timed with rdtsc, 2.0-2.2 ms apart (%d bursts per thread)\n\n", bursts
		else if (mode == "warm")
			printf "### 1b. Caller latency, ns per call, warm: bursts of 20, 50-55 us apart with 1 thread, 200-220 us with more (%d bursts per thread)\n\n", bursts
		else if (mode == "each")
			printf "### 1c. Caller latency, ns per call: each call timed alone (lfence;rdtsc ... rdtscp;lfence, overhead %s ns included)\n\n", cell("each" SUBSEP "llog" SUBSEP tl[1] SUBSEP "fmt" SUBSEP "timer")
		else
			printf "### 1d. Caller latency, cold: the first call of a burst, timed alone, after a 32 MiB sweep and a system call disturbed the caches and the TLB (timer overhead %s ns included)\n\n", cell("cold" SUBSEP "llog" SUBSEP tl[1] SUBSEP "fmt" SUBSEP "timer")
		print "| threads | message | logger | p50 | p90 | p99 | p99.9 | max |"
		print "|---|---|---|---|---|---|---|---|"
		for (ti = 1; ti <= nt; ti++) for (m in M) {
			t = tl[ti]
			if (cnt[mode SUBSEP "llog" SUBSEP t SUBSEP m SUBSEP "p50"] == 0) continue
			split("p50 p90 p99 p999 max", P, " ")
			for (li = 1; li <= nl; li++) {
				printf "| %d | %s | %s |", t, m, L[li]
				for (i = 1; i <= 5; i++) printf " %s |", cell(mode SUBSEP L[li] SUBSEP t SUBSEP m SUBSEP P[i])
				printf "\n"
			}
			if (nl > 1) {
				printf "| %d | %s | **llog / best** |", t, m
				for (i = 1; i <= 5; i++) printf " %s |", vs_best(mode, t SUBSEP m SUBSEP P[i], 0)
				printf "\n"
			}
		}
		printf "\n"
	}
	printf "### 2. End-to-end throughput, records/s (%d records back to back, until the last is on disk)\n\n", records
	printf "| threads | message |"; for (li = 1; li <= nl; li++) printf " %s |", L[li]; print " llog / best |"
	printf "|---|---|"; for (li = 1; li <= nl; li++) printf "---|"; print "---|"
	for (ti = 1; ti <= nt; ti++) for (m in M) {
		t = tl[ti]
		printf "| %d | %s |", t, m
		for (li = 1; li <= nl; li++) printf " %s |", cell("tput" SUBSEP L[li] SUBSEP t SUBSEP m SUBSEP "rps")
		printf " %s |\n", vs_best("tput", t SUBSEP m SUBSEP "rps", 1)
	}
	printf "\n### 3. Bytes on disk per record (%d threads; text = the same records as text lines; nanolog writes binary)\n\n", tl[1]
	printf "| message |"; for (li = 1; li <= nl; li++) printf " %s file | %s text |", L[li], L[li]; print ""
	printf "|---|"; for (li = 1; li <= nl; li++) printf "---|---|"; print ""
	for (m in M) {
		t = tl[1]
		printf "| %s |", m
		for (li = 1; li <= nl; li++)
			printf " %.1f | %.1f |", med("tput" SUBSEP L[li] SUBSEP t SUBSEP m SUBSEP "bytes") / records, med("text" SUBSEP L[li] SUBSEP t SUBSEP m) / records
		print ""
	}
	printf "\n### 4. Peak RSS in the throughput run, KiB\n\n"
	printf "| threads | message |"; for (li = 1; li <= nl; li++) printf " %s |", L[li]; print ""
	printf "|---|---|"; for (li = 1; li <= nl; li++) printf "---|"; print ""
	for (ti = 1; ti <= nt; ti++) for (m in M) {
		t = tl[ti]
		printf "| %d | %s |", t, m
		for (li = 1; li <= nl; li++) printf " %s |", cell("tput" SUBSEP L[li] SUBSEP t SUBSEP m SUBSEP "rss")
		print ""
	}
	printf "\n### 3b. llogcat rendering rate, records/s (the throughput run'"'"'s file into /dev/null; llog-bin: binary records formatted by llogcat)\n\n"
	print "| message | llog (text file) | llog-bin (binary file) |"
	print "|---|---|---|"
	for (m in M) printf "| %s | %s | %s |\n", m, cell("render" SUBSEP "llog" SUBSEP tl[1] SUBSEP m), cell("render" SUBSEP "llog-bin" SUBSEP tl[1] SUBSEP m)
	printf "\n### 5. Overflow by dropping (llog: LLOG_OVERFLOW_DROP, 16 KiB arena; spdlog: overrun_oldest, 256-slot queue), %d records\n\n", records
	print "| threads | llog calls/s | llog dropped | spdlog calls/s | spdlog dropped | llog/spdlog calls/s |"
	print "|---|---|---|---|---|---|"
	for (ti = 1; ti <= nt; ti++) {
		t = tl[ti]; a = "drop" SUBSEP "llog" SUBSEP t SUBSEP "fmt"; b = "drop" SUBSEP "spdlog" SUBSEP t SUBSEP "fmt"
		printf "| %d | %s | %s (%.0f%%) | %s | %s (%.0f%%) | %s |\n", t, cell(a SUBSEP "rps"), cell(a SUBSEP "dropped"), 100 * med(a SUBSEP "dropped") / records, cell(b SUBSEP "rps"), cell(b SUBSEP "dropped"), 100 * med(b SUBSEP "dropped") / records, ratio(a SUBSEP "rps", b SUBSEP "rps")
	}
}' "$raw" >"$table"
# 6. The backtrace: the caller's cost of a call kept for the backtrace
# (below the level, captured) next to an ordinary call and to the same
# call filtered out with the backtrace off; medians over the repeats.
awk -v reps="$reps" -v bursts="$bursts" '
function val(line, key,   i, n, kv) {
	n = split(line, f, " ")
	for (i = 1; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == key) return kv[2] }
	return ""
}
function med(k,   n, i, j, a, t) {
	n = cnt[k]; if (n == 0) return "-"
	for (i = 1; i <= n; i++) a[i] = vals[k, i]
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return sprintf("%.1f", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
{
	lg = val($0, "logger"); mode = val($0, "mode")
	if (val($0, "set") != "bt") next
	if (val($0, "threads") != 1 || val($0, "msg") != "fmt" || (mode != "burst" && mode != "each")) next
	for (p = 1; p <= 2; p++) { P = p == 1 ? "p50" : "p99"; k = mode SUBSEP lg SUBSEP P; cnt[k]++; vals[k, cnt[k]] = val($0, P) + 0 }
}
END {
	printf "\n### 6. Backtrace: caller latency, ns per call, 1 thread, fmt message (%d bursts; median of %d repeats)\n\n", bursts, reps
	print "llog: LOG_INFO at level INFO (written). llog-bt: LOG_DEBUG at level INFO with the backtrace on (64 records from DEBUG): captured and kept, not written. llog-below: the same LOG_DEBUG with the backtrace off (filtered out by the level check)."
	print ""
	print "| call | (a) bursts p50 | (a) bursts p99 | (b) each p50 | (b) each p99 |"
	print "|---|---|---|---|---|"
	split("llog llog-bt llog-below", V, " ")
	for (i = 1; i <= 3; i++)
		printf "| %s | %s | %s | %s | %s |\n", V[i], med("burst" SUBSEP V[i] SUBSEP "p50"), med("burst" SUBSEP V[i] SUBSEP "p99"), med("each" SUBSEP V[i] SUBSEP "p50"), med("each" SUBSEP V[i] SUBSEP "p99")
}' "$raw" >>"$table"
# 7. Structured fields: the same information as three fields
# against printf arguments; medians over the repeats.
awk -v reps="$reps" -v bursts="$bursts" -v records="$records" '
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
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(a, b,   x, y) { x = med(a); y = med(b); return (x == "" || y == "" || y == 0) ? "-" : sprintf("%.2f", x / y) }
function show(k,   x) { x = med(k); return x == "" ? "-" : sprintf("%.1f", x) }
{
	if (val($0, "set") != "kv") next
	mode = val($0, "mode"); m = val($0, "msg")
	if (mode == "burst" || mode == "each") { add(mode SUBSEP m SUBSEP "p50", val($0, "p50")); add(mode SUBSEP m SUBSEP "p99", val($0, "p99")) }
	else if (mode == "tput") { add("rps" SUBSEP m, val($0, "rps")); add("file" SUBSEP m, val($0, "bytes") / records) }
	else if (mode == "text") add("text" SUBSEP m, val($0, "text_bytes") / records)
}
END {
	printf "\n### 7. Structured fields: caller latency (ns per call) and bytes per record, 1 thread (%d bursts; median of %d repeats)\n\n", bursts, reps
	print "fmt: LOG_INFO(\"request %d took %.3f ms from %s\", i, ms, peer). kv: LOG_INFO_KV((\"request\", i, \"took_ms\", ms, \"peer\", peer), \"request done\"): the same information as an int, a double and a string field."
	print ""
	print "| call | (a) bursts p50 | (a) bursts p99 | (b) each p50 | (b) each p99 | records/s | file bytes/record | text bytes/record |"
	print "|---|---|---|---|---|---|---|---|"
	split("fmt kv", V, " ")
	for (i = 1; i <= 2; i++)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", V[i], show("burst" SUBSEP V[i] SUBSEP "p50"), show("burst" SUBSEP V[i] SUBSEP "p99"), show("each" SUBSEP V[i] SUBSEP "p50"), show("each" SUBSEP V[i] SUBSEP "p99"), show("rps" SUBSEP V[i]), show("file" SUBSEP V[i]), show("text" SUBSEP V[i])
	printf "| **kv / fmt** | %s | %s | %s | %s | %s | %s | %s |\n", ratio("burst" SUBSEP "kv" SUBSEP "p50", "burst" SUBSEP "fmt" SUBSEP "p50"), ratio("burst" SUBSEP "kv" SUBSEP "p99", "burst" SUBSEP "fmt" SUBSEP "p99"), ratio("each" SUBSEP "kv" SUBSEP "p50", "each" SUBSEP "fmt" SUBSEP "p50"), ratio("each" SUBSEP "kv" SUBSEP "p99", "each" SUBSEP "fmt" SUBSEP "p99"), ratio("rps" SUBSEP "kv", "rps" SUBSEP "fmt"), ratio("file" SUBSEP "kv", "file" SUBSEP "fmt"), ratio("text" SUBSEP "kv", "text" SUBSEP "fmt")
}' "$raw" >>"$table"
cat "$table"

if command -v gnuplot >/dev/null 2>&1 && [[ -s $out/curve-burst-llog.dat ]]; then
	plots=()
	declare -A color=([llog]="#d62728" [spdlog]="#1f77b4" [spdlog-sync]="#17becf"
		[quill]="#2ca02c" [fmtlog]="#9467bd" [nanolog]="#ff7f0e")
	for lg in "${loggers[@]}"; do
		c=${color[$lg]:-#7f7f7f}
		[[ -s $out/curve-burst-$lg.dat ]] &&
			plots+=("\"$out/curve-burst-$lg.dat\" using 1:2 with lines lw 2 lc rgb \"$c\" title \"$lg, (a) bursts of 20\"")
		[[ -s $out/curve-each-$lg.dat ]] &&
			plots+=("\"$out/curve-each-$lg.dat\" using 1:2 with lines lw 2 dt 2 lc rgb \"$c\" title \"$lg, (c) each call\"")
	done
	plot_line=$(IFS=,; echo "${plots[*]}")
	gnuplot <<-GP
		set terminal pngcairo size 1000,600 noenhanced
		set output "$out/latency.png"
		set title "Caller latency, ${threads%% *} thread(s), fmt message"
		set logscale x
		set xlabel "ns per call (log scale)"
		set ylabel "percentile"
		set yrange [0:100]
		set key bottom right
		set grid
		plot $plot_line
	GP
	echo "bench: plot in $out/latency.png" >&2
fi

# Categories: a call filtered out by its category's level against the global
# check (bench/filtered.c), appended to the table.
if [[ -x $bin/filtered ]]; then
	{ echo; "$bin/filtered" "$( ((quick)) && echo 1000 || echo 20000)"; } >>"$table"
fi
