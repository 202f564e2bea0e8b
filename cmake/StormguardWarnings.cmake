# Warnings for stormguard's own targets; -Werror when STORMGUARD_WERROR is on
# (CI turns it on). Sanitizers apply to every target of the build.
function(stormguard_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
                         -Woverloaded-virtual
                         # GCC 12 flags designated initializers that omit defaulted members,
                         # which is exactly how options structs are meant to be filled.
                         -Wno-missing-field-initializers)
  if(STORMGUARD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(STORMGUARD_SANITIZE)
  add_compile_options(-fsanitize=${STORMGUARD_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${STORMGUARD_SANITIZE})
  if(STORMGUARD_SANITIZE MATCHES "thread")
    # TSan does not model std::atomic_thread_fence (GCC warns, -Wtsan). The
    # timer service's fences only order atomics against atomics (a wake-up
    # protocol, no plain data), so the warning says nothing useful there.
    add_compile_options(-Wno-tsan)
  endif()
endif()

# Test binaries build at STORMGUARD_TEST_OPTIMIZATION (default -O0) whatever
# the build type: a test runs each line a handful of times, so optimizing it
# buys milliseconds at run time and costs about 40% of its compile time
# (measured on this project's test files, -O2 -g vs -O0 -g). The library,
# the tools the integration tests start and the benchmarks keep the build
# type's flags. Empty: tests use the build type's flags too.
set(STORMGUARD_TEST_OPTIMIZATION "-O0" CACHE STRING "Optimization flag for test binaries (empty: the build type's)")

# A test file spends about 40% of its compile time parsing gtest, gmock and
# the standard headers every test uses; each test binary parses them once,
# into a precompiled header. Off under a compiler launcher (ccache), which
# would not cache files built with it and, warm, is faster still.
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(STORMGUARD_TEST_PCH_DEFAULT OFF)
else()
  set(STORMGUARD_TEST_PCH_DEFAULT ON)
endif()
option(STORMGUARD_TEST_PCH "Precompile the headers every test binary uses" ${STORMGUARD_TEST_PCH_DEFAULT})

function(stormguard_test_target target)
  stormguard_set_warnings(${target})
  if(STORMGUARD_TEST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${STORMGUARD_TEST_OPTIMIZATION})
  endif()
  if(STORMGUARD_TEST_PCH)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h> <gmock/gmock.h> <algorithm> <atomic>
                              <chrono> <functional> <memory> <mutex> <optional> <string> <thread> <vector>)
  endif()
endfunction()
