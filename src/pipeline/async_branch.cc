#include "stormguard/pipeline/async_branch.h"

namespace stormguard {

namespace pipeline_internal {

BranchContext::BranchContext(const CallContext& parent) : ctx(parent) {
  ctx.stop = stop.get_token();
  link.emplace(parent.stop, Forward{&stop});  // runs at once if the call is already stopped
}

}  // namespace pipeline_internal

AsyncBranch::AsyncBranch(AsyncCall& parent, std::size_t first, AsyncBranchOwner& owner, void* states, std::size_t base)
    : BranchContext(parent.ctx_),
      AsyncCall(parent.plan_, BranchContext::ctx, parent.timers_, states, first, base, &owner),
      parent_(parent) {
  parent_.Retain();  // the owner's state lives in the parent's frame
}

// A branch's states start at its first stage's offset, rounded down to the
// frame's alignment, so every state keeps its alignment in the smaller block.
std::size_t AsyncBranch::StateBase(const AsyncCall& parent, std::size_t first) noexcept {
  const pipeline_internal::AsyncPlan& p = *parent.plan_;
  const std::size_t offset = first < p.offsets.size() ? p.offsets[first] : p.state_bytes;
  return offset & ~(alignof(std::max_align_t) - 1);
}

std::size_t AsyncBranch::StateBytes(const AsyncCall& parent, std::size_t first) noexcept {
  return parent.plan_->state_bytes - StateBase(parent, first);
}

void AsyncBranch::Done(Status status) {
  owner_->BranchEnded(*this, std::move(status));
  Release();
}

}  // namespace stormguard
