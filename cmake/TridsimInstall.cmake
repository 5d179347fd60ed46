# Install rules and the CMake package, so an outside program can
#   find_package(tridsim) ; target_link_libraries(app PRIVATE tridsim::tridsim)
include(CMakePackageConfigHelpers)
install(TARGETS tridsim_lib EXPORT tridsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tridsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir core solvers outputs physics app)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tridsim
    FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/tridsim_build_info.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tridsim)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/inputs DESTINATION ${CMAKE_INSTALL_DATADIR}/tridsim)
install(EXPORT tridsimTargets NAMESPACE tridsim:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tridsim)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tridsimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tridsimConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tridsim)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tridsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tridsimConfig.cmake ${PROJECT_BINARY_DIR}/tridsimConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tridsim)
