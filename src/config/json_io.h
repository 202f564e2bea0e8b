// src/config/json_io.h: reading and writing option structs as JSON objects.
//
// Each options struct lists its fields once, in a Fields(visitor, options)
// function (json_fields.h); the reader and the writer are two visitors, so
// a field read is a field written and a document round-trips by
// construction. The reader never throws: a wrong type, an unknown key or a
// bad value becomes an error "path: reason" and reading goes on, so one
// pass reports every problem.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/backoff/backoff.h"
#include "stormguard/chaos/chaos_policy.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/status.h"
#include "stormguard/core/time.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/guard/sliding_window.h"

namespace stormguard::config::config_internal {

using Json = nlohmann::json;
using Errors = std::vector<std::string>;

// "a.b", or a["GET /stock"] when the key is not a plain name.
std::string ChildPath(std::string_view path, std::string_view key);
std::string IndexPath(std::string_view path, std::size_t index);
void Nest(Errors& errors, std::string_view path, const Errors& nested);
// The one key of a {"kind": {...}} object, or null after reporting.
const Json::object_t::value_type* OneKey(const Json& j, const std::string& path, std::string_view what, Errors& errors);
// A status code by gRPC name in any case, or by number 0-16 (gRPC A6).
std::optional<StatusCode> StatusCodeOf(const Json& j);

// Retryable and non-fatal codes name failures: OK in such a list is refused.
inline constexpr std::string_view kOkIsNoFailure =
    "must be a failure code, not OK (a success is never retried or hedged)";

// Largest array the reader takes for a list field (stages, status codes, names).
inline constexpr std::size_t kMaxListItems = 64;

void Read(const Json& j, const std::string& path, Errors& errors, int& out);
void Read(const Json& j, const std::string& path, Errors& errors, std::int64_t& out);
void Read(const Json& j, const std::string& path, Errors& errors, std::uint64_t& out);
void Read(const Json& j, const std::string& path, Errors& errors, double& out);
void Read(const Json& j, const std::string& path, Errors& errors, bool& out);
void Read(const Json& j, const std::string& path, Errors& errors, Duration& out);
void Read(const Json& j, const std::string& path, Errors& errors, std::string& out);
void Read(const Json& j, const std::string& path, Errors& errors, std::vector<std::string>& out);
void Read(const Json& j, const std::string& path, Errors& errors, OutcomeSet& out);
void Read(const Json& j, const std::string& path, Errors& errors, std::vector<StatusCode>& out);
void Read(const Json& j, const std::string& path, Errors& errors, BackoffKind& out);
void Read(const Json& j, const std::string& path, Errors& errors, Jitter& out);
void Read(const Json& j, const std::string& path, Errors& errors, WindowKind& out);
void Read(const Json& j, const std::string& path, Errors& errors, LimitKind& out);
void Read(const Json& j, const std::string& path, Errors& errors, ChaosKind& out);
void Read(const Json& j, const std::string& path, Errors& errors, LeaseFallback& out);
// {"code": a status code, "message": text}; an absent field keeps out's.
void Read(const Json& j, const std::string& path, Errors& errors, Status& out);

Json Write(int v);
Json Write(std::int64_t v);
Json Write(std::uint64_t v);
Json Write(double v);
Json Write(bool v);
Json Write(Duration v);
Json Write(const std::string& v);
Json Write(const std::vector<std::string>& v);
Json Write(OutcomeSet v);
Json Write(const std::vector<StatusCode>& v);
Json Write(BackoffKind v);
Json Write(Jitter v);
Json Write(WindowKind v);
Json Write(LimitKind v);
Json Write(ChaosKind v);
Json Write(LeaseFallback v);
Json Write(const Status& v);

class ObjectReader;
// Structs with a Fields() list (json_fields.h) read and write as objects.
template <class T>
concept HasFields = requires(ObjectReader& r, T& o) {
  Fields(r, o);
};
template <HasFields T>
void Read(const Json& j, const std::string& path, Errors& errors, T& out);
template <HasFields T>
Json Write(const T& v);

// "must be an object" unless it is one; then hands out its fields by name
// and, at Finish(), reports every key nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const Json& j, std::string path, Errors& errors);

  bool ok() const noexcept { return object_ != nullptr; }
  const std::string& path() const noexcept { return path_; }
  Errors& errors() noexcept { return errors_; }
  // The value under `name` (marked as known), or null when absent.
  const Json* Take(std::string_view name);
  template <class T>
  void Field(std::string_view name, T& out) {
    if (const Json* v = Take(name)) Read(*v, ChildPath(path_, name), errors_, out);
  }
  template <class T>
  void Field(std::string_view name, std::optional<T>& out) {
    if (const Json* v = Take(name)) Read(*v, ChildPath(path_, name), errors_, out.emplace());
  }
  void Finish();

 private:
  const Json* object_;
  std::string path_;
  Errors& errors_;
  std::set<std::string, std::less<>> known_;
};

class ObjectWriter {
 public:
  template <class T>
  void Field(std::string_view name, const T& v) {
    out_[std::string(name)] = Write(v);
  }
  template <class T>
  void Field(std::string_view name, const std::optional<T>& v) {
    if (v) Field(name, *v);
  }
  Json Take() && { return std::move(out_); }

 private:
  Json out_ = Json::object();
};

// Called after a struct is read: components check their values with their
// own Validate() (json_fields.h), nested structs are checked by their owner.
template <class T>
void AfterRead(ObjectReader& /*reader*/, T& /*value*/) {}

template <HasFields T>
void Read(const Json& j, const std::string& path, Errors& errors, T& out) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  Fields(r, out);
  r.Finish();
  AfterRead(r, out);
}

template <HasFields T>
Json Write(const T& v) {
  ObjectWriter w;
  T copy = v;  // Fields() takes a mutable struct, for the reader's sake
  Fields(w, copy);
  return std::move(w).Take();
}

}  // namespace stormguard::config::config_internal
