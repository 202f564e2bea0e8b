#!/usr/bin/env bash
# The hot-path figures of issue 31, each against its floor measured in the
# same run, as one table of medians over 5 repetitions (interleaved, so a
# noisy neighbour slows a value and its floor alike).
#
#   scripts/bench_hot_paths.sh [BUILD_DIR]   # default: $STORMGUARD_BUILD_DIR, else the tree's build/
#
# Builds stormguard_bench in BUILD_DIR (configuring it first if it has no
# build files; the async rows need libasio-dev), then prints:
#
#   figure                   value (bench/)                            floor                           goal
#   clock reads per call     BM_Pipeline_Success_Metrics_ClockReads    none                            <= 3.0
#   async overhead           BM_Async_Pipeline_Success, CPU time       BM_Async_Baseline_OwnSlot       <= +100 ns
#   async allocations        the same, allocs_per_call                 the same                        <= +1
#   heap per waiting call    BM_Async_Backoff_100k                     BM_Async_Backoff_100k_Baseline  <= +500 B
#
# Times are CPU time: a thread that other work preempts is not charged for
# the wait. Exits 1 when a figure misses its goal, 2 when it cannot measure. Needs jq.
# For developers: CI does not run it (shared machines make times noisy).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${STORMGUARD_BUILD_DIR:-$root/build}}
command -v jq >/dev/null || { echo "bench_hot_paths.sh: needs jq (apt-get install jq)" >&2; exit 2; }

if [[ ! -f $build/build.ninja && ! -f $build/Makefile ]]; then
  cmake -S "$root" -B "$build" -G Ninja >/dev/null
fi
cmake --build "$build" --target stormguard_bench --parallel 2 >/dev/null

json=$(mktemp)
trap 'rm -f "$json" "$json.log" "$json.tsv"' EXIT
rows='^(BM_Pipeline_Success_Metrics_ClockReads|BM_Async_Baseline_OwnSlot|BM_Async_Pipeline_Success|BM_Async_Backoff_100k(_Baseline)?)(/iterations:1)?$'
echo "running 5 repetitions of each row..." >&2
"$build/stormguard_bench" --benchmark_filter="$rows" --benchmark_repetitions=5 \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out="$json" --benchmark_out_format=json >"$json.log" 2>&1 || { cat "$json.log" >&2; exit 2; }

# One TSV line per figure: name, value, floor, difference, goal, verdict.
jq -r '
  def median($name; $field):
    [.benchmarks[] | select(.aggregate_name == "median" and (.run_name | sub("/iterations:1$"; "")) == $name)]
    | if length == 1 and (.[0].error_occurred | not) and .[0][$field] != null then .[0][$field]
      else error("no median of \($field) for \($name)") end;
  def fmt($x; $digits): ($x * pow(10; $digits) | round) / pow(10; $digits) | tostring;
  def row($figure; $value; $floor; $unit; $goal_text):
    ($goal_text | tonumber) as $goal |
    [$figure, fmt($value; 2) + $unit, (if $floor == null then "-" else fmt($floor; 2) + $unit end),
     (if $floor == null then "-" else (if $value >= $floor then "+" else "" end) + fmt($value - $floor; 2) + $unit end),
     (if $floor == null then "<= " else "<= +" end) + $goal_text + $unit,
     (if ($value - ($floor // 0)) <= $goal then "pass" else "FAIL" end)];
  row("clock reads per call"; median("BM_Pipeline_Success_Metrics_ClockReads"; "clock_reads_per_call"); null; ""; "3.0"),
  row("async overhead"; median("BM_Async_Pipeline_Success"; "cpu_time");
      median("BM_Async_Baseline_OwnSlot"; "cpu_time"); " ns"; "100"),
  row("async allocations"; median("BM_Async_Pipeline_Success"; "allocs_per_call");
      median("BM_Async_Baseline_OwnSlot"; "allocs_per_call"); ""; "1"),
  row("heap per waiting call"; median("BM_Async_Backoff_100k"; "bytes_per_waiting_call");
      median("BM_Async_Backoff_100k_Baseline"; "bytes_per_waiting_call"); " B"; "500")
  | @tsv' "$json" >"$json.tsv" || exit 2

line() { printf '%-22s  %-12s  %-12s  %-12s  %-12s  %s\n' "$@"; }
line figure value floor difference goal result
fails=0
while IFS=$'\t' read -r figure value floor diff goal verdict; do
  line "$figure" "$value" "$floor" "$diff" "$goal" "$verdict"
  [[ $verdict == pass ]] || fails=$((fails + 1))
done <"$json.tsv"
((fails == 0)) || exit 1
