// ExpectRangeChecked: one options field that holds a share, rate or ratio
// refuses NaN, both infinities and values just outside its range, naming the
// field and the range, and accepts its closed bounds (and -0.0 for a closed 0).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "stormguard/core/validation.h"

namespace stormguard::testkit {

// The errors of `options` with `field` set to `value` that name the field.
template <class Options>
std::vector<std::string> FieldErrors(Options options, double Options::*field, const std::string& name, double value) {
  options.*field = value;
  std::vector<std::string> mine;
  for (const std::string& e : options.Validate()) {
    if (e.rfind(name + ":", 0) == 0) mine.push_back(e);
  }
  return mine;
}

template <class Options>
void ExpectRangeChecked(const Options& options, double Options::*field, const std::string& name, const Range& range) {
  const std::string reason = name + ": must be in " + range.ToString() + ", got ";
  const double inf = std::numeric_limits<double>::infinity();
  const double above = range.hi + 1e-7 * std::max(1.0, std::abs(range.hi));  // 1.0000001 for 1
  const double below = range.lo - 1e-9 * std::max(1.0, std::abs(range.lo));  // -1e-9 for 0
  std::vector<double> refused = {std::nan(""), inf, -inf, above, below};
  if (range.lo_open) refused.push_back(range.lo);
  if (range.hi_open) refused.push_back(range.hi);
  for (double x : refused) {
    const auto errors = FieldErrors(options, field, name, x);
    ASSERT_EQ(errors.size(), 1u) << name << " = " << x << " was accepted";
    EXPECT_EQ(errors[0].rfind(reason, 0), 0u) << errors[0];
  }
  std::vector<double> accepted = {(range.lo + range.hi) / 2};
  if (!range.lo_open) accepted.push_back(range.lo);
  if (!range.hi_open) accepted.push_back(range.hi);
  if (!range.lo_open && range.lo == 0.0) accepted.push_back(-0.0);
  for (double x : accepted) {
    EXPECT_TRUE(FieldErrors(options, field, name, x).empty()) << name << " = " << x << " was refused";
  }
}

}  // namespace stormguard::testkit
