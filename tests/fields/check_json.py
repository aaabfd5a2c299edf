#!/usr/bin/env python3
"""Reads the JSON lines tests/test_fields_out.c writes and checks each
against docs/fields.md section 4: values AND types (int, float, bool,
None, str), the sign of -0.0, exact 64-bit integers, adversarial keys,
"fields" right after "msg", "fields_truncated".

  check_json.py FILE           the cases of test_json_python, in order
  check_json.py --subset FILE  every line: valid JSON whose fields are an
                               in-order subset of ALL_TYPES, the others
                               counted in fields_truncated
Exits non-zero with a message on the first difference."""
import json
import sys

from json_same import same  # equal value and JSON type

NAN = object()  # markers for the strings of the non-finite doubles

# test_fields_out.c's all_types, as the contract says JSON shows them.
ALL_TYPES = [
    ("user", "bob"),
    ("status", 200),
    ("min", -(2**63)),
    ("max", 2**64 - 1),
    ("latency_ms", 12.5),
    ("one", 1.0),
    ("nz", -0.0),
    ("tenth", 0.1),
    ("third", 1.0 / 3),
    ("sum", 0.1 + 0.2),
    ("big", 1e300),
    ("tiny", 5e-324),
    ("n", "NaN"),
    ("pi", "Infinity"),
    ("mi", "-Infinity"),
    ("ok", True),
    ("no", False),
    ("note", None),
    ("empty", ""),
]

J_KEYS = [
    ("msg", "not the message"),
    ('a"b', 'q"uote'),
    ("back\\slash", "\\n is not a newline"),
    ("ctl\n\t\x1b", "\x01\x1f\x7f"),
    ("c1", "<\u009b>"),
    ("bad", "<\ufffd\ufffd(\ufffd>"),
    ("utf8", "caf\u00e9 \U0001f600"),
    ("x]=y", "a=b ]"),
    ("", "empty key"),
]


def fail(n, why):
    sys.exit("line %d: %s" % (n, why))


def load(n, line):
    try:
        pairs = json.loads(line, object_pairs_hook=lambda p: p)
    except ValueError as e:
        fail(n, "not JSON (%s): %r" % (e, line))
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        fail(n, "duplicate member: %r" % keys)
    return keys, dict(pairs)


def check_fields(n, got, want):
    if [k for k, _ in got] != [k for k, _ in want]:
        fail(n, "keys %r, want %r" % ([k for k, _ in got], [k for k, _ in want]))
    for (k, a), (_, b) in zip(got, want):
        if not same(a, b):
            fail(n, "field %r: %r (%s), want %r (%s)" % (k, a, type(a).__name__, b,
                                                         type(b).__name__))


def check_place(n, keys):
    if "fields" in keys and keys[keys.index("fields") - 1] != "msg":
        fail(n, "\"fields\" not right after \"msg\": %r" % keys)
    if "fields_truncated" in keys and keys[keys.index("fields_truncated") - 1] != "fields":
        fail(n, "\"fields_truncated\" not right after \"fields\": %r" % keys)


def subset(n, obj, keys):
    check_place(n, keys)
    if "fields" not in obj:
        if not obj["msg"].endswith(" [truncated]"):
            fail(n, "no fields and no cut message")
        return
    got = obj["fields"]
    want = dict(ALL_TYPES)
    order = [k for k, _ in ALL_TYPES]
    pos = -1
    for k, v in got:
        if k not in want or order.index(k) <= pos:
            fail(n, "field %r unknown or out of order" % k)
        pos = order.index(k)
        if not same(v, want[k]):
            fail(n, "field %r: %r, want %r" % (k, v, want[k]))
    if obj.get("fields_truncated", 0) != len(ALL_TYPES) - len(got):
        fail(n, "fields_truncated %r with %d of %d shown" % (obj.get("fields_truncated"),
                                                              len(got), len(ALL_TYPES)))


def main():
    sub = sys.argv[1] == "--subset"
    lines = open(sys.argv[-1], encoding="utf-8").read().split("\n")
    if lines[-1] != "":
        sys.exit("the last line has no newline")
    lines = lines[:-1]
    cases = [
        ("request done", ALL_TYPES, None),
        ("m", J_KEYS, None),
        ("m", [("v", "abc"), ("n", 1)], 4),
        ("m", [], 2),
        ("m", "subset", None),
        ("no fields", None, None),
    ]
    if not sub and len(lines) != len(cases):
        sys.exit("%d lines, want %d" % (len(lines), len(cases)))
    for n, line in enumerate(lines, 1):
        keys, obj = load(n, line)
        if sub:
            subset(n, obj, keys)
            continue
        msg, fields, trunc = cases[n - 1]
        if fields == "subset":
            subset(n, obj, keys)
            if "fields" not in obj or len(obj["fields"]) in (0, len(ALL_TYPES)):
                fail(n, "want some fields left out, not %r" % obj.get("fields"))
            continue
        if obj["msg"] != msg:
            fail(n, "msg %r" % obj["msg"])
        check_place(n, keys)
        if fields is None:
            if "fields" in obj or "fields_truncated" in obj:
                fail(n, "fields in an entry without")
            continue
        check_fields(n, obj["fields"], fields)
        if obj.get("fields_truncated") != trunc:
            fail(n, "fields_truncated %r, want %r" % (obj.get("fields_truncated"), trunc))
    print("check_json: %d lines ok" % len(lines))


main()
