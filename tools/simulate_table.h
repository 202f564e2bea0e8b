// tools/simulate_table.h: aligned text tables and number formatting for
// `stormguard simulate`.
//
//   TextTable t({"strategy", "peak"});
//   t.Row({"fixed", "1000"});
//   std::string s = t.Render();   // first column left-aligned, others right
//
// Thread safety: plain values.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "stormguard/core/time.h"

namespace stormguard::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// "key    value" lines, the values in one column.
std::string KeyValues(const std::vector<std::pair<std::string, std::string>>& rows);

// `v` with exactly `decimals` digits after the point.
std::string Fixed(double v, int decimals);
// Seconds / milliseconds as doubles, rounded to `decimals` (for JSON).
double Seconds(Duration d, int decimals = 3);
double Millis(Duration d, int decimals = 3);
double Round(double v, int decimals);

}  // namespace stormguard::cli
