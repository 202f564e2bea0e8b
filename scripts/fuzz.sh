#!/usr/bin/env bash
# Builds the libFuzzer harnesses in fuzz/ (clang-14, ASan + UBSan) and runs
# each one for SECONDS, JOBS at a time (default 2).
#
#   scripts/fuzz.sh 10         # what CI runs: 10 s per harness
#   scripts/fuzz.sh 600 1      # one harness at a time, 10 min each
#
# Each harness starts from a scratch copy of fuzz/corpus/<name>/ (with
# fuzz/<name>.dict when there is one) under build-fuzz/runs/<name>/; the
# repo's corpus is never written. Prints one line per harness with its
# executions, and exits non-zero if any run hit a crash, a broken invariant,
# a leak, a timeout, running out of memory or a sanitizer report; the
# input that did it and the log are named on that line. Reproduce with
#   build-fuzz/<name>_fuzzer build-fuzz/runs/<name>/crash-...
# Installs its own packages when missing (needs root then).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/fuzz.sh SECONDS [JOBS]"
seconds="${1:?$usage}"
parallel="${2:-2}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: SECONDS must be a positive integer, not '$seconds'" >&2; exit 2; }
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: JOBS must be a positive integer, not '$parallel'" >&2; exit 2; }

./scripts/install-deps.sh clang-14 libclang-rt-14-dev llvm-14

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1 with line tables, as the sanitizer builds: libFuzzer's own advice, and
# symbolized stacks need no more debug information than that.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DSTORMGUARD_FUZZ=ON \
      -DSTORMGUARD_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j "$parallel"

# Symbolized stacks; any sanitizer report aborts (the build adds
# -fno-sanitize-recover=all), which libFuzzer records as a crash.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer-14 || true)}"

# Runs harness $1 in build-fuzz/runs/$1/; its exit status goes to rc.
run_one() {
  local name="$1" dir="build-fuzz/runs/$1"
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  if [[ -d "fuzz/corpus/$name" ]]; then cp -R "fuzz/corpus/$name/." "$dir/corpus/"; fi
  local args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
              -max_len=4096 -artifact_prefix="$dir/")
  if [[ -f "fuzz/$name.dict" ]]; then args+=(-dict="fuzz/$name.dict"); fi
  local rc=0
  "build-fuzz/${name}_fuzzer" "${args[@]}" "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}

names=()
for source in fuzz/*_fuzzer.cc; do
  name="$(basename "$source" _fuzzer.cc)"
  names+=("$name")
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  run_one "$name" &
done
wait

failed=0
printf '%-24s %14s %10s %6s %8s  %s\n' harness executions exec/s cov corpus result
for name in "${names[@]}"; do
  dir="build-fuzz/runs/$name"
  log="$dir/log"
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)"
  corpus="$(find "$dir/corpus" -type f | wc -l)"
  result=ok
  artifact="$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
                -o -name 'oom-*' -o -name 'slow-unit-*' \) | head -1)"
  if [[ "$(cat "$dir/rc")" != 0 ]] || [[ -n "$artifact" ]] ||
     grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant broken' "$log"; then
    result="FAILED: ${artifact:-no input saved}, see $log"
    failed=1
  fi
  printf '%-24s %14s %10s %6s %8s  %s\n' "$name" "${runs:-?}" "${rate:-?}" "${cov:-?}" "$corpus" "$result"
  if [[ "$result" != ok ]]; then
    grep -m1 -E 'invariant broken|runtime error|ERROR: ' "$log" | sed 's/^/    /' || true
  fi
done
exit "$failed"
