#!/usr/bin/env bash
# test_fixture_v2.sh LLOGCAT FIXTURES - tests/fixtures/v2-plog-3ed99eb.llog,
# a binary file of data frame version 2 (PLOG records whose strings are
# their bytes every time, before version 3's recent strings) written by
# tests/fixtures/gen_v2.c, read by this llogcat: every record, in order,
# and nothing on stderr. The messages are written here from gen_v2.c's
# calls, not from llogcat's output.
set -euo pipefail
LLOGCAT=$1
FIX=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! "$LLOGCAT" "$FIX/v2-plog-3ed99eb.llog" >"$T/out" 2>"$T/err"; then
	echo "FAIL: llogcat exit status; stderr: $(cat "$T/err")" >&2
	exit 1
fi
if [[ -s $T/err ]]; then
	echo "FAIL: llogcat stderr: $(cat "$T/err")" >&2
	exit 1
fi
# the messages, after "LEVEL [tid] file:line func() "
sed -E 's/^[^ ]+ INFO  \[[0-9]+\] [^ ]+ main\(\) //' "$T/out" >"$T/msgs"
peer=("10.0.0.17:443" "10.0.3.4:8443" "192.168.1.20:80")
user=(alice bob)
for i in $(seq 0 11); do
	p=${peer[i % 3]}
	((i == 7)) && p="(null)"
	printf 'request %d took %d.%03d ms from %s user %s\n' "$i" $((i / 4)) $((i % 4 * 250)) "$p" "${user[i % 2]}"
done >"$T/want"
echo "after x" >>"$T/want"
if ! diff -u "$T/want" "$T/msgs"; then
	echo "FAIL: the records of v2-plog-3ed99eb.llog" >&2
	exit 1
fi
echo "ok: 13 records"
