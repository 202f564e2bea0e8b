#include "demo/demo_options.h"

namespace stormguard::demo {

std::string_view ModeName(Mode mode) noexcept {
  switch (mode) {
    case Mode::kNaive: return "naive";
    case Mode::kGrpcNative: return "grpc_native";
    case Mode::kStormguard: return "stormguard";
  }
  return "stormguard";
}

std::optional<Mode> ParseMode(std::string_view name) noexcept {
  for (Mode m : {Mode::kNaive, Mode::kGrpcNative, Mode::kStormguard}) {
    if (name == ModeName(m)) return m;
  }
  return std::nullopt;
}

std::string_view TransportName(Transport transport) noexcept { return transport == Transport::kHttp ? "http" : "grpc"; }

std::optional<Transport> ParseTransport(std::string_view name) noexcept {
  if (name == "http") return Transport::kHttp;
  if (name == "grpc") return Transport::kGrpc;
  return std::nullopt;
}

std::vector<Mode> ModesOf(Transport transport) {
  if (transport == Transport::kHttp) return {Mode::kNaive, Mode::kStormguard};
  return {Mode::kNaive, Mode::kGrpcNative, Mode::kStormguard};
}

std::string_view GrayModeName(GrayMode mode) noexcept { return mode == GrayMode::kSlow ? "slow" : "fail"; }

std::optional<GrayMode> ParseGrayMode(std::string_view name) noexcept {
  if (name == "slow") return GrayMode::kSlow;
  if (name == "fail") return GrayMode::kFail;
  return std::nullopt;
}

std::vector<std::string> FleetOptions::Validate() const {
  std::vector<std::string> errors;
  if (replicas < 1 || replicas > kMaxReplicas) errors.push_back("--replicas: not between 1 and 8");
  for (const auto& [flag, length] : {std::pair{"--gray", gray}, {"--healed", healed}}) {
    if (length < std::chrono::milliseconds(500) || length > kMaxPhase) {
      errors.push_back(std::string(flag) + ": not between 500ms and 1h");
    }
  }
  if (!(share >= 0 && share <= 1)) errors.push_back("--gray-share: not a number in [0, 1]");  // NaN too
  if (latency <= Duration::zero() || latency > std::chrono::seconds(10)) {
    errors.push_back("--gray-latency: not in (0, 10s]");
  }
  return errors;
}

std::vector<std::string> FleetConflicts(const FleetOptions& fleet, const GivenFlags& given) {
  std::vector<std::string> errors;
  if (!fleet.enabled()) {
    if (given.gray_flags)
      errors.push_back("--gray, --healed, --gray-mode, --gray-share, --gray-latency: only with --replicas 2 or more");
    return errors;
  }
  const char* why = ": not with --replicas 2 or more (its phases are healthy, gray, healed)";
  if (given.down) errors.push_back(std::string("--down") + why);
  if (given.recovered) errors.push_back(std::string("--recovered") + why);
  if (given.soak) errors.push_back(std::string("--soak") + why);
  if (given.grpc) errors.push_back("--transport: the replicas run over http only");
  return errors;
}

std::vector<Phase> DemoOptions::Phases() const {
  if (soak) return {{"soak", *soak, false}};
  if (fleet.enabled()) {
    return {{.name = "healthy", .length = healthy},
            {.name = "gray", .length = fleet.gray, .gray = true},
            {.name = "healed", .length = fleet.healed}};
  }
  return {{"healthy", healthy, false}, {"down", down, true, kSettleBeforeOutage}, {"recovered", recovered, false}};
}

std::vector<PhaseSpan> PhaseSpans(const std::vector<Phase>& phases) {
  std::vector<PhaseSpan> spans;
  Duration t{};
  for (const Phase& p : phases) {
    t += p.settle;
    spans.push_back({t, t + p.length});
    t += p.length;
  }
  return spans;
}

Duration ServiceLifetime(const std::vector<Phase>& phases) {
  const std::vector<PhaseSpan> spans = PhaseSpans(phases);
  return (spans.empty() ? Duration::zero() : spans.back().end) + kLifetimeSlack;
}

std::vector<std::string> ConfigSourceFlags::Validate() const {
  std::vector<std::string> errors;
  if (!file.empty() && !etcd.empty()) errors.push_back("--config and --etcd: give one source, not both");
  if (!etcd.empty() && key.empty()) errors.push_back("--key: needed with --etcd (the key holding the document)");
  if (etcd.empty()) {
    for (const auto& [flag, value] : {std::pair{"--key", &key},
                                      {"--cacert", &cacert},
                                      {"--cert", &cert},
                                      {"--cert-key", &cert_key},
                                      {"--user", &user},
                                      {"--password-file", &password_file}}) {
      if (!value->empty()) errors.push_back(std::string(flag) + ": only with --etcd");
    }
  }
  if (cert.empty() != cert_key.empty()) errors.push_back("--cert and --cert-key: give both or neither");
  if (user.empty() != password_file.empty()) errors.push_back("--user and --password-file: give both or neither");
  return errors;
}

std::vector<std::string> ConfigSourceFlags::Args() const {
  if (!file.empty()) return {"--config", file};
  if (etcd.empty()) return {};
  std::vector<std::string> args = {"--etcd", etcd, "--key", key};
  for (const auto& [flag, value] : {std::pair{"--cacert", &cacert},
                                    {"--cert", &cert},
                                    {"--cert-key", &cert_key},
                                    {"--user", &user},
                                    {"--password-file", &password_file}}) {
    if (!value->empty()) args.insert(args.end(), {flag, *value});
  }
  return args;
}

}  // namespace stormguard::demo
