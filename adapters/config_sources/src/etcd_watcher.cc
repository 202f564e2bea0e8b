#include "etcd_watcher.h"

#include <algorithm>
#include <random>
#include <utility>

#include "stormguard/config/config_json.h"
#include "stormguard/core/duration_format.h"

namespace stormguard::config_sources {
namespace {

constexpr std::size_t kMaxRangeBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxLineBytes = std::size_t{8} << 20;
constexpr Duration kIdleWait = std::chrono::seconds(1);
constexpr int kMaxAttempt = 1000;  // the backoff is at its cap long before

// A watch etcd would not open comes back created and canceled, its gRPC
// status in the reason's text: an invalid token keeps its code, so the
// session renews the token and tries again.
Status CanceledWatch(const std::string& reason) {
  StatusCode code = StatusCode::kFailedPrecondition;
  if (reason.find("code = Unauthenticated") != std::string::npos) code = StatusCode::kUnauthenticated;
  if (reason.find("code = PermissionDenied") != std::string::npos) code = StatusCode::kPermissionDenied;
  return Status(code, "etcd canceled the watch: " + (reason.empty() ? "no reason given" : reason));
}

}  // namespace

EtcdWatcher::EtcdWatcher(EtcdSourceOptions options, Backoff reconnect, std::unique_ptr<EtcdFollower> follower)
    : options_(std::move(options)),
      reconnect_(std::move(reconnect)),
      follower_(std::move(follower)),
      clock_(options_.executor->clock()),
      range_end_(options_.prefix ? PrefixEnd(options_.key) : std::string()),
      origin_("etcd:" + options_.key),
      view_(options_.key, options_.prefix),
      token_(options_, clock_),
      throttle_(options_.coalesce),
      rng_(JitterSeed(options_.seed)) {}

void EtcdWatcher::Run() {
  Loop();
  std::lock_guard lock(mu_);
  running_ = false;
  done_cv_.notify_all();
}

void EtcdWatcher::StopAndWait() {
  stop_.request_stop();
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [this] { return !running_; });
}

void EtcdWatcher::Loop() {
  const std::stop_token stop = stop_.get_token();
  int attempt = 0;
  Duration previous = Duration::zero();
  bool compacted_before = false;  // the last session ended in a compaction too
  while (!stop.stop_requested()) {
    watching_ = false;
    const Status s = Session();
    if (throttle_.Flush()) Offer();  // the stream ended with a change held back
    if (stop.stop_requested()) break;
    const bool compacted = std::exchange(compacted_, false);
    if (compacted) compactions_.fetch_add(1, std::memory_order_relaxed);
    // A compaction is no outage: read everything again at once. Twice in a
    // row, something is wrong (a peer that cancels every watch): back off.
    if (compacted && !std::exchange(compacted_before, true)) continue;
    compacted_before = compacted;
    failures_.fetch_add(1, std::memory_order_relaxed);
    Report(s);
    if (watching_ && !compacted) {  // it worked until now: start the backoff over
      attempt = 0;
      previous = Duration::zero();
    }
    attempt = std::min(attempt + 1, kMaxAttempt);
    previous = reconnect_.Next(attempt, previous, rng_);
    reconnects_.fetch_add(1, std::memory_order_relaxed);
    clock_.SleepFor(previous, stop);
  }
}

// etcd drops a token a TTL after its last use (sooner than token_ttl
// says, if that is wrong), and a user's tokens when the password changes:
// a token it calls invalid is replaced and the request tried once more,
// so that costs no failure, report or backoff.
Status EtcdWatcher::Session() {
  Status s = Attempt();
  if (s.code() != StatusCode::kUnauthenticated || stop_.stop_requested() || !token_.Forget()) return s;
  return Attempt();
}

Status EtcdWatcher::Attempt() {
  Result<EtcdIdentity> identity = Identity();
  if (!identity.ok()) return identity.status();
  if (need_read_) {
    if (Status s = ReadAll(*identity); !s.ok()) return s;
  }
  const EtcdHttpLimits limits{.connect_timeout = options_.connect_timeout, .max_bytes = kMaxLineBytes};
  heard_ = clock_.Now();
  return EtcdStream(options_.endpoint + "/v3/watch", WatchRequest(options_.key, range_end_, view_.next_revision()),
                    limits, *identity, *this, stop_.get_token());
}

Result<EtcdIdentity> EtcdWatcher::Identity() {
  Result<std::string> token = token_.Get(stop_.get_token());
  if (!token.ok()) return token.status();
  return EtcdIdentity{options_.ca_file, options_.cert_file, options_.key_file, std::move(*token)};
}

Status EtcdWatcher::ReadAll(const EtcdIdentity& identity) {
  const EtcdHttpLimits limits{options_.connect_timeout, options_.request_timeout, kMaxRangeBytes};
  // One key past the bound is enough to know the bound is passed.
  const std::int64_t limit = options_.prefix ? static_cast<std::int64_t>(config::kMaxDestinations) + 1 : 0;
  Result<std::string> body = EtcdPost(options_.endpoint + "/v3/kv/range", RangeRequest(options_.key, range_end_, limit),
                                      limits, identity, stop_.get_token());
  if (!body.ok()) return body.status();
  Result<RangeReply> reply = ParseRangeReply(*body);
  if (!reply.ok()) return reply.status();
  if (view_.Reset(*reply) == EtcdView::kOverflow) {
    return Status::ResourceExhausted("more than " + std::to_string(config::kMaxDestinations) + " keys or " +
                                     std::to_string(config::kMaxConfigBytes) + " bytes");
  }
  need_read_ = false;
  throttle_.Changed();
  if (throttle_.Due(clock_.Now())) Offer();
  return Status::Ok();
}

Status EtcdWatcher::OnLine(std::string_view line) {
  // A blank line may come from a proxy keeping the connection open: it
  // says nothing about etcd, so it does not count as hearing from it.
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return Status::Ok();
  heard_ = clock_.Now();
  Result<WatchReply> reply = ParseWatchLine(line);
  if (!reply.ok() && reply.status().code() == StatusCode::kOutOfRange) {  // etcd's "compacted"
    compacted_ = need_read_ = true;
    return reply.status();
  }
  if (!reply.ok()) return reply.status();
  if (reply->created && !reply->canceled && !watching_) {  // created and canceled: refused
    watching_ = true;
    reported_.clear();
    watches_.fetch_add(1, std::memory_order_relaxed);
  }
  if (reply->canceled) {
    if (reply->compact_revision > 0) {
      compacted_ = need_read_ = true;
      return Status(StatusCode::kOutOfRange, "revision " + std::to_string(view_.next_revision()) +
                                                 " was compacted (now " + std::to_string(reply->compact_revision) +
                                                 ")");
    }
    return CanceledWatch(reply->cancel_reason);
  }
  switch (view_.Apply(*reply)) {
    case EtcdView::kOverflow:  // the view is empty now: nothing to deliver until read again
      need_read_ = true;
      throttle_.Flush();
      return Status::ResourceExhausted("the watched keys passed their bounds");
    case EtcdView::kChanged: throttle_.Changed(); break;
    case EtcdView::kUnchanged: break;
  }
  return Status::Ok();
}

// etcd tells a quiet watch how far it got every progress-notify interval,
// so a stream silent for stale_after is stuck (a frozen or cut-off member,
// a proxy holding a dead connection): end it, and the loop reports it and
// watches again from the resume point.
Result<Duration> EtcdWatcher::Idle() {
  const TimePoint now = clock_.Now();
  if (throttle_.Due(now)) Offer();
  const TimePoint stale_at = heard_ + options_.stale_after;
  if (now >= stale_at) {
    stale_.fetch_add(1, std::memory_order_relaxed);
    return Status::DeadlineExceeded("etcd watch stream silent for " + FormatDuration(options_.stale_after) +
                                    " (no event, no progress notification): watching again from revision " +
                                    std::to_string(view_.next_revision()));
  }
  // A renewal keeps this stream (etcd checked the token when it opened it);
  // one that fails ends it, and the loop reports why.
  if (now >= token_.renew_at()) {
    if (Result<std::string> token = token_.Get(stop_.get_token()); !token.ok()) return token.status();
  }
  Duration wait = std::min(throttle_.Wait(now, kIdleWait), stale_at - now);
  if (token_.enabled()) wait = std::min(wait, token_.renew_at() - now);
  return wait;
}

void EtcdWatcher::Offer() {
  if (!follower_->Offer(view_)) return;
  deliveries_.fetch_add(1, std::memory_order_relaxed);
  revision_.store(view_.revision(), std::memory_order_relaxed);
}

void EtcdWatcher::Report(const Status& failure) {
  if (failure.message() == reported_) return;
  reported_ = failure.message();
  follower_->Report(Status(failure.code(), origin_ + ": " + failure.message()));
}

std::uint64_t JitterSeed(std::uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device device;
  return (std::uint64_t{device()} << 32) | device();
}

Status EnsureExecutor(EtcdSourceOptions& options) {
  if (options.executor) return Status::Ok();
  auto pool = Executor::Create({.threads = 1, .queue_capacity = 1});
  if (!pool.ok()) return std::move(pool).status();
  options.executor = std::move(*pool);
  return Status::Ok();
}

Result<std::unique_ptr<EtcdWatcher>> StartWatcher(EtcdSourceOptions options, std::unique_ptr<EtcdFollower> follower) {
  Result<Backoff> backoff = Backoff::Create(options.reconnect);
  if (!backoff.ok()) return std::move(backoff).status();
  if (Status s = EnsureExecutor(options); !s.ok()) return s;
  auto watcher = std::make_unique<EtcdWatcher>(std::move(options), std::move(*backoff), std::move(follower));
  EtcdWatcher* w = watcher.get();
  if (!w->executor().TrySubmit([w] { w->Run(); })) {
    return Status::ResourceExhausted("the executor refused the watch task");
  }
  return watcher;
}

EtcdSourceStats EtcdWatcher::stats() const {
  constexpr auto r = std::memory_order_relaxed;
  return {watches_.load(r),    failures_.load(r), reconnects_.load(r),      compactions_.load(r),
          deliveries_.load(r), stale_.load(r),    token_.authentications(), revision_.load(r)};
}

}  // namespace stormguard::config_sources
