#include "stormguard/core/classifier.h"

#include <new>
#include <stdexcept>
#include <string>

namespace stormguard {

OutcomeClass Classifier::Classify(const Status& status) const noexcept {
  if (status.ok()) return OutcomeClass::kSuccess;
  const RetryHints& h = status.hints();
  // The chain marker outranks everything: a layer below already retried.
  if (h.do_not_retry) return OutcomeClass::kDoNotRetry;
  if (h.outcome) return *h.outcome;
  return ClassifyGrpcCode(status.code());
}

const Classifier& DefaultClassifier() noexcept {
  static const Classifier instance;
  return instance;
}

OutcomeClass ClassifyGrpcCode(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return OutcomeClass::kSuccess;
    case StatusCode::kCancelled: return OutcomeClass::kCancelled;
    case StatusCode::kDeadlineExceeded: return OutcomeClass::kAmbiguous;
    case StatusCode::kResourceExhausted: return OutcomeClass::kOverloaded;
    case StatusCode::kUnavailable:
    case StatusCode::kAborted:  // optimistic-concurrency conflict: try again
      return OutcomeClass::kTransient;
    case StatusCode::kUnknown:  // an unknown failure may have had effects
      return OutcomeClass::kAmbiguous;
    default: return OutcomeClass::kPermanent;
  }
}

OutcomeClass ClassifyHttpStatus(int s) noexcept {
  if (s >= 100 && s < 400) return OutcomeClass::kSuccess;
  switch (s) {
    case 408:  // the server gave up waiting for our request: it did not run it
    case 425:
    case 502:
    case 504: return OutcomeClass::kTransient;
    case 429:
    case 503: return OutcomeClass::kOverloaded;
    default: break;
  }
  if (s >= 500 && s <= 599 && s != 500 && s != 501 && s != 505) return OutcomeClass::kTransient;
  return OutcomeClass::kPermanent;  // 4xx, 500 (a bug repeats), 501, 505, nonsense
}

StatusCode GrpcCodeFromHttp(int s) noexcept {
  if (s >= 200 && s < 400) return StatusCode::kOk;
  switch (s) {
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 408: return StatusCode::kDeadlineExceeded;
    case 409: return StatusCode::kAborted;
    case 429: return StatusCode::kResourceExhausted;
    case 501: return StatusCode::kUnimplemented;
    case 502:
    case 503: return StatusCode::kUnavailable;
    case 504: return StatusCode::kDeadlineExceeded;
    default: break;
  }
  if (s >= 400 && s < 500) return StatusCode::kFailedPrecondition;
  if (s >= 500 && s < 600) return StatusCode::kInternal;
  return StatusCode::kUnknown;
}

Status StatusFromHttp(int http_status) {
  Status s(GrpcCodeFromHttp(http_status), "HTTP " + std::to_string(http_status));
  s.mutable_hints().outcome = ClassifyHttpStatus(http_status);
  return s;
}

OutcomeClass ClassifyErrorCode(std::error_code ec) noexcept {
  if (!ec) return OutcomeClass::kSuccess;
  const std::error_condition c = ec.default_error_condition();
  if (c.category() != std::generic_category()) return OutcomeClass::kAmbiguous;
  switch (static_cast<std::errc>(c.value())) {
    case std::errc::connection_refused:
    case std::errc::network_unreachable:
    case std::errc::host_unreachable:
    case std::errc::network_down:
    case std::errc::address_not_available: return OutcomeClass::kTransient;  // nothing reached the callee
    case std::errc::connection_reset:
    case std::errc::connection_aborted:
    case std::errc::broken_pipe: return OutcomeClass::kTransient;  // a momentary reset is worth a retry
    case std::errc::timed_out: return OutcomeClass::kAmbiguous;
    case std::errc::resource_unavailable_try_again:
    case std::errc::too_many_files_open:
    case std::errc::too_many_files_open_in_system:
    case std::errc::no_buffer_space: return OutcomeClass::kOverloaded;
    case std::errc::operation_canceled: return OutcomeClass::kCancelled;
    default: return OutcomeClass::kPermanent;
  }
}

Status StatusFromErrorCode(std::error_code ec) {
  if (!ec) return Status::Ok();
  const OutcomeClass cls = ClassifyErrorCode(ec);
  StatusCode code = StatusCode::kUnknown;
  switch (cls) {
    case OutcomeClass::kTransient: code = StatusCode::kUnavailable; break;
    case OutcomeClass::kOverloaded: code = StatusCode::kResourceExhausted; break;
    case OutcomeClass::kAmbiguous: code = StatusCode::kDeadlineExceeded; break;
    case OutcomeClass::kCancelled: code = StatusCode::kCancelled; break;
    default: code = StatusCode::kInternal; break;
  }
  Status s(code, ec.message());
  s.mutable_hints().outcome = cls;
  return s;
}

Status StatusFromException(std::exception_ptr e) {
  if (!e) return Status::Unknown("no exception");
  try {
    std::rethrow_exception(e);
  } catch (const std::system_error& ex) {
    Status s = StatusFromErrorCode(ex.code());
    return Status(s.code(), ex.what()).WithHints(s.hints());
  } catch (const std::logic_error& ex) {
    Status s(StatusCode::kInvalidArgument, ex.what());
    s.mutable_hints().outcome = OutcomeClass::kPermanent;
    return s;
  } catch (const std::bad_alloc&) {
    Status s(StatusCode::kResourceExhausted, "out of memory");
    s.mutable_hints().outcome = OutcomeClass::kPermanent;
    return s;
  } catch (const std::exception& ex) {
    Status s(StatusCode::kUnknown, ex.what());
    s.mutable_hints().outcome = OutcomeClass::kAmbiguous;
    return s;
  } catch (...) {
    Status s(StatusCode::kUnknown, "unknown exception");
    s.mutable_hints().outcome = OutcomeClass::kAmbiguous;
    return s;
  }
}

}  // namespace stormguard
