// stormguard/core/function_ref.h: a non-owning reference to a callable.
//
// FunctionRef<R(Args...)> is two pointers: the callable's address and a
// trampoline that calls it. Passing one never allocates, unlike
// std::function, so drivers hand "the rest of the call" down a pipeline on
// every request for free:
//
//   Status RunTwice(FunctionRef<Status(int)> f) { f(1); return f(2); }
//   int calls = 0;
//   RunTwice([&](int) { ++calls; return Status::Ok(); });
//
// Lifetime: a FunctionRef does not keep its callable alive; use it only while
// the callable exists (pass it down the stack, never store it beyond the call).
// Thread safety: as safe as calling the referenced callable.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace stormguard {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && !std::is_function_v<std::remove_reference_t<F>> &&
             std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)
  noexcept  // NOLINT: implicit, like std::function_ref
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_(&Trampoline<std::remove_reference_t<F>>) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  template <class F>
  static R Trampoline(void* object, Args... args) {
    return std::invoke(*static_cast<F*>(object), std::forward<Args>(args)...);
  }

  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace stormguard
