// stormguard/grpc/internal/call_setup.h: what the blocking and the callback
// client share around one call (client.cc).
#pragma once

#include "stormguard/core/call_context.h"
#include "stormguard/core/status.h"
#include "stormguard/grpc/client.h"

namespace stormguard::rpc::grpc_internal {

// Fills `call`, the call's own context handed down from `parent`. An
// invalid idempotency key is refused (the returned status), before anything
// is sent: retrying without the key could run the call several times.
Status MakeCallContext(const GrpcClientOptions& o, const CallContext& parent, const CallOptions& options,
                       CallContext& call);

// Sets parent.downstream_gave_up when the call gave up for the chain. Also
// without a retry in the pipeline: a "do not retry" answer passed on as it
// is still tells the layers above not to retry.
void ReportToParent(const CallContext& call, const Status& status, CallContext& parent) noexcept;

}  // namespace stormguard::rpc::grpc_internal
