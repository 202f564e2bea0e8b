// The registry's hit path: Get(destination, method) for a configured
// method, then the handle's release, on one thread and on two (each
// thread's handles count on its own reference, so two threads should run
// close to twice the calls).
//   Goal: <= 20 ns, 0 allocations, 2 threads >= 1.8x the items/s of one;
//   the same for a live handle's Pin (BM_Registry_LiveHandlePin).
// BM_Pipeline_Success_LiveHandle: BM_Pipeline_Success's stages from JSON,
//   called through registry.Follow(...).
#include <benchmark/benchmark.h>

#include <string>

#include "bench_util.h"
#include "stormguard/config/registry.h"

namespace stormguard::bench {
namespace {

// 100 destinations, each with a budget, a breaker, four stages and two
// method entries.
std::string Config() {
  std::string text = R"({"destinations": {)";
  for (int i = 0; i < 100; ++i) {
    const std::string n = std::to_string(i);
    text += (i == 0 ? "" : ",") + std::string(R"("svc-)") + n + R"(": {
      "retry_budget": {"token_bucket": {}},
      "circuit_breaker": {},
      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, {"retry": {}}, "circuit_breaker",
                              {"attempt_timeout": {"timeout": "300ms"}}]},
      "methods": {"GET /items/)" +
            n + R"(": {"timeout": "250ms"}, "pkg.Svc/*": {"retry": {"max_attempts": 2}}}})";
  }
  return text + "}}";
}

const config::Registry& TheRegistry() {
  static const config::Registry* registry = [] {
    auto* r = new config::Registry();
    if (!r->Apply(Config(), "benchmark").ok()) std::abort();
    return r;
  }();
  return *registry;
}

void BM_Registry_Get(benchmark::State& state) {
  const config::Registry& registry = TheRegistry();
  const std::string destination = "svc-42", method = "GET /items/42";
  (void)registry.Get(destination, method);  // this thread's reference
  {
    AllocationMeter allocs(state);
    const std::uint64_t before = ThreadAllocations();
    for (auto _ : state) {
      PipelineRef p = registry.Get(destination, method);
      benchmark::DoNotOptimize(p.get());
    }
    if (ThreadAllocations() != before) state.SkipWithError("Get allocated");
  }
  state.SetItemsProcessed(state.iterations());  // after the meter: adding a counter allocates
}
BENCHMARK(BM_Registry_Get);
BENCHMARK(BM_Registry_Get)->Threads(2);

// The hit path of a live handle (what every call through one pays first):
// Pin(), which asks the registry, then the release.
void BM_Registry_LiveHandlePin(benchmark::State& state) {
  static const PipelineRef* const live = new PipelineRef(TheRegistry().Follow("svc-42", "GET /items/42"));
  (void)live->Pin();  // this thread's reference
  {
    AllocationMeter allocs(state);
    const std::uint64_t before = ThreadAllocations();
    for (auto _ : state) {
      PipelineRef p = live->Pin();
      benchmark::DoNotOptimize(p.get());
    }
    if (ThreadAllocations() != before) state.SkipWithError("Pin allocated");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Registry_LiveHandlePin);
BENCHMARK(BM_Registry_LiveHandlePin)->Threads(2);

// BM_Pipeline_Success's pipeline, configured, called through a live handle
// (compare with BM_Pipeline_Success in the same run).
void BM_Pipeline_Success_LiveHandle(benchmark::State& state) {
  static const config::Registry* const registry = [] {
    auto* r = new config::Registry();
    const char* text = R"({"destinations": {"payments": {
      "retry_budget": {"token_bucket": {}},
      "circuit_breaker": {}, "bulkhead": {"max_concurrent": 1000},
      "rate_limiter": {"rate": 1e9, "burst": 1000000000},
      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, {"retry": {"max_attempts": 3}},
                              "circuit_breaker", "bulkhead", "rate_limiter"]}}}})";
    if (!r->Apply(text, "benchmark").ok()) std::abort();
    return r;
  }();
  static const PipelineRef* const live = new PipelineRef(registry->Follow("payments"));
  CallContext ctx;
  auto call = [](CallContext&) { return OpaqueSuccess() == 1 ? Status::Ok() : Status::Internal("unreachable"); };
  for (int i = 0; i < 100; ++i) (void)live->Execute(ctx, call);  // fills the per-thread pools
  std::int64_t failed = 0;
  {
    AllocationMeter allocs(state);
    const std::uint64_t before = ThreadAllocations();
    for (auto _ : state) {
      Status s = live->Execute(ctx, call);
      if (!s.ok()) [[unlikely]]
        ++failed;
      benchmark::DoNotOptimize(s);
    }
    if (ThreadAllocations() != before) state.SkipWithError("the success path allocated");
  }
  if (failed > 0) state.SkipWithError("a call failed: the benchmark is misconfigured");
}
BENCHMARK(BM_Pipeline_Success_LiveHandle);

}  // namespace
}  // namespace stormguard::bench
