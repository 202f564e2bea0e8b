#include "async_wave.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <optional>

#include <asio/co_spawn.hpp>

#include "stormguard/asio/coroutine_driver.h"

// This file reads a standard header before Asio's config, the order in which
// Asio would pick aligned_alloc where stormguard::asio's own files pick
// operator new; the target pins one choice for all (its CMakeLists.txt).
#if defined(ASIO_HAS_STD_ALIGNED_ALLOC)
#error "Asio's handler memory would come from two allocators"
#endif

namespace stormguard::demo::async_chain {
namespace {
using namespace std::chrono_literals;

// One call of the wave: its own deadline, the pipeline around one GET.
asio::awaitable<void> Call(const PipelineRef& pipeline, http::AsyncCurlClient& client, Wave& wave, std::size_t i) {
  Clock& clock = Clock::Real();
  const TimePoint start = clock.Now();
  const Deadline deadline = Deadline::After(start, wave.shape.deadline);
  CallContext ctx{.deadline = deadline};
  Result<int> r = co_await pipeline.Execute(ctx, [&](CallContext& c) -> asio::awaitable<Result<int>> {
    ++wave.attempts;
    // Named, not a braced temporary: GCC 12 mishandles those as coroutine arguments.
    http::HttpRequest request{.url = wave.shape.url};
    http::HttpResult answer = co_await client.Send(c, std::move(request));
    // A 503 is UNAVAILABLE, which the retry retries and the breaker counts.
    if (!answer.ok()) co_return answer.status;
    co_return answer.response->status;
  });
  const TimePoint end = clock.Now();
  wave.calls[i] = {.ended = true, .ok = r.ok(), .latency = end - start, .lateness = end - deadline.time()};
  ++wave.ended;
}

Duration Percentile(std::vector<Duration>& sorted, double q) {
  if (sorted.empty()) return Duration::zero();
  const auto at = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(at, sorted.size() - 1)];
}

double Ms(Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

}  // namespace

void RunWave(asio::io_context& io, const PipelineRef& pipeline, http::AsyncCurlClient& client, Wave& wave) {
  wave.calls.assign(wave.shape.calls, CallRecord{});
  for (std::size_t i = 0; i < wave.shape.calls; ++i) {
    asio::co_spawn(io, Call(pipeline, client, wave, i), [](std::exception_ptr e) {
      if (e) std::rethrow_exception(e);
    });
  }
  // A context that ran out of work at the end of the last wave is stopped.
  if (io.stopped()) io.restart();
  const TimePoint limit = Clock::Real().Now() + wave.shape.limit;
  while (wave.ended < wave.shape.calls && Clock::Real().Now() < limit) io.run_one_for(10ms);
}

void Absorb(Wave& into, const Wave& more) {
  into.calls.insert(into.calls.end(), more.calls.begin(), more.calls.end());
  into.attempts += more.attempts;
  into.ended += more.ended;
  into.shape.calls += more.shape.calls;
}

WaveFigures Tally(const Wave& wave) {
  WaveFigures f{.phase = wave.shape.phase,
                .calls = wave.calls.size(),
                .ended = wave.ended,
                .attempts = wave.attempts,
                .deadline = wave.shape.deadline};
  std::vector<Duration> latencies;
  std::optional<Duration> worst;
  for (const CallRecord& c : wave.calls) {
    if (!c.ended) continue;
    f.ok += c.ok ? 1 : 0;
    latencies.push_back(c.latency);
    worst = std::max(worst.value_or(c.lateness), c.lateness);
  }
  std::sort(latencies.begin(), latencies.end());
  f.amplification = f.calls == 0 ? 0 : static_cast<double>(f.attempts) / static_cast<double>(f.calls);
  f.p50 = Percentile(latencies, 0.50);
  f.p99 = Percentile(latencies, 0.99);
  f.max = latencies.empty() ? Duration::zero() : latencies.back();
  f.worst_lateness = worst.value_or(Duration::zero());
  return f;
}

std::string FormatTable(const std::vector<WaveFigures>& rows) {
  std::string out =
      "phase        calls  ended     ok  attempts  ampl.  p50 ms  p99 ms  max ms  deadline ms"
      "  latest end vs deadline ms\n";
  char line[200];
  for (const WaveFigures& f : rows) {
    std::snprintf(line, sizeof line, "%-11s %6zu %6zu %6zu %9llu %5.2fx %7.1f %7.1f %7.1f %12.0f %26.1f\n",
                  f.phase.c_str(), f.calls, f.ended, f.ok, static_cast<unsigned long long>(f.attempts), f.amplification,
                  Ms(f.p50), Ms(f.p99), Ms(f.max), Ms(f.deadline), Ms(f.worst_lateness));
    out += line;
  }
  return out;
}

}  // namespace stormguard::demo::async_chain
