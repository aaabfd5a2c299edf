#!/usr/bin/env bash
# scripts/test.sh - everything CI checks, on this machine.
#
#   bash scripts/test.sh                 all steps, in this order
#   bash scripts/test.sh release asan    only the named steps
#
# Steps:
#   labels     tests/model/check_labels.sh: every function the spin model
#              names (its "C:" comments) exists, with its steps in the
#              model's order; scripts/check_filemap.sh: every source file
#              is in the file maps (liblog/README.md, backends/, tools/) and
#              every file listed there exists (seconds, no build)
#   release    configure, build (-Werror) and run the whole ctest suite (gcc)
#   deps       scripts/check_deps.sh on the release build's objects: no
#              link-level cycle but the designed one, the format unit calls
#              nothing of the core, the core no backend but the designed
#              edge (builds the library alone when release did not run)
#   consumers  (with release and tsan: in the background, at the lowest
#              priority, while the TSan tests run)
#              install the release build to a temporary prefix; check that
#              the documentation (share/doc/llog) and llogcat's manual page
#              are there; build and run programs that use it through
#              find_package(llog) and through pkg-config, and one that uses
#              add_subdirectory() on the sources
#   asan       the whole suite built with clang (-Werror) under
#              AddressSanitizer + UndefinedBehaviorSanitizer, and the libFuzzer
#              runs of llogcat's frame reader and binary record decoder and the
#              syslog sink's RELP client (5 s each): gcc builds release and
#              tsan, clang this one, so both compilers build everything
#   tsan       the whole suite under ThreadSanitizer (but the compile-time
#              checks, *_compile_*, which the release step ran with the same
#              compilers)
#   mutants    tests/mutants/run.sh: eleven mutants of the wake-up, BLOCK and
#              shutdown handshakes, each applied alone to a scratch copy
#              (release and TSan builds of only what their tests need; the
#              release and the TSan mutants in two copies at once);
#              each must be killed by its tests (about a minute on 2
#              cores: the unmutated objects come from ccache)
#   bench      bench/run.sh --quick: llog and spdlog side by side in seconds
#              (installs scripts/deps.sh bench), on the release step's build
#              when it ran; checks only that it completes and that llog's
#              file has every record; prints its table
#
# Installs missing Debian packages first (scripts/deps.sh). Stops at the
# first failure and exits non-zero; prints a summary either way. While the
# release and asan tests run, the next sanitizer build runs in the
# background at nice 19 (prebuild), in the CPU time the tests leave idle.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
all_steps=(labels release deps consumers asan tsan mutants bench)
steps=("$@")
((${#steps[@]})) || steps=("${all_steps[@]}")
for s in "${steps[@]}"; do
	[[ " ${all_steps[*]} " == *" $s "* ]] || {
		echo "usage: $0 [${all_steps[*]}]..." >&2
		exit 2
	}
done

jobs=$(nproc 2>/dev/null || echo 2)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
export NO_COLOR=1 # plain console output in the logs and in the consumers' checks

tmp=$(mktemp -d "${TMPDIR:-/tmp}/llog-test.XXXXXX")
declare -A prebuilt # preset -> pid of its background build (prebuild)
summary=()
current=""
consumers_later=0 # the consumers step runs during tsan's tests
consumers_pid=""
t_begin=$SECONDS

begin() {
	current=$1
	t_step=$SECONDS
	printf '\n=== %s\n' "$current"
}
end() {
	summary+=("$(printf '  ok    %-58s %4ds' "$current" $((SECONDS - t_step)))")
	current=""
}
finish() {
	local rc=$?
	printf '\n=== summary\n'
	local line
	for line in "${summary[@]}"; do echo "$line"; done
	if [[ -n $current ]]; then
		printf '  FAIL  %-58s %4ds\n' "$current" $((SECONDS - t_step))
	fi
	if ((rc == 0)); then
		printf 'PASSED: %s (%ds)\n' "${steps[*]}" $((SECONDS - t_begin))
	else
		printf 'FAILED (exit %d) after %ds\n' "$rc" $((SECONDS - t_begin))
	fi
	local p
	for p in "${prebuilt[@]}"; do kill_tree "$p"; done # a step failed first
	[[ -z $consumers_pid ]] || kill_tree "$consumers_pid"
	wait
	rm -rf "$tmp"
	exit "$rc"
}
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}
trap finish EXIT

# configure NAME: cmake --preset NAME. A build directory that an older
# checkout configured with another generator (Unix Makefiles) cannot be
# configured with the presets' Ninja: it is started afresh.
configure() {
	local cache=build/$1/CMakeCache.txt
	if [[ -f $cache ]] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
		echo "note: build/$1 was made with another generator; starting it afresh"
		rm -rf "build/$1"
	fi
	cmake --preset "$1"
}

# build_preset NAME: configure and build one preset; when prebuild started
# it in the background, waits for that build instead (and shows its log).
build_preset() {
	local pid=${prebuilt[$1]:-}
	if [[ -n $pid ]]; then
		unset "prebuilt[$1]"
		if wait "$pid"; then
			tail -n 3 "$tmp/build-$1.log"
			echo "($1 built in the background while the previous step's tests ran: $tmp/build-$1.log)"
			return 0
		fi
		cat "$tmp/build-$1.log"
		echo "error: the background build of $1 failed (log above)" >&2
		return 1
	fi
	configure "$1"
	cmake --build --preset "$1" --parallel "$jobs"
}

# prebuild NAME: when NAME's step is among those to run, starts its build
# in the background at the lowest priority, to run while the current
# step's tests run: the tests wait on processes, servers and timers part of
# the time and leave a core idle, which the build then takes (at nice 19 it
# takes nothing the tests want). Its step waits for it (build_preset).
prebuild() {
	[[ " ${steps[*]} " == *" $1 "* && -z ${prebuilt[$1]:-} ]] || return 0
	(configure "$1" && nice -n 19 cmake --build --preset "$1" --parallel "$jobs") \
		>"$tmp/build-$1.log" 2>&1 &
	prebuilt[$1]=$!
}

# ASLR with high mmap entropy (vm.mmap_rnd_bits > 28, as on recent kernels)
# breaks the sanitizer runtimes of gcc 12 and clang 14 ("FATAL:
# ThreadSanitizer: unexpected memory mapping"); running with ASLR off
# (setarch -R) avoids it. san_wrap KIND CC sets the array wrap to the prefix
# to run programs sanitized by compiler CC with: empty, or setarch.
setarch_cmd=(setarch "$(uname -m)" -R)
setarch_works() { "${setarch_cmd[@]}" true 2>/dev/null; }
san_wrap() {
	local kind=$1 cc=$2 bits i
	local dir=$tmp/probe-$kind
	wrap=()
	mkdir -p "$dir"
	printf '#include <stdlib.h>\nint main(void) { free(malloc(16)); return 0; }\n' >"$dir/p.c"
	"$cc" -fsanitize="$kind" -g "$dir/p.c" -o "$dir/p"
	bits=$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 0)
	for i in 1 2 3 4 5; do
		"$dir/p" >"$dir/out" 2>&1 || break
	done
	if ((bits <= 28)) && [[ ! -s $dir/out ]]; then
		return 0
	fi
	if setarch_works && "${setarch_cmd[@]}" "$dir/p"; then
		wrap=("${setarch_cmd[@]}")
		echo "note: vm.mmap_rnd_bits=$bits; running $kind-sanitized tests under ${wrap[*]}"
		return 0
	fi
	if [[ -s $dir/out ]]; then
		cat "$dir/out" >&2
		echo "error: a trivial $kind-sanitized program fails here (output above), also" \
			"under setarch -R (or setarch is not permitted); if it is about memory" \
			"mappings, try: sysctl vm.mmap_rnd_bits=28" >&2
		return 1
	fi
	return 0
}

# sanitized_suite PRESET KIND CC: build and run the whole suite under a
# sanitizer, the preset's compiler CC.
sanitized_suite() {
	local preset=$1 kind=$2 cc=$3
	local log=$tmp/ctest-$preset.log
	build_preset "$preset"
	[[ $preset == asan ]] && prebuild tsan
	san_wrap "$kind" "$cc"
	if "${wrap[@]}" ctest --preset "$preset" 2>&1 | tee "$log"; then
		return 0
	fi
	# A mapping failure can be intermittent (it depends on where ASLR put
	# things): retry the failed tests once with ASLR off, and only then.
	if ((${#wrap[@]} == 0)) && setarch_works &&
		grep -Eq 'unexpected memory mapping|Shadow memory range interleaves' "$log"; then
		echo "note: sanitizer runtime hit an ASLR mapping; rerunning failed tests under ${setarch_cmd[*]}"
		"${setarch_cmd[@]}" ctest --preset "$preset" --rerun-failed
		return
	fi
	return 1
}

# expect_line NAME FILE: the consumer NAME's log line must be in FILE.
expect_line() {
	if ! grep -F "llog consumer $1: hello, 42" "$2"; then
		echo "error: consumer $1 did not log its line; its stderr was:" >&2
		cat "$2" >&2
		return 1
	fi
}

consumers() {
	local prefix=$tmp/prefix out pcfile f
	cmake --install build/release --prefix "$prefix"

	# 0. the documentation and llogcat's manual page under the prefix
	for f in share/doc/llog/README.md share/doc/llog/ARCHITECTURE.md \
		share/doc/llog/architecture/queue.md share/doc/llog/deploy.md \
		share/doc/llog/fields.md share/doc/llog/crash-handling.md \
		share/doc/llog/file-format.md share/doc/llog/examples/deploy/myservice.service \
		share/man/man1/llogcat.1; do
		[[ -s $prefix/$f ]] || {
			echo "error: cmake --install did not put $f under $prefix (install rules: CMakeLists.txt, tools/CMakeLists.txt)" >&2
			return 1
		}
	done

	# 1. find_package(llog CONFIG REQUIRED) + llog::llog
	out=$tmp/find_package
	cmake -S tests/consumer/find_package -B "$out" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF | tee "$out.cfg"
	grep -Fq "from $prefix/" "$out.cfg" || {
		echo "error: find_package did not use the llog installed in $prefix" >&2
		return 1
	}
	cmake --build "$out" --parallel "$jobs"
	"$out/app" 2>"$out.err"
	expect_line find_package "$out.err"
	# the same from C++: its fields and its context on the line
	"$out/app_cxx" 2>"$out.cxx.err"
	expect_line find_package-c++ "$out.cxx.err"
	grep -Fq $'\tlang="c++" answer=42 ok=true' "$out.cxx.err" || {
		echo "error: the C++ consumer's line lacks its context and fields:" >&2
		cat "$out.cxx.err" >&2
		return 1
	}

	# 2. pkg-config (libdir may be lib or lib/<multiarch>)
	out=$tmp/pkg_config
	pcfile=$(find "$prefix" -name llog.pc -print -quit)
	[[ -n $pcfile ]] || {
		echo "error: no llog.pc under $prefix" >&2
		return 1
	}
	mkdir -p "$out"
	export PKG_CONFIG_PATH=${pcfile%/*}
	echo "pkg-config --cflags --libs --static llog: $(pkg-config --cflags --libs --static llog)"
	make -C tests/consumer/pkg_config O="$out"
	unset PKG_CONFIG_PATH
	"$out/app" 2>"$out.err"
	expect_line pkg_config "$out.err"

	# 3. add_subdirectory() of the source tree
	out=$tmp/subdir
	cmake -S tests/consumer/subdir -B "$out" -DCMAKE_BUILD_TYPE=Release
	cmake --build "$out" --parallel "$jobs"
	"$out/app" 2>"$out.err"
	expect_line subdir "$out.err"
}

begin "dependencies (scripts/deps.sh test)"
bash scripts/deps.sh test
end

# Every build goes through ccache, its cache in build/ccache, paths hashed
# relative to this tree (CCACHE_BASEDIR) and not by directory: the mutants'
# scratch copies (build/mutants/{release,tsan}/src, configured with the
# same presets) then
# compiles only what a mutant changes, and a second run here only what
# changed since the first. Objects are the same as without it.
if command -v ccache >/dev/null 2>&1; then
	export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
	export CCACHE_DIR=$PWD/build/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
	# depend mode: ccache hashes the compiler's own dependency file (CMake
	# asks for one) instead of running the preprocessor first, so a cold
	# cache costs little (a release build: 90 s cold in the default mode,
	# 71 s in this one, 75 s without ccache, on 2 cores)
	export CCACHE_DEPEND=1
fi

for s in "${steps[@]}"; do
	case $s in
	release)
		begin "release: gcc -Werror build + ctest"
		build_preset release
		prebuild asan
		ctest --preset release
		end
		;;
	deps)
		begin "deps: the library's object-level layering (scripts/check_deps.sh)"
		if [[ " ${steps[*]} " != *" release "* ]]; then
			configure release
			cmake --build --preset release --parallel "$jobs" --target llog
		fi
		bash scripts/check_deps.sh build/release
		end
		;;
	consumers)
		if [[ " ${steps[*]} " == *" release "* && " ${steps[*]} " == *" tsan "* ]]; then
			consumers_later=1 # in the background of tsan's tests (below)
			continue
		fi
		begin "consumers: find_package, pkg-config, add_subdirectory"
		[[ " ${steps[*]} " == *" release "* ]] || build_preset release
		consumers
		end
		;;
	asan)
		begin "asan: clang -Werror ASan+UBSan build + ctest (fuzz runs included)"
		sanitized_suite asan address clang
		end
		;;
	tsan)
		if ((consumers_later)); then
			# The consumers' builds at the lowest priority, in the CPU
			# time the TSan tests leave idle (as prebuild does).
			(
				renice -n 19 -p "$BASHPID" >/dev/null || true
				consumers
			) >"$tmp/consumers.log" 2>&1 &
			consumers_pid=$!
		fi
		begin "tsan: gcc TSan build + ctest"
		sanitized_suite tsan thread gcc
		end
		if ((consumers_later)); then
			begin "consumers: find_package, pkg-config, add_subdirectory (during tsan)"
			if ! wait "$consumers_pid"; then
				cat "$tmp/consumers.log"
				echo "error: the consumers' checks failed (log above)" >&2
				exit 1
			fi
			tail -n 5 "$tmp/consumers.log"
			end
		fi
		;;
	labels)
		begin "labels: the spin model's C: references, the file maps"
		bash tests/model/check_labels.sh
		bash scripts/check_filemap.sh
		end
		;;
	mutants)
		begin "mutants: tests/mutants/run.sh (every mutant killed)"
		rm -rf build/mutants # a fresh copy, its objects from ccache
		LLOG_MUTANTS_DIR=$PWD/build/mutants JOBS=$jobs bash tests/mutants/run.sh
		end
		;;
	bench)
		begin "bench: bench/run.sh --quick (llog vs spdlog smoke test)"
		if [[ " ${steps[*]} " == *" release "* ]]; then
			# the release build has the benchmarks: no build of its own
			bash bench/run.sh --quick --build build/release --out "$tmp/bench"
		else
			bash bench/run.sh --quick --out "$tmp/bench"
		fi
		end
		;;
	esac
done
