#include "stormguard/sim/svg.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

Plot TwoLines() {
  return Plot{.title = "retries <per> 100ms & more",
              .x_label = "seconds",
              .y_label = "retries",
              .lines = {{.name = "fixed", .x = {0, 1, 2}, .y = {0, 1000, 0}},
                        {.name = "full-jitter", .x = {0, 1, 2}, .y = {100, 164, 80}}}};
}

TEST(SvgTest, DrawsOnePolylineAndOneLegendEntryPerLine) {
  const std::string svg = RenderSvg(TwoLines());
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 2);
  EXPECT_NE(svg.find(">fixed</text>"), std::string::npos);
  EXPECT_NE(svg.find(">full-jitter</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1000</text>"), std::string::npos);  // the y axis ends at a round 1000
}

TEST(SvgTest, EscapesTextAndIsDeterministic) {
  const std::string svg = RenderSvg(TwoLines());
  EXPECT_NE(svg.find("retries &lt;per&gt; 100ms &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find("<per>"), std::string::npos);
  EXPECT_EQ(svg, RenderSvg(TwoLines()));
}

TEST(SvgTest, AnEmptyPlotIsStillAValidDocument) {
  const std::string svg = RenderSvg({});
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 0);
}

TEST(SvgTest, NiceCeilingRoundsUpToARoundNumber) {
  EXPECT_EQ(NiceCeiling(164), 200);
  EXPECT_EQ(NiceCeiling(1000), 1000);
  EXPECT_EQ(NiceCeiling(1001), 1500);
  EXPECT_EQ(NiceCeiling(3.2), 4);
  EXPECT_EQ(NiceCeiling(55.5), 60);
  EXPECT_DOUBLE_EQ(NiceCeiling(0.37), 0.4);
  EXPECT_EQ(NiceCeiling(0), 1);
  EXPECT_EQ(NiceCeiling(-4), 1);
}

}  // namespace
}  // namespace stormguard::sim
