#include "render/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace stormguard::render {
namespace {

TEST(PrintableTest, PlainTextAndUtf8StayAsTheyAre) {
  EXPECT_EQ(Printable("GET /stock"), "GET /stock");
  EXPECT_EQ(Printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(Printable("a\\x00b"), "a\\x00b");  // a backslash stays: escaping twice changes nothing
  EXPECT_EQ(Printable(""), "");
  EXPECT_TRUE(IsPrintable("caf\xc3\xa9 /stock"));
  EXPECT_FALSE(IsPrintable("a\x1b"));
  EXPECT_FALSE(IsPrintable("\xc3"));
}

TEST(PrintableTest, ControlCharactersBecomeHexEscapes) {
  EXPECT_EQ(Printable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(Printable("line\nforged\r\t"), "line\\x0aforged\\x0d\\x09");
  EXPECT_EQ(Printable("\x1b[2J\x7f"), "\\x1b[2J\\x7f");
  EXPECT_EQ(Printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m");  // U+009B, the one-character CSI
  EXPECT_EQ(Printable(Printable("\x1b")), "\\x1b");
}

TEST(PrintableTest, BytesThatAreNotUtf8BecomeHexEscapes) {
  EXPECT_EQ(Printable("\x9b"
                      "31m"),
            "\\x9b31m");                                             // a lone continuation byte
  EXPECT_EQ(Printable("\xc3"), "\\xc3");                             // cut short
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(Printable("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");           // overlong, three bytes
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(Printable("\xff"), "\\xff");
}

}  // namespace
}  // namespace stormguard::render
