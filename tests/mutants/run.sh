#!/usr/bin/env bash
# tests/mutants/run.sh - every mutant of the wake-up, BLOCK and shutdown
# handshakes must be killed by the tests named for it (README.md here).
#
#   bash tests/mutants/run.sh            all mutants
#   bash tests/mutants/run.sh M2 M4      only these (M2 or M2-f1-after-f3)
#
# Each build kind (release, tsan) is a lane of its own, the lanes run at the
# same time: a lane copies the working tree (git's tracked and untracked,
# not ignored, files) to a scratch directory of its own, builds there the
# targets the table below needs for its kind, and checks that those tests
# pass on the unmutated copy (the baseline). Then for each of its mutants:
# applies the patch to its copy, rebuilds incrementally (only what depends
# on the patched file), runs the mutant's tests, and restores the file.
# The report comes in the table's order: "killed by TEST..." or "SURVIVED".
# Exits non-zero when a mutant survives, a patch no longer applies or a
# mutant no longer compiles, or a baseline fails.
#
# Environment: LLOG_MUTANTS_DIR (scratch directory, kept; default a fresh
# temporary one, removed at exit), JOBS (build parallelism, default nproc).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# mutant (patch file name without .patch) | build kind | ctest names
table=(
	"M1-wake-no-fence|release|check_fences model_labels"
	"M2-f1-after-f3|release|test_sched model_labels"
	"M3-no-space-wake|release|test_sched model_labels"
	"M4-stop-after-take|release|test_sched model_labels"
	"M5-push-cas-relaxed|tsan|test_sched"
	"M6-take-xchg-relaxed|tsan|test_sched"
	"M7-no-reverse|release|test_sched model_labels"
	"M8-no-flusher-wake|release|test_sched model_labels"
	"M9-release-relaxed|tsan|test_sched"
	"M10-reserve-load-relaxed|tsan|test_sched"
	"M11-no-shard-cut|release|test_sched"
)
# what each kind builds (the tests above and what they read)
targets_release=(llog test_sched)
targets_tsan=(test_sched)

export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

# every patch in the directory must be in the table, and the reverse
for p in "$here"/*.patch; do
	n=$(basename "$p" .patch)
	printf '%s\n' "${table[@]}" | grep -q "^$n|" || {
		echo "error: $n.patch is not in the table of $0" >&2
		exit 2
	}
done

sel=("$@")
selected() {
	((${#sel[@]} == 0)) && return 0
	local s
	for s in "${sel[@]}"; do [[ $1 == "$s" || $1 == "$s"-* ]] && return 0; done
	return 1
}

if [[ -n ${LLOG_MUTANTS_DIR:-} ]]; then
	work=$LLOG_MUTANTS_DIR
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/llog-mutants.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
t_begin=$SECONDS

# copy_tree DEST: the working tree's files into DEST, refreshed: one tar
# keeps each file's modification time, so in a kept scratch directory
# only what changed since the last run is rebuilt. Outside a git checkout:
# every file but build/ and .git/. A file deleted but not yet committed
# is left out.
list_files() {
	if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$root" ls-files -co --exclude-standard -z
	else
		(cd "$root" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0)
	fi
}
copy_tree() {
	mkdir -p "$1"
	list_files | (
		cd "$root"
		while IFS= read -r -d '' f; do [[ -f $f ]] && printf '%s\0' "$f"; done
	) | tar -C "$root" --null -T - -cf - | tar -C "$1" -xf -
}

# The lane of KIND works in $work/KIND: its copy in src/, its build of
# CMakePresets.json's preset KIND in src/build/KIND, at the same place in
# the copy as scripts/test.sh's builds are in the tree: the same flags and,
# relative to the build directory, the same paths, so with ccache
# (scripts/test.sh sets it up, base directory the tree's root) the
# unmutated objects come from the cache.
configure() {
	local kind=$1 src=$work/$1/src
	[[ -f $src/build/$kind/CMakeCache.txt ]] && return 0
	(cd "$src" && cmake --preset "$kind") >"$work/$kind/configure.log" 2>&1 || {
		cat "$work/$kind/configure.log"
		return 1
	}
}

# build KIND: builds the kind's targets; the log in $work/KIND/build.log
build() {
	local kind=$1 tv="targets_$1[@]"
	cmake --build "$work/$kind/src/build/$kind" --parallel "$jobs" --target "${!tv}" \
		>"$work/$kind/build.log" 2>&1
}

# run_tests KIND NAMES...: runs them; prints the names of those that failed.
# Each test gets 20 s (--timeout for those without a timeout of their own;
# test_sched's own is 20 s): unmutated they pass in a few seconds, also
# under TSan; a mutant that deadlocks one (M7 does at times) is killed by
# the timeout in 20 s instead of a minute. The output: $work/KIND/ctest.log.
run_tests() {
	local kind=$1 regex wrap=() log=$work/$1/ctest.log
	shift
	regex="^($(IFS='|'; echo "$*"))\$"
	[[ $kind == tsan ]] && setarch "$(uname -m)" -R true 2>/dev/null &&
		wrap=(setarch "$(uname -m)" -R)
	"${wrap[@]}" ctest --test-dir "$work/$kind/src/build/$kind" -R "$regex" --timeout 20 \
		--output-on-failure >"$log" 2>&1 || true
	sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$log" | tr '\n' ' '
	# a name that ctest does not know is an error, not a kill
	if grep -q "No tests were found" "$log"; then
		echo "(no test matched $regex)"
	fi
}

# mutant KIND NAME TESTS: one mutant of the lane, its report line on
# stdout; returns 1 when it was not killed.
mutant() {
	local kind=$1 name=$2 tests=$3 src=$work/$1/src log=$work/$1/ctest.log
	local patch=$here/$2.patch t=$SECONDS files failed why verdict rc=0 f
	files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch")
	if ! patch -d "$src" -p1 -F0 --dry-run --silent <"$patch" >/dev/null 2>&1; then
		printf '  %-26s PATCH NO LONGER APPLIES (update tests/mutants/%s.patch)\n' "$name" "$name"
		return 1
	fi
	patch -d "$src" -p1 -F0 --silent --no-backup-if-mismatch <"$patch"
	if build "$kind"; then
		# shellcheck disable=SC2086
		failed=$(run_tests "$kind" $tests)
		if [[ -z $failed ]]; then
			verdict="SURVIVED ($tests pass)"
			rc=1
		elif [[ $failed == *"no test matched"* ]]; then
			verdict="ERROR: $failed"
			rc=1
		else
			verdict="killed by ${failed% }"
			# which case: cmocka's failed tests, else the first report line
			why=$(sed -n 's/^\[  FAILED  \] \(test_[a-z_0-9]*\)$/\1/p' "$log" |
				sort -u | tr '\n' ' ')
			[[ -n $why ]] || why=$(grep -m 1 -oE 'ThreadSanitizer: [a-z -]+|FAIL: .*|Timeout' \
				"$log" || true)
			[[ -n $why ]] && verdict+=": ${why% }"
		fi
	else
		grep -m 5 -E 'error' "$work/$kind/build.log" || true
		verdict="DOES NOT COMPILE"
		rc=1
	fi
	# restore (a fresh copy: newer than the objects, so the next build
	# recompiles what the mutant changed)
	for f in $files; do cp "$root/$f" "$src/$f"; done
	printf '  %-26s %-7s %s (%ds)\n' "$name" "$kind" "$verdict" $((SECONDS - t))
	return $rc
}

# lane KIND: the baseline, then each selected mutant of KIND in the
# table's order. Writes $work/KIND/baseline.out and $work/KIND/NAME.out
# (report lines) and $work/KIND/status (0 when every mutant was killed).
lane() {
	local kind=$1 t=$SECONDS row name k tests names=() failed status=0
	mkdir -p "$work/$kind"
	echo 1 >"$work/$kind/status"
	copy_tree "$work/$kind/src"
	if ! configure "$kind" >"$work/$kind/baseline.out" 2>&1; then
		echo "FAIL: configuring the unmutated $kind copy failed" >>"$work/$kind/baseline.out"
		return 1
	fi
	if ! build "$kind"; then
		{
			tail -n 30 "$work/$kind/build.log"
			echo "FAIL: the unmutated $kind build failed"
		} >"$work/$kind/baseline.out"
		return 1
	fi
	for row in "${table[@]}"; do
		IFS='|' read -r name k tests <<<"$row"
		[[ $k == "$kind" ]] && selected "$name" && names+=($tests)
	done
	mapfile -t names < <(printf '%s\n' "${names[@]}" | sort -u)
	failed=$(run_tests "$kind" "${names[@]}")
	if [[ -n $failed ]]; then
		{
			cat "$work/$kind/ctest.log"
			echo "FAIL: baseline ($kind): $failed fail(s) without any mutant"
		} >"$work/$kind/baseline.out"
		return 1
	fi
	printf '  baseline %-7s %-40s pass   (%ds)\n' "$kind" "${names[*]}" $((SECONDS - t)) \
		>"$work/$kind/baseline.out"
	for row in "${table[@]}"; do
		IFS='|' read -r name k tests <<<"$row"
		[[ $k == "$kind" ]] && selected "$name" || continue
		mutant "$kind" "$name" "$tests" >"$work/$kind/$name.out" 2>&1 || status=1
	done
	# leave the build matching the sources (a kept scratch directory)
	build "$kind" || true
	echo "$status" >"$work/$kind/status"
}

kinds=()
for row in "${table[@]}"; do
	IFS='|' read -r name kind tests <<<"$row"
	selected "$name" || continue
	[[ " ${kinds[*]} " == *" $kind "* ]] || kinds+=("$kind")
done

echo "mutants: scratch copies in $work/{${kinds[*]// /,}} (one lane a kind, at the same time)"
pids=()
for kind in "${kinds[@]}"; do
	rm -f "$work/$kind"/*.out
	lane "$kind" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done

status=0
for kind in "${kinds[@]}"; do
	cat "$work/$kind/baseline.out"
	[[ $(cat "$work/$kind/status" 2>/dev/null) == 0 ]] || status=1
done
for row in "${table[@]}"; do
	IFS='|' read -r name kind tests <<<"$row"
	selected "$name" || continue
	[[ -f $work/$kind/$name.out ]] && cat "$work/$kind/$name.out"
done

printf 'mutants: %s in %ds\n' "$( ((status == 0)) && echo "all killed" || echo FAILED)" \
	$((SECONDS - t_begin))
exit $status
