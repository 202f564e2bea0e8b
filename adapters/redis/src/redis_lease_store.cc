#include "stormguard/redis/redis_lease_store.h"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "lease_script.h"
#include "stormguard/core/validation.h"

namespace stormguard::redis {
namespace {

constexpr Duration kMaxTimeout = std::chrono::seconds(60);

struct ReplyDeleter {
  void operator()(redisReply* r) const noexcept { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval ToTimeval(Duration d) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  return timeval{.tv_sec = static_cast<time_t>(us / 1'000'000), .tv_usec = static_cast<suseconds_t>(us % 1'000'000)};
}

bool SplitAddress(const std::string& address, std::string* host, int* port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  char* end = nullptr;
  const long p = std::strtol(address.c_str() + colon + 1, &end, 10);
  if (end == address.c_str() + colon + 1 || *end != '\0' || p < 1 || p > 65535) return false;
  *host = address.substr(0, colon);
  *port = static_cast<int>(p);
  return true;
}

// An error reply as a Status: refused credentials and ACL refusals apart.
Status ErrorStatus(std::string_view what, std::string_view error) {
  std::string message = std::string(what) + ": " + std::string(error);
  if (error.starts_with("WRONGPASS") || error.starts_with("NOAUTH")) {
    return Status(StatusCode::kUnauthenticated, std::move(message));
  }
  if (error.starts_with("NOPERM")) return Status(StatusCode::kPermissionDenied, std::move(message));
  return Status::Unavailable(std::move(message));
}

bool IsBadKeyPart(const std::string& s) {
  return s.empty() || s.size() > 128 ||
         std::any_of(s.begin(), s.end(), [](char c) { return c <= ' ' || c == '{' || c == '}' || c == 0x7f; });
}

}  // namespace

struct RedisLeaseStore::Connection {
  explicit Connection(redisContext* c) : ctx(c) {}
  ~Connection() { redisFree(ctx); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // One command; null with the connection's error when it failed on the wire.
  Reply Command(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    return Reply(static_cast<redisReply*>(redisCommandArgv(ctx, static_cast<int>(args.size()), argv.data(),
                                                           lens.data())));
  }

  redisContext* ctx;
};

std::vector<std::string> RedisLeaseStoreOptions::Validate() const {
  Validator v;
  std::string host;
  int port = 0;
  v.Check(SplitAddress(address, &host, &port), "address", "must be host:port with a port in [1, 65535]");
  v.Check(!IsBadKeyPart(prefix), "prefix", "must be 1-128 printable bytes without spaces or braces");
  v.Check(!IsBadKeyPart(limit_name), "limit_name", "must be 1-128 printable bytes without spaces or braces");
  v.Check(std::isfinite(capacity) && capacity > 0 && capacity <= 1e9, "capacity", "must be in (0, 1e9] calls/s");
  v.Check(lease_length >= std::chrono::milliseconds(1) && lease_length <= std::chrono::hours(1), "lease_length",
          "must be in [1ms, 1h]");
  v.Check(connect_timeout > Duration::zero() && connect_timeout <= kMaxTimeout, "connect_timeout",
          "must be in (0, 60s]");
  v.Check(command_timeout > Duration::zero() && command_timeout <= kMaxTimeout, "command_timeout",
          "must be in (0, 60s]");
  v.Check(reconnect_backoff > Duration::zero() && max_reconnect_backoff >= reconnect_backoff, "reconnect_backoff",
          "must be positive and at most max_reconnect_backoff");
  v.Check(user.find_first_of(" \r\n") == std::string::npos, "user", "must not contain spaces or line breaks");
  return std::move(v).errors();
}

Result<std::shared_ptr<RedisLeaseStore>> RedisLeaseStore::Create(RedisLeaseStoreOptions options) {
  if (Status s = ValidationStatus("redis lease store options", options.Validate()); !s.ok()) return s;
  return std::shared_ptr<RedisLeaseStore>(new RedisLeaseStore(std::move(options)));
}

RedisLeaseStore::RedisLeaseStore(RedisLeaseStoreOptions options)
    : o_(std::move(options)),
      clock_(o_.clock != nullptr ? *o_.clock : Clock::Real()),
      key_(o_.prefix + ":{" + o_.limit_name + "}:demand"),
      backoff_(o_.reconnect_backoff) {}

RedisLeaseStore::~RedisLeaseStore() = default;

void RedisLeaseStore::Fail(const Status& why) {
  last_error_ = why;
  conn_.reset();
  retry_at_ = clock_.Now() + backoff_;
  backoff_ = std::min(backoff_ * 2, o_.max_reconnect_backoff);
}

Status RedisLeaseStore::Connect() {
  std::string host;
  int port = 0;
  SplitAddress(o_.address, &host, &port);
  redisContext* ctx = redisConnectWithTimeout(host.c_str(), port, ToTimeval(o_.connect_timeout));
  if (ctx == nullptr) return Status::Unavailable("redis " + o_.address + ": out of memory");
  auto conn = std::make_unique<Connection>(ctx);
  if (ctx->err != 0) return Status::Unavailable("redis " + o_.address + ": " + ctx->errstr);
  redisSetTimeout(ctx, ToTimeval(o_.command_timeout));
  if (!o_.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!o_.user.empty()) auth.push_back(o_.user);
    auth.push_back(o_.password);
    Reply r = conn->Command(auth);
    if (r == nullptr) return Status::Unavailable("redis AUTH: " + std::string(ctx->errstr));
    if (r->type == REDIS_REPLY_ERROR) return ErrorStatus("redis AUTH", std::string_view(r->str, r->len));
  }
  Reply loaded = conn->Command({"SCRIPT", "LOAD", std::string(redis_internal::kLeaseScript)});
  if (loaded == nullptr) return Status::Unavailable("redis SCRIPT LOAD: " + std::string(ctx->errstr));
  if (loaded->type == REDIS_REPLY_ERROR) return ErrorStatus("redis SCRIPT LOAD", {loaded->str, loaded->len});
  if (loaded->type != REDIS_REPLY_STRING) return Status::Unavailable("redis SCRIPT LOAD: unexpected reply");
  sha_.assign(loaded->str, loaded->len);
  conn_ = std::move(conn);
  return Status::Ok();
}

Result<Lease> RedisLeaseStore::Refresh(std::string_view instance_id, double demand, TimePoint now) {
  std::lock_guard lock(mu_);
  if (conn_ == nullptr) {
    if (clock_.Now() < retry_at_) {
      // The failure that started the wait, so refused credentials stay refused.
      return Status(last_error_.code(), last_error_.message() + " (waiting to reconnect)");
    }
    if (Status s = Connect(); !s.ok()) {
      Fail(s);
      return s;
    }
  }
  Result<Lease> lease = RunScript(instance_id, demand, now);
  if (lease.ok()) {
    backoff_ = o_.reconnect_backoff;
  } else {
    Fail(lease.status());  // a fresh connection next time: a timed-out one may still deliver a stale reply
  }
  return lease;
}

Result<Lease> RedisLeaseStore::RunScript(std::string_view instance_id, double demand, TimePoint now) {
  char demand_text[32];
  char capacity_text[32];
  std::snprintf(demand_text, sizeof demand_text, "%.17g", std::isfinite(demand) ? std::max(demand, 0.0) : 0.0);
  std::snprintf(capacity_text, sizeof capacity_text, "%.17g", o_.capacity);
  const auto lease_ms = std::chrono::duration_cast<std::chrono::milliseconds>(o_.lease_length).count();
  std::vector<std::string> args = {
      "EVALSHA", sha_, "1", key_, std::string(instance_id), demand_text, capacity_text, std::to_string(lease_ms)};
  Reply r = conn_->Command(args);
  if (r != nullptr && r->type == REDIS_REPLY_ERROR && std::string_view(r->str, r->len).starts_with("NOSCRIPT")) {
    args[0] = "EVAL";  // Redis restarted or flushed its scripts: send the text (it caches it again)
    args[1] = std::string(redis_internal::kLeaseScript);
    r = conn_->Command(args);
  }
  if (r == nullptr) return Status::Unavailable("redis " + o_.address + ": " + conn_->ctx->errstr);
  if (r->type == REDIS_REPLY_ERROR) return ErrorStatus("redis lease script", {r->str, r->len});
  if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
      r->element[1]->type != REDIS_REPLY_INTEGER) {
    return Status::Internal("redis lease script: unexpected reply");
  }
  const double granted = std::strtod(std::string(r->element[0]->str, r->element[0]->len).c_str(), nullptr);
  const long long instances = r->element[1]->integer;
  return Lease{.rate = granted,
               .expiry = now + o_.lease_length,
               .instances = static_cast<int>(std::clamp<long long>(instances, 1, 1'000'000))};
}

LeaseStoreFactory LeaseStoresIn(RedisLeaseStoreOptions connection) {
  return [connection =
              std::move(connection)](const GlobalRateLimiterOptions& limit) -> Result<std::shared_ptr<LeaseStore>> {
    RedisLeaseStoreOptions o = connection;
    o.limit_name = limit.name;
    o.capacity = limit.limit;
    o.lease_length = limit.lease_length;
    auto made = RedisLeaseStore::Create(std::move(o));
    if (!made.ok()) return std::move(made).status();
    return std::shared_ptr<LeaseStore>(std::move(made).value());
  };
}

}  // namespace stormguard::redis
