#include <algorithm>
#include <cstdio>

#include "demo/fault_schedule.h"
#include "demo/report.h"
#include "render/numbers.h"
#include "render/text_table.h"

namespace stormguard::demo {
namespace {

std::string Format(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

using render::Seconds;

std::string Describe(const Phase& p, const FleetOptions& fleet) {
  if (p.bottom_down) return "C is down: every attempt of these operations gets a 503 at once";
  const FaultRates f;
  if (p.gray) {
    return Format("replica 0 of C answers %.0f%% of these operations %s; the rest as healthy", fleet.share * 100,
                  fleet.mode == GrayMode::kSlow ? Format("after %.2f s", Seconds(fleet.latency)).c_str()
                                                : "with a 503 at once");
  }
  const std::string healthy =
      Format("C fails %.0f%% at once, %.0f%% take %.1f s", f.error * 100, f.slow * 100, Seconds(f.slow_time));
  if (fleet.enabled()) return healthy + " (each replica)";  // no charges to lose
  return healthy + Format(", %.0f%% of charges lose their answer", f.lost_response * 100);
}

std::vector<std::string> Row(const ModeReport& m, const PhaseSummary& s) {
  return {std::string(ModeName(m.mode)),
          std::to_string(s.offered),
          std::to_string(s.reached_bottom),
          render::Fixed(s.amplification, 2) + "x",
          render::Fixed(s.success_rate * 100, 2) + "%",
          render::Fixed(s.p50_ms, 0),
          render::Fixed(s.p99_ms, 0),
          render::Fixed(s.p999_ms, 0),
          render::Fixed(s.orphan_ratio * 100, 1) + "%",
          std::to_string(s.duplicate_effects)};
}

std::string Recovery(const ModeReport& m) {
  const std::string name(ModeName(m.mode));
  if (!m.recovery) return name + " never";
  return name + Format(" %.2f s", Seconds(*m.recovery));
}

}  // namespace

std::string FormatTables(const DemoReport& r) {
  const bool grpc = r.transport == Transport::kGrpc;
  std::string out = Format(
      "stormguard demo: services A -> B -> C on loopback over %s, %.0f requests/s offered to A "
      "(%s), %.1f s\n",
      grpc ? "gRPC" : "HTTP", r.rate,
      r.fleet.enabled() ? "GET /stock only"
      : grpc            ? "half stock checks, half charges"
                        : "half GET /stock, half POST /charge",
      Seconds(r.wall));
  for (std::size_t p = 0; p < r.phases.size(); ++p) {
    const Phase& phase = r.phases[p];
    out += Format("\n%s (%.1f s", phase.name.c_str(), Seconds(phase.length));
    if (phase.settle > Duration::zero()) out += Format(", after %.1f s without load", Seconds(phase.settle));
    out += "): ";
    out += Describe(phase, r.fleet) + "\n";
    render::TextTable table({"mode", "offered", "reached C", "amplification", "success", "p50 ms", "p99 ms", "p99.9 ms",
                             "orphan work", "duplicates"});
    for (const ModeReport& m : r.modes) table.Row(Row(m, m.phases[p]));
    out += table.Render();
  }
  out += FormatGrayTable(r);
  const bool outage = std::any_of(r.phases.begin(), r.phases.end(), [](const Phase& p) { return p.bottom_down; });
  if (outage) {
    out += "\nback to >= 99% success (first 1 s window after C recovered):";
    for (std::size_t i = 0; i < r.modes.size(); ++i) out += (i ? ", " : " ") + Recovery(r.modes[i]);
    out += "\n";
  }
  out +=
      "\nnaive: every hop (load generator -> A -> B -> C) tries 3 times, 100 ms apart, 1 s per attempt,"
      " charges too.\n";
  if (r.fleet.enabled()) out += "  B sends each attempt to the next replica of C in turn.\n";
  if (grpc) {
    out +=
        "grpc_native: each hop's channel has a service config: retryPolicy 3 attempts on UNAVAILABLE,"
        " backoff 100 ms x2,\n  retryThrottling (10 tokens, 0.1 per success); 1 s deadline at the entry,"
        " passed down.\n";
  }
  out +=
      "stormguard: 1 s budget at the entry, 10% kept per hop, backoff with full jitter (50 ms x2;"
      " 5 ms x2 from B to C),\n  B hedges a call to C at the p95 of recent latency (up to 2 hedges),"
      "\n  B's attempt timeout for C is 3x the p95 of recent latency, within [50 ms, 250 ms],"
      "\n  a retry budget per destination (10 tokens, 0.1 per success), ";
  out += grpc ? "x-stormguard-attempt and grpc-retry-pushback-ms -1," : "x-retry-attempt and x-no-retry,";
  out += "\n  one idempotency key per charge, C stops work at the deadline it was given.\n";
  if (r.fleet.enabled()) {
    out +=
        "  B picks C's replica by peak EWMA (power of two choices), never one the call tried,"
        "\n  and ejects one that fails 2 attempts in a row (5 s, longer each time).\n";
  }
  return out;
}

}  // namespace stormguard::demo
