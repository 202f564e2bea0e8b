#include "stormguard/pipeline/server_pipeline.h"

namespace stormguard {

std::vector<std::string> ServerPipelineErrors(const Pipeline* pipeline, std::string_view unit) {
  std::vector<std::string> errors;
  for (std::size_t i = 0; pipeline != nullptr && i < pipeline->size(); ++i) {
    const Stage& stage = pipeline->stage(i);
    if (!stage.placement().reports_attempt_end) continue;
    errors.push_back("stages[" + std::to_string(i) + "] (" + std::string(stage.name()) + "): a server runs each " +
                     std::string(unit) + " once; retry and hedge belong to the caller");
  }
  return errors;
}

std::vector<std::string> ServerPipelineErrors(const PipelineRef& handle, std::string_view unit) {
  const PipelineRef pinned = handle.Pin();
  return ServerPipelineErrors(pinned.get(), unit);
}

const Pipeline* ServerPipelineFor(const PipelineRef& handle, PipelineRef& pinned, bool& misconfigured) {
  if (const Pipeline* fixed = handle.get()) return fixed;  // checked when the server was made
  if (!handle) return nullptr;
  pinned = handle.Pin();
  misconfigured = pinned.get()->runs_attempts();
  return misconfigured ? nullptr : pinned.get();
}

}  // namespace stormguard
