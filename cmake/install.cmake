# Install: libraries, headers, CMake package (mpinotify::mpinotify and the
# exchange, mpinotify::exchange), pkg-config.
include(CMakePackageConfigHelpers)

install(TARGETS mpinotify mpinotify_exchange EXPORT mpinotifyTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# include/mpinotify: the exchange's C++ headers and the opt-in vendor-API
# shims (mpix_intel.h, mpix_bull.h; docs/vendor_shims.md).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/mpinotify DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp" PATTERN "mpix_*.h")
install(EXPORT mpinotifyTargets NAMESPACE mpinotify::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpinotify)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mpinotifyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/mpinotifyConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpinotify)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mpinotifyConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mpinotifyConfig.cmake
              ${PROJECT_BINARY_DIR}/mpinotifyConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/mpinotify)

configure_file(${PROJECT_SOURCE_DIR}/cmake/mpinotify.pc.in ${PROJECT_BINARY_DIR}/mpinotify.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/mpinotify.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Manual pages (docs/man): man3 for every function of mpi_notify.h, the
# _c and PMPI_ names as .so links, mpinotify(7) and mpinotify-info(1).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/man/ DESTINATION ${CMAKE_INSTALL_MANDIR})
