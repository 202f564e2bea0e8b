// tools/render/svg_plot.h: a line chart as a self-contained SVG document,
// for `stormguard simulate --svg` and `stormguard demo`.
//
//   render::Plot plot{.title = "retries per 100ms", .x_label = "seconds", .y_label = "retries"};
//   plot.lines.push_back({.name = "fixed", .x = {0, 0.1}, .y = {0, 1000}});
//   plot.bands.push_back({.from = 2, .to = 4, .label = "down", .fill = "#fbe3e1"});
//   std::string svg = render::RenderSvg(plot);   // write it to a file, open in a browser
//
// Axes start at zero and end at a round number at or above the largest value
// (band ends count on the x axis). Values below zero are drawn at zero and
// points that are not finite (NaN, inf) are left out, so every number in the
// document is finite. Every text and attribute value is escaped, whatever
// the caller passes. Each line gets a colour (its own, or the next of a
// palette) and a legend entry. Deterministic: the same plot gives the same
// bytes. Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

namespace stormguard::render {

struct PlotLine {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;  // same length as x; extra values of either are ignored
  std::string color;      // empty: the next colour of the palette
};

// A shaded stretch of the x axis behind the lines, labelled at its top
// (a phase of a run).
struct PlotBand {
  double from = 0, to = 0;
  std::string label;
  std::string fill;
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<PlotLine> lines;
  std::vector<PlotBand> bands;
};

std::string RenderSvg(const Plot& plot);

// The smallest "round" number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power
// of ten) >= v; 1 for v <= 0 or not finite; v itself where the round number
// would overflow a double. Each fifth of it is round too (the ticks).
double NiceCeiling(double v) noexcept;

}  // namespace stormguard::render
