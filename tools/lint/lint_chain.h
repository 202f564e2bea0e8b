// tools/lint/lint_chain.h: a call chain for `stormguard lint`, read from JSON.
//
//   {"hop_reserve": 0.1,
//    "services": [
//      {"name": "A", "config": "a.json", "calls": "relay", "method": "GET /stock", "rate": 100,
//       "disable": {"SG004": "the relay's budget lives in the mesh"}},
//      {"name": "B", "config": "b.json", "calls": "bottom"},
//      {"name": "C"}]}
//
// Services are listed in call order, the caller first, each under its own
// name (a name given twice is an error): each but the last
// calls the next through the destination `calls` of its own config (a
// stormguard config or a gRPC service config; a path relative to the chain
// file). `method` (optional) is the method called, for method entries and
// idempotency ("POST ..." is not idempotent); `rate` (optional, requests/s)
// is the expected rate of those calls. `disable` turns rules off for that
// service's destination, each with a reason. `hop_reserve` is the share of
// its remaining time a service keeps before handing the deadline down.
//
// Errors name the file and the JSON path, escaped (render/printable.h);
// bounds: at most kMaxChainServices services; files are read as
// cli::ReadInputFile reads them (regular files of at most 4 MiB); each
// config file is parsed once however many services name it, and the
// distinct config files together hold at most kMaxChainConfigBytes.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "stormguard/config/config.h"
#include "stormguard/config/config_json.h"
#include "stormguard/core/result.h"

namespace stormguard::lint {

inline constexpr std::size_t kMaxChainServices = 64;
// As much as one config may hold: 64 services each naming its own 4 MiB
// file would need some 6 GB once parsed.
inline constexpr std::size_t kMaxChainConfigBytes = config::kMaxConfigBytes;

struct ChainService {
  std::string name;
  std::string config_path;                       // as written in the chain file; empty for a bare leaf
  std::shared_ptr<const config::Config> config;  // shared by the services naming one file; null for a bare leaf
  std::string calls;                             // the destination called; empty for the last service
  std::string method;                            // the method called; empty: the destination's pipeline as configured
  double rate = 0;                               // expected calls per second; 0: unknown
  std::map<std::string, std::string, std::less<>> disabled;  // rule id -> reason
};

struct Chain {
  std::string path;  // the chain file, for messages
  double hop_reserve = 0.1;
  std::vector<ChainService> services;  // caller first
};

// Reads `text` (the content of `path`); configs are read from `base_dir`.
// INVALID_ARGUMENT: "chain.json: services[1].calls: ..." for every problem.
Result<Chain> ParseChain(std::string_view text, const std::string& path, const std::string& base_dir);
// Reads the file at `path` and its configs.
Result<Chain> LoadChain(const std::string& path);

}  // namespace stormguard::lint
