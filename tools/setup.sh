#!/usr/bin/env bash
# Install tridsim's dependencies (Debian 12 / Ubuntu 24.04 packages) and build it in ./build.
# Usage: tools/setup.sh [extra cmake options]      (runs apt-get through sudo when not root)
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
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"

# `import tridsim` for /usr/bin/python3: a .pth file in the user's site directory names the
# package folder of this build (remove that file to undo).
if [ -d build/python/tridsim ]; then
  site=$(/usr/bin/python3 -c 'import site; print(site.getusersitepackages())')
  mkdir -p "$site"
  echo "$PWD/build/python" > "$site/tridsim.pth"
  echo "tridsim: the Python module is importable by /usr/bin/python3 (through $site/tridsim.pth)"
fi
