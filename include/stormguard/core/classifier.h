// stormguard/core/classifier.h: maps what a call returned onto an OutcomeClass.
//
// The default rules follow docs/retry-amplification.md, "Which failures are
// worth a retry": HTTP 400/401/403/404/409 never
// retry, 429 and 503 are overload, 502 and 504 are transient, a timeout is
// ambiguous (the callee may have run it). gRPC codes, std::errc values and
// exceptions are mapped in the same spirit. Users override by subclassing
// Classifier (or wrapping DefaultClassifier()) and passing it to the policies.
//
//   OutcomeClass c = DefaultClassifier().Classify(status);
//   Status s = StatusFromHttp(503);      // UNAVAILABLE, class overloaded
//   Status t = StatusFromException(std::current_exception());
//
// Thread safety: Classify is const and must be safe to call concurrently.
#pragma once

#include <exception>
#include <system_error>

#include "stormguard/core/outcome.h"
#include "stormguard/core/status.h"

namespace stormguard {

class Classifier {
 public:
  virtual ~Classifier() = default;
  // A do-not-retry hint makes the outcome kDoNotRetry (it outranks all);
  // then an explicit class in the status' hints; otherwise the code decides.
  virtual OutcomeClass Classify(const Status& status) const noexcept;
};

const Classifier& DefaultClassifier() noexcept;

OutcomeClass ClassifyGrpcCode(StatusCode code) noexcept;
OutcomeClass ClassifyHttpStatus(int http_status) noexcept;
OutcomeClass ClassifyErrorCode(std::error_code ec) noexcept;

// A Status carrying the canonical code for an HTTP status and the class
// above as an explicit hint (so 504 stays "transient", not "ambiguous").
Status StatusFromHttp(int http_status);
StatusCode GrpcCodeFromHttp(int http_status) noexcept;
// Converts a caught exception; std::system_error keeps its error code's
// class, logic errors are permanent, anything unknown is ambiguous because
// the work may have happened.
Status StatusFromException(std::exception_ptr e);
Status StatusFromErrorCode(std::error_code ec);

}  // namespace stormguard
