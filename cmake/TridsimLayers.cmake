# The layers of docs/architecture.md, one object library each: tridsim_core, tridsim_solvers,
# tridsim_outputs, tridsim_physics, tridsim_app.
#
#   core <- solvers, outputs <- physics <- app
#
# A layer compiles with an include path that holds its own folder and the folders of the layers
# below it, nothing else: each folder is staged alone as a symbolic link
# (<build>/layers/physics/physics -> <source>/physics), so from core/ `#include "physics/..."`
# finds no file and the build fails (the test `layers` plants one). tridsim_lib, the library that
# is installed and that the programs, tests and Python module link, holds every layer's objects.

# What the library's sources are built with, PUBLIC on tridsim_lib: its programs and tests in
# this tree compile with it too.
set(TRIDSIM_SHARED_OPTIONS)
set(TRIDSIM_SHARED_LINK_OPTIONS)
if(TRIDSIM_NATIVE)  # this tree's targets only: the installed package never passes it to a consumer
  list(APPEND TRIDSIM_SHARED_OPTIONS $<BUILD_INTERFACE:$<$<COMPILE_LANGUAGE:CXX>:-march=native>>)
endif()
if(TRIDSIM_SANITIZE)
  list(APPEND TRIDSIM_SHARED_OPTIONS -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  list(APPEND TRIDSIM_SHARED_LINK_OPTIONS -fsanitize=address,undefined)
endif()
if(TRIDSIM_FUZZ)  # coverage for libFuzzer and ASan + UBSan over the library; the harness links the fuzzer
  list(APPEND TRIDSIM_SHARED_OPTIONS -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                                     -fno-sanitize-recover=all)
  list(APPEND TRIDSIM_SHARED_LINK_OPTIONS -fsanitize=address,undefined)
endif()

# What every layer compiles with: the shared options, the third-party headers the layers' own
# headers include (yaml-cpp in core/deck.hpp, HDF5 in core/hdf5_support.hpp, ...) and the options
# for the library's own sources alone.
add_library(tridsim_layer_settings INTERFACE)
target_compile_features(tridsim_layer_settings INTERFACE cxx_std_20)
target_include_directories(tridsim_layer_settings INTERFACE ${PROJECT_BINARY_DIR}/generated)
target_link_libraries(tridsim_layer_settings INTERFACE OpenMP::OpenMP_CXX spdlog::spdlog fmt::fmt yaml-cpp
                      muparser::muparser HDF5::HDF5 nlohmann_json::nlohmann_json)
target_compile_options(tridsim_layer_settings INTERFACE ${TRIDSIM_SHARED_OPTIONS}
                       $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
if(BUILD_SHARED_LIBS)  # (CMakeLists.txt says why)
  target_compile_options(tridsim_layer_settings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fvisibility-inlines-hidden>)
endif()
if(TRIDSIM_SANITIZE)
  # The tests that run whole decks spend their time in the library's per-node loops; -Og inlines
  # their small functions (grid coordinates, array access), which -O0 calls one by one.
  target_compile_options(tridsim_layer_settings INTERFACE -Og)
endif()

set(TRIDSIM_LAYERS_BELOW_core)
set(TRIDSIM_LAYERS_BELOW_solvers core)
set(TRIDSIM_LAYERS_BELOW_outputs core)
set(TRIDSIM_LAYERS_BELOW_physics core solvers outputs)
set(TRIDSIM_LAYERS_BELOW_app core solvers outputs physics)

# The include directories of a layer's code: its staged folder and those of the layers below.
function(tridsim_layer_include_dirs out layer)
  set(dirs)
  foreach(l IN LISTS TRIDSIM_LAYERS_BELOW_${layer} layer)
    list(APPEND dirs ${PROJECT_BINARY_DIR}/layers/${l})
  endforeach()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

# tridsim_add_layer(LAYER): the object library tridsim_LAYER of the folder LAYER (called in that
# folder's CMakeLists.txt, which adds the sources), its objects part of tridsim_lib.
function(tridsim_add_layer layer)
  set(staged ${PROJECT_BINARY_DIR}/layers/${layer})
  file(MAKE_DIRECTORY ${staged})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${layer} ${staged}/${layer} SYMBOLIC)
  add_library(tridsim_${layer} OBJECT)
  target_include_directories(tridsim_${layer} PUBLIC ${staged})
  target_link_libraries(tridsim_${layer} PRIVATE tridsim_layer_settings)
  foreach(below IN LISTS TRIDSIM_LAYERS_BELOW_${layer})
    target_link_libraries(tridsim_${layer} PUBLIC tridsim_${below})  # (usage requirements only)
  endforeach()
  target_sources(tridsim_lib PRIVATE $<TARGET_OBJECTS:tridsim_${layer}>)
endfunction()

# tridsim_layer_libraries(LAYER LIB...): third-party libraries of a layer's sources alone: the
# layer compiles with them, tridsim_lib links them (and exports them as its link dependencies).
function(tridsim_layer_libraries layer)
  target_link_libraries(tridsim_${layer} PRIVATE ${ARGN})
  target_link_libraries(tridsim_lib PRIVATE ${ARGN})
endfunction()
