# Install rules and the CMake package, so an outside program can
#   find_package(tridsim) ; target_link_libraries(app PRIVATE tridsim::tridsim)
include(CMakePackageConfigHelpers)
# CUDA and MPI are private to the library: the installed package names no CUDA:: or MPI:: target,
# so a consumer needs neither package to configure (VTK is a plugin the library opens). A program
# that links libtridsim still links their runtime libraries (a static libtridsim calls them; a
# shared one lists them as DT_NEEDED, which the linker resolves): they are exported as the files
# found here, symbolic links resolved (libmpi.so.40.30.4, not the -dev package's libmpi.so).
function(tridsim_runtime_files out)
  set(files)
  foreach(t IN LISTS ARGN)
    if(NOT TARGET ${t})
      continue()
    endif()
    get_target_property(loc ${t} IMPORTED_LOCATION)
    get_target_property(libs ${t} INTERFACE_LINK_LIBRARIES)  # (MPI's targets list their libraries as paths)
    foreach(lib IN LISTS loc libs)
      if(IS_ABSOLUTE "${lib}" AND EXISTS "${lib}")
        file(REAL_PATH "${lib}" real)
        list(APPEND files ${real})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES files)
  set(${out} ${files} PARENT_SCOPE)
endfunction()
set(_tridsim_private)
if(TRIDSIM_HAVE_CUDA)
  list(APPEND _tridsim_private CUDA::cudart)
endif()
if(TRIDSIM_HAVE_MPI)
  list(APPEND _tridsim_private MPI::MPI_CXX MPI::MPI_C)
endif()
tridsim_runtime_files(_tridsim_runtime ${_tridsim_private})
foreach(f IN LISTS _tridsim_runtime)
  target_link_libraries(tridsim_lib INTERFACE $<INSTALL_INTERFACE:$<LINK_ONLY:${f}>>)
endforeach()
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
