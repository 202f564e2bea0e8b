// stormguard/config_sources/etcd_discovery.h: a destination's replicas,
// as the replicas registered themselves in etcd (etcd_registration.h).
//
//   auto set = registry.Replicas("inventory");  // "replicas" without "endpoints"
//   auto discovery = EtcdDiscovery::Start({.etcd = {.endpoint = "http://10.0.0.2:2379",
//                                                   .key = "/sg/replicas/inventory/"}},
//                                         set).value();
//
// It reads the prefix, watches it from the next revision (the same watcher
// as EtcdSource: resume after a broken stream, a full read after a
// compaction, backoff with jitter, stale_after), and after each change
// calls set->Update() with every endpoint under the prefix. The set is
// updated in place, never replaced: endpoints that stay keep their load and
// outlier state, and calls in flight to one that left finish normally.
//
// Each key is <prefix><address>, its value {"address": "<address>",
// "weight": w} ("weight" optional, 1). A key that is not that (a value that
// is not JSON, larger than 4 KiB, naming another address, a bad address, a
// weight outside (0, 1e6]) is skipped: the others are used, and the key
// with its reason is reported to `on_problem` once and listed in
// skipped(). Skipped keys never empty the set: an update that would leave
// it with no endpoint is not made (reported), so the last members stay
// until a valid one is registered. More than 10000 keys or 4 MiB of values
// under the prefix is reported as a failure to read; the set keeps its
// members meanwhile.
//
// A change reaches the set at once; one that follows the previous within
// etcd.coalesce (at most 500ms; 50ms by default) waits for the end of that
// interval, with the changes since.
//
// Thread safety: stats() and skipped() from any thread; Stop from any
// thread but the executor's. `on_problem` runs on the executor's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/fleet/replica_set.h"

namespace stormguard::config_sources {

struct EtcdDiscoveryOptions {
  // How to reach etcd and follow it; `key` is the prefix, always read as a
  // prefix (`prefix` is ignored). coalesce must be at most 500ms.
  EtcdSourceOptions etcd;

  std::vector<std::string> Validate() const;
};

struct EtcdDiscoveryStats {
  EtcdSourceStats watch;      // deliveries: updates made to the set
  std::size_t endpoints = 0;  // in the last update
  std::size_t skipped = 0;    // keys skipped now
};

class EtcdWatcher;
class ReplicaFollower;

class EtcdDiscovery {
 public:
  // Problems with keys ("etcd:<key>: <reason>") and failures to reach etcd,
  // each distinct one once.
  using ProblemSink = std::function<void(const Status&)>;

  // INVALID_ARGUMENT naming each bad option or a null set;
  // RESOURCE_EXHAUSTED when the executor refuses the task.
  static Result<std::unique_ptr<EtcdDiscovery>> Start(EtcdDiscoveryOptions options, std::shared_ptr<ReplicaSet> set,
                                                      ProblemSink on_problem = {});
  ~EtcdDiscovery();
  EtcdDiscovery(const EtcdDiscovery&) = delete;
  EtcdDiscovery& operator=(const EtcdDiscovery&) = delete;

  // Ends the watch and waits for it; idempotent. The set is not updated
  // after Stop returns.
  void Stop();
  EtcdDiscoveryStats stats() const;
  // "etcd:<key>: <reason>" for each key skipped now.
  std::vector<std::string> skipped() const;

 private:
  EtcdDiscovery(std::unique_ptr<EtcdWatcher> watcher, const ReplicaFollower* follower);
  std::unique_ptr<EtcdWatcher> watcher_;
  const ReplicaFollower* follower_;  // owned by watcher_
};

}  // namespace stormguard::config_sources
