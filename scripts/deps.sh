#!/usr/bin/env bash
# scripts/deps.sh - install the Debian packages llog needs, when missing.
#
#   bash scripts/deps.sh build   compiler, cmake, ninja (the presets' generator),
#                                pkg-config, libzstd-dev
#   bash scripts/deps.sh test    the above plus zstd, cmocka, spin, clang and
#                                clang's runtimes (libFuzzer for the fuzz tests: llogcat's
#                                frame reader, the syslog sink's RELP client),
#                                rsyslog and rsyslog-relp (the syslog sink's collector,
#                                its RELP input imrelp), rsyslog-kafka and
#                                rsyslog-elasticsearch (omkafka and omelasticsearch:
#                                tests/test_deploy.sh checks the examples/deploy/
#                                configurations that load them with rsyslogd -N1) and python3
#                                (its json parser reads the JSON lines back), and
#                                patch, binutils (objdump) and perl for tests/mutants
#                                and tests/check_fences.sh, logrotate (the file
#                                sink's external-rotation tests run the real one)
#                                and systemd (systemd-journald and journalctl: the
#                                journald sink's test runs a journald of its own)
#                                and ccache (scripts/test.sh: the mutants' builds
#                                reuse the release and TSan steps' objects) and
#                                groff-base (llogcat_manpage renders tools/llogcat.1) and
#                                locales (test_f64_text makes a ',' radix locale
#                                from its de_DE source with localedef)
#   bash scripts/deps.sh bench   the build packages plus zstd, g++, spdlog (the
#                                peer of bench/run.sh) and gnuplot-nox
#
# Checks with dpkg-query first: when everything is installed it returns at
# once and never calls apt-get. Otherwise it runs apt-get update and install
# as root, or through sudo when not root; when neither is possible it lists
# the missing packages and exits non-zero.
#
# The sanitizer builds use gcc, whose runtimes (libasan8, libubsan1,
# libtsan2) come with build-essential; libclang-rt-14-dev brings clang's
# libFuzzer and sanitizer runtimes for the fuzz targets built with clang.
# The C++ test and example (tests/test_cxx.cpp, examples/cxx_service.cpp)
# build with g++ (build-essential: g++ and libstdc++) and, in the ASan
# build and the cxx_compile_* checks, clang++ (clang).
set -euo pipefail

profile=${1:-build}
build_pkgs=(build-essential cmake ninja-build pkg-config libzstd-dev)
test_pkgs=(zstd libcmocka-dev spin clang libclang-rt-14-dev rsyslog rsyslog-relp
	rsyslog-kafka rsyslog-elasticsearch python3
	patch binutils perl logrotate systemd ccache groff-base locales)
bench_pkgs=(zstd g++ libspdlog-dev gnuplot-nox)

case $profile in
build) want=("${build_pkgs[@]}") ;;
test) want=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
bench) want=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
*)
	echo "usage: $0 [build|test|bench]" >&2
	exit 2
	;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: no dpkg-query: not a Debian-based system; make sure these (or your" \
		"distribution's equivalents) are installed: ${want[*]}" >&2
	exit 0
fi

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "deps: all ${#want[@]} packages present (${profile})"
	exit 0
fi

if ((EUID == 0)); then
	as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
elif command -v sudo >/dev/null 2>&1 && [[ -t 0 ]]; then
	as_root=(sudo) # asks for the password on this terminal
else
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: not root and no usable sudo; install them with:" >&2
	echo "    apt-get update && apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "deps: installing ${missing[*]}"
apt_get=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
	-o Dpkg::Use-Pty=0)
"${apt_get[@]}" update
"${apt_get[@]}" install --no-install-recommends "${missing[@]}"
echo "deps: done"
