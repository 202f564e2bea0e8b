// The scenario suites under the Asio coroutine driver, on virtual time.
#include "asio_driver.h"
#include "pipeline/scenarios/attempt_scope_scenarios.h"
#include "pipeline/scenarios/guard_scenarios.h"
#include "pipeline/scenarios/hedge_scenarios.h"
#include "pipeline/scenarios/pipeline_scenarios.h"

namespace stormguard::testkit {

INSTANTIATE_TYPED_TEST_SUITE_P(Asio, PipelineScenarios, AsioDriver);
INSTANTIATE_TYPED_TEST_SUITE_P(Asio, HedgeScenarios, AsioDriver);
INSTANTIATE_TYPED_TEST_SUITE_P(Asio, AttemptScopeScenarios, AsioDriver);
INSTANTIATE_TYPED_TEST_SUITE_P(Asio, GuardScenarios, AsioDriver);

}  // namespace stormguard::testkit
