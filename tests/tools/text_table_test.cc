#include "render/text_table.h"

#include <gtest/gtest.h>

namespace stormguard::render {
namespace {

TEST(TextTableTest, FirstColumnLeftOthersRightTwoSpacesApart) {
  TextTable t({"strategy", "peak"});
  t.Row({"fixed", "1000"});
  t.Row({"full-jitter", "7"});
  EXPECT_EQ(t.Render(),
            "strategy     peak\n"
            "fixed        1000\n"
            "full-jitter     7\n");
}

TEST(TextTableTest, FirstColumnMayAlignRight) {
  TextTable t({"retry", "wait (ms)"}, TextTable::First::kRight);
  t.Row({"1", "100"});
  t.Row({"total", "1500"});
  EXPECT_EQ(t.Render(),
            "retry  wait (ms)\n"
            "    1        100\n"
            "total       1500\n");
}

TEST(TextTableTest, MissingCellsAreBlankAndLinesHaveNoTrailingSpaces) {
  TextTable t({"layer", "retries"});
  t.Row({"bottom"});
  t.Row({"a", "3", "ignored: no header"});
  EXPECT_EQ(t.Render(),
            "layer   retries\n"
            "bottom\n"
            "a             3\n");
}

TEST(TextTableTest, KeyValuesLineUpTheValues) {
  EXPECT_EQ(KeyValues({{"calls", "4"}, {"tokens left", "0.5"}}),
            "calls        4\n"
            "tokens left  0.5\n");
}

// One huge key (a hostile method name) would otherwise pad every line to its width.
TEST(TextTableTest, AKeyPastTheColumnLimitWidensNothing) {
  const std::string huge(kMaxKeyColumn + 1, 'k');
  EXPECT_EQ(KeyValues({{"calls", "4"}, {huge, "1"}, {"tokens left", "0.5"}}),
            "calls        4\n" + huge + "  1\ntokens left  0.5\n");
}

}  // namespace
}  // namespace stormguard::render
