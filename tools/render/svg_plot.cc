#include "render/svg_plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace stormguard::render {
namespace {

constexpr double kWidth = 800, kHeight = 450;
constexpr double kLeft = 70, kRight = 170, kTop = 40, kBottom = 55;  // room for axes and legend
constexpr int kTicks = 5;
constexpr std::array<std::string_view, 8> kColors = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

// Text and attribute values: the five XML specials become entities, and
// control characters, which XML 1.0 does not allow even escaped, are dropped.
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r') out += c;
    }
  }
  return out;
}

std::string Format(const char* format, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// One element, its attribute values escaped as they are added.
class Element {
 public:
  explicit Element(std::string_view name) : name_(name), out_("<" + name_) {}
  Element& Set(std::string_view attr, std::string_view value) {
    out_ += " " + std::string(attr) + "=\"" + Escape(value) + "\"";
    return *this;
  }
  Element& Set(std::string_view attr, double value) { return Set(attr, Format("%.1f", value)); }
  std::string Open() const { return out_ + ">\n"; }
  std::string Empty() const { return out_ + "/>\n"; }
  std::string Text(std::string_view text) const { return out_ + ">" + Escape(text) + "</" + name_ + ">\n"; }

 private:
  std::string name_;
  std::string out_;
};

bool Finite(double x, double y) { return std::isfinite(x) && std::isfinite(y); }

// Data to drawing coordinates; values outside [0, max] are drawn at its ends.
struct Frame {
  double x_max, y_max;
  double X(double x) const { return kLeft + std::clamp(x / x_max, 0.0, 1.0) * (kWidth - kLeft - kRight); }
  double Y(double y) const { return kHeight - kBottom - std::clamp(y / y_max, 0.0, 1.0) * (kHeight - kTop - kBottom); }
};

Frame FrameOf(const Plot& p) {
  double x_max = 0, y_max = 0;
  for (const PlotLine& l : p.lines) {
    for (std::size_t k = 0; k < std::min(l.x.size(), l.y.size()); ++k) {
      if (!Finite(l.x[k], l.y[k])) continue;
      x_max = std::max(x_max, l.x[k]);
      y_max = std::max(y_max, l.y[k]);
    }
  }
  for (const PlotBand& b : p.bands) {
    if (Finite(b.from, b.to)) x_max = std::max({x_max, b.from, b.to});
  }
  return {NiceCeiling(x_max), NiceCeiling(y_max)};
}

std::string Line(double x1, double y1, double x2, double y2, std::string_view stroke) {
  return Element("line").Set("x1", x1).Set("y1", y1).Set("x2", x2).Set("y2", y2).Set("stroke", stroke).Empty();
}

std::string Bands(const Plot& p, const Frame& f) {
  std::string svg;
  for (const PlotBand& b : p.bands) {
    if (!Finite(b.from, b.to)) continue;
    const double x0 = f.X(std::min(b.from, b.to)), x1 = f.X(std::max(b.from, b.to));
    svg += Element("rect")
               .Set("x", x0)
               .Set("y", kTop)
               .Set("width", x1 - x0)
               .Set("height", f.Y(0) - kTop)
               .Set("fill", b.fill)
               .Empty();
    svg += Element("text")
               .Set("x", (x0 + x1) / 2)
               .Set("y", kTop + 16)
               .Set("text-anchor", "middle")
               .Set("fill", "#555")
               .Text(b.label);
  }
  return svg;
}

std::string Axes(const Plot& p, const Frame& f) {
  const double x0 = f.X(0), y0 = f.Y(0), x1 = f.X(f.x_max), y1 = f.Y(f.y_max);
  std::string svg = Line(x0, y0, x1, y0, "black") + Line(x0, y0, x0, y1, "black");
  for (int i = 0; i <= kTicks; ++i) {
    // Divided first: the largest maximum times a tick number overflows.
    const double xv = f.x_max / kTicks * i, yv = f.y_max / kTicks * i;
    svg += Element("text").Set("x", f.X(xv)).Set("y", y0 + 18).Set("text-anchor", "middle").Text(Format("%g", xv));
    svg += Element("text").Set("x", x0 - 8).Set("y", f.Y(yv) + 4).Set("text-anchor", "end").Text(Format("%g", yv));
    svg += Line(x0, f.Y(yv), x1, f.Y(yv), "#dddddd");
  }
  svg += Element("text").Set("x", (x0 + x1) / 2).Set("y", kHeight - 12).Set("text-anchor", "middle").Text(p.x_label);
  return svg + Element("text")
                   .Set("transform", "translate(16," + Format("%.1f", (y0 + y1) / 2) + ") rotate(-90)")
                   .Set("text-anchor", "middle")
                   .Text(p.y_label);
}

std::string Lines(const Plot& p, const Frame& f) {
  std::string svg;
  for (std::size_t i = 0; i < p.lines.size(); ++i) {
    const PlotLine& l = p.lines[i];
    const std::string_view color = l.color.empty() ? kColors[i % kColors.size()] : l.color;
    std::string points;
    for (std::size_t k = 0; k < std::min(l.x.size(), l.y.size()); ++k) {
      if (!Finite(l.x[k], l.y[k])) continue;
      points += (points.empty() ? "" : " ") + Format("%.1f", f.X(l.x[k])) + "," + Format("%.1f", f.Y(l.y[k]));
    }
    svg += Element("polyline")
               .Set("fill", "none")
               .Set("stroke-width", "1.5")
               .Set("stroke", color)
               .Set("points", points)
               .Empty();
    const double ly = kTop + 20.0 * static_cast<double>(i), lx = kWidth - kRight + 15;
    svg += Element("line")
               .Set("x1", lx)
               .Set("y1", ly)
               .Set("x2", lx + 20)
               .Set("y2", ly)
               .Set("stroke-width", "3")
               .Set("stroke", color)
               .Empty();
    svg += Element("text").Set("x", lx + 26).Set("y", ly + 4).Text(l.name);
  }
  return svg;
}

}  // namespace

double NiceCeiling(double v) noexcept {
  if (!(v > 0) || !std::isfinite(v)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * p >= v * (1 - 1e-12)) return std::isfinite(m * p) ? m * p : v;
  }
  return v;
}

std::string RenderSvg(const Plot& p) {
  const Frame f = FrameOf(p);
  std::string svg = Element("svg")
                        .Set("xmlns", "http://www.w3.org/2000/svg")
                        .Set("width", kWidth)
                        .Set("height", kHeight)
                        .Set("viewBox", "0 0 " + Format("%g", kWidth) + " " + Format("%g", kHeight))
                        .Set("font-family", "sans-serif")
                        .Set("font-size", "12")
                        .Open();
  svg += Element("rect").Set("width", "100%").Set("height", "100%").Set("fill", "white").Empty();
  svg += Element("text")
             .Set("x", kWidth / 2)
             .Set("y", 24)
             .Set("text-anchor", "middle")
             .Set("font-size", "15")
             .Text(p.title);
  return svg + Bands(p, f) + Axes(p, f) + Lines(p, f) + "</svg>\n";
}

}  // namespace stormguard::render
