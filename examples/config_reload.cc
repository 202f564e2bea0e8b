// A client whose policies live in etcd: a write to one key changes what its
// next call does, without a restart and without rebuilding the client.
//
//   config_reload http://127.0.0.1:2379 /stormguard/config
//
// The program writes a configuration where calls to inventory's "GET /stock"
// are tried once, makes a call to a downstream that is down, writes one
// with 3 attempts, and makes the same call again:
//
//   etcd:/stormguard/config: version 1 accepted
//   call 1: UNAVAILABLE after 1 attempt
//   etcd:/stormguard/config: version 2 accepted
//   call 2: UNAVAILABLE after 3 attempts
//
// Exits 0 when the attempts are 1 and then 3. ctest runs it against a
// throwaway etcd on loopback (run_with_etcd.sh, next to this file).
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>

// [snippet:reload]
#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/reload_into.h"
// [end snippet]

using namespace std::chrono_literals;
using namespace stormguard;

namespace {

// The whole configuration, as an operator would write it to the key.
std::string ConfigWithAttempts(int max_attempts) {
  return R"({"destinations": {"inventory": {"pipeline": {"stages": [
             {"retry": {"max_attempts": )" +
         std::to_string(max_attempts) + R"(, "backoff": {"base": "10ms", "cap": "50ms"}}}]}}}})";
}

// Base64 (RFC 4648), as the gateway's JSON carries bytes.
std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, in.size() - i);
    unsigned v = 0;
    for (std::size_t j = 0; j < 3; ++j) v = v << 8 | (j < n ? static_cast<unsigned char>(in[i + j]) : 0u);
    for (std::size_t j = 0; j < 4; ++j) out += j <= n ? kAlphabet[(v >> (18 - 6 * j)) & 63] : '=';
  }
  return out;
}

// What `etcdctl put KEY VALUE` does, through etcd's HTTP/JSON gateway
// (which takes keys and values in base64).
bool EtcdPut(const std::string& endpoint, const std::string& key, const std::string& value) {
  httplib::Client etcd(endpoint);
  etcd.set_connection_timeout(2s);
  etcd.set_read_timeout(5s);
  const std::string body = R"({"key": ")" + Base64(key) + R"(", "value": ")" + Base64(value) + R"("})";
  const auto answer = etcd.Post("/v3/kv/put", body, "application/json");
  if (!answer || answer->status != 200) {
    std::printf("etcd put %s failed: %s\n", key.c_str(),
                answer ? answer->body.c_str() : httplib::to_string(answer.error()).c_str());
    return false;
  }
  return true;
}

void PrintReload(const config::ReloadEvent& e) {
  if (e.on_defaults) return;  // the first event: no configuration yet, the built-in default
  std::printf("%s: version %llu %s\n", std::string(e.origin).c_str(), static_cast<unsigned long long>(e.version),
              e.accepted ? "accepted" : "refused");
}

// Waits (at most 10 s) until the registry runs `version`.
bool AwaitVersion(const config::Registry& registry, std::uint64_t version) {
  for (int i = 0; i < 1000 && registry.version() < version; ++i) std::this_thread::sleep_for(10ms);
  return registry.version() >= version;
}

// [snippet:reload]

// A client built once: its pipeline is a live handle, so every call runs on
// the configuration in force when the call starts.
class InventoryClient {
 public:
  explicit InventoryClient(PipelineRef pipeline) : pipeline_(std::move(pipeline)) {}

  // The downstream is down: every attempt fails, and the retry in force
  // decides how many there are.
  Status GetStock(int& attempts) const {
    CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 2s), .idempotent = true};
    return pipeline_.Execute(ctx, [&](CallContext& attempt) {
      attempts = attempt.attempt;
      return Status::Unavailable("inventory: connection refused");
    });
  }

 private:
  PipelineRef pipeline_;
};
// [end snippet]

// One call, printed; true when it took `expected` attempts.
bool Call(const InventoryClient& client, int n, int expected) {
  int attempts = 0;
  const Status s = client.GetStock(attempts);
  std::printf("call %d: %s after %d attempt%s\n", n, std::string(StatusCodeName(s.code())).c_str(), attempts,
              attempts == 1 ? "" : "s");
  return attempts == expected;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: config_reload ETCD_ENDPOINT KEY (e.g. http://127.0.0.1:2379 /stormguard/config)\n");
    return 2;
  }
  const std::string endpoint = argv[1], key = argv[2];
  if (!EtcdPut(endpoint, key, ConfigWithAttempts(1))) return 1;

  // [snippet:reload]

  // The registry holds the configuration in force; the source watches the
  // key and hands each new version to the registry, which refuses an
  // invalid one and keeps the last good one.
  config::Registry registry({.on_reload = PrintReload});
  auto source = config_sources::EtcdSource::Start({.endpoint = endpoint, .key = key},
                                                  config_sources::ReloadInto(registry, "etcd:" + key));
  if (!source.ok()) {
    std::fprintf(stderr, "%s\n", source.status().ToString().c_str());
    return 1;
  }
  InventoryClient client(registry.Follow("inventory", "GET /stock"));
  // [end snippet]

  bool ok = AwaitVersion(registry, 1) && Call(client, 1, 1);
  // An operator raises the attempts; the same client follows.
  ok = ok && EtcdPut(endpoint, key, ConfigWithAttempts(3)) && AwaitVersion(registry, 2) && Call(client, 2, 3);
  (*source)->Stop();
  if (!ok) std::printf("unexpected: registry at version %llu\n", static_cast<unsigned long long>(registry.version()));
  return ok ? 0 : 1;
}
