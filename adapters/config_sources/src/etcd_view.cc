#include "etcd_view.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "stormguard/config/config_json.h"

namespace stormguard::config_sources {

EtcdView::Outcome EtcdView::Reset(const RangeReply& reply) {
  values_.clear();
  bytes_ = 0;
  for (const KeyValue& kv : reply.kvs) {
    if (Put(kv.key, kv.value) == kOverflow) return kOverflow;
  }
  if (reply.more) return Overflow();
  revision_ = reply.revision;
  next_revision_ = reply.revision + 1;
  return kChanged;
}

EtcdView::Outcome EtcdView::Apply(const WatchReply& reply) {
  if (reply.IsProgressNotify()) {
    next_revision_ = std::max(next_revision_, reply.revision + 1);
    return kUnchanged;
  }
  Outcome outcome = kUnchanged;
  for (const WatchEvent& event : reply.events) {
    if (event.deleted) {
      const auto it = values_.find(event.kv.key);
      if (it != values_.end()) {
        bytes_ -= it->second.size();
        values_.erase(it);
        outcome = kChanged;
      }
    } else {
      if (Put(event.kv.key, event.kv.value) == kOverflow) return kOverflow;
      outcome = kChanged;
    }
    revision_ = std::max(revision_, event.kv.mod_revision);
    next_revision_ = std::max(next_revision_, event.kv.mod_revision + 1);
  }
  return outcome;
}

EtcdView::Outcome EtcdView::Put(const std::string& key, const std::string& value) {
  auto [it, added] = values_.try_emplace(key);
  bytes_ = bytes_ - it->second.size() + value.size();
  it->second = value;
  if (values_.size() > config::kMaxDestinations || bytes_ > config::kMaxConfigBytes) return Overflow();
  return kChanged;
}

EtcdView::Outcome EtcdView::Overflow() {
  values_.clear();
  bytes_ = 0;
  return kOverflow;
}

Result<std::string> EtcdView::Document() const {
  const std::string where = "etcd:" + key_;
  if (values_.empty()) return Status::NotFound(where + (prefix_ ? ": no key under this prefix" : ": no such key"));
  if (!prefix_) return values_.begin()->second;
  std::string doc = "{\"destinations\": {";
  for (const auto& [key, value] : values_) {
    if (!nlohmann::json::accept(value)) {
      return Status::InvalidArgument("etcd:" + key + ": the value is not one JSON value");
    }
    const std::string name = key.substr(key_.size());
    if (&key != &values_.begin()->first) doc += ", ";
    doc += nlohmann::json(name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    doc += ": ";
    doc += value;
    if (doc.size() > config::kMaxConfigBytes) {
      return Status::ResourceExhausted(where + ": the document is larger than " +
                                       std::to_string(config::kMaxConfigBytes) + " bytes");
    }
  }
  return doc + "}}";
}

}  // namespace stormguard::config_sources
