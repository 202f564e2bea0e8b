#include "stormguard/core/validation.h"

namespace stormguard {

Status ValidationStatus(std::string_view what, const std::vector<std::string>& errors) {
  if (errors.empty()) return Status::Ok();
  std::string message = "invalid " + std::string(what) + ": ";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) message += "; ";
    message += errors[i];
  }
  return Status::InvalidArgument(std::move(message));
}

}  // namespace stormguard
