// tools/render/text_table.h: aligned text tables for the CLI's reports.
//
//   TextTable t({"strategy", "peak"});
//   t.Row({"fixed", "1000"});
//   std::string s = t.Render();   // first column left-aligned, others right
//
// Columns are two spaces apart and as wide as their widest cell; lines carry
// no trailing spaces. Thread safety: plain values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stormguard::render {

class TextTable {
 public:
  enum class First { kLeft, kRight };  // how the first column aligns

  explicit TextTable(std::vector<std::string> header, First first = First::kLeft)
      : header_(std::move(header)), first_(first) {}
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  First first_;
  std::vector<std::vector<std::string>> rows_;
};

// "key    value" lines, the values in one column, each line after `indent`.
// A key longer than kMaxKeyColumn does not widen the column (its value
// follows two spaces after it): one long name in a file must not pad every
// other line.
inline constexpr std::size_t kMaxKeyColumn = 80;
std::string KeyValues(const std::vector<std::pair<std::string, std::string>>& rows, std::string_view indent = {});

}  // namespace stormguard::render
