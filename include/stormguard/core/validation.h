// stormguard/core/validation.h: collecting every bad field of an options struct.
//
// Options are plain structs; their Validate() returns every problem, each as
// "field.path: reason", so a user fixes a config in one round:
//
//   Validator v;
//   v.Check(o.max_attempts >= 1, "max_attempts", "must be at least 1");
//   v.Nest("backoff", o.backoff.Validate());
//   return v.errors();   // {"max_attempts: must be at least 1", ...}
//
// Factories turn a non-empty list into Status::InvalidArgument, so an invalid
// component can never be constructed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/status.h"

namespace stormguard {

class Validator {
 public:
  void Check(bool ok, std::string_view field, std::string_view reason) {
    if (!ok) errors_.push_back(std::string(field) + ": " + std::string(reason));
  }
  // Adds a nested struct's errors under "prefix.".
  void Nest(std::string_view prefix, const std::vector<std::string>& nested) {
    for (const auto& e : nested) errors_.push_back(std::string(prefix) + "." + e);
  }
  const std::vector<std::string>& errors() const& noexcept { return errors_; }
  std::vector<std::string> errors() && noexcept { return std::move(errors_); }

 private:
  std::vector<std::string> errors_;
};

// OK for no errors; otherwise INVALID_ARGUMENT "<what>: e1; e2; ...".
Status ValidationStatus(std::string_view what, const std::vector<std::string>& errors);

}  // namespace stormguard
