#!/usr/bin/env bash
# Builds and runs every test under a sanitizer, in its own build folder.
#
#   scripts/sanitize.sh address,undefined     # -> build-asan
#   scripts/sanitize.sh thread                # -> build-tsan
#
# Any report fails the run (-fno-sanitize-recover=all; TSan exits non-zero
# on a report). Not part of .ci/run yet: each takes a full build.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers="${1:?usage: scripts/sanitize.sh address,undefined | thread}"
case "$sanitizers" in
  thread) dir=build-tsan ;;
  *address*) dir=build-asan ;;
  *) dir="build-${sanitizers//,/-}" ;;
esac

./scripts/install-deps.sh
cmake -S . -B "$dir" -G Ninja -DSTORMGUARD_WERROR=ON -DSTORMGUARD_SANITIZE="$sanitizers"
cmake --build "$dir"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp}"
skip=()
if [[ "$sanitizers" == thread ]]; then
  # The end-to-end storm demo judges latencies against deadlines of a few
  # hundred ms; under TSan's slowdown every call times out, which says
  # nothing about races (its processes still run in the other demo tests).
  # The chaos tests (label chaos) judge answers against deadlines plus
  # 50 ms and recovery within 2 s: under TSan's slowdown those figures
  # measure the sanitizer, not the chain. Their processes and code paths
  # still run under ASan and in the other demo tests.
  skip=(-E 'DemoIntegrationTest\.StormguardStopsTheStorm' -LE chaos)
fi
ctest --test-dir "$dir" --output-on-failure -j2 "${skip[@]}"
