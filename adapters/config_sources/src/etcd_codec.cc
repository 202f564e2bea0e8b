#include "etcd_codec.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

#include <nlohmann/json.hpp>

namespace stormguard::config_sources {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::int64_t kMaxRevision = std::numeric_limits<std::int64_t>::max() - 1;

Status Malformed(std::string_view what) {
  return Status::Internal("etcd gateway: malformed answer: " + std::string(what));
}

// An int64 field: a JSON string of digits (the mapping's form) or a number.
// Absent means the proto3 default, 0.
Result<std::int64_t> Int64Field(const Json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) return std::int64_t{0};
  std::int64_t v = -1;
  if (it->is_string()) {
    const std::string& s = it->get_ref<const std::string&>();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) v = -1;
  } else if (it->is_number_unsigned()) {
    v = it->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxRevision) ? -1 : it->get<std::int64_t>();
  }
  if (v < 0 || v > kMaxRevision) return Malformed(std::string(name) + " is not in [0, 2^63 - 2]");
  return v;
}

// A bytes field, base64 in the JSON; absent means empty.
Result<std::string> BytesField(const Json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end()) return std::string();
  if (!it->is_string()) return Malformed(std::string(name) + " is not a string");
  return Base64Decode(it->get_ref<const std::string&>());
}

bool BoolField(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

Result<std::int64_t> HeaderRevision(const Json& reply) {
  const auto it = reply.find("header");
  if (it == reply.end() || !it->is_object()) return std::int64_t{0};
  return Int64Field(*it, "revision");
}

Result<KeyValue> ReadKeyValue(const Json& kv) {
  if (!kv.is_object()) return Malformed("kv is not an object");
  Result<std::string> key = BytesField(kv, "key");
  Result<std::string> value = BytesField(kv, "value");
  Result<std::int64_t> mod = Int64Field(kv, "mod_revision");
  if (!key.ok()) return key.status();
  if (!value.ok()) return value.status();
  if (!mod.ok()) return mod.status();
  return KeyValue{std::move(*key), std::move(*value), *mod};
}

Json Parse(std::string_view text) { return Json::parse(text, nullptr, /*allow_exceptions=*/false); }

StatusCode CodeFromGrpc(const Json& error) {
  for (const char* name : {"code", "grpc_code"}) {
    const auto it = error.find(name);
    if (it != error.end() && it->is_number_integer()) {
      const auto c = it->get<std::int64_t>();
      if (c >= 1 && c <= 16) return static_cast<StatusCode>(c);
    }
  }
  return StatusCode::kUnknown;
}

std::string MessageOf(const Json& error) {
  for (const char* name : {"message", "error"}) {
    const auto it = error.find(name);
    if (it != error.end() && it->is_string()) return it->get<std::string>().substr(0, 512);
  }
  return "no message";
}

// The object in one message of a gateway stream ({"result": {...}}), or
// the error it carries instead ({"error": {...}}).
Result<Json> StreamResult(std::string_view text, const std::string& what) {
  Json message = Parse(text);
  if (!message.is_object()) return Malformed(what + " line is not a JSON object");
  if (const auto error = message.find("error"); error != message.end()) {
    if (!error->is_object()) return Malformed(what + " error is not an object");
    return Status(CodeFromGrpc(*error), "etcd " + what + ": " + MessageOf(*error));
  }
  const auto result = message.find("result");
  if (result == message.end() || !result->is_object()) return Malformed(what + " line has no result");
  return std::move(*result);
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t w = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      w = (w << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0U);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      out += j <= n ? kAlphabet[(w >> (18 - 6 * j)) & 63] : '=';
    }
  }
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    value[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int>(i);
  }
  if (text.size() % 4 != 0) return Malformed("base64 length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    std::uint32_t w = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const int v = j >= 4 - static_cast<std::size_t>(pad) ? 0 : value[static_cast<unsigned char>(text[i + j])];
      if (v < 0) return Malformed("not base64");
      w = (w << 6) | static_cast<std::uint32_t>(v);
    }
    for (int j = 0; j < 3 - pad; ++j) out += static_cast<char>((w >> (16 - 8 * j)) & 0xFF);
  }
  return out;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xFF) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

std::string RangeRequest(std::string_view key, std::string_view range_end, std::int64_t limit) {
  Json request = {{"key", Base64Encode(key)}};
  if (!range_end.empty()) request["range_end"] = Base64Encode(range_end);
  if (limit > 0) request["limit"] = std::to_string(limit);
  return request.dump();
}

std::string WatchRequest(std::string_view key, std::string_view range_end, std::int64_t start_revision) {
  Json create = {
      {"key", Base64Encode(key)}, {"start_revision", std::to_string(start_revision)}, {"progress_notify", true}};
  if (!range_end.empty()) create["range_end"] = Base64Encode(range_end);
  return Json{{"create_request", create}}.dump();
}

std::string AuthenticateRequest(std::string_view user, std::string_view password) {
  return Json{{"name", user}, {"password", password}}.dump();
}

std::string LeaseGrantRequest(std::int64_t ttl_seconds) { return Json{{"TTL", std::to_string(ttl_seconds)}}.dump(); }

std::string LeaseIdRequest(std::int64_t id) { return Json{{"ID", std::to_string(id)}}.dump(); }

std::string PutRequest(std::string_view key, std::string_view value, std::int64_t lease) {
  Json request = {{"key", Base64Encode(key)}, {"value", Base64Encode(value)}};
  if (lease != 0) request["lease"] = std::to_string(lease);
  return request.dump();
}

Result<LeaseGrant> ParseLeaseGrantReply(std::string_view body) {
  const Json reply = Parse(body);
  if (!reply.is_object()) return Malformed("lease grant answer is not a JSON object");
  Result<std::int64_t> id = Int64Field(reply, "ID");
  Result<std::int64_t> ttl = Int64Field(reply, "TTL");
  if (!id.ok()) return id.status();
  if (!ttl.ok()) return ttl.status();
  if (*id == 0 || *ttl == 0) return Malformed("lease grant answer has no ID or TTL");
  return LeaseGrant{*id, *ttl};
}

Result<std::int64_t> ParseKeepAliveReply(std::string_view body) {
  Result<Json> result = StreamResult(body.substr(0, body.find('\n')), "lease keepalive");
  if (!result.ok()) return result.status();
  return Int64Field(*result, "TTL");
}

Result<RangeReply> ParseRangeReply(std::string_view body) {
  const Json reply = Parse(body);
  if (!reply.is_object()) return Malformed("range answer is not a JSON object");
  RangeReply out;
  Result<std::int64_t> revision = HeaderRevision(reply);
  if (!revision.ok()) return revision.status();
  if (*revision == 0) return Malformed("range answer has no header.revision");
  out.revision = *revision;
  out.more = BoolField(reply, "more");
  if (const auto kvs = reply.find("kvs"); kvs != reply.end()) {
    if (!kvs->is_array()) return Malformed("kvs is not an array");
    for (const Json& kv : *kvs) {
      Result<KeyValue> read = ReadKeyValue(kv);
      if (!read.ok()) return read.status();
      out.kvs.push_back(std::move(*read));
    }
  }
  return out;
}

Result<std::string> ParseAuthenticateReply(std::string_view body) {
  const Json reply = Parse(body);
  const auto token = reply.is_object() ? reply.find("token") : reply.end();
  if (!reply.is_object() || token == reply.end() || !token->is_string()) {
    return Malformed("authenticate answer has no token");
  }
  const std::string& text = token->get_ref<const std::string&>();
  const bool printable = std::all_of(text.begin(), text.end(), [](unsigned char c) { return c > ' ' && c < 0x7F; });
  if (text.empty() || text.size() > 4096 || !printable) return Malformed("the token is not 1 to 4096 printable bytes");
  return text;
}

Result<WatchReply> ParseWatchLine(std::string_view line) {
  Result<Json> result = StreamResult(line, "watch");
  if (!result.ok()) return result.status();
  WatchReply out;
  Result<std::int64_t> revision = HeaderRevision(*result);
  Result<std::int64_t> compact = Int64Field(*result, "compact_revision");
  if (!revision.ok()) return revision.status();
  if (!compact.ok()) return compact.status();
  out.revision = *revision;
  out.compact_revision = *compact;
  out.created = BoolField(*result, "created");
  out.canceled = BoolField(*result, "canceled");
  if (const auto reason = result->find("cancel_reason"); reason != result->end() && reason->is_string()) {
    out.cancel_reason = reason->get<std::string>().substr(0, 512);
  }
  if (const auto events = result->find("events"); events != result->end()) {
    if (!events->is_array()) return Malformed("events is not an array");
    for (const Json& event : *events) {
      if (!event.is_object()) return Malformed("event is not an object");
      const auto type = event.find("type");
      const bool deleted = type != event.end() && *type == "DELETE";
      if (!deleted && type != event.end() && *type != "PUT") return Malformed("unknown event type");
      const auto kv = event.find("kv");
      if (kv == event.end()) return Malformed("event has no kv");
      Result<KeyValue> read = ReadKeyValue(*kv);
      if (!read.ok()) return read.status();
      out.events.push_back({deleted, std::move(*read)});
    }
  }
  return out;
}

Status ParseErrorReply(long http_status, std::string_view body) {
  const Json error = Parse(body);
  const std::string where = "etcd answered HTTP " + std::to_string(http_status);
  if (error.is_object()) return Status(CodeFromGrpc(error), where + ": " + MessageOf(error));
  // Some refusals are plain text (etcd's gateway refuses a client
  // certificate with a CommonName while auth is on so): kept when it is
  // one short printable line, not a proxy's HTML page.
  std::string_view text = body.substr(0, body.find_last_not_of("\r\n") + 1);
  const bool line = !text.empty() && text.size() <= 200 && text.front() != '<' &&
                    std::all_of(text.begin(), text.end(), [](unsigned char c) { return c >= ' ' && c < 0x7F; });
  return Status::Unavailable(line ? where + ": " + std::string(text) : where);
}

}  // namespace stormguard::config_sources
