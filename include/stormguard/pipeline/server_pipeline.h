// stormguard/pipeline/server_pipeline.h: what a pipeline around a server's
// handler may hold.
//
// A server runs each incoming call once: a retry or hedge there would
// multiply the attempts its caller already makes. So a stage that runs
// attempts itself (its placement says reports_attempt_end: retry, hedge, or a
// stage of one's own that declares it) belongs to the caller. The HTTP
// middleware and the gRPC server guard both refuse such a pipeline when
// they are created, and a live handle's reload that brings one is not run
// (ServerPipelineFor).
//
// Thread safety: a pure function of the pipeline.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard {

// One error per stage that runs attempts, as
// "stages[1] (retry): a server runs each <unit> once; ..."; none for null.
std::vector<std::string> ServerPipelineErrors(const Pipeline* pipeline, std::string_view unit);
// The same, for the pipeline `handle` is on now (a live handle's in force).
std::vector<std::string> ServerPipelineErrors(const PipelineRef& handle, std::string_view unit);

// The pipeline to run one incoming call in: a fixed handle's, or the one a
// live handle is on now (kept in `pinned` for the call), or null: no
// handle, or a reload brought a pipeline that runs attempts, which a server
// must not (`misconfigured` is then set: serve the call unguarded, count it).
const Pipeline* ServerPipelineFor(const PipelineRef& handle, PipelineRef& pinned, bool& misconfigured);

}  // namespace stormguard
