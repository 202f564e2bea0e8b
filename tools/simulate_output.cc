#include "simulate_output.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "number_flag.h"

namespace stormguard::cli::simulate {

// --seed, --json, --series and --svg: what every scenario takes.
void AddCommonFlags(CLI::App& cmd, Output& out, std::uint64_t& seed) {
  AddSeedOption(cmd, seed, "random seed");
  cmd.add_flag("--json", out.json, "print one JSON object instead of the table");
  cmd.add_flag("--series", out.series, "add the per-bucket time series to the table or JSON");
  cmd.add_option("--svg", out.svg, "also write a plot of the run to this SVG file");
}

// A library validation error ("cap: must be at least base; ...") as a
// one-line flag error ("--cap: must be at least base", exit status 2); any
// other failure is printed as it is (exit status 1).
[[noreturn]] void FailOn(const Status& s) {
  if (s.code() != StatusCode::kInvalidArgument) {
    std::fprintf(stderr, "stormguard: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::string msg = s.message();
  const std::size_t colon = msg.find(": ");
  if (colon != std::string::npos) msg = msg.substr(colon + 2);  // drop "storm options: "
  const std::size_t semi = msg.find("; ");
  if (semi != std::string::npos) msg = msg.substr(0, semi);  // the first bad field is enough
  const std::string path = msg.substr(0, msg.find(':'));     // "max_tokens", "backoff.cap"
  std::string flag = path.substr(path.rfind('.') + 1);
  for (char& c : flag) c = c == '_' ? '-' : c;
  throw CLI::ValidationError("--" + flag + msg.substr(path.size()));
}

void Emit(const Output& out, const Report& r) {
  if (!out.svg.empty()) {
    std::ofstream f(out.svg, std::ios::binary);
    f << render::RenderSvg(r.plot);
    if (!f) throw CLI::ValidationError("--svg", "cannot write '" + out.svg + "'");
  }
  if (out.json) {
    std::cout << r.json.dump(2) << "\n";
  } else {
    std::cout << r.table;
  }
}

// A progress bar on stderr, only for a person watching a terminal.
std::function<void(double)> ProgressBar(const Output& out) {
  if (out.json || isatty(STDERR_FILENO) == 0) return {};
  auto last = std::make_shared<int>(-1);
  return [last](double fraction) {
    const int pct = static_cast<int>(fraction * 100);
    if (pct == *last) return;
    *last = pct;
    std::fprintf(stderr, "\r[%-40s] %3d%%", std::string(static_cast<std::size_t>(pct * 40 / 100), '#').c_str(), pct);
    if (pct >= 100) std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
  };
}

void ClearProgress(const Output& out) {
  if (!out.json && isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\r%60s\r", "");
}

}  // namespace stormguard::cli::simulate
