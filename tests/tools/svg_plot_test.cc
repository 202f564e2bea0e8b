#include "render/svg_plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace stormguard::render {
namespace {

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

bool EntityAt(const std::string& xml, std::size_t at) {
  for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"}) {
    if (xml.compare(at, std::strlen(e), e) == 0) return true;
  }
  return false;
}

// Enough of XML's well-formedness for these documents: tags nest, attribute
// values are quoted and hold no '<', text holds no '<' or '>', and every '&'
// starts one of the five entities.
::testing::AssertionResult WellFormed(const std::string& xml) {
  std::vector<std::string> open;
  std::size_t i = 0;
  auto fail = [&](const char* what) { return ::testing::AssertionFailure() << what << " at " << i << ": " << xml; };
  while (i < xml.size()) {
    if (xml[i] == '&' && !EntityAt(xml, i)) return fail("bare &");
    if (xml[i] == '>') return fail("bare >");
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const bool closing = xml[++i] == '/';
    const std::size_t name_at = i += closing;
    while (i < xml.size() && std::isalpha(static_cast<unsigned char>(xml[i]))) ++i;
    const std::string name = xml.substr(name_at, i - name_at);
    if (name.empty()) return fail("no tag name");
    while (i < xml.size() && xml[i] == ' ') {
      while (++i < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[i])) || xml[i] == '-')) {
      }
      if (xml.compare(i, 2, "=\"") != 0) return fail("unquoted attribute");
      for (i += 2; i < xml.size() && xml[i] != '"'; ++i) {
        if (xml[i] == '<' || (xml[i] == '&' && !EntityAt(xml, i))) return fail("bad attribute value");
      }
      ++i;
    }
    if (xml.compare(i, 2, "/>") == 0) {
      i += 2;
    } else if (xml.compare(i, 1, ">") == 0) {
      ++i;
      if (!closing) open.push_back(name);
      if (closing && (open.empty() || open.back() != name)) return fail("unbalanced close");
      if (closing) open.pop_back();
    } else {
      return fail("unterminated tag");
    }
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  return ::testing::AssertionSuccess();
}

Plot TwoLines() {
  return Plot{.title = "retries <per> 100ms & more",
              .x_label = "seconds",
              .y_label = "retries",
              .lines = {{.name = "fixed", .x = {0, 1, 2}, .y = {0, 1000, 0}},
                        {.name = "full-jitter", .x = {0, 1, 2}, .y = {100, 164, 80}}}};
}

TEST(SvgPlotTest, DrawsOnePolylineAndOneLegendEntryPerLine) {
  const std::string svg = RenderSvg(TwoLines());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_EQ(Count(svg, "<polyline"), 2);
  EXPECT_NE(svg.find(">fixed</text>"), std::string::npos);
  EXPECT_NE(svg.find(">full-jitter</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1000</text>"), std::string::npos);  // the y axis ends at a round 1000
  EXPECT_EQ(svg, RenderSvg(TwoLines()));                   // deterministic
}

TEST(SvgPlotTest, EscapesEveryTextAndAttribute) {
  const std::string evil = "<script>&\"'";
  const Plot plot{.title = evil,
                  .x_label = evil,
                  .y_label = evil,
                  .lines = {{.name = evil, .x = {0, 1}, .y = {0, 1}, .color = evil}},
                  .bands = {{.from = 0, .to = 1, .label = evil, .fill = evil}}};
  const std::string svg = RenderSvg(plot);
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  // title, both axis labels, the legend, the band's label, the line's and
  // the legend's stroke and the band's fill
  EXPECT_EQ(Count(svg, "&lt;script&gt;&amp;&quot;&#39;"), 8) << svg;
}

TEST(SvgPlotTest, DropsControlCharactersXmlCannotHold) {
  const std::string svg = RenderSvg({.title = std::string("a\x01\x1b") + "b\tc"});
  EXPECT_NE(svg.find(">ab\tc</text>"), std::string::npos) << svg;
}

TEST(SvgPlotTest, NonFiniteAndHugeValuesLeaveEveryNumberFinite) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Plot plot{.title = "t",
                  .x_label = "x",
                  .y_label = "y",
                  .lines = {{.name = "odd",
                             .x = {0, kNan, 1, kInf, 2, -kInf, 3, 1e308},
                             .y = {1, 2, kNan, 4, kInf, 6, -1e308, 1e308}},
                            {.name = "none", .x = {kNan}, .y = {kNan}}},
                  .bands = {{.from = kNan, .to = 1, .label = "b"},
                            {.from = -kInf, .to = kInf, .label = "c"},
                            {.from = 1.7e308, .to = 1.79e308, .label = "d"}}};
  const std::string svg = RenderSvg(plot);
  EXPECT_TRUE(WellFormed(svg));
  std::string lower = svg;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  EXPECT_EQ(lower.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(lower.find("inf"), std::string::npos) << svg;
  // Every coordinate lies on the canvas; the finite points (0,1), (3,-1e308)
  // and (1e308,1e308) are drawn, the rest left out.
  int points = 0;
  for (std::size_t at = svg.find(" points=\""); at != std::string::npos; at = svg.find(" points=\"", at + 1)) {
    const std::string list = svg.substr(at + 9, svg.find('"', at + 9) - at - 9);
    for (const char* p = list.c_str(); *p != '\0';) {
      char* end = nullptr;
      const double v = std::strtod(p, &end);
      ASSERT_NE(end, p) << list;
      EXPECT_TRUE(v >= 0 && v <= 800) << v;
      ++points;
      p = *end != '\0' ? end + 1 : end;
    }
  }
  EXPECT_EQ(points, 3 * 2);
  EXPECT_EQ(Count(svg, "<polyline"), 2);
}

TEST(SvgPlotTest, BandsShadeTheirStretchBehindTheLines) {
  Plot plot = TwoLines();
  plot.bands = {{.from = 0, .to = 1, .label = "healthy", .fill = "#eaf5ea"},
                {.from = 1, .to = 4, .label = "down", .fill = "#fbe3e1"}};
  const std::string svg = RenderSvg(plot);
  EXPECT_EQ(Count(svg, "<rect x="), 2);
  EXPECT_LT(svg.find("<rect x="), svg.find("<polyline"));
  EXPECT_NE(svg.find(">down</text>"), std::string::npos);
  EXPECT_NE(svg.find(">4</text>"), std::string::npos);  // the x axis reaches the last band's end
}

TEST(SvgPlotTest, ALineMayNameItsColour) {
  Plot plot = TwoLines();
  plot.lines[1].color = "#123456";
  const std::string svg = RenderSvg(plot);
  EXPECT_EQ(Count(svg, "stroke=\"#123456\""), 2);  // the line and its legend entry
  EXPECT_EQ(Count(svg, "stroke=\"#1f77b4\""), 2);  // the other keeps the palette's first
}

TEST(SvgPlotTest, AnEmptyPlotIsStillAValidDocument) {
  const std::string svg = RenderSvg({});
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_EQ(Count(svg, "<polyline"), 0);
}

TEST(SvgPlotTest, NiceCeilingRoundsUpToARoundNumber) {
  EXPECT_EQ(NiceCeiling(164), 200);
  EXPECT_EQ(NiceCeiling(1000), 1000);
  EXPECT_EQ(NiceCeiling(1001), 1500);
  EXPECT_EQ(NiceCeiling(3.2), 4);
  EXPECT_EQ(NiceCeiling(55.5), 60);
  EXPECT_DOUBLE_EQ(NiceCeiling(0.37), 0.4);
  EXPECT_EQ(NiceCeiling(0), 1);
  EXPECT_EQ(NiceCeiling(-4), 1);
  EXPECT_EQ(NiceCeiling(std::numeric_limits<double>::quiet_NaN()), 1);
  EXPECT_EQ(NiceCeiling(std::numeric_limits<double>::infinity()), 1);
  EXPECT_EQ(NiceCeiling(1.7e308), 1.7e308);  // 2e308 would overflow
}

}  // namespace
}  // namespace stormguard::render
