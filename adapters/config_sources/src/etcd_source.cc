#include "stormguard/config_sources/etcd_source.h"

#include "etcd_watcher.h"
#include "stormguard/core/validation.h"

namespace stormguard::config_sources {
namespace {

bool Within(Duration d, Duration lo, Duration hi) { return d >= lo && d <= hi; }

bool PlainText(const std::string& s) {
  for (const unsigned char c : s) {
    if (c <= ' ' || c == 0x7F) return false;
  }
  return true;
}

}  // namespace

std::vector<std::string> EtcdSourceOptions::Validate() const {
  using std::chrono::milliseconds, std::chrono::minutes;
  Validator v;
  v.Check((endpoint.starts_with("http://") || endpoint.starts_with("https://")) && PlainText(endpoint) &&
              endpoint.size() <= 2048,
          "endpoint", "must be an http:// or https:// URL of at most 2048 bytes, without spaces");
  v.Check(!endpoint.ends_with("/"), "endpoint", "must not end with '/' (the gateway's paths are added to it)");
  v.Check(!key.empty() && key.size() <= 4096, "key", "must be 1 to 4096 bytes");
  v.Check(Within(connect_timeout, milliseconds(1), minutes(1)), "connect_timeout", "must be in [1ms, 1min]");
  v.Check(Within(request_timeout, milliseconds(1), minutes(10)), "request_timeout", "must be in [1ms, 10min]");
  v.Check(Within(coalesce, Duration::zero(), minutes(1)), "coalesce", "must be in [0, 1min]");
  v.Nest("reconnect", reconnect.Validate());
  v.Check(reconnect.cap <= minutes(10), "reconnect.cap", "must be at most 10min (an outage must end in a retry)");
  return std::move(v).errors();
}

Result<std::unique_ptr<EtcdSource>> EtcdSource::Start(EtcdSourceOptions options, ConfigSink sink) {
  std::vector<std::string> errors = options.Validate();
  if (!sink) errors.push_back("sink: must not be empty");
  if (!errors.empty()) return ValidationStatus("EtcdSourceOptions", errors);
  Result<Backoff> backoff = Backoff::Create(options.reconnect);
  if (!backoff.ok()) return std::move(backoff).status();
  if (!options.executor) {
    auto pool = Executor::Create({.threads = 1, .queue_capacity = 1});
    if (!pool.ok()) return std::move(pool).status();
    options.executor = std::move(*pool);
  }
  auto watcher = std::make_unique<EtcdWatcher>(std::move(options), std::move(*backoff), std::move(sink));
  EtcdWatcher* w = watcher.get();
  if (!w->executor().TrySubmit([w] { w->Run(); })) {
    return Status::ResourceExhausted("EtcdSource: the executor refused the watch task");
  }
  return std::unique_ptr<EtcdSource>(new EtcdSource(std::move(watcher)));
}

EtcdSource::EtcdSource(std::unique_ptr<EtcdWatcher> watcher) : watcher_(std::move(watcher)) {}

EtcdSource::~EtcdSource() { Stop(); }

void EtcdSource::Stop() { watcher_->StopAndWait(); }

EtcdSourceStats EtcdSource::stats() const { return watcher_->stats(); }

}  // namespace stormguard::config_sources
