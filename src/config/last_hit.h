// src/config/last_hit.h: one thread's last registry lookup, so a thread that
// asks for the same destination and method again (the common case: a
// service calls the same few downstreams in a loop) skips the two hashes
// and table probes.
//
// The entry keeps its own copy of both names and is compared by content,
// never by pointer: a caller may reuse a buffer for another name. It holds
// the thread's last lookup or nothing, never an older one: the owner asks
// it only while the thread's configuration is the current one, and every
// lookup it makes after a reload replaces the entry. Names longer than the
// buffer together leave it empty.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "name_table.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::config::config_internal {

class LastHit {
 public:
  static constexpr std::size_t kNameBytes = 88;

  // The pipeline remembered for exactly these names, or null.
  const Pipeline* Find(std::string_view destination, std::string_view method) const noexcept {
    if (pipeline_ == nullptr || destination.size() != destination_size_ || method.size() != method_size_) {
      return nullptr;
    }
    return SameBytes(names_, destination.data(), destination.size()) &&
                   SameBytes(names_ + destination.size(), method.data(), method.size())
               ? pipeline_
               : nullptr;
  }

  void Remember(std::string_view destination, std::string_view method, const Pipeline* pipeline) noexcept {
    if (destination.size() + method.size() > kNameBytes) {
      pipeline_ = nullptr;  // the previous entry may belong to a configuration now gone
      return;
    }
    // An empty view may hold a null pointer, which memcpy must never get.
    if (!destination.empty()) std::memcpy(names_, destination.data(), destination.size());
    if (!method.empty()) std::memcpy(names_ + destination.size(), method.data(), method.size());
    destination_size_ = static_cast<std::uint32_t>(destination.size());
    method_size_ = static_cast<std::uint32_t>(method.size());
    pipeline_ = pipeline;
  }

 private:
  const Pipeline* pipeline_ = nullptr;  // null: nothing remembered
  std::uint32_t destination_size_ = 0;
  std::uint32_t method_size_ = 0;
  char names_[kNameBytes];  // the destination, then the method
};

}  // namespace stormguard::config::config_internal
