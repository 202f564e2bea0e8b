#include "stormguard/pipeline/timeout.h"

#include <utility>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr std::size_t kPoolSize = 8;  // nested timeouts per thread that reuse a source

std::vector<std::stop_source>& Pool() {
  thread_local std::vector<std::stop_source> pool = [] {
    std::vector<std::stop_source> v;
    v.reserve(kPoolSize);
    return v;
  }();
  return pool;
}

// Forwards the caller's cancellation to the attempt's own source.
struct StopForwarder {
  std::stop_source* target;
  void operator()() const noexcept { target->request_stop(); }
};

// Gives ctx the attempt's deadline and stop_token for its lifetime.
class AttemptScope {
 public:
  AttemptScope(CallContext& ctx, Deadline deadline, std::stop_source& source)
      : ctx_(ctx),
        deadline_(std::exchange(ctx.deadline, deadline)),
        stop_(std::move(ctx.stop)),
        link_(stop_, StopForwarder{&source}) {  // registers nothing for an empty token
    ctx.stop = source.get_token();
  }
  ~AttemptScope() {
    ctx_.deadline = deadline_;
    ctx_.stop = std::move(stop_);
  }
  AttemptScope(const AttemptScope&) = delete;
  AttemptScope& operator=(const AttemptScope&) = delete;

 private:
  CallContext& ctx_;
  Deadline deadline_;
  std::stop_token stop_;
  std::stop_callback<StopForwarder> link_;
};

}  // namespace

StopSourceLease::StopSourceLease() : source_(std::nostopstate) {
  auto& pool = Pool();
  if (pool.empty()) {
    source_ = std::stop_source();
  } else {
    source_ = std::move(pool.back());
    pool.pop_back();
  }
}

StopSourceLease::~StopSourceLease() {
  auto& pool = Pool();
  if (!source_.stop_requested() && pool.size() < kPoolSize) pool.push_back(std::move(source_));
}

std::vector<std::string> TimeoutOptions::Validate() const {
  Validator v;
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(abandon_after >= Duration::zero(), "abandon_after", "must not be negative");
  return std::move(v).errors();
}

Result<std::unique_ptr<TimeoutStage>> TimeoutStage::Create(TimeoutOptions options, bool per_attempt,
                                                           TimerService& timers, Listener* listener) {
  Status s = ValidationStatus("timeout options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<TimeoutStage>(new TimeoutStage(options, per_attempt, timers, listener));
}

std::string TimeoutStage::Describe() const {
  return std::string(name()) + "(" + DurationString(o_.timeout) + ")";
}

Status TimeoutStage::Execute(CallContext& ctx, Next next) const {
  if (o_.timeout == kInfiniteDuration && ctx.deadline.is_infinite()) return next(ctx);
  const TimePoint now = next.Now();
  const Deadline deadline =
      o_.timeout == kInfiniteDuration ? ctx.deadline : ctx.deadline.Within(now, o_.timeout);
  if (deadline.Expired(now)) return Expired(ctx, now);
  return Run(ctx, next, deadline);
}

Status TimeoutStage::Run(CallContext& ctx, Next next, Deadline deadline) const {
  StopSourceLease lease;  // destroyed last: after the timer and the link let go of it
  Status result;
  bool fired = false;
  {
    AttemptScope scope(ctx, deadline, lease.source());
    ScopedTimer timer(timers_, deadline.time(), lease.source());
    result = next(ctx);
    fired = timer.Disarm();
  }
  if (!fired) [[likely]] return result;
  return Fired(std::move(result), ctx, deadline, next.Now());
}

Status TimeoutStage::Expired(const CallContext& ctx, TimePoint now) const {
  Emit(listener_, Event{.kind = EventKind::kRejected, .policy = name(), .reason = "deadline_expired",
                        .at = now, .attempt = ctx.attempt, .outcome = OutcomeClass::kDeadlineExceeded});
  Status s = Status::DeadlineExceeded(std::string(name()) + ": no time left before the call").WithSource(name());
  s.mutable_hints().outcome = OutcomeClass::kDeadlineExceeded;
  return s;
}

Status TimeoutStage::Fired(Status result, const CallContext& ctx, Deadline deadline, TimePoint end) const {
  const Duration overrun = end > deadline.time() ? end - deadline.time() : Duration::zero();
  timed_out_.fetch_add(1, std::memory_order_relaxed);
  Emit(listener_, Event{.kind = EventKind::kTimedOut, .policy = name(), .reason = "deadline", .at = end,
                        .attempt = ctx.attempt, .outcome = OutcomeClass::kAmbiguous, .duration = overrun});
  if (overrun > o_.abandon_after) {
    abandoned_.fetch_add(1, std::memory_order_relaxed);
    Emit(listener_, Event{.kind = EventKind::kAbandoned, .policy = name(), .reason = "ignored_stop",
                          .at = end, .attempt = ctx.attempt, .outcome = OutcomeClass::kAmbiguous,
                          .duration = overrun});
  }
  if (result.ok()) return result;  // it finished after all: keep the answer
  return Status::DeadlineExceeded(std::string(name()) + ": deadline passed (timeout " +
                                  DurationString(o_.timeout) + ")")
      .WithSource(name());
}

}  // namespace stormguard
