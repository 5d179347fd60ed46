#!/usr/bin/env bash
# GPU build and check in one command:
#   1. configure a CUDA build (sm_90 unless CUDA_ARCH says otherwise) in build-gpu and build it;
#   2. run the GPU tests (ctest -L gpu);
#   3. run compute-sanitizer on test_gpu_tridiagonal's reduced cases: memcheck on "gpu sanitizer*"
#      (every axis, both coefficient kinds, every algorithm, the long-line fallback, cuSPARSE),
#      racecheck on "gpu sanitizer subset*" (our kernels only);
#   4. compute-sanitizer memcheck on the modules' GPU tests (BVP recurrences, Poisson, glioma;
#      Poisson without its largest sizes), racecheck on the Poisson BCR kernels (shared memory);
#   5. run every GPU benchmark (line solvers, ADI step, BVP, Poisson, glioma), JSON into the folder.
#
# Usage: tools/gpu_check.sh [RESULTS_DIR]        (default: build-gpu/results)
# Environment: BUILD_DIR (build-gpu), CUDA_ARCH (90), JOBS (nproc), CMAKE_ARGS (extra options),
#              BENCH_FILTER (a --benchmark_filter regex; default: everything),
#              SKIP_BENCH=1 to stop after the sanitizers.
# Logs of every step go to RESULTS_DIR too. Exits non-zero at the first failing step.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build-gpu}
RESULTS=${1:-$BUILD_DIR/results}
CUDA_ARCH=${CUDA_ARCH:-90}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)

step() { echo; echo "==== $* ===="; }

step "configure ($BUILD_DIR, sm_$CUDA_ARCH)"
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
# shellcheck disable=SC2086
cmake -S "$ROOT" -B "$BUILD_DIR" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DTRIDSIM_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" ${CMAKE_ARGS:-} 2>&1 | tee "$RESULTS/configure.log"

step "build"
cmake --build "$BUILD_DIR" -j"$JOBS" 2>&1 | tee "$RESULTS/build.log"

step "ctest -L gpu"
ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure 2>&1 | tee "$RESULTS/ctest-gpu.log"

TEST_BIN=$(find "$BUILD_DIR" -name test_gpu_tridiagonal -type f -perm -u+x | head -n 1)
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
step "compute-sanitizer --tool memcheck"
"$SANITIZER" --tool memcheck --error-exitcode 1 "$TEST_BIN" -tc="gpu sanitizer*" 2>&1 |
  tee "$RESULTS/sanitizer-memcheck.log"
step "compute-sanitizer --tool racecheck"
"$SANITIZER" --tool racecheck --error-exitcode 1 "$TEST_BIN" -tc="gpu sanitizer subset*" 2>&1 |
  tee "$RESULTS/sanitizer-racecheck.log"

for t in test_gpu_recurrence test_gpu_poisson test_glioma_gpu; do  # the modules' GPU tests
  BIN=$(find "$BUILD_DIR" -name "$t" -type f -perm -u+x | head -n 1)
  [ -n "$BIN" ] || continue
  ARGS=()
  [ "$t" = test_gpu_poisson ] && ARGS=(-tce="*largest*")  # 8191^2 and 511^3: too slow under the sanitizer
  step "compute-sanitizer --tool memcheck $t"
  "$SANITIZER" --tool memcheck --error-exitcode 1 "$BIN" "${ARGS[@]}" 2>&1 | tee "$RESULTS/sanitizer-memcheck-$t.log"
done
POISSON_BIN=$(find "$BUILD_DIR" -name test_gpu_poisson -type f -perm -u+x | head -n 1)
if [ -n "$POISSON_BIN" ]; then
  step "compute-sanitizer --tool racecheck test_gpu_poisson"
  "$SANITIZER" --tool racecheck --error-exitcode 1 "$POISSON_BIN" -tce="*largest*,*module*" 2>&1 |
    tee "$RESULTS/sanitizer-racecheck-test_gpu_poisson.log"
fi

if [ "${SKIP_BENCH:-0}" = 1 ]; then exit 0; fi
# Every GPU benchmark, JSON into RESULTS (BENCH_FILTER applies to each).
bench() {  # name, default filter
  local BIN
  BIN=$(find "$BUILD_DIR" -name "$1" -type f -perm -u+x | head -n 1)
  [ -n "$BIN" ] || return 0
  step "benchmark $1"
  "$BIN" --benchmark_out="$RESULTS/$1.json" --benchmark_out_format=json \
    --benchmark_filter="${BENCH_FILTER:-$2}" 2>&1 | tee "$RESULTS/$1.log"
}
bench bench_gpu_line_solvers .
bench bench_adi cuda
bench bench_gpu_bvp .
bench bench_gpu_poisson 'gpu_poisson(2d|3d)/.*/double/'
bench bench_glioma cuda
echo
echo "results in $RESULTS (tools/gpu_selection_table.py $RESULTS/bench_gpu_line_solvers.json rewrites the auto table)"
