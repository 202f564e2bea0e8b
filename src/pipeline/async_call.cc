#include "stormguard/pipeline/async_stage.h"

#include "stormguard/pipeline/async_branch.h"
#include "stormguard/pipeline/stage.h"

#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/pipeline/internal/async_now.h"

#include <cstring>
#include <exception>
#include <type_traits>

namespace stormguard {

namespace {

// The reading the stages share on a call's way in (async_now.h).
struct Descent {
  int depth = 0;                 // Enters running on this thread
  const Clock* clock = nullptr;  // whose time `now` is; null: no reading
  TimePoint now{};
};
thread_local Descent t_descent;

class DescentScope {
 public:
  DescentScope() noexcept {
    if (t_descent.depth++ == 0) t_descent.clock = nullptr;
  }
  ~DescentScope() {
    if (--t_descent.depth == 0) t_descent.clock = nullptr;
  }
  DescentScope(const DescentScope&) = delete;
  DescentScope& operator=(const DescentScope&) = delete;
};

// The way out of an attempt, from AttemptEnded until the stages resumed
// there return or wait: `now` (when `clock` is not null) is the reading
// they share.
class AscentScope {
 public:
  AscentScope(const Clock* clock, TimePoint now) noexcept {
    ++t_descent.depth;
    t_descent.clock = clock;
    t_descent.now = now;
  }
  ~AscentScope() {
    --t_descent.depth;
    t_descent.clock = nullptr;  // what runs next reads afresh
  }
  AscentScope(const AscentScope&) = delete;
  AscentScope& operator=(const AscentScope&) = delete;
};

}  // namespace

TimePoint pipeline_internal::DescentCheapNow(Clock& clock) noexcept {
  const Descent& d = t_descent;
  return d.clock == &clock ? d.now : clock.CoarseNow();
}

TimePoint AsyncStep::Now() const noexcept { return pipeline_internal::DescentNow(clock()); }
TimePoint AsyncStep::CheapNow() const noexcept { return pipeline_internal::DescentCheapNow(clock()); }

TimePoint pipeline_internal::DescentNow(Clock& clock) noexcept {
  Descent& d = t_descent;
  if (d.clock != &clock) {
    d.now = clock.Now();
    d.clock = d.depth > 0 ? &clock : nullptr;  // outside a call's way in, nothing to share
  }
  return d.now;
}

static_assert(std::is_trivially_copyable_v<TimerHandle> && sizeof(TimerHandle) <= sizeof(AsyncTimerHandle::bytes));

AsyncTimerHandle TimerServiceTimers::Schedule(TimePoint t, Callback callback, void* arg) noexcept {
  const TimerHandle h = service_.Schedule(t, callback, arg);
  AsyncTimerHandle out;
  std::memcpy(out.bytes, &h, sizeof h);
  out.armed = h.armed();
  return out;
}

bool TimerServiceTimers::Cancel(AsyncTimerHandle& h) noexcept {
  if (!h.armed) return true;
  TimerHandle t;
  std::memcpy(&t, h.bytes, sizeof t);
  h = AsyncTimerHandle{};
  return TimerService::Cancel(t);
}

AsyncCall::AsyncCall(std::shared_ptr<const pipeline_internal::AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers,
                     void* states, std::size_t first, std::size_t base, AsyncBranchOwner* owner) noexcept
    : plan_(std::move(plan)),
      ctx_(ctx),
      timers_(timers),
      states_(static_cast<unsigned char*>(states)),
      first_(first),
      base_(base),
      owner_(owner) {
  for (std::size_t i = first_; i < plan_->stages.size(); ++i) {
    if (plan_->layouts[i].construct != nullptr) plan_->layouts[i].construct(states_ + (plan_->offsets[i] - base_));
  }
}

AsyncCall::~AsyncCall() = default;

void AsyncCall::DestroyStates() noexcept {
  for (std::size_t i = first_; i < plan_->stages.size(); ++i) {
    if (plan_->layouts[i].destroy != nullptr) plan_->layouts[i].destroy(states_ + (plan_->offsets[i] - base_));
  }
}

void AsyncCall::Enter(std::size_t index) {
  const pipeline_internal::AsyncPlan& p = *plan_;
  if (index < p.stages.size()) {
    const DescentScope scope;  // touches no member once Start returns: the call may be gone
    return p.stages[index]->Start(AsyncStep(*this, index));
  }
  if (owner_ != nullptr && !owner_->MayStartAttempt(static_cast<AsyncBranch&>(*this))) {
    return Leave(index, Status::Cancelled("pipeline: the call already has its answer; this branch's attempt "
                                          "does not start"));
  }
  ++calls_;
  if (p.listener != nullptr && (p.report_attempt_start || p.report_attempt_end)) {
    attempt_start_ = p.clock->Now();
    if (p.report_attempt_start) {
      p.listener->OnEvent(Event{.kind = EventKind::kAttemptStarted,
                                .policy = PolicyId::kPipeline,
                                .at = attempt_start_,
                                .attempt = ctx_.attempt});
    }
  }
  attempt_open_.store(true, std::memory_order_relaxed);
  refs_.fetch_add(1, std::memory_order_relaxed);
  t_descent.clock = nullptr;  // the attempt's code may take any time: stages after it read afresh
  try {
    RunAttempt();
  } catch (...) {
    // It threw before reporting (a report after a throw is the attempt's bug).
    Status s = StatusFromException(std::current_exception());
    if (attempt_open_.load(std::memory_order_acquire)) AttemptEnded(std::move(s));
  }
  t_descent.clock = nullptr;
  if (owner_ != nullptr) owner_->AttemptStartReturned();
  Release();
}

void AsyncCall::AttemptEnded(Status status) {
  if (!attempt_open_.exchange(false, std::memory_order_acq_rel)) return;
  const pipeline_internal::AsyncPlan& p = *plan_;
  // The reading the stages on the way out share, as pipeline.cc's
  // CallListened leaves it to the blocking driver's.
  const Clock* shared = nullptr;
  TimePoint end_at{};
  if (p.listener != nullptr && p.report_attempt_end) {
    const core_internal::AttemptEnd end = core_internal::EndAttempt(*p.clock, p.attempt_timing, attempt_start_);
    pipeline_internal::ReportCallEnded(*p.listener, p.tally, end, ctx_.attempt, p.classifier->Classify(status));
    if (end.weight != 0) {
      shared = p.clock;
      end_at = end.at;
    }
  } else if (p.listener != nullptr && p.attempt_timing == AttemptTiming::kEvery) {
    shared = p.clock;
    end_at = p.clock->Now();
  }
  const AscentScope way_out(shared, end_at);
  Leave(p.stages.size(), std::move(status));
}

void AsyncCall::Leave(std::size_t index, Status status) {
  if (index == first_) return Done(std::move(status));
  plan_->stages[index - 1]->Resume(AsyncStep(*this, index - 1), std::move(status));
}

}  // namespace stormguard
