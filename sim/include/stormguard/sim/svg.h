// stormguard/sim/svg.h: a line chart as a self-contained SVG document.
//
//   sim::Plot plot{.title = "retries per 100 ms", .x_label = "seconds", .y_label = "retries"};
//   plot.lines.push_back({.name = "fixed", .x = {0, 0.1, ...}, .y = {0, 1000, ...}});
//   std::string svg = sim::RenderSvg(plot);   // write it to a file, open in a browser
//
// Axes start at zero and end at a round number at or above the largest value;
// each line gets its own colour and a legend entry. Deterministic: the same
// plot gives the same bytes. Thread safety: pure function.
#pragma once

#include <string>
#include <vector>

namespace stormguard::sim {

struct PlotLine {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;  // same length as x
};

struct Plot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<PlotLine> lines;
};

std::string RenderSvg(const Plot& plot);

// The smallest "round" number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power
// of ten) >= v; 1 for v <= 0. Each fifth of it is round too (the ticks).
double NiceCeiling(double v) noexcept;

}  // namespace stormguard::sim
