#!/usr/bin/env bash
# test_fixture_ldbl.sh LLOGCAT FIXTURES - tests/fixtures/ldbl-48f1f2b.llog, a
# binary file with a long double call site written by an llog before typed
# calls (tests/fixtures/gen_ldbl.c), read by this llogcat: all three
# records, in order, and nothing on stderr (a plan flag of this build's
# own once made each version skip the other's frame).
set -euo pipefail
LLOGCAT=$1
FIX=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$LLOGCAT" "$FIX/ldbl-48f1f2b.llog" >"$T/out" 2>"$T/err"
if [[ -s $T/err ]]; then
	echo "FAIL: llogcat stderr: $(cat "$T/err")" >&2
	exit 1
fi
# the messages, after "LEVEL [tid] file:line func() "
sed -E 's/^[^ ]+ INFO  \[[0-9]+\] [^ ]+ main\(\) //' "$T/out" >"$T/msgs"
printf '%s\n' "plain 1" "long double 2.500000" "after x" >"$T/want"
if ! diff -u "$T/want" "$T/msgs"; then
	echo "FAIL: the records of ldbl-48f1f2b.llog" >&2
	exit 1
fi
echo "ok: 3 records"
