// tools/demo/live_config.h: where a demo service's policies come from once
// it runs. Without a source, the compiled-in tools/demo/stormguard.json
// stays; with one, the service follows a file it watches or an etcd key,
// and every call it makes or serves takes the pipeline in force when it
// starts (the services hold live handles, DemoRegistry().Follow(...)).
//
//   ConfigSourceFlags source{.etcd = "http://127.0.0.1:2379", .key = "/demo/config"};
//   Result<std::unique_ptr<LiveConfig>> live = LiveConfig::Start(source, DemoRegistry());
//   // serve; `live` keeps following until destroyed
//
// The compiled-in file is the first good configuration: an unreadable or
// invalid document changes nothing. Start waits (at most kFirstDocumentWait)
// for the source's first answer, so a service does not take traffic on the
// compiled-in policies when its operator gave it others.
//
// Thread safety: Start and the destructor on one thread; the source's
// thread applies documents to the registry.
#pragma once

#include <chrono>
#include <memory>

#include "demo/demo_options.h"
#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/file_source.h"
#include "stormguard/core/result.h"

namespace stormguard::demo {

// A change in the file is seen within this; a demo reloads in well under a second.
inline constexpr Duration kFilePoll = std::chrono::milliseconds(100);
// Between tries to reach etcd again: a demo's three services, not a fleet,
// so a restarted etcd is found again within half a second.
inline constexpr Duration kEtcdReconnectCap = std::chrono::milliseconds(500);
inline constexpr Duration kFirstDocumentWait = std::chrono::seconds(5);

class LiveConfig {
 public:
  // INVALID_ARGUMENT for bad flags; else follows `source` into `registry`
  // (which must outlive it). Null for an empty source.
  static Result<std::unique_ptr<LiveConfig>> Start(const ConfigSourceFlags& source, config::Registry& registry);
  ~LiveConfig();
  LiveConfig(const LiveConfig&) = delete;
  LiveConfig& operator=(const LiveConfig&) = delete;

 private:
  LiveConfig() = default;
  std::unique_ptr<config_sources::FileSource> file_;
  std::unique_ptr<config_sources::EtcdSource> etcd_;
};

}  // namespace stormguard::demo
