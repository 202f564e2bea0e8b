// stormguard/pipeline/presets.h: pipelines for five common situations.
//
// The table "Parameters per situation" (docs/circuit-breakers-and-composition.md)
// gives timeout, retries and backoff for five kinds of call; each preset
// builds that pipeline and documents where every number comes from. A
// preset returns a PipelineBuilder, so a caller can append stages (a
// bulkhead, a custom stage) before Build():
//
//   auto p = presets::UserFacing({.budget = budget}).Build();      // Result<PipelineRef>
//   auto q = presets::BackgroundJob().Build();
//   auto r = presets::ThirdPartyApi({.budget = budget}).Build();
//
// Numbers that the table leaves to the situation (a payment provider's
// promised timeout, a fan-out's per-downstream timeout) are required
// fields; leaving them zero makes Build() fail naming the stage.
//
// Thread safety: builders are plain values; the pipelines they build are
// immutable and shared.
#pragma once

#include <memory>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard::presets {

// Row 1: user-facing synchronous call, a chain of three hops. Entry
// budget 1s (the table; a user-facing total is 1-2s), cut by the remaining
// budget at every hop (the timeout stage applies the propagated deadline).
// Only the entry retries, 1-2 times (here 2: max_attempts 3), exponential
// from 100ms with full jitter; every other hop fails fast so the storm
// cannot multiply (docs/retry-amplification.md, "Only one layer retries"). The backoff cap is the
// entry budget (1s): no wait can be longer than the whole call anyway.
struct UserFacingOptions {
  bool at_entry = true;  // false: a middle hop, no retry
  Duration entry_timeout = std::chrono::seconds(1);
  int max_attempts = 3;                 // 1 try + 2 retries
  std::shared_ptr<RetryBudget> budget;  // optional, per destination
  bool idempotent = false;              // or pass ctx.idempotency_key
};
PipelineBuilder UserFacing(UserFacingOptions options = {}, PipelineOptions env = {});

// Row 2: background job / queue consumer. 30s per attempt, 8 attempts,
// exponential from 1s capped at 10min, full jitter (as
// docs/backoff-and-jitter.md recommends). After the last attempt the caller
// dead-letters the message: the returned status is marked do-not-retry.
// Queue consumers run at least once, so they must be idempotent (see
// docs/retry-amplification.md, "Idempotency: who may repeat a call"); the
// preset retries ambiguous outcomes.
struct BackgroundJobOptions {
  Duration attempt_timeout = std::chrono::seconds(30);
  int max_attempts = 8;
  std::shared_ptr<RetryBudget> budget;
};
PipelineBuilder BackgroundJob(BackgroundJobOptions options = {}, PipelineOptions env = {});

// Row 3: third-party API without an SLA. 2s per attempt, 2 retries
// (max_attempts 3) waiting about 1s then 2s with jitter (exponential from
// 1s; proportional jitter +-20%, gRPC's; cap 2.4s so the second wait keeps
// its jitter), an idempotency key is required (with the key,
// even an ambiguous timeout may be retried), and a circuit breaker
// (docs/deadlines.md, "Picking a timeout"). The default breaker uses the
// documented numbers: 50% failures or 50% calls slower than 2s over the last 100
// calls opens it for 30s (CircuitBreakerOptions' defaults).
struct ThirdPartyApiOptions {
  Duration attempt_timeout = std::chrono::seconds(2);
  int max_attempts = 3;
  std::shared_ptr<RetryBudget> budget;
  std::shared_ptr<CircuitBreaker> breaker;  // null: one with the default numbers
};
PipelineBuilder ThirdPartyApi(ThirdPartyApiOptions options = {}, PipelineOptions env = {});

// Row 4: payment / charge. The timeout is what the provider
// promises (required). No blind retry: no retry stage at all,
// since a charge that timed out may have gone through. An idempotency key
// is required, and an unknown outcome (timeout, transient or ambiguous
// failure) goes to the call site's fallback, which must query the result
// by that key:
//   pipeline.Execute(ctx, charge, [&](const Status&) { return QueryCharge(ctx.idempotency_key); });
struct PaymentOptions {
  Duration promised_timeout = Duration::zero();  // required
};
PipelineBuilder Payment(PaymentOptions options, PipelineOptions env = {});

// Row 5: high fan-out (one request calls ~50 downstreams). Each
// downstream gets its own timeout (required), no retry (degrade instead),
// and a fallback on every failure and rejection. Setting
// skip_when_remaining_below skips a call outright when the request's budget
// is nearly spent (docs/deadlines.md, "Doing less when time runs short").
struct HighFanOutOptions {
  Duration per_downstream_timeout = Duration::zero();  // required
  Duration skip_when_remaining_below = Duration::zero();
};
PipelineBuilder HighFanOut(HighFanOutOptions options, PipelineOptions env = {});

}  // namespace stormguard::presets
