# OpenBLAS (BLAS and LAPACK in one library) for the sparse direct solver's dense fronts. Its
# OpenMP build (Debian: libopenblas-openmp-dev) runs single-threaded inside the solver's parallel
# regions and threaded outside them. A full library path keeps the exported static library usable
# by find_package(tridsim) without BLAS-specific code in its config.
find_library(TRIDSIM_OPENBLAS_LIBRARY NAMES openblas PATH_SUFFIXES openblas-openmp REQUIRED)
message(STATUS "tridsim: OpenBLAS ${TRIDSIM_OPENBLAS_LIBRARY}")
