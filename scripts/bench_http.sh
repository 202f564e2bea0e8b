#!/usr/bin/env bash
# HTTP throughput on loopback with wrk: one tiny GET handler served four ways
# (bench/http_bench_server.cc), keep-alive on, and a table of requests/s and
# latency p50/p99 for each:
#   untuned     cpp-httplib as Debian ships it (Nagle on)
#   bare        the tuned server (http::TuneAndBind), handler alone
#   middleware  + http::Middleware
#   pipeline    + a preset pipeline around the handler's work
#
#   scripts/bench_http.sh             # 10 s per mode, 16 connections, 2 wrk threads
#   scripts/bench_http.sh 30 64 2
#
# For developers, not CI: numbers depend on the machine and its load. Builds
# stormguard_http_bench_server in build/ and installs wrk (needs root then).
set -euo pipefail
cd "$(dirname "$0")/.."

usage="usage: scripts/bench_http.sh [SECONDS] [CONNECTIONS] [THREADS]"
seconds="${1:-10}"
connections="${2:-16}"
threads="${3:-2}"
for v in "$seconds" "$connections" "$threads"; do
  [[ "$v" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench_http.sh: '$v' is not a whole number in 1..9999; $usage" >&2; exit 2; }
done
((threads <= connections)) || { echo "bench_http.sh: THREADS ($threads) must not exceed CONNECTIONS ($connections)" >&2; exit 2; }

./scripts/install-deps.sh wrk
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
[[ -f build/build.ninja ]] || cmake -S . -B build -G Ninja "${launcher[@]}" >/dev/null
cmake --build build --target stormguard_http_bench_server -j2 >/dev/null
server="$(find build -name stormguard_http_bench_server -type f -perm -u+x | head -n 1)"

work="$(mktemp -d build/bench_http.XXXXXX)"  # scratch, removed on exit
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Writes "requests/s p50 p99" for one mode to $work/MODE.row.
run_mode() {
  local mode="$1" port=""
  "$server" "$mode" $((seconds + 60)) >"$work/$mode.port" &
  pid=$!
  for _ in $(seq 100); do
    port="$(awk '/^port /{print $2}' "$work/$mode.port")"
    [[ -n "$port" ]] && break
    sleep 0.1
  done
  [[ -n "$port" ]] || { echo "bench_http.sh: the $mode server printed no port" >&2; exit 1; }
  wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "http://127.0.0.1:$port/hello" >"$work/$mode.wrk"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  awk '/^Requests\/sec:/{rps=$2} /^ +50%/{p50=$2} /^ +99%/{p99=$2} END{print rps, p50, p99}' \
    "$work/$mode.wrk" >"$work/$mode.row"
}

printf '%-11s %12s %10s %10s\n' mode requests/s p50 p99
for mode in untuned bare middleware pipeline; do
  run_mode "$mode"
  read -r rps p50 p99 <"$work/$mode.row"
  printf '%-11s %12s %10s %10s\n' "$mode" "$rps" "$p50" "$p99"
done
echo "(wrk -t$threads -c$connections -d${seconds}s, keep-alive, loopback; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
