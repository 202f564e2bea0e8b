#include "limits_util.h"

#include <cstdio>

namespace stormguard::guard_internal {
namespace {

std::string WithUnit(double value, const char* unit) {
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.1f", value);
  std::string out(buf);
  if (out.size() > 2 && out.compare(out.size() - 2, 2, ".0") == 0) out.resize(out.size() - 2);
  return out + unit;
}

}  // namespace

std::string FormatDuration(Duration d) {
  const auto ns = static_cast<double>(d.count());
  if (d == Duration::zero()) return "0";
  if (d < std::chrono::microseconds(1)) return std::to_string(d.count()) + "ns";
  if (d < std::chrono::milliseconds(1)) return WithUnit(ns / 1e3, "us");
  if (d < std::chrono::seconds(1)) return WithUnit(ns / 1e6, "ms");
  return WithUnit(ns / 1e9, "s");
}

std::string FormatNumber(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", value);
  return buf;
}

}  // namespace stormguard::guard_internal
