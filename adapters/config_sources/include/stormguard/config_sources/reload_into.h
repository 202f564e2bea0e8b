// stormguard/config_sources/reload_into.h: a source's sink that keeps a
// registry up to date.
//
//   config::Registry registry;
//   auto source = EtcdSource::Start({.key = "/sg/config"},
//                                   ReloadInto(registry, "etcd:/sg/config")).value();
//   registry.Get("inventory", "GET /stock")->Execute(ctx, call);
//
// A document goes to Registry::Apply under the update's own origin, so the
// registry judges it and an invalid one leaves the last good configuration
// in force. A failure to read one goes to Registry::Reject under `origin`
// (the source's name; a failure has no update to carry one): counted and
// reported, nothing changes.
//
// The registry must outlive the source.
#pragma once

#include <string>

#include "stormguard/config/registry.h"
#include "stormguard/config_sources/config_update.h"

namespace stormguard::config_sources {

ConfigSink ReloadInto(config::Registry& registry, std::string origin);

}  // namespace stormguard::config_sources
