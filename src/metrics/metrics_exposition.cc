// MetricsListener::Scrape: the text exposition format 0.0.4, family by
// family; within a family, instances in registration order.
#include <algorithm>
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
void AppendCounter(std::string& out, std::span<const Snapshot> snaps, std::string_view metric, std::string_view help,
                   int first, std::string_view key, std::span<const std::string_view> values) {
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
      AppendSample(samples, "stormguard_attempt_duration_seconds_bucket", s.instance->name(), "le", le, cumulative);
    }
    const double sum = static_cast<double>(s.cells[kLatencySumNanos]) / 1e9;
    AppendSample(samples, "stormguard_attempt_duration_seconds_sum", s.instance->name(), "", "", sum);
    AppendSample(samples, "stormguard_attempt_duration_seconds_count", s.instance->name(), "", "", cumulative);
  }
  AppendFamily(out, kMetric, "histogram", "Latency of attempts that reached the call.", samples);
}

// One registered family's series of one instance: a counter's non-zero
// cells, or a state gauge's states once one was reported.
void AppendRegisteredSamples(std::string& samples, const RegisteredFamily& r, const Instance& in) {
  const MetricFamily& f = r.family;
  if (f.type == MetricType::kStateGauge) {
    const std::uint64_t state = in.ReadRegistered(r.first_cell);  // the state entered, plus one
    if (state == 0) return;
    for (std::size_t i = 0; i < f.state_names.size(); ++i) {
      AppendSample(samples, f.name, in.name(), f.state_label, f.state_names[i], std::uint64_t{i + 1 == state});
    }
    return;
  }
  for (int c = 0; c < r.cells; ++c) {
    const std::uint64_t n = in.ReadRegistered(r.first_cell + c);
    const std::string_view state =
        f.state_names.empty() ? std::string_view() : std::string_view(f.state_names[static_cast<std::size_t>(c)]);
    if (n != 0) AppendSample(samples, f.name, in.name(), f.state_label, state, n);
  }
}

void AppendRegistered(std::string& out, std::span<const Snapshot> snaps) {
  const FamilyRegistry& families = FamilyRegistry::Get();
  for (int i = 0, n = families.count(); i < n; ++i) {
    const RegisteredFamily& r = families.at(i);
    std::string samples;
    for (const Snapshot& s : snaps) AppendRegisteredSamples(samples, r, *s.instance);
    AppendFamily(out, r.family.name, r.family.type == MetricType::kCounter ? "counter" : "gauge", r.family.help,
                 samples);
  }
}

// One sample of an endpoint: metric{name="instance",endpoint="a:1"[,key="value"]} number
void AppendEndpointSample(std::string& out, std::string_view metric, std::string_view instance,
                          std::string_view endpoint, std::string_view value, std::uint64_t number,
                          std::string_view key = "reason") {
  out += metric;
  out += "{name=\"";
  AppendEscaped(out, instance);
  out += "\",endpoint=\"";
  AppendEscaped(out, endpoint);
  out += '"';
  if (!value.empty()) out.append(",").append(key).append("=\"").append(value).append("\"");
  out += "} ";
  AppendNumber(out, number);
  out += '\n';
}

void AppendEndpoints(std::string& out, std::span<const Snapshot> snaps) {
  std::string attempts, ejected, ejections;
  for (const Snapshot& s : snaps) {
    for (const EndpointBook::Row& row : s.instance->endpoints().Rows()) {
      const std::string_view name = s.instance->name();
      for (std::size_t o = 0; o < row.attempts.size(); ++o) {
        if (row.attempts[o] == 0) continue;
        AppendEndpointSample(attempts, "stormguard_endpoint_attempts_total", name, row.endpoint,
                             OutcomeClassName(static_cast<OutcomeClass>(o)), row.attempts[o], "outcome");
      }
      AppendEndpointSample(ejected, "stormguard_endpoint_ejected", name, row.endpoint, "", row.ejected ? 1 : 0);
      if (row.consecutive_failure_ejections != 0) {
        AppendEndpointSample(ejections, "stormguard_endpoint_ejections_total", name, row.endpoint,
                             "consecutive_failures", row.consecutive_failure_ejections);
      }
      if (row.success_rate_ejections != 0) {
        AppendEndpointSample(ejections, "stormguard_endpoint_ejections_total", name, row.endpoint, "success_rate",
                             row.success_rate_ejections);
      }
    }
  }
  AppendFamily(out, "stormguard_endpoint_attempts_total", "counter", "Attempts that reached the endpoint, by outcome.",
               attempts);
  AppendFamily(out, "stormguard_endpoint_ejected", "gauge", "1 while outlier detection keeps the endpoint out.",
               ejected);
  AppendFamily(out, "stormguard_endpoint_ejections_total", "counter", "Ejections of the endpoint, by reason.",
               ejections);
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
    {"stormguard_timer_slow_callbacks_total", "counter",
     "Timer callbacks that ran past the timer service's bound, holding up its other timers."},
}};

// The families Scrape writes from events, but the histogram (its series
// share a prefix) and the watched ones.
constexpr std::array<std::string_view, 17> kEventFamilies = {
    "stormguard_attempts_total",         "stormguard_retry_calls_total",
    "stormguard_retry_retries_total",    "stormguard_retry_stops_total",
    "stormguard_budget_refusals_total",  "stormguard_circuitbreaker_not_permitted_calls_total",
    "stormguard_rejected_calls_total",   "stormguard_timeouts_total",
    "stormguard_hedges_sent_total",      "stormguard_hedges_won_total",
    "stormguard_fallbacks_total",        "stormguard_abandoned_attempts_total",
    "stormguard_chaos_injections_total", "stormguard_metrics_overflow_total",
    "stormguard_endpoint_ejected",       "stormguard_endpoint_ejections_total",
    "stormguard_endpoint_attempts_total"};

}  // namespace

namespace metrics_internal {

bool IsBuiltInFamily(std::string_view name) noexcept {
  if (name.starts_with("stormguard_attempt_duration_seconds")) return true;
  const auto named = [&](std::string_view own) { return own == name; };
  return std::any_of(kEventFamilies.begin(), kEventFamilies.end(), named) ||
         std::any_of(kWatchedFamilies.begin(), kWatchedFamilies.end(),
                     [&](const WatchedFamily& w) { return named(w.metric); });
}

}  // namespace metrics_internal

std::string MetricsListener::Scrape() const {
  std::vector<Snapshot> snaps(count_.load(std::memory_order_acquire));
  for (std::size_t i = 0; i < snaps.size(); ++i) {
    snaps[i].instance = order_[i].load(std::memory_order_relaxed);
    for (int c = 0; c < kCellCount; ++c) snaps[i].cells[static_cast<std::size_t>(c)] = snaps[i].instance->Read(c);
  }
  std::array<std::string_view, kOutcomeCount> outcomes;
  for (int i = 0; i < kOutcomeCount; ++i) outcomes[static_cast<std::size_t>(i)] = OutcomeClassName(OutcomeClass(i));
  constexpr std::span<const std::string_view> kNone;
  std::array<std::string_view, kRejecterCount> rejecters;  // the breaker's first, "other" last
  for (std::size_t i = 0; i < kRejecters.size(); ++i) rejecters[i] = PolicyName(kRejecters[i]);
  rejecters.back() = "other";
  std::array<std::string_view, kBudgetUsers.size()> budget_users;
  for (std::size_t i = 0; i < kBudgetUsers.size(); ++i) budget_users[i] = PolicyName(kBudgetUsers[i]);

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
  AppendCounter(out, snaps, "stormguard_budget_refusals_total", "Retries and hedges a budget refused.", kBudgetRefusals,
                "policy", budget_users);
  AppendCounter(out, snaps, "stormguard_circuitbreaker_not_permitted_calls_total", "Calls the circuit breaker refused.",
                kRejected, "", kNone);
  AppendCounter(out, snaps, "stormguard_rejected_calls_total", "Calls other guards refused, by policy.", kRejected + 1,
                "policy", std::span<const std::string_view>(rejecters).subspan(1));
  AppendCounter(out, snaps, "stormguard_timeouts_total", "Timeouts that fired.", kTimeouts, "", kNone);
  AppendCounter(out, snaps, "stormguard_hedges_sent_total", "Hedged attempts sent.", kHedgesSent, "", kNone);
  AppendCounter(out, snaps, "stormguard_hedges_won_total", "Calls whose answer came from a hedged attempt.", kHedgesWon,
                "", kNone);
  AppendCounter(out, snaps, "stormguard_fallbacks_total", "Results a fallback produced.", kFallbacks, "", kNone);
  AppendCounter(out, snaps, "stormguard_abandoned_attempts_total", "Attempts left running past their timeout.",
                kAbandoned, "", kNone);
  AppendCounter(out, snaps, "stormguard_chaos_injections_total", "Faults injected on purpose, by kind.",
                kChaosInjections, "kind", kChaosKinds);
  AppendRegistered(out, snaps);
  AppendEndpoints(out, snaps);
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
