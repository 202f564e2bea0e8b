#include "json_io.h"

#include <algorithm>
#include <limits>

#include "stormguard/config/duration_text.h"
#include "stormguard/config/status_codes.h"

namespace stormguard::config::config_internal {
namespace {

constexpr std::size_t kMaxStringLength = 256;

bool PlainName(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// A value as a message shows it: its JSON, cut short.
std::string Shown(const Json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

void Fail(Errors& errors, const std::string& path, std::string_view reason) {
  errors.push_back(path + ": " + std::string(reason));
}

// Every name of an enum, in order, for reading and for the message.
template <class E, std::size_t N>
void ReadName(const Json& j, const std::string& path, Errors& errors, E& out, const E (&values)[N],
              std::string_view (*name)(E)) {
  std::string all;
  for (E v : values) all += (all.empty() ? "" : ", ") + std::string(name(v));
  if (j.is_string()) {
    const auto& text = j.get_ref<const std::string&>();
    for (E v : values) {
      if (name(v) == text) {
        out = v;
        return;
      }
    }
  }
  Fail(errors, path, "must be one of " + all + ", got " + Shown(j));
}

std::string_view BackoffName(BackoffKind k) { return BackoffKindName(k); }
std::string_view JitterText(Jitter k) { return JitterName(k); }
std::string_view WindowName(WindowKind k) { return WindowKindName(k); }
std::string_view LimitName(LimitKind k) { return k == LimitKind::kAimd ? "aimd" : "gradient"; }
std::string_view OutcomeName(OutcomeClass c) { return OutcomeClassName(c); }
std::string_view ChaosName(ChaosKind k) { return ChaosKindName(k); }
std::string_view FallbackName(LeaseFallback f) { return LeaseFallbackName(f); }

constexpr BackoffKind kBackoffKinds[] = {BackoffKind::kConstant, BackoffKind::kLinear, BackoffKind::kExponential};
constexpr Jitter kJitters[] = {Jitter::kNone,         Jitter::kFull,         Jitter::kEqual,
                               Jitter::kDecorrelated, Jitter::kProportional, Jitter::kUniform};
constexpr WindowKind kWindowKinds[] = {WindowKind::kCountBased, WindowKind::kTimeBased};
constexpr LimitKind kLimitKinds[] = {LimitKind::kAimd, LimitKind::kGradient};
constexpr ChaosKind kChaosKinds[] = {ChaosKind::kError, ChaosKind::kLatency, ChaosKind::kOutcome};
constexpr LeaseFallback kFallbacks[] = {LeaseFallback::kStaticShare, LeaseFallback::kDeny};
constexpr OutcomeClass kOutcomes[] = {
    OutcomeClass::kSuccess,   OutcomeClass::kTransient,  OutcomeClass::kOverloaded, OutcomeClass::kPermanent,
    OutcomeClass::kAmbiguous, OutcomeClass::kDoNotRetry, OutcomeClass::kCancelled,  OutcomeClass::kDeadlineExceeded};

// The array's items, or null after reporting why there are none.
const Json* List(const Json& j, const std::string& path, Errors& errors) {
  if (!j.is_array()) {
    Fail(errors, path, "must be an array");
    return nullptr;
  }
  if (j.size() > kMaxListItems) {
    Fail(errors, path, "must have at most " + std::to_string(kMaxListItems) + " items");
    return nullptr;
  }
  return &j;
}

}  // namespace

const Json::object_t::value_type* OneKey(const Json& j, const std::string& path, std::string_view what,
                                         Errors& errors) {
  if (!j.is_object() || j.size() != 1) {
    errors.push_back(path + ": must be an object with exactly one key, " + std::string(what));
    return nullptr;
  }
  return &*j.get_ref<const Json::object_t&>().begin();
}

std::string ChildPath(std::string_view path, std::string_view key) {
  std::string out(path);
  if (PlainName(key)) return out + (out.empty() ? "" : ".") + std::string(key);
  // replace: a key cut short for a message may end inside a UTF-8 sequence
  return out + "[" + Json(std::string(key)).dump(-1, ' ', false, Json::error_handler_t::replace) + "]";
}

std::string IndexPath(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::optional<StatusCode> StatusCodeOf(const Json& j) {
  if (j.is_string()) return StatusCodeFromName(j.get_ref<const std::string&>());
  if (!j.is_number_unsigned()) return std::nullopt;  // a negative integer is signed: never a code
  const std::uint64_t n = std::min<std::uint64_t>(j.get<std::uint64_t>(), kStatusCodeCount);
  return StatusCodeFromNumber(static_cast<std::int64_t>(n));
}

void Nest(Errors& errors, std::string_view path, const Errors& nested) {
  for (const auto& e : nested) errors.push_back(std::string(path) + "." + e);
}

void Read(const Json& j, const std::string& path, Errors& errors, std::int64_t& out) {
  if (!j.is_number_integer()) return Fail(errors, path, "must be an integer, got " + Shown(j));
  if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) {
    return Fail(errors, path, "must be at most " + std::to_string(std::numeric_limits<std::int64_t>::max()));
  }
  out = j.get<std::int64_t>();
}

void Read(const Json& j, const std::string& path, Errors& errors, std::uint64_t& out) {
  if (!j.is_number_unsigned()) return Fail(errors, path, "must be an integer in [0, 2^64 - 1], got " + Shown(j));
  out = j.get<std::uint64_t>();
}

void Read(const Json& j, const std::string& path, Errors& errors, int& out) {
  std::int64_t v = out;
  const std::size_t before = errors.size();
  Read(j, path, errors, v);
  if (errors.size() != before) return;
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    return Fail(errors, path, "must be an integer in [-2147483648, 2147483647], got " + Shown(j));
  }
  out = static_cast<int>(v);
}

void Read(const Json& j, const std::string& path, Errors& errors, double& out) {
  if (!j.is_number()) return Fail(errors, path, "must be a number, got " + Shown(j));
  out = j.get<double>();  // finite: the parser refuses 1e400, and JSON has no NaN
}

void Read(const Json& j, const std::string& path, Errors& errors, bool& out) {
  if (!j.is_boolean()) return Fail(errors, path, "must be true or false, got " + Shown(j));
  out = j.get<bool>();
}

void Read(const Json& j, const std::string& path, Errors& errors, Duration& out) {
  if (!j.is_string()) {
    return Fail(errors, path, "must be a duration string such as \"250ms\" or \"1.5s\", got " + Shown(j));
  }
  Result<Duration> d = ParseDurationText(j.get_ref<const std::string&>());
  if (!d.ok()) return Fail(errors, path, d.status().message());
  out = *d;
}

void Read(const Json& j, const std::string& path, Errors& errors, std::string& out) {
  if (!j.is_string()) return Fail(errors, path, "must be a string, got " + Shown(j));
  const auto& s = j.get_ref<const std::string&>();
  if (s.size() > kMaxStringLength) return Fail(errors, path, "must be at most 256 characters");
  out = s;
}

void Read(const Json& j, const std::string& path, Errors& errors, std::vector<std::string>& out) {
  const Json* list = List(j, path, errors);
  if (list == nullptr) return;
  out.clear();
  for (std::size_t i = 0; i < list->size(); ++i) {
    Read((*list)[i], IndexPath(path, i), errors, out.emplace_back());
  }
}

void Read(const Json& j, const std::string& path, Errors& errors, OutcomeSet& out) {
  const Json* list = List(j, path, errors);
  if (list == nullptr) return;
  OutcomeSet set;
  for (std::size_t i = 0; i < list->size(); ++i) {
    OutcomeClass c = OutcomeClass::kSuccess;
    const std::size_t before = errors.size();
    ReadName((*list)[i], IndexPath(path, i), errors, c, kOutcomes, &OutcomeName);
    if (errors.size() == before) set = set.With(c);
  }
  out = set;
}

void Read(const Json& j, const std::string& path, Errors& errors, std::vector<StatusCode>& out) {
  const Json* list = List(j, path, errors);
  if (list == nullptr) return;
  out.clear();
  for (std::size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    const std::optional<StatusCode> code = StatusCodeOf(item);
    if (!code) {
      Fail(errors, IndexPath(path, i),
           "must be a status code name (\"UNAVAILABLE\") or number (0-16), got " + Shown(item));
      continue;
    }
    if (*code == StatusCode::kOk) {
      Fail(errors, IndexPath(path, i), kOkIsNoFailure);
      continue;
    }
    out.push_back(*code);
  }
}

void Read(const Json& j, const std::string& path, Errors& errors, BackoffKind& out) {
  ReadName(j, path, errors, out, kBackoffKinds, &BackoffName);
}
void Read(const Json& j, const std::string& path, Errors& errors, Jitter& out) {
  ReadName(j, path, errors, out, kJitters, &JitterText);
}
void Read(const Json& j, const std::string& path, Errors& errors, WindowKind& out) {
  ReadName(j, path, errors, out, kWindowKinds, &WindowName);
}
void Read(const Json& j, const std::string& path, Errors& errors, LimitKind& out) {
  ReadName(j, path, errors, out, kLimitKinds, &LimitName);
}
void Read(const Json& j, const std::string& path, Errors& errors, ChaosKind& out) {
  ReadName(j, path, errors, out, kChaosKinds, &ChaosName);
}
void Read(const Json& j, const std::string& path, Errors& errors, LeaseFallback& out) {
  ReadName(j, path, errors, out, kFallbacks, &FallbackName);
}

void Read(const Json& j, const std::string& path, Errors& errors, Status& out) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  StatusCode code = out.code();
  std::string message = out.message();
  if (const Json* c = r.Take("code")) {
    if (const std::optional<StatusCode> read = StatusCodeOf(*c)) {
      code = *read;
    } else {
      Fail(errors, ChildPath(path, "code"),
           "must be a status code name (\"UNAVAILABLE\") or number (0-16), got " + Shown(*c));
    }
  }
  r.Field("message", message);
  r.Finish();
  out = Status(code, std::move(message));
}

Json Write(int v) { return v; }
Json Write(std::int64_t v) { return v; }
Json Write(std::uint64_t v) { return v; }
Json Write(double v) { return v; }
Json Write(bool v) { return v; }
Json Write(Duration v) { return FormatDurationText(v); }
Json Write(const std::string& v) { return v; }
Json Write(const std::vector<std::string>& v) { return v; }
Json Write(OutcomeSet v) {
  Json out = Json::array();
  for (OutcomeClass c : kOutcomes) {
    if (v.contains(c)) out.push_back(std::string(OutcomeClassName(c)));
  }
  return out;
}
Json Write(const std::vector<StatusCode>& v) {
  Json out = Json::array();
  for (StatusCode c : v) out.push_back(std::string(StatusCodeName(c)));
  return out;
}
Json Write(BackoffKind v) { return std::string(BackoffKindName(v)); }
Json Write(Jitter v) { return std::string(JitterName(v)); }
Json Write(WindowKind v) { return std::string(WindowKindName(v)); }
Json Write(LimitKind v) { return std::string(LimitName(v)); }
Json Write(ChaosKind v) { return std::string(ChaosKindName(v)); }
Json Write(LeaseFallback v) { return std::string(LeaseFallbackName(v)); }
Json Write(const Status& v) { return {{"code", std::string(StatusCodeName(v.code()))}, {"message", v.message()}}; }

ObjectReader::ObjectReader(const Json& j, std::string path, Errors& errors)
    : object_(j.is_object() ? &j : nullptr), path_(std::move(path)), errors_(errors) {
  if (object_ == nullptr) Fail(errors_, path_, "must be an object, got " + Shown(j));
}

const Json* ObjectReader::Take(std::string_view name) {
  if (object_ == nullptr) return nullptr;
  auto it = object_->find(name);
  if (it == object_->end()) return nullptr;
  known_.emplace(name);
  return &*it;
}

void ObjectReader::Finish() {
  if (object_ == nullptr) return;
  for (const auto& [key, value] : object_->items()) {
    if (!known_.contains(key)) Fail(errors_, ChildPath(path_, key.substr(0, 64)), "unknown field");
  }
}

}  // namespace stormguard::config::config_internal
