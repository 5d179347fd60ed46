#!/usr/bin/env bash
# Install tridsim's dependencies (Debian 12 / Ubuntu 24.04 packages) and build, in ./build, what
# `tridsim run` and `import tridsim` need: the program, the library and the Python module. Tests
# and benchmarks are built by tools/test.sh (or `cmake --build build`).
# Usage: tools/setup.sh [extra cmake options]      (runs apt-get through sudo when not root)
#
# The CUDA backend is compiled here when a GPU is visible (nvidia-smi lists one) and nvcc is
# found; on a machine without a GPU (a login node, a laptop) the first build is CPU only, and
# tools/test.sh compiles the CUDA backend later if nvcc is found. -DTRIDSIM_CUDA=ON|OFF|AUTO decides
# instead. ccache is used when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
  build-essential cmake ninja-build pkg-config \
  libyaml-cpp-dev libhdf5-dev libmuparser-dev libspdlog-dev libfmt-dev libcli11-dev \
  doctest-dev libbenchmark-dev liblapacke-dev libopenblas-openmp-dev libsuitesparse-dev libmumps-seq-dev nlohmann-json3-dev libvtk9-dev libfftw3-dev libnifti2-dev \
  libopenmpi-dev openmpi-bin libhdf5-openmpi-dev \
  python3 python3-dev pybind11-dev python3-h5py python3-numpy python3-scipy python3-matplotlib python3-pytest \
  doxygen

options=(-G Ninja -DCMAKE_BUILD_TYPE=Release)
if [ ! -f build/CMakeCache.txt ] && [[ "$*" != *TRIDSIM_CUDA=* ]] && ! nvidia-smi -L > /dev/null 2>&1; then
  options+=(-DTRIDSIM_CUDA=OFF -DTRIDSIM_CUDA_LATER=ON)  # no GPU here: tools/test.sh compiles it
fi
if command -v ccache > /dev/null; then
  options+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build "${options[@]}" "$@"
cmake --build build -j"$(nproc)" --target programs

# `import tridsim` for /usr/bin/python3: a .pth file in the user's site directory names the
# package folder of this build (remove that file to undo).
if [ -d build/python/tridsim ]; then
  site=$(/usr/bin/python3 -c 'import site; print(site.getusersitepackages())')
  mkdir -p "$site"
  echo "$PWD/build/python" > "$site/tridsim.pth"
  echo "tridsim: the Python module is importable by /usr/bin/python3 (through $site/tridsim.pth)"
fi
