#include "stormguard/wire/propagation.h"

#include <algorithm>

#include "parse.h"
#include "stormguard/core/validation.h"
#include "stormguard/wire/grpc_timeout.h"

namespace stormguard {
namespace {

void Put(const HeaderSetter& set, std::string_view name, std::string_view value) {
  if (!name.empty()) set(name, value);
}

// The attempt number a request is sent as (see InjectOptions).
int SentAttempt(const CallContext& ctx, const InjectOptions& options) noexcept {
  if (options.propagate_incoming_retry && ctx.incoming_is_retry) return std::max(ctx.attempt, 2);
  return ctx.attempt;
}

void PutKey(const CallContext& ctx, const HeaderSetter& set, std::string_view name) {
  if (IsValidIdempotencyKey(ctx.idempotency_key)) Put(set, name, ctx.idempotency_key);
}

// The smallest budget among the headers present, and which header gave it
// (on a tie, the one listed first in BudgetSource).
struct Asked {
  std::optional<Duration> budget;
  BudgetSource source = BudgetSource::kServerDefault;

  void Offer(std::optional<Duration> d, BudgetSource s) noexcept {
    if (d && (!budget || *d < *budget || (*d == *budget && s < source))) {
      budget = d;
      source = s;
    }
  }
};

// Calls `visit` with each element of a numeric header's value: a proxy may
// join repeated field lines with commas (RFC 9110 section 5.3).
template <class F>
void ForEachNumber(std::string_view line, F&& visit) {
  for (std::size_t start = 0;;) {
    const std::size_t comma = std::min(line.find(',', start), line.size());
    visit(wire_internal::TrimOws(line.substr(start, comma - start)));
    if (comma == line.size()) return;
    start = comma + 1;
  }
}

// What a request's headers ask for, read in one pass over them (the order of
// `names` in Read is the order of BudgetSource, which breaks budget ties):
// - every value of every budget header competes, so a caller that repeats
//   a header cannot hide its smaller budget behind a larger first one;
// - any value marking a retry makes the request one;
// - the key in the first HTTP key header if valid, else in the first gRPC one.
struct Incoming {
  // The index in Read's list of the first key header; numbers come before.
  static constexpr std::size_t kFirstKey = 7;

  Asked asked;
  bool retry = false;
  bool key_seen[2] = {false, false};
  std::optional<std::string_view> key[2];

  void Read(const HeaderGetter& get, std::int64_t unix_now_ms, const ServerLimits& limits, const WireNames& names) {
    const std::string_view all[] = {
        names.request_timeout_ms,     names.request_deadline, names.envoy_expected_timeout_ms,
        names.grpc_timeout,           names.retry_attempt,    names.envoy_attempt_count,
        names.grpc_previous_attempts, names.idempotency_key,  names.grpc_idempotency_key};
    get.ForEachOf(all, [&](std::size_t which, std::string_view value) {
      if (which >= kFirstKey) {
        const std::size_t k = which - kFirstKey;
        if (!key_seen[k]) key[k] = DecodeIdempotencyKey(value, limits.max_idempotency_key_length);
        key_seen[k] = true;
        return true;
      }
      ForEachNumber(value, [&](std::string_view v) { OfferNumber(which, v, unix_now_ms); });
      return true;
    });
  }

  std::string Key() const { return std::string(key[0] ? *key[0] : key[1].value_or(std::string_view())); }

 private:
  void OfferNumber(std::size_t which, std::string_view v, std::int64_t unix_now_ms) {
    switch (which) {
      case 0: asked.Offer(DecodeRequestTimeoutMs(v), BudgetSource::kRequestTimeout); break;
      case 1: asked.Offer(DecodeRequestDeadline(v, unix_now_ms), BudgetSource::kRequestDeadline); break;
      case 2: asked.Offer(DecodeRequestTimeoutMs(v), BudgetSource::kEnvoyExpectedTimeout); break;
      case 3: asked.Offer(DecodeGrpcTimeout(v), BudgetSource::kGrpcTimeout); break;
      case 4: retry = retry || DecodeRetryAttempt(v).value_or(1) > 1; break;
      case 5: retry = retry || DecodeEnvoyAttemptCount(v).value_or(1) > 1; break;
      default: retry = retry || DecodeGrpcPreviousAttempts(v).value_or(0) > 0;
    }
  }
};

}  // namespace

void InjectHttp(const CallContext& ctx, TimePoint now, std::int64_t unix_now_ms, HeaderSetter set,
                const InjectOptions& options, const WireNames& names) {
  const Deadline down = ctx.deadline.ForNextHop(now, options.reserve);
  if (!down.is_infinite()) {
    const Duration left = down.Remaining(now);
    Put(set, names.request_timeout_ms, EncodeRequestTimeoutMs(left));
    if (options.write_absolute_deadline) {
      Put(set, names.request_deadline, EncodeRequestDeadline(left, unix_now_ms));
    }
  }
  if (const int attempt = SentAttempt(ctx, options); attempt > 1) {
    Put(set, names.retry_attempt, EncodeRetryAttempt(attempt));
  }
  PutKey(ctx, set, names.idempotency_key);
  if (options.ask_sidecar_not_to_retry) Put(set, names.envoy_max_retries, kEnvoyNoRetriesValue);
}

void InjectGrpc(const CallContext& ctx, TimePoint now, HeaderSetter set, const InjectOptions& options,
                const WireNames& names) {
  const Deadline down = ctx.deadline.ForNextHop(now, options.reserve);
  if (!down.is_infinite()) Put(set, names.grpc_timeout, EncodeGrpcTimeout(down.Remaining(now)));
  if (const int attempt = SentAttempt(ctx, options); attempt > 1) {
    Put(set, names.grpc_previous_attempts, EncodeGrpcPreviousAttempts(attempt - 1));
  }
  PutKey(ctx, set, names.grpc_idempotency_key);
  if (options.ask_sidecar_not_to_retry) Put(set, names.envoy_max_retries, kEnvoyNoRetriesValue);
}

std::vector<std::string> ServerLimits::Validate() const {
  Validator v;
  v.Check(default_budget > Duration::zero(), "default_budget", "must be positive");
  v.Check(max_budget > Duration::zero(), "max_budget", "must be positive");
  v.Check(default_budget <= max_budget, "default_budget", "must not exceed max_budget");
  v.Check(max_idempotency_key_length >= 1, "max_idempotency_key_length", "must be at least 1");
  return std::move(v).errors();
}

std::string_view BudgetSourceName(BudgetSource source) noexcept {
  switch (source) {
    case BudgetSource::kServerDefault: return "server_default";
    case BudgetSource::kRequestTimeout: return "request_timeout";
    case BudgetSource::kRequestDeadline: return "request_deadline";
    case BudgetSource::kEnvoyExpectedTimeout: return "envoy_expected_timeout";
    case BudgetSource::kGrpcTimeout: return "grpc_timeout";
  }
  return "unknown";
}

ExtractedContext Extract(HeaderGetter get, TimePoint now, std::int64_t unix_now_ms, const ServerLimits& limits,
                         const WireNames& names) {
  ExtractedContext out;
  const Duration cap = std::max(limits.max_budget, Duration::zero());
  Incoming in;
  in.Read(get, unix_now_ms, limits, names);
  const Asked& asked = in.asked;
  Duration budget = std::min(limits.default_budget, cap);
  if (asked.budget) {
    out.source = asked.source;
    out.expired = *asked.budget <= Duration::zero();
    out.clamped = *asked.budget > cap;
    budget = std::min(*asked.budget, cap);
  }
  out.context.deadline = Deadline::After(now, budget);
  out.context.incoming_is_retry = in.retry;
  out.context.idempotency_key = in.Key();
  return out;
}

void InjectRetryHintsHttp(const RetryHints& hints, HeaderSetter set, const WireNames& names) {
  if (hints.do_not_retry || hints.pushback_stop) Put(set, names.no_retry, kNoRetryValue);
  if (hints.pushback) Put(set, names.retry_after, EncodeRetryAfter(*hints.pushback));
}

void InjectRetryHintsGrpc(const RetryHints& hints, HeaderSetter set, const WireNames& names) {
  if (hints.do_not_retry || hints.pushback_stop) {
    Put(set, names.grpc_retry_pushback, kGrpcPushbackStopValue);
  } else if (hints.pushback) {
    Put(set, names.grpc_retry_pushback, EncodeGrpcPushback(*hints.pushback));
  }
}

// A repeated hint reads the most cautious way: any do-not-retry or stop
// wins, and the longest pause.
RetryHints ReadRetryHints(HeaderGetter get, std::int64_t unix_now_ms, Duration max_pushback, const WireNames& names) {
  RetryHints hints;
  const auto each = [&](std::string_view name, auto visit) {
    if (!name.empty())
      get.ForEach(name, [&](std::string_view v) {
        visit(v);
        return true;
      });
  };
  each(names.no_retry,
       [&](std::string_view v) { hints.do_not_retry = hints.do_not_retry || DecodeNoRetry(v).value_or(false); });
  std::optional<Duration> pause;
  const auto longer = [&](Duration d) { pause = std::max(pause.value_or(d), d); };
  each(names.grpc_retry_pushback, [&](std::string_view v) {
    const auto pushback = DecodeGrpcPushback(v);
    if (!pushback || pushback->stop) {
      hints.pushback_stop = true;  // A6: unparseable means stop
    } else {
      longer(pushback->delay);
    }
  });
  // Whole field lines only: an HTTP-date holds a comma.
  each(names.retry_after, [&](std::string_view v) {
    if (const auto after = DecodeRetryAfter(v, unix_now_ms)) longer(*after);
  });
  if (hints.pushback_stop) pause.reset();
  if (pause) hints.pushback = std::clamp(*pause, Duration::zero(), std::max(max_pushback, Duration::zero()));
  return hints;
}

}  // namespace stormguard
