# FFTW 3 (double and float, with their OpenMP thread libraries), for the sine-transform Poisson
# solver. Debian ships no CMake config for FFTW: pkg-config finds it, find_library the thread
# libraries beside it. Full library paths (not an imported target) keep the exported static
# tridsim library usable by find_package(tridsim) without FFTW-specific code in its config.
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED fftw3)
set(TRIDSIM_FFTW_LIBRARIES "")
foreach(lib fftw3_omp fftw3f_omp fftw3 fftw3f)
  find_library(TRIDSIM_${lib}_LIBRARY NAMES ${lib} HINTS ${FFTW3_LIBRARY_DIRS} REQUIRED)
  list(APPEND TRIDSIM_FFTW_LIBRARIES ${TRIDSIM_${lib}_LIBRARY})
endforeach()
set(TRIDSIM_FFTW_INCLUDE_DIRS ${FFTW3_INCLUDE_DIRS})
