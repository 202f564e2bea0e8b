# How the test binaries build and how CTest runs them.

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

# A test binary compiles its files in batches of STORMGUARD_TEST_UNITY_BATCH
# (CMake's unity build): each batch parses gtest, the standard library and
# the project's headers once instead of once per file. 0: one file at a time.
set(STORMGUARD_TEST_UNITY_BATCH "8" CACHE STRING "Test files per unity batch (0: no unity build)")

# A file's batch is fixed by its place among all the .cc files of its folder,
# not by which files the build compiles: a build that leaves some out (TSan
# builds a subset) compiles subsets of the same batches, so two files that
# share a batch there share one in every build, and a clash of names between
# them shows in the plain build first.
function(stormguard_unity_batches target)
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    get_filename_component(path ${source} ABSOLUTE)
    get_filename_component(dir ${path} DIRECTORY)
    file(GLOB siblings ${dir}/*.cc)
    list(SORT siblings)
    list(FIND siblings ${path} index)
    if(index LESS 0)
      continue()
    endif()
    math(EXPR batch "${index} / ${STORMGUARD_TEST_UNITY_BATCH}")
    file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${dir})
    string(MAKE_C_IDENTIFIER "${folder}_${batch}" group)
    set_source_files_properties(${source} PROPERTIES UNITY_GROUP ${group})
  endforeach()
endfunction()

function(stormguard_test_target target)
  stormguard_set_warnings(${target})
  if(STORMGUARD_TEST_UNITY_BATCH GREATER 0)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    stormguard_unity_batches(${target})
    # A coroutine frame that holds a lambda of a test's anonymous namespace
    # has no linkage; gcc warns when the file defining it is not the main
    # file, which every file of a unity batch is not.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
  if(STORMGUARD_TEST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${STORMGUARD_TEST_OPTIMIZATION})
  endif()
  if(STORMGUARD_TEST_PCH)
    target_precompile_headers(${target} PRIVATE <gtest/gtest.h> <gmock/gmock.h> <algorithm> <atomic>
                              <chrono> <functional> <memory> <mutex> <optional> <string> <thread> <vector>)
  endif()
endfunction()

# Registers a test binary's tests with CTest. The plain build registers each
# test on its own: a failure names its test. A sanitizer build runs the
# binary whole, in two shards (ctest's two jobs): a process per test pays a
# sanitized binary's start-up every time, most of those runs' test time (the
# CI's ASan run spent 750 s in ctest, its unit tests a few seconds each);
# a failure's output still names its test. For the binaries whose tests run
# in one process; those that judge the CLI's processes keep a test each, so
# sanitize.sh can skip them by name.
function(stormguard_add_gtests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TIMEOUT" "LABELS")
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 60)
  endif()
  set(labels)
  if(arg_LABELS)
    set(labels LABELS ${arg_LABELS})
  endif()
  if(NOT STORMGUARD_SANITIZE)
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${arg_TIMEOUT} ${labels})
    return()
  endif()
  foreach(shard 0 1)
    add_test(NAME ${target}.shard${shard} COMMAND ${target} --gtest_brief=1)
    set_tests_properties(${target}.shard${shard} PROPERTIES TIMEOUT 900 ${labels}
                         ENVIRONMENT "GTEST_TOTAL_SHARDS=2;GTEST_SHARD_INDEX=${shard}")
  endforeach()
endfunction()
