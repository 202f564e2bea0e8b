# tests/layering/check_layering.cmake: fails when an #include or the use of
# an internal namespace goes against the direction of the library's layers.
#
#   cmake -DROOT=<source dir> -P tests/layering/check_layering.cmake
#
# Dependencies point down: core <- backoff, wire, exec, metrics <- retry,
# guard, hedge, chaos, fleet <- pipeline <- config <- adapters (http, grpc, asio, config_sources),
# sim <- tools. A component includes its own
# files and those of lower layers; components of one layer stay apart, but
# for the public interfaces listed in kSideways. Sessions and policies keep
# books and decide, they never wait, so they never include a driver. An
# internal namespace (`*_internal`, `*_detail`) belongs to the component
# that declares it; core's are shared helpers for the rest of the library.
# The library has one timer mechanism and one worker pool, both in exec/:
# a timer needs a thread of its own, so no other library file (include/,
# src/, adapters/) names std::thread or std::jthread.
# Tests are not checked: they may reach into anything.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P check_layering.cmake")
endif()

set(kLayer_core 0)
set(kLayer_backoff 1)
set(kLayer_exec 1)
set(kLayer_metrics 1)
set(kLayer_wire 1)
set(kLayer_retry 2)
set(kLayer_guard 2)
set(kLayer_hedge 2)
set(kLayer_chaos 2)
set(kLayer_fleet 2)
set(kLayer_pipeline 3)
set(kLayer_config 4)
set(kLayer_http 5)
set(kLayer_grpc 5)
set(kLayer_asio 5)
set(kLayer_config_sources 5)
set(kLayer_redis 5)
set(kLayer_sim 5)
set(kLayer_tools 6)
# Hedges spend the same budget as retries (HedgeOptions::budget).
set(kSideways "hedge -> stormguard/retry/retry_budget.h")
# The Asio HTTP transport sets up, bounds and classifies a curl exchange and
# speaks the chain protocol exactly as the blocking client does, by calling it.
list(APPEND kSideways "asio -> stormguard/http/curl_exchange.h" "asio -> stormguard/http/chain_headers.h"
                      "asio -> stormguard/http/message.h")

set(violations "")
macro(violation text)
  list(APPEND violations "${text}")
endmacro()

# The component a file of the tree belongs to ("" when none).
function(component_of file out)
  set(c "")
  foreach(pattern "^include/stormguard/([^/]+)/" "^src/([^/]+)/" "^adapters/([^/]+)/" "^(sim|tools)/")
    if(file MATCHES "${pattern}")
      set(c "${CMAKE_MATCH_1}")
      break()
    endif()
  endforeach()
  set(${out} "${c}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE files RELATIVE "${ROOT}" LIST_DIRECTORIES false
     "${ROOT}/include/*.h" "${ROOT}/src/*.h" "${ROOT}/src/*.cc"
     "${ROOT}/adapters/*.h" "${ROOT}/adapters/*.cc" "${ROOT}/sim/*.h" "${ROOT}/sim/*.cc"
     "${ROOT}/tools/*.h" "${ROOT}/tools/*.cc")
list(FILTER files EXCLUDE REGEX "(^|/)tests/")

# Who declares each internal namespace.
foreach(file IN LISTS files)
  component_of("${file}" c)
  file(STRINGS "${ROOT}/${file}" lines REGEX "namespace [a-z_:]*(internal|detail) *{")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "[a-z_]*(internal|detail) *{" ns "${line}")
    string(REGEX REPLACE " *{$" "" ns "${ns}")
    set(owner_${ns} "${c}")
  endforeach()
endforeach()

foreach(file IN LISTS files)
  component_of("${file}" c)
  if(NOT DEFINED kLayer_${c})
    violation("${file}: component '${c}' has no layer (add it to tests/layering/check_layering.cmake)")
    continue()
  endif()
  if(NOT c STREQUAL "exec" AND file MATCHES "^(include|src|adapters)/")
    file(STRINGS "${ROOT}/${file}" threads REGEX "std::j?thread([^:a-z_]|$)")
    if(threads)
      violation("${file}: owns a thread: timers and worker threads live in exec/ (TimerService, Executor)")
    endif()
  endif()
  file(STRINGS "${ROOT}/${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]stormguard/")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "stormguard/[^\">]+" target "${line}")
    string(REGEX MATCH "^stormguard/([^/]+)/" unused "${target}")
    set(tc "${CMAKE_MATCH_1}")
    if(NOT DEFINED kLayer_${tc})
      violation("${file}: includes ${target}, whose component '${tc}' has no layer")
    elseif(tc STREQUAL c)
      if(file MATCHES "_(session|policy)\\.[a-z]+$" AND target MATCHES "_driver\\.h$")
        violation("${file}: includes ${target}: a session or policy never includes a driver (drivers wait)")
      endif()
    elseif(kLayer_${tc} GREATER kLayer_${c})
      violation("${file}: includes ${target}: ${c} is below ${tc}")
    elseif(kLayer_${tc} EQUAL kLayer_${c} AND NOT "${c} -> ${target}" IN_LIST kSideways)
      violation("${file}: includes ${target}: ${c} and ${tc} are one layer and stay apart")
    endif()
  endforeach()

  file(STRINGS "${ROOT}/${file}" uses REGEX "[a-z_]*(internal|detail)::")
  foreach(line IN LISTS uses)
    # Not after "::": grpc::internal:: is another library's namespace.
    string(REGEX MATCHALL "(^|[^:a-z_])[a-z_]*(internal|detail)::" names "${line}")
    foreach(name IN LISTS names)
      string(REGEX REPLACE "^[^a-z_]" "" name "${name}")
      string(REGEX REPLACE "::$" "" ns "${name}")
      set(owner "${owner_${ns}}")
      if(owner STREQUAL c OR NOT DEFINED owner_${ns})
        continue()
      endif()
      if(NOT (owner STREQUAL "core" AND file MATCHES "^(include|src)/"))
        violation("${file}: uses ${ns}::, which belongs to ${owner}")
      endif()
    endforeach()
  endforeach()
endforeach()

if(violations)
  list(LENGTH violations n)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "${n} layering violation(s):\n  ${text}")
endif()
list(LENGTH files n)
message(STATUS "layering: ${n} files, no violations")
