#!/usr/bin/env bash
# Build everything in ./build (tools/setup.sh configured it) and run the test suite; arguments go
# to ctest. GPU tests skip themselves without a device.
#
# A build that tools/setup.sh made without the CUDA backend because no GPU was visible gets it here
# when nvcc is found: the GPU code is compiled on a login node for the GPU nodes
# (TRIDSIM_CUDA=OFF in this script's environment keeps it off).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/CMakeCache.txt ]; then
  echo "error: no build in ./build: run tools/setup.sh first" >&2
  exit 2
fi
if [ "${TRIDSIM_CUDA:-AUTO}" != OFF ] && grep -q '^TRIDSIM_CUDA_LATER:BOOL=ON$' build/CMakeCache.txt; then
  cmake -S . -B build -DTRIDSIM_CUDA=AUTO -DTRIDSIM_CUDA_LATER=OFF
fi
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
