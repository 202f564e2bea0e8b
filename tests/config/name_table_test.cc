// The registry's name table: every name found, near misses not, whatever
// the name's length (the hash reads the tail of a name in whole words).
#include <gtest/gtest.h>

#include <string>

#include "../../src/config/name_table.h"

namespace stormguard::config::config_internal {
namespace {

TEST(NameTableTest, FindsEveryNameOfEveryLengthAndNoNearMiss) {
  std::vector<std::pair<std::string, int>> entries;
  for (int n = 0; n <= 40; ++n) entries.emplace_back(std::string(static_cast<std::size_t>(n), 'a'), n);
  for (int n = 1; n <= 40; ++n) {
    std::string s(static_cast<std::size_t>(n), 'a');
    s.back() = 'b';  // differs only in its last byte
    entries.emplace_back(s, 100 + n);
  }
  const NameTable<int> table(entries);
  ASSERT_EQ(table.size(), entries.size());
  for (const auto& [name, value] : entries) {
    const int* found = table.Find(name);
    ASSERT_NE(found, nullptr) << name;
    EXPECT_EQ(*found, value) << name;
  }
  for (int n = 1; n <= 40; ++n) {
    std::string s(static_cast<std::size_t>(n), 'a');
    s.front() = 'c';
    EXPECT_EQ(table.Find(s), nullptr) << s;
    s[static_cast<std::size_t>(n) / 2] = 'd';
    EXPECT_EQ(table.Find(s), nullptr) << s;
  }
  EXPECT_EQ(table.Find(std::string(41, 'a')), nullptr);
}

TEST(NameTableTest, EveryByteOfAShortNameCounts) {
  // Names of 1 to 8 bytes that differ in one position each hash apart.
  for (std::size_t n = 1; n <= 8; ++n) {
    const std::string base(n, 'x');
    for (std::size_t i = 0; i < n; ++i) {
      std::string other = base;
      other[i] = 'y';
      EXPECT_NE(HashName(base), HashName(other)) << n << " " << i;
    }
  }
}

TEST(NameTableTest, SameNameSeesEveryByteOfEveryLength) {
  // Hits are confirmed by SameName after 64 bits of hash agree, so it is
  // tested on its own: a difference anywhere, at any length, is a mismatch.
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string base(n, 'a');
    EXPECT_TRUE(SameName(base, std::string(n, 'a'))) << n;
    EXPECT_FALSE(SameName(base, std::string(n + 1, 'a'))) << n;
    for (std::size_t i = 0; i < n; ++i) {
      std::string other = base;
      other[i] = 'b';
      EXPECT_FALSE(SameName(base, other)) << n << " " << i;
    }
  }
}

TEST(NameTableTest, AnEmptyTableFindsNothing) {
  const NameTable<int> table;
  EXPECT_EQ(table.Find(""), nullptr);
  EXPECT_EQ(table.Find("a"), nullptr);
}

TEST(NameTableTest, TheFirstOfTwoEqualNamesWins) {
  const NameTable<int> table({{"a", 1}, {"a", 2}});
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(*table.Find("a"), 1);
}

}  // namespace
}  // namespace stormguard::config::config_internal
