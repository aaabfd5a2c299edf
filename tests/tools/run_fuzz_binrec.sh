#!/usr/bin/env bash
# run_fuzz_binrec.sh FUZZER CORPUS_DIR - seeds the corpus with a binary llog
# file (tests/tools/seeds: one written by the file sink in LLOG_FILE_BINARY,
# its metadata frame removed, and the same sites payload and data content
# in the target's direct form, see fuzz_binrec.c; *_plog: the same with PLOG
# records, written by seeds/gen_plog_seed.c, data frame version 2; *_plog3:
# version 3, recent strings), then runs the libFuzzer target for a bounded
# time.
set -euo pipefail
fuzzer=$1 corpus=$2
mkdir -p "$corpus"
cp "$(dirname "$0")"/seeds/binary_* "$corpus/"
exec "$fuzzer" -max_total_time="${FUZZ_SECONDS:-20}" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$corpus/../" "$corpus"
