# `cmake --install BUILD --prefix PREFIX` lays out:
#   bin/helionc                      finds PREFIX/include relative to itself
#   include/helion/hl.h, hl/         the language (a CPU library in ref mode)
#   include/helion/runtime/          what generated host code includes
#   lib/libhelion_runtime.a, .so     the runtime (static: helionc::runtime)
#   lib/cmake/helionc/               the CMake package: find_package(helionc CONFIG)
#   share/helionc/device/helion/     the device library (also embedded in the runtime)
# Nothing installed names the source or build tree: the exported targets are relative
# to PREFIX, so the tree can be moved. The directory names are fixed (no GNUInstallDirs
# lib64): an installed helionc looks for ../include and ../lib beside its bin/.
include(CMakePackageConfigHelpers)

set(HELIONC_CMAKE_DIR lib/cmake/helionc)

install(FILES ${PROJECT_SOURCE_DIR}/include/helion/hl.h DESTINATION include/helion)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/helion/hl
                  ${PROJECT_SOURCE_DIR}/include/helion/runtime
        DESTINATION include/helion FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/device/helion
        DESTINATION share/helionc/device FILES_MATCHING PATTERN "*.cuh")

set(helionc_exported helion_hl helion_runtime helion_runtime_shared)
if(TARGET helionc)
  list(APPEND helionc_exported helionc)
endif()
install(TARGETS ${helionc_exported} EXPORT helioncTargets
        RUNTIME DESTINATION bin
        LIBRARY DESTINATION lib
        ARCHIVE DESTINATION lib)
install(EXPORT helioncTargets NAMESPACE helionc:: DESTINATION ${HELIONC_CMAKE_DIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/helioncConfig.cmake.in
  ${PROJECT_BINARY_DIR}/helioncConfig.cmake INSTALL_DESTINATION ${HELIONC_CMAKE_DIR})
# 0.x: a new minor version may change the generated code's ABI.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/helioncConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/helioncConfig.cmake
              ${PROJECT_BINARY_DIR}/helioncConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/HelioncAddKernels.cmake
        DESTINATION ${HELIONC_CMAKE_DIR})
