#include "stormguard/pipeline/pipeline_ref.h"

#include <cstdio>
#include <cstdlib>

namespace stormguard {

namespace pipeline_internal {

struct LiveBinding : PipelineRefCount {
  LiveBinding(const PipelineSource& s, std::string d, std::string m)
      : PipelineRefCount([](PipelineRefCount* c) noexcept { delete static_cast<LiveBinding*>(c); }, 1),
        source(s),
        destination(std::move(d)),
        method(std::move(m)) {}
  const PipelineSource& source;
  const std::string destination;
  const std::string method;
};

}  // namespace pipeline_internal

PipelineRef PipelineRef::Follow(const PipelineSource& source, std::string destination, std::string method) {
  return Adopt(nullptr, new pipeline_internal::LiveBinding(source, std::move(destination), std::move(method)));
}

void PipelineRef::DieNotFixed() noexcept {
  std::fputs("stormguard: PipelineRef: * or -> on a live or empty handle; Pin() a live one first\n", stderr);
  std::abort();
}

PipelineRef PipelineRef::ResolveLive() const {
  const auto* binding = static_cast<const pipeline_internal::LiveBinding*>(count_);
  return binding->source.Resolve(binding->destination, binding->method);
}

std::string PipelineRef::Describe() const {
  const PipelineRef pinned = Pin();
  return pinned ? pinned.pipeline_->Describe() : "(no pipeline)";
}

Status PipelineRef::AsyncSupport() const {
  const PipelineRef pinned = Pin();
  return pinned ? pinned.pipeline_->AsyncSupport() : Status::FailedPrecondition("pipeline: empty handle");
}

Status PipelineRef::BlockingSupport() const {
  const PipelineRef pinned = Pin();
  return pinned ? pinned.pipeline_->BlockingSupport() : Status::FailedPrecondition("pipeline: empty handle");
}

bool operator==(const PipelineRef& a, const PipelineRef& b) noexcept {
  if (!a.live() || !b.live()) return a.pipeline_ == b.pipeline_ && a.live() == b.live();
  const auto* x = static_cast<const pipeline_internal::LiveBinding*>(a.count_);
  const auto* y = static_cast<const pipeline_internal::LiveBinding*>(b.count_);
  return &x->source == &y->source && x->destination == y->destination && x->method == y->method;
}

}  // namespace stormguard
