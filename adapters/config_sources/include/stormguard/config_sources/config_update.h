// stormguard/config_sources/config_update.h: what a live configuration
// source hands to whoever applies configurations (the registry).
//
// A source calls its sink with either a new document or the reason it could
// not get one (file unreadable, etcd unreachable or refusing, a document
// over config::kMaxConfigBytes), whose message starts with the origin
// ("etcd:/sg/config: ..."). The document is delivered as it was
// written: judging it is the receiver's job, and an invalid one must leave
// the last good configuration in force. The sink that feeds a registry is
// ReloadInto(registry, origin) (reload_into.h).
//
// Thread safety: a source calls its sink from one thread at a time (its
// own worker, or the thread that called Start), never concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "stormguard/core/result.h"

namespace stormguard::config_sources {

struct ConfigUpdate {
  std::string text;    // the whole JSON document, at most config::kMaxConfigBytes
  std::string origin;  // where it came from: "file:/etc/sg.json", "etcd:/sg/config"
  // Orders versions from one source: etcd's revision of the delivered state;
  // for a file, 1 for the first content read and +1 for each change seen.
  std::int64_t revision = 0;
};

using ConfigSink = std::function<void(Result<ConfigUpdate>)>;

}  // namespace stormguard::config_sources
