// Fast Poisson solvers on the GPU (solvers/cyclic_reduction/cuda/poisson_cuda.hpp): one solve of
// -Lap u = f with zero Dirichlet values, device-resident data, every method (bcr, bcr4, and
// fft through cuFFT, the baseline), float and double, on
//   gpu_poisson2d/<method>/<precision>/n     n x n interior nodes, n = 127 ... 8191,
//   gpu_poisson3d/<method>/<precision>/n     n^3, n = 31 ... 511,
//   gpu_thesis/<method>/<precision>/N/Q      N blocks of size Q (Vouronikou & Zisiou 2013).
// Each iteration is timed with CUDA events around the solve alone (manual time); the copy of f
// that every iteration starts from is outside the events. Counters: points/s and bytes/s, the
// minimal traffic of a solve (read f, write u: 2 * sizeof(T) per node), against the device's
// copy bandwidth (bench_gpu_line_solvers prints it). Without a device it prints a note and exits 0.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/poisson_cases.hpp"
#include "solvers/cyclic_reduction/cuda/poisson_cuda.hpp"

namespace {

using namespace tridsim;

template <class T>
void solve(benchmark::State& state, cr::PoissonMethod method, int dim, std::array<index_t, 3> m) {
  cr::PoissonBox b;
  b.dim = dim;
  b.m = m;
  for (int a = 0; a < dim; ++a) b.h[a] = 1.0 / double(m[a] + 1);
  cr::PoissonCuda<T> solver(b, method);
  std::vector<T> f(b.size());
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : f) v = T(dist(rng));
  T *df = nullptr, *du = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&df), sizeof(T) * f.size()) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&du), sizeof(T) * f.size()) != cudaSuccess) {
    state.SkipWithError("cudaMalloc failed");
    return;
  }
  cudaMemcpy(df, f.data(), sizeof(T) * f.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(du, df, sizeof(T) * f.size(), cudaMemcpyDeviceToDevice);
  solver.solve(du);  // warm-up, untimed: cuFFT and the kernels' first launches
  cudaDeviceSynchronize();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    cudaMemcpy(du, df, sizeof(T) * f.size(), cudaMemcpyDeviceToDevice);
    cudaEventRecord(start);
    solver.solve(du);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(double(ms) * 1e-3);
  }
  if (cudaGetLastError() != cudaSuccess) state.SkipWithError("CUDA error");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(df);
  cudaFree(du);
  const double points = double(b.size());
  state.counters["points/s"] = benchmark::Counter(points, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(2.0 * sizeof(T) * points, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void register_all(const char* precision) {
  tridsim::bench::register_poisson_cases("gpu_", precision, solve<T>, true);
}

}  // namespace

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("bench_gpu_poisson: no CUDA device, nothing to measure\n");
    return 0;
  }
  register_all<double>("double");
  register_all<float>("float");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
