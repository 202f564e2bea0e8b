// The scenario suite under the Asio coroutine driver, on virtual time.
#include "asio_driver.h"
#include "pipeline/scenarios/pipeline_scenarios.h"

namespace stormguard::testing {

INSTANTIATE_TYPED_TEST_SUITE_P(Asio, PipelineScenarios, AsioDriver);

}  // namespace stormguard::testing
