#!/usr/bin/env bash
# test_llogcat.sh LLOGCAT CASE - integration tests of llogcat on files made
# with the zstd CLI (tests/tools/lib.sh). One ctest per CASE; each case is a
# function below that exits non-zero with a message on the first failure.
set -euo pipefail
LLOGCAT=$1
CASE=$2
# shellcheck source=tests/tools/lib.sh
source "$(dirname "$0")/lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# positions FROM TO: the byte offsets of FROM..TO-1 that the damage cases
# try: the first 16 (magic, frame header), the last 8 (block end,
# checksum) and every LLOGCAT_TEST_STRIDE-th between (8; 32 in the
# sanitizer builds: tools/CMakeLists.txt). These check the command (its report,
# exit code, --repair, --verify); the reader itself is given every offset
# in-process by test_reader (test_torn_every_offset,
# test_corrupt_middle_every_byte) and is fuzzed under ASan (fuzz_reader).
positions() {
	local from=$1 to=$2 p stride=${LLOGCAT_TEST_STRIDE:-8}
	for ((p = from; p < to; p++)); do
		if ((p < from + 16 || p >= to - 8 || (p - from) % stride == 0)); then
			echo "$p"
		fi
	done
}

# A file of a metadata frame and three data frames (levels as given).
make_llog() { # OUT LVL...
	local out=$1 i=0
	shift
	meta_frame 1796285982000000000 1 >"$out"
	: >"$out.lines"
	for lvl in "$@"; do
		make_lines 7 $((i * 7)) "f$i" >"$T/part$i"
		frame "$lvl" "$T/part$i" >>"$out"
		cat "$T/part$i" >>"$out.lines"
		i=$((i + 1))
	done
}

case_roundtrip() {
	for lvl in 1 3 19; do
		make_llog "$T/a.zst" "$lvl" "$lvl" "$lvl"
		run "$LLOGCAT" "$T/a.zst"
		expect_rc 0 "level $lvl"
		same "$T/out" "$T/a.zst.lines" "llogcat output != lines written (level $lvl)"
		zstdcat "$T/a.zst" >"$T/zc"
		same "$T/zc" "$T/a.zst.lines" "zstdcat output != lines written (level $lvl)"
	done
	# A frame without content size in its header (zstd from a pipe).
	make_lines 9 >"$T/p"
	zstd -q --check -c <"$T/p" >"$T/nosize.zst"
	run "$LLOGCAT" "$T/nosize.zst"
	expect_rc 0 "frame without content size"
	same "$T/out" "$T/p" "frame without content size"
	# Plain text, with and without a final newline.
	run "$LLOGCAT" "$T/p"
	expect_rc 0 "plain text"
	same "$T/out" "$T/p" "plain text"
	head -c -1 "$T/p" >"$T/p2"
	run "$LLOGCAT" "$T/p2"
	same "$T/out" "$T/p" "plain text without final newline"
	# Empty file.
	: >"$T/empty"
	run "$LLOGCAT" "$T/empty"
	expect_rc 0 "empty file"
	[[ ! -s $T/out ]] || die "empty file printed something"
}

case_torn_tail() {
	make_llog "$T/a.zst" 3 3 3
	local size last_start
	size=$(stat -c %s "$T/a.zst")
	last_start=$((size - $(frame 3 "$T/part2" | wc -c)))
	head -n 14 "$T/a.zst.lines" >"$T/early"
	for cut in $(positions "$last_start" "$size"); do
		head -c "$cut" "$T/a.zst" >"$T/t.zst"
		run "$LLOGCAT" "$T/t.zst"
		if ((cut == last_start)); then
			expect_rc 0 "cut exactly at a frame boundary ($cut)"
		else
			expect_rc 1 "torn at $cut"
			grep -q "damaged frame at offset $last_start (truncated)" "$T/err" ||
				die "torn at $cut: damage not reported: $(cat "$T/err")"
		fi
		same "$T/out" "$T/early" "torn at $cut: earlier records not all printed"
		run "$LLOGCAT" --repair "$T/t.zst"
		[[ $rc == 0 || $rc == 1 ]] || die "repair at $cut: exit $rc"
		[[ $(stat -c %s "$T/t.zst") == "$last_start" ]] || die "repair at $cut: wrong size"
		zstd -q -t "$T/t.zst" || die "repair at $cut: zstd -t rejects the repaired file"
		run "$LLOGCAT" --verify "$T/t.zst"
		expect_rc 0 "verify after repair at $cut"
	done
}

case_corrupt_middle() {
	make_llog "$T/a.zst" 3 3 3
	local meta_len f0 f1 pos
	meta_len=$(meta_frame 1796285982000000000 1 | wc -c)
	f0=$(frame 3 "$T/part0" | wc -c)
	f1=$(frame 3 "$T/part1" | wc -c)
	cat "$T/part0" "$T/part2" >"$T/expect"
	local start=$((meta_len + f0))
	# Every byte of the middle frame: magic, header, blocks, checksum.
	for pos in $(positions "$start" $((start + f1))); do
		cp "$T/a.zst" "$T/c.zst"
		printf '\xff' | dd of="$T/c.zst" bs=1 seek="$pos" conv=notrunc status=none
		if cmp -s "$T/a.zst" "$T/c.zst"; then
			printf '\x00' | dd of="$T/c.zst" bs=1 seek="$pos" conv=notrunc status=none
		fi
		run "$LLOGCAT" "$T/c.zst"
		expect_rc 1 "corrupt byte at $pos"
		grep -q "damaged frame at offset $start (.*), skipped" "$T/err" ||
			die "corrupt byte at $pos: not reported at $start: $(cat "$T/err")"
		same "$T/out" "$T/expect" "corrupt byte at $pos: other frames not all printed"
		local before
		before=$(stat -c %s "$T/c.zst")
		run "$LLOGCAT" --repair "$T/c.zst"
		expect_rc 1 "repair with corrupt byte at $pos"
		[[ $(stat -c %s "$T/c.zst") == "$before" ]] || die "repair cut a file with a good last frame"
	done
}

case_hostile() {
	# A frame claiming 1 GiB of content in one raw byte: refused, not allocated.
	{
		printf '\x28\xb5\x2f\xfd\xe4'
		le32 $((1 << 30))
		le32 0
		printf '\x09\x00\x00x\x00\x00\x00\x00'
	} >"$T/h.zst"
	make_lines 3 >"$T/p"
	frame 3 "$T/p" >>"$T/h.zst"
	run "$LLOGCAT" "$T/h.zst"
	expect_rc 1 "huge content claim"
	grep -q "damaged frame at offset 0 (content size above the reader's limit)" "$T/err" ||
		die "huge claim not reported: $(cat "$T/err")"
	same "$T/out" "$T/p" "frame after a hostile one not printed"
	# Garbage between frames.
	{ frame 3 "$T/p"; head -c 300 /dev/urandom | tr -d '\050\120-\137'; frame 3 "$T/p"; } >"$T/g.zst"
	run "$LLOGCAT" "$T/g.zst"
	expect_rc 1 "garbage between frames"
	cat "$T/p" "$T/p" >"$T/pp"
	same "$T/out" "$T/pp" "frames around garbage"
	[[ $(grep -c damaged "$T/err") == 1 ]] || die "one damaged region reported more than once"
}

case_rotated_order() {
	# Three files, metadata with increasing created_ns, given shuffled.
	local i
	for i in 0 1 2; do
		make_lines 5 $((i * 5)) "r$i" >"$T/l$i"
		{ meta_frame $((1796285982000000000 + i * 1000)) $((1 + i * 5)); frame 3 "$T/l$i"; } >"$T/app.$i.zst"
	done
	cat "$T/l0" "$T/l1" "$T/l2" >"$T/expect"
	run "$LLOGCAT" "$T/app.2.zst" "$T/app.0.zst" "$T/app.1.zst"
	expect_rc 0 "rotated set"
	same "$T/out" "$T/expect" "rotated set not in order"
	# Without metadata: by mtime.
	for i in 0 1 2; do
		frame 3 "$T/l$i" >"$T/n$i.zst"
		touch -d "2026-01-01 00:00:0$((5 - i))" "$T/n$i.zst"
	done
	run "$LLOGCAT" "$T/n0.zst" "$T/n1.zst" "$T/n2.zst"
	cat "$T/l2" "$T/l1" "$T/l0" >"$T/expect"
	same "$T/out" "$T/expect" "files without metadata not ordered by mtime"
}

case_stats() {
	make_llog "$T/a.zst" 3 3 3 # 21 records, levels cycling: 4,4,4,3,3,3
	run "$LLOGCAT" --stats "$T/a.zst"
	expect_rc 0 "stats"
	local plain file
	plain=$(stat -c %s "$T/a.zst.lines")
	file=$(stat -c %s "$T/a.zst")
	head -n 1 "$T/out" | grep -Eq "^records=21 trace=4 debug=4 info=4 warn=3 error=3 fatal=3 span=20.0s plain=$plain file=$file ratio=[0-9]+\.[0-9]$" ||
		die "stats line: $(head -n 1 "$T/out")"
	grep -q '^first=2026-12-03T08:00:00.123456789Z$' "$T/out" || die "stats first"
	grep -q '^frames=3 damaged=0$' "$T/out" || die "stats frames"
}

case_filters() {
	make_llog "$T/a.zst" 3 3 3
	run "$LLOGCAT" --level warn "$T/a.zst"
	grep -E ' (WARN |ERROR|FATAL) ' "$T/a.zst.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--level warn"
	run "$LLOGCAT" --grep 'f1 record 1[0-3]$' "$T/a.zst"
	grep -E 'f1 record 1[0-3]$' "$T/a.zst.lines" >"$T/expect"
	[[ $(wc -l <"$T/expect") == 4 ]] || die "test data"
	same "$T/out" "$T/expect" "--grep"
	run "$LLOGCAT" --grep 'record 5' --level info "$T/a.zst"
	[[ $(wc -l <"$T/out") == 1 ]] || die "--grep with --level"
	run "$LLOGCAT" --since 2026-12-03T08:00:05Z --until 2026-12-03T08:00:07.5Z "$T/a.zst"
	sed -n '6,8p' "$T/a.zst.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--since/--until RFC 3339"
	run "$LLOGCAT" --since 1796284805 --until 1796284807.5 "$T/a.zst"
	same "$T/out" "$T/expect" "--since/--until seconds"
	run "$LLOGCAT" --level bogus "$T/a.zst"
	expect_rc 2 "unknown level"
}

case_json() {
	make_llog "$T/a.zst" 3 3 3
	printf '2026-12-03T08:00:00.000000001Z WARN  [7] x.c:1 quote " back\\ ctl\\x01 utf8 \xc3\xa9 bad \xff\n' >"$T/odd"
	frame 3 "$T/odd" >>"$T/a.zst"
	run "$LLOGCAT" --json "$T/a.zst"
	expect_rc 0 "json"
	[[ $(wc -l <"$T/out") == 22 ]] || die "json line count"
	head -n 1 "$T/out" | grep -qx '{"ts":"2026-12-03T08:00:00.123456789Z","level":"TRACE","thread":100,"file":"app.c","line":10,"msg":"f0 record 0"}' ||
		die "json layout: $(head -n 1 "$T/out")"
	if command -v python3 >/dev/null; then
		python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <"$T/out" ||
			die "invalid JSON"
	else
		echo "note: python3 absent, JSON validity not checked" >&2
	fi
	# JSON-format records pass through and are filtered on their fields.
	printf '{"seq":1,"ts":"2026-12-03T08:00:00.000000000Z","level":"INFO","thread":1,"file":"a.c","line":1,"func":"f","msg":"hello"}\n{"seq":2,"ts":"2026-12-03T08:00:01.000000000Z","level":"ERROR","thread":1,"file":"a.c","line":2,"func":"f","msg":"boom"}\n' >"$T/j"
	frame 3 "$T/j" >"$T/j.zst"
	run "$LLOGCAT" --json --level error "$T/j.zst"
	tail -n 1 "$T/j" >"$T/expect"
	same "$T/out" "$T/expect" "JSON records filtered by level"
}

# wait_lines FILE N: waits (bounded, 10 s) until FILE has N lines (a
# FILE not made yet has none).
wait_lines() {
	local deadline=$((SECONDS + 10))
	while (($(cat -- "$1" 2>/dev/null | wc -l) < $2)); do
		((SECONDS < deadline)) || die "follow: $(wc -l <"$1") of $2 lines after 10 s"
		sleep 0.05
	done
}

case_follow() {
	make_lines 4 0 a >"$T/la"
	make_lines 4 4 b >"$T/lb"
	make_lines 4 8 c >"$T/lc"
	make_lines 4 12 d >"$T/ld"
	{ meta_frame 1796285982000000000 1; frame 3 "$T/la"; } >"$T/live.zst"
	# (made here: the background job opens its redirections only when it
	# runs, which under load may be after the first waits)
	: >"$T/fout"
	"$LLOGCAT" -f "$T/live.zst" >>"$T/fout" 2>"$T/ferr" &
	FOLLOW_PID=$!
	trap 'kill "$FOLLOW_PID" 2>/dev/null || true; rm -rf "$T"' EXIT
	wait_lines "$T/fout" 4
	# A frame appended in two writes: nothing printed from its first half.
	frame 3 "$T/lb" >"$T/fb"
	head -c 10 "$T/fb" >>"$T/live.zst"
	tail -c +11 "$T/fb" >>"$T/live.zst"
	wait_lines "$T/fout" 8
	# Rotation: a last frame in the old file, rename, new file.
	frame 3 "$T/lc" >>"$T/live.zst"
	mv "$T/live.zst" "$T/live.1.zst"
	{ meta_frame 1796285983000000000 13; frame 3 "$T/ld"; } >"$T/live.zst"
	wait_lines "$T/fout" 16
	kill "$FOLLOW_PID"
	wait "$FOLLOW_PID" 2>/dev/null || true
	cat "$T/la" "$T/lb" "$T/lc" "$T/ld" >"$T/expect"
	same "$T/fout" "$T/expect" "follow: records not all printed exactly once, in order"
	[[ ! -s $T/ferr ]] || die "follow: stderr: $(cat "$T/ferr")"
}

case_errors() {
	run "$LLOGCAT" "$T/app.log.zst"
	expect_rc 2 "missing file"
	grep -qx "llogcat: $T/app.log.zst: No such file or directory" "$T/err" || die "missing: $(cat "$T/err")"
	printf '\x7fELF\x02\x01\x01\x00\x00\x00' >"$T/bin"
	run "$LLOGCAT" "$T/bin"
	expect_rc 2 "binary file"
	grep -q "not an llog file" "$T/err" || die "binary: $(cat "$T/err")"
	run "$LLOGCAT"
	expect_rc 2 "no file"
	run "$LLOGCAT" --bogus x
	expect_rc 2 "bad option"
	run "$LLOGCAT" --since yesterday x
	expect_rc 2 "bad time"
}

case_help() {
	run "$LLOGCAT" --help
	expect_rc 0 "help"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
		grep -qx "$s" "$T/out" || die "help lacks $s"
	done
	# each option's text under it: --func's continues with its glob
	grep -A1 -- '^    --func NAME' "$T/out" | grep -q "^ *('conn_\*')" ||
		die "--func's text is not under --func"
	run "$LLOGCAT" --version
	expect_rc 0 "version"
	grep -qx "llogcat ${LLOG_PROJECT_VERSION:?} (file format version [0-9]*, binary data frames [0-9]*)" "$T/out" ||
		die "--version printed $(cat "$T/out"), want llogcat $LLOG_PROJECT_VERSION"
}

# The manual page (tools/llogcat.1, $LLOGCAT_MAN) says what --help says:
# the same options with the same short forms and arguments ("-l --level
# LEVEL"), each once, the project's version in .TH, and groff renders it
# without a warning.
case_manpage() {
	local man=${LLOGCAT_MAN:?}
	run "$LLOGCAT" --help
	expect_rc 0 "help"
	# help: "    -l, --level LEVEL   only records ...": the first column
	sed -n '/^OPTIONS$/,/^[A-Z]/s/^    \(-[^ ].*\)/\1/p' "$T/out" |
		sed 's/  .*//; s/,//g' | sort >"$T/help.opts"
	# man: the line after each .TP of OPTIONS, fonts, quotes and commas out
	sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/{/^\.TP/{n;p}}' "$man" |
		sed 's/^\.[A-Z]* *//; s/\\f[BIRP]//g; s/\\//g; s/[",]//g; s/  */ /g; s/ $//' |
		sort >"$T/man.opts"
	[[ $(wc -l <"$T/help.opts") -ge 15 ]] || die "read only $(wc -l <"$T/help.opts") options from --help"
	same "$T/man.opts" "$T/help.opts" "$man's OPTIONS (<) differ from --help's (>)"
	grep -q "^\.TH LLOGCAT 1 [^ ]* \"llog ${LLOG_PROJECT_VERSION:?}\"" "$man" ||
		die "$man's .TH is not of llog $LLOG_PROJECT_VERSION: $(grep '^\.TH' "$man")"
	if command -v groff >/dev/null; then
		groff -man -Tutf8 -ww -z "$man" 2>"$T/groff" || die "groff failed on $man"
		[[ ! -s $T/groff ]] || die "groff warns on $man: $(cat "$T/groff")"
	else
		echo "manpage: no groff here, rendering not checked (scripts/deps.sh test installs groff-base)"
	fi
}

# Files with the line options (llog_line_options): metadata line=func,
# "[tid name]", "func() ", timestamps of other precisions and zones.
case_fields() {
	local meta
	meta=$(printf 'llog-meta 1\nhost=h\npid=1\nprogram=t\ncreated_ns=1796285982000000000\nseq_first=1\nformat=text\nline=func\n_')
	meta=${meta%_}
	{ printf '\x5b\x2a\x4d\x18'; le32 ${#meta}; printf '%s' "$meta"; } >"$T/f.zst"
	cat >"$T/f.lines" <<-'EOF'
	2026-12-03T08:00:00.123456789Z INFO  [7 main] app.c:10 main() start
	2026-12-03T08:00:01.000000001Z WARN  [8 net-rx] net.c:20 conn_open() refused () twice
	2026-12-03T23:59:59.999999999Z ERROR [8] net.c:30 conn_close() closing
	2026-12-03T08:00:03.5Z INFO  [9 a b] x.c:1 operator()() lambda
	EOF
	frame 3 "$T/f.lines" >>"$T/f.zst"
	run "$LLOGCAT" "$T/f.zst"
	same "$T/out" "$T/f.lines" "default output != lines as written"
	run "$LLOGCAT" --func main "$T/f.zst"
	sed -n 1p "$T/f.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--func main"
	run "$LLOGCAT" --func 'conn_*' "$T/f.zst"
	sed -n 2,3p "$T/f.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--func conn_*"
	run "$LLOGCAT" --func 'operator()' "$T/f.zst"
	sed -n 4p "$T/f.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--func operator()"
	run "$LLOGCAT" --func refused "$T/f.zst"
	[[ ! -s $T/out ]] || die "--func matched a message word"
	# JSON carries the name and the function
	run "$LLOGCAT" --json --func conn_open "$T/f.zst"
	grep -qx '{"ts":"2026-12-03T08:00:01.000000001Z","level":"WARN","thread":8,"thread_name":"net-rx","file":"net.c","line":20,"func":"conn_open","msg":"refused () twice"}' "$T/out" ||
		die "json fields: $(cat "$T/out")"
	# --local: the offset of TZ, the precision as written, midnight crossed
	set +e
	TZ='<+0530>-5:30' "$LLOGCAT" --local "$T/f.zst" >"$T/out" 2>"$T/err"
	rc=$?
	set -e
	expect_rc 0 "--local"
	cat >"$T/expect" <<-'EOF'
	2026-12-03T13:30:00.123456789+05:30 INFO  [7 main] app.c:10 main() start
	2026-12-03T13:30:01.000000001+05:30 WARN  [8 net-rx] net.c:20 conn_open() refused () twice
	2026-12-04T05:29:59.999999999+05:30 ERROR [8] net.c:30 conn_close() closing
	2026-12-03T13:30:03.5+05:30 INFO  [9 a b] x.c:1 operator()() lambda
	EOF
	same "$T/out" "$T/expect" "--local +05:30"
	set +e
	TZ='<-0330>3:30' "$LLOGCAT" --local --json --func main "$T/f.zst" >"$T/out" 2>"$T/err"
	set -e
	grep -q '^{"ts":"2026-12-03T04:30:00.123456789-03:30",' "$T/out" || die "--local --json: $(cat "$T/out")"
	# A file without line=func: a message that looks like a function is not one.
	meta_frame 1796285982000000000 1 >"$T/old.zst"
	printf '2026-12-03T08:00:00.123456789Z INFO  [7] app.c:10 main() start\n' >"$T/old.lines"
	frame 3 "$T/old.lines" >>"$T/old.zst"
	run "$LLOGCAT" --func main "$T/old.zst"
	[[ ! -s $T/out ]] || die "--func on a file without functions"
	run "$LLOGCAT" --json "$T/old.zst"
	grep -qx '{"ts":"2026-12-03T08:00:00.123456789Z","level":"INFO","thread":7,"file":"app.c","line":10,"msg":"main() start"}' "$T/out" ||
		die "old file's JSON changed: $(cat "$T/out")"
	# A plain-text file: for --func, "NAME() " starting the message counts.
	run "$LLOGCAT" --func conn_close "$T/f.lines"
	sed -n 3p "$T/f.lines" >"$T/expect"
	same "$T/out" "$T/expect" "--func on plain text"
}

"case_$CASE"
echo "ok: $CASE"
