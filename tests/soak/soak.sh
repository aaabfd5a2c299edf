#!/usr/bin/env bash
# soak.sh - runs soak_service (tests/soak/README.md) for a while under
# faults and checks at the end that every counter identity holds and
# every record is accounted for.
#
#   bash tests/soak/soak.sh [--seconds N] [--threads T] [--build DIR]
#                           [--rate R] [--seed S] [--overflow block|drop] [--keep]
#
# Needs root (a tmpfs mount, a journal namespace), rsyslogd and
# systemd-journald; skips (exit 77) without them. Exits with the service's
# status: 0 when every check passed, 1 on a violation or a hang.
set -u

seconds=60 threads=4 build="" rate=2000 seed=$$ keep=0 overflow=block
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--overflow) overflow=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "usage: soak.sh [--seconds N] [--threads T] [--build DIR] [--rate R] [--seed S] [--overflow block|drop] [--keep]" >&2
	   exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$build" ] || build="$here/../../build/release"
svc="$build/tests/soak_service"
rrun="$build/tests/rsyslogd_run"
jbin=/lib/systemd/systemd-journald
RANDOM=$seed

skip() { echo "soak: SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (a tmpfs mount and a journal namespace need it)"
[ -x "$svc" ] || skip "$svc not built"
[ -x "$rrun" ] || skip "$rrun not built"
command -v rsyslogd >/dev/null || skip "rsyslogd missing (Debian: rsyslog, rsyslog-relp)"
[ -x "$jbin" ] || skip "$jbin missing (Debian: systemd)"

work=$(mktemp -d /tmp/llog-soak.XXXXXX)
fs=$work/fs
mkdir -p "$fs" "$work/rsyslog"
mount -t tmpfs -o size=4m,mode=0755 llog-soak "$fs" || { rm -rf "$work"; skip "cannot mount a tmpfs"; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
log() { printf '%s soak: %s\n' "$(date +%T.%3N)" "$*" >> "$work/faults.log"; }

# ---- rsyslogd (rsyslogd_run: tests/util/README.md) ------------------------
read -r port rport <<< "$("$svc" --free-ports)"
sed -e "s|@DIR@|$work/rsyslog|g" -e "s|@PORT@|$port|g" -e "s|@RPORT@|$rport|g" \
    -e "s|@APP@|soak|g" "$here/../syslog/rsyslog.conf.in" > "$work/rsyslog/rsyslog.conf"
rs_pid=""
rs_start() {
	rm -f "$work/rsyslog/pid" "$work/rsyslog/ready"
	"$rrun" "$work/rsyslog/rsyslog.conf" "$work/rsyslog/pid" "$work/rsyslog/rsyslogd.out" \
		"$port" > "$work/rsyslog/ready" 2>> "$work/rsyslog/run.err" &
	rs_pid=$!
	for _ in $(seq 300); do
		grep -q ready "$work/rsyslog/ready" 2>/dev/null && return 0
		kill -0 "$rs_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "soak: rsyslogd did not start:" >&2
	cat "$work/rsyslog/run.err" >&2
	return 1
}
# SIGKILL to rsyslogd itself (rsyslogd_run then exits), or SIGTERM to
# rsyslogd_run (rsyslogd stops in order).
rs_kill() {
	if [ $((RANDOM % 2)) = 0 ] && [ -s "$work/rsyslog/pid" ]; then
		kill -KILL "$(cat "$work/rsyslog/pid")" 2>/dev/null
		log "rsyslogd SIGKILL"
	else
		kill -TERM "$rs_pid" 2>/dev/null
		log "rsyslogd SIGTERM"
	fi
	wait "$rs_pid" 2>/dev/null
	rs_pid=""
}

# ---- journald in a namespace of its own (as tests/util/journald_proc.c) ---
jname="llogsoak$$"
jconf="/run/systemd/journald@$jname.conf.d"
jsock="/run/systemd/journal.$jname/socket"
j_pid=""
j_clean() {
	rm -rf "$jconf" /run/log/journal/*."$jname" /var/log/journal/*."$jname" \
	       "/run/systemd/journal.$jname"
}
j_start() {
	rm -f "$jsock"
	"$jbin" "$jname" < /dev/null > /dev/null 2>&1 &
	j_pid=$!
	for _ in $(seq 200); do
		[ -S "$jsock" ] && return 0
		kill -0 "$j_pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "soak: journald $jname did not serve $jsock" >&2
	return 1
}
j_kill() {
	local sig=KILL
	[ $((RANDOM % 2)) = 0 ] && sig=TERM
	kill -"$sig" "$j_pid" 2>/dev/null
	wait "$j_pid" 2>/dev/null
	log "journald SIG$sig"
	j_pid=""
}

cat_pid="" svc_pid=""
cleanup() {
	[ -n "$svc_pid" ] && kill -KILL "$svc_pid" 2>/dev/null
	[ -n "$cat_pid" ] && kill -CONT "$cat_pid" 2>/dev/null
	[ -n "$rs_pid" ] && { kill -TERM "$rs_pid" 2>/dev/null; wait "$rs_pid" 2>/dev/null; }
	[ -n "$j_pid" ] && { kill -KILL "$j_pid" 2>/dev/null; wait "$j_pid" 2>/dev/null; }
	j_clean
	if [ "${status:-1}" != 0 ] || [ "$keep" = 1 ]; then
		mkdir -p "$work/fs-final"
		cp -a "$fs/." "$work/fs-final/" 2>/dev/null
		echo "soak: kept $work"
	fi
	umount "$fs" 2>/dev/null
	if [ "${status:-1}" = 0 ] && [ "$keep" = 0 ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

j_clean
mkdir -p "$jconf"
printf '[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRateLimitBurst=0\n' \
	> "$jconf/llog-soak.conf"
rs_start || exit 1
j_start || exit 1

# ---- the levels file: odd file types and back -----------------------------
levels=$work/levels
specs=("info,noise=debug" "debug,noise=warn" "trace,noise=off" "info,noise=trace,soak.a=debug")
printf '%s\n' "${specs[0]}" > "$levels"
levels_odd() {
	rm -rf "$levels.tmp"
	case $((RANDOM % 7)) in
	0) mkfifo "$levels.tmp"; what=fifo ;;
	1) mkdir "$levels.tmp"; what=directory ;;
	2) "$svc" --make-socket "$levels.tmp"; what=socket ;;
	3) printf 'info\n' > "$levels.target"; ln -s "$levels.target" "$levels.tmp"; what=symlink ;;
	4) head -c 100000 /dev/zero | tr '\0' 'x' > "$levels.tmp"; what="100 kB file" ;;
	5) truncate -s 2G "$levels.tmp"; what="2 GB sparse file" ;;
	*) printf 'info,,=\n\001garbage\377\n' > "$levels.tmp"; what=garbage ;;
	esac
	rm -rf "$levels"
	mv -T "$levels.tmp" "$levels"
	log "levels file: $what"
}
levels_back() {
	printf '%s\n' "${specs[$((RANDOM % ${#specs[@]}))]}" > "$levels.tmp"
	rm -rf "$levels"
	mv -T "$levels.tmp" "$levels"
	log "levels file: $(cat "$levels")"
}

# ---- the service, its stderr through a reader that can be stopped --------
mkfifo "$work/console.fifo"
cat "$work/console.fifo" > "$work/console.out" &
cat_pid=$!
"$svc" --dir "$work" --logdir "$fs" --threads "$threads" --rate "$rate" \
	--syslog "relp://127.0.0.1:$rport" --journald "$jsock" --levels "$levels" \
	--fork-ms 700 --overflow "$overflow" > "$work/service.out" 2> "$work/console.fifo" &
svc_pid=$!
log "service $svc_pid started: $threads threads, $rate records/s each, $seconds s, seed $seed"

# ---- faults: each kind toggles at random times, so they overlap ----------
n_rs=0 n_j=0 n_fill=0 n_levels=0 n_stall=0
rs_down=0 j_down=0 filled=0 odd=0 stalled=0
t0=$(now_ms)
end=$((t0 + seconds * 1000))
next() { echo $(( $(now_ms) + $1 + RANDOM % $2 )); }
t_rs=$(next 500 2000) t_j=$(next 500 2000) t_fill=$(next 300 1500)
t_levels=$(next 200 800) t_stall=$(next 300 1500)
while :; do
	now=$(now_ms)
	[ "$now" -ge "$end" ] && break
	if ! kill -0 "$svc_pid" 2>/dev/null; then
		echo "soak: the service exited early" >&2
		break
	fi
	if [ "$now" -ge "$t_rs" ]; then
		if [ $rs_down = 0 ]; then rs_kill; rs_down=1; n_rs=$((n_rs + 1)); t_rs=$(next 200 2000)
		else rs_start || break; log "rsyslogd started"; rs_down=0; t_rs=$(next 1000 4000); fi
	fi
	if [ "$now" -ge "$t_j" ]; then
		if [ $j_down = 0 ]; then j_kill; j_down=1; n_j=$((n_j + 1)); t_j=$(next 200 2000)
		else j_start || break; log "journald started"; j_down=0; t_j=$(next 1000 4000); fi
	fi
	if [ "$now" -ge "$t_fill" ]; then
		if [ $filled = 0 ]; then
			dd if=/dev/zero of="$fs/filler" bs=64k 2>/dev/null
			log "file system full"; filled=1; n_fill=$((n_fill + 1)); t_fill=$(next 300 $((RANDOM % 3 == 0 ? 12000 : 3000)))
		else rm -f "$fs/filler"; log "file system freed"; filled=0; t_fill=$(next 500 3000); fi
	fi
	if [ "$now" -ge "$t_levels" ]; then
		if [ $odd = 0 ]; then levels_odd; odd=1; n_levels=$((n_levels + 1))
		else levels_back; odd=0; fi
		kill -USR2 "$svc_pid" 2>/dev/null
		t_levels=$(next 200 1000)
	fi
	if [ "$now" -ge "$t_stall" ]; then
		if [ $stalled = 0 ]; then kill -STOP "$cat_pid"; log "stderr reader stopped"
			stalled=1; n_stall=$((n_stall + 1)); t_stall=$(next 300 3000)
		else kill -CONT "$cat_pid"; log "stderr reader resumed"; stalled=0; t_stall=$(next 300 2000); fi
	fi
	sleep 0.05
done

# ---- the end: everything back, then SIGTERM and the checks ---------------
[ $stalled = 1 ] && kill -CONT "$cat_pid"
rm -f "$fs/filler"
[ $odd = 1 ] && { levels_back; kill -USR2 "$svc_pid" 2>/dev/null; }
[ $rs_down = 1 ] && rs_start
[ $j_down = 1 ] && j_start
log "faults over; SIGTERM to the service"
kill -TERM "$svc_pid" 2>/dev/null
status=""
for _ in $(seq 1200); do
	if ! kill -0 "$svc_pid" 2>/dev/null; then
		wait "$svc_pid"
		status=$?
		break
	fi
	sleep 0.05
done
if [ -z "$status" ]; then
	echo "soak: HANG: the service did not exit within 60 s of SIGTERM" >&2
	if command -v gdb >/dev/null; then
		gdb -p "$svc_pid" -batch -ex "thread apply all bt" > "$work/hang-stacks.txt" 2>&1
		echo "soak: the service's stacks: $work/hang-stacks.txt" >&2
	else
		cat /proc/"$svc_pid"/task/*/stat 2>/dev/null | awk '{print $1, $2, $3}' >&2
	fi
	kill -ABRT "$svc_pid"
	wait "$svc_pid"
	status=1
fi
svc_pid=""
wait "$cat_pid"
cat_pid=""
"$svc" --check-console "$work/console.out" >> "$work/service.out" || status=1

cat "$work/service.out"
[ -s "$work/child-errors.txt" ] && { echo "child errors:"; cat "$work/child-errors.txt"; }
echo "faults: rsyslogd killed $n_rs, journald killed $n_j, file system filled $n_fill," \
     "levels file replaced with an odd file $n_levels, stderr reader stopped $n_stall"
echo "soak: wall $(( ($(now_ms) - t0) / 1000 )) s, status $status"
exit "$status"
