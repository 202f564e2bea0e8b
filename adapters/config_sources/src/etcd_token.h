// etcd's own authentication for an etcd source: the user's name and password
// exchanged at /v3/auth/authenticate for a token, which every Range and
// Watch then carries.
//
//   EtcdToken token(options, clock);
//   Result<std::string> t = token.Get(stop);  // "" when no user is set
//   ... etcd says the token is invalid: if (token.Forget()) try once more
//
// etcd does not say how long a token lives (a simple token lives
// --auth-token-ttl past its last use, 300 s by default), so the source is
// told (`token_ttl`) and renews at half of it: a watch stream uses its
// token only when it opens, so the held one must be fresh whenever the
// next stream or read needs it, and a renewal that fails (the password
// was changed, the user removed) is noticed within half a TTL.
//
// Failures: UNAUTHENTICATED "etcd authentication as user "app" failed:
// <etcd's reason>" when etcd refuses the name or password; a transport
// failure as EtcdPost reports it.
//
// Thread safety: one thread at a time (the source's); authentications()
// from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <stop_token>
#include <string>

#include "etcd_http.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/core/clock.h"

namespace stormguard::config_sources {

class EtcdToken {
 public:
  EtcdToken(const EtcdSourceOptions& options, Clock& clock);

  bool enabled() const noexcept { return !user_.empty(); }
  // The token held, or a new one once it is half a TTL old; "" without a user.
  Result<std::string> Get(const std::stop_token& stop);
  // When Get will next ask etcd; TimePoint::max() without a user.
  TimePoint renew_at() const noexcept;
  // Drops the token etcd called invalid; false when none was held (the
  // failure was the authentication itself, so trying again cannot help).
  bool Forget() noexcept;
  std::uint64_t authentications() const noexcept { return authentications_.load(std::memory_order_relaxed); }

 private:
  std::string url_;
  std::string user_;
  std::string password_;
  EtcdIdentity tls_;
  EtcdHttpLimits limits_;
  Duration renew_after_;
  Clock& clock_;
  std::string token_;  // "" until the first authentication, and after Forget
  TimePoint obtained_{};
  std::atomic<std::uint64_t> authentications_{0};
};

}  // namespace stormguard::config_sources
