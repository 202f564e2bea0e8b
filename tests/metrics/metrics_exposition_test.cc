// Label values in the scrape, byte by byte, against the text exposition
// format 0.0.4: a label value is UTF-8 in which only backslash, double
// quote and line feed are escaped (\\, \", \n). A name keeps its printable
// ASCII but the backslash; every other byte becomes the literal text \xHH,
// so a line holds only printable ASCII whatever the name, and two names
// never render alike.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

#include "stormguard/metrics/metrics_listener.h"

namespace stormguard {
namespace {

// The name="..." value of the first sample of `metric`, decoded as a
// Prometheus parser does; nullopt when the line breaks the format.
std::optional<std::string> LabelValue(const std::string& scrape, std::string_view metric, std::string* raw) {
  const std::string open = std::string(metric) + "{name=\"";
  const std::size_t at = scrape.find(open);
  if (at == std::string::npos) return std::nullopt;
  std::string value;
  for (std::size_t i = at + open.size(); i < scrape.size(); ++i) {
    const char c = scrape[i];
    if (c == '"') return value;
    if (c == '\n') return std::nullopt;  // a raw line feed ends the sample early
    raw->push_back(c);
    if (c != '\\') {
      value += c;
      continue;
    }
    if (++i == scrape.size()) return std::nullopt;
    raw->push_back(scrape[i]);
    switch (scrape[i]) {
      case '\\': value += '\\'; break;
      case '"': value += '"'; break;
      case 'n': value += '\n'; break;
      default: return std::nullopt;  // no other escape exists
    }
  }
  return std::nullopt;
}

std::string Expected(unsigned char b) {
  if (b == '\n' || (b >= 0x20 && b < 0x7f && b != '\\')) return std::string(1, static_cast<char>(b));
  char hex[8];
  std::snprintf(hex, sizeof hex, "\\x%02x", b);
  return hex;
}

// Every byte class: control bytes 0x00-0x1f, printable ASCII with the quote
// and the backslash, DEL (0x7f), and 0x80-0xff (alone, invalid UTF-8).
TEST(MetricsExpositionTest, EveryByteOfANameIsEscapedAsTheFormatRequires) {
  for (int b = 0; b < 256; ++b) {
    SCOPED_TRACE("byte " + std::to_string(b));
    const std::string name = std::string("a") + static_cast<char>(b) + "z";
    MetricsListener m;
    m.For(name).OnEvent(Event{.kind = EventKind::kFallback, .policy = PolicyId::kFallback});
    std::string raw;
    const std::optional<std::string> value = LabelValue(m.Scrape(), "stormguard_fallbacks_total", &raw);
    ASSERT_TRUE(value.has_value()) << m.Scrape();
    EXPECT_EQ(*value, "a" + Expected(static_cast<unsigned char>(b)) + "z");
    for (char c : raw) {
      const auto u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u < 0x7f) << "raw byte " << int{u} << " in the label value: " << raw;
    }
  }
}

// A name of valid multi-byte UTF-8 is escaped byte by byte too: the scrape
// stays ASCII, whatever the name's encoding.
TEST(MetricsExpositionTest, NonAsciiBytesBecomeLiteralHexEscapes) {
  MetricsListener m;
  m.For("caf\xc3\xa9\xff").OnEvent(Event{.kind = EventKind::kFallback, .policy = PolicyId::kFallback});
  std::string raw;
  EXPECT_EQ(LabelValue(m.Scrape(), "stormguard_fallbacks_total", &raw), "caf\\xc3\\xa9\\xff");
  EXPECT_EQ(raw, "caf\\\\xc3\\\\xa9\\\\xff");
}

// The byte 0x01 and the four characters \x01 were once both rendered as
// \\x01: two instances, one series. The backslash is escaped as a byte too.
TEST(MetricsExpositionTest, NoTwoNamesRenderAlike) {
  MetricsListener m;
  m.For("a\x01").OnEvent(Event{.kind = EventKind::kFallback, .policy = PolicyId::kFallback});
  m.For("a\\x01").OnEvent(Event{.kind = EventKind::kFallback, .policy = PolicyId::kFallback});
  const std::string scrape = m.Scrape();
  EXPECT_NE(scrape.find("{name=\"a\\\\x01\"} 1\n"), std::string::npos) << scrape;
  EXPECT_NE(scrape.find("{name=\"a\\\\x5cx01\"} 1\n"), std::string::npos) << scrape;
}

}  // namespace
}  // namespace stormguard
