// The baseline: fixed attempts, fixed pauses, fixed timeouts, no chain
// headers, blind retries of everything (POST included). Written directly over
// http::PerformOnce, the way a hand-rolled loop would be, not through the
// library's retry policy.
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

class NaiveCaller final : public Caller {
 public:
  CallOutcome Call(const http::HttpRequest& request, const Measure& m, CallContext&) const override {
    CallOutcome out;
    for (int attempt = 1; attempt <= kAttempts; ++attempt) {
      if (attempt > 1) std::this_thread::sleep_for(kPause);
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
};

}  // namespace

std::unique_ptr<Caller> MakeNaiveCaller() { return std::make_unique<NaiveCaller>(); }

}  // namespace stormguard::demo
