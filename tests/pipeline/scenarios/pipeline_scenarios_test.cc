// The scenario suites under the blocking driver and the completion driver.
#include "pipeline/scenarios/hedge_scenarios.h"
#include "pipeline/scenarios/pipeline_scenarios.h"

namespace stormguard::testing {

using Drivers = ::testing::Types<BlockingDriver, CompletionDriver>;
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, PipelineScenarios, Drivers);
INSTANTIATE_TYPED_TEST_SUITE_P(EveryDriver, HedgeScenarios, Drivers);

}  // namespace stormguard::testing
