#include "demo/measure.h"

#include <charconv>

namespace stormguard::demo {
namespace {

constexpr const char* kOp = "x-demo-op";
constexpr const char* kPhase = "x-demo-phase";
constexpr const char* kGiveup = "x-demo-giveup-ms";

}  // namespace

Measure ReadMeasure(const httplib::Headers& headers) {
  Measure m;
  const auto get = [&headers](const char* name) -> std::string {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  };
  m.op = get(kOp);
  m.phase = get(kPhase);
  const std::string giveup = get(kGiveup);
  std::int64_t v = 0;
  const auto [end, err] = std::from_chars(giveup.data(), giveup.data() + giveup.size(), v);
  if (err == std::errc() && end == giveup.data() + giveup.size() && v > 0) m.giveup_ms = v;
  return m;
}

void StampMeasure(const Measure& m, std::int64_t attempt_giveup_ms, http::HeaderList& out) {
  out.emplace_back(kOp, m.op);
  out.emplace_back(kPhase, m.phase);
  const std::int64_t giveup = EarliestGiveup(m.giveup_ms, attempt_giveup_ms);
  if (giveup > 0) out.emplace_back(kGiveup, std::to_string(giveup));
}

std::int64_t EarliestGiveup(std::int64_t a, std::int64_t b) noexcept {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return a < b ? a : b;
}

std::int64_t WallMsOf(Deadline deadline, TimePoint now, std::int64_t unix_now_ms) noexcept {
  if (deadline.is_infinite()) return 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.Remaining(now));
  return unix_now_ms + left.count();
}

std::string AttemptsPath(int attempts, std::string_view below) {
  std::string path = std::to_string(attempts);
  if (!below.empty() && below.size() <= kMaxAttemptsPath) (path += ',') += below;
  return path;
}

}  // namespace stormguard::demo
