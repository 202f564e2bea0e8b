#include "stormguard/core/internal/call_helpers.h"

namespace stormguard::core_internal {

void MarkGaveUp(Status& status, CallContext& ctx) noexcept {
  status.mutable_hints().do_not_retry = true;
  ctx.downstream_gave_up = true;
}

}  // namespace stormguard::core_internal
