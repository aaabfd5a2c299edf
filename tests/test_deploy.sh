#!/usr/bin/env bash
# tests/test_deploy.sh - the fleet set-up of docs/deploy.md, with real rsyslogd.
#
#   test_deploy.sh RELP_LOGGER RSYSLOGD_RUN
#
# RELP_LOGGER is tests/deploy/relp_logger.c, RSYSLOGD_RUN
# tests/util/rsyslogd_run.c (starts and stops one rsyslogd), both built by
# CMake.
#
# (a) Every rsyslog configuration under examples/deploy/ passes
#     `rsyslogd -N1 -f FILE` as committed (the modules it loads must load:
#     rsyslog-relp, rsyslog-kafka, rsyslog-elasticsearch), and again as the
#     test runs it (work directory, ports and target replaced); every
#     systemd unit there passes `systemd-analyze verify` (when present).
# (b) The relay hop end to end on loopback:
#       relp_logger (llog syslog sink, relp://127.0.0.1:P1)
#         -> rsyslogd #1: examples/deploy/relay-rsyslog.conf (P1, forwards to P2)
#         -> rsyslogd #2: examples/deploy/central-kafka-rsyslog.conf with its
#            output block (between "# output begin" and "# output end")
#            replaced by an omfile action writing the same JSON
#            document, one a line (template llog_json_line)
#         -> central/out.json
#     Run twice, each time with fresh rsyslogds: while the logger logs
#     (paced, until told to stop and at least 20,000 records), the relay is
#     stopped (SIGTERM) and started again: every record arrives exactly
#     once and in order; then the central server is: every record at least
#     once and in order of first arrival (RELP resends what the central
#     server queued but had not acknowledged; at most omrelp's windowSize
#     duplicates). Every document keeps the app name, host, microsecond
#     timestamp and llog's structured data element, and has the level,
#     category and fields record i was logged with (relp_logger: INFO,
#     WARN in category db.pool, ERROR with fields, in turn), so the
#     central configurations and the sink's format cannot drift apart; and
#     llog reports nothing lost (relp_logger's exit status).
# Exits 77 (skipped, with the reason on stderr) when rsyslogd, its RELP
# modules or python3 are absent; a part whose modules are absent (omkafka,
# omelasticsearch) is skipped with a message.
set -euo pipefail

logger_bin=${1:?usage: test_deploy.sh RELP_LOGGER RSYSLOGD_RUN}
rsyslogd_run=${2:?usage: test_deploy.sh RELP_LOGGER RSYSLOGD_RUN}
src=$(cd "$(dirname "$0")/.." && pwd)
deploy=$src/examples/deploy
min_records=20000

skip() {
	echo "SKIPPED: $*" >&2
	exit 77
}
fail() {
	echo "FAILED: $*" >&2
	exit 1
}

command -v rsyslogd >/dev/null || skip "no rsyslogd (Debian package rsyslog; bash scripts/deps.sh test)"
command -v python3 >/dev/null || skip "no python3 (bash scripts/deps.sh test)"

work=$(mktemp -d /tmp/llog_deploy_XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	if [[ ${LLOG_DEPLOY_KEEP:-} == 1 ]]; then
		echo "kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# Does this rsyslogd load module $1?
has_module() {
	printf 'module(load="%s")\naction(type="omfile" file="%s/probe.out")\n' \
		"$1" "$work" >"$work/probe.conf"
	rsyslogd -N1 -f "$work/probe.conf" >/dev/null 2>&1
}

# rsyslogd -N1 -f $1: fails the test on a non-zero status or an error line.
check_conf() {
	local out
	if ! out=$(rsyslogd -N1 -f "$1" 2>&1) || grep -qi 'error' <<<"$out"; then
		echo "$out" >&2
		fail "rsyslogd -N1 -f $1"
	fi
	echo "ok: rsyslogd -N1 -f $1"
}

# ---- (a) the committed configurations ---------------------------------------
for m in imrelp omrelp mmpstrucdata; do
	has_module "$m" || skip "rsyslogd cannot load $m (Debian package rsyslog-relp; bash scripts/deps.sh test)"
done
# As committed, they name /var/spool/rsyslog, which the rsyslog package
# creates; a copy with a work directory of the test's own otherwise.
for f in "$deploy"/*rsyslog*.conf; do
	mod=$(grep -o 'module(load="om[a-z]*")' "$f" | grep -v omrelp | sed 's/.*"\(.*\)".*/\1/' || true)
	if [[ -n $mod ]] && ! has_module "$mod"; then
		echo "SKIPPED: rsyslogd -N1 -f $f: module $mod absent (bash scripts/deps.sh test)" >&2
		continue
	fi
	if [[ -d /var/spool/rsyslog ]]; then
		check_conf "$f"
	else
		sed "s|/var/spool/rsyslog|$work|g" "$f" >"$work/asis.conf"
		check_conf "$work/asis.conf"
	fi
done

# The systemd units: systemd-analyze verify, with the service's own binary
# (absent here) replaced by /bin/true; an unknown key or section, or a value
# systemd cannot parse, fails the test.
if command -v systemd-analyze >/dev/null; then
	for f in "$deploy"/*.service; do
		sed 's|/usr/local/bin/myservice|/bin/true|' "$f" >"$work/$(basename "$f")"
		out=$(systemd-analyze verify "$work/$(basename "$f")" 2>&1) || true
		if grep -Eqi 'unknown (key|section|lvalue)|failed to parse|invalid|ignoring' <<<"$out"; then
			echo "$out" >&2
			fail "systemd-analyze verify $f"
		fi
		echo "ok: systemd-analyze verify $f${out:+ (said: $out)}"
	done
else
	echo "SKIPPED: systemd-analyze verify examples/deploy/*.service: no systemd-analyze" >&2
fi

# ---- (b) the relay hop on loopback ------------------------------------------
read -r p1 p2 < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')

# sub FILE PATTERN REPLACEMENT OUT: sed s|PATTERN|REPLACEMENT|, which must
# match in FILE (the committed files spell their values as the test expects).
sub() {
	grep -q -- "$2" "$1" || fail "$1 no longer contains '$2': update tests/test_deploy.sh"
	sed "s|$2|$3|" "$1" >"$4"
}

mkdir -p "$work/relay" "$work/central"
# The relay: loopback imrelp on P1 and omrelp to 127.0.0.1:P2.
sub "$deploy/relay-rsyslog.conf" 'workDirectory="/var/spool/rsyslog"' \
	"workDirectory=\"$work/relay\"" "$work/r1"
sub "$work/r1" 'address="127.0.0.1" port="2514"' "address=\"127.0.0.1\" port=\"$p1\"" "$work/r2"
sub "$work/r2" 'target="central-logs.example.net"' 'target="127.0.0.1"' "$work/r3"
sub "$work/r3" '^\( *\)port="2514"$' "\\1port=\"$p2\"" "$work/relay.conf"
# The central server: imrelp on P2, the output block replaced by omfile.
sub "$deploy/central-kafka-rsyslog.conf" 'workDirectory="/var/spool/rsyslog"' \
	"workDirectory=\"$work/central\"" "$work/c1"
sub "$work/c1" 'input(type="imrelp" port="2514"' \
	"input(type=\"imrelp\" address=\"127.0.0.1\" port=\"$p2\"" "$work/c2"
grep -q '# output begin' "$work/c2" && grep -q '# output end' "$work/c2" ||
	fail "central-kafka-rsyslog.conf lost its output markers"
sed "/# output begin/,/# output end/c\\
    action(type=\"omfile\" file=\"$work/central/out.json\" template=\"llog_json_line\")" \
	"$work/c2" >"$work/central.conf"
for f in relay central; do
	# Nothing of production left outside comments.
	if grep -v '^[[:space:]]*#' "$work/$f.conf" | grep -q '2514\|example\.net\|/var/spool'; then
		fail "$f.conf still has a production value"
	fi
	check_conf "$work/$f.conf"
done

# start NAME PORT: rsyslogd -n on $work/NAME.conf through rsyslogd_run
# (tests/util/rsyslogd_proc.c), which waits (15 s at most) until PORT
# accepts, says "ready" on $work/NAME.ready, and dies with this script
# (rsyslogd with it); when rsyslogd does not start, rsyslogd_run prints why
# and rsyslogd's output.
declare -A rs_pid
start() {
	local name=$1 port=$2 ready=
	rm -f "$work/$name.ready"
	mkfifo "$work/$name.ready"
	"$rsyslogd_run" "$work/$name.conf" "$work/$name.pid" "$work/$name.out" "$port" \
		>"$work/$name.ready" &
	rs_pid[$name]=$!
	pids+=($!)
	read -r ready <"$work/$name.ready" || true
	[[ $ready == ready ]] || fail "rsyslogd $name did not start listening on $port"
}

# stop NAME: SIGTERM, and waits until it has exited (queues saved).
stop() {
	kill -TERM "${rs_pid[$1]}"
	wait "${rs_pid[$1]}" || true
}

t0=$EPOCHREALTIME
note() {
	echo "$(python3 -c "print('%.2f' % ($EPOCHREALTIME - $t0))") s: $*"
}

lines() {
	if [[ -f $work/central/out.json ]]; then
		wc -l <"$work/central/out.json"
	else
		echo 0
	fi
}

# wait_lines N SECONDS: until out.json has at least N lines.
wait_lines() {
	local deadline=$((SECONDS + $2))
	while (($(lines) < $1)); do
		((SECONDS < deadline)) || fail "central wrote $(lines) of $1 records within $2 s"
		sleep 0.05
	done
}

# run MODE: a fresh relay and central server (empty work directories), the
# logger, then MODE's outage while it logs; stops the logger and checks
# central/out.json.
#   relay    the relay stopped (SIGTERM) and started again: each record
#            exactly once, in order.
#   central  the central server stopped and started again (the relay's
#            queue holds the records meanwhile): each record at least once
#            and in order of first arrival. A duplicate is a record the
#            central server had queued when it stopped but whose
#            acknowledgement the relay never got (RELP resends it); at most
#            omrelp's window of them (windowSize in relay-rsyslog.conf).
run() {
	local mode=$1 before status n
	rm -rf "$work/relay" "$work/central"
	mkdir -p "$work/relay" "$work/central"
	start central "$p2"
	start relay "$p1"
	"$logger_bin" "relp://127.0.0.1:$p1" "$min_records" >"$work/logger.out" \
		2>"$work/logger.err" &
	logger_pid=$!
	pids+=("$logger_pid")

	wait_lines 2000 20
	before=$(lines)
	note "$mode: $before records at the central server; $mode stopped"
	stop "$mode"
	# Down for 0.5 s of logging (the outage, not a wait for anything): llog
	# (relay) or the relay's queue (central) keeps the records.
	sleep 0.5
	if [[ $mode == relay ]]; then
		start relay "$p1"
	else
		start central "$p2"
	fi
	note "$mode: started again"
	wait_lines $((before + 2000)) 20
	note "$mode: $(lines) records at the central server; logger stopped"

	kill -USR1 "$logger_pid"
	status=0
	wait "$logger_pid" || status=$?
	((status == 0)) || fail "relp_logger exited $status: $(cat "$work/logger.err")"
	n=$(cat "$work/logger.out")
	((n >= min_records)) || fail "relp_logger logged only $n records"
	note "$mode: $n records logged"
	wait_lines "$n" 30
	# Both stop (SIGTERM): everything they hold is written or saved, so a
	# duplicate or a stray record would be in the file now.
	stop relay
	stop central
	note "$mode: $(lines) records at the central server"
	python3 - "$work/central/out.json" "$n" "$mode" "$window" <<'EOF'
import json, re, sys

path, n, mode, window = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
with open(path) as f:
    docs = [json.loads(line) for line in f]
msgs = [d["msg"] for d in docs]
want = ["rec i=%d" % i for i in range(n)]
seen = {}
for m in msgs:
    seen[m] = seen.get(m, 0) + 1
missing = [w for w in want if w not in seen]
dups = [m for m, c in seen.items() if c > 1]
firsts = list(dict.fromkeys(msgs))  # each message at its first arrival
if mode == "relay":
    ok = msgs == want
else:
    ok = firsts == want and len(msgs) - n <= window
if not ok:
    first = next(i for i in range(min(len(firsts), n) + 1)
                 if i >= len(firsts) or i >= n or firsts[i] != want[i])
    sys.exit("%s: %d records in the file, %d logged: %d missing (first %s), %d duplicated "
             "(first %s), first arrivals differ at %d: %r"
             % (mode, len(msgs), n, len(missing), missing[:3], len(dups), dups[:3],
                first, firsts[first] if first < len(firsts) else None))
ts = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
# what relp_logger logs as record i (its loop): level, category, fields
kinds = [("INFO", "", None), ("WARN", "db.pool", None), ("ERROR", "", "alice")]
for d in docs:
    sd = d.get("sd") or {}
    llog = sd.get("llog@32473") if isinstance(sd, dict) else None
    if d.get("app") != "llog-deploy" or \
            d.get("host") != "deployhost" or not ts.fullmatch(d.get("timestamp", "")) or \
            not isinstance(llog, dict) or "file" not in llog or "line" not in llog:
        sys.exit("a record lost its header or structured data: %r" % d)
    i = int(d["msg"].split("=")[1])
    level, category, user = kinds[i % 3]
    fields = sd.get("fields@32473")
    want_fields = {"user": user, "n": str(i)} if user else None
    if d.get("level") != level or d.get("category") != category or fields != want_fields:
        sys.exit("record %d: level %r, category %r, fields %r; want %r, %r, %r"
                 % (i, d.get("level"), d.get("category"), fields, level, category,
                    want_fields))
print("ok: %s restarted: %d records through llog -> relay -> central, each %s, in order, with its level, category and fields%s"
      % (mode, n, "once" if mode == "relay" else "at least once",
         "" if mode == "relay" else " (%d duplicates)" % (len(msgs) - n)))
EOF
}

window=$(sed -n 's/^ *windowSize="\([0-9]*\)".*/\1/p' "$deploy/relay-rsyslog.conf")
[[ -n $window ]] || fail "relay-rsyslog.conf sets no omrelp windowSize"
run relay
run central
