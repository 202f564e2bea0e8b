#include "render/text_table.h"

#include <algorithm>

namespace stormguard::render {

std::string TextTable::Render() const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      const std::string pad(width[i] - cell.size(), ' ');
      if (i == 0) {
        out += first_ == First::kLeft ? cell + pad : pad + cell;
      } else {
        out += "  " + pad + cell;
      }
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string KeyValues(const std::vector<std::pair<std::string, std::string>>& rows, std::string_view indent) {
  std::size_t width = 0;
  for (const auto& [key, value] : rows) {
    if (key.size() <= kMaxKeyColumn) width = std::max(width, key.size());
  }
  std::string out;
  for (const auto& [key, value] : rows) {
    out += indent;
    out += key;
    out.append(std::max(width, key.size()) - key.size() + 2, ' ');
    out += value;
    out += '\n';
  }
  return out;
}

}  // namespace stormguard::render
