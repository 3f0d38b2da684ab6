# The CMake package `cmake --install` writes under <prefix>/lib/cmake/tilec:
# the exported targets (tilec::tilec, tile-opt, tilec::runtime,
# tilec::mamba2; each directory installs its own), tilecConfig.cmake, its
# version file and tilec_add_kernel_library. Included last, once every
# target of the export set exists.
include(CMakePackageConfigHelpers)
set(TILEC_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilec)

install(EXPORT tilecTargets NAMESPACE tilec::
  DESTINATION ${TILEC_PACKAGE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/tilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_PACKAGE_DIR})
# 0.x: a minor version may change the C ABI's symbol version or the
# launchers' form, so only the same minor version is compatible.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/tilecConfig.cmake
  ${PROJECT_BINARY_DIR}/tilecConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/TilecKernelLibrary.cmake
  DESTINATION ${TILEC_PACKAGE_DIR})
