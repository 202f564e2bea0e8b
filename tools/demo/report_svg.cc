#include <algorithm>
#include <cmath>
#include <cstdio>

#include "demo/report.h"

namespace stormguard::demo {
namespace {

constexpr double kWidth = 860, kHeight = 380;
constexpr double kLeft = 70, kRight = 20, kTop = 50, kBottom = 50;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// 1, 2 or 5 times a power of ten, at least `v`.
double NiceCeil(double v) {
  if (v <= 1) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

struct Scale {
  double seconds, max_rate;
  double X(double s) const { return kLeft + kPlotW * std::min(s, seconds) / seconds; }
  double Y(double r) const { return kTop + kPlotH * (1 - r / max_rate); }
};

double Seconds(Duration d) { return ToMillis(d) / 1000.0; }

std::string PhaseBands(const DemoReport& r, const Scale& sc) {
  std::string out;
  const std::vector<PhaseSpan> spans = PhaseSpans(r.phases);
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    const Phase& p = r.phases[i];
    const double t = Seconds(spans[i].start), end = Seconds(spans[i].end);
    const char* fill = p.bottom_down ? "#fbe3e1" : "#eaf5ea";
    out += "<rect x=\"" + Num(sc.X(t)) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(sc.X(end) - sc.X(t)) +
           "\" height=\"" + Num(kPlotH) + "\" fill=\"" + fill + "\"/>\n";
    out += "<text x=\"" + Num((sc.X(t) + sc.X(end)) / 2) + "\" y=\"" + Num(kTop + 16) +
           "\" text-anchor=\"middle\" fill=\"#555\">" + p.name + (p.bottom_down ? " (every attempt fails)" : "") + "</text>\n";
  }
  return out;
}

std::string Axes(const Scale& sc) {
  std::string out = "<g stroke=\"#999\" fill=\"none\"><path d=\"M" + Num(kLeft) + " " + Num(kTop) + " V" +
                    Num(kTop + kPlotH) + " H" + Num(kLeft + kPlotW) + "\"/></g>\n";
  for (int i = 0; i <= 4; ++i) {
    const double v = sc.max_rate * i / 4;
    out += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(sc.Y(v) + 4) + "\" text-anchor=\"end\">" +
           std::to_string(static_cast<long>(v)) + "</text>\n";
  }
  const int step = sc.seconds > 20 ? 5 : 2;
  for (int s = 0; s <= static_cast<int>(sc.seconds); s += step) {
    out += "<text x=\"" + Num(sc.X(s)) + "\" y=\"" + Num(kTop + kPlotH + 16) + "\" text-anchor=\"middle\">" +
           std::to_string(s) + "</text>\n";
  }
  out += "<text x=\"" + Num(kLeft + kPlotW / 2) + "\" y=\"" + Num(kHeight - 12) +
         "\" text-anchor=\"middle\">seconds since the start of the mode</text>\n";
  out += "<text transform=\"translate(18 " + Num(kTop + kPlotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">attempts reaching C per second</text>\n";
  return out;
}

std::string Line(const ModeReport& m, const Scale& sc, const char* color, int index) {
  std::string points;
  for (const auto& [s, rate] : m.timeline) {
    if (s <= sc.seconds) points += Num(sc.X(s)) + "," + Num(sc.Y(rate)) + " ";
  }
  const double ly = kTop + 36 + 18 * index;
  const std::string name(ModeName(m.mode));
  return "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"" + points +
         "\"/>\n<line x1=\"" + Num(kLeft + kPlotW - 150) + "\" y1=\"" + Num(ly) + "\" x2=\"" +
         Num(kLeft + kPlotW - 125) + "\" y2=\"" + Num(ly) + "\" stroke=\"" + color +
         "\" stroke-width=\"2\"/>\n<text x=\"" + Num(kLeft + kPlotW - 118) + "\" y=\"" + Num(ly + 4) + "\">" +
         name + "</text>\n";
}

}  // namespace

std::string TimelineSvg(const DemoReport& r) {
  const double seconds = r.phases.empty() ? 0 : Seconds(PhaseSpans(r.phases).back().end);
  double peak = 0;
  for (const ModeReport& m : r.modes) {
    for (const auto& [s, rate] : m.timeline) {
      if (s <= seconds) peak = std::max(peak, rate);
    }
  }
  const Scale sc{std::max(seconds, 1.0), NiceCeil(peak)};
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) + "\" height=\"" +
                    Num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  char title[128];
  std::snprintf(title, sizeof title, "Attempts reaching C, %g requests/s offered to A: naive retries vs stormguard",
                r.rate);
  out += "<text x=\"" + Num(kLeft) + "\" y=\"24\" font-size=\"15\">" + title + "</text>\n";
  out += PhaseBands(r, sc) + Axes(sc);
  const char* colors[] = {"#d62728", "#1f77b4"};
  for (std::size_t i = 0; i < r.modes.size(); ++i) {
    out += Line(r.modes[i], sc, colors[i % 2], static_cast<int>(i));
  }
  return out + "</svg>\n";
}

}  // namespace stormguard::demo
