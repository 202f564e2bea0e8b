// The loop behind EtcdSource and EtcdDiscovery (etcd_source.h describes
// what it does): read, watch, reconnect, re-read after a compaction, and
// offer the view to a follower after coalesced changes.
//
// Thread safety: Run on one thread; StopAndWait and stats() from any. The
// follower is called on Run's thread only.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>

#include "delivery_throttle.h"
#include "etcd_http.h"
#include "etcd_token.h"
#include "etcd_view.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/core/random.h"

namespace stormguard::config_sources {

// What a watcher does with the keys it follows.
class EtcdFollower {
 public:
  virtual ~EtcdFollower() = default;
  // The view changed (or was read again); true when that delivered
  // something new (counted in the stats' deliveries).
  virtual bool Offer(const EtcdView& view) = 0;
  // A failure to read or watch, "etcd:KEY: " first; each distinct one once.
  virtual void Report(Status failure) = 0;
};

class EtcdWatcher final : private LineHandler {
 public:
  EtcdWatcher(EtcdSourceOptions options, Backoff reconnect, std::unique_ptr<EtcdFollower> follower);

  // Until stop is requested.
  void Run();
  // Requests stop and waits until Run has returned; Run must have been
  // submitted.
  void StopAndWait();
  EtcdSourceStats stats() const;
  Executor& executor() const { return *options_.executor; }

 private:
  void Loop();
  Status Session();
  Status Attempt();
  Status ReadAll(const EtcdIdentity& identity);
  Result<EtcdIdentity> Identity();
  Status OnLine(std::string_view line) override;
  Result<Duration> Idle() override;
  void Offer();
  void Report(const Status& failure);

  EtcdSourceOptions options_;
  Backoff reconnect_;
  std::unique_ptr<EtcdFollower> follower_;
  Clock& clock_;
  std::string range_end_;  // empty for a single key
  std::string origin_;
  EtcdView view_;
  EtcdToken token_;
  DeliveryThrottle throttle_;
  Random rng_;
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool running_ = true;     // guarded by mu_: Run has not returned
  bool need_read_ = true;   // no data yet, or a compaction: Range before watching
  bool watching_ = false;   // the current stream was accepted
  bool compacted_ = false;  // the stream ended because its revisions were compacted
  TimePoint heard_{};       // the stream's start, or its last line from etcd
  std::string reported_;    // the failure last reported, "" once healthy

  std::atomic<std::uint64_t> watches_{0}, failures_{0}, reconnects_{0}, compactions_{0}, deliveries_{0}, stale_{0};
  std::atomic<std::int64_t> revision_{0};
};

// `seed`, or one drawn from the OS when it is 0.
std::uint64_t JitterSeed(std::uint64_t seed);

// Gives `options` a one-thread pool of its own when it names no executor.
Status EnsureExecutor(EtcdSourceOptions& options);

// A watcher of validated `options`, running on their executor (or a pool
// of its own); RESOURCE_EXHAUSTED when the executor refuses the task.
Result<std::unique_ptr<EtcdWatcher>> StartWatcher(EtcdSourceOptions options, std::unique_ptr<EtcdFollower> follower);

}  // namespace stormguard::config_sources
