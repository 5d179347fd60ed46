// Split line solves on the GPU (solvers/tridiagonal/cuda/distributed_cuda.cuh), run under mpirun
// with one GPU per rank (ranks on one host share its GPUs round-robin; np = 1 runs the same code,
// its "exchange" a copy to itself):
//   split_gpu/<rows>/<transport>/b<batches>/NXxNYxNZ   every z line of the grid, split over the
//        ranks along z; rows: shared (ConstantDiffusionRows: the factored path) or arrays
//        (a, b, c stored per node); transport: gather or alltoall; batches: 1, 2, 4, or 0 (the
//        default, split_batches).
//   copy/d2d/134MB   cudaMemcpyAsync device to device (each rank its own): the bandwidth bytes/s is
//        read against.
// The GPU transport is choose_gpu_transport's (TRIDSIM_GPU_TRANSPORT forces one), in the context.
// Every rank runs the same fixed number of iterations; an iteration's time is the slowest rank's
// (a barrier before it, the device synchronized after). Bytes counted per solve: shared rows read
// the right-hand side twice and write the solution once (3 words per point); arrays read a, b, c
// and d once and write the solution (5), their swept rows' scratch not counted. Only rank 0
// reports (and writes --benchmark_out).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <array>
#include <string>

#include "bench/gpu/gpu_bench_support.hpp"
#include "bench/mpi_bench_support.hpp"
#include "core/domain.hpp"
#include "solvers/tridiagonal/cuda/distributed_cuda.cuh"

namespace {

using namespace tridsim;
using namespace tridsim::gpu_bench;

template <class T>
__global__ void fill(index_t size, T* u, T* a, T* b, T* c) {
  for (index_t o = index_t(blockIdx.x) * blockDim.x + threadIdx.x; o < size; o += index_t(gridDim.x) * blockDim.x) {
    u[o] = T(1);
    if (a) a[o] = c[o] = T(-0.5), b[o] = T(2);
  }
}

void split_gpu(benchmark::State& state, index_t nx, index_t ny, index_t nz, bool shared,
               tridiag::SplitTransport transport, index_t batches) {
  Grid g;
  g.dim = 3;
  g.n = {nx, ny, nz};
  const Domain d(g, {1, 1, world_size()});
  const Grid l = d.local();
  const AxisSplit& s = d.layout().axes[2];
  cuda::DeviceArray<double> u, a, b, c;
  u.allocate(l.size());
  for (auto* v : {&a, &b, &c})
    if (!shared) v->allocate(l.size());
  fill<double><<<1024, 256>>>(l.size(), u.p, a.p, b.p, c.p);
  ok(cudaDeviceSynchronize(), "fill");
  const tridiag::LineSet lines = tridiag::LineSet::dense(l, 2);
  const tridiag::Segment seg = tridiag::segment_of(s);
  LineComm& comm = d.line_comm(2);
  tridiag::gpu::SplitScratch<double> scratch;
  const tridiag::gpu::ArrayLoad<double> load{u.p};
  const tridiag::gpu::ArrayStore<double> store{u.p};
  auto solve = [&] {
    if (shared)
      tridiag::gpu::solve_split_lines<double>(
          lines, seg, tridiag::ConstantDiffusionRows<double>{0.5, nz, BoundaryKind::dirichlet, BoundaryKind::dirichlet},
          load, store, comm, scratch, transport, batches);
    else
      tridiag::gpu::solve_split_lines<double>(lines, seg, tridiag::gpu::ArrayRows<double>{a.p, b.p, c.p}, load, store,
                                              comm, scratch, transport, batches);
    ok(cudaDeviceSynchronize(), "solve");
  };
  solve();  // warm-up: scratch, the factored segment, pinned staging
  bench::timed_iterations(state, d, solve);
  const double points = double(g.size()), words = shared ? 3 : 5;
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(words * sizeof(double) * points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = d.size();
  state.counters["batches"] = double(batches > 0 ? batches : tridiag::gpu::split_batches(lines.count()));
}

}  // namespace

int main(int argc, char** argv) {
  init_processes(&argc, &argv);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    if (world_rank() == 0) std::fprintf(stderr, "bench_gpu_distributed: no CUDA device\n");
    finish_processes();
    return 1;
  }
  ok(cudaSetDevice(host_rank() % count), "cudaSetDevice");
  choose_gpu_transport();
  benchmark::AddCustomContext("gpu_transport", gpu_transport());
  ok(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking), "cudaStreamCreate");
  benchmark::RegisterBenchmark("copy/d2d/134MB", [](benchmark::State& st) { bm_copy(st, std::size_t(1) << 27); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->MinTime(0.1);
  constexpr int kIterations = 20;  // the same on every rank: iterations meet in collectives
  for (const auto& n : {std::array<index_t, 3>{256, 256, 256}, {512, 512, 256}, {256, 256, 4096}})
    for (const bool shared : {true, false})
      for (const auto transport : {tridiag::SplitTransport::gather, tridiag::SplitTransport::alltoall})
        for (const index_t batches : {0, 1, 2, 4}) {
          if (n[2] == 4096 && batches != 0) continue;  // (long lines: the default batches only)
          const std::string name = std::string("split_gpu/") + (shared ? "shared/" : "arrays/") +
                                   (transport == tridiag::SplitTransport::gather ? "gather" : "alltoall") + "/b" +
                                   std::to_string(batches) + "/" + std::to_string(n[0]) + "x" + std::to_string(n[1]) +
                                   "x" + std::to_string(n[2]);
          benchmark::RegisterBenchmark(name.c_str(), split_gpu, n[0], n[1], n[2], shared, transport, batches)
              ->Iterations(kIterations)
              ->UseManualTime()
              ->Unit(benchmark::kMicrosecond);
        }
  bench::run_benchmarks_on_ranks(argc, argv);
  finish_processes();
}
