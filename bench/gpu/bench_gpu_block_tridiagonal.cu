// Benchmarks of the CUDA block-tridiagonal solvers (solvers/block_tridiagonal/cuda/), read
// against the device's copy bandwidth measured in the same run.
//
//   bench_gpu_block_tridiagonal --benchmark_out=gpu.json --benchmark_out_format=json
//
// Cases (P = 16384 lines of N = 256 block rows: lines along y of a 16384 x 256 node array, so
// that the lines of a warp are x-adjacent; M = 2..8; float and double; solved in place):
//  - copy/d2d/134MB: cudaMemcpyAsync device to device of 2^27 bytes; bytes = 2 * size.
//  - stored/<T>/M<m>/<algorithm>[/partial]: BlockArrays (a, b, c stored, interleaved per node),
//    vectors interleaved; pivoting none (block-diagonally dominant), partial where named.
//  - generated/<T>/M<m>/<algorithm>/<layout>: constant coupled diffusion generated on the fly
//    (CoupledDiffusionRows through the solve_lines template), vectors interleaved or planar.
//  - uniform/<T>/M<m>/<algorithm>/<layout>: the same rows through the host API, which factors
//    them once (UniformBlockMatrix, cached on the device); a solve streams only the vectors.
//  - long/<T>/M4/<algorithm>/64x65536: few long lines (lines along y of a 64 x 65536 array).
// Blocks: A = C = -w D_o, B = I + 2 w D_o with D_o = D (1 + hash(o)/10) per node, so that every
// row sums to the identity and repeated in-place solves keep the values bounded and normal.
//
// Each iteration is one solve on one stream, timed with CUDA events. Counters:
//   unknowns/s      N * P * M / time;
//   bytes/s         MINIMAL traffic / time: (3 M^2 + 2 M) words per block row with stored
//                   blocks (a, b, c, d read, x written), 2 M words with generated or uniform;
//   copy_fraction   bytes/s over the copy bandwidth of copy/d2d/134MB in this run.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench/gpu/gpu_bench_support.hpp"
#include "core/coupled_diffusion.hpp"
#include "solvers/block_tridiagonal/cuda/block_batched_cuda.hpp"
#include "solvers/block_tridiagonal/cuda/block_solve.cuh"

namespace {

using namespace tridsim;
using namespace tridsim::blocktri;
using namespace tridsim::gpu_bench;

constexpr double kW = 0.3;
__host__ __device__ inline double node_hash(index_t i) { return double((std::uint64_t(i) * 2654435761u) % 1000u) / 1000.0; }
__host__ __device__ inline double base_d(int i, int j, int m) { return i == j ? 1.0 : 0.1 / m; }

// Blocks of node o (see the header) and the vectors, filled on the device.
template <class T>
__global__ void fill(index_t nodes, int m, T* a, T* b, T* c, T* u) {
  const index_t mm = index_t(m) * m;
  for (index_t k = index_t(blockIdx.x) * blockDim.x + threadIdx.x; k < nodes * mm; k += index_t(gridDim.x) * blockDim.x) {
    const index_t o = k / mm;
    const int i = int(k % mm) / m, j = int(k % m);
    const double d = kW * base_d(i, j, m) * (1.0 + 0.1 * node_hash(o));
    a[k] = T(-d);
    c[k] = T(-d);
    b[k] = T((i == j ? 1.0 : 0.0) + 2 * d);
    if (k < nodes * m) u[k] = T(node_hash(k + 7) - 0.5);
  }
}

template <class T>
struct Problem {
  int m = 0;
  index_t nodes = 0;
  DeviceBuffer<T> a, b, c, u;
  Problem(int m_, index_t nodes_) : m(m_), nodes(nodes_) {
    const index_t mm = index_t(m) * m;
    a = device_alloc<T>(nodes * mm);
    b = device_alloc<T>(nodes * mm);
    c = device_alloc<T>(nodes * mm);
    u = device_alloc<T>(nodes * m);
    fill<T><<<4096, 256>>>(nodes, m, a.get(), b.get(), c.get(), u.get());
    ok(cudaGetLastError(), "fill");
    ok(cudaDeviceSynchronize(), "fill");
  }
};

template <class T>
Problem<T>& problem(int m, index_t nodes) {
  static std::unique_ptr<Problem<T>> cached;
  if (!cached || cached->m != m || cached->nodes != nodes) {
    cached.reset();
    ok(cudaDeviceSynchronize(), "sync");
    cached = std::make_unique<Problem<T>>(m, nodes);
  }
  return *cached;
}

template <class Solve>
void time_solves(benchmark::State& state, const Solve& solve, double unknowns, double bytes) {
  const double total = time_calls(state, solve);
  if (total > 0) state.counters["unknowns/s"] = unknowns * double(state.iterations()) / total;
  bandwidth_counters(state, bytes, total);
}

enum class Source { stored, generated, uniform };

template <class T>
CoupledDiffusionRows<T> coupled(int m, index_t n) {
  CoupledDiffusionRows<T> rows;
  rows.m = m;
  rows.n = n;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) rows.wd[i * m + j] = T(kW * base_d(i, j, m));
  return rows;
}

template <class T>
void bm_solve(benchmark::State& state, int m, index_t P, index_t N, Source src, BlockGpuAlgorithm alg, bool planar,
              Pivoting piv) {
  Problem<T>& pb = problem<T>(m, P * N);
  const LineSet L{{P, N, 1}, {1, P, P * N}, 1};
  const double rows = double(P) * double(N);
  const double words = src == Source::stored ? 3.0 * m * m + 2.0 * m : 2.0 * m;
  const InterleavedAccess<T> il{pb.u.get(), m};
  const PlanarAccess<T> pl{pb.u.get(), P * N, m};
  const CoupledDiffusionRows<T> rows_gen = coupled<T>(m, N);
  try {
    std::function<void()> solve;
    if (src == Source::stored) {
      const BlockArrays<T> bl{pb.a.get(), pb.b.get(), pb.c.get(), m};
      solve = [=] { solve_lines_cuda<T>(L, bl, il, alg, piv, g_stream); };
    } else if (src == Source::uniform) {
      if (planar) solve = [=] { solve_lines_cuda<T>(L, rows_gen, pl, alg, piv, g_stream); };
      else solve = [=] { solve_lines_cuda<T>(L, rows_gen, il, alg, piv, g_stream); };
    } else {
      if (planar) solve = [=] { gpu::solve_lines<T>(m, L, rows_gen, pl, pl, alg, piv, g_stream); };
      else solve = [=] { gpu::solve_lines<T>(m, L, rows_gen, il, il, alg, piv, g_stream); };
    }
    time_solves(state, solve, rows * m, rows * words * sizeof(T));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void add(const std::string& name, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.05);
}

// Every algorithm of the table (block_gpu_algorithm.hpp), then auto.
std::vector<BlockGpuAlgorithm> all_algorithms() {
  std::vector<BlockGpuAlgorithm> out = block_gpu_algorithms();
  out.push_back(BlockGpuAlgorithm::automatic);
  return out;
}

template <class T>
void register_all(const std::string& t) {
  constexpr index_t P = 16384, N = 256;
  const LineSet L{{P, N, 1}, {1, P, P * N}, 1};
  for (int m = 2; m <= 8; ++m) {
    const std::string M = "/M" + std::to_string(m) + "/";
    for (BlockGpuAlgorithm alg : all_algorithms()) {
      if (!block_gpu_unsupported_reason(alg, m, L).empty()) continue;
      const std::string a = block_gpu_algorithm_name(alg);
      add("stored/" + t + M + a, [=](benchmark::State& st) {
        bm_solve<T>(st, m, P, N, Source::stored, alg, false, Pivoting::none);
      });
      if (alg == BlockGpuAlgorithm::work_sharing)
        add("stored/" + t + M + a + "/partial", [=](benchmark::State& st) {
          bm_solve<T>(st, m, P, N, Source::stored, alg, false, Pivoting::partial);
        });
      for (bool planar : {false, true}) {
        const std::string lay = planar ? "/planar" : "/interleaved";
        add("generated/" + t + M + a + lay, [=](benchmark::State& st) {
          bm_solve<T>(st, m, P, N, Source::generated, alg, planar, Pivoting::none);
        });
        if (alg != BlockGpuAlgorithm::block_pcr)
          add("uniform/" + t + M + a + lay, [=](benchmark::State& st) {
            bm_solve<T>(st, m, P, N, Source::uniform, alg, planar, Pivoting::none);
          });
      }
    }
  }
  for (BlockGpuAlgorithm alg : {BlockGpuAlgorithm::block_pcr, BlockGpuAlgorithm::work_sharing})
    add("long/" + t + "/M4/" + block_gpu_algorithm_name(alg) + "/64x65536", [=](benchmark::State& st) {
      bm_solve<T>(st, 4, 64, 65536, Source::stored, alg, false, Pivoting::none);
    });
}

}  // namespace

int main(int argc, char** argv) {
  return run(argc, argv, "bench_gpu_block_tridiagonal", [] {
    register_all<double>("double");
    register_all<float>("float");
  });
}
