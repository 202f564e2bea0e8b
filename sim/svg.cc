#include "stormguard/sim/svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace stormguard::sim {
namespace {

constexpr double kWidth = 800, kHeight = 450;
constexpr double kLeft = 70, kRight = 170, kTop = 40, kBottom = 55;  // room for axes and legend
constexpr int kTicks = 5;
constexpr std::array<std::string_view, 8> kColors = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string Tick(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct Frame {
  double x_max, y_max;
  double X(double x) const { return kLeft + x / x_max * (kWidth - kLeft - kRight); }
  double Y(double y) const { return kHeight - kBottom - y / y_max * (kHeight - kTop - kBottom); }
};

void Axes(std::string& svg, const Plot& p, const Frame& f) {
  const double x0 = f.X(0), y0 = f.Y(0), x1 = f.X(f.x_max), y1 = f.Y(f.y_max);
  svg += "<line x1=\"" + Num(x0) + "\" y1=\"" + Num(y0) + "\" x2=\"" + Num(x1) + "\" y2=\"" + Num(y0) +
         "\" stroke=\"black\"/>\n";
  svg += "<line x1=\"" + Num(x0) + "\" y1=\"" + Num(y0) + "\" x2=\"" + Num(x0) + "\" y2=\"" + Num(y1) +
         "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= kTicks; ++i) {
    const double xv = f.x_max * i / kTicks, yv = f.y_max * i / kTicks;
    svg += "<text x=\"" + Num(f.X(xv)) + "\" y=\"" + Num(y0 + 18) + "\" text-anchor=\"middle\">" + Tick(xv) +
           "</text>\n";
    svg += "<text x=\"" + Num(x0 - 8) + "\" y=\"" + Num(f.Y(yv) + 4) + "\" text-anchor=\"end\">" + Tick(yv) +
           "</text>\n";
    svg += "<line x1=\"" + Num(x0) + "\" y1=\"" + Num(f.Y(yv)) + "\" x2=\"" + Num(x1) + "\" y2=\"" +
           Num(f.Y(yv)) + "\" stroke=\"#dddddd\"/>\n";
  }
  svg += "<text x=\"" + Num((x0 + x1) / 2) + "\" y=\"" + Num(kHeight - 12) + "\" text-anchor=\"middle\">" +
         Escape(p.x_label) + "</text>\n";
  svg += "<text transform=\"translate(16," + Num((y0 + y1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + Escape(p.y_label) + "</text>\n";
}

void Lines(std::string& svg, const Plot& p, const Frame& f) {
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const PlotLine& l = p.lines[i];
    const std::string_view color = kColors[i % kColors.size()];
    svg += "<polyline fill=\"none\" stroke-width=\"1.5\" stroke=\"" + std::string(color) + "\" points=\"";
    const std::size_t n = std::min(l.x.size(), l.y.size());
    for (std::size_t k = 0; k < n; ++k) {
      svg += (k ? " " : "") + Num(f.X(l.x[k])) + "," + Num(f.Y(l.y[k]));
    }
    svg += "\"/>\n";
    const double ly = kTop + 20.0 * static_cast<double>(i);
    const double lx = kWidth - kRight + 15;
    svg += "<line x1=\"" + Num(lx) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(lx + 20) + "\" y2=\"" + Num(ly) +
           "\" stroke-width=\"3\" stroke=\"" + std::string(color) + "\"/>\n";
    svg += "<text x=\"" + Num(lx + 26) + "\" y=\"" + Num(ly + 4) + "\">" + Escape(l.name) + "</text>\n";
  }
}

}  // namespace

double NiceCeiling(double v) noexcept {
  if (!(v > 0)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * p >= v * (1 - 1e-12)) return m * p;
  }
  return 10 * p;
}

std::string RenderSvg(const Plot& p) {
  double x_max = 0, y_max = 0;
  for (const PlotLine& l : p.lines) {
    for (double x : l.x) x_max = std::max(x_max, x);
    for (double y : l.y) y_max = std::max(y_max, y);
  }
  const Frame f{NiceCeiling(x_max), NiceCeiling(y_max)};
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) + "\" height=\"" +
                    Num(kHeight) + "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(kHeight) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" +
         Escape(p.title) + "</text>\n";
  Axes(svg, p, f);
  Lines(svg, p, f);
  svg += "</svg>\n";
  return svg;
}

}  // namespace stormguard::sim
