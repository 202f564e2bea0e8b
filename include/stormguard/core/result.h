// stormguard/core/result.h: a value or the Status that explains its absence.
//
//   Result<int> r = 42;                      // success
//   Result<int> e = Status::Unavailable("x"); // failure
//   if (r.ok()) use(*r); else log(r.status().ToString());
//
// Result<void> is spelled Status. Reading the value of an error (value(),
// operator*, operator->) is a bug: in every build type it prints the status
// to stderr and aborts, as abseil's StatusOr does, rather than reading
// garbage. Thread safety: a plain value type.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "stormguard/core/status.h"

namespace stormguard {

namespace result_internal {
// Prints "value() of a Result holding <status>" to stderr, then aborts.
[[noreturn]] void DieOnErrorAccess(const Status& status) noexcept;
}  // namespace result_internal

template <class T>
class Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "use Status for Result<void>");

 public:
  using value_type = T;

  Result(const T& v) : value_(v) {}  // NOLINT: implicit on purpose
  Result(T&& v) noexcept(std::is_nothrow_move_constructible_v<T>) : value_(std::move(v)) {}  // NOLINT
  // An OK status carries no value to explain: the Result becomes an
  // INTERNAL error (in every build type), which value() then reports.
  Result(Status s) : status_(std::move(s)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result built from an OK status");
  }

  bool ok() const noexcept { return value_.has_value(); }
  const Status& status() const& noexcept { return status_; }
  Status&& status() && noexcept { return std::move(status_); }
  // For drivers that annotate a failure in place (retry hints); a failed
  // Result's status must stay an error.
  Status& mutable_status() & noexcept { return status_; }

  T& value() & { return Checked(); }
  const T& value() const& { return Checked(); }
  T&& value() && { return std::move(Checked()); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return Checked(); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &Checked(); }

  template <class U>
  T value_or(U&& fallback) const& {
    return ok() ? *value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  T& Checked() {
    if (!value_) result_internal::DieOnErrorAccess(status_);
    return *value_;
  }
  const T& Checked() const {
    if (!value_) result_internal::DieOnErrorAccess(status_);
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

// Uniform access for generic drivers: a Status and a Result<T> both answer
// "did it succeed" and "which status".
inline const Status& StatusOf(const Status& s) noexcept { return s; }
template <class T>
const Status& StatusOf(const Result<T>& r) noexcept {
  return r.status();
}

template <class T>
struct IsResult : std::false_type {};
template <class T>
struct IsResult<Result<T>> : std::true_type {};

}  // namespace stormguard
