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
