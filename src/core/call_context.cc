#include "stormguard/core/call_context.h"

namespace stormguard {
namespace {
thread_local CallContext* current_context = nullptr;
}  // namespace

CallContext* CurrentCallContext() noexcept { return current_context; }

ScopedCallContext::ScopedCallContext(CallContext& ctx) noexcept : previous_(current_context) { current_context = &ctx; }

ScopedCallContext::~ScopedCallContext() { current_context = previous_; }

}  // namespace stormguard
