#include "demo/report.h"
#include "render/numbers.h"
#include "render/svg_plot.h"

namespace stormguard::demo {
namespace {

using render::Seconds;

// Naive retries in red, gRPC's own in orange, stormguard in blue, in any order.
const char* Color(Mode mode) {
  switch (mode) {
    case Mode::kNaive: return "#d62728";
    case Mode::kGrpcNative: return "#ff7f0e";
    case Mode::kStormguard: return "#1f77b4";
  }
  return "#1f77b4";
}

std::string ModeList(const DemoReport& r) {
  std::string out;
  for (std::size_t i = 0; i < r.modes.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == r.modes.size() ? " vs " : ", ");
    out += ModeName(r.modes[i].mode);
  }
  return out;
}

}  // namespace

std::string TimelineSvg(const DemoReport& r) {
  render::Plot plot{.title = "Attempts reaching C, " + render::Fixed(r.rate, 0) + " requests/s offered to A over " +
                             std::string(TransportName(r.transport)) + ": " + ModeList(r),
                    .x_label = "seconds since the start of the mode",
                    .y_label = "attempts reaching C per second"};
  const std::vector<PhaseSpan> spans = PhaseSpans(r.phases);
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    const Phase& p = r.phases[i];
    plot.bands.push_back({.from = Seconds(spans[i].start),
                          .to = Seconds(spans[i].end),
                          .label = p.name + (p.bottom_down ? " (every attempt fails)" : ""),
                          .fill = p.bottom_down ? "#fbe3e1" : "#eaf5ea"});
  }
  // The plot covers the phases; buckets after the last one are left out.
  const double end = spans.empty() ? 0 : Seconds(spans.back().end);
  for (const ModeReport& m : r.modes) {
    render::PlotLine line{.name = std::string(ModeName(m.mode)), .color = Color(m.mode)};
    for (const auto& [s, rate] : m.timeline) {
      if (s > end) continue;
      line.x.push_back(s);
      line.y.push_back(rate);
    }
    plot.lines.push_back(std::move(line));
  }
  return render::RenderSvg(plot);
}

}  // namespace stormguard::demo
