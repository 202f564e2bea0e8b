// The baseline: fixed attempts, fixed pauses, fixed timeouts, no chain
// headers, blind retries of everything (POST included). Written directly over
// http::PerformOnce, the way a hand-rolled loop would be, not through the
// library's retry policy.
#include <atomic>
#include <thread>

#include "demo/caller.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/curl_transport.h"
#include "stormguard/http/server.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

constexpr int kAttempts = 3;
constexpr Duration kPause = 100ms;
constexpr Duration kTimeout = 1s;

// The URL of `request` on the replica at `port`: same path, other address.
std::string OnReplica(const std::string& url, int port) {
  const std::size_t path = url.find('/', url.find("://") + 3);
  return "http://127.0.0.1:" + std::to_string(port) + (path == std::string::npos ? "" : url.substr(path));
}

class NaiveCaller final : public Caller {
 public:
  explicit NaiveCaller(std::vector<int> replica_ports) : replica_ports_(std::move(replica_ports)) {}

  CallOutcome Call(const http::HttpRequest& original, const Measure& m, CallContext&) const override {
    CallOutcome out;
    http::HttpRequest request = original;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      if (attempt > 1) std::this_thread::sleep_for(kPause);
      if (!replica_ports_.empty()) {
        const std::size_t turn = next_replica_.fetch_add(1, std::memory_order_relaxed);
        request.url = OnReplica(original.url, replica_ports_[turn % replica_ports_.size()]);
      }
      const TimePoint start = Clock::Real().Now();
      http::HeaderList stamp;
      StampMeasure(m, http::UnixNowMs() + std::chrono::duration_cast<std::chrono::milliseconds>(kTimeout).count(),
                   stamp);
      Result<http::HttpResponse> r =
          http::PerformOnce(request, stamp, {Deadline::After(start, kTimeout), kTimeout, start}, {});
      out.attempts = attempt;
      if (!r.ok()) {
        out.status = r.status().code() == StatusCode::kDeadlineExceeded ? 504 : 502;
        out.body = r.status().ToString();
        continue;
      }
      out.status = r->status;
      out.body = std::move(r->body);
      if (out.status < 500) break;
    }
    return out;
  }

 private:
  const std::vector<int> replica_ports_;
  mutable std::atomic<std::size_t> next_replica_{0};
};

}  // namespace

std::unique_ptr<Caller> MakeNaiveCaller(std::vector<int> replica_ports) {
  return std::make_unique<NaiveCaller>(std::move(replica_ports));
}

}  // namespace stormguard::demo
