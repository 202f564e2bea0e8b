// stormguard/core/internal/call_helpers.h (internal): what every component
// that runs a user's callable shares, kept in the lowest layer so the retry
// and hedge drivers, the time limiter and the pipeline use one copy and
// never include each other for it.
//
//   R r = core_internal::InvokeCaught(fn, ctx);         // a throw becomes a Status
//   Status& s = core_internal::MutableStatusOf(r);      // the Status inside R
//   if (gave_up) core_internal::MarkGaveUp(s, ctx);    // tell the chain: no retry
//
// Not part of the public API: names and signatures may change at any time.
// Thread safety: stateless functions; the arguments belong to the caller.
#pragma once

#include <exception>
#include <functional>
#include <type_traits>
#include <utility>

#include "stormguard/core/call_context.h"
#include "stormguard/core/classifier.h"
#include "stormguard/core/result.h"
#include "stormguard/core/status.h"

namespace stormguard::core_internal {

// Calls `f(args...)` and returns what it returns, converted to R when R is
// given (a fallback may return a T for a Result<T> call). An exception it
// throws comes back as an R holding StatusFromException's classification, so
// exception-style callables work with every driver.
template <class R = void, class F, class... Args>
auto InvokeCaught(F& f, Args&&... args) noexcept {
  using Out = std::conditional_t<std::is_void_v<R>, std::invoke_result_t<F&, Args...>, R>;
  static_assert(std::is_same_v<Out, Status> || IsResult<Out>::value,
                "the callable must return stormguard::Status or stormguard::Result<T>");
  try {
    return Out(std::invoke(f, std::forward<Args>(args)...));
  } catch (...) {
    return Out(StatusFromException(std::current_exception()));
  }
}

// The Status of a call's result, to annotate in place.
inline Status& MutableStatusOf(Status& s) noexcept { return s; }
template <class T>
Status& MutableStatusOf(Result<T>& r) noexcept {
  return r.mutable_status();
}

// This layer gave up on a failure a retry could not fix, or a downstream
// already did: the answer carries do-not-retry, which servers send back as
// `x-no-retry: 1` so no layer above retries it again
// (docs/chain-protocol.md, "Do-not-retry on responses").
// Out of line and cold: giving up is rare, and the drivers that call it
// stay small enough to inline on their success path.
[[gnu::cold]] void MarkGaveUp(Status& status, CallContext& ctx) noexcept;

}  // namespace stormguard::core_internal
