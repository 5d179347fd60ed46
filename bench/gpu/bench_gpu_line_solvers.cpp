// Benchmarks of the CUDA batched tridiagonal solvers (solvers/tridiagonal/cuda/batched_cuda.hpp),
// read against the device's measured copy bandwidth and against cuSPARSE.
//
//   bench_gpu_line_solvers                                     # everything
//   bench_gpu_line_solvers --benchmark_filter='copy|256\^3'     # the 256^3 cases
//   bench_gpu_line_solvers --benchmark_out=gpu.json --benchmark_out_format=json
//
// Cases (x-fastest dense arrays in device memory, solved in place):
//  - copy/d2d/134MB: cudaMemcpyAsync device to device of 2^27 bytes (one 256^3 double array);
//    bytes = read + write = 2 * size. Runs first: the others report their fraction of it.
//  - solve/<T>/<source>/<algorithm>/256^3/<axis>: every axis of a 256^3 array;
//  - batch/<T>/<source>/<algorithm>/<axis>/<batch>x<N>: batch = 65536 or 4096 systems of length
//    N = 64 ... 1024, along x (an N x batch array) and along y (256 x N x 256 or 64 x N x 64);
//  - long/<T>/<source>/<algorithm>/<shape>/<axis>: lines of 1024 to 65536 points (x, y, z; 2D and
//    3D) with auto (a cluster per line set for a factored matrix up to 8192 points, thomas's
//    segmented path otherwise) and thomas-naive, and the 256^3 cube with auto;
// with every algorithm that supports the lines: thomas (shared-memory staging; local
// transposition on x), thomas-naive (the paper's naive solver), thomas-pcr (N <= 512), pcr
// (N <= 1024) and cusparse (gtsv2StridedBatch on x, gtsvInterleavedBatch on y/z; arrays whose
// first lower and last upper coefficients along x are zero, passed to it as they are).
// tools/gpu_selection_table.py turns the batch cases into the table of GpuAlgorithm::automatic.
// Sources: uniform (the constant-coefficient diffusion matrix I - w d2/dx2 with Neumann ends,
// factored once; rows sum to 1, so repeated in-place solves keep the values bounded and
// normal) and arrays (a, b, c stored in full; diagonally dominant rows summing to 1 along x).
//
// Each iteration is one solve on one stream, timed with CUDA events (manual time; the launch
// is inside the interval). Counters:
//   points/s        grid points (line elements) solved per second;
//   bytes/s         minimal traffic / time: uniform 2*sizeof(T) per point (d read, x written),
//                   arrays 5*sizeof(T) per point (a, b, c, d read, x written);
//   copy_fraction   bytes/s over the copy bandwidth measured by copy/d2d/134MB in this run;
//   lines_per_warp, smem_KiB   the launch plan of thomas (0 for the global-memory kernels).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/gpu/gpu_bench_support.hpp"
#include "core/boundary_kind.hpp"
#include "core/types.hpp"
#include "solvers/tridiagonal/coefficients.hpp"
#include "solvers/tridiagonal/cuda/batched_cuda.hpp"
#include "solvers/tridiagonal/line_set.hpp"

namespace {

using namespace tridsim;
using namespace tridsim::tridiag;
using namespace tridsim::gpu_bench;

constexpr double kW = 0.3;  // theta * dt * kappa / h^2 of the generated matrices

// The device arrays of one shape; the last one built is kept (rebuilt when the shape or the
// precision changes).
template <class T>
struct Problem {
  std::array<index_t, 3> n{};
  index_t size = 0;
  DeviceBuffer<T> d, a, b, c;

  explicit Problem(std::array<index_t, 3> shape) : n(shape), size(shape[0] * shape[1] * shape[2]) {
    std::vector<T> host(static_cast<std::size_t>(size));
    auto upload = [&](DeviceBuffer<T>& dst) {
      dst = device_alloc<T>(size);
      ok(cudaMemcpy(dst.get(), host.data(), sizeof(T) * host.size(), cudaMemcpyHostToDevice), "upload");
    };
    for (index_t i = 0; i < size; ++i) host[i] = T(hash01(i) - 0.5);
    upload(d);
    // Rows a x_{i-1} + b x_i + c x_{i+1} with a, c in [-0.45, -0.15], zero at the x ends,
    // b = 1 - a - c (diagonally dominant, rows summing to 1 along x).
    auto lower = [&](index_t i) { return i % n[0] == 0 ? 0.0 : -kW * (0.5 + hash01(i + 1)); };
    auto upper = [&](index_t i) { return i % n[0] == n[0] - 1 ? 0.0 : -kW * (0.5 + hash01(i + 2)); };
    for (index_t i = 0; i < size; ++i) host[i] = T(lower(i));
    upload(a);
    for (index_t i = 0; i < size; ++i) host[i] = T(upper(i));
    upload(c);
    for (index_t i = 0; i < size; ++i) host[i] = T(1.0 - lower(i) - upper(i));
    upload(b);
  }
};

template <class T>
Problem<T>& problem(std::array<index_t, 3> n) {
  static std::unique_ptr<Problem<T>> cached;
  if (!cached || cached->n != n) {
    cached.reset();
    ok(cudaDeviceSynchronize(), "sync");
    cached = std::make_unique<Problem<T>>(n);
  }
  return *cached;
}

// Time `solve` once per iteration and set the counters.
template <class Solve>
void time_solves(benchmark::State& state, const Solve& solve, double points, double bytes_per_point) {
  const double total = gpu_bench::time_calls(state, solve);
  if (total > 0) state.counters["points/s"] = points * double(state.iterations()) / total;
  gpu_bench::bandwidth_counters(state, points * bytes_per_point, total);
}

enum class Source { uniform, arrays };

void plan_counters(benchmark::State& state, const GpuLaunchPlan& p) {
  state.counters["lines_per_warp"] = p.shared_memory ? p.lines_per_warp : 0;
  state.counters["smem_KiB"] = p.shared_memory ? double(p.smem_bytes) / 1024.0 : 0;
}

template <class T>
void bm_solve(benchmark::State& state, std::array<index_t, 3> n, int axis, Source src, GpuAlgorithm alg) {
  Problem<T>& P = problem<T>(n);
  const LineSet L{n, {1, n[0], n[0] * n[1]}, axis};
  const double points = double(P.size);
  try {
    if (src == Source::uniform) {
      const UniformMatrixDevice<T> M(uniform_diffusion_matrix<T>(n[axis], T(kW), BoundaryKind::neumann,
                                                                 BoundaryKind::neumann));
      time_solves(state, [&] { solve_lines_cuda<T>(L, M, P.d.get(), g_stream, alg); }, points, 2.0 * sizeof(T));
    } else if (alg == GpuAlgorithm::cusparse) {
      CusparseTridiagonal cs;
      time_solves(state, [&] { cs.solve<T>(L, P.a.get(), P.b.get(), P.c.get(), P.d.get(), g_stream, true); }, points,
                  5.0 * sizeof(T));
    } else {
      time_solves(state, [&] { solve_lines_cuda<T>(L, P.a.get(), P.b.get(), P.c.get(), P.d.get(), g_stream, alg); },
                  points, 5.0 * sizeof(T));
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  if (alg == GpuAlgorithm::thomas) plan_counters(state, plan_lines_cuda<T>(L, src == Source::uniform));
  else plan_counters(state, GpuLaunchPlan{});
}

const char* source_name(Source s) { return s == Source::uniform ? "uniform" : "arrays"; }
void add(const std::string& name, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.1);
}

const GpuAlgorithm kAlgorithms[] = {GpuAlgorithm::thomas, GpuAlgorithm::thomas_naive,   GpuAlgorithm::thomas_pcr,
                                    GpuAlgorithm::pcr,    GpuAlgorithm::thomas_shuffle, GpuAlgorithm::cusparse};

// Every algorithm that supports lines along `axis` of an array of shape n, both sources.
template <class T>
void add_all(const std::string& prefix, const std::string& suffix, std::array<index_t, 3> n, int axis) {
  const LineSet L{n, {1, n[0], n[0] * n[1]}, axis};
  for (Source src : {Source::uniform, Source::arrays})
    for (GpuAlgorithm alg : kAlgorithms)
      if (gpu_algorithm_supports(alg, L))
        add(prefix + "/" + source_name(src) + "/" + gpu_algorithm_name(alg) + suffix,
            [=](benchmark::State& st) { bm_solve<T>(st, n, axis, src, alg); });
}

template <class T>
void register_all(const char* tname) {
  const char* axes[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis)
    add_all<T>(std::string("solve/") + tname, std::string("/256^3/") + axes[axis], {256, 256, 256}, axis);
  // batch/<T>/<source>/<algorithm>/<axis>/<batch>x<N>: lines along x of an N x batch array, and
  // along y of a 256 x N x 256 (batch 65536) or 64 x N x 64 (batch 4096) array.
  for (index_t batch : {index_t(65536), index_t(4096)})
    for (index_t N : {64, 128, 256, 512, 1024}) {
      const std::string suffix = "/" + std::to_string(batch) + "x" + std::to_string(N);
      const index_t side = batch == 65536 ? 256 : 64;
      add_all<T>(std::string("batch/") + tname, "/x" + suffix, {N, batch, 1}, 0);
      add_all<T>(std::string("batch/") + tname, "/y" + suffix, {side, N, side}, 1);
    }
}

// long/<T>/<source>/<algorithm>/<shape>/<axis>: long lines (the cluster or segmented path, taken by auto)
// beside thomas-naive (the old fallback), and the 256^3 cube with auto as the per-point reference.
template <class T>
void register_long(const char* tname) {
  struct Case {
    std::array<index_t, 3> n;
    int axis;
  };
  const Case cases[] = {{{256, 256, 256}, 0},   {{256, 256, 256}, 1},   {{256, 256, 256}, 2},
                        {{512, 512, 512}, 1},   {{512, 512, 512}, 2},
                        {{1024, 1024, 128}, 0}, {{1024, 1024, 128}, 1}, {{256, 256, 1024}, 2},
                        {{256, 256, 4096}, 2},  {{4096, 256, 256}, 0},  {{256, 4096, 256}, 1},
                        {{8192, 128, 128}, 0},  {{128, 128, 8192}, 2},  {{65536, 256, 1}, 0},
                        {{256, 65536, 1}, 1}};
  const char* axes[] = {"x", "y", "z"};
  for (const Case& c : cases)
    for (Source src : {Source::uniform, Source::arrays})
      for (GpuAlgorithm alg : {GpuAlgorithm::automatic, GpuAlgorithm::thomas_naive}) {
        if (c.n[c.axis] == 256 && alg != GpuAlgorithm::automatic) continue;
        const std::string shape =
            std::to_string(c.n[0]) + "x" + std::to_string(c.n[1]) + "x" + std::to_string(c.n[2]);
        add(std::string("long/") + tname + "/" + source_name(src) + "/" + gpu_algorithm_name(alg) + "/" + shape + "/" +
                axes[c.axis],
            [=](benchmark::State& st) { bm_solve<T>(st, c.n, c.axis, src, alg); });
      }
}

}  // namespace

int main(int argc, char** argv) {
  return gpu_bench::run(argc, argv, "bench_gpu_line_solvers", [] {
    register_all<double>("double");
    register_all<float>("float");
    register_long<double>("double");
    register_long<float>("float");
  });
}
