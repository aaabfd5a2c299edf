#!/usr/bin/env bash
# test_fields_cat.sh LLOGCAT CASE - llogcat and structured fields
# (docs/fields.md 3, 4, 6) on files made here (tests/tools/lib.sh): the field
# section of text lines read back with its types (--json, checked with
# python3's json), --where, malformed sections, file format versions. The
# expected values are written from docs/fields.md, not from llogcat's output.
# One ctest per CASE; exit 77 (skipped) without python3.
set -euo pipefail
LLOGCAT=$1
CASE=$2
# shellcheck source=tests/tools/lib.sh
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# llog VERSION LINES OUT: a compressed file, metadata "llog-meta VERSION",
# then LINES (with <TAB> for a TAB) as one data frame.
llog() {
	cp "$2" "$T/lines.tmp"
	tabs "$T/lines.tmp"
	{ meta_frame_v "$1"; frame 3 "$T/lines.tmp"; } >"$3"
}

# pycheck SCRIPT: python3 runs SCRIPT with the JSON lines of $T/out as
# `recs` (each an ordered list of (key, value) pairs made a dict, `keys` the
# member order).
pycheck() {
	python3 -c '
import json, math, sys
recs, keys = [], []
for l in open(sys.argv[1], encoding="utf-8"):
    pairs = json.loads(l, object_pairs_hook=lambda p: p)
    keys.append([k for k, _ in pairs])
    recs.append({k: (dict(v) if isinstance(v, list) else v) for k, v in pairs})
def eq(a, b, what):
    if type(a) is not type(b) or (a != b and not (isinstance(a, float) and math.isnan(a) and math.isnan(b))):
        sys.exit("%s: %r (%s), expected %r (%s)" % (what, a, type(a).__name__, b, type(b).__name__))
    if isinstance(a, float) and math.copysign(1, a) != math.copysign(1, b):
        sys.exit("%s: sign of %r, expected %r" % (what, a, b))
def fields(i, want):
    got = recs[i].get("fields")
    if want is None:
        if got is not None: sys.exit("record %d: fields %r, expected none" % (i, got))
        return
    if got is None: sys.exit("record %d: no fields" % i)
    if list(got) != list(want): sys.exit("record %d: keys %r, expected %r" % (i, list(got), list(want)))
    for k in want: eq(got[k], want[k], "record %d field %r" % (i, k))
'"$1" "$T/out" || die "JSON check failed: $(cat "$T/out")"
}

TS='2026-12-05T14:00:00.000000001Z'

case_json() {
	cat >"$T/l" <<-EOF
	$TS INFO  [123] a.c:10 request /x done<TAB>user="bob" status=200 latency_ms=12.5 ok=true note=null
	$TS WARN  [123] a.c:11 edges<TAB>min=-9223372036854775808 max=9223372036854775807 big=18446744073709551615 one=1.0 tiny=5e-324 huge=1.7976931348623157e+308 nz=-0.0 n=nan pi=inf ni=-inf f=false
	$TS ERROR [123] a.c:12 C:\\\\new\\\\table \\n\\t\\\\n done<TAB>"k y"="a \\"q\\" \\\\ = ] x=1" "=]"="\\x01\\xff\\xc2\\x85" utf="é" s="cut"... +2
	$TS INFO  [123] a.c:13 plain k=v in the message
	$TS INFO  [123] a.c:14 dropped<TAB>+5
	EOF
	llog 2 "$T/l" "$T/a.zst"
	run "$LLOGCAT" "$T/a.zst"
	expect_rc 0 "text"
	same "$T/out" "$T/lines.tmp" "text output != the lines as written"
	run "$LLOGCAT" --json "$T/a.zst"
	expect_rc 0 "json"
	pycheck '
eq(len(recs), 5, "records")
fields(0, {"user": "bob", "status": 200, "latency_ms": 12.5, "ok": True, "note": None})
eq(keys[0][-2:], ["msg", "fields"], "member order")
eq(recs[0]["msg"], "request /x done", "msg 0")
fields(1, {"min": -9223372036854775808, "max": 9223372036854775807,
           "big": 18446744073709551615, "one": 1.0, "tiny": 5e-324,
           "huge": 1.7976931348623157e308, "nz": -0.0, "n": "NaN", "pi": "Infinity",
           "ni": "-Infinity", "f": False})
eq(recs[2]["msg"], "C:\\new\\table \n\t\\n done", "msg 2 (version 2: decoded)")
fields(2, {"k y": "a \"q\" \\ = ] x=1", "=]": "\x01\ufffd\u0085", "utf": "\u00e9", "s": "cut"})
eq(recs[2]["fields_truncated"], 3, "fields_truncated 2")
eq(keys[2][-3:], ["msg", "fields", "fields_truncated"], "member order 2")
fields(3, None)
eq(recs[3]["msg"], "plain k=v in the message", "msg 3")
eq("fields_truncated" in recs[3], False, "fields_truncated 3")
fields(4, None)
eq(recs[4]["fields_truncated"], 5, "fields_truncated 4")
for r in recs: eq("fields_malformed" in r, False, "malformed")
'
}

case_where() {
	cat >"$T/l" <<-EOF
	$TS INFO  [1] a.c:1 one<TAB>status=200 latency_ms=12.5 user="bob" tiny=5e-324
	$TS WARN  [1] a.c:2 two<TAB>status=500 latency_ms=250 user="alice" ok=false
	$TS ERROR [1] a.c:3 three<TAB>status=404 latency_ms=1e3 user="bob" big=18446744073709551615
	$TS INFO  [1] a.c:4 status=200 in the message
	$TS DEBUG [1] a.c:5 five<TAB>id=-9223372036854775808 user="200" note=null
	EOF
	llog 2 "$T/l" "$T/w.zst"
	# expect "ARGS" "LINE NUMBERS"
	expect() {
		local args=$1 want=$2
		# shellcheck disable=SC2086
		eval "run \"\$LLOGCAT\" $args \"\$T/w.zst\""
		expect_rc 0 "$args"
		: >"$T/expect"
		for k in $want; do sed -n "${k}p" "$T/lines.tmp" >>"$T/expect"; done
		same "$T/out" "$T/expect" "--where $args: not records $want"
	}
	expect "--where status=200" "1"
	expect "--where 'status!=200'" "2 3 4 5"
	expect "--where status" "1 2 3"
	expect "--where 'latency_ms>100'" "2 3"
	expect "--where 'latency_ms>=250'" "2 3"
	expect "--where 'latency_ms<250'" "1"
	expect "--where 'latency_ms<=250'" "1 2"
	expect "--where 'latency_ms>1000'" ""
	expect "--where 'latency_ms=1000'" "3"
	expect "--where user=bob" "1 3"
	expect "--where 'user=\"bob\"'" "1 3"
	expect "--where user=200" ""
	expect "--where 'user=\"200\"'" "5"
	expect "--where ok=false" "2"
	expect "--where ok=true" ""
	expect "--where note=null" "5"
	expect "--where big" "3"
	expect "--where 'big>18446744073709551614'" "3"
	expect "--where 'big=18446744073709551615'" "3"
	expect "--where 'big<18446744073709551615'" ""
	expect "--where tiny=5e-324" "1"
	expect "--where 'tiny<1e-320'" "1"
	expect "--where 'tiny>0'" "1"
	expect "--where 'id<-9223372036854775807'" "5"
	expect "--where 'id=-9223372036854775808'" "5"
	# AND, and with the level, time and message filters
	expect "--where user=bob --where 'status>=400'" "3"
	expect "--where user=bob --level warn" "3"
	expect "--where 'status!=404' --level warn" "2"
	expect "--where user=bob --until 2026-12-05T13:00:00Z" ""
	expect "--where user=bob --since 2026-12-05T13:00:00Z" "1 3"
	expect "--where user=bob --grep thr" "3"
	# --grep matches the message only, never the field section
	expect "--grep status=200" "4"
	expect "--grep bob" ""
	# --json and --stats see the same records
	run "$LLOGCAT" --json --where 'latency_ms>100' "$T/w.zst"
	expect_rc 0 "--json --where"
	pycheck 'eq([r["msg"] for r in recs], ["two", "three"], "--json --where")'
	run "$LLOGCAT" --stats --where user=bob "$T/w.zst"
	head -n 1 "$T/out" | grep -q '^records=2 trace=0 debug=0 info=1 warn=0 error=1 ' ||
		die "--stats --where: $(head -n 1 "$T/out")"
	# bad expressions: a clear error, exit 2
	for bad in '=1' 'a>b' 'a==1' 'a=>1' 'a<' 'a!1' 'a="x' 'a="x"y' ''; do
		run "$LLOGCAT" --where "$bad" "$T/w.zst"
		expect_rc 2 "--where '$bad'"
		grep -q "invalid --where expression" "$T/err" || die "--where '$bad': $(cat "$T/err")"
		[[ ! -s $T/out ]] || die "--where '$bad' printed records"
	done
}

# JSON-lines files (format=json): the "fields" member of docs/fields.md 4.
case_jsonlines() {
	local h='"ts":"2026-12-05T14:00:00.000000001Z","thread":1,"file":"a.c"'
	cat >"$T/j" <<-EOF
	{"seq":1,$h,"level":"INFO","line":1,"msg":"one \\"fields\\":{\\"user\\":\\"eve\\"}","fields":{"user":"bob","status":200,"latency_ms":12.5,"ok":true,"note":null}}
	{"seq":2,$h,"level":"WARN","line":2,"msg":"two","fields":{"user":"al\\u00e9","big":18446744073709551615,"l":"NaN"},"fields_truncated":1}
	{"seq":3,$h,"level":"INFO","line":3,"msg":"three"}
	{"seq":4,$h,"level":"ERROR","line":4,"msg":"four","fields":{"user":"bob","status":500,"latency_ms":2.5e2}}
	EOF
	frame 3 "$T/j" >"$T/j.zst"
	for args in "--where user=bob:1 4" "--where status=200:1" "--where latency_ms>100:4" \
		"--where big>=18446744073709551615:2" "--where user=alé:2" "--where ok=true:1" \
		"--where note=null:1" "--where user!=bob:2 3" "--where user=eve:" \
		"--where l=\"NaN\":2" "--where user=bob --level error:4" "--where status --grep ou:4"; do
		local want=${args#*:} a=${args%%:*}
		a=$(printf '%b' "$a")
		# shellcheck disable=SC2086
		run "$LLOGCAT" $a "$T/j.zst"
		expect_rc 0 "$a"
		: >"$T/expect"
		for k in $want; do sed -n "${k}p" "$T/j" >>"$T/expect"; done
		same "$T/out" "$T/expect" "$a: not records $want"
	done
	# a malformed "fields" object: reported, exit 1, never matched
	printf '{"seq":5,%s,"level":"INFO","line":5,"msg":"bad","fields":{"user":"bob",}}\n' "$h" >"$T/b"
	frame 3 "$T/b" >"$T/b.zst"
	run "$LLOGCAT" --where user=bob "$T/b.zst"
	expect_rc 1 "malformed JSON fields"
	[[ ! -s $T/out ]] || die "a malformed fields object matched"
	grep -q "malformed field section" "$T/err" || die "no warning: $(cat "$T/err")"
}

case_malformed() {
	cat >"$T/l" <<-EOF
	$TS INFO  [1] a.c:1 good<TAB>k=1
	$TS INFO  [1] a.c:2 unterminated<TAB>s="abc
	$TS INFO  [1] a.c:3 two spaces<TAB>k=1  j=2
	$TS INFO  [1] a.c:4 bad escape<TAB>s="a\\qb" k=1
	$TS INFO  [1] a.c:5 missing equals<TAB>k
	$TS INFO  [1] a.c:6 junk<TAB>k=1x
	$TS INFO  [1] a.c:7 empty<TAB>
	$TS INFO  [1] a.c:8 good too<TAB>k=2
	EOF
	llog 2 "$T/l" "$T/m.zst"
	run "$LLOGCAT" "$T/m.zst"
	expect_rc 1 "malformed sections, text"
	same "$T/out" "$T/lines.tmp" "text output != the lines as written"
	[[ $(grep -c 'malformed field section' "$T/err") == 6 ]] || die "warnings: $(cat "$T/err")"
	grep -q "record at $TS: malformed field section (unterminated quoted string)" "$T/err" ||
		die "warning text: $(cat "$T/err")"
	run "$LLOGCAT" --json "$T/m.zst"
	expect_rc 1 "malformed sections, json"
	pycheck '
eq(len(recs), 8, "records")
fields(0, {"k": 1})
fields(7, {"k": 2})
raw = ["s=\"abc", "k=1  j=2", "s=\"a\\qb\" k=1", "k", "k=1x", ""]
for i in range(1, 7):
    fields(i, None)
    eq(recs[i].get("fields_malformed"), True, "record %d fields_malformed" % i)
    eq(recs[i].get("fields_raw"), raw[i - 1], "record %d fields_raw" % i)
'
	# --where never guesses into a malformed section
	run "$LLOGCAT" --where k=1 "$T/m.zst"
	expect_rc 1 "--where on malformed"
	sed -n 1p "$T/lines.tmp" >"$T/expect"
	same "$T/out" "$T/expect" "--where k=1 on malformed sections"
	# a message with a bad escape (version 2): shown as written, flagged
	printf '%s INFO  [1] a.c:9 bad \\q escape\n' "$TS" >"$T/l"
	llog 2 "$T/l" "$T/e.zst"
	run "$LLOGCAT" --json "$T/e.zst"
	expect_rc 1 "bad message escape"
	pycheck 'eq(recs[0]["msg"], "bad \\q escape", "msg"); eq(recs[0]["msg_malformed"], True, "flag")'
}

case_versions() {
	# The same bytes under version 1 and version 2.
	cat >"$T/l" <<-EOF
	$TS ERROR [1] a.c:1 path C:\\new\\table
	$TS INFO  [1] a.c:2 line1\\nline2\\x01
	$TS INFO  [1] a.c:3 a=1 b="2" looks like fields
	EOF
	llog 1 "$T/l" "$T/v1.zst"
	run "$LLOGCAT" "$T/v1.zst"
	expect_rc 0 "version 1"
	same "$T/out" "$T/lines.tmp" "version 1 text"
	run "$LLOGCAT" --json "$T/v1.zst"
	expect_rc 0 "version 1 json"
	# version 1: a backslash is itself; messages as written, no fields
	pycheck '
eq([r["msg"] for r in recs], ["path C:\\new\\table", "line1\\nline2\\x01", "a=1 b=\"2\" looks like fields"], "v1 msgs")
for i in range(3): fields(i, None)'
	# version 1 wrote a file base name raw: a TAB there is not a field
	# section
	printf '%s INFO  [1] a\tb.c:4 tab in the name\n' "$TS" >"$T/ltab"
	llog 1 "$T/ltab" "$T/v1tab.zst"
	run "$LLOGCAT" --json "$T/v1tab.zst"
	expect_rc 0 "version 1, a TAB in the file name"
	pycheck 'eq(recs[0]["msg"], "tab in the name", "v1 tab msg"); fields(0, None)
eq("fields_malformed" in recs[0], False, "v1 tab: no field section")'
	llog 2 "$T/l" "$T/v2.zst"
	run "$LLOGCAT" --json "$T/v2.zst"
	expect_rc 0 "version 2 json"
	# version 2: the escapes are decoded (a writer of version 2 wrote
	# "C:\\new" for a backslash)
	pycheck 'eq([r["msg"] for r in recs[:2]], ["path C:\new\table", "line1\nline2\x01"], "v2 msgs")'
	# A newer version: its frames are refused, the rest is read.
	printf '%s INFO  [1] a.c:4 after\n' "$TS" >"$T/l4"
	{
		meta_frame_v 1; frame 3 "$T/lines.tmp"
		meta_frame_v 3; frame 3 "$T/l4"
		meta_frame_v 2; frame 3 "$T/l4"
	} >"$T/mix.zst"
	run "$LLOGCAT" "$T/mix.zst"
	expect_rc 1 "newer version"
	{ cat "$T/lines.tmp"; cat "$T/l4"; } >"$T/expect"
	same "$T/out" "$T/expect" "frames of version 1 and 2 around a version-3 one"
	grep -q "file format version 3 is newer than this llogcat reads (2), skipped" "$T/err" ||
		die "newer version: $(cat "$T/err")"
	{ meta_frame_v x; frame 3 "$T/l4"; } >"$T/bad.zst"
	run "$LLOGCAT" "$T/bad.zst"
	expect_rc 1 "unreadable version"
	[[ ! -s $T/out ]] || die "a frame after 'llog-meta x' was printed"
	# Plain text (no metadata) is read as the current version.
	printf '%s INFO  [1] a.c:1 C:\\\\dir\tk="v\\\\"\n' "$TS" >"$T/plain.log"
	run "$LLOGCAT" --json "$T/plain.log"
	expect_rc 0 "plain text"
	pycheck 'eq(recs[0]["msg"], "C:\\dir", "plain msg"); fields(0, {"k": "v\\"})'
}

"case_$CASE"
