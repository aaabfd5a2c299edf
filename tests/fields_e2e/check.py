#!/usr/bin/env python3
"""check.py PROGRAM LLOGCAT - structured fields end to end (see e2e.c).

Runs PROGRAM into a temporary directory, then reads every output with its
real parser: console.jsonl with Python's json module, the three files with
`llogcat --json` (then json). In each output: every record once, each
field with its exact value and JSON type, each worker's records in order,
every record carrying exactly its own thread's context at the call."""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fields"))
from json_same import same  # noqa: E402 (equal value and JSON type)

FFFD = "\ufffd"


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


# Expected fields per message. A value's Python type is the JSON type:
# int, float, bool, None, str. ("nan" etc. are JSON strings by design.)
LONG = "a" + "\u00e9" * 511  # 1 + 511*2 = 1023 bytes: the cut never splits a character
EXPECT = {
    "r1 types": ({"i": -(2**63), "u": 2**64 - 1, "small": -7, "d": 2.5, "neg0": -0.0,
                  "nan": "NaN", "inf": "Infinity", "ninf": "-Infinity", "f": f32(0.1),
                  "yes": True, "no": False, "s": "hello world", "nul": None, "empty": ""}, 0),
    "r2 msg \\n not a newline\nreal one \"q\" x=1": (
        {"we ird\"k]=": "v", "quote": "a\"b", "back": "c\\d", "close": "e]f",
         "eq": "k=v x=y", "nl": "line1\nline2\tt", "esc": "\x1b[31mred",
         "bad": "x" + FFFD + FFFD + "y", "c1": "\u0085", "u": "caf\u00e9"}, 0),
    "r3 cut": ({"long": LONG, "after": 1}, 1),
    "r4 ctx set": ({"req": "abc"}, 0),
    "r5 ctx scope": ({"req": "abc", "tenant": 7}, 0),
    "r6 ctx after scope": ({"req": "abc"}, 0),
    "r7 ctx dup": ({"req": "call"}, 0),
    "r8 ctx removed": ({}, 0),
    "r9 ctx cleared": ({}, 0),
    "r10 end": ({}, 0),
}
WORKERS = ("alpha", "beta")
WORK_N = 50
failures = []


def fail(where, what):
    failures.append(f"{where}: {what}")


def check_fields(where, got, want):
    if list(got.keys()) != list(want.keys()):
        fail(where, f"keys {list(got.keys())} != {list(want.keys())}")
    for k, v in want.items():
        if k in got and not same(got[k], v):
            fail(where, f"field {k!r}: {got[k]!r} ({type(got[k]).__name__}) != {v!r} ({type(v).__name__})")


def check(name, lines):
    where = name
    seen = {}
    per = {w: [] for w in WORKERS}
    for ln in lines:
        try:
            rec = json.loads(ln)
        except ValueError as e:
            fail(where, f"not JSON ({e}): {ln[:200]!r}")
            continue
        msg = rec.get("msg")
        fields = rec.get("fields", {})
        if not isinstance(fields, dict):
            fail(where, f"fields not an object: {fields!r}")
            continue
        if msg == "work":
            thr = fields.get("thr")
            if thr not in per:
                fail(where, f"work record without its thread's context: {fields!r}")
                continue
            per[thr].append(fields)
            continue
        if msg not in EXPECT:
            fail(where, f"unexpected record: {msg!r}")
            continue
        seen[msg] = seen.get(msg, 0) + 1
        want, trunc = EXPECT[msg]
        check_fields(f"{where} {msg!r}", fields, want)
        if rec.get("fields_truncated", 0) != trunc:
            fail(where, f"{msg!r}: fields_truncated {rec.get('fields_truncated')!r} != {trunc}")
    for msg in EXPECT:
        if seen.get(msg, 0) != 1:
            fail(where, f"{msg!r} present {seen.get(msg, 0)} times")
    for w, recs in per.items():
        if len(recs) != WORK_N:
            fail(where, f"worker {w}: {len(recs)} records, not {WORK_N}")
        for i, f in enumerate(recs):
            want = {"thr": w}
            if i >= WORK_N // 2:
                want["half"] = True
            want["n"] = i
            check_fields(f"{where} {w} #{i}", f, want)


def lines_of(text):
    """JSON lines split at LF only (str.splitlines also splits at U+0085,
    which a JSON string may hold unescaped)."""
    return [ln for ln in text.split("\n") if ln]


def main():
    prog, llogcat = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([prog, d], check=True)
        with open(os.path.join(d, "console.jsonl"), encoding="utf-8") as f:
            check("console JSON", lines_of(f.read()))
        for name in ("text.llog.zst", "json.llog.zst", "bin.llog"):
            r = subprocess.run([llogcat, "--json", os.path.join(d, name)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode != 0:
                fail(name, f"llogcat exit {r.returncode}: {r.stderr.decode(errors='replace')}")
            check(f"llogcat --json {name}", lines_of(r.stdout.decode("utf-8")))
    for f in failures:
        print("FAIL", f)
    print(f"fields_e2e: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
