# tests/layering/layering_self_test.cmake: proves check_layering.cmake
# catches what it guards. Builds small trees under WORK, one violation
# each, and expects the check to fail naming it; a tree of allowed edges
# must pass.
#
#   cmake -DCHECK=<check_layering.cmake> -DWORK=<scratch dir> -P layering_self_test.cmake
cmake_minimum_required(VERSION 3.25)

set(failures "")

# expect_check(<case> <regex or "">  <file> <content> [<file> <content>...]):
# "" expects a pass; otherwise a failure whose message matches the regex.
function(expect_check name expected)
  set(root "${WORK}/${name}")
  file(REMOVE_RECURSE "${root}")
  set(args ${ARGN})
  while(args)
    list(POP_FRONT args path content)
    file(WRITE "${root}/${path}" "${content}\n")
  endwhile()
  execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -P "${CHECK}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expected STREQUAL "" AND NOT rc EQUAL 0)
    set(failures "${failures}\n${name}: expected a pass, got: ${err}" PARENT_SCOPE)
  elseif(NOT expected STREQUAL "" AND (rc EQUAL 0 OR NOT err MATCHES "${expected}"))
    set(failures "${failures}\n${name}: expected a failure matching '${expected}', got rc ${rc}: ${out}${err}"
        PARENT_SCOPE)
  endif()
endfunction()

expect_check(allowed ""
  include/stormguard/core/internal/helpers.h "namespace stormguard::core_internal {}"
  include/stormguard/retry/retry_budget.h [=[#include "stormguard/core/status.h"]=]
  src/retry/retry_session.cc [=[#include "stormguard/retry/retry_budget.h"
void F() { core_internal::Help(); }]=]
  src/hedge/hedge_driver.cc [=[#include "stormguard/retry/retry_budget.h"]=]
  src/pipeline/stages/retry_stage.cc [=[#include "stormguard/retry/retry_driver.h"]=]
  sim/engine.cc [=[#include "stormguard/pipeline/pipeline.h"]=]
  src/config/config_json.cc [=[#include "stormguard/pipeline/presets.h"]=]
  tools/config_command.cc [=[#include "stormguard/config/config_json.h"]=]
  src/exec/timer_service.cc "std::jthread thread_;"
  src/core/striped_counter.cc "unsigned n = std::thread::hardware_concurrency();")

expect_check(upward "retry/retry_policy.h: includes stormguard/pipeline/pipeline.h: retry is below pipeline"
  include/stormguard/retry/retry_policy.h [=[#include "stormguard/pipeline/pipeline.h"]=])

expect_check(sideways "hedge_driver.h: includes stormguard/retry/retry_driver.h: hedge and retry are one layer"
  include/stormguard/hedge/hedge_driver.h [=[#include "stormguard/retry/retry_driver.h"]=])

expect_check(session_waits "retry_session.cc: includes stormguard/retry/retry_driver.h: a session or policy"
  src/retry/retry_session.cc [=[#include "stormguard/retry/retry_driver.h"]=])

expect_check(foreign_internal "time_limiter.h: uses retry_internal::, which belongs to retry"
  include/stormguard/retry/retry_driver.h "namespace retry_internal {}"
  include/stormguard/guard/time_limiter.h "auto r = retry_internal::InvokeCaught(fn, ctx);")

expect_check(core_internal_outside_library "sim/engine.cc: uses core_internal::, which belongs to core"
  include/stormguard/core/internal/helpers.h "namespace stormguard::core_internal {}"
  sim/engine.cc "void F() { core_internal::Help(); }")

expect_check(second_timer "hedge_driver.cc: owns a thread: timers and worker threads live in exec/"
  src/hedge/hedge_driver.cc "std::thread timer_thread_;")

expect_check(config_below_pipeline "pipeline.h: includes stormguard/config/config.h: pipeline is below config"
  include/stormguard/pipeline/pipeline.h [=[#include "stormguard/config/config.h"]=])

expect_check(unplaced "component 'plugins' has no layer"
  include/stormguard/plugins/loader.h [=[#include "stormguard/core/status.h"]=])

if(failures)
  message(FATAL_ERROR "the layering check missed:${failures}")
endif()
message(STATUS "layering check: every planted violation caught")
