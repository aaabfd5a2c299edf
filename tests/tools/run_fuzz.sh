#!/usr/bin/env bash
# run_fuzz.sh FUZZER CORPUS_DIR - makes a seed corpus of real llog-style
# files with the zstd CLI, then runs the libFuzzer target for a bounded time.
set -euo pipefail
fuzzer=$1 corpus=$2
mkdir -p "$corpus"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/tools/lib.sh
source "$(dirname "$0")/lib.sh"
make_lines 20 >"$tmp/a.txt"
make_lines 5 >"$tmp/b.txt"
{ meta_frame 1796285982000000000 1; zstd -q -3 --check -c "$tmp/a.txt"; zstd -q -1 --check -c "$tmp/b.txt"; } >"$corpus/seed_llog"
zstd -q -19 --check -c "$tmp/a.txt" >"$corpus/seed_l19"
zstd -q --check -c <"$tmp/b.txt" >"$corpus/seed_nosize"
head -c 100 "$corpus/seed_llog" >"$corpus/seed_torn"
cp "$tmp/a.txt" "$corpus/seed_text"
# Structured fields: version-2 lines with field sections, and a JSON
# line's "fields".
printf '%s\t%s\n' '2026-12-03T08:00:00.123456789Z INFO  [1] a.c:1 C:\\x \n msg' \
	'k=1 u=18446744073709551615 d=-1.5e3 n=nan b=true z=null s="a \"q\" \\ \x01"... +2' >"$tmp/f.txt"
printf '%s\n' '{"ts":"2026-12-03T08:00:00Z","level":"INFO","msg":"m","fields":{"k":1,"s":"\u00e9\ud83d\ude00","d":2.5,"b":false,"z":null}}' >>"$tmp/f.txt"
{ meta_frame_v 2; zstd -q -3 --check -c "$tmp/f.txt"; } >"$corpus/seed_fields"
cp "$tmp/f.txt" "$corpus/seed_fields_text"
exec "$fuzzer" -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$corpus/../" "$corpus"
