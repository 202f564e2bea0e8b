// src/config/name_table.h: an immutable table from names to values, built
// once per configuration and read on every call.
//
// Lookups take a string_view and never allocate. Open addressing over a
// power-of-two index at most half full, with the full hash kept per entry,
// so a probe compares strings only when 64 bits of hash agree: a hit costs
// one hash of the name and one string compare.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stormguard::config::config_internal {

inline std::uint64_t Load8(const char* p) noexcept {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline std::uint64_t Load4(const char* p) noexcept {
  std::uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// Eight bytes at a time, each mixed in by a multiply; the tail is read as
// whole words that may overlap bytes already mixed (a byte-wise tail would
// stall on store forwarding and double the cost of a short name). Not for
// hostile keys: names come from the operator's configuration.
inline std::uint64_t HashName(std::string_view s) noexcept {
  constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ull;
  std::uint64_t h = s.size() * kMul;
  auto mix = [&h](std::uint64_t w) {
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  };
  const char* p = s.data();
  std::size_t n = s.size();
  if (n > 8) {
    for (; n > 8; p += 8, n -= 8) mix(Load8(p));
    mix(Load8(p + n - 8));
  } else if (n >= 4) {
    mix(Load4(p) << 32 | Load4(p + n - 4));
  } else if (n > 0) {
    const auto byte = [p](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])); };
    mix(byte(0) << 16 | byte(n / 2) << 8 | byte(n - 1));
  }
  h ^= h >> 32;
  return h * 0xD6E8FEB86659FD93ull;
}

// Whether the n bytes at p and q are equal, a word at a time like HashName:
// for short names this costs a few loads where memcmp costs a call into libc.
inline bool SameBytes(const char* p, const char* q, std::size_t n) noexcept {
  if (n > 8) {
    for (std::size_t i = 0; i + 8 < n; i += 8) {
      if (Load8(p + i) != Load8(q + i)) return false;
    }
    return Load8(p + n - 8) == Load8(q + n - 8);
  }
  if (n >= 4) return Load4(p) == Load4(q) && Load4(p + n - 4) == Load4(q + n - 4);
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] != q[i]) return false;
  }
  return true;
}

inline bool SameName(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
}

template <class V>
class NameTable {
 public:
  NameTable() = default;
  // Later duplicates of a name are ignored (config maps have none).
  explicit NameTable(std::vector<std::pair<std::string, V>> entries) {
    std::size_t buckets = 2;
    while (buckets < 2 * entries.size()) buckets *= 2;
    index_.assign(buckets, 0);
    mask_ = buckets - 1;
    entries_.reserve(entries.size());
    for (auto& [name, value] : entries) {
      const std::uint64_t h = HashName(name);
      if (Lookup(name, h) != nullptr) continue;
      entries_.push_back({std::move(name), h, std::move(value)});
      std::size_t i = h & mask_;
      while (index_[i] != 0) i = (i + 1) & mask_;
      index_[i] = static_cast<std::uint32_t>(entries_.size());
    }
  }

  const V* Find(std::string_view name) const noexcept {
    return entries_.empty() ? nullptr : Lookup(name, HashName(name));
  }
  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::string name;
    std::uint64_t hash;
    V value;
  };

  const V* Lookup(std::string_view name, std::uint64_t h) const noexcept {
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const std::uint32_t e = index_[i];
      if (e == 0) return nullptr;
      const Entry& entry = entries_[e - 1];
      if (entry.hash == h && SameName(entry.name, name)) return &entry.value;
    }
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> index_;  // entry number + 1; 0: empty
  std::size_t mask_ = 0;
};

}  // namespace stormguard::config::config_internal
