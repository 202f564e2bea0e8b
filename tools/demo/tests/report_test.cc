#include "demo/report.h"

#include <gtest/gtest.h>

#include <limits>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

DemoReport Sample() {
  DemoReport r{
      .rate = 50, .phases = {{"healthy", 2s, false}, {"down", 2s, true}, {"recovered", 2s, false}}, .wall = 9s};
  for (Mode mode : {Mode::kNaive, Mode::kStormguard}) {
    ModeReport m{.mode = mode, .phases = std::vector<PhaseSummary>(3)};
    m.phases[1] = {.offered = 100,
                   .reached_bottom = mode == Mode::kNaive ? 2700u : 105u,
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
                              "p999_ms", "orphan_ratio", "duplicate_effects"}) {
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
  for (const char* text : {"healthy (2.0 s)", "down (2.0 s)", "recovered (2.0 s)", "27.00x", "1.05x", "naive never",
                           "stormguard 0.25 s"}) {
    EXPECT_NE(t.find(text), std::string::npos) << text << "\n" << t;
  }
}

TEST(DemoReportTest, SoakTableHasItsTailAndNoRecoveryLine) {
  DemoReport r{.rate = 200, .phases = DemoOptions{.soak = 120s}.Phases(), .wall = 250s};
  for (Mode mode : {Mode::kNaive, Mode::kStormguard}) {
    r.modes.push_back({.mode = mode,
                       .phases = {{.offered = 24000,
                                   .p50_ms = 1,
                                   .p99_ms = mode == Mode::kNaive ? 1104.0 : 12.0,
                                   .p999_ms = mode == Mode::kNaive ? 2203.0 : 255.0}}});
  }
  const std::string t = FormatTables(r);
  for (const char* text : {"soak (120.0 s): C fails 1% at once", "p99.9 ms", "1104", "2203", "255"}) {
    EXPECT_NE(t.find(text), std::string::npos) << text << "\n" << t;
  }
  EXPECT_EQ(t.find("back to >= 99%"), std::string::npos) << t;  // C was never down
  const nlohmann::json j = ReportJson(r);
  EXPECT_DOUBLE_EQ(j.at("stormguard").at("soak").at("p999_ms").get<double>(), 255.0);
  EXPECT_FALSE(j.at("stormguard").at("soak").contains("recovery_ms"));
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

// Over gRPC, gRPC's own retries run as a third mode between the two.
DemoReport GrpcSample() {
  DemoReport r = Sample();
  r.transport = Transport::kGrpc;
  ModeReport native{.mode = Mode::kGrpcNative, .phases = std::vector<PhaseSummary>(3)};
  native.phases[1] = {.offered = 100, .reached_bottom = 112, .amplification = 1.12};
  native.timeline = {{0.125, 50}, {2.125, 56.0}};
  r.modes.insert(r.modes.begin() + 1, native);
  return r;
}

TEST(DemoReportTest, GrpcReportHasTheNativeModeInJsonTablesAndSvg) {
  const DemoReport r = GrpcSample();
  const nlohmann::json j = ReportJson(r);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_DOUBLE_EQ(j.at("grpc_native").at("down").at("amplification").get<double>(), 1.12);
  const std::string t = FormatTables(r);
  for (const char* text : {"over gRPC", "grpc_native ", "1.12x", "retryThrottling (10 tokens, 0.1 per success)",
                           "grpc-retry-pushback-ms -1", "grpc_native never"}) {
    EXPECT_NE(t.find(text), std::string::npos) << text << "\n" << t;
  }
  EXPECT_EQ(FormatTables(Sample()).find("grpc_native"), std::string::npos);
  const std::string svg = TimelineSvg(r);
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = svg.find("<polyline", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 3u);
  EXPECT_NE(svg.find("over grpc: naive, grpc_native vs stormguard"), std::string::npos) << svg;
  EXPECT_NE(svg.find("#ff7f0e"), std::string::npos);
}

TEST(DemoOptionsTest, ModesAndTransportsRoundTripTheirNames) {
  for (Mode m : {Mode::kNaive, Mode::kGrpcNative, Mode::kStormguard}) EXPECT_EQ(ParseMode(ModeName(m)), m);
  for (Transport t : {Transport::kHttp, Transport::kGrpc}) EXPECT_EQ(ParseTransport(TransportName(t)), t);
  EXPECT_EQ(ParseMode("grpc"), std::nullopt);
  EXPECT_EQ(ParseTransport("GRPC"), std::nullopt);
  EXPECT_EQ(ModesOf(Transport::kHttp), (std::vector<Mode>{Mode::kNaive, Mode::kStormguard}));
  EXPECT_EQ(ModesOf(Transport::kGrpc), (std::vector<Mode>{Mode::kNaive, Mode::kGrpcNative, Mode::kStormguard}));
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
