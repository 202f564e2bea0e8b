#include "grpc_service_config_reader.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "stormguard/config/config_json.h"
#include "stormguard/config/duration_text.h"
#include "stormguard/config/grpc_service_config.h"
#include "stormguard/config/status_codes.h"

namespace stormguard::config::config_internal {
namespace {

// Fields of gRPC's schema that are transport matters, outside a resilience
// policy: accepted so a real service config reads, and not mapped.
constexpr std::string_view kIgnoredTopLevel[] = {"loadBalancingPolicy", "loadBalancingConfig", "healthCheckConfig"};
constexpr std::string_view kIgnoredPerMethod[] = {"waitForReady", "maxRequestMessageBytes", "maxResponseMessageBytes"};

void Fail(Errors& errors, const std::string& path, std::string_view reason) {
  errors.push_back(path + ": " + std::string(reason));
}

// Takes the ignored fields so Finish() does not call them unknown.
template <std::size_t N>
void SkipIgnored(ObjectReader& r, const std::string_view (&names)[N]) {
  for (std::string_view n : names) r.Take(n);
}

// A required field, or null after "field not present" (C-core's words).
const Json* Required(ObjectReader& r, std::string_view name) {
  const Json* v = r.Take(name);
  if (v == nullptr) Fail(r.errors(), ChildPath(r.path(), name), "field not present");
  return v;
}

std::optional<Duration> ReadProtoDuration(const Json* j, const std::string& path, Errors& errors) {
  if (j == nullptr) return std::nullopt;
  if (!j->is_string()) {
    Fail(errors, path, "is not a string");
    return std::nullopt;
  }
  Result<Duration> d = ParseProtoDuration(j->get_ref<const std::string&>());
  if (!d.ok()) {
    Fail(errors, path, d.status().message());
    return std::nullopt;
  }
  return *d;
}

// A positive proto Duration.
std::optional<Duration> ReadPositiveDuration(const Json* j, const std::string& path, Errors& errors) {
  std::optional<Duration> d = ReadProtoDuration(j, path, errors);
  if (d && *d <= Duration::zero()) {
    Fail(errors, path, "must be greater than 0");
    return std::nullopt;
  }
  return d;
}

std::optional<double> ReadNumber(const Json* j, const std::string& path, Errors& errors) {
  if (j == nullptr) return std::nullopt;
  if (!j->is_number()) {
    Fail(errors, path, "is not a number");
    return std::nullopt;
  }
  return j->get<double>();
}

// maxAttempts: a proto3 uint32 (an integral number, 3 or 3.0), at least 2;
// above kGrpcMaxAttempts it counts as that many (A6).
std::optional<int> ReadMaxAttempts(const Json* j, const std::string& path, Errors& errors) {
  constexpr double kMaxUint32 = 4294967295.0;
  if (j == nullptr) return std::nullopt;
  if (!j->is_number()) {
    Fail(errors, path, "is not a number");
    return std::nullopt;
  }
  const double v = j->get<double>();
  if (v != std::floor(v)) {
    Fail(errors, path, "must be a whole number");
  } else if (v > kMaxUint32) {
    Fail(errors, path, "must be at most 4294967295");
  } else if (v < 2) {
    Fail(errors, path, "must be at least 2");
  } else {
    return static_cast<int>(std::min<double>(v, kGrpcMaxAttempts));
  }
  return std::nullopt;
}

// Status codes by name (any case) or number (A6).
std::vector<StatusCode> ReadCodes(const Json& j, const std::string& path, bool required, Errors& errors) {
  std::vector<StatusCode> codes;
  if (!j.is_array()) {
    Fail(errors, path, "is not an array");
    return codes;
  }
  if (j.size() > kMaxListItems) {
    Fail(errors, path, "must have at most " + std::to_string(kMaxListItems) + " items");
    return codes;
  }
  if (required && j.empty()) Fail(errors, path, "must be non-empty");
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::optional<StatusCode> code = StatusCodeOf(j[i]);
    if (!code) {
      Fail(errors, IndexPath(path, i), "failed to parse status code");
      continue;
    }
    if (*code == StatusCode::kOk) {
      Fail(errors, IndexPath(path, i), kOkIsNoFailure);
      continue;
    }
    if (std::find(codes.begin(), codes.end(), *code) == codes.end()) codes.push_back(*code);
  }
  return codes;
}

std::optional<RetryConfig> ReadRetryPolicy(const Json& j, const std::string& path, Errors& errors) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return std::nullopt;
  const std::size_t before = errors.size();
  const auto attempts = ReadMaxAttempts(Required(r, "maxAttempts"), ChildPath(path, "maxAttempts"), errors);
  const auto initial = ReadPositiveDuration(Required(r, "initialBackoff"), ChildPath(path, "initialBackoff"), errors);
  const auto max = ReadPositiveDuration(Required(r, "maxBackoff"), ChildPath(path, "maxBackoff"), errors);
  const std::string multiplier_path = ChildPath(path, "backoffMultiplier");
  auto multiplier = ReadNumber(Required(r, "backoffMultiplier"), multiplier_path, errors);
  if (multiplier && *multiplier <= 0) {
    Fail(errors, multiplier_path, "must be greater than 0");
  } else if (multiplier && *multiplier < 1) {
    Fail(errors, multiplier_path, "below 1 is not supported (a stormguard backoff never shrinks)");
  }
  std::vector<StatusCode> codes;
  if (const Json* c = Required(r, "retryableStatusCodes")) {
    codes = ReadCodes(*c, ChildPath(path, "retryableStatusCodes"), /*required=*/true, errors);
  }
  const auto per_attempt =
      ReadPositiveDuration(r.Take("perAttemptRecvTimeout"), ChildPath(path, "perAttemptRecvTimeout"), errors);
  r.Finish();
  if (errors.size() != before) return std::nullopt;
  RetryConfig c;
  c.options.max_attempts = *attempts;
  // A6: the n-th retry waits random(0.8, 1.2) * min(initial * multiplier^(n-1), max).
  c.options.backoff = {.kind = BackoffKind::kExponential,
                       .base = std::min(*initial, *max),
                       .multiplier = *multiplier,
                       .cap = *max,
                       .jitter = Jitter::kProportional,
                       .proportion = kGrpcBackoffJitter};
  if (per_attempt) c.options.per_attempt_timeout = *per_attempt;
  c.options.idempotent = true;  // the config's owner declared the method safe to retry
  c.retryable_status_codes = std::move(codes);
  return c;
}

std::optional<HedgeConfig> ReadHedgingPolicy(const Json& j, const std::string& path, Errors& errors) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return std::nullopt;
  const std::size_t before = errors.size();
  const auto attempts = ReadMaxAttempts(Required(r, "maxAttempts"), ChildPath(path, "maxAttempts"), errors);
  const auto delay = ReadProtoDuration(r.Take("hedgingDelay"), ChildPath(path, "hedgingDelay"), errors);
  if (delay && *delay < Duration::zero()) {
    Fail(errors, ChildPath(path, "hedgingDelay"), "must not be negative");
  }
  std::vector<StatusCode> codes;
  if (const Json* c = r.Take("nonFatalStatusCodes")) {
    codes = ReadCodes(*c, ChildPath(path, "nonFatalStatusCodes"), /*required=*/false, errors);
  }
  r.Finish();
  if (errors.size() != before) return std::nullopt;
  HedgeConfig c;
  c.options.max_hedged_attempts = *attempts - 1;
  c.options.delay = delay.value_or(Duration::zero());
  c.options.idempotent = true;
  c.non_fatal_status_codes = std::move(codes);
  if (c.non_fatal_status_codes.empty()) c.options.non_fatal = {};  // every failure is fatal
  return c;
}

// name[k] -> "service/method", "service/*" or "*".
std::optional<std::string> ReadName(const Json& j, const std::string& path, Errors& errors) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return std::nullopt;
  std::string service;
  std::string method;
  r.Field("service", service);
  r.Field("method", method);
  r.Finish();
  if (service.empty() && !method.empty()) {
    Fail(errors, ChildPath(path, "method"), "method name populated without service name");
    return std::nullopt;
  }
  if (service.empty()) return std::string("*");
  return service + "/" + (method.empty() ? std::string("*") : method);
}

void ReadMethodConfig(const Json& j, const std::string& path, DestinationConfig& d, Errors& errors) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  SkipIgnored(r, kIgnoredPerMethod);
  MethodConfig m;
  m.timeout = ReadPositiveDuration(r.Take("timeout"), ChildPath(path, "timeout"), errors);
  const Json* retry = r.Take("retryPolicy");
  const Json* hedge = r.Take("hedgingPolicy");
  if (retry != nullptr && hedge != nullptr) {
    Fail(errors, path, "only one of retryPolicy and hedgingPolicy may be set");
  }
  if (retry != nullptr) m.retry = ReadRetryPolicy(*retry, ChildPath(path, "retryPolicy"), errors);
  if (hedge != nullptr) m.hedge = ReadHedgingPolicy(*hedge, ChildPath(path, "hedgingPolicy"), errors);
  std::vector<std::string> names;
  if (const Json* n = r.Take("name")) {
    const std::string names_path = ChildPath(path, "name");
    if (!n->is_array() || n->size() > kMaxMethods) {
      Fail(errors, names_path, "is not an array of at most " + std::to_string(kMaxMethods) + " names");
    } else {
      for (std::size_t k = 0; k < n->size(); ++k) {
        const std::string p = IndexPath(names_path, k);
        std::optional<std::string> key = ReadName((*n)[k], p, errors);
        if (!key) continue;
        if (d.methods.contains(*key)) {
          Fail(errors, p, "multiple method configs with same name");
          continue;
        }
        d.methods.emplace(*key, m);
      }
    }
  }
  r.Finish();
}

// retryThrottling -> the exact gRPC throttle budget, or nullopt after reporting.
std::optional<BudgetOptions> ReadRetryThrottling(const Json& j, Errors& errors) {
  ObjectReader r(j, "retryThrottling", errors);
  if (!r.ok()) return std::nullopt;
  const std::size_t before = errors.size();
  const auto max_tokens = ReadNumber(Required(r, "maxTokens"), "retryThrottling.maxTokens", errors);
  const auto ratio = ReadNumber(Required(r, "tokenRatio"), "retryThrottling.tokenRatio", errors);
  if (max_tokens && *max_tokens <= 0) Fail(errors, "retryThrottling.maxTokens", "must be greater than 0");
  if (max_tokens && *max_tokens > kGrpcMaxTokens) {
    Fail(errors, "retryThrottling.maxTokens", "must be at most 1000");
  }
  if (ratio && *ratio <= 0) Fail(errors, "retryThrottling.tokenRatio", "must be greater than 0");
  r.Finish();
  if (errors.size() != before) return std::nullopt;
  const GrpcThrottleBudgetOptions budget{.max_tokens = *max_tokens, .token_ratio = *ratio};
  // What is left (a ratio under 0.001 keeps no decimal), under gRPC's names.
  for (const std::string& e : budget.Validate()) {
    const std::string field = e.substr(0, e.find(':'));
    const std::string_view grpc_name = field == "max_tokens" ? "maxTokens" : "tokenRatio";
    errors.push_back("retryThrottling." + std::string(grpc_name) + e.substr(field.size()));
  }
  return budget;
}

}  // namespace

bool IsGrpcServiceConfig(const Json& doc) {
  return doc.is_object() && (doc.contains("methodConfig") || doc.contains("retryThrottling"));
}

Config ReadGrpcServiceConfig(const Json& doc, std::string_view destination, Errors& errors) {
  Config config;
  DestinationConfig& d = config.destinations[std::string(destination)];
  ObjectReader r(doc, "", errors);
  SkipIgnored(r, kIgnoredTopLevel);
  if (const Json* methods = r.Take("methodConfig")) {
    if (!methods->is_array() || methods->size() > kMaxMethods) {
      Fail(errors, "methodConfig", "is not an array of at most " + std::to_string(kMaxMethods) + " method configs");
    } else {
      for (std::size_t i = 0; i < methods->size(); ++i) {
        ReadMethodConfig((*methods)[i], IndexPath("methodConfig", i), d, errors);
      }
    }
  }
  if (const Json* t = r.Take("retryThrottling")) d.retry_budget = ReadRetryThrottling(*t, errors);
  r.Finish();
  return config;
}

}  // namespace stormguard::config::config_internal
