# `cmake --build build --target docs`: the API reference of the public headers (core, solvers,
# outputs, physics, app), with README.md as its main page, in <build>/docs/api/html/index.html.
# Defined only when Doxygen is found (tools/setup.sh installs it; Debian: doxygen).
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "tridsim: no Doxygen, so the docs target (API reference) is not defined")
  return()
endif()
set(DOXYGEN_PROJECT_NAME tridsim)
set(DOXYGEN_PROJECT_NUMBER ${PROJECT_VERSION})
set(DOXYGEN_PROJECT_BRIEF "Batched tridiagonal and block-tridiagonal line solvers and the PDE framework on them")
set(DOXYGEN_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/docs/api)
set(DOXYGEN_FILE_PATTERNS *.hpp *.cuh)
set(DOXYGEN_EXTENSION_MAPPING cuh=C++)
set(DOXYGEN_USE_MDFILE_AS_MAINPAGE ${PROJECT_SOURCE_DIR}/README.md)
set(DOXYGEN_STRIP_FROM_PATH ${PROJECT_SOURCE_DIR})
set(DOXYGEN_STRIP_FROM_INC_PATH ${PROJECT_SOURCE_DIR})  # includes shown as consumers write them
# The headers are commented with plain // lines: the filter hands them to Doxygen as /// (a
# header's first comment block as its \file description, a trailing // as ///<).
set(DOXYGEN_INPUT_FILTER "awk -f ${CMAKE_CURRENT_LIST_DIR}/doxygen_filter.awk")
set(DOXYGEN_JAVADOC_AUTOBRIEF YES)  # the first sentence is the brief description
set(DOXYGEN_EXTRACT_ALL YES)
set(DOXYGEN_EXTRACT_STATIC YES)
set(DOXYGEN_EXCLUDE_SYMBOLS detail *::detail *::scan_detail *::output_detail)
set(DOXYGEN_MACRO_EXPANSION YES)
set(DOXYGEN_EXPAND_ONLY_PREDEF YES)
set(DOXYGEN_PREDEFINED TRIDSIM_HOST_DEVICE= __host__= __device__= __global__= __forceinline__= __shared__=
    __restrict__= "__launch_bounds__(x)=" "__align__(x)=")
set(DOXYGEN_WARN_IF_UNDOCUMENTED NO)
set(DOXYGEN_WARN_IF_DOC_ERROR NO)  # the comments are prose, not Doxygen markup
set(DOXYGEN_QUIET YES)
set(DOXYGEN_GENERATE_LATEX NO)
doxygen_add_docs(docs
  ${PROJECT_SOURCE_DIR}/core ${PROJECT_SOURCE_DIR}/solvers ${PROJECT_SOURCE_DIR}/outputs
  ${PROJECT_SOURCE_DIR}/physics ${PROJECT_SOURCE_DIR}/app ${PROJECT_SOURCE_DIR}/README.md
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "API reference (Doxygen): ${PROJECT_BINARY_DIR}/docs/api/html/index.html")
