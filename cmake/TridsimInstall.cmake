# Install rules and the CMake package, so an outside program can
#   find_package(tridsim) ; target_link_libraries(app PRIVATE tridsim::tridsim)
include(CMakePackageConfigHelpers)
install(TARGETS tridsim_lib EXPORT tridsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS tridsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The installed program (and Python module) find a shared libtridsim in the prefix's library
# folder wherever the prefix is moved: RPATH relative to their own folder ($ORIGIN).
file(RELATIVE_PATH _tridsim_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(tridsim PROPERTIES INSTALL_RPATH "$ORIGIN/${_tridsim_bin_to_lib}")
if(TARGET tridsim_python AND DEFINED TRIDSIM_PYTHON_INSTALL_DIR)
  file(RELATIVE_PATH _tridsim_py_to_lib ${CMAKE_INSTALL_PREFIX}/${TRIDSIM_PYTHON_INSTALL_DIR}/tridsim
                  ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(tridsim_python PROPERTIES INSTALL_RPATH "$ORIGIN/${_tridsim_py_to_lib}")
endif()
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
