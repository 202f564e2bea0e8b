#!/usr/bin/env bash
# Peer comparison: the same pipeline (timeout, retry, circuit breaker,
# bulkhead) around a call that succeeds, in cockatiel (Node.js) and in
# stormguard (BM_Pipeline_CockatielEquivalent), on this machine, now.
# Prints both ns/call and their ratio.
#
#   bench/peers/run_cockatiel.sh [build-dir]     (default: build)
#
# Installs cockatiel into bench/peers/node_modules (not committed) without
# writing a package.json or a lockfile.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
bench="$build/stormguard_bench"
cockatiel_version="3.2.1"

[[ -x "$bench" ]] || { echo "missing $bench: build stormguard_bench first" >&2; exit 1; }
command -v node >/dev/null || { echo "node is required" >&2; exit 1; }
if [[ ! -f "$here/node_modules/cockatiel/package.json" ]]; then
  npm install --prefix "$here" --no-save --no-package-lock --no-audit --no-fund \
    "cockatiel@$cockatiel_version" >&2
fi

peer_json="$(node "$here/cockatiel_pipeline.js")"
ours_json="$("$bench" --benchmark_filter='^BM_Pipeline_CockatielEquivalent$' \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_format=json)"

# Medians; real_time (wall) is what the JS loop measures too.
PEER="$peer_json" OURS="$ours_json" node -e '
  const peer = JSON.parse(process.env.PEER);
  // Google Benchmark writes NaN for some aggregates of counters: not JSON.
  const report = JSON.parse(process.env.OURS.replace(/\bNaN\b/g, "null"));
  const ours = report.benchmarks.find((b) => b.aggregate_name === "median");
  const toNs = { ns: 1, us: 1e3, ms: 1e6 }[ours.time_unit];
  const oursNs = ours.real_time * toNs, oursCpu = ours.cpu_time * toNs;
  console.log(`cockatiel ${peer.runs.length} runs, median: ${peer.ns_per_call.toFixed(1)} ns/call`);
  const parts = Object.entries(peer.parts).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ");
  console.log(`  each policy alone (ns/call): ${parts}`);
  console.log(`stormguard BM_Pipeline_CockatielEquivalent median: ${oursNs.toFixed(1)} ns/call (cpu ${oursCpu.toFixed(1)} ns)`);
  console.log(`ratio cockatiel / stormguard: ${(peer.ns_per_call / oursNs).toFixed(1)}x`);
'
