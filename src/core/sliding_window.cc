#include "stormguard/core/sliding_window.h"

#include <algorithm>
#include <bit>
#include <ostream>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// The window's state word: the newest epoch (bucket number) seen, and a
// 2-bit generation that changes whenever time jumps a whole ring ahead.
constexpr std::uint64_t kGenMask = 3;
constexpr std::uint64_t LastOf(std::uint64_t state) { return state >> 2; }
constexpr std::uint64_t GenOf(std::uint64_t state) { return state & kGenMask; }
constexpr std::uint64_t State(std::uint64_t last, std::uint64_t gen) { return (last << 2) | (gen & kGenMask); }

// A bucket word: tag (12 bits) | first (26 bits) | second (26 bits). The tag
// is the bucket's epoch modulo 1024 and the generation. Live tags are never
// more than ring + buckets <= 1024 epochs apart, so within one generation
// they never collide; a jump of a whole ring (the only way to leave words
// that old behind) starts a new generation, so older words never match.
constexpr int kCountBits = 26;
constexpr std::uint64_t kCountMask = (std::uint64_t{1} << kCountBits) - 1;
constexpr std::uint64_t kEpochTagMask = 1023;

constexpr std::uint64_t Tag(std::uint64_t epoch, std::uint64_t gen) {
  return ((epoch & kEpochTagMask) << 2) | gen;
}
constexpr std::uint64_t TagOf(std::uint64_t w) { return w >> (2 * kCountBits); }
constexpr std::int64_t FirstOf(std::uint64_t w) {
  return static_cast<std::int64_t>((w >> kCountBits) & kCountMask);
}
constexpr std::int64_t SecondOf(std::uint64_t w) { return static_cast<std::int64_t>(w & kCountMask); }
constexpr std::uint64_t Pack(std::uint64_t tag, std::int64_t first, std::int64_t second) {
  return (tag << (2 * kCountBits)) | (static_cast<std::uint64_t>(first) << kCountBits) |
         static_cast<std::uint64_t>(second);
}

static_assert(2 * SlidingWindow::kMaxBuckets <= kEpochTagMask + 1, "tags must outlive ring + window");
static_assert(Tag(kEpochTagMask, kGenMask) < (std::uint64_t{1} << (64 - 2 * kCountBits)));
static_assert(SlidingWindow::kMaxCount == static_cast<std::int64_t>(kCountMask));

}  // namespace

std::ostream& operator<<(std::ostream& os, const WindowCounts& c) {
  return os << "{" << c.first << ", " << c.second << "}";
}

std::vector<std::string> SlidingWindowOptions::Validate() const {
  Validator v;
  v.Check(window > Duration::zero(), "window", "must be positive");
  v.Check(buckets >= 1 && buckets <= SlidingWindow::kMaxBuckets, "buckets", "must be in [1, 512]");
  v.Check(buckets < 1 || window.count() >= buckets, "window", "must be at least 1ns per bucket");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be in [0, 64]");
  return std::move(v).errors();
}

Result<SlidingWindow> SlidingWindow::Create(const SlidingWindowOptions& options) {
  Status s = ValidationStatus("sliding window options", options.Validate());
  if (!s.ok()) return s;
  return SlidingWindow(options);
}

SlidingWindow::SlidingWindow(const SlidingWindowOptions& o)
    : width_(o.window.count() / o.buckets),
      buckets_(static_cast<std::uint64_t>(o.buckets)),
      ring_mask_(std::bit_ceil(static_cast<std::uint64_t>(o.buckets)) - 1),
      stripe_mask_(static_cast<std::size_t>(ResolveStripes(o.stripes)) - 1),
      stripe_words_((ring_mask_ + kWordsPerLine) / kWordsPerLine * kWordsPerLine),
      lines_(new Line[1 + (stripe_mask_ + 1) * stripe_words_ / kWordsPerLine]()) {}

std::uint64_t SlidingWindow::EpochOf(TimePoint now) const noexcept {
  const std::int64_t ns = now.time_since_epoch().count();
  return ns <= 0 ? 0 : static_cast<std::uint64_t>(ns / width_);
}

std::atomic<std::uint64_t>& SlidingWindow::word(std::size_t stripe, std::uint64_t epoch) const noexcept {
  const std::size_t i = stripe * stripe_words_ + static_cast<std::size_t>(epoch & ring_mask_);
  return lines_[1 + i / kWordsPerLine].word[i % kWordsPerLine];
}

bool SlidingWindow::Add(TimePoint now, int first, int second) noexcept {
  const std::uint64_t epoch = EpochOf(now);
  std::uint64_t state = state_word().load(std::memory_order_acquire);
  if (epoch > LastOf(state)) state = Advance(state, epoch);
  if (LastOf(state) - epoch >= buckets_) return false;  // already outside the window
  std::atomic<std::uint64_t>& w = word(ThreadStripe() & stripe_mask_, epoch);
  const std::uint64_t tag = Tag(epoch, GenOf(state));
  std::uint64_t old = w.load(std::memory_order_relaxed);
  for (;;) {
    // A word tagged with another epoch is stale: this update starts it over.
    const bool same = TagOf(old) == tag;
    const std::int64_t f = (same ? FirstOf(old) : 0) + first;
    const std::int64_t s = (same ? SecondOf(old) : 0) + second;
    if (f < 0 || s < 0 || f > kMaxCount || s > kMaxCount) return false;
    if (w.compare_exchange_weak(old, Pack(tag, f, s), std::memory_order_seq_cst,
                                std::memory_order_relaxed)) {
      return true;
    }
  }
}

// Moves the newest epoch up to `epoch` (unless another thread already moved
// it further) and returns the state the caller must tag its write with.
std::uint64_t SlidingWindow::Advance(std::uint64_t state, std::uint64_t epoch) noexcept {
  while (LastOf(state) < epoch) {
    const std::uint64_t last = LastOf(state);
    const bool whole_ring = epoch - last > ring_mask_;
    const std::uint64_t next = State(epoch, GenOf(state) + (whole_ring ? 1 : 0));
    if (state_word().compare_exchange_weak(state, next, std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
      Clear(last, epoch, GenOf(next));
      return next;
    }
  }
  return state;
}

// Stamps the buckets of epochs (after, through] empty in every stripe, so no
// stripe keeps a bucket from a ring's turn ago, however long it sat idle. A
// word a writer already stamped with the new tag is left alone.
void SlidingWindow::Clear(std::uint64_t after, std::uint64_t through, std::uint64_t gen) noexcept {
  const std::uint64_t begin = through - after > ring_mask_ ? through - ring_mask_ : after + 1;
  for (std::uint64_t e = begin; e <= through; ++e) {
    const std::uint64_t tag = Tag(e, gen);
    for (std::size_t s = 0; s <= stripe_mask_; ++s) {
      std::atomic<std::uint64_t>& w = word(s, e);
      std::uint64_t old = w.load(std::memory_order_relaxed);
      while (TagOf(old) != tag && !w.compare_exchange_weak(old, Pack(tag, 0, 0))) {
      }
    }
  }
}

WindowCounts SlidingWindow::Sum(TimePoint now) const noexcept {
  const std::uint64_t epoch = EpochOf(now);
  const std::uint64_t state = state_word().load(std::memory_order_acquire);
  const std::uint64_t last = LastOf(state);
  const std::uint64_t gen = GenOf(state);
  // Nothing written this recently, or asking about buckets already reused.
  if (epoch >= last + buckets_ || epoch + ring_mask_ < last) return {};
  const std::uint64_t oldest = epoch + 1 >= buckets_ ? epoch + 1 - buckets_ : 0;
  WindowCounts sum;
  for (std::size_t s = 0; s <= stripe_mask_; ++s) {
    for (std::uint64_t e = oldest; e <= epoch; ++e) {
      const std::uint64_t w = word(s, e).load(std::memory_order_seq_cst);
      const std::int64_t live = TagOf(w) == Tag(e, gen) ? -1 : 0;  // all ones or zero
      sum.first += FirstOf(w) & live;
      sum.second += SecondOf(w) & live;
    }
  }
  return sum;
}

}  // namespace stormguard
