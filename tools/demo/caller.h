// tools/demo/caller.h: one logical call to the next hop, retried the way a mode retries.
//
//   auto caller = MakeCaller(Mode::kNaive, NextHop::kRelay);
//   CallOutcome out = caller->Call(request, measure, ctx);
//   if (out.ok()) ...
//
// naive: the loop people write (NaiveCaller), 3 attempts, fixed pauses and
// timeouts, every failure retried, POST too. stormguard: http::HttpClient
// (StormguardCaller). The measurement headers are stamped on every attempt.
//
// With the ports of C's replicas (B of a fleet), naive sends each attempt to
// the next replica in turn (round robin, shared by every call); stormguard
// gives its client the demo registry's "bottom" ReplicaSet with those
// members (picker and outlier detection from stormguard.json).
// Thread safety: one Caller serves any number of threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "demo/demo_options.h"
#include "demo/measure.h"
#include "stormguard/core/call_context.h"
#include "stormguard/http/message.h"

namespace stormguard::demo {

struct CallOutcome {
  int status = 0;  // HTTP status to answer with (502/504 when no answer came)
  std::string body;
  int attempts = 0;
  std::string attempts_below;  // the answer's kAttemptsHeader (measure.h); "" if none

  bool ok() const noexcept { return status >= 200 && status < 300; }
};

class Caller {
 public:
  virtual ~Caller() = default;
  // `ctx` is the work this call belongs to: the request being served, or the
  // load generator's root context (deadline = the entry budget).
  virtual CallOutcome Call(const http::HttpRequest& request, const Measure& m, CallContext& ctx) const = 0;
};

// Which kind of service the call goes to: a relay that itself calls on (A,
// B) or the bottom service C. Only the stormguard caller cares (attempt
// timeouts belong to the hop that can judge its callee's latency).
enum class NextHop { kRelay, kBottom };

// `replica_ports`: empty, each request goes where its URL says.
std::unique_ptr<Caller> MakeNaiveCaller(std::vector<int> replica_ports = {});
std::unique_ptr<Caller> MakeStormguardCaller(NextHop next, const std::vector<int>& replica_ports = {});
std::unique_ptr<Caller> MakeCaller(Mode mode, NextHop next, const std::vector<int>& replica_ports = {});

}  // namespace stormguard::demo
