#!/usr/bin/env python3
"""Reads rsyslog's out.json (tests/fields/rsyslog.conf.in: one object a
line, {"msg": MSG, "sd": $!rfc5424-sd from mmpstrucdata}) for the entries
tests/fields/syslog_sd.c sends, undoes llog's mapping of docs/fields.md
section 5 and compares every field with the contract:

  fields@32473: NAME="VALUE"; NAME and VALUE with %XX for the bytes
  mapped; a name %kI carries "KEY=VALUE" (the key mapped as a NAME);
  values as text (ints decimal, doubles as in text lines, true/false,
  null); fields_truncated="N" in llog@32473.
"""
import json
import re
import sys


def unmap(s):
    """%XX -> the byte; the rest as UTF-8."""
    out = bytearray()
    i = 0
    b = s.encode("utf-8")
    while i < len(b):
        if b[i:i + 1] == b"%":
            m = re.fullmatch(rb"%([0-9A-F]{2})", b[i:i + 3])
            if m is None:
                raise ValueError("bad %% escape in %r" % s)
            out.append(int(m.group(1), 16))
            i += 3
        else:
            out.append(b[i])
            i += 1
    return bytes(out)


def fields_of(sd):
    got = []
    for name, value in sd.get("fields@32473", {}).items():
        if re.fullmatch(r"%k[0-9]+", name):
            k, _, v = value.partition("=")
            got.append((unmap(k), unmap(v)))
        else:
            got.append((unmap(name), unmap(value)))
    return got


X = lambda s: s.encode("utf-8") if isinstance(s, str) else s

ALL_TYPES = [("user", "bob"), ("status", "200"), ("min", "-9223372036854775808"),
             ("max", "18446744073709551615"), ("latency_ms", "12.5"), ("one", "1.0"),
             ("nz", "-0.0"), ("tenth", "0.1"), ("third", "0.3333333333333333"),
             ("sum", "0.30000000000000004"), ("big", "1e+300"), ("tiny", "5e-324"),
             ("n", "nan"), ("pi", "inf"), ("mi", "-inf"), ("ok", "true"), ("no", "false"),
             ("note", "null"), ("empty", "")]
ADVERSARIAL = [(b"a b", b"x"), (b'k"q', b"x"), (b"x]=y", b"x"), (b"back\\slash", b"x"),
               (b"nl\nkey", b"x"), (b"tab\tkey", b"x"), (b"", b"empty key"),
               (b"ok.key-1/2:3@h_", b'a"b\\c]d=e f\ng\th\ri\x1bj\x7fk'),
               (b"c1", b"<\xc2\x9b>"), (b"bad", b"<\xff\xc3\x28\x80>"),
               (b"utf8", b"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
               (b"fake", b'x" forged=1'), (b"\xc3\xa9", b"1")]
SD_KEYS = [(b"k%1", b"50% off"), (b"exactly_32_bytes_long_key_xxxxxx", b"v32"),
           (b"longer_than_32_bytes_key_xxxxxxxx", b"v33"), (b"a=b", b"x=y"),
           (b"sp ace\xc3\xa9", b']"\\'), (b"%k0", b"not a numbered one")]

CASES = [
    ("all types", [(X(k), X(v)) for k, v in ALL_TYPES], None),
    ("adversarial", ADVERSARIAL, None),
    ("sd keys", SD_KEYS, None),
    ("cut", [(b"v", b"abc"), (b"n", b"1")], "4"),
    ("big", "big", None),
    ("no fields", [], None),
    ("udp", "udp", None),
]


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
    if len(lines) != len(CASES):
        sys.exit("%d lines, want %d" % (len(lines), len(CASES)))
    for n, (line, (msg, want, trunc)) in enumerate(zip(lines, CASES), 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            sys.exit("line %d: not JSON (%s): %r" % (n, e, line))
        if obj["msg"] != msg:
            sys.exit("line %d: msg %r, want %r" % (n, obj["msg"], msg))
        sd = obj["sd"]
        got = fields_of(sd)
        llog = sd["llog@32473"]
        if want in ("big", "udp"):
            # 20 values of 1000 x (100 over UDP): those that fit the
            # message (16 KiB; 2048 bytes over UDP), in order, the others
            # counted
            size = 1000 if want == "big" else 100
            if not 5 <= len(got) < 20:
                sys.exit("line %d: %d big fields shown" % (n, len(got)))
            if got != [(b"b%d" % i, b"x" * size) for i in range(len(got))]:
                sys.exit("line %d: big fields differ" % n)
            if llog.get("fields_truncated") != str(20 - len(got)):
                sys.exit("line %d: fields_truncated %r with %d shown" %
                         (n, llog.get("fields_truncated"), len(got)))
            continue
        if got != want:
            for g, w in zip(got, want):
                if g != w:
                    print("got  %r\nwant %r" % (g, w))
            sys.exit("line %d: fields differ (%d got, %d want)" % (n, len(got), len(want)))
        if "fields@32473" in sd and not want:
            sys.exit("line %d: an empty fields@32473" % n)
        if llog.get("fields_truncated") != trunc:
            sys.exit("line %d: fields_truncated %r, want %r" %
                     (n, llog.get("fields_truncated"), trunc))
    print("check_sd: %d messages ok" % len(lines))


if __name__ == "__main__":
    main()
