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
endif()
