// stormguard/core/result.h: a value or the Status that explains its absence.
//
//   Result<int> r = 42;                      // success
//   Result<int> e = Status::Unavailable("x"); // failure
//   if (r.ok()) use(*r); else log(r.status().ToString());
//
// Result<void> is spelled Status. Thread safety: a plain value type.
#pragma once

#include <cassert>
#include <optional>
#include <type_traits>
#include <utility>

#include "stormguard/core/status.h"

namespace stormguard {

template <class T>
class Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "use Status for Result<void>");

 public:
  using value_type = T;

  Result(const T& v) : value_(v) {}                    // NOLINT: implicit on purpose
  Result(T&& v) noexcept(std::is_nothrow_move_constructible_v<T>) : value_(std::move(v)) {}  // NOLINT
  Result(Status s) : status_(std::move(s)) {           // NOLINT
    assert(!status_.ok() && "a Result built from a Status needs an error");
    if (status_.ok()) status_ = Status::Internal("Result built from an OK status");
  }

  bool ok() const noexcept { return value_.has_value(); }
  const Status& status() const& noexcept { return status_; }
  Status&& status() && noexcept { return std::move(status_); }
  // For drivers that annotate a failure in place (retry hints); a failed
  // Result's status must stay an error.
  Status& mutable_status() & noexcept { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::optional<T> value_;
  Status status_;
};

// Uniform access for generic drivers: a Status and a Result<T> both answer
// "did it succeed" and "which status".
inline const Status& StatusOf(const Status& s) noexcept { return s; }
template <class T>
const Status& StatusOf(const Result<T>& r) noexcept { return r.status(); }

template <class T> struct IsResult : std::false_type {};
template <class T> struct IsResult<Result<T>> : std::true_type {};

}  // namespace stormguard
