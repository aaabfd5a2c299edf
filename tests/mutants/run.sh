#!/usr/bin/env bash
# tests/mutants/run.sh - every mutant of the wake-up, BLOCK and shutdown
# handshakes must be killed by the tests named for it (README.md here).
#
#   bash tests/mutants/run.sh            all mutants
#   bash tests/mutants/run.sh M2 M4      only these (M2 or M2-f1-after-f3)
#
# Copies the working tree (git's tracked and untracked, not ignored, files)
# to a scratch directory, builds there once per kind (release, tsan) the
# targets the table below needs, and checks that those tests pass on the
# unmutated copy. Then for each mutant: applies its patch to the copy,
# rebuilds incrementally (only what depends on the patched file), runs its
# tests, and restores the file. Prints "killed by TEST..." or "SURVIVED".
# Exits non-zero when a mutant survives, a patch no longer applies or a
# mutant no longer compiles, or the baseline fails.
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
src=$work/src
t_begin=$SECONDS

# The copy: refreshed file by file (unchanged files keep their time, so a
# kept scratch directory rebuilds only what changed since the last run).
# Outside a git checkout: every file but build/ and .git/.
list_files() {
	if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$root" ls-files -co --exclude-standard -z
	else
		(cd "$root" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print0)
	fi
}
mkdir -p "$src"
list_files | while IFS= read -r -d '' f; do
	[[ -f $root/$f ]] || continue # deleted, not yet committed
	if ! cmp -s "$root/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$root/$f" "$src/$f"
	fi
done

# configure KIND: the copy's build of CMakePresets.json's preset KIND
# (release or tsan), at the same place in the copy as scripts/test.sh's
# builds are in the tree: the same flags and, relative to the build
# directory, the same paths, so with ccache (scripts/test.sh sets it up,
# base directory the tree's root) the unmutated objects come from the cache.
configure() {
	local kind=$1
	[[ -f $src/build/$kind/CMakeCache.txt ]] && return 0
	(cd "$src" && cmake --preset "$kind") >"$work/configure-$kind.log" 2>&1 || {
		cat "$work/configure-$kind.log" >&2
		return 1
	}
}

# build KIND: builds the kind's targets; the log in $work/build-KIND.log
build() {
	local kind=$1 tv="targets_$1[@]"
	cmake --build "$src/build/$kind" --parallel "$jobs" --target "${!tv}" \
		>"$work/build-$kind.log" 2>&1
}

# run_tests KIND NAMES...: runs them; prints the names of those that failed.
# Each test gets 20 s (--timeout for those without a timeout of their own;
# test_sched's own is 20 s): unmutated they pass in a few seconds, also
# under TSan; a mutant that deadlocks one (M7 does at times) is killed by
# the timeout in 20 s instead of a minute.
run_tests() {
	local kind=$1 regex wrap=()
	shift
	regex="^($(IFS='|'; echo "$*"))\$"
	[[ $kind == tsan ]] && setarch "$(uname -m)" -R true 2>/dev/null &&
		wrap=(setarch "$(uname -m)" -R)
	"${wrap[@]}" ctest --test-dir "$src/build/$kind" -R "$regex" --timeout 20 \
		--output-on-failure >"$work/ctest.log" 2>&1 || true
	sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' "$work/ctest.log" | tr '\n' ' '
	# a name that ctest does not know is an error, not a kill
	if grep -q "No tests were found" "$work/ctest.log"; then
		echo "(no test matched $regex)"
	fi
}

kinds=()
for row in "${table[@]}"; do
	IFS='|' read -r name kind tests <<<"$row"
	selected "$name" || continue
	[[ " ${kinds[*]} " == *" $kind "* ]] || kinds+=("$kind")
done

status=0
echo "mutants: scratch copy in $work"
for kind in "${kinds[@]}"; do
	t=$SECONDS
	configure "$kind"
	if ! build "$kind"; then
		tail -n 30 "$work/build-$kind.log"
		echo "FAIL: the unmutated $kind build failed"
		exit 1
	fi
	names=()
	for row in "${table[@]}"; do
		IFS='|' read -r name k tests <<<"$row"
		[[ $k == "$kind" ]] && selected "$name" && names+=($tests)
	done
	mapfile -t names < <(printf '%s\n' "${names[@]}" | sort -u)
	failed=$(run_tests "$kind" "${names[@]}")
	if [[ -n $failed ]]; then
		cat "$work/ctest.log"
		echo "FAIL: baseline ($kind): $failed fail(s) without any mutant"
		exit 1
	fi
	printf '  baseline %-7s %-40s pass   (%ds)\n' "$kind" "${names[*]}" $((SECONDS - t))
done

for row in "${table[@]}"; do
	IFS='|' read -r name kind tests <<<"$row"
	selected "$name" || continue
	patch=$here/$name.patch
	t=$SECONDS
	files=$(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$patch")
	if ! patch -d "$src" -p1 -F0 --dry-run --silent <"$patch" >/dev/null 2>&1; then
		printf '  %-26s PATCH NO LONGER APPLIES (update tests/mutants/%s.patch)\n' "$name" "$name"
		status=1
		continue
	fi
	patch -d "$src" -p1 -F0 --silent --no-backup-if-mismatch <"$patch"
	if build "$kind"; then
		# shellcheck disable=SC2086
		failed=$(run_tests "$kind" $tests)
		if [[ -z $failed ]]; then
			verdict="SURVIVED ($tests pass)"
			status=1
		elif [[ $failed == *"no test matched"* ]]; then
			verdict="ERROR: $failed"
			status=1
		else
			verdict="killed by ${failed% }"
			# which case: cmocka's failed tests, else the first report line
			why=$(sed -n 's/^\[  FAILED  \] \(test_[a-z_0-9]*\)$/\1/p' "$work/ctest.log" |
				sort -u | tr '\n' ' ')
			[[ -n $why ]] || why=$(grep -m 1 -oE 'ThreadSanitizer: [a-z -]+|FAIL: .*|Timeout' \
				"$work/ctest.log" || true)
			[[ -n $why ]] && verdict+=": ${why% }"
		fi
	else
		grep -m 5 -E 'error' "$work/build-$kind.log" || true
		verdict="DOES NOT COMPILE"
		status=1
	fi
	# restore (a fresh copy: newer than the objects, so the next build
	# recompiles what the mutant changed)
	for f in $files; do cp "$root/$f" "$src/$f"; done
	printf '  %-26s %-7s %s (%ds)\n' "$name" "$kind" "$verdict" $((SECONDS - t))
done
# leave the build matching the sources (a kept scratch directory)
for kind in "${kinds[@]}"; do build "$kind" || true; done

printf 'mutants: %s in %ds\n' "$( ((status == 0)) && echo "all killed" || echo FAILED)" \
	$((SECONDS - t_begin))
exit $status
