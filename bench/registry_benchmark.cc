// The registry's hit path: Get(destination, method) for a configured
// method, then the handle's release, on one thread and on two (each
// thread's handles count on its own reference, so two threads should run
// close to twice the calls).
//   Goal: <= 20 ns, 0 allocations, 2 threads >= 1.8x the items/s of one.
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
      "methods": {"GET /items/)" + n + R"(": {"timeout": "250ms"}, "pkg.Svc/*": {"retry": {"max_attempts": 2}}}})";
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
      config::PipelineRef p = registry.Get(destination, method);
      benchmark::DoNotOptimize(p.get());
    }
    if (ThreadAllocations() != before) state.SkipWithError("Get allocated");
  }
  state.SetItemsProcessed(state.iterations());  // after the meter: adding a counter allocates
}
BENCHMARK(BM_Registry_Get);
BENCHMARK(BM_Registry_Get)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
