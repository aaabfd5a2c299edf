#!/usr/bin/env bash
# run_fuzz_relp.sh FUZZER CORPUS_DIR - seeds the corpus with what a RELP
# collector sends (acknowledgements, the answer to "open", a refusal,
# serverclose, a frame cut short), then runs the libFuzzer target for a
# bounded time (FUZZ_SECONDS, 10 when unset; ctest sets LLOG_FUZZ_SECONDS).
set -euo pipefail
fuzzer=$1 corpus=$2
mkdir -p "$corpus"
# frame TXNR COMMAND [DATA]: one frame, DATALEN counted.
frame() {
	if [ -n "${3-}" ]; then
		printf '%s %s %d %s\n' "$1" "$2" "${#3}" "$3"
	else
		printf '%s %s 0\n' "$1" "$2"
	fi
}
frame 1 rsp '200 OK' >"$corpus/seed_ack"
frame 1 rsp "200 OK
relp_version=0
relp_software=rsyslogd,8.2302.0,https://www.rsyslog.com
commands=syslog" >"$corpus/seed_open"
{ frame 2 rsp '200 OK'; frame 3 rsp '200 OK'; frame 4 rsp '500 not accepted'; } >"$corpus/seed_acks"
frame 1 rsp '500 version not supported' >"$corpus/seed_refused"
frame 2 serverclose >"$corpus/seed_serverclose"
{ frame 999999999 rsp '200 OK'; frame 1 rsp '200 OK'; } >"$corpus/seed_wrap"
{ frame 5 rsp '200 OK'; printf '6 rsp 6 20'; } >"$corpus/seed_torn"
exec "$fuzzer" -max_total_time="${FUZZ_SECONDS:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$corpus/../" "$corpus"
