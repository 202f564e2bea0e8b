// Extract: a whole request's headers into a CallContext, within the server's
// limits; then InjectHttp of that context, as the server's own downstream
// call would send it.
//
// Input: a first line "unix_now_ms steady_now_ns max_budget_ms
// default_budget_ms max_key_length" (any may be missing), then header lines
// "name: value" (see fuzz_input.h). Limits that fail Validate() are skipped.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "fuzz_input.h"
#include "stormguard/wire/grpc_timeout.h"
#include "stormguard/wire/propagation.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using std::chrono::milliseconds;
using stormguard::BudgetSource;
using stormguard::Duration;
using stormguard::ExtractedContext;
using stormguard::HeaderGetter;
using stormguard::TimePoint;

// Milliseconds as a Duration; past Duration's range, infinite.
Duration Millis(std::int64_t ms) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1'000'000;
  if (ms >= kMax) return stormguard::kInfiniteDuration;
  return milliseconds(std::max(ms, -kMax));
}

// Calls `visit` with every item of every repeat of the header `name`: the
// lines split at commas, without surrounding blanks (RFC 9110 section 5.3).
template <class Visit>
void ForEachItem(const fz::HeaderList& h, std::string_view name, Visit visit) {
  for (const auto& [key, line] : h) {
    if (!std::equal(key.begin(), key.end(), name.begin(), name.end(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      continue;
    }
    std::string_view rest = line;
    for (;;) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      std::string_view item = rest.substr(0, comma);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      visit(item);
      if (comma == rest.size()) break;
      rest.remove_prefix(comma + 1);
    }
  }
}

// What one budget header asks for, decoded independently of Extract.
std::optional<Duration> Asked(const fz::HeaderList& h, BudgetSource source, std::int64_t unix_ms) {
  const stormguard::WireNames& n = stormguard::kDefaultWireNames;
  const auto read = [&h](std::string_view name, auto decode) -> std::optional<Duration> {
    std::optional<Duration> best;  // the smallest item of any repeat
    ForEachItem(h, name, [&](std::string_view item) {
      if (const std::optional<Duration> d = decode(item); d && (!best || *d < *best)) best = d;
    });
    return best;
  };
  const auto deadline = [unix_ms](std::string_view v) { return stormguard::DecodeRequestDeadline(v, unix_ms); };
  switch (source) {
    case BudgetSource::kRequestTimeout: return read(n.request_timeout_ms, stormguard::DecodeRequestTimeoutMs);
    case BudgetSource::kRequestDeadline: return read(n.request_deadline, deadline);
    case BudgetSource::kEnvoyExpectedTimeout:
      return read(n.envoy_expected_timeout_ms, stormguard::DecodeRequestTimeoutMs);
    case BudgetSource::kGrpcTimeout: return read(n.grpc_timeout, stormguard::DecodeGrpcTimeout);
    case BudgetSource::kServerDefault: break;
  }
  return std::nullopt;
}

// The smallest budget asked for wins, and it never passes max_budget.
void CheckBudget(const fz::HeaderList& h, const ExtractedContext& out, TimePoint now, std::int64_t unix_ms,
                 const stormguard::ServerLimits& limits) {
  std::optional<Duration> smallest;
  for (const BudgetSource s : {BudgetSource::kRequestTimeout, BudgetSource::kRequestDeadline,
                               BudgetSource::kEnvoyExpectedTimeout, BudgetSource::kGrpcTimeout}) {
    const auto asked = Asked(h, s, unix_ms);
    if (asked && (!smallest || *asked < *smallest)) smallest = asked;
  }
  Require(smallest.has_value() == (out.source != BudgetSource::kServerDefault),
          "the default budget applies exactly when no header gives one");
  const Duration budget = smallest ? std::min(*smallest, limits.max_budget) : limits.default_budget;
  Require(!smallest || Asked(h, out.source, unix_ms) == smallest, "the source is the smallest");
  Require(out.context.deadline == stormguard::Deadline::After(now, budget), "the deadline is now + budget");
  Require(out.context.deadline.time() <= stormguard::SaturatingAdd(now, limits.max_budget),
          "never beyond now + max_budget");
  Require(out.expired == (smallest && *smallest <= Duration::zero()), "expired iff nothing was left");
  Require(out.clamped == (smallest && *smallest > limits.max_budget), "clamped iff above max_budget");
}

void CheckFlags(const fz::HeaderList& h, const ExtractedContext& out, std::size_t max_key) {
  const stormguard::WireNames& n = stormguard::kDefaultWireNames;
  bool retry = false;  // any item of any repeat of any of the three headers
  ForEachItem(h, n.retry_attempt,
              [&](std::string_view v) { retry = retry || stormguard::DecodeRetryAttempt(v).value_or(0) > 1; });
  ForEachItem(h, n.envoy_attempt_count,
              [&](std::string_view v) { retry = retry || stormguard::DecodeEnvoyAttemptCount(v).value_or(0) > 1; });
  ForEachItem(h, n.grpc_previous_attempts,
              [&](std::string_view v) { retry = retry || stormguard::DecodeGrpcPreviousAttempts(v).value_or(0) > 0; });
  Require(out.context.incoming_is_retry == retry, "a retry is marked by any retry header");
  Require(out.context.attempt == 1 && !out.context.downstream_gave_up, "this server's calls start fresh");
  const std::string& key = out.context.idempotency_key;
  Require(key.empty() || stormguard::IsValidIdempotencyKey(key, max_key), "only valid keys are kept");
}

// Handing the context on never grants more time, and keeps the retry flag
// and the key; asking the sidecar not to retry adds only its own header.
void CheckForward(const ExtractedContext& out, TimePoint now, std::int64_t unix_ms,
                  const stormguard::ServerLimits& limits) {
  fz::HeaderList sent;
  stormguard::InjectHttp(
      out.context, now, unix_ms,
      [&](std::string_view name, std::string_view value) { sent.emplace_back(std::string(name), std::string(value)); },
      {.propagate_incoming_retry = true, .write_absolute_deadline = true, .ask_sidecar_not_to_retry = true});
  Require(std::count(sent.begin(), sent.end(), std::pair<std::string, std::string>("x-envoy-max-retries", "0")) == 1,
          "the sidecar is asked once, for no retries");
  const ExtractedContext next = stormguard::Extract(HeaderGetter(sent), now, unix_ms, limits);
  const Duration left = out.context.deadline.Remaining(now);
  const Duration next_left = next.context.deadline.Remaining(now);
  if (!out.context.deadline.is_infinite()) {
    Require(next_left <= left, "the next hop never gets more time");
    if (left <= stormguard::kMaxWireDuration) {
      Require(left - next_left < milliseconds(1), "floored to the ms, nothing more");
    }
  }
  Require(next.context.incoming_is_retry == out.context.incoming_is_retry, "the retry flag travels");
  Require(next.context.idempotency_key == out.context.idempotency_key, "the key travels");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [line, rest] = fz::SplitFirstLine(fz::AsText(data, size));
  const std::int64_t unix_ms = fz::NumberAt(line, 0, fz::kDefaultUnixMs);
  const TimePoint now{Duration(fz::NumberAt(line, 1, 1'000'000'000'000))};
  stormguard::ServerLimits limits;
  limits.max_budget = Millis(fz::NumberAt(line, 2, 60'000));
  limits.default_budget = Millis(fz::NumberAt(line, 3, 15'000));
  limits.max_idempotency_key_length =
      static_cast<std::size_t>(std::max<std::int64_t>(0, fz::NumberAt(line, 4, stormguard::kMaxIdempotencyKeyLength)));
  if (!limits.Validate().empty()) return 0;

  const fz::HeaderList headers = fz::ParseHeaderLines(rest);
  const ExtractedContext out = stormguard::Extract(headers, now, unix_ms, limits);
  CheckBudget(headers, out, now, unix_ms, limits);
  CheckFlags(headers, out, limits.max_idempotency_key_length);
  CheckForward(out, now, unix_ms, limits);
  return 0;
}
