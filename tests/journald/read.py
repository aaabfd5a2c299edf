#!/usr/bin/env python3
"""Reads `journalctl -o json --all` output on stdin and prints one line per
entry, in journal order, for tests/test_journald.c to parse:

    SEQ PRIO TID LINE PID DROPPED LEVEL FILE FUNC IDENT THREAD_NAME MSG

numbers in decimal ('-' when the field is absent), the strings as 'x'
and their bytes in hex ('-' when absent), so that any byte (a newline, a
NUL) survives. journalctl
prints a field as a JSON string when it is printable UTF-8, else as an
array of byte values; both are accepted.
"""
import json
import sys


def raw(v):
    if v is None:
        return None
    if isinstance(v, list):
        return bytes(v)
    return v.encode("utf-8")


def num(e, k):
    v = raw(e.get(k))
    return v.decode() if v is not None else "-"


def hexed(e, k):
    v = raw(e.get(k))
    return "-" if v is None else "x" + v.hex()


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    e = json.loads(line)
    print(num(e, "LLOG_SEQ"), num(e, "PRIORITY"), num(e, "TID"), num(e, "CODE_LINE"),
          num(e, "SYSLOG_PID"), num(e, "LLOG_DROPPED"), hexed(e, "LLOG_LEVEL"),
          hexed(e, "CODE_FILE"), hexed(e, "CODE_FUNC"), hexed(e, "SYSLOG_IDENTIFIER"),
          hexed(e, "LLOG_THREAD_NAME"), hexed(e, "MESSAGE"))
