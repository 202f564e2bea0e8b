// stormguard/config_sources/etcd_registration.h: a replica announces itself
// in etcd for as long as it lives.
//
//   auto reg = EtcdRegistration::Start({.etcd = {.endpoint = "http://10.0.0.2:2379",
//                                                .key = "/sg/replicas/inventory/"},
//                                       .address = "10.0.0.7:8080"}).value();
//   ... serve ...
//   reg->Stop();  // gone from every client's set at once
//
// It grants a lease of `ttl`, puts <prefix><address> -> {"address": "...",
// "weight": w} with that lease, and renews the lease every ttl / 3 (so two
// renewals may fail before it runs out). Clients follow the prefix with
// EtcdDiscovery.
//
// Leaving:
//   - Stop (or the destructor) revokes the lease: etcd deletes the key and
//     every watcher of the prefix hears it at once.
//   - A process that dies without Stop (SIGKILL, a crash, a lost host)
//     stops renewing: etcd deletes the key when the lease runs out, at most
//     `ttl` after the last renewal.
//   - A lease etcd no longer has (it ran out while etcd or this process was
//     unreachable or frozen, or etcd lost its data) is noticed at the next
//     renewal, and a new lease is granted and the key put again.
// Failures to reach etcd are reported to `on_failure` (each distinct one
// once, "etcd:<key>: ..."), counted, and retried with `etcd.reconnect`
// backoff, capped at ttl / 3 so a renewal is tried several times before the
// lease runs out; for the same reason a request waits at most
// min(etcd.request_timeout, ttl / 3).
//
// Thread safety: stats() from any thread; Stop from any thread but the
// executor's. `on_failure` runs on the executor's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stormguard/config_sources/etcd_source.h"

namespace stormguard::config_sources {

struct EtcdRegistrationOptions {
  // How to reach etcd (endpoint, TLS, authentication, timeouts, reconnect
  // backoff, seed, executor) and, in `key`, the prefix the replica is
  // registered under. `prefix`, `coalesce` and `stale_after` are not used.
  EtcdSourceOptions etcd;
  std::string address;  // host:port, as the clients will dial it
  double weight = 1.0;  // relative capacity, (0, 1e6]
  // The lease's life: how long a replica that died without Stop stays in
  // the clients' sets at most. Whole seconds (etcd's unit), in [2s, 1h].
  Duration ttl = std::chrono::seconds(10);

  std::vector<std::string> Validate() const;
};

struct EtcdRegistrationStats {
  std::uint64_t grants = 0;      // leases granted (with the key put)
  std::uint64_t keepalives = 0;  // renewals etcd accepted
  std::uint64_t failures = 0;    // requests that failed
  std::uint64_t lost = 0;        // leases etcd no longer had at a renewal
  std::int64_t lease = 0;        // the lease held now; 0 while unregistered
};

class EtcdRegistrar;

class EtcdRegistration {
 public:
  using FailureSink = std::function<void(const Status&)>;

  // INVALID_ARGUMENT naming each bad option; RESOURCE_EXHAUSTED when the
  // executor refuses the task. Returns at once: the registration happens on
  // the executor's thread.
  static Result<std::unique_ptr<EtcdRegistration>> Start(EtcdRegistrationOptions options, FailureSink on_failure = {});
  ~EtcdRegistration();
  EtcdRegistration(const EtcdRegistration&) = delete;
  EtcdRegistration& operator=(const EtcdRegistration&) = delete;

  // Ends the renewals and revokes the lease (waiting at most
  // etcd.request_timeout for etcd); idempotent.
  void Stop();
  EtcdRegistrationStats stats() const;
  // <prefix><address>.
  const std::string& key() const noexcept;

 private:
  explicit EtcdRegistration(std::unique_ptr<EtcdRegistrar> registrar);
  std::unique_ptr<EtcdRegistrar> registrar_;
};

}  // namespace stormguard::config_sources
