#include "stormguard/fleet/global_rate_limiter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "global_rate_limiter_metrics.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr double kMaxLimit = 1e9;
constexpr Duration kMinRefreshInterval = std::chrono::milliseconds(1);
constexpr Duration kMaxLeaseLength = std::chrono::hours(1);

bool ValidName(const std::string& s, std::size_t max_bytes, bool name_chars) {
  if (s.empty() || s.size() > max_bytes) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    const auto u = static_cast<unsigned char>(c);
    if (name_chars) return std::isalnum(u) != 0 || c == '_' || c == '.' || c == '-';
    return u > 0x20 && u < 0x7f;
  });
}

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::string_view LeaseFallbackName(LeaseFallback f) noexcept {
  return f == LeaseFallback::kDeny ? "deny" : "static_share";
}

std::vector<std::string> GlobalRateLimiterOptions::Validate() const {
  Validator v;
  v.Check(ValidName(name, 64, true), "name", "must be 1-64 bytes of [a-zA-Z0-9_.-]");
  v.Check(ValidName(instance_id, 128, false), "instance_id", "must be 1-128 printable bytes without spaces");
  v.Check(std::isfinite(limit) && limit > 0 && limit <= kMaxLimit, "limit",
          "must be a number of calls per second in (0, 1e9]");
  v.Check(burst >= 1, "burst", "must be at least 1");
  if (std::isfinite(limit) && limit > 0 && burst >= 1) {
    v.Check(static_cast<double>(burst) / limit <= 1e8, "burst",
            "burst / limit (the time to refill the fleet's bucket) must be at most 1e8 seconds");
  }
  v.Check(refresh_interval >= kMinRefreshInterval, "refresh_interval", "must be at least 1ms");
  v.Check(lease_length >= 2 * refresh_interval && lease_length <= kMaxLeaseLength, "lease_length",
          "must be at least two refresh intervals and at most 1h");
  v.Check(fallback == LeaseFallback::kStaticShare || fallback == LeaseFallback::kDeny, "fallback",
          "must be static_share or deny");
  v.Check(initial_instances >= 1, "initial_instances", "must be at least 1");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be 0 (automatic) or in [1, 64]");
  return std::move(v).errors();
}

Result<std::unique_ptr<GlobalRateLimiter>> GlobalRateLimiter::Create(GlobalRateLimiterOptions options,
                                                                     std::shared_ptr<LeaseStore> store) {
  std::vector<std::string> errors = options.Validate();
  if (store == nullptr) errors.push_back("store: must not be null");
  if (Status s = ValidationStatus("global rate limiter options", errors); !s.ok()) return s;
  if (Status s = global_limit_internal::RegisterGlobalRateLimitMetrics(); !s.ok()) return s;
  return std::unique_ptr<GlobalRateLimiter>(new GlobalRateLimiter(std::move(options), std::move(store)));
}

GlobalRateLimiter::GlobalRateLimiter(GlobalRateLimiterOptions o, std::shared_ptr<LeaseStore> store)
    : o_(std::move(o)),
      clock_(o_.clock != nullptr ? *o_.clock : Clock::Real()),
      store_(std::move(store)),
      bucket_(o_.stripes, o_.burst),
      attempts_(o_.stripes),
      instances_(o_.initial_instances) {
  const TimePoint now = clock_.Now();
  last_refresh_ = now;
  SetLocalRate(o_.limit / o_.initial_instances, now);
  Emit(o_.listener, {.kind = EventKind::kStateReported,
                     .policy = PolicyId::kGlobalRateLimit,
                     .to_state = static_cast<std::uint8_t>(GlobalLimitState::kStarting),
                     .at = now});
  if (o_.executor != nullptr) {
    std::lock_guard lock(schedule_mu_);
    ScheduleRefresh(o_.executor->clock().Now());
  }
}

GlobalRateLimiter::~GlobalRateLimiter() {
  if (o_.executor == nullptr) return;
  std::unique_lock lock(schedule_mu_);
  stopping_ = true;
  lock.unlock();
  // No timer is armed after this (stopping_), and Cancel waits for a
  // callback that already started; then only a queued refresh is left.
  TimerService::Cancel(timer_);
  lock.lock();
  refresh_done_.wait(lock, [&] { return !refresh_queued_; });
}

Status GlobalRateLimiter::Refuse(TimePoint now) {
  Emit(o_.listener, {.kind = EventKind::kRejected,
                     .policy = PolicyId::kGlobalRateLimit,
                     .reason = "global rate limit exceeded",
                     .at = now});
  char rates[96];
  std::snprintf(rates, sizeof rates, "%g/s of %g/s", local_rate(), o_.limit);
  return Status::ResourceExhausted("global rate limit '" + o_.name + "': this instance's share (" + rates +
                                   ") is spent")
      .WithSource(kPolicy);
}

void GlobalRateLimiter::ScheduleRefresh(TimePoint at) {
  if (!stopping_) timer_ = o_.executor->timers().Schedule(at, &GlobalRateLimiter::OnRefreshDue, this);
}

void GlobalRateLimiter::OnRefreshDue(void* self) noexcept {
  // On the timer thread, which must not block: the refresh goes to a worker.
  auto* limiter = static_cast<GlobalRateLimiter*>(self);
  std::lock_guard lock(limiter->schedule_mu_);
  if (limiter->stopping_) return;
  limiter->refresh_queued_ = limiter->o_.executor->TrySubmit([limiter] { limiter->RunScheduledRefresh(); });
  // A full queue: try again an interval later (the lease outlives a few).
  if (!limiter->refresh_queued_) {
    limiter->ScheduleRefresh(limiter->o_.executor->clock().Now() + limiter->o_.refresh_interval);
  }
}

void GlobalRateLimiter::RunScheduledRefresh() noexcept {
  (void)RefreshOnce();  // faults are reported as events
  std::lock_guard lock(schedule_mu_);
  refresh_queued_ = false;
  ScheduleRefresh(o_.executor->clock().Now() + o_.refresh_interval);
  refresh_done_.notify_all();
}

double GlobalRateLimiter::MeasureDemand(TimePoint now) {
  const std::int64_t attempts = attempts_.Sum();
  const double elapsed = Seconds(now - last_refresh_);
  // Until an interval has been measured, ask for the static share: a fleet
  // starting together then does not leave it all to the first to ask.
  double demand = o_.limit / o_.initial_instances;
  if (measured_ && elapsed > 0) demand = static_cast<double>(attempts - last_attempts_) / elapsed;
  if (elapsed >= Seconds(o_.refresh_interval) / 2) {
    measured_ = true;
    last_attempts_ = attempts;
    last_refresh_ = now;
  }
  return std::clamp(demand, 0.0, o_.limit);
}

Status GlobalRateLimiter::RefreshOnce() {
  std::lock_guard lock(refresh_mu_);
  const TimePoint now = clock_.Now();
  const double demand = MeasureDemand(now);
  last_demand_.store(demand, std::memory_order_relaxed);
  Result<Lease> lease = store_->Refresh(o_.instance_id, demand, now);
  Status status = lease.ok() ? Status::Ok() : lease.status();
  if (lease.ok() && !ApplyLease(*lease, now)) {
    status = Status::Internal("global rate limit '" + o_.name + "': the store answered a NaN rate");
  } else if (!lease.ok()) {
    const StatusCode code = status.code();
    const bool auth = code == StatusCode::kUnauthenticated || code == StatusCode::kPermissionDenied;
    Report(auth ? GlobalLimitFault::kAuthRefused : GlobalLimitFault::kRefreshFailed,
           auth ? "lease store refused the credentials" : "lease refresh failed", now);
  }
  ExpireIfDue(now);
  return status;
}

bool GlobalRateLimiter::ApplyLease(Lease lease, TimePoint now) {
  if (std::isnan(lease.rate)) {
    Report(GlobalLimitFault::kInvalidLease, "lease store answered a NaN rate", now);
    return false;
  }
  const double rate = std::clamp(lease.rate, 0.0, o_.limit);
  lease_expiry_ = std::clamp(lease.expiry, now, now + o_.lease_length);
  instances_.store(std::max(lease.instances, 1), std::memory_order_relaxed);
  if (lease_expiry_ <= now) return true;  // already over: ExpireIfDue falls back
  SetLocalRate(rate, now);
  if (state() != GlobalLimitState::kLeased) Enter(GlobalLimitState::kLeased, "lease obtained", now);
  return true;
}

void GlobalRateLimiter::ExpireIfDue(TimePoint now) {
  const GlobalLimitState s = state();
  if (s == GlobalLimitState::kFallback || (s == GlobalLimitState::kLeased && now < lease_expiry_)) return;
  if (s == GlobalLimitState::kLeased) Report(GlobalLimitFault::kLeaseExpired, "lease expired without a refresh", now);
  const double share = o_.fallback == LeaseFallback::kDeny ? 0.0 : o_.limit / instances();
  SetLocalRate(share, now);
  Enter(GlobalLimitState::kFallback, s == GlobalLimitState::kLeased ? "lease expired" : "no lease obtained", now);
}

void GlobalRateLimiter::SetLocalRate(double rate, TimePoint now) {
  const double burst = std::round(static_cast<double>(o_.burst) * rate / o_.limit);
  bucket_.SetRate(rate, std::max<std::int64_t>(1, static_cast<std::int64_t>(burst)), now);
}

void GlobalRateLimiter::Enter(GlobalLimitState next, std::string_view reason, TimePoint now) {
  const GlobalLimitState from = state_.exchange(next, std::memory_order_acq_rel);
  Emit(o_.listener, {.kind = EventKind::kStateChanged,
                     .policy = PolicyId::kGlobalRateLimit,
                     .from_state = static_cast<std::uint8_t>(from),
                     .to_state = static_cast<std::uint8_t>(next),
                     .reason = reason,
                     .at = now});
}

void GlobalRateLimiter::Report(GlobalLimitFault fault, std::string_view reason, TimePoint now) {
  Emit(o_.listener, {.kind = EventKind::kGaveUp,
                     .policy = PolicyId::kGlobalRateLimit,
                     .to_state = static_cast<std::uint8_t>(fault),
                     .reason = reason,
                     .at = now});
}

}  // namespace stormguard
