// stormguard/sim/contention.h: optimistic concurrency under contention.
//
// The experiment of "Exponential Backoff And Jitter" (AWS Architecture Blog,
// 2015): `clients` writers start together and each wants to update the same
// row once. An attempt reads the row's version, then writes on condition
// that the version is unchanged; a writer that lost the race gets a conflict
// (ABORTED, which the default classifier calls transient) and tries again
// after its backoff. One writer wins per round, so without backoff the work
// grows with the square of the contention; jitter spreads the writers out.
//
//   auto r = sim::RunContention({.clients = 50});
//   for (const auto& row : r->rows) row.calls, row.completion;
//
// Defaults follow the post's simulator: network delay |Normal(10 ms, 2 ms)|
// each way, base 5 ms, cap 2 s, results averaged over 100 runs. Run k of
// every strategy uses seed + k, so a row does not depend on the other rows.
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/sim/distribution.h"
#include "stormguard/sim/strategy.h"

namespace stormguard::sim {

struct ContentionOptions {
  int clients = 50;
  Duration base = std::chrono::milliseconds(5);
  Duration cap = std::chrono::seconds(2);
  Latency network = Latency::Normal(std::chrono::milliseconds(10), std::chrono::milliseconds(2));
  // OCC always progresses (a writer fails at most clients - 1 times): this
  // only guards the loop, and bounds `clients`.
  int max_attempts = kMaxRetryAttempts;
  int runs = 100;  // results are the mean over this many runs
  std::vector<Strategy> strategies{Strategy::kNone, Strategy::kExponential, Strategy::kFullJitter,
                                   Strategy::kEqualJitter, Strategy::kDecorrelatedJitter};
  std::uint64_t seed = 1;

  std::vector<std::string> Validate() const;
};

struct ContentionRow {
  Strategy strategy = Strategy::kNone;
  double calls = 0;                        // conditional writes, all clients together (mean per run)
  double succeeded = 0;                    // clients whose write went through (mean per run)
  Duration completion = Duration::zero();  // when the last client succeeded (mean)
  std::vector<Duration> finished;          // each success of the first run, in time order
  double calls_per_client() const noexcept;
};

struct ContentionResult {
  ContentionOptions options;
  std::vector<ContentionRow> rows;
};

Result<ContentionResult> RunContention(const ContentionOptions& options);

}  // namespace stormguard::sim
