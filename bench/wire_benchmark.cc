// Header codecs and context propagation: what stamping and reading the chain
// protocol costs per request. Compare with BM_Baseline_DirectCall.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "bench_util.h"
#include "stormguard/wire/grpc_timeout.h"
#include "stormguard/wire/propagation.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

constexpr std::int64_t kUnixMs = 1'750'000'000'000;

void BM_Wire_EncodeGrpcTimeout(benchmark::State& state) {
  AllocationMeter allocs(state);
  Duration d = 1234567890ns;
  for (auto _ : state) {
    benchmark::DoNotOptimize(d);
    WireText t = EncodeGrpcTimeout(d);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_Wire_EncodeGrpcTimeout);

void BM_Wire_DecodeGrpcTimeout(benchmark::State& state) {
  AllocationMeter allocs(state);
  std::string_view text = "1234568u";
  for (auto _ : state) {
    benchmark::DoNotOptimize(text);
    benchmark::DoNotOptimize(DecodeGrpcTimeout(text));
  }
}
BENCHMARK(BM_Wire_DecodeGrpcTimeout);

// Into a callback that keeps only the last value: the cost of the helper
// itself, without a container's allocations.
void BM_Wire_InjectHttp(benchmark::State& state) {
  AllocationMeter allocs(state);
  const TimePoint now = TimePoint(1h);
  CallContext ctx;
  ctx.deadline = Deadline::After(now, 842ms);
  ctx.attempt = 2;
  ctx.idempotency_key = "order-17";
  std::size_t written = 0;
  const auto sink = [&](std::string_view name, std::string_view value) { written += name.size() + value.size(); };
  for (auto _ : state) {
    InjectHttp(ctx, now, kUnixMs, sink, {.reserve = {.fraction = 0.1}});
    benchmark::DoNotOptimize(written);
  }
}
BENCHMARK(BM_Wire_InjectHttp);

// A typical request's headers in a std::map, as a server middleware sees them.
void BM_Wire_ExtractContext(benchmark::State& state) {
  const std::map<std::string, std::string> headers = {
      {"Host", "inventory.internal"}, {"User-Agent", "stormguard-bench"},
      {"Accept", "application/json"}, {"Content-Type", "application/json"},
      {"Content-Length", "42"},       {"x-request-timeout-ms", "842"},
      {"x-retry-attempt", "2"},       {"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}};
  const TimePoint now = TimePoint(1h);
  AllocationMeter allocs(state);
  for (auto _ : state) {
    ExtractedContext in = Extract(headers, now, kUnixMs);
    benchmark::DoNotOptimize(in);
  }
}
BENCHMARK(BM_Wire_ExtractContext);

}  // namespace
}  // namespace stormguard::bench
