# install(EXPORT) with a package config and version file, like {fmt}:
# find_package(stormguard) gives stormguard::stormguard and stormguard::config
# (whose nlohmann-json the package config finds, stormguardConfig.cmake.in).
include(CMakePackageConfigHelpers)
set(STORMGUARD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/stormguard)

install(TARGETS stormguard stormguard_config EXPORT stormguardTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/stormguard
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT stormguardTargets NAMESPACE stormguard:: DESTINATION ${STORMGUARD_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/stormguardConfig.cmake.in
  ${PROJECT_BINARY_DIR}/stormguardConfig.cmake INSTALL_DESTINATION ${STORMGUARD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/stormguardConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/stormguardConfig.cmake
              ${PROJECT_BINARY_DIR}/stormguardConfigVersion.cmake
        DESTINATION ${STORMGUARD_CMAKE_DIR})
