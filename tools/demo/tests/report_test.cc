#include "demo/report.h"

#include <gtest/gtest.h>

#include <limits>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

DemoReport Sample() {
  DemoReport r{.rate = 50, .phases = {{"healthy", 2s, false}, {"down", 2s, true}, {"recovered", 2s, false}},
               .wall = 9s};
  for (Mode mode : {Mode::kNaive, Mode::kStormguard}) {
    ModeReport m{.mode = mode, .phases = std::vector<PhaseSummary>(3)};
    m.phases[1] = {.offered = 100, .reached_bottom = mode == Mode::kNaive ? 2700u : 105u,
                   .amplification = mode == Mode::kNaive ? 27.0 : 1.05};
    if (mode == Mode::kStormguard) m.recovery = 250ms;
    m.timeline = {{0.125, 50}, {2.125, mode == Mode::kNaive ? 1350.0 : 55.0}};
    r.modes.push_back(m);
  }
  return r;
}

TEST(DemoReportTest, JsonHasEveryModeAndPhaseWithTheDocumentedKeys) {
  const nlohmann::json j = ReportJson(Sample());
  ASSERT_EQ(j.size(), 2u);
  for (const char* mode : {"naive", "stormguard"}) {
    ASSERT_EQ(j.at(mode).size(), 3u);
    for (const char* phase : {"healthy", "down", "recovered"}) {
      for (const char* key : {"offered", "reached_bottom", "amplification", "success_rate", "p50_ms", "p99_ms",
                              "orphan_ratio", "duplicate_effects"}) {
        EXPECT_TRUE(j.at(mode).at(phase).contains(key)) << mode << " " << phase << " " << key;
      }
    }
  }
  EXPECT_DOUBLE_EQ(j["naive"]["down"]["amplification"].get<double>(), 27.0);
  EXPECT_TRUE(j["naive"]["recovered"]["recovery_ms"].is_null());
  EXPECT_DOUBLE_EQ(j["stormguard"]["recovered"]["recovery_ms"].get<double>(), 250.0);
  EXPECT_FALSE(j["stormguard"]["healthy"].contains("recovery_ms"));
}

TEST(DemoReportTest, TablesShowEveryPhaseWithARowPerMode) {
  const std::string t = FormatTables(Sample());
  for (const char* text : {"healthy (2.0 s)", "down (2.0 s)", "recovered (2.0 s)", "27.00x", "1.05x",
                           "naive never", "stormguard 0.25 s"}) {
    EXPECT_NE(t.find(text), std::string::npos) << text << "\n" << t;
  }
}

TEST(DemoReportTest, SvgHasAShadedBandPerPhaseAndALinePerMode) {
  const std::string svg = TimelineSvg(Sample());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  std::size_t lines = 0, bands = 0;
  for (std::size_t at = 0; (at = svg.find("<polyline", at)) != std::string::npos; ++at) ++lines;
  for (std::size_t at = 0; (at = svg.find("<rect x=", at)) != std::string::npos; ++at) ++bands;
  EXPECT_EQ(lines, 2u);
  EXPECT_EQ(bands, 3u);
  EXPECT_NE(svg.find("down (every attempt fails)"), std::string::npos);
}

TEST(DemoReportTest, SvgEscapesNamesAndLeavesOutRatesThatAreNotNumbers) {
  DemoReport r = Sample();
  r.phases[1].name = "<down> & \"out\"";
  r.modes[0].timeline.push_back({3.0, std::numeric_limits<double>::quiet_NaN()});
  r.modes[1].timeline.push_back({3.5, std::numeric_limits<double>::infinity()});
  const std::string svg = TimelineSvg(r);
  EXPECT_NE(svg.find("&lt;down&gt; &amp; &quot;out&quot; (every attempt fails)"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<down>"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("inf"), std::string::npos) << svg;
}

}  // namespace
}  // namespace stormguard::demo
