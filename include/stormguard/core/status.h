// stormguard/core/status.h: errors as values, with gRPC/abseil canonical codes.
//
//   Status s = Status::Unavailable("inventory: 503");
//   if (!s.ok()) log(s.ToString());   // "UNAVAILABLE: inventory: 503"
//
// A Status may carry retry hints that crossed the wire with the failure: the
// downstream's "do not retry" marker (x-no-retry), a server's
// pushback (Retry-After / grpc-retry-pushback-ms) and an explicit outcome
// class set by an adapter that knows better than the code (an HTTP 504).
// `source` names the policy that produced a rejection ("circuit_breaker").
//
// Thread safety: a plain value type. The OK status never allocates.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "stormguard/core/outcome.h"
#include "stormguard/core/time.h"

namespace stormguard {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// "UNAVAILABLE", "DEADLINE_EXCEEDED", ... as gRPC spells them.
std::string_view StatusCodeName(StatusCode code) noexcept;

// What a failed response said about retrying it.
struct RetryHints {
  bool do_not_retry = false;              // downstream already gave up retrying
  std::optional<Duration> pushback{};     // server asked for this pause
  bool pushback_stop = false;             // server asked never to retry (negative pushback)
  std::optional<OutcomeClass> outcome{};  // adapter's explicit classification
};

class Status {
 public:
  Status() noexcept = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  Status(const Status&) = default;
  Status& operator=(const Status&) = default;
  // Moves skip an empty message (most statuses that travel through a
  // pipeline have none): a string's own move copies its inline buffer and
  // resets the source even then. The moved-from status keeps its code and
  // hints and has an empty message.
  Status(Status&& o) noexcept : code_(o.code_), source_(o.source_), hints_(o.hints_) {
    if (!o.message_.empty()) message_.swap(o.message_);
  }
  Status& operator=(Status&& o) noexcept {
    code_ = o.code_;
    source_ = o.source_;
    hints_ = o.hints_;
    if (o.message_.empty()) {
      message_.clear();
    } else if (this != &o) {
      message_ = std::move(o.message_);
      o.message_.clear();
    }
    return *this;
  }

  static Status Ok() noexcept { return Status(); }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Unknown(std::string m) { return {StatusCode::kUnknown, std::move(m)}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
  static Status Aborted(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }

  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  StatusCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }

  const RetryHints& hints() const noexcept { return hints_; }
  RetryHints& mutable_hints() noexcept { return hints_; }
  Status&& WithHints(RetryHints h) && noexcept {
    hints_ = std::move(h);
    return std::move(*this);
  }

  // The policy that refused the call ("retry_budget", "circuit_breaker"),
  // empty when the status came from the callee. A static string.
  std::string_view source() const noexcept { return source_; }
  Status&& WithSource(std::string_view s) && noexcept {
    source_ = s;
    return std::move(*this);
  }

  // "CODE: message" plus "[source]" when a policy produced it.
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) noexcept {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string_view source_;
  RetryHints hints_;
};

}  // namespace stormguard
