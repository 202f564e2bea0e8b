// Cost of taking and giving back one bulkhead slot around a call.
#include <memory>

#include "guard_bench.h"
#include "stormguard/guard/bulkhead.h"

namespace stormguard::bench {
namespace {

// One bulkhead per run, made by thread 0 before the loop all threads enter together.
std::shared_ptr<Bulkhead> g_bulkhead;

void BM_Bulkhead_AcquireRelease(benchmark::State& state) {
  if (state.thread_index() == 0) {
    g_bulkhead = std::move(Bulkhead::Create({.max_concurrent = 64})).value();
  }
  const TimePoint now = Clock::Real().Now();
  RunAdmittedCalls(state, [&] {
    Result<BulkheadPermit> permit = g_bulkhead->TryAcquire(now);
    if (!permit.ok()) return false;
    benchmark::DoNotOptimize(OpaqueSuccess());
    return true;  // the permit gives its slot back here
  });
}
BENCHMARK(BM_Bulkhead_AcquireRelease);
BENCHMARK(BM_Bulkhead_AcquireRelease)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
