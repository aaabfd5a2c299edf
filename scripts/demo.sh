#!/usr/bin/env bash
# scripts/demo.sh - build and run the demo, examples/service.
#
#   bash scripts/demo.sh [workers] [seconds]
#
# Installs the missing build dependencies (scripts/deps.sh build), configures
# the release build in build/release, builds only what the demo needs (the
# service and llogcat), runs the service, then shows its compressed log file
# through llogcat. Safe to run again: a second run rebuilds nothing current.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/deps.sh build

# The test suite needs cmocka and spin, which the demo does not: without them
# configure the build without tests and benchmarks (scripts/test.sh installs
# them and configures the same build with everything).
only_demo=()
if ! pkg-config --exists cmocka 2>/dev/null || ! command -v spin >/dev/null; then
	only_demo=(-DLLOG_BUILD_TESTS=OFF -DLLOG_BUILD_BENCH=OFF)
fi
# a build directory an older checkout made with another generator than the
# presets' Ninja cannot be configured again: start it afresh
if [[ -f build/release/CMakeCache.txt ]] &&
	! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' build/release/CMakeCache.txt; then
	rm -rf build/release
fi
cmake --preset release "${only_demo[@]}" >/dev/null
cmake --build --preset release --parallel "$(nproc 2>/dev/null || echo 2)" --target service llogcat

echo
build/release/examples/service "$@"
log="${TMPDIR:-/tmp}/llog-demo-service.log.zst"
echo
echo "llogcat --stats $log"
build/release/tools/llogcat --stats "$log" | head -1
echo
echo "the last records (llogcat $log | tail -5):"
build/release/tools/llogcat "$log" | tail -5
echo
echo "slow requests by their fields (llogcat --where 'ms>100' $log | tail -3):"
build/release/tools/llogcat --where 'ms>100' "$log" | tail -3
