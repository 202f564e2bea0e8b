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

std::vector<Phase> DemoOptions::Phases() const {
  if (soak) return {{"soak", *soak, false}};
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
