// The scenario suites under the blocking driver and the completion driver.
#include "pipeline/scenarios/attempt_scope_scenarios.h"
#include "pipeline/scenarios/guard_scenarios.h"
#include "pipeline/scenarios/hedge_scenarios.h"
#include "pipeline/scenarios/pipeline_scenarios.h"

namespace stormguard::testkit {

using Drivers = ::testing::Types<BlockingDriver, CompletionDriver>;
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, PipelineScenarios, Drivers);
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, HedgeScenarios, Drivers);
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, AttemptScopeScenarios, Drivers);
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, GuardScenarios, Drivers);

}  // namespace stormguard::testkit
