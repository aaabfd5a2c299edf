#!/usr/bin/env bash
# test_fixtures_v1.sh LLOGCAT FIXTURES - the files of tests/fixtures/,
# written by the llog before structured fields (file format version 1: no
# field section, a backslash in a message written as itself) with
# tests/fixtures/gen_v1.c, read by this llogcat as text and as --json. The
# expected records are written here from gen_v1.c's source (its table and
# its LOG calls, lines 52-57), not from llogcat's output. Exit 77 (skipped)
# without python3.
set -euo pipefail
LLOGCAT=$1
FIX=$2
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

for f in v1-text.llog.zst v1-json.llog.zst v1-binary.llog; do
	for mode in text json; do
		args=()
		[[ $mode == json ]] && args=(--json)
		if ! "$LLOGCAT" "${args[@]}" "$FIX/$f" >"$T/$f.$mode" 2>"$T/$f.$mode.err"; then
			cat "$T/$f.$mode.err" >&2
			echo "FAIL: llogcat ${args[*]} $f: exit status $?" >&2
			exit 1
		fi
		if [[ -s $T/$f.$mode.err ]]; then
			echo "FAIL: llogcat ${args[*]} $f: stderr: $(cat "$T/$f.$mode.err")" >&2
			exit 1
		fi
	done
done

python3 - "$T" <<'PYEOF'
import json, re, sys

T = sys.argv[1]
# gen_v1.c: (line, level, category, message after rendering)
RECS = [
    (52, "INFO", None, "plain record 1"),
    (53, "WARN", None, "int -42 unsigned 42 double 2.5 str <abc>"),
    (54, "ERROR", None, "path C:\\new\\table"),
    (55, "INFO", None, "line1\nline2\tend"),
    (56, "DEBUG", None, 'key=value a="b" looks like fields'),
    (57, "INFO", "db.pool", "in a category"),
]

def fail(msg):
    sys.exit("FAIL: " + msg)

def v1_text(msg):
    """The message as a version-1 text line has it: the control characters
    escaped, a backslash as itself."""
    return msg.replace("\n", "\\n").replace("\t", "\\t")

def v2_text(msg):
    return msg.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")

def lines(name):
    with open("%s/%s" % (T, name), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]

def check_text(name, file, msg_forms):
    got = lines(name + ".text")
    if len(got) != len(RECS):
        fail("%s: %d lines, expected %d" % (name, len(got), len(RECS)))
    ts = []
    for i, (line, level, cat, msg) in enumerate(RECS):
        m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z) (\S+) +(?:(\S+) )?\[(\d+)\] "
                         r"(\S+):(\d+) main\(\) (.*)", got[i])
        if m is None:
            fail("%s line %d: layout: %r" % (name, i + 1, got[i]))
        if (m[2], m[3], m[5], int(m[6])) != (level, cat, file, line):
            fail("%s line %d: %r" % (name, i + 1, got[i]))
        if m[7] not in msg_forms(msg):
            fail("%s line %d: message %r, expected one of %r" % (name, i + 1, m[7], msg_forms(msg)))
        if "\t" in got[i]:
            fail("%s line %d: a TAB (field section) in a version-1 line" % (name, i + 1))
        ts.append(m[1])
    return ts

def check_json(name, file, msgs, seq):
    got = [json.loads(l) for l in lines(name + ".json")]
    if len(got) != len(RECS):
        fail("%s --json: %d records" % (name, len(got)))
    for i, (line, level, cat, msg) in enumerate(RECS):
        r = got[i]
        want = {"level": level, "file": file, "line": line, "func": "main", "msg": msgs[i]}
        for k, v in want.items():
            if r.get(k) != v or type(r.get(k)) is not type(v):
                fail("%s --json record %d: %s=%r, expected %r" % (name, i + 1, k, r.get(k), v))
        if r.get("category") != cat:
            fail("%s --json record %d: category %r" % (name, i + 1, r.get("category")))
        for k in ("fields", "fields_truncated", "fields_malformed"):
            if k in r:
                fail("%s --json record %d: has %s" % (name, i + 1, k))
        if seq and r.get("seq") != i + 1:
            fail("%s --json record %d: seq %r" % (name, i + 1, r.get("seq")))
    return [r["ts"] for r in got]

# Text file: printed as written; --json gives a version-1 message as written
# (its "\n" may be a newline or a backslash and an n: not guessed), so the
# literal backslashes of record 3 stay themselves.
ts_text = check_text("v1-text.llog.zst", "gen_v1.c", lambda m: [v1_text(m)])
ts_tj = check_json("v1-text.llog.zst", "gen_v1.c", [v1_text(r[3]) for r in RECS], False)
# JSON file: the JSON lines as written, with and without --json.
if lines("v1-json.llog.zst.text") != lines("v1-json.llog.zst.json"):
    fail("v1-json: text and --json output differ (JSON lines pass through)")
ts_json = check_json("v1-json.llog.zst", "tests/fixtures/gen_v1.c", [r[3] for r in RECS], True)
# Binary file: rendered by this llogcat's line formatter, so its text lines
# are those of the current text format (version 2 escapes a backslash;
# version 1's form is accepted too); --json is exact.
ts_bin = check_text("v1-binary.llog", "gen_v1.c", lambda m: [v1_text(m), v2_text(m)])
ts_bj = check_json("v1-binary.llog", "gen_v1.c", [r[3] for r in RECS], True)
# One process wrote the three files: the same records at the same times.
if not (ts_text == ts_tj == ts_json == ts_bin == ts_bj):
    fail("timestamps differ between the files")
print("ok: 3 version-1 fixtures, 6 records each, text and --json")
PYEOF

# No field in a version-1 file: --where finds nothing, and nothing is flagged.
for f in v1-text.llog.zst v1-binary.llog; do
	out=$("$LLOGCAT" --where value "$FIX/$f")
	[[ -z $out ]] || { echo "FAIL: --where value matched in $f: $out" >&2; exit 1; }
	out=$("$LLOGCAT" --where 'a!=1' "$FIX/$f" | wc -l)
	[[ $out == 6 ]] || { echo "FAIL: --where a!=1 in $f: $out records" >&2; exit 1; }
done
