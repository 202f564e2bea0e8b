// stormguard/config_sources/etcd_source.h: live reload from etcd 3.4+.
//
//   auto source = EtcdSource::Start({.endpoint = "http://127.0.0.1:2379",
//                                    .key = "/stormguard/config"}, sink).value();
//
// `key` holds the whole JSON document; or, with `prefix`, each key under it
// holds one destination's JSON object, named by the rest of the key, and
// the source assembles {"destinations": {...}} in key order.
//
// It talks to etcd's v3 JSON gateway (/v3/kv/range, /v3/watch) over libcurl:
// no generated gRPC code and none of the Go source packages etcd's .proto
// files pull in, and libcurl is a dependency already.
//
// Who may change a fleet's limits is whoever can write the key, so the
// source speaks what etcd deployments use to know who is who:
//   - TLS (https://) that checks etcd's certificate against `ca_file`, and
//     a client certificate (`cert_file` + `key_file`) for an etcd started
//     with --client-cert-auth;
//   - etcd's own authentication: `user` and `password` exchanged at
//     /v3/auth/authenticate for a token that each read and watch carries,
//     renewed every token_ttl / 2 while the watch runs, and once more at
//     once when etcd calls it invalid (then the request is tried again).
// A watch stream stays open across renewals (etcd checks the token when a
// stream opens). A refusal (etcd's certificate not trusted, ours refused,
// a wrong password, a token that can no longer be renewed) ends the
// stream and is reported like any other failure: "etcd:KEY: TLS: etcd's
// certificate is not trusted (...)", "etcd:KEY: etcd authentication as user
// "app" failed: etcdserver: authentication failed, invalid user ID or
// password". Nothing is delivered meanwhile, so the last good document
// stays in force; the source keeps trying with `reconnect` backoff.
//
// How it follows the key (on one executor thread, until Stop):
//   1. Range (linearizable) -> the data as of revision R; deliver.
//   2. Watch from R + 1 with progress notifications; each reply's events are
//      applied together, and the resume point moves to one past the last
//      event (or past a progress notify's revision).
//   3. The stream breaks, goes silent for `stale_after`, or etcd is down:
//      report the failure to the sink (once per distinct error), wait with
//      `reconnect` backoff and jitter, and watch again from the resume
//      point, so nothing is missed or seen twice. Every wait is counted.
//   4. etcd compacted the resume point away (the watch is canceled with a
//      compact_revision): close the stream and go back to 1, since deletes
//      in between can only be learned from a full read.
// Changes are delivered at most once per `coalesce`: the first at once,
// later ones in that interval together when it ends, so a burst of writes
// (or one transaction over many keys) is one reload, not a storm.
//
// Bounds: a Range answer of at most 16 MiB, a watch line of at most 8 MiB,
// kMaxDestinations keys, and documents of kMaxConfigBytes; past them the
// source reports RESOURCE_EXHAUSTED and reads again after a backoff.
//
// Thread safety: stats() from any thread; Stop from any thread but the
// executor's. The sink runs on the executor's thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stormguard/backoff/backoff.h"
#include "stormguard/config_sources/config_update.h"
#include "stormguard/core/time.h"
#include "stormguard/exec/executor.h"

namespace stormguard::config_sources {

struct EtcdSourceOptions {
  // http:// or https://, a host, a port in [1, 65535] (optional), nothing
  // after it: the gateway's paths are added.
  std::string endpoint = "http://127.0.0.1:2379";
  std::string key;  // the key, or the prefix
  bool prefix = false;
  // TLS, for an https:// endpoint only; PEM files, each readable when the
  // source starts. ca_file: the CAs etcd's certificate must chain to ("":
  // the system's). cert_file and key_file, both or neither: this client's
  // certificate and its private key.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // etcd authentication: both or neither. Over http:// the password
  // crosses the network in clear; use https:// beyond loopback.
  std::string user;
  std::string password;
  // etcd's --auth-token-ttl (a simple token's life past its last use); the
  // token is renewed at half of it. In [1s, 24h].
  Duration token_ttl = std::chrono::minutes(5);
  Duration connect_timeout = std::chrono::seconds(1);  // in [1ms, 1min]
  Duration request_timeout = std::chrono::seconds(5);  // a Range, in [1ms, 10min]
  // Waits between attempts to reach etcd (reset once a watch is running).
  BackoffOptions reconnect{.kind = BackoffKind::kExponential,
                           .base = std::chrono::milliseconds(50),
                           .cap = std::chrono::seconds(5),
                           .jitter = Jitter::kFull};
  Duration coalesce = std::chrono::milliseconds(50);  // in [0, 1min]
  // A watch stream that brings nothing from etcd for this long, not even a
  // progress notification, is stale: reported, closed, and watched again
  // from the resume point. etcd notifies a quiet watch every
  // --experimental-watch-progress-notify-interval (10 min by default) and
  // may skip one after events, so keep this above twice that. In [10ms, 24h].
  Duration stale_after = std::chrono::minutes(25);
  std::uint64_t seed = 0;  // the jitter's; 0: drawn from the OS
  // Runs the watch, on its clock. Null: a one-thread pool of its own.
  std::shared_ptr<Executor> executor;

  std::vector<std::string> Validate() const;
};

struct EtcdSourceStats {
  std::uint64_t watches = 0;          // watch streams etcd accepted
  std::uint64_t failures = 0;         // reads or streams that failed
  std::uint64_t reconnects = 0;       // backoff waits before trying again
  std::uint64_t compactions = 0;      // full reads after a compaction
  std::uint64_t deliveries = 0;       // documents handed to the sink (counted once it returns)
  std::uint64_t stale = 0;            // streams ended for silence (stale_after)
  std::uint64_t authentications = 0;  // tokens obtained from etcd
  std::int64_t revision = 0;          // of the last document delivered
};

class EtcdWatcher;

class EtcdSource {
 public:
  // INVALID_ARGUMENT naming each bad option; RESOURCE_EXHAUSTED when the
  // executor refuses the task. Returns at once; the first document (or
  // failure) reaches the sink from the executor's thread.
  static Result<std::unique_ptr<EtcdSource>> Start(EtcdSourceOptions options, ConfigSink sink);
  ~EtcdSource();
  EtcdSource(const EtcdSource&) = delete;
  EtcdSource& operator=(const EtcdSource&) = delete;

  // Closes the stream, ends the task and waits for it; idempotent. The sink
  // is not called after Stop returns.
  void Stop();
  EtcdSourceStats stats() const;

 private:
  explicit EtcdSource(std::unique_ptr<EtcdWatcher> watcher);
  std::unique_ptr<EtcdWatcher> watcher_;
};

}  // namespace stormguard::config_sources
