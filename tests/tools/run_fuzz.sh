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
exec "$fuzzer" -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$corpus/../" "$corpus"
