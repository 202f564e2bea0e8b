// What an etcd source knows of its key or prefix: the values as of one
// revision, kept current by watch replies, and the document they make.
//
//   EtcdView view("/sg/destinations/", /*prefix=*/true);
//   view.Reset(range_reply);                 // revision R; watch from R + 1
//   if (view.Apply(watch_reply) == EtcdView::kChanged) ... view.Document() ...
//
// One key holds the whole document. Under a prefix each key holds one
// destination's JSON object, named by the rest of the key; the document is
// {"destinations": {name: value, ...}} in key order, each value spliced as
// written. A value that is not exactly one JSON value would let its text
// reach into its neighbours, so it makes Document() an error instead.
//
// Bounds: at most config::kMaxDestinations keys and config::kMaxConfigBytes
// of values are held. A watch that goes past them cannot be followed
// faithfully (what is dropped would be missing later), so Apply answers
// kOverflow, forgets everything and waits for the next Reset.
//
// Thread safety: one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "etcd_codec.h"

namespace stormguard::config_sources {

class EtcdView {
 public:
  EtcdView(std::string key, bool prefix) : key_(std::move(key)), prefix_(prefix) {}

  enum Outcome { kUnchanged, kChanged, kOverflow };

  // Replaces everything with a Range answer (kOverflow: over the bounds).
  Outcome Reset(const RangeReply& reply);
  // A watch reply's events, all at once (one transaction is never seen
  // half-applied); a progress notify only moves next_revision().
  Outcome Apply(const WatchReply& reply);

  // Where the watch resumes: one past the last revision seen.
  std::int64_t next_revision() const noexcept { return next_revision_; }
  // The revision of the data held: the Range's, then the last event's.
  std::int64_t revision() const noexcept { return revision_; }

  // Every key held (full keys) and its value, in key order.
  const std::map<std::string, std::string>& values() const noexcept { return values_; }
  const std::string& key() const noexcept { return key_; }

  // The document, or why there is none (NOT_FOUND: no key; INVALID_ARGUMENT:
  // a prefix value that is not JSON; RESOURCE_EXHAUSTED: too large).
  Result<std::string> Document() const;

 private:
  Outcome Put(const std::string& key, const std::string& value);
  Outcome Overflow();

  std::string key_;
  bool prefix_;
  std::map<std::string, std::string> values_;  // by full key
  std::size_t bytes_ = 0;                      // of values_
  std::int64_t revision_ = 0;
  std::int64_t next_revision_ = 0;
};

}  // namespace stormguard::config_sources
