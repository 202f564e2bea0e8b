#include "stormguard/sim/contention.h"

#include <algorithm>

#include "stormguard/core/validation.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/sim/engine.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {

std::vector<std::string> ContentionOptions::Validate() const {
  Validator v;
  v.Check(clients >= 1, "clients", "must be at least 1");
  v.Check(base >= Duration::zero(), "base", "must not be negative");
  v.Check(cap > Duration::zero() && cap >= base, "cap", "must be positive and at least base");
  v.Check(network.a >= Duration::zero() && network.b >= Duration::zero(), "network", "must not be negative");
  v.Check(max_attempts >= 1 && max_attempts <= kMaxRetryAttempts, "max_attempts",
          "must be in [1, " + std::to_string(kMaxRetryAttempts) + "]");
  v.Check(runs >= 1, "runs", "must be at least 1");
  v.Check(!strategies.empty(), "strategies", "must name at least one strategy");
  // A write fails only if another writer committed since its read, and one
  // writer's attempts do not overlap: it fails at most clients - 1 times.
  const double per_run =
      static_cast<double>(clients) * std::min<double>(clients, max_attempts) * static_cast<double>(strategies.size());
  const std::string shape = std::to_string(clients) + " clients, up to " +
                            std::to_string(std::min(clients, max_attempts)) + " writes each, x " +
                            std::to_string(strategies.size()) + " strategies";
  if (per_run > kMaxAttempts) {
    CheckLimit(v, "clients", per_run, kMaxAttempts, shape + ", in one run,", "writes");
  } else {
    CheckLimit(v, "runs", per_run * runs, kMaxAttempts, shape + " x " + std::to_string(runs) + " runs", "writes");
  }
  return std::move(v).errors();
}

double ContentionRow::calls_per_client() const noexcept { return succeeded == 0 ? 0.0 : calls / succeeded; }

namespace {

struct RunOutcome {
  std::int64_t writes = 0;
  std::int64_t succeeded = 0;
  Duration completion = Duration::zero();
  std::vector<Duration> finished;
};

// One row with a version number; each writer reads it, then writes on
// condition that it did not change in between.
class OccSim final : public Actor {
 public:
  OccSim(const ContentionOptions& o, const RetryPolicy& policy, std::uint64_t seed)
      : o_(o), policy_(policy), engine_(seed), writers_(static_cast<std::size_t>(o.clients)) {}

  RunOutcome Run() {
    for (std::uint32_t i = 0; i < writers_.size(); ++i) Hop(kReadAtRow, i);
    engine_.Run();
    return std::move(out_);
  }

  void OnEvent(const SimEvent& e) override {
    switch (e.kind) {
      case kReadAtRow: Hop(kReadAnswer, e.a, version_); break;
      case kReadAnswer:
        ++out_.writes;
        Hop(kWriteAtRow, e.a, e.b);
        break;
      case kWriteAtRow: Write(e.a, e.b); break;
      case kWriteAnswer: OnWriteAnswer(e.a, e.b != 0); break;
      case kRetry:
        ++writers_[e.a].ctx.attempt;
        Hop(kReadAtRow, e.a);
        break;
      default: break;
    }
  }

 private:
  enum Kind : std::uint32_t { kReadAtRow, kReadAnswer, kWriteAtRow, kWriteAnswer, kRetry };

  struct Writer {
    CallContext ctx;
    Duration previous_wait = Duration::zero();
  };

  // One network crossing.
  void Hop(Kind arrives_as, std::uint32_t w, std::uint64_t payload = 0) {
    engine_.After(o_.network.Sample(engine_.rng()), this, arrives_as, w, payload);
  }

  void Write(std::uint32_t w, std::uint64_t read_version) {
    const bool wins = read_version == version_;
    if (wins) ++version_;
    Hop(kWriteAnswer, w, wins ? 1 : 0);
  }

  void OnWriteAnswer(std::uint32_t w, bool committed) {
    if (committed) {
      ++out_.succeeded;
      out_.completion = std::max(out_.completion, engine_.elapsed());
      out_.finished.push_back(engine_.elapsed());
      return;
    }
    Writer& wr = writers_[w];
    const Status conflict = Status::Aborted("conflict");
    const RetryDecision d =
        policy_.Decide(policy_.Classify(conflict), conflict, wr.ctx, engine_.now(), wr.previous_wait, engine_.rng());
    if (!d.retry) return;
    wr.previous_wait = d.wait;
    engine_.After(d.wait, this, kRetry, w);
  }

  const ContentionOptions& o_;
  const RetryPolicy& policy_;
  Engine engine_;
  std::vector<Writer> writers_;
  std::uint64_t version_ = 0;
  RunOutcome out_;
};

}  // namespace

Result<ContentionResult> RunContention(const ContentionOptions& options) {
  Status s = ValidationStatus("contention options", options.Validate());
  if (!s.ok()) return s;
  ContentionResult out{.options = options, .rows = {}};
  for (Strategy strategy : options.strategies) {
    Result<RetryPolicy> policy = RetryPolicy::Create({.max_attempts = options.max_attempts,
                                                      .backoff = StrategyBackoff(strategy, options.base, options.cap)});
    if (!policy.ok()) return std::move(policy).status();
    ContentionRow row{.strategy = strategy};
    Duration completion_sum = Duration::zero();
    for (int k = 0; k < options.runs; ++k) {
      RunOutcome run = OccSim(options, *policy, options.seed + static_cast<std::uint64_t>(k)).Run();
      row.calls += static_cast<double>(run.writes);
      row.succeeded += static_cast<double>(run.succeeded);
      completion_sum += run.completion;
      if (k == 0) row.finished = std::move(run.finished);
    }
    row.calls /= options.runs;
    row.succeeded /= options.runs;
    row.completion = completion_sum / options.runs;
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace stormguard::sim
