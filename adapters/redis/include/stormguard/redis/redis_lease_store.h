// stormguard/redis/redis_lease_store.h: a fleet-wide limit's shares, kept in Redis.
//
// The LeaseStore behind GlobalRateLimiter (stormguard/fleet) for a fleet
// with no coordinator process: every refresh runs one Lua script in Redis
// (EVALSHA, EVAL when Redis lost it), which records this instance's demand
// and computes its share atomically (the rule: fleet/lease_store.h).
//
//   auto store = RedisLeaseStore::Create({.address = "10.0.0.5:6379", .user = "fleet",
//                                         .password = secret, .limit_name = "search",
//                                         .capacity = 1000, .lease_length = 10s}).value();
//   auto limiter = GlobalRateLimiter::Create({.name = "search", ...}, store).value();
//
// Keys: "<prefix>:{<limit_name>}:demand", a hash of instance -> "demand
// granted expiry". The braces are a Redis Cluster hash tag: one limit's key
// lives in one slot, and different limits spread over the cluster.
//
// Bounds: connecting and every command wait at most connect_timeout and
// command_timeout. After a failure the store does not touch the network
// until a backoff (doubling from reconnect_backoff to max_reconnect_backoff)
// has passed; Refresh answers the failure's error at once meanwhile, so a
// dead or slow Redis costs the refresher one timeout per backoff, never
// more. A host name is resolved at each connection, outside those bounds:
// give an address where a slow resolver matters.
//
// Security: ACL user and password (AUTH user password, Redis 6+); an empty
// user sends AUTH password (the "default" user). Refused credentials are
// UNAUTHENTICATED, a command the ACL forbids PERMISSION_DENIED. No TLS:
// Debian 12's hiredis (0.14) has none (it came with hiredis 1.0), so keep
// Redis on a trusted network or behind a TLS tunnel.
//
// Thread safety: Refresh is serialised by a lock (one connection).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/fleet/lease_store.h"

namespace stormguard::redis {

struct RedisLeaseStoreOptions {
  std::string address = "127.0.0.1:6379";  // host:port
  std::string user;                        // ACL user; empty: no user name
  std::string password;                    // empty: no AUTH
  std::string prefix = "stormguard";       // keys: <prefix>:{<limit_name>}:demand
  std::string limit_name;                  // GlobalRateLimiterOptions::name
  double capacity = 0;                     // GlobalRateLimiterOptions::limit
  Duration lease_length = std::chrono::seconds(10);
  Duration connect_timeout = std::chrono::milliseconds(200);
  Duration command_timeout = std::chrono::milliseconds(200);
  Duration reconnect_backoff = std::chrono::milliseconds(100);
  Duration max_reconnect_backoff = std::chrono::seconds(5);
  Clock* clock = nullptr;  // for the backoff; null: Clock::Real()

  std::vector<std::string> Validate() const;
};

class RedisLeaseStore final : public LeaseStore {
 public:
  // Validates; does not connect (the first Refresh does).
  static Result<std::shared_ptr<RedisLeaseStore>> Create(RedisLeaseStoreOptions options);
  ~RedisLeaseStore() override;

  Result<Lease> Refresh(std::string_view instance_id, double demand, TimePoint now) override;

  const std::string& key() const noexcept { return key_; }

 private:
  struct Connection;
  explicit RedisLeaseStore(RedisLeaseStoreOptions options);
  Status Connect();
  Result<Lease> RunScript(std::string_view instance_id, double demand, TimePoint now);
  void Fail(const Status& why);

  const RedisLeaseStoreOptions o_;
  Clock& clock_;
  const std::string key_;
  std::mutex mu_;
  std::unique_ptr<Connection> conn_;  // null while disconnected
  std::string sha_;                   // the script's, from SCRIPT LOAD
  TimePoint retry_at_{};              // no connection attempt before then
  Status last_error_;                 // what started the wait, repeated until then
  Duration backoff_{};
};

// A store per limit in the Redis `connection` names (address, user,
// password, prefix, timeouts): each takes the limit's name, limit and
// lease_length. What a Registry makes a configuration's global_rate_limit
// with (RegistryOptions::lease_stores); each store has its own connection.
LeaseStoreFactory LeaseStoresIn(RedisLeaseStoreOptions connection);

}  // namespace stormguard::redis
