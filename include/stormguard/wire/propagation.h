// stormguard/wire/propagation.h: a CallContext into and out of headers.
//
// Client side: stamp the outgoing request with what is left of the budget,
// the attempt number and the idempotency key; after a failure, read what the
// server said about retrying. Server side: build the request's CallContext
// from its headers, clamped to the server's own limits, and answer with
// "do not retry" / a pause when the server wants one.
//
//   // server middleware (unix_ms: wall-clock Unix ms, read by the adapter)
//   ExtractedContext in = Extract(req.headers, clock.Now(), unix_ms, limits);
//   if (in.expired) return Reply(504);            // refuse before any work
//   ScopedCallContext scope(in.context);
//   // client wrapper, per attempt
//   InjectHttp(ctx, clock.Now(), unix_ms, out_headers, {.reserve = {.fraction = 0.1}});
//   RetryHints hints = ReadRetryHints(resp.headers, unix_ms, 30s);
//
// Budgets travel as relative time (x-request-timeout-ms, grpc-timeout), which
// is immune to clock skew between hosts; `unix_now_ms` (wall-clock Unix ms,
// passed in, never read here) is only needed for x-request-deadline and
// Retry-After dates. Untrusted values never extend the server's limits.
//
// Thread safety: pure functions; the getter/setter must not be used by
// another thread meanwhile. Exceptions: only those of the bound container
// (allocation) or callable; the codecs themselves never throw.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/deadline.h"
#include "stormguard/core/status.h"
#include "stormguard/wire/header_map.h"
#include "stormguard/wire/http_headers.h"

namespace stormguard {

// ---- client side: outgoing requests ----------------------------------------

struct InjectOptions {
  // What this hop keeps for itself before handing the budget down (typically
  // 10-20%). The sent budget is ctx.deadline.ForNextHop(now, reserve).
  HopReserve reserve{};
  // Also mark the request as a retry when the request this service is serving
  // was one (ctx.incoming_is_retry), so the retry flag reaches every hop below
  // instead of only the next. Off: only our own retries are marked.
  bool propagate_incoming_retry = false;
  // HTTP only: also write x-request-deadline (absolute Unix ms) for services
  // that read only that (a deadline filter at the edge). Subject to clock skew.
  bool write_absolute_deadline = false;
  // Also write x-envoy-max-retries: 0, so the Envoy sidecar this request
  // leaves through does not retry it on top of this client's own retries
  // (one layer retries; docs/chain-protocol.md, "Inside a mesh"). Off: outside
  // a mesh nothing reads the header.
  bool ask_sidecar_not_to_retry = false;
};

// HTTP request headers: x-request-timeout-ms (omitted when the deadline is
// infinite; "0" when spent), x-retry-attempt when the attempt number (see
// InjectOptions) is above 1, Idempotency-Key when ctx has a valid key (see
// IsValidIdempotencyKey; an invalid key is not sent), x-envoy-max-retries: 0
// when asked.
void InjectHttp(const CallContext& ctx, TimePoint now, std::int64_t unix_now_ms, HeaderSetter set,
                const InjectOptions& options = {}, const WireNames& names = kDefaultWireNames);

// gRPC request metadata: grpc-timeout (omitted when infinite; "1n" when
// spent), grpc-previous-rpc-attempts = attempt - 1 when above 0,
// idempotency-key, x-envoy-max-retries: 0 when asked. For clients that fill metadata themselves; a stock gRPC
// channel already sends grpc-timeout from the call's deadline.
void InjectGrpc(const CallContext& ctx, TimePoint now, HeaderSetter set, const InjectOptions& options = {},
                const WireNames& names = kDefaultWireNames);

// ---- server side: incoming requests ----------------------------------------

// Check Validate() when configuring; Extract does not repeat the checks.
struct ServerLimits {
  // The budget of a request that carries none (or only garbage). Envoy's
  // default route timeout.
  Duration default_budget = std::chrono::seconds(15);
  // No header can grant more than this; kInfiniteDuration trusts the caller.
  Duration max_budget = std::chrono::seconds(60);
  // Longer idempotency keys are dropped.
  std::size_t max_idempotency_key_length = kMaxIdempotencyKeyLength;

  std::vector<std::string> Validate() const;
};

enum class BudgetSource : std::uint8_t {
  kServerDefault,
  kRequestTimeout,        // x-request-timeout-ms
  kRequestDeadline,       // x-request-deadline
  kEnvoyExpectedTimeout,  // x-envoy-expected-rq-timeout-ms
  kGrpcTimeout,           // grpc-timeout
};
std::string_view BudgetSourceName(BudgetSource source) noexcept;  // "request_timeout", ...

struct ExtractedContext {
  // deadline, incoming_is_retry and idempotency_key filled; attempt 1 (this
  // server's own calls start counting); stop empty (the server sets it).
  CallContext context;
  BudgetSource source = BudgetSource::kServerDefault;  // which header set the budget
  // The caller's budget was already spent ("0", a past x-request-deadline,
  // "0n"): refuse, do no work. gRPC's "1n" for a spent deadline yields a 1 ns
  // deadline instead, which context.deadline.Expired() reports a moment later.
  bool expired = false;
  bool clamped = false;  // the caller granted more than max_budget; cut to it
};

// Reads every budget header present and takes the SMALLEST (ties: the order
// of BudgetSource): every value of a repeated header and every item of a
// comma-joined one counts, so the caller that can wait least decides.
// Garbage counts as absent; none gives default_budget. The result is clamped
// to max_budget (default_budget too). The retry flag is set by any
// x-retry-attempt >= 2, x-envoy-attempt-count >= 2 (a sidecar's retry) or
// grpc-previous-rpc-attempts >= 1.
//
// The server's own reserve (HopReserve) is NOT taken here: the context holds
// what the caller granted. Take it when calling downstream, through
// InjectOptions::reserve or ctx.deadline.ForNextHop(now, reserve).
ExtractedContext Extract(HeaderGetter get, TimePoint now, std::int64_t unix_now_ms, const ServerLimits& limits = {},
                         const WireNames& names = kDefaultWireNames);

// ---- responses: "do not retry" and pushback ---------------------------------

// HTTP response headers: x-no-retry: 1 when hints.do_not_retry or
// hints.pushback_stop; Retry-After (seconds, rounded up) when hints.pushback.
void InjectRetryHintsHttp(const RetryHints& hints, HeaderSetter set, const WireNames& names = kDefaultWireNames);

// gRPC trailers: grpc-retry-pushback-ms: -1 when do_not_retry or
// pushback_stop (plain gRPC clients honour it too), else the pause in ms.
void InjectRetryHintsGrpc(const RetryHints& hints, HeaderSetter set, const WireNames& names = kDefaultWireNames);

// Reads x-no-retry, Retry-After and grpc-retry-pushback-ms (whichever are
// present) into RetryHints: do_not_retry from x-no-retry; pushback_stop from
// a negative OR unparseable grpc-retry-pushback-ms (gRPC A6); otherwise
// pushback is the longer of the two pauses, clamped to [0, max_pushback].
RetryHints ReadRetryHints(HeaderGetter get, std::int64_t unix_now_ms, Duration max_pushback,
                          const WireNames& names = kDefaultWireNames);

}  // namespace stormguard
