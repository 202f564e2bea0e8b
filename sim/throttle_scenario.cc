#include "stormguard/sim/throttle_scenario.h"

#include <cmath>

#include "stormguard/core/random.h"
#include "stormguard/core/validation.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/retry/token_bucket_budget.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {

constexpr Duration kSlice = std::chrono::milliseconds(100);

// Room for `per_slice` accepted calls in each 100 ms slice; the rest are refused.
struct SlicedBackend {
  double per_slice = 0;
  std::int64_t slice = -1;
  double used = 0;
  ThrottleRun* run = nullptr;

  Status Call(TimePoint now) {
    ++run->received;
    const std::int64_t s = now.time_since_epoch() / kSlice;
    if (s != slice) {
      slice = s;
      used = 0;
    }
    if (used + 1 > per_slice) return Status::ResourceExhausted("backend over capacity");
    ++used;
    ++run->accepted;
    return Status::Ok();
  }
};

struct Client {
  PipelineRef pipeline;
  std::shared_ptr<AdaptiveThrottle> throttle;  // null but for the throttle runs
};

Result<Client> MakeClient(const ThrottleScenarioOptions& o, const ThrottleRun& run, ManualClock& clock, int index) {
  RetryOptions retry{.max_attempts = o.max_attempts, .backoff = {.kind = BackoffKind::kConstant, .base = {}}};
  Client c;
  if (run.strategy == ThrottleStrategy::kBudget) {
    Result<std::shared_ptr<TokenBucketBudget>> budget = TokenBucketBudget::Create({});
    if (!budget.ok()) return std::move(budget).status();
    retry.budget = std::move(budget).value();
  }
  PipelineBuilder b({.clock = &clock});
  b.AddRetry(std::move(retry));
  if (run.strategy == ThrottleStrategy::kThrottle) {
    Result<std::shared_ptr<AdaptiveThrottle>> t =
        AdaptiveThrottle::Create({.k = run.k, .seed = o.seed * 1000 + static_cast<std::uint64_t>(index) + 1});
    if (!t.ok()) return std::move(t).status();
    c.throttle = std::move(t).value();
    b.AddAdaptiveThrottle(c.throttle);
  }
  Result<PipelineRef> p = b.Build();
  if (!p.ok()) return std::move(p).status();
  c.pipeline = std::move(p).value();
  return c;
}

Result<ThrottleRun> RunOne(const ThrottleScenarioOptions& o, ThrottleRun run) {
  ManualClock clock(TimePoint{});
  std::vector<Client> clients;
  for (int i = 0; i < o.clients; ++i) {
    Result<Client> c = MakeClient(o, run, clock, i);
    if (!c.ok()) return std::move(c).status();
    clients.push_back(std::move(c).value());
  }
  SlicedBackend backend{.per_slice = o.rate * (1 - o.reject_share) * std::chrono::duration<double>(kSlice).count(),
                        .run = &run};
  Random rng(o.seed);  // the same arrivals for every run
  const Duration mean = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / o.rate));
  const TimePoint end = TimePoint{} + o.duration;
  for (TimePoint t = TimePoint{} + rng.Exponential(mean); t < end; t += rng.Exponential(mean)) {
    clock.SetNow(t);
    Client& c = clients[rng.Below(static_cast<std::uint64_t>(o.clients))];
    CallContext ctx;
    const Status s = c.pipeline->Execute(ctx, [&](CallContext&) { return backend.Call(clock.Now()); });
    ++run.requests;
    if (s.ok()) ++run.succeeded;
  }
  for (const Client& c : clients) run.refused_local += c.throttle ? c.throttle->rejected() : 0;
  return run;
}

}  // namespace

std::string_view ThrottleStrategyName(ThrottleStrategy s) noexcept {
  switch (s) {
    case ThrottleStrategy::kNaive: return "naive";
    case ThrottleStrategy::kBudget: return "budget";
    case ThrottleStrategy::kThrottle: return "throttle";
  }
  return "unknown";
}

std::vector<std::string> ThrottleScenarioOptions::Validate() const {
  Validator v;
  v.Check(clients >= 1 && clients <= 100'000, "clients", "must be in [1, 100000]");
  v.Check(std::isfinite(rate) && rate > 0 && rate <= 1e6, "rate", "must be in (0, 1e6]");
  v.CheckRange(reject_share, "reject_share", {0.0, 1.0, /*lo_open=*/false, /*hi_open=*/true});
  v.Check(duration > Duration::zero(), "duration", "must be positive");
  v.Check(max_attempts >= 1 && max_attempts <= 10, "max_attempts", "must be in [1, 10]");
  for (double k : ks) v.CheckRange(k, "k", {AdaptiveThrottleOptions::kMinK, AdaptiveThrottleOptions::kMaxK});
  if (!v.errors().empty()) return std::move(v).errors();
  const double runs = 2.0 + static_cast<double>(ks.size());
  CheckLimit(v, "duration", rate * Seconds(duration) * max_attempts * runs, kMaxAttempts,
             Estimate(Seconds(duration)) + "s at " + Estimate(rate) + " requests/s, up to " +
                 std::to_string(max_attempts) + " attempts each, " + Estimate(runs) + " runs,",
             "attempts");
  return std::move(v).errors();
}

Result<ThrottleScenarioResult> RunThrottleScenario(const ThrottleScenarioOptions& o) {
  Status s = ValidationStatus("throttle options", o.Validate());
  if (!s.ok()) return s;
  ThrottleScenarioResult out{.options = o};
  std::vector<ThrottleRun> plan = {{.strategy = ThrottleStrategy::kNaive}, {.strategy = ThrottleStrategy::kBudget}};
  for (double k : o.ks) plan.push_back({.strategy = ThrottleStrategy::kThrottle, .k = k});
  for (const ThrottleRun& run : plan) {
    Result<ThrottleRun> r = RunOne(o, run);
    if (!r.ok()) return std::move(r).status();
    out.runs.push_back(*r);
  }
  return out;
}

}  // namespace stormguard::sim
