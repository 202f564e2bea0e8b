// stormguard/core/call_context.h: what one logical call knows about itself.
//
// A CallContext travels with a call: its deadline, the stop_token that
// cancels it, which attempt this is, whether the request this service is
// serving was itself a retry (the retry flag), whether the operation may
// run twice (a GET), the idempotency key that makes repeats safe, and whether a downstream answered "do not retry"
// (docs/chain-protocol.md). Server middleware fills one from the incoming
// headers and installs it as the current context, so a handler's own
// downstream calls inherit it without passing anything by hand:
//
//   CallContext ctx{.deadline = Deadline::After(now, 800ms)};
//   ScopedCallContext scope(ctx);      // CurrentCallContext() == &ctx
//   client.Get("/stock");              // picks up deadline and retry flag
//
// Thread safety: a CallContext belongs to one call at a time; the current
// context is thread-local.
#pragma once

#include <stop_token>
#include <string>

#include "stormguard/core/deadline.h"

namespace stormguard {

struct CallContext {
  Deadline deadline{};             // the whole remaining budget
  std::stop_token stop{};          // cancels the call (and its waits)
  int attempt = 1;                 // 1 for the first try, 2 for the first retry...
  bool incoming_is_retry = false;  // the request being served was a retry
  // This call may run twice with the effect of once (HTTP GET, PUT, DELETE):
  // retries and hedges repeat it even after an ambiguous outcome. One
  // pipeline serves every method of a destination, so the call says it.
  bool idempotent = false;
  std::string idempotency_key{};  // one logical operation across retries
  // The caller decided, by `idempotent` and `idempotency_key`, whether this
  // call may repeat: a retry's or hedge's own `idempotent` option does not
  // apply. The HTTP and gRPC clients always decide (per method and key).
  bool idempotency_decided = false;
  bool downstream_gave_up = false;  // a downstream answered do-not-retry

  bool is_retry() const noexcept { return attempt > 1; }
};

// The context of the request this thread is serving, or nullptr.
CallContext* CurrentCallContext() noexcept;

// Installs `ctx` as the current context for its lifetime; nests.
class ScopedCallContext {
 public:
  explicit ScopedCallContext(CallContext& ctx) noexcept;
  ~ScopedCallContext();
  ScopedCallContext(const ScopedCallContext&) = delete;
  ScopedCallContext& operator=(const ScopedCallContext&) = delete;

 private:
  CallContext* previous_;
};

}  // namespace stormguard
