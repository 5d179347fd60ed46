#!/usr/bin/env bash
# ctest package_cpu_consumer (label package): a CPU program builds against the installed package
# with VTK, MPI and CUDA out of reach. The build tree is installed into a prefix (a copy: seconds),
# the library example of docs/library.md (examples/cpp, solve_lines) is configured with
# CMAKE_DISABLE_FIND_PACKAGE_{VTK,MPI,CUDAToolkit,CUDA}=ON, so any find_package of them in
# tridsimConfig.cmake would fail it, built and run; and the installed export names no VTK::,
# MPI:: or CUDA:: target (which a consumer would have to define).
# Usage: cpu_consumer_test.sh CMAKE TRIDSIM_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER CONFIG
set -euo pipefail
[[ $# -eq 6 ]] || { echo "usage: $0 CMAKE TRIDSIM_BUILD_DIR WORK_DIR GENERATOR CXX_COMPILER CONFIG" >&2; exit 2; }
cmake=$1 tridsim_build=$2 work=$3 generator=$4 cxx=$5 config=$6
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=$work/prefix build=$work/build
rm -rf "$prefix" "$build" && mkdir -p "$work"

"$cmake" --install "$tridsim_build" --prefix "$prefix" --config "$config" > "$work/install.log" ||
  { cat "$work/install.log"; exit 1; }
if grep -nE '(VTK|MPI|CUDA)::' "$prefix"/lib*/cmake/tridsim/tridsimTargets*.cmake; then
  echo "FAIL: the installed package's targets name VTK, MPI or CUDA targets (above)"; exit 1
fi
hidden=()
for p in VTK MPI CUDAToolkit CUDA; do hidden+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON"); done
"$cmake" -S "$here/../../examples/cpp" -B "$build" -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$config" "${hidden[@]}" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: configure with VTK, MPI and CUDA hidden"; exit 1; }
"$cmake" --build "$build" --config "$config" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
solve_lines=$(find "$build" -type f -name solve_lines -perm -u+x | head -n 1)
"$solve_lines" || { echo "FAIL: solve_lines"; exit 1; }
echo "package_cpu_consumer: examples/cpp configured, built and run with VTK, MPI and CUDA hidden"
