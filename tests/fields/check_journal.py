#!/usr/bin/env python3
"""check_journal.py NAMESPACE IDENT N: reads the N entries that
tests/fields/journald_fields.c sent (journalctl -o json of the namespace,
waiting up to 15 s for them), undoes docs/fields.md section 5's journald
mapping and compares every field:

  LLOG_F_<KEY upper-cased>=VALUE    for a key of a-z 0-9 _ (<= 57 bytes)
  LLOG_FX_<I>=<KEY>=<VALUE>         otherwise; KEY with %25 and %3D
  LLOG_FIELDS_TRUNCATED=N           when fields were left out or cut
"""
import json
import re
import subprocess
import sys
import time

from check_sd import ALL_TYPES, ADVERSARIAL  # noqa: E402 (same values as text)

X = lambda s: s.encode("utf-8") if isinstance(s, str) else s

JD_KEYS = [(b"userId", b"u"),
           (b"k_57_bytes_long_key_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", b"v57"),
           (b"k_58_bytes_long_key_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", b"v58"),
           (b"a%=b", b"x=y"), (b"_lead", b"nl\nin value"), (b"9", b"digit"),
           (b"p%41", b"not A")]

CASES = [
    ("all types", [(X(k), X(v)) for k, v in ALL_TYPES], None),
    ("adversarial", ADVERSARIAL, None),
    ("jd keys", JD_KEYS, None),
    ("cut", [(b"v", b"abc"), (b"n", b"1")], b"4"),
    ("no fields", [], None),
]

# which names each case must use (spot checks of the mapping itself)
NAMES = {
    "jd keys": ["LLOG_FX_0", "LLOG_F_K_57_BYTES_LONG_KEY_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
                "LLOG_FX_2", "LLOG_FX_3", "LLOG_F__LEAD", "LLOG_F_9", "LLOG_FX_6"],
}


def raw(v):
    if isinstance(v, list):
        if v and isinstance(v[0], list):
            sys.exit("a field given twice: %r" % v)
        return bytes(v)
    return v.encode("utf-8")


def unmap(b):
    return re.sub(rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), b)


def fields_of(e):
    got, names = [], []
    for k, v in e.items():
        m = re.fullmatch(r"LLOG_FX_([0-9]+)", k)
        if m:
            key, _, val = raw(v).partition(b"=")
            got.append((int(m.group(1)), unmap(key), val))
            names.append((int(m.group(1)), k))
        elif k.startswith("LLOG_F_"):
            got.append((None, k[7:].lower().encode(), raw(v)))
            names.append((None, k))
    return got, names


def main():
    ns, ident, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    deadline = time.time() + 15
    while True:
        out = subprocess.run(["journalctl", "--namespace=" + ns, "-o", "json", "--all",
                              "--no-pager", "SYSLOG_IDENTIFIER=" + ident],
                             capture_output=True).stdout.decode()
        entries = [json.loads(l) for l in out.splitlines() if l.strip()]
        if len(entries) >= n or time.time() > deadline:
            break
        time.sleep(0.05)
    if len(entries) != len(CASES):
        sys.exit("%d entries, want %d" % (len(entries), len(CASES)))
    for e, (msg, want, trunc) in zip(entries, CASES):
        if raw(e["MESSAGE"]) != msg.encode():
            sys.exit("MESSAGE %r, want %r" % (e["MESSAGE"], msg))
        got, names = fields_of(e)
        # journalctl gives the fields in no particular order: LLOG_FX_<I>
        # carries its index; the LLOG_F_ ones are matched by key.
        wanted = sorted(want)
        plain = sorted((k, v) for i, k, v in got)
        if plain != wanted:
            sys.exit("%s: fields\n got  %r\n want %r" % (msg, plain, wanted))
        for i, k, v in got:
            if i is not None and want[i] != (k, v):
                sys.exit("%s: LLOG_FX_%d is %r, field %d is %r" % (msg, i, (k, v), i, want[i]))
        if msg in NAMES and sorted(k for _, k in names) != sorted(NAMES[msg]):
            sys.exit("%s: names %r" % (msg, sorted(k for _, k in names)))
        t = e.get("LLOG_FIELDS_TRUNCATED")
        if (raw(t) if t is not None else None) != trunc:
            sys.exit("%s: LLOG_FIELDS_TRUNCATED %r, want %r" % (msg, t, trunc))
    print("check_journal: %d entries ok" % len(entries))


main()
