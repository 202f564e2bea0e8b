#include "demo/ledger_query.h"

#include <thread>

#include "stormguard/core/clock.h"
#include "stormguard/http/curl_transport.h"

namespace stormguard::demo {

Result<nlohmann::json> ReadAdminJson(int port, const std::string& path) {
  using namespace std::chrono_literals;
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  const TimePoint now = Clock::Real().Now();
  Result<http::HttpResponse> r = http::PerformOnce({.url = url}, {}, {Deadline::After(now, 2s), 1s, now}, {});
  if (!r.ok()) return r.status();
  if (r->status != 200) return Status::Internal(url + " answered " + std::to_string(r->status));
  nlohmann::json j = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Internal(url + " answered malformed JSON");
  return j;
}

Result<BottomSnapshot> ReadLedger(int port) {
  Result<nlohmann::json> j = ReadAdminJson(port, "/admin/stats");
  if (!j.ok()) return j.status();
  try {
    return BottomSnapshotFromJson(*j);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("C's ledger is malformed: ") + e.what());
  }
}

Result<BottomSnapshot> ReadSettledLedger(int port, Duration drain_limit) {
  return ReadSettledLedger([port] { return ReadLedger(port); }, drain_limit);
}

Result<BottomSnapshot> ReadSettledLedger(const std::function<Result<BottomSnapshot>()>& read, Duration drain_limit) {
  const TimePoint until = Clock::Real().Now() + drain_limit;
  for (;;) {
    Result<BottomSnapshot> s = read();
    if (!s.ok() || s->in_flight == 0 || Clock::Real().Now() >= until) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace stormguard::demo
