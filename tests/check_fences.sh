#!/usr/bin/env bash
# check_fences.sh OBJECT... - the seq_cst fences of the two Dekker
# handshakes that begin with a fence are in the compiled library.
#
# llog__wake_flusher (queue.c) must issue a full barrier before it reads
# llog__q.pending, and llog__arena_wake_waiters (arena.c) before it reads
# space.waiters: each pairs with the other side's seq_cst store or RMW
# (docs/architecture/queue.md 4, 6). No schedule can show a missing fence on
# x86-64, where every push is a locked CAS (itself a full barrier), so
# tests/test_sched.c cannot kill mutant M1 (tests/mutants/): this check
# does, by reading the machine code. It disassembles llog's own objects
# (queue.c.o, arena.c.o; ctest passes $<TARGET_OBJECTS:llog>) and finds
# in each function the first instruction that touches the watched object
# (through its relocation); a full barrier must come before it:
#   mfence, a lock-prefixed instruction, or (TSan) __tsan_atomic_thread_fence.
# x86-64 only (exit 77, skipped by ctest, elsewhere).
set -euo pipefail

[[ $(uname -m) == x86_64 ]] || { echo "skipped: x86-64 only"; exit 77; }
command -v objdump >/dev/null || { echo "skipped: no objdump"; exit 77; }

objs=()
for a in "$@"; do
	IFS=';' read -r -a parts <<<"$a"
	objs+=("${parts[@]}")
done
find_obj() {
	local o
	for o in "${objs[@]}"; do
		[[ $(basename "$o") == "$1" ]] && { echo "$o"; return 0; }
	done
	echo "error: $1 not among the objects given" >&2
	return 1
}

fail=0
# check OBJECT FUNCTION WATCHED_RELOC_REGEX NAME
check() {
	local obj=$1 fn=$2 watched=$3 name=$4 verdict
	verdict=$(objdump -dr --no-show-raw-insn "$obj" | awk -v fn="<$fn>:" -v w="$watched" '
		# reads to the end (an early exit would kill objdump with SIGPIPE)
		$2 == fn && !done { infn = 1; next }
		infn && (/^$/ || /^[0-9a-f]+ <.*>:$/) { infn = 0; done = 1 }
		!infn { next }
		/mfence|lock |__tsan_atomic_thread_fence/ { if (!seen) fence = 1 }
		/R_X86_64_/ && $0 ~ w && !seen { seen = 1; first = $0 }
		END {
			if (!seen) print "none";
			else if (fence) print "ok";
			else print "missing";
		}')
	case $verdict in
	ok) echo "ok: $fn issues a full barrier before it touches $name" ;;
	none)
		echo "FAIL: $fn not found in $obj, or it never touches $name"
		fail=1
		;;
	*)
		echo "FAIL: $fn touches $name before any full barrier (seq_cst fence missing)"
		objdump -dr --no-show-raw-insn "$obj" | awk -v fn="<$fn>:" '$2 == fn {p = 1} p && /^$/ {p = 0} p' | sed -n 1,20p
		fail=1
		;;
	esac
}

check "$(find_obj queue.c.o)" llog__wake_flusher 'llog__q' llog__q.pending
check "$(find_obj arena.c.o)" llog__arena_wake_waiters '\.bss|[^a-z_]space' space.waiters
exit $fail
