#include "render/numbers.h"

#include <cmath>
#include <cstdio>

namespace stormguard::render {

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

double Round(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

double Seconds(Duration d, int decimals) { return Round(static_cast<double>(d.count()) / 1e9, decimals); }
double Millis(Duration d, int decimals) { return Round(static_cast<double>(d.count()) / 1e6, decimals); }

}  // namespace stormguard::render
