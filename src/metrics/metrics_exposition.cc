// MetricsListener::Scrape: the text exposition format 0.0.4, family by
// family; within a family, instances in registration order.
#include <charconv>
#include <cmath>
#include <span>

#include "metric_instance.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {

using namespace metrics_internal;
using Cells = std::array<std::uint64_t, kCellCount>;

struct Snapshot {
  const Instance* instance;
  Cells cells;
};

// Label values escape double quote and newline as the format requires;
// control bytes, non-ASCII bytes and the backslash itself become a literal
// \xHH, so a hostile name can neither break a line nor smuggle invalid
// UTF-8, and two names never render alike (a name holding the text "\x01"
// differs from one holding the byte 0x01).
void AppendEscaped(std::string& out, std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : value) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if (b < 0x20 || b >= 0x7f || c == '\\') {
      out += "\\\\x";
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    } else {
      out += c;
    }
  }
}

void AppendNumber(std::string& out, std::uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void AppendNumber(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
  } else {
    char buf[32];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
}

// One sample: metric{name="instance"[,key="value"]} number
template <class V>
void AppendSample(std::string& out, std::string_view metric, std::string_view instance, std::string_view key,
                  std::string_view value, V number) {
  out += metric;
  out += "{name=\"";
  AppendEscaped(out, instance);
  out += '"';
  if (!key.empty()) {
    out += ',';
    out += key;
    out += "=\"";
    out += value;  // our own fixed names: nothing to escape
    out += '"';
  }
  out += "} ";
  AppendNumber(out, number);
  out += '\n';
}

// HELP and TYPE, written only when the family has samples.
void AppendFamily(std::string& out, std::string_view metric, std::string_view type, std::string_view help,
                  const std::string& samples) {
  if (samples.empty()) return;
  out.append("# HELP ").append(metric).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(metric).append(" ").append(type).append("\n");
  out += samples;
}

// A counter labelled by `values`, one cell each from `first`; zero series
// are left out (a counter appears once it counted something).
void AppendCounter(std::string& out, std::span<const Snapshot> snaps, std::string_view metric,
                   std::string_view help, int first, std::string_view key,
                   std::span<const std::string_view> values) {
  std::string samples;
  for (const Snapshot& s : snaps) {
    for (std::size_t i = 0; i < std::max<std::size_t>(values.size(), 1); ++i) {
      const std::uint64_t n = s.cells[static_cast<std::size_t>(first) + i];
      if (n != 0) AppendSample(samples, metric, s.instance->name(), key, values.empty() ? "" : values[i], n);
    }
  }
  AppendFamily(out, metric, "counter", help, samples);
}

void AppendLatency(std::string& out, std::span<const Snapshot> snaps) {
  constexpr std::string_view kMetric = "stormguard_attempt_duration_seconds";
  std::string samples;
  for (const Snapshot& s : snaps) {
    std::uint64_t cumulative = 0;
    for (int b = 0; b < kBucketCount; ++b) cumulative += s.cells[static_cast<std::size_t>(kBuckets + b)];
    if (cumulative == 0) continue;
    cumulative = 0;
    for (int b = 0; b < kBucketCount; ++b) {
      cumulative += s.cells[static_cast<std::size_t>(kBuckets + b)];
      const std::string_view le = b < kBucketCount - 1 ? kBucketLabels[static_cast<std::size_t>(b)] : "+Inf";
      AppendSample(samples, "stormguard_attempt_duration_seconds_bucket", s.instance->name(), "le", le,
                   cumulative);
    }
    const double sum = static_cast<double>(s.cells[kLatencySumNanos]) / 1e9;
    AppendSample(samples, "stormguard_attempt_duration_seconds_sum", s.instance->name(), "", "", sum);
    AppendSample(samples, "stormguard_attempt_duration_seconds_count", s.instance->name(), "", "", cumulative);
  }
  AppendFamily(out, kMetric, "histogram", "Latency of attempts that reached the call.", samples);
}

void AppendBreakerState(std::string& out, std::span<const Snapshot> snaps) {
  constexpr std::string_view kMetric = "stormguard_circuitbreaker_state";
  std::string samples;
  for (const Snapshot& s : snaps) {
    const int state = s.instance->breaker_state();
    if (state < 0) continue;
    for (std::size_t i = 0; i < kBreakerStates.size(); ++i) {
      AppendSample(samples, kMetric, s.instance->name(), "state", kBreakerStates[i],
                   std::uint64_t{static_cast<int>(i) == state});
    }
  }
  AppendFamily(out, kMetric, "gauge", "1 for the circuit breaker's current state, 0 for the others.", samples);
}

struct WatchedFamily {
  std::string_view metric, type, help;
};
constexpr std::array<WatchedFamily, kWatchedCount> kWatchedFamilies = {{
    {"stormguard_bulkhead_concurrent_calls", "gauge", "Calls holding a bulkhead slot."},
    {"stormguard_bulkhead_max_allowed_concurrent_calls", "gauge", "The bulkhead's slots."},
    {"stormguard_adaptive_concurrency_concurrent_calls", "gauge", "Calls the adaptive limiter admitted, running."},
    {"stormguard_adaptive_concurrency_limit", "gauge", "The adaptive concurrency limit."},
    {"stormguard_retry_budget_tokens", "gauge", "Tokens left in the retry budget."},
    {"stormguard_config_reloads_accepted_total", "counter", "Configurations applied."},
    {"stormguard_config_reloads_rejected_total", "counter", "Configurations refused."},
}};

}  // namespace

std::string MetricsListener::Scrape() const {
  std::vector<Snapshot> snaps(count_.load(std::memory_order_acquire));
  for (std::size_t i = 0; i < snaps.size(); ++i) {
    snaps[i].instance = order_[i].load(std::memory_order_relaxed);
    for (int c = 0; c < kCellCount; ++c) snaps[i].cells[static_cast<std::size_t>(c)] = snaps[i].instance->Read(c);
  }
  std::array<std::string_view, kOutcomeCount> outcomes;
  for (int i = 0; i < kOutcomeCount; ++i) outcomes[static_cast<std::size_t>(i)] = OutcomeClassName(OutcomeClass(i));
  constexpr std::span<const std::string_view> kNone;
  const std::span<const std::string_view> rejecters(kRejecters.begin() + 1, kRejecters.end());

  std::string out;
  out.reserve(256 + snaps.size() * 512);
  AppendCounter(out, snaps, "stormguard_attempts_total", "Attempts that reached the call, by outcome.", kAttempts,
                "outcome", outcomes);
  AppendLatency(out, snaps);
  AppendCounter(out, snaps, "stormguard_retry_calls_total", "Calls through the retry policy, by how they ended.",
                kRetryCalls, "kind", kRetryKinds);
  AppendCounter(out, snaps, "stormguard_retry_retries_total", "Retries scheduled.", kRetries, "", kNone);
  AppendCounter(out, snaps, "stormguard_retry_stops_total", "Retry policy stops other than success, by reason.",
                kRetryStops, "reason", kStopReasons);
  AppendCounter(out, snaps, "stormguard_budget_refusals_total", "Retries and hedges a budget refused.",
                kBudgetRefusals, "policy", kBudgetUsers);
  AppendBreakerState(out, snaps);
  AppendCounter(out, snaps, "stormguard_circuitbreaker_transitions_total",
                "Circuit breaker transitions, by the state entered.", kTransitions, "state", kBreakerStates);
  AppendCounter(out, snaps, "stormguard_circuitbreaker_not_permitted_calls_total",
                "Calls the circuit breaker refused.", kRejected, "", kNone);
  AppendCounter(out, snaps, "stormguard_rejected_calls_total", "Calls other guards refused, by policy.",
                kRejected + 1, "policy", rejecters);
  AppendCounter(out, snaps, "stormguard_timeouts_total", "Timeouts that fired.", kTimeouts, "", kNone);
  AppendCounter(out, snaps, "stormguard_hedges_sent_total", "Hedged attempts sent.", kHedgesSent, "", kNone);
  AppendCounter(out, snaps, "stormguard_hedges_won_total", "Calls whose answer came from a hedged attempt.",
                kHedgesWon, "", kNone);
  AppendCounter(out, snaps, "stormguard_fallbacks_total", "Results a fallback produced.", kFallbacks, "", kNone);
  AppendCounter(out, snaps, "stormguard_abandoned_attempts_total", "Attempts left running past their timeout.",
                kAbandoned, "", kNone);
  AppendCounter(out, snaps, "stormguard_chaos_injections_total", "Faults injected on purpose, by kind.",
                kChaosInjections, "kind", kChaosKinds);
  {
    std::lock_guard lock(mu_);
    for (int w = 0; w < kWatchedCount; ++w) {
      std::string samples;
      for (const WatchEntry& e : watches_) {
        if (static_cast<int>(e.what) == w) {
          AppendSample(samples, kWatchedFamilies[static_cast<std::size_t>(w)].metric, e.name, "", "", e.read());
        }
      }
      const WatchedFamily& f = kWatchedFamilies[static_cast<std::size_t>(w)];
      AppendFamily(out, f.metric, f.type, f.help, samples);
    }
  }
  std::string overflow;
  overflow.append("stormguard_metrics_overflow_total ");
  AppendNumber(overflow, overflow_.load(std::memory_order_relaxed));
  overflow += '\n';
  AppendFamily(out, "stormguard_metrics_overflow_total", "counter",
               "Events, instances and watches dropped past the cap.", overflow);
  return out;
}

}  // namespace stormguard
