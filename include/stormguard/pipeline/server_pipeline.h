// stormguard/pipeline/server_pipeline.h: what a pipeline around a server's
// handler may hold.
//
// A server runs each incoming call once: a retry or hedge there would
// multiply the attempts its caller already makes. So a stage that runs
// attempts itself (its placement says reports_attempt_end: retry, hedge, or a
// stage of one's own that declares it) belongs to the caller. The HTTP
// middleware and the gRPC server guard both refuse such a pipeline.
//
// Thread safety: a pure function of the pipeline.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard {

// One error per stage that runs attempts, as
// "stages[1] (retry): a server runs each <unit> once; ..."; none for null.
std::vector<std::string> ServerPipelineErrors(const Pipeline* pipeline, std::string_view unit);

}  // namespace stormguard
