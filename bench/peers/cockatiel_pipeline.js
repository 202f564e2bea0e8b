// The pipeline of BM_Pipeline_CockatielEquivalent, built with cockatiel
// (https://github.com/connor4312/cockatiel): timeout 1s (cooperative, an
// AbortSignal per call) -> retry (2 retries, exponential backoff) -> circuit
// breaker (count window of 100 calls, 50%, as ours) -> bulkhead (1000),
// the outermost first, around a call that succeeds. Prints one JSON line:
// the median ns per call of 5 runs, after a warm-up, and the same for each
// policy alone (to show where the time goes).
'use strict';

const {
  bulkhead, circuitBreaker, CountBreaker, ExponentialBackoff, handleAll, retry, timeout,
  TimeoutStrategy, wrap,
} = require('cockatiel');

const policies = {
  timeout: () => timeout(1000, TimeoutStrategy.Cooperative),
  retry: () => retry(handleAll, {
    maxAttempts: 2,
    backoff: new ExponentialBackoff({ initialDelay: 100, maxDelay: 10000 }),
  }),
  circuit_breaker: () => circuitBreaker(handleAll, {
    halfOpenAfter: 30 * 1000,
    breaker: new CountBreaker({ threshold: 0.5, size: 100, minimumNumberOfCalls: 100 }),
  }),
  bulkhead: () => bulkhead(1000),
};

let sink = 0;
const call = () => 1;  // succeeds at once, like OpaqueSuccess()

async function nsPerCall(policy, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink += await policy.execute(call);
  return Number(process.hrtime.bigint() - start) / calls;
}

// Median of 5 timed runs after one warm-up run (JIT, caches).
async function median(policy, calls) {
  await nsPerCall(policy, calls);
  const runs = [];
  for (let r = 0; r < 5; r++) runs.push(await nsPerCall(policy, calls));
  runs.sort((a, b) => a - b);
  return { median: runs[2], runs };
}

async function main() {
  const calls = Number(process.argv[2] || 200000);
  const pipeline = wrap(...Object.values(policies).map((make) => make()));
  const whole = await median(pipeline, calls);
  const parts = {};
  for (const [name, make] of Object.entries(policies)) parts[name] = (await median(make(), calls / 4)).median;
  if (sink === 0) throw new Error('calls did not run');
  console.log(JSON.stringify({ library: 'cockatiel', ns_per_call: whole.median, runs: whole.runs, parts }));
}

main().catch((e) => { console.error(e); process.exit(1); });
